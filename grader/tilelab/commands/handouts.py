"""`python -m tilelab.commands.handouts [--check]` (from grader/): the parts of each handout (assignments/<stage>/README.md) that
are facts of questions.toml, written from it, so that they cannot drift from it.

Two parts are generated: the `| questions |` row of the Points table (the points from stage.toml,
the number of questions from questions.toml) and the paragraph between `<!-- handout:questions -->`
and `<!-- /handout:questions -->` (where the numbers come from, which questions are predict-then-
measure, which have numbers fixed for everyone). Everything else in a handout is written by hand."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT
from ..score import quiz
from ..specs import spec

BEGIN, END = "<!-- handout:questions -->", "<!-- /handout:questions -->"
ROW = re.compile(r"^\| questions \|.*\|$", re.M)
BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


@dataclass
class Drift:
    path: Path
    reason: str


def _points(x: float) -> str:
    return f"{x:g}"


def _varies(q: quiz.Question) -> bool:
    """Whether the question's numbers (or, for a choice question, its choices' order) differ between
    students: a draw with more than one value, or shuffled choices."""
    for v in q.draw.values():
        if isinstance(v, list) and len(set(map(repr, v))) > 1:
            return True
        if isinstance(v, dict) and {"min", "max"} <= set(v) and v["max"] > v["min"]:
            return True
    return q.kind == "choice" and q.shuffle and len(q.choices) > 1


def row(stage: str, points: float, questions: list[quiz.Question]) -> str:
    n = len(questions)
    return (f"| questions | {_points(points)} | the {n} question{'s' if n != 1 else ''} of "
            f"`assignments/{stage}/questions.toml`, shared equally: run `./tilelab quiz {stage}`, which asks "
            f"them and writes `{stage}/answers.toml`, and hand that file in beside `matmul.cu` |")


def paragraph(stage: str, questions: list[quiz.Question]) -> str:
    n = len(questions)
    number = {q.id: i for i, q in enumerate(questions, 1)}
    fixed = [q for q in questions if not _varies(q)]
    text = (f"The {n} question{'s' if n != 1 else ''} are drawn for you: "
            f"their numbers (and the order of a question's choices) come from your *quiz code* "
            f"(`./tilelab quiz {stage} --code CODE`; your instructor gives it to you, and the autograder "
            f"names it), so a classmate's draw is made separately and, for most questions and most "
            f"pairs of students, differs from yours (a question with few variants can coincide).")
    if fixed:
        names = ", ".join(f"{number[q.id]} (`{q.id}`)" for q in fixed)
        text += f" Question{'s' if len(fixed) > 1 else ''} {names} {'are' if len(fixed) > 1 else 'is'} the same for everyone."
    text += " Without a code the quiz uses `practice`, for self-study."
    for q in questions:
        if q.measure:
            text += (f"\n\nQuestion {number[q.id]} (`{q.id}`) is *predict, then measure*: predict, from the "
                     f"chapter, what the book's kernel makes at the shape it gives ({quiz.MEASURES[q.measure]}), "
                     f"and write the prediction in `answers.toml` before you measure. `./tilelab grade` then counts "
                     f"the same figure on your own kernel on the CPU emulator at another shape, never at "
                     f"yours (there, for a kernel that follows the book, it would be the answer): the count "
                     f"at your shape, and why a wrong prediction is off, come with the grade; the "
                     f"prediction is what is graded.")
    return f"{BEGIN}\n{text}\n{END}"


def render(stage_dir: Path, text: str) -> str:
    """The handout's text with its generated parts written from the stage's files."""
    questions = quiz.load_questions(stage_dir)
    if not questions:
        return text
    points = spec.load(stage_dir / "stage.toml").points.questions
    text = ROW.sub(lambda _: row(stage_dir.name, points, questions), text)
    return BLOCK.sub(lambda _: paragraph(stage_dir.name, questions), text)


def generate(root: Path = ROOT, check: bool = False) -> list[Drift]:
    """Write every stage's handout (or, with check, only report the ones that differ)."""
    drifts = []
    for stage_dir in sorted((root / "assignments").iterdir()):
        readme = stage_dir / "README.md"
        if not readme.is_file() or not quiz.load_questions(stage_dir):
            continue
        old = readme.read_text()
        if not ROW.search(old) or not BLOCK.search(old):
            drifts.append(Drift(readme, f"no `| questions |` row or no {BEGIN} ... {END} block"))
            continue
        new = render(stage_dir, old)
        if new != old:
            drifts.append(Drift(readme, "its questions' parts differ from questions.toml"))
            if not check:
                readme.write_text(new)
    return drifts


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report handouts that drifted (exit 1)")
    args = ap.parse_args(argv)
    drifts = generate(ROOT, check=args.check)
    for d in drifts:
        print(f"{d.path.relative_to(ROOT)}: {d.reason}" + (": rewritten" if not args.check else ""))
    return 1 if args.check and drifts else 0


if __name__ == "__main__":
    raise SystemExit(main())
