"""`tilelab similarity SUBMISSIONS --stage S`: which students' kernels are alike.

The fingerprints are copydetect's (a maintained implementation of winnowing, the algorithm of
MOSS): the file is tokenized by Pygments' CUDA lexer, with every identifier replaced by one
letter and comments and whitespace dropped, so renaming and reformatting change nothing; k-grams of
the tokens are hashed and winnowed. The stage's starter file is the boilerplate: fingerprints it
holds are removed from every student's, since everyone was handed that code. Moving statements
about leaves most k-grams intact, so a disguised copy still shares most of its fingerprints.

A pair's score is the mean of the two fractions of each file's fingerprinted code found in the
other (copydetect's per-file similarity). Pairs are ranked by it; the HTML pages show both files
side by side with the matching regions marked. A high score is a reason to read two files, never a
verdict by itself: kernels this short, written from one starter, resemble each other."""

from __future__ import annotations

import html
import itertools
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from ..run import submission as submission_mod

NOISE = 25          # copydetect's noise threshold: matches shorter than this (filtered chars) are ignored
GUARANTEE = 30      # any match at least this long is found (window = GUARANTEE - NOISE + 1)


@dataclass
class Pair:
    a: str
    b: str
    score: float                     # mean of the two fractions, 0..1
    fractions: tuple[float, float]   # of a found in b, of b found in a
    tokens: int                      # matching tokens
    slices: tuple = ()               # copydetect's (starts, ends) arrays in each original file

    @property
    def page(self) -> str:
        return f"pairs/{_safe(self.a)}--{_safe(self.b)}.html"


@dataclass
class Result:
    stage: str
    pairs: list[Pair] = field(default_factory=list)          # best first
    files: dict[str, str] = field(default_factory=dict)      # student -> the file's text
    missing: list[str] = field(default_factory=list)         # students without this stage's file


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.@" else "_" for ch in name)


def _fingerprint(path: Path, boilerplate=None):
    from copydetect import CodeFingerprint

    return CodeFingerprint(str(path), NOISE, GUARANTEE - NOISE + 1, boilerplate=boilerplate, language="cuda")


def starter_file(stage: str, root: Path = ROOT) -> Path | None:
    f = root / "starter" / stage / "matmul.cu"
    return f if f.is_file() else None


def compare(submissions: Path, stage: str, starter: Path | None = None) -> Result:
    """Every pair of students who handed in `stage`, best first."""
    import numpy as np
    from copydetect import compare_files

    starter = starter or starter_file(stage)
    boiler = np.array(sorted(_fingerprint(starter).hashes)) if starter else None
    res = Result(stage)
    prints = {}
    with tempfile.TemporaryDirectory() as tmp:
        for sub in submission_mod.discover(submissions):
            try:
                mat = submission_mod.materialize(sub.path, Path(tmp) / _safe(sub.name), [stage])
            except submission_mod.SubmissionError:
                mat = None
            f = Path(tmp) / _safe(sub.name) / stage / "matmul.cu"
            if mat is None or not f.is_file():
                res.missing.append(sub.name)
                continue
            res.files[sub.name] = f.read_text(errors="replace")
            prints[sub.name] = _fingerprint(f, boiler)
    for a, b in itertools.combinations(sorted(prints), 2):
        tokens, (fa, fb), slices = compare_files(prints[a], prints[b])
        res.pairs.append(Pair(a, b, (float(fa) + float(fb)) / 2, (float(fa), float(fb)), int(tokens), slices))
    res.pairs.sort(key=lambda p: (-p.score, p.a, p.b))
    return res


def _marked(text: str, slices) -> str:
    """The file as HTML with the matching regions in <mark>."""
    if slices is None or len(slices) == 0 or len(slices[0]) == 0:
        return html.escape(text)
    out, at = [], 0
    for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist())):
        start, end = max(start, at), max(end, at)
        out += [html.escape(text[at:start]), "<mark>", html.escape(text[start:end]), "</mark>"]
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def write_html(res: Result, out: Path, top: int = 50) -> Path:
    """out/index.html (ranked pairs) and out/pairs/<a>--<b>.html (side by side) for the top pairs."""
    import jinja2

    from ..report.formats.html import TEMPLATES

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    (out / "pairs").mkdir(parents=True, exist_ok=True)
    shown = res.pairs[:top]
    for p in shown:
        left = _marked(res.files[p.a], p.slices[0] if len(p.slices) else None)
        right = _marked(res.files[p.b], p.slices[1] if len(p.slices) else None)
        (out / p.page).write_text(env.get_template("similarity_pair.html.j2").render(
            stage=res.stage, pair=p, left=left, right=right))
    index = out / "index.html"
    index.write_text(env.get_template("similarity_index.html.j2").render(res=res, shown=shown, top=top))
    return index


def table_lines(res: Result, top: int = 20) -> list[str]:
    lines = [f"{'score':>6}  {'a in b':>6}  {'b in a':>6}  pair"]
    for p in res.pairs[:top]:
        lines.append(f"{p.score:6.2f}  {p.fractions[0]:6.2f}  {p.fractions[1]:6.2f}  {p.a} ~ {p.b}")
    return lines
