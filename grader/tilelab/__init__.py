"""tilelab: the Python half of the grader. Measuring is done by the C++ runner (JSON out);
this package reads the stage specs, drives CMake/CTest and turns results into grades."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The kit's root: the folder holding assignments/, solutions/, starter/, grader/."""
