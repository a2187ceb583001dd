#!/usr/bin/env python3
"""Runs a notebook's code cells in order without Jupyter, the way a notebook would: docs/notebook.ipynb
on a machine with no Jupyter and no network, such as the offline GPU machine. Standard library only.

Each code cell becomes Python, as IPython translates it, and runs in one namespace shared by all cells:
  * `!cmd` (indented too) runs `cmd` with bash in the current directory; `{NAME}` in it is replaced by
    the value of the Python variable NAME. Its output is shown as it comes.
  * `%cd DIR` changes the current directory (of the cells and of the commands after it).
  * every other line is plain Python.
Nothing else is supported (no other magic, no `$var`, no other braces in a command): `unsupported()`
names what a cell uses beyond this, and such a notebook is refused before anything runs.

Unlike IPython, a `!` command that exits nonzero fails its cell, and the run stops at the first failing
cell: a run that passes proves that every step worked, not only that it printed something. A cell that
runs past --cell-timeout is stopped (its commands' process groups killed) and fails.

Written to --out after every cell, so that a run cut short still leaves what it did: the executed
notebook (each run cell's output as one `stream` output, stdout and stderr together) and summary.json
(per code cell: its index in the notebook, first line, status, exit status, seconds).

  --skip-clone [CHECKOUT]  make WORKDIR/tilelab a link to an existing checkout (default: the one this
                           script is in), so that the clone cell finds a `tilelab` folder and clones
                           nothing (no network needed)
  --impl solution          append `--impl solution` to `./tilelab check` and `./tilelab grade`: in the
                           instructor's kit they then grade the reference solutions and must pass,
                           where the untouched starter fails by design (it is the student's assignment)
Exit status: 0 every cell passed, 1 a cell failed, 2 bad usage or an unsupported notebook.

  python3 grader/setup/notebook-run.py --skip-clone --impl solution --out build/notebook-run
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLONE_DIR = "tilelab"   # the folder the notebook's clone cell clones into and changes into
SHELL = re.compile(r"^(\s*)!(.*)$")          # indentation, command
CD = re.compile(r"^(\s*)%cd(?:\s+(.*))?$")   # indentation, directory
NAME = re.compile(r"\{([A-Za-z_]\w*)\}")


class CellFailed(Exception):
    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class CellTimeout(CellFailed):
    pass


def unsupported(source: str) -> list[str]:
    """The lines of a code cell that this runner would not run as IPython does (empty: none)."""
    bad = []
    for line in source.splitlines():
        m = SHELL.match(line) or CD.match(line)
        if not m and line.lstrip().startswith("%"):
            bad.append(f"{line.strip()}: the only magic supported is %cd")
        elif m and (re.search(r"[{}$]", NAME.sub("", m[2] or "")) or line.rstrip().endswith("\\")):
            bad.append(f"{line.strip()}: only {{NAME}} is expanded (no $, no other braces, no continued line)")
    if not bad:
        try:
            compile(translate(source), "<cell>", "exec")
        except SyntaxError as e:
            bad.append(f"not Python once translated: {e}")
    return bad


def translate(source: str) -> str:
    """IPython's forms as calls: `!cmd` -> _sh('cmd'), `%cd dir` -> _cd('dir')."""
    out = []
    for line in source.splitlines():
        if m := SHELL.match(line):
            line = f"{m[1]}_sh({m[2].strip()!r})"
        elif m := CD.match(line):
            line = f"{m[1]}_cd({(m[2] or '').strip()!r})"
        out.append(line)
    return "\n".join(out) + "\n"


class Tee:
    """sys.stdout and sys.stderr while a cell runs: shown at once, and kept for the executed notebook."""

    def __init__(self, real):
        self.real, self.parts = real, []

    def write(self, text: str) -> int:
        self.real.write(text)
        self.real.flush()
        self.parts.append(text)
        return len(text)

    def flush(self):
        self.real.flush()


