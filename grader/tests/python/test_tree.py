"""tilelab.run.tree: what a student sees of a failed build (compile_excerpt, scrub), and one grade at a
time per build tree (exclusive)."""

import json
import os
import subprocess
import sys
import threading
import time

from tilelab import ROOT
from tilelab.run.tree import LOCK, clear, compile_excerpt, exclusive, scrub

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


def test_the_race_and_count_builds_note_about_unrolling_never_reaches_the_student():
    """Every compile of the race and count builds prints g++'s note that -fdisable-rtl-loop2_unroll
    turned a pass off; a log with no error shows its tail, which must not be that note."""
    log = "cc1plus: note: disable pass rtl-loop2_unroll for functions in the range of [0, 4294967295]\n" \
          "/srv/build/submission-src/01-basic/matmul.cu:2:5: error: expected ';' before '}' token\n"
    out = compile_excerpt(log, strip="/srv/build/submission-src")
    assert "disable pass" not in out and "01-basic/matmul.cu:2:5: error" in out, out
    assert "disable pass" not in compile_excerpt(log.splitlines()[0] + "\nlast line\n"), "the tail shows the note"


def test_compile_excerpt_names_no_path_of_the_grading_machine(tmp_path):
    """A compile error inside the kit's own headers, or in a tree outside the kit (an autograder's),
    still shows no absolute path: the kit's files relative to it, the tree's relative to the tree."""
    tree = tmp_path / "autograder-build"
    log = (f"In file included from {tree}/generated/emu/run-submission-01-basic.cpp:3:\n"
           f"{ROOT}/grader/emu/include/tilelab_emu.h:40:1: error: something\n"
           f"{tree}/submission-src/01-basic/matmul.cu:7:3: note: from here\n")
    out = compile_excerpt(log, tree=tree)
    assert str(ROOT) not in out and str(tree) not in out and str(tmp_path) not in out, out
    assert "grader/emu/include/tilelab_emu.h:40:1: error" in out
    assert "01-basic/matmul.cu:7:3: note" in out.splitlines()[-1]


def test_scrub_cuts_the_kit_and_the_tree_also_as_bare_folders(tmp_path):
    tree = tmp_path / "b"
    text = f"see {ROOT}/build/grade-emu/logs/configure.log; cd {ROOT} && ls {tree}; {tree}/logs/x.log"
    out = scrub(text, tree)
    assert out == "see build/grade-emu/logs/configure.log; cd . && ls .; logs/x.log", out


HOLD = """
import sys, time
from pathlib import Path
from tilelab.run import tree
with tree.exclusive(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    (Path(sys.argv[1]).parent / "let-go").touch()
"""


def _holder(build, seconds):
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(build), str(seconds)], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "grader")))
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_second_grade_waits_for_the_tree_and_says_once_for_whom(tmp_path):
    build = tmp_path / "grade-submission-emu"
    p = _holder(build, 1.5)
    said = []
    started = time.monotonic()
    with exclusive(build, note=said.append):
        waited = time.monotonic() - started
        assert (tmp_path / "let-go").exists(), "the tree was taken while another process held it"
    assert waited > 0.5
    assert len(said) == 1 and f"waiting for another grade using {build} (pid {p.pid})" in said[0], said
    p.wait()


