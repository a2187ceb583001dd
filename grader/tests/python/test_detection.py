"""A submission tree takes the prebuilt kit's detection (tilelab.run.detection): CMake's record of
the compilers and the tools' cache entries cross, nothing else of the kit's cache does, and a tree
configured with them detects no compiler again and finds what the kit found."""

import re
import shutil
import subprocess
import sys

import pytest

from tilelab.run import detection

SEED = "TILELAB_GRADING_SEED"   # (a literal setting here would itself be refused: this file ships)
CACHE = f"""\
# This is the CMakeCache file.
CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++
CMAKE_CUDA_COMPILER:FILEPATH=/usr/local/cuda/bin/nvcc
CMAKE_AR:FILEPATH=/usr/bin/ar
_Python3_EXECUTABLE:INTERNAL=/usr/bin/python3
_Python3_INTERPRETER_PROPERTIES:INTERNAL=Python;3;11;4;64;;cpython-311;/usr/lib/python3.11
CUDAToolkit_BIN_DIR:PATH=/usr/local/cuda/bin
{SEED}:STRING=987654321
{SEED}_TEXT:STRING=the instructor's seed
TILELAB_SUBMISSION:PATH=/grades/.build/alice/submission
CMAKE_HOME_DIRECTORY:INTERNAL=/kit/source
CMAKE_CXX_FLAGS:STRING=-O3
CMAKE_CACHEFILE_DIR:INTERNAL=/kit
"""


def test_only_what_was_detected_crosses():
    text = detection.initial_cache(CACHE)
    names = re.findall(r"^set\((\S+) ", text, re.M)
    assert names == ["CMAKE_PLATFORM_INFO_INITIALIZED", "CMAKE_CXX_COMPILER", "CMAKE_CUDA_COMPILER", "CMAKE_AR", "_Python3_EXECUTABLE",
                     "_Python3_INTERPRETER_PROPERTIES", "CUDAToolkit_BIN_DIR"]
    assert "987654321" not in text and "seed" not in text and "/kit" not in text
    assert 'set(CMAKE_CUDA_COMPILER [==[/usr/local/cuda/bin/nvcc]==] CACHE FILEPATH "")' in text


def test_no_kit_no_arguments(tmp_path):
    assert detection.take(None, tmp_path / "b") == []
    assert detection.take(tmp_path, tmp_path / "b") == []          # a kit without a saved detection


@pytest.mark.skipif(not shutil.which("cmake"), reason="needs cmake")
def test_a_tree_configured_with_the_kits_detection_detects_nothing_again(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p CXX)\n"
        "find_package(Python3 REQUIRED COMPONENTS Interpreter)\n"
        'file(WRITE "${CMAKE_BINARY_DIR}/found.txt" "${CMAKE_CXX_COMPILER}|${Python3_EXECUTABLE}")\n')

    def configure(build, extra=()):
        return subprocess.run(["cmake", "-S", src, "-B", build, f"-DPython3_EXECUTABLE={sys.executable}", *extra],
                              capture_output=True, text=True, check=True).stdout

    kit, tree = tmp_path / "kit", tmp_path / "tree"
    first = configure(kit, [f"-D{SEED}=987654321"])
    assert "Detecting CXX compiler ABI info" in first                # the kit detects
    detection.save(kit)
    second = configure(tree, detection.take(kit, tree))
    assert "Detecting CXX compiler ABI info" not in second and "Check for working" not in second
    assert (tree / "found.txt").read_text() == (kit / "found.txt").read_text()
    assert "987654321" not in (tree / "CMakeCache.txt").read_text()