class Runner:
    def __init__(self, impl: str | None = None):
        self.impl = impl
        self.ns = {"__name__": "__main__", "_sh": self.sh, "_cd": self.cd}

    def expand(self, text: str) -> str:
        def value(m):
            if m[1] not in self.ns:
                raise CellFailed(f"{m[0]}: no variable {m[1]} is defined")
            return str(self.ns[m[1]])
        return NAME.sub(value, text)

    def cd(self, where: str):
        os.chdir(os.path.expanduser(self.expand(where) or "~"))
        print(os.getcwd())

    def sh(self, cmd: str):
        cmd = self.expand(cmd)
        if self.impl and re.match(r"\./tilelab (check|grade)\b", cmd):
            cmd += f" --impl {self.impl}"
        print(f"$ {cmd}", flush=True)
        p = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            while chunk := os.read(p.stdout.fileno(), 65536):
                sys.stdout.write(chunk.decode(errors="replace"))
            status = p.wait()
        except BaseException:   # the cell's timeout, or ^C: the command's whole process group goes
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        finally:
            p.stdout.close()
        if status != 0:
            raise CellFailed(f"exit status {status}: {cmd}", status)

    def run_cell(self, source: str, timeout: float) -> tuple[str, int, str]:
        """(status, exit status, output) of one code cell: ok 0, failed N, timeout 124."""
        def expire(*_):
            raise CellTimeout(f"ran past --cell-timeout {timeout:g} s", 124)

        real_out, real_err = sys.stdout, sys.stderr
        tee = sys.stdout = sys.stderr = Tee(real_out)
        old = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        status, code = "ok", 0
        try:
            exec(compile(translate(source), "<cell>", "exec"), self.ns)
        except CellFailed as e:
            status, code = ("timeout" if isinstance(e, CellTimeout) else "failed"), e.status
            print(f"cell failed: {e}")
        except Exception:
            status, code = "failed", 1
            traceback.print_exc(file=tee)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            sys.stdout, sys.stderr = real_out, real_err
        return status, code, "".join(tee.parts)


def first_line(source: str) -> str:
    return next((line.strip() for line in source.splitlines() if line.strip()), "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notebook", default=str(ROOT / "docs" / "notebook.ipynb"), help="default: docs/notebook.ipynb")
    ap.add_argument("--out", required=True, help="folder for the executed notebook and summary.json")
    ap.add_argument("--workdir", help="where the cells start (default: a new temporary folder)")
    ap.add_argument("--skip-clone", nargs="?", const=str(ROOT), metavar="CHECKOUT",
                    help=f"link WORKDIR/{CLONE_DIR} to CHECKOUT (default: this script's checkout), so that "
                         "the clone cell clones nothing")
    ap.add_argument("--impl", choices=["solution"], help="append --impl solution to ./tilelab check and grade")
    ap.add_argument("--skip", default="", metavar="I,J",
                    help="notebook indices of code cells not to run (recorded as skipped): a long run split "
                         "between two machine calls, e.g. the test cell in a call of its own")
    ap.add_argument("--cell-timeout", type=float, default=3600, help="seconds per cell (default %(default)g)")
    args = ap.parse_args(argv)

    nb_path = Path(args.notebook).resolve()
    nb = json.loads(nb_path.read_text())
    code = [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]
    problems = [f"cell {i}: {p}" for i, src in code for p in unsupported(src)]
    if problems:
        print("notebook-run: the notebook uses what this runner does not support:\n  " + "\n  ".join(problems))
        return 2
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="notebook-run-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    if args.skip_clone:
        link, checkout = workdir / CLONE_DIR, Path(args.skip_clone).resolve()
        if not os.path.lexists(link):
            link.symlink_to(checkout, target_is_directory=True)
        elif link.resolve() != checkout:
            print(f"notebook-run: {link} exists and is not {checkout}")
            return 2
    os.chdir(workdir)

    runner = Runner(args.impl)
    cells = [{"index": i, "first_line": first_line(src), "status": "not run", "exit_status": None, "seconds": None}
             for i, src in code]

    def save():
        failed = next((c["index"] for c in cells if c["status"] not in ("ok", "not run", "skipped")), None)
        summary = {"notebook": str(nb_path), "workdir": str(workdir), "impl": args.impl,
                   "passed": all(c["status"] in ("ok", "skipped") for c in cells), "failed_cell": failed, "cells": cells}
        (out / nb_path.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
        return failed

    skip = {int(x) for x in args.skip.split(",") if x.strip()}
    failed = save()
    for n, ((i, src), rec) in enumerate(zip(code, cells), 1):
        if i in skip:
            rec["status"] = "skipped"
            print(f"======== cell {i} (code cell {n} of {len(code)}): skipped (--skip)", flush=True)
            continue
        print(f"======== cell {i} (code cell {n} of {len(code)}), in {os.getcwd()}\n{src.rstrip()}\n"
              "-------- output", flush=True)
        start = time.monotonic()
        rec["status"], rec["exit_status"], text = runner.run_cell(src, args.cell_timeout)
        rec["seconds"] = round(time.monotonic() - start, 2)
        print(f"-------- cell {i}: {rec['status']} (exit status {rec['exit_status']}), {rec['seconds']} s", flush=True)
        nb["cells"][i].update(execution_count=n,
                              outputs=[{"output_type": "stream", "name": "stdout", "text": text.splitlines(True)}])
        failed = save()
        if failed is not None:
            break
    print(f"notebook-run: {'every cell passed' if failed is None else f'stopped at cell {failed}'}; "
          f"the executed notebook and summary.json are in {out}")
    return 0 if failed is None else 1


if __name__ == "__main__":
    sys.exit(main())
