#!/usr/bin/env python3
"""Behaviour kept, checked: what the grader showed for every known-good and known-bad case of a test
tree, before and after a change that must not change it (issue #43: report JSON identical).

    report_snapshot.py collect TREE OUT     # TREE: a test tree after `ctest -L kit-grade` (and -L emu)
    report_snapshot.py compare OLD NEW [--new-key KEY ...]
                                            # exit 1 and the first differences when they differ;
                                            # --new-key: a key the change adds on purpose, left out of NEW

`collect` writes one file per case: kit-grade/<name>/case<i>/report.json (the GradeReport's own JSON,
the terminal text and Gradescope's file, grade_check.py's write_report) and every runner result
results/<check>.json. What differs from run to run is masked: wall-clock times and speeds measured on
this machine, the tree's and the checkout's paths, a build's progress, make's line numbers and
temporary file names. Everything else -- verdicts, points, messages, hints, findings,
the model's figures -- must be equal."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

# Keys whose values are measured on the machine that ran the check, not decided by the grader.
MEASURED = re.compile(r"(^|_)(seconds|time|times|ms|elapsed|wall|duration|gflops|timings|started|finished|date)($|_)"
                      r"|^(elapsed|wall|timestamp|measured_at|seconds|blocks_done|audit_max_ratio)$")
# In text: a build's progress ("[ 12%]"), a compiler's temporary files, measured figures.
# A build log's tail starts wherever its last bytes do, so make's progress lines are dropped whole;
# an emulator that timed out had finished as many blocks as this machine's pace allowed.
NOISE = [(re.compile(r"\[ *\d+%\]"), "[<n>%]"), (re.compile(r"(\[<n>%\] )?Built target [\w.-]+(\n|\\n)"), ""),
         (re.compile(r"/tmp/[\w./-]+"), "<tmp>"), (re.compile(r"\bcc\w{6}\.s\b"), "<tmp>"),
         (re.compile(r"had finished \d+ of"), "had finished <n> of"),
         # make's own line numbers (Makefile, Makefile2) in a failed build's log: a tree with more targets (nvcc's back end's
         # facts, where the compiler wheels are) has its rules further down Makefile2.
         (re.compile(r"(Makefile2?):\d+"), r"\1:<n>")]
NUMBER_IN_TEXT = re.compile(r"\b\d+(\.\d+)? ?(s|ms|µs|us|GFLOP/s|TFLOP/s)\b")


def mask(value, key: str = "", root: tuple = ()):
    if isinstance(value, dict):
        return {k: ("<measured>" if MEASURED.search(k.lower()) else mask(v, k, root)) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [mask(v, key, root) for v in value]
    if isinstance(value, str):
        for path, name in root:
            value = value.replace(path, name)
        for pattern, name in NOISE:
            value = pattern.sub(name, value)
        return NUMBER_IN_TEXT.sub("<measured>", value)
    return value


def collect(tree: Path, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    tree = tree.resolve()
    # The tree's path, then the checkout's (messages quote the student's file in the source tree).
    root = ((str(tree), "<tree>"), (str(Path(__file__).resolve().parents[3]), "<checkout>"))
    n = 0
    for f in sorted(tree.glob("kit-grade/*/case*/report.json")):
        case = f.parent
        doc = json.loads(f.read_text())
        for k in ("terminal", "gradescope"):
            doc[k] = mask(doc[k], root=root)
        doc["grade"] = mask(doc["grade"], root=root)
        (out / f"grade.{case.parent.name}.{case.name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        n += 1
    for f in sorted((tree / "results").glob("*.json")):
        try:
            doc = json.loads(f.read_text())
        except ValueError:
            continue
        (out / f"result.{f.name}").write_text(json.dumps(mask(doc, root=root), indent=1, sort_keys=True) + "\n")
        n += 1
    print(f"{n} files into {out}")
    return 0 if n else 1


def without(value, keys: set[str]):
    if isinstance(value, dict):
        return {k: without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without(v, keys) for v in value]
    return value


def compare(old: Path, new: Path, new_keys: set[str] = frozenset()) -> int:
    a = {f.name: f.read_text() for f in old.glob("*.json")}
    b = {f.name: json.dumps(without(json.loads(f.read_text()), new_keys), indent=1, sort_keys=True) + "\n"
         for f in new.glob("*.json")}
    bad = [f"only before: {k}" for k in sorted(a.keys() - b.keys())] + [f"only after: {k}" for k in sorted(b.keys() - a.keys())]
    for k in sorted(a.keys() & b.keys()):
        if a[k] != b[k]:
            la, lb = a[k].splitlines(), b[k].splitlines()
            i = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            cut = lambda lines: (lines[i][:300] if i < len(lines) else "(end)")  # noqa: E731
            bad.append(f"{k}: line {i + 1}\n  before: {cut(la)}\n  after:  {cut(lb)}")
    print(f"{len(a.keys() & b.keys())} compared, {len(bad)} differences")
    print("\n".join(bad[:40]))
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    keys = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--new-key"}
    args = [a for i, a in enumerate(args) if a != "--new-key" and (i == 0 or args[i - 1] != "--new-key")]
    if len(args) != 3 or args[0] not in ("collect", "compare"):
        print(__doc__)
        sys.exit(2)
    sys.exit(collect(Path(args[1]), Path(args[2])) if args[0] == "collect" else compare(Path(args[1]), Path(args[2]), keys))
