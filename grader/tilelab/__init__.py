"""tilelab: the Python half of the grader. Measuring is done by the C++ runner (JSON out);
this package reads the stage specs, drives CMake/CTest and turns results into grades.

Its subpackages, each importing only those below it: `commands` (the commands' modules) over
`grading` (one implementation graded: the engine's outcome scored into a report) over `report` (the
GradeReport, its view and its formats) over `score` (verdicts and points) over `run` (the grading
engine: builds, scans, checks and their results) over `specs` (stage.toml, contract.toml,
result_schema.toml and what is generated from them).
`cli` (the command line) sits above them all; this module holds only ROOT."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The kit's root: the folder holding assignments/, solutions/, starter/, grader/."""