def test_threads_take_turns_and_one_thread_may_take_its_tree_again(tmp_path):
    build, inside, overlaps = tmp_path / "t", [], []

    def grade():
        with exclusive(build, note=lambda s: None):
            with exclusive(build):   # commands.grade around implementation.grade: no deadlock
                inside.append(1)
                overlaps.append(len(inside))
                time.sleep(0.2)
                inside.pop()

    threads = [threading.Thread(target=grade) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert overlaps == [1, 1, 1]


def test_a_removed_tree_is_not_shared_by_its_waiter_and_a_newcomer(tmp_path):
    """batch removes a student's tree, lock file included, before it lets go: the grade that waited
    on the removed lock file takes the new one, so it cannot run beside a grade that came later."""
    build, order = tmp_path / "s", []
    release = threading.Event()

    def first():
        with exclusive(build, remove=True):
            order.append("first")
            release.wait(10)
        assert not build.exists()

    def waiter():
        with exclusive(build, note=lambda s: None):
            order.append("waiter")
            time.sleep(0.3)
            order.append("waiter done")

    a = threading.Thread(target=first)
    a.start()
    while not order:
        time.sleep(0.01)
    b = threading.Thread(target=waiter)
    b.start()
    time.sleep(0.2)
    release.set()
    a.join()
    time.sleep(0.05)
    with exclusive(build, note=lambda s: None):   # a newcomer after the removal
        order.append("newcomer")
    b.join()
    assert order in (["first", "waiter", "waiter done", "newcomer"], ["first", "newcomer", "waiter", "waiter done"]), order
    assert (build / LOCK).exists()


def test_clear_keeps_only_the_lock_file(tmp_path):
    build = tmp_path / "s"
    with exclusive(build):
        (build / "CMakeFiles" / "x").mkdir(parents=True)
        (build / "a.o").write_text("")
        clear(build)
        assert [p.name for p in build.iterdir()] == [LOCK]


def test_scrubbing_a_report_gives_a_new_one_and_leaves_the_scored_one_as_it_was(tmp_path):
    """issue #29 item 1: a report is read-only once scored; grade's scrub of the machine's paths
    returns a changed copy (the messages, the stage's error, the hint, the runner's result)."""
    from dataclasses import replace

    import fakes
    from tilelab.grading import implementation
    from tilelab.run.result import Result
    tree = tmp_path / "b"
    src = f"{tree}/submission-src/01-basic/matmul.cu"
    r = fakes.report("bob", verdict="wrong", hidden=False)
    s, c = r.stages[0], r.stages[0].checks[0]
    c = replace(c, message=f"wrong at {src}:46", hint=f"see {tree}/logs/x.log",
                result=Result.parse(c.result.raw | {"message": f"wrong at {src}:46"}))
    dirty = replace(r, message=f"configured in {tree}", stages=[replace(s, error=f"{src}:3: error", checks=[c]),
                                                                  *r.stages[1:]])
    clean = implementation.scrubbed(dirty, tree)
    got = clean.stages[0].checks[0]
    assert clean.message == "configured in ." and clean.stages[0].error == "01-basic/matmul.cu:3: error"
    assert got.message == "wrong at 01-basic/matmul.cu:46" and got.hint == "see logs/x.log"
    assert got.result.message == "wrong at 01-basic/matmul.cu:46" and str(tree) not in json.dumps(got.result.raw)
    assert dirty.message == f"configured in {tree}" and dirty.stages[0].checks[0].message == f"wrong at {src}:46"
    assert clean.stages[1:] == dirty.stages[1:] and clean.points == dirty.points


def test_no_message_quotes_a_file_that_is_not_the_students(tmp_path):
    """An unconfined build (no Landlock, no seed) can read an answer key or CMakeCache.txt: g++
    quotes the first lines of an #include'd file in its errors, the assembler names the characters
    of an .include'd one. What the student reads keeps where and what kind of message it was, never
    the text: their own file's lines, the kit's public headers and the system's may be quoted."""
    tree = tmp_path / "grade-submission-emu"
    own = tree / "submission-src" / "01-basic" / "matmul.cu"
    log = (f"In file included from {own}:3:\n"
           f"{ROOT}/solutions/01-basic/questions-key.toml:1:3: error: invalid preprocessing directive #Answer\n"
           "    1 | # Answer key of assignments/01-basic/questions.toml\n"
           "      |   ^~~~~~\n"
           f"{tree}/CMakeCache.txt: Assembler messages:\n"
           f"{tree}/CMakeCache.txt:17: Error: junk at end of line, first unrecognized character is `u'\n"
           f"{own}:9:5: error: 'Pvalue' was not declared in this scope\n"
           "    9 |     Pvalue += M[Row];\n"
           f"/usr/include/c++/12/bits/move.h:196:5: note: candidate: 'swap(_Tp&, _Tp&)'\n"
           "  196 |     swap(_Tp& __a, _Tp& __b)\n"
           f"/usr/bin/ld: {tree}/CMakeFiles/a.dir/grader/runner/adapter.cpp.o: in function `launch':\n"
           "adapter.cpp:(.text+0x4): undefined reference to `launch_matmul(float const*, float*, int)'\n")
    out = compile_excerpt(log, tree=tree)
    for secret in ("Answer key", "#Answer", "unrecognized character", "`u'"):
        assert secret not in out, out
    assert "solutions/01-basic/questions-key.toml:1:3: error: (a message about a file that is not yours" in out, out
    assert "CMakeCache.txt:17: Error: (a message" in out, out
    assert "01-basic/matmul.cu:9:5: error: 'Pvalue' was not declared" in out and "Pvalue += M[Row];" in out, out
    assert "swap(_Tp& __a, _Tp& __b)" in out, "a system header's line may be quoted"
    assert "undefined reference to `launch_matmul(float const*, float*, int)'" in out, "a link error names symbols"
