"""The grading seed: the one place that says what a seed is and what number the hidden datasets are
drawn from. `grade`, `batch` (and its Slurm tasks, which rebuild BatchOptions from JSON), the
Gradescope/PrairieLearn configuration (tilelab-autograder.json) and `quiz-codes` all pass the seed
through `text`, and the build tree receives only `number(text)` (tree.configure), so no spelling of
a seed can reach the judge as something it cannot read (docs/instructor.md, "The grading seed").

Any text is a seed. A decimal integer of at most 19 digits ("31415926") is that number, so a class
graded with an integer seed keeps the hidden datasets it always had; any other text ("fall-2026",
"abc", "-5", a number too large) is turned into a number by SHA-256, the same on every machine. The
quiz codes (quiz.code_for) are derived from the text itself. Every number is below 10^19 (LIMIT):
the judge reads an unsigned 64-bit integer, and the build tree (CMakeLists.txt, TILELAB_GRADING_SEED)
takes at most 19 digits, which CMake's own integers hold.
"""

from __future__ import annotations

import hashlib

LIMIT = 10 ** 19   # at most 19 digits: what the build tree takes (CMakeLists.txt), below the judge's 2^64


class SeedError(ValueError):
    """A seed given as something that is not text or an integer (a JSON list, a float, true)."""


def text(value: object) -> str | None:
    """A seed as given, in its one form: the text, without surrounding whitespace; None for no seed
    (None, "" or only whitespace). An integer (a JSON number in tilelab-autograder.json) is its
    decimal text. Anything else is refused with SeedError saying what was given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise SeedError(f"a grading seed is text or an integer, not {type(value).__name__} {value!r}")
    s = str(value).strip()
    return s or None


def number(value: object) -> int:
    """The number the hidden datasets are drawn from, 0 <= n < LIMIT (the judge's --seed): the seed
    itself when its text is a decimal integer in range, else the first 8 bytes of SHA-256 of the
    text modulo LIMIT (a text whose 8 bytes were already below it keeps its number). Refuses no seed
    at all (SeedError): hidden datasets need one."""
    s = text(value)
    if s is None:
        raise SeedError("no grading seed given")
    if s.isascii() and s.isdigit() and int(s) < LIMIT:
        return int(s)
    return int.from_bytes(hashlib.sha256(b"tilelab-seed|" + s.encode()).digest()[:8], "big") % LIMIT
