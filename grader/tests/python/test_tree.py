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
