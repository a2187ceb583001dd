"""tilelab.tree.compile_excerpt: what a student sees of a failed build."""

from tilelab.tree import compile_excerpt

NVCC_LOG = """\
[ 76%] Built target ref__01_basic_gpu
[ 76%] Building CUDA object CMakeFiles/obj.dir/scratch/compile-error/01-basic/matmul.cu.o
/scratch/compile-error/01-basic/matmul.cu(22): error: expected a ";"
      if (Row < Width && Col < Width) {
gmake[3]: *** [build.make:77: matmul.cu.o] Error 2
"""

LINK_LOG = """\
[ 90%] Linking CXX executable runners/run-submission-01-basic-gpu
/usr/bin/ld: adapter.cpp:(.text+0x4): undefined reference to `launch_matmul(float const*, float*, int)'
collect2: error: ld returned 1 exit status
"""


def test_starts_at_the_compiler_error_not_at_a_path_that_says_error():
    out = compile_excerpt(NVCC_LOG, strip="/scratch/compile-error")
    assert out.splitlines()[0] == '01-basic/matmul.cu(22): error: expected a ";"'


def test_link_error_starts_at_the_undefined_reference():
    assert compile_excerpt(LINK_LOG).startswith("/usr/bin/ld: adapter.cpp:(.text+0x4): undefined reference")


def test_no_error_line_gives_the_tail():
    assert compile_excerpt("a\nb\nc", lines=2) == "b\nc"


NINJA_LOG = """$ cmake --build /srv/build --parallel 2 --target run-submission-01-basic-emu -- -d keepdepfile
[1/8] Rewriting /srv/build/submission-src/01-basic/matmul.cu for the CPU emulator
FAILED: CMakeFiles/emu_plain_run_submission_01_basic.dir/generated/emu/run-submission-01-basic.cpp.o
/usr/bin/c++  -I/srv/image/grader/emu/include -include /srv/image/grader/emu/include/tilelab_emu.h -c /srv/build/generated/emu/run-submission-01-basic.cpp
/srv/build/submission-src/01-basic/matmul.cu:2:5: error: expected ';' before '}' token
FAILED: CMakeFiles/emu_asan_run_submission_01_basic.dir/generated/emu/run-submission-01-basic.cpp.o
/usr/bin/c++  -I/srv/image/grader/emu/include -fsanitize=address -c /srv/build/generated/emu/run-submission-01-basic.cpp
/srv/build/submission-src/01-basic/matmul.cu:2:5: error: expected ';' before '}' token
ninja: build stopped: subcommand failed.
"""


def test_ninja_command_lines_never_reach_the_student():
    """Ninja prints the whole command line of a failed compile after its FAILED: line; it holds
    the grading machine's paths and is no help: only the compiler's messages are shown."""
    out = compile_excerpt(NINJA_LOG, strip="/srv/build/submission-src")
    assert "01-basic/matmul.cu:2:5: error: expected ';'" in out
    assert "/srv/image" not in out and "FAILED" not in out and "ninja:" not in out, out
