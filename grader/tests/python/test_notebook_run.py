"""grader/setup/notebook-run.py, the runner of docs/notebook.ipynb without Jupyter, on tiny notebooks
(no ./tilelab command runs here), and docs/notebook.ipynb itself: valid nbformat 4, and only the forms
the runner supports, so that the runner and the notebook cannot drift apart."""

import importlib.util
import json
import re
import subprocess
import sys

from tilelab import ROOT

RUNNER = ROOT / "grader" / "setup" / "notebook-run.py"
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
spec = importlib.util.spec_from_file_location("notebook_run", RUNNER)
notebook_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(notebook_run)


def write_notebook(path, *sources):
    cells = [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# a tiny notebook"]}]
    cells += [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
               "source": src.splitlines(True)} for i, src in enumerate(sources)]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def run(tmp_path, notebook, *options):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, str(RUNNER), "--notebook", str(notebook), "--out", str(out), *options],
                       capture_output=True, text=True, timeout=60)
    executed = json.loads((out / notebook.name).read_text())
    return p, json.loads((out / "summary.json").read_text()), executed


def test_cells_share_state_and_directory_and_stop_at_the_first_failing_command(tmp_path):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    nb = write_notebook(tmp_path / "nb.ipynb",
                        "X = 41\n%cd sub\n!pwd > here.txt",
                        "X += 1\nfor i in range(2):\n    !echo value {X} {i}",
                        "!echo before; exit 3",
                        "!touch never-run")
    p, summary, executed = run(tmp_path, nb, "--workdir", str(work))
    assert p.returncode == 1, p.stdout + p.stderr
    assert (work / "sub" / "here.txt").read_text().strip() == str((work / "sub").resolve())   # after %cd
    assert [c["status"] for c in summary["cells"]] == ["ok", "ok", "failed", "not run"]
    assert summary["failed_cell"] == 3 and summary["cells"][2]["index"] == 3 and not summary["passed"]
    assert summary["cells"][2]["exit_status"] == 3 and summary["cells"][2]["first_line"] == "!echo before; exit 3"
    assert not (work / "sub" / "never-run").exists()
    text = ["".join(o["text"]) for c in executed["cells"][1:] for o in c["outputs"]]
    assert "value 42 0" in text[1] and "value 42 1" in text[1]   # Python state shared, {NAME} expanded
    assert "before" in text[2] and "exit status 3" in text[2]
    assert len(text) == 3 and executed["cells"][4]["outputs"] == [] and executed["cells"][3]["execution_count"] == 3
    assert "value 42 1" in p.stdout and "cell 3: failed (exit status 3)" in p.stdout


def test_a_cell_past_its_timeout_is_stopped(tmp_path):
    nb = write_notebook(tmp_path / "nb.ipynb", "!sleep 30")
    p, summary, _ = run(tmp_path, nb, "--workdir", str(tmp_path), "--cell-timeout", "0.5")
    assert p.returncode == 1 and summary["cells"][0]["status"] == "timeout"
    assert summary["cells"][0]["seconds"] < 10


def test_unsupported_forms_are_refused_before_anything_runs(tmp_path):
    assert notebook_run.unsupported("!ls\n%cd x\nimport os\nif os:\n    !echo {os}") == []
    for src in ("%%writefile x.cu\nint x;", "%pip install x", "!echo $HOME", "!awk '{ print }' f", "!ls \\"):
        assert notebook_run.unsupported(src), src
    nb = write_notebook(tmp_path / "nb.ipynb", "!touch ran", "!echo $HOME")
    p = subprocess.run([sys.executable, str(RUNNER), "--notebook", str(nb), "--out", str(tmp_path / "o"),
                        "--workdir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "cell 2" in p.stdout and not (tmp_path / "ran").exists()


def code_cells():
    nb = json.loads(NOTEBOOK.read_text())
    return nb, [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def test_the_notebook_is_nbformat_4_without_outputs_and_uses_only_what_the_runner_runs():
    nb, code = code_cells()
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 5 and set(nb) == {"cells", "metadata", "nbformat", "nbformat_minor"}
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    for c in nb["cells"]:
        keys = {"cell_type", "id", "metadata", "source"} | ({"execution_count", "outputs"} if c["cell_type"] == "code" else set())
        assert set(c) == keys and c["cell_type"] in ("markdown", "code") and isinstance(c["source"], list)
    for i, src in code:
        assert nb["cells"][i]["outputs"] == [] and nb["cells"][i]["execution_count"] is None
        assert notebook_run.unsupported(src) == [], (i, src)
    commands = [m[1] for _, src in code for m in re.finditer(r"^\s*!\./tilelab (.*)$", src, re.M)]
    assert commands == ["setup", "check 01-basic", "grade 01-basic", "test"]
    # what the launcher does not handle itself is a command of the CLI, spelt as its parser takes it
    from tilelab.cli import build_parser
    for c in commands[1:3]:
        build_parser().parse_args(c.split())
    assert f"%cd {notebook_run.CLONE_DIR}" in "".join(src for _, src in code)   # what --skip-clone links


def test_the_notebooks_cheap_cells_run_and_the_clone_cell_uses_an_existing_checkout(tmp_path):
    """Every code cell that runs no ./tilelab command (the GPU check: no GPU is fine; the clone, with
    --skip-clone pointing at a fake checkout), then a cell that proves where they left us."""
    _, code = code_cells()
    cheap = [src for _, src in code if "./tilelab" not in src]
    assert any("git clone" in src for src in cheap)
    checkout = tmp_path / "elsewhere" / "tilelab"
    (checkout / "starter").mkdir(parents=True)
    (checkout / "tilelab").write_text("#!/bin/sh\n")
    # the clone cell twice: the second time from inside the checkout, as a student re-running it
    nb = write_notebook(tmp_path / "nb.ipynb", *cheap, *cheap[-1:], "!test -f tilelab && test -d starter && pwd")
    p, summary, _ = run(tmp_path, nb, "--workdir", str(tmp_path / "work"), "--skip-clone", str(checkout))
    assert p.returncode == 0 and summary["passed"], p.stdout + p.stderr
    assert p.stdout.rstrip().splitlines()[-3] == str(checkout.resolve()) and "$ git clone" not in p.stdout


def test_impl_solution_is_appended_to_check_and_grade_only(tmp_path):
    (tmp_path / "tilelab").write_text('#!/bin/sh\necho "args: $*"\n')
    (tmp_path / "tilelab").chmod(0o755)
    nb = write_notebook(tmp_path / "nb.ipynb", "!./tilelab setup", "!./tilelab check 01-basic", "!./tilelab grade 01-basic")
    p, summary, _ = run(tmp_path, nb, "--workdir", str(tmp_path), "--impl", "solution")
    assert p.returncode == 0 and summary["passed"] and summary["impl"] == "solution", p.stdout
    assert "args: setup\n" in p.stdout and "args: check 01-basic --impl solution" in p.stdout
    assert "args: grade 01-basic --impl solution" in p.stdout
