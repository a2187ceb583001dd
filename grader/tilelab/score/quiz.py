"""Graded questions: assignments/<stage>/questions.toml (ships), their answer key
solutions/<stage>/questions-key.toml (instructor-only: solutions/ never ships), and the student's
answers.toml beside matmul.cu (written by `./tilelab quiz STAGE`).

Numbers are drawn per student. A question's `draw` table names its numbers; they are drawn from a
hash of the student's *quiz code*, the stage and the question. The code is the student's own: it
is derived from the grading seed and the student's name (HMAC-SHA256, `code_for`), so only the
instructor (or the autograder, which holds the seed) can hand it out, and two students' numbers --
so their answers -- differ. Without a seed (a self-learner, local practice) any code works and
"practice" is the default.

The key holds one formula per question, evaluated over the drawn numbers (and, for questions
marked `gpu = true`, the grading GPU's cudaGetDeviceProperties, as the runner reports them in
`device`). Formulas are a small safe expression language (`evaluate`): arithmetic, comparisons,
`x if c else y`, and the functions in FUNCS. The key stays out of the release because a formula is
the method of the answer: shipped, it would let `./tilelab grade` confirm guesses locally.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT
from ..specs.compat import tomllib
from .scores import QUESTION, CheckScore, Note

ANSWERS = "answers.toml"
KEY = "questions-key.toml"
CHECK = QUESTION
PRACTICE = "practice"
LETTERS = "abcdefghij"
# What a question's message says when the grader could not tell the quiz code is the student's own.
UNVERIFIED = "UNVERIFIED"


# How a predict-then-measure question's comparison starts (a Note.COMPARISON on its check).
PREDICT = "predict, then measure"
# What a predict-then-measure question can measure, and how it is named to the student.
MEASURES = {"global-loads": "floats of M and N loaded from global memory"}


class QuizError(ValueError):
    """A questions.toml or key that does not follow the schema (the kit's fault, not the student's)."""


def _argmin(*pairs):
    """argmin('a', 3, 'b', 2) -> 'b'; 'tie' when two or more share the least value."""
    names, values = pairs[0::2], pairs[1::2]
    low = min(values)
    best = [n for n, v in zip(names, values) if v == low]
    return best[0] if len(best) == 1 else "tie"


FUNCS = {"min": min, "max": max, "floor": math.floor, "ceil": math.ceil, "round": round, "abs": abs,
         "int": int, "log2": math.log2, "argmin": _argmin}
_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.Name,
          ast.Load, ast.Constant, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def evaluate(expr: str, names: dict):
    """A key formula's value. Only arithmetic, comparisons, conditionals, the given names and FUNCS.

    >>> evaluate("B / 4 * T", {"B": 1000, "T": 16})
    4000.0
    >>> evaluate("argmin('threads', 8, 'blocks', 16)", {})
    'threads'
    >>> evaluate("open", {})
    Traceback (most recent call last):
    ...
    tilelab.score.quiz.QuizError: formula 'open': unknown name 'open'
    """
    try:
        tree = ast.parse(f"({expr.strip()})", mode="eval")
    except SyntaxError as e:
        raise QuizError(f"formula {expr!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise QuizError(f"formula {expr!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Name) and node.id not in names and node.id not in FUNCS:
            raise QuizError(f"formula {expr!r}: unknown name {node.id!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCS):
            raise QuizError(f"formula {expr!r}: only {sorted(FUNCS)} may be called")
    return eval(compile(tree, "<key>", "eval"), {"__builtins__": {}}, {**FUNCS, **names})  # noqa: S307


@dataclass
class Question:
    id: str
    kind: str                     # number | choice
    text: str
    cite: str = ""
    draw: dict = field(default_factory=dict)
    given: dict = field(default_factory=dict)     # numbers computed from the drawn ones, shown in the text
    choices: list[str] = field(default_factory=list)
    shuffle: bool = True
    tolerance: float = 0.0        # relative, for numbers: 0 (exact) unless tolerance_why says why not
    tolerance_why: str = ""       # why an answer within `tolerance` is right (a rounded rate, say)
    may_be_zero: bool = False     # 0 is a right answer for some draws (and the text allows for it)
    gpu: bool = False             # needs the grading GPU's properties
    unless: str = ""              # redraw while this formula is true (a tie, a degenerate case)
    # Predict, then measure: the answer (the book's figure) is a count the emulator can measure on
    # the student's own kernel, at the shape `shape` (three formulas: J, K, L). `measure` names it:
    # "global-loads" (floats of M and N loaded from global memory).
    measure: str = ""
    shape: list = field(default_factory=list)


def load_questions(stage_dir: Path) -> list[Question]:
    p = Path(stage_dir) / "questions.toml"
    if not p.exists():
        return []
    try:
        doc = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise QuizError(f"{p}: not valid TOML: {e}") from None
    out = []
    for q in doc.get("question", []):
        known = set(Question.__dataclass_fields__)
        if set(q) - known or "id" not in q or q.get("kind") not in ("number", "choice"):
            raise QuizError(f"{p}: question {q.get('id', '?')}: needs id, kind (number|choice), text; "
                            f"unknown keys {sorted(set(q) - known)}")
        question = Question(**q)
        if question.measure and (question.measure not in MEASURES or len(question.shape) != 3 or question.kind != "number"):
            raise QuizError(f"{p}: question {question.id}: measure must be one of {sorted(MEASURES)}, on a "
                            f"number question with shape = [J, K, L] formulas")
        if question.tolerance and not question.tolerance_why:
            raise QuizError(f"{p}: question {question.id}: a tolerance needs tolerance_why (counts are exact)")
        out.append(question)
    ids = [q.id for q in out]
    if len(set(ids)) != len(ids):
        raise QuizError(f"{p}: question ids must be unique: {ids}")
    return out


def load_key(stage: str, root: Path = ROOT) -> dict[str, str] | None:
    """The stage's answer formulas, or None where the key is absent (the student repository)."""
    p = root / "solutions" / stage / KEY
    if not p.exists():
        return None
    return dict(tomllib.loads(p.read_text()).get("answer", {}))


def code_for(seed: str, student: str) -> str:
    """The quiz code of one student: 10 hex digits of HMAC-SHA256(seed, student)."""
    return hmac.new(seed.encode(), student.strip().lower().encode(), hashlib.sha256).hexdigest()[:10]


def variant_code(variant_seed: int) -> str:
    """The quiz code of one PrairieLearn variant: 'pl' and its variant_seed in hex. PrairieLearn draws
    a variant_seed per variant and hands it to the grader in /grade/data/data.json, so the student
    cannot choose it, and each new variant (one per graded attempt: triesPerVariant 1) has numbers
    of its own. The question's server.py shows the same code (docs/instructor.md, section 6)."""
    return f"pl{int(variant_seed):x}"


def _rng(code: str, stage: str, qid: str) -> random.Random:
    h = hashlib.sha256(f"tilelab-quiz|{code}|{stage}|{qid}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _one(rng: random.Random, spec):
    if isinstance(spec, list):
        return rng.choice(spec)
    if isinstance(spec, dict) and {"min", "max"} <= set(spec):
        step = spec.get("step", 1)
        return spec["min"] + step * rng.randrange((spec["max"] - spec["min"]) // step + 1)
    return spec


@dataclass
class Drawn:
    question: Question
    values: dict
    order: list[int]              # choice i of the file is shown as letter order.index(i)
    code: str = ""
    stage: str = ""

    @property
    def text(self) -> str:
        return self.question.text.strip().format(**self.values)

    @property
    def shown_choices(self) -> list[str]:
        return [self.question.choices[i].format(**self.values) for i in self.order]


def draw(q: Question, code: str, stage: str) -> Drawn:
    rng = _rng(code, stage, q.id)
    for _ in range(200):
        values = {k: _one(rng, v) for k, v in sorted(q.draw.items())}
        for k, f in q.given.items():
            values[k] = evaluate(f, values)
        if not q.unless or not evaluate(q.unless, values):
            break
    else:
        raise QuizError(f"question {q.id}: no draw satisfied 'unless' in 200 tries")
    order = list(range(len(q.choices)))
    if q.kind == "choice" and q.shuffle:
        rng.shuffle(order)
    return Drawn(q, values, order, code, stage)


def expected(d: Drawn, formula: str, device: dict | None = None):
    """The right answer: a number, or the letter of the right choice as shown to this student."""
    names = dict(d.values)
    names.update({f"device_{k}": v for k, v in (device or {}).items() if isinstance(v, (int, float))})
    value = evaluate(formula, names)
    if d.question.kind == "number":
        return float(value)
    if isinstance(value, int):
        idx = value
    else:   # a choice's text, or the word before its colon ("tie" for "tie: two limits ...")
        idx = next((i for i, c in enumerate(d.question.choices) if c == value or c.startswith(f"{value}:")), None)
        if idx is None:
            raise QuizError(f"question {d.question.id}: the key gave {value!r}, which is none of the choices")
    return LETTERS[d.order.index(idx)]


def right(d: Drawn, given, want) -> bool:
    if d.question.kind == "choice":
        return isinstance(given, str) and given.strip().lower().rstrip(")") == want
    if isinstance(given, str):
        try:
            given = float(given.replace(",", ""))
        except ValueError:
            return False
    if isinstance(given, bool) or not isinstance(given, (int, float)):
        return False
    # Exact unless the question says why not: a count (phases, blocks, loads) within 1% would take
    # the rounded-down count that stage 03 is about for a right answer.
    return math.isclose(float(given), want, rel_tol=d.question.tolerance, abs_tol=1e-9)


@dataclass
class Answers:
    code: str = PRACTICE
    values: dict = field(default_factory=dict)
    problem: str = ""             # why the file could not be used ("" when it could)


def read_answers(path: Path | None, stage: str) -> Answers:
    where = f"{stage}/{ANSWERS}"
    if path is None or not Path(path).exists():
        return Answers(problem=f"no {where} beside matmul.cu: run `./tilelab quiz {stage}`, which asks the "
                       f"questions and writes it, and hand it in with matmul.cu")
    try:
        doc = tomllib.loads(Path(path).read_text(errors="replace"))
    except tomllib.TOMLDecodeError as e:
        return Answers(problem=f"{where} is not valid TOML ({e}); write it again with `./tilelab quiz {stage}`")
    ans = doc.get("answers", {})
    if not isinstance(ans, dict):
        return Answers(problem=f"{where} has no [answers] table; write it again with `./tilelab quiz {stage}`")
    return Answers(str(doc.get("code", PRACTICE)), ans)


def as_record(ans: Answers) -> dict:
    """What a platform keeps of a graded answers file between submissions (attempts)."""
    return {"code": ans.code, "values": dict(sorted(ans.values.items()))}


def attempt(current: Answers, earlier: list[dict], cap: int) -> tuple[Answers, tuple[tuple[Note, str], ...]]:
    """The answers that count, given those of the student's earlier submissions (as_record, oldest
    first) and a cap on how many different sets of answers count (0: no cap): once `cap` different
    sets have been handed in, a new one is not graded -- the last set that counted is, and the
    note (Note.ATTEMPTS_USED, its text: score's `notes`) says so. Resubmitting until every
    choice has been tried is then no longer a strategy."""
    if not cap or current.problem:
        return current, ()
    seen: list[dict] = []
    for rec in earlier:
        if rec and rec not in seen:
            seen.append(rec)
    if as_record(current) in seen or len(seen) < cap:
        return current, ()
    last = seen[-1]
    return (Answers(str(last.get("code", PRACTICE)), dict(last.get("values") or {})),
            ((Note.ATTEMPTS_USED, f"you have handed in {len(seen)} different sets of answers, as many as count "
                                  f"({cap}): these are the last set that counted, not this submission's"),))


def shape_of(d: Drawn) -> list[int]:
    """A predict-then-measure question's shape (J, K, L) for these drawn numbers."""
    return [int(evaluate(str(f), d.values)) for f in d.question.shape]


def demo_draw(q: Question, code: str, stage: str) -> Drawn:
    """Where the student kit (no key) measures a predict-then-measure question: the same question
    drawn again, for another code, until its shape differs from the graded one. For a kernel that
    follows the book the count at the graded shape *is* the answer (issue #42 item 3), so the kit
    never measures there before the answer is graded; the count at another shape of the same kind
    shows what the kernel loads, and carrying it over to the
    graded shape takes the formula the question is about."""
    graded = shape_of(draw(q, code, stage))
    for i in range(1, 100):
        d = draw(q, f"{code}|demo-{i}", stage)
        if shape_of(d) != graded:
            return d
    raise QuizError(f"question {q.id}: no shape other than the graded one in 100 draws")


# The tile width of the book's kernels in the predict-then-measure questions (TILE_WIDTH = 16).
BOOK_TILE = 16


def _mistakes(j: int, k: int, l: int, t: int = BOOK_TILE) -> list[tuple[str, float]]:
    """Counts of floats loaded that a known mistake gives at J x K x L (M is J x K, N is K x L, tile
    width t), each with what the mistake is, term by term: what a wrong prediction is explained by."""
    c = math.ceil

    def tiled(w):
        return c(l / w) * j * k, c(j / w) * k * l
    basic = (f"the basic kernel's loads (J*K*L = {j * k * l:,} of M + J*K*L = {j * k * l:,} of N: one float "
             f"of each per multiply-add, no tiles)", 2 * j * k * l)
    m, n = tiled(t)
    book = (f"the tiled kernel's loads (each element once per tile that needs it: ceil(L/{t})*J*K = {m:,} "
            f"of M + ceil(J/{t})*K*L = {n:,} of N)", m + n)
    out = [("you counted " + basic[0], basic[1]), ("you counted " + book[0], book[1])]
    for name, total in (basic, book):
        out += [(f"you counted only M's or only N's part of {name.split(' (')[0]}, not both", total / 2),
                (f"you counted {name.split(' (')[0]} in bytes, not floats (4 bytes a float)", 4 * total)]
    padded = 2 * c(j / t) * c(k / t) * c(l / t) * t * t
    out += [(f"you counted whole {t}x{t} tiles, past the edge too ({padded:,}), where the book's kernel "
             f"sets an element past the edge to 0.0 without loading it", padded)]
    for w in (2 * t, t // 2):
        out.append((f"you counted the loads with tiles {w} wide, not {t}", sum(tiled(w))))
    return out


def explain(d: Drawn, predicted: float, book: float) -> str:
    """Why a wrong prediction differs from the book's figure: by how much (a ratio), the book's
    figure term by term, and the known mistake the prediction matches, if any."""
    j, k, l = shape_of(d)
    ratio = predicted / book if book else math.inf
    how = (f"{ratio:.3g}x too high" if ratio >= 1 else
           f"{1 / ratio:.3g}x too low" if ratio > 0 else "not a count of loads")
    book_is = next((name for name, n in _mistakes(j, k, l) if math.isclose(n, book, rel_tol=1e-9)), "")
    line = f"your prediction is {how}"
    matched = [name for name, n in _mistakes(j, k, l)
               if math.isclose(predicted, n, rel_tol=1e-9) and not math.isclose(n, book, rel_tol=1e-9)]
    if matched:
        line += ": " + ", or ".join(dict.fromkeys(matched))
    if book_is:
        line += "; the book's kernel: " + book_is.replace("you counted ", "")
    return line


def lock_note(graded) -> str:
    """What the student kit says instead of the count at the graded shape."""
    j, k, l = graded
    return (f"counted here at another shape, not your question's {j} x {k} x {l}: the count there is "
            f"shown once your answer is graded")


def comparison(d: Drawn, predicted, book: float | None, measured: float | None, why_not: str = "") -> str:
    """Prediction, the student's own kernel measured, and the book's figure (None where the key is
    not at hand: the student kit), side by side, with what a difference between the kernel and the
    book's usually means."""
    what = MEASURES[d.question.measure]
    j, k, l = shape_of(d)
    predicted_value = predicted
    if isinstance(predicted, (int, float)) and not isinstance(predicted, bool) and float(predicted).is_integer():
        predicted = f"{predicted:,.0f}"
    head = f"{PREDICT} ({what}, J x K x L = {j} x {k} x {l}): you predicted {predicted}; "
    if measured is None:
        wrong = (book is not None and _number(predicted_value) is not None
                 and not math.isclose(_number(predicted_value), book, rel_tol=1e-9))
        return head + (f"the book's kernel: {book:,.0f}; " if book is not None else "") + \
            f"your kernel: not measured ({why_not})" + (f" -- {explain(d, _number(predicted_value), book)}" if wrong else "")
    if book is None:
        return head + (f"your kernel, counted on the emulator: {measured:,.0f} (your course's autograder "
                       f"grades the prediction against the book's figure)")
    line = head + f"your kernel, counted on the emulator: {measured:,.0f}; the book's kernel: {book:,.0f}"
    if _number(predicted_value) is not None and not math.isclose(_number(predicted_value), book, rel_tol=1e-9):
        line += f" -- {explain(d, _number(predicted_value), book)}"
    if measured == book:
        return line + " -- your kernel loads exactly what the book's does"
    diff = measured - book
    if diff > 0:
        return line + (f" -- your kernel loads {diff:,.0f} more ({diff / book:.0%}): a tile loaded by more "
                       f"threads than need it, elements past the edge loaded (not just zero-filled), or more "
                       f"phases than the product needs")
    return line + (f" -- your kernel loads {-diff:,.0f} fewer ({-diff / book:.0%}): values reused from "
                   f"registers, larger tiles or coarsening save loads the book's kernel makes")


def _answered(given) -> bool:
    """`./tilelab quiz` writes "" for a question left blank: that is no answer."""
    return given is not None and given != ""


def _number(given) -> float | None:
    if isinstance(given, bool):
        return None
    if isinstance(given, str):
        try:
            return float(given.replace(",", ""))
        except ValueError:
            return None
    return float(given) if isinstance(given, (int, float)) else None


def _measurement(d: Drawn, given, book: float | None, measure) -> tuple[tuple[Note, str], ...]:
    """A predict-then-measure question's comparison line as its check's note (Note.COMPARISON; its
    message ends with it) for an answered one, or (). With the key (the grade, shown to the student when the question's verdict is: after the
    due date where there is one) the kernel is measured at the graded shape and a wrong prediction
    explained; without it (the student kit, before any grading) only at another shape (demo_draw),
    never at the graded one, whose count for a kernel that follows the book is the answer."""
    if not (d.question.measure and _answered(given)):
        return ()
    if book is None:
        demo = demo_draw(d.question, d.code, d.stage)
        j, k, l = shape_of(demo)
        measured, why_not = measure(d.question, [j, k, l]) if measure else (None, "no emulator count build here")
        return ((Note.COMPARISON, f"{PREDICT} ({MEASURES[d.question.measure]}): you predicted {given} for your "
                                  f"question's shape; your kernel at J x K x L = {j} x {k} x {l}, " +
                                  (f"counted on the emulator: {measured:,.0f}" if measured is not None else
                                   f"not measured ({why_not})") +
                                  f" ({lock_note(shape_of(d))}, by your course's autograder)"),)
    measured, why_not = measure(d.question, shape_of(d)) if measure else (None, "no emulator count build here")
    return ((Note.COMPARISON, comparison(d, given, book, measured, why_not)),)


def score(stage, impl: str, answers_path: Path | None, points: float, code: str | None = None,
          device: dict | None = None, root: Path = ROOT, answers: Answers | None = None,
          notes: tuple[tuple[Note, str], ...] = (), measure=None, on_gpu: bool = False) -> list[CheckScore]:
    """One CheckScore per question ('<impl>.<stage>.<question id>.question'), sharing `points`.
    code: the student's quiz code when the grader knows it (seed and name, or a PrairieLearn
    variant's); otherwise the one in answers.toml is used ("practice" too), and where a key grades
    them the messages say UNVERIFIED. answers: graded instead of the
    file (attempt); notes: what is said of the answers as a whole (attempt's), to which a wrong
    quiz code's is added: each graded answer's message ends with their texts, and its check holds
    them as data (CheckScore.notes), with its comparison where it has one. measure(question, shape) -> (count
    or None, why not): the student's kernel measured for a predict-then-measure question, shown
    beside the prediction (graded on the prediction alone). A missing or unreadable answers.toml
    scores each question 0 with a message; a missing key (the student repository) skips them.
    on_gpu: graded on the GPU backend, where a question about the grading GPU is gradable even when
    no check reported the device (nothing compiled): it stays in the maximum, unearned, so every
    student of a class has the same maximum."""
    questions = load_questions(root / "assignments" / stage.id)
    if not questions:
        return []
    key = load_key(stage.id, root)
    each = points / len(questions)
    ans = answers or read_answers(answers_path, stage.id)
    use = code or ans.code
    if code and not ans.problem and ans.code != code:
        notes += ((Note.WRONG_CODE, f"these answers were for quiz code {ans.code!r}, not yours ({code!r}): run "
                                    f"`./tilelab quiz {stage.id} --code {code}`"),)
    note = "".join(f"; {text}" for _, text in notes)
    # Wherever a key is at hand but the grader does not know whose numbers to use (a batch without
    # --seed, PrairieLearn without a variant), the code is the student's word -- "practice" included:
    # it is the one code everybody may use, so one shared answers.toml would otherwise give a whole
    # class full marks unflagged (issue #42 item 2). Flagged, not scored 0: in a class graded without
    # codes every student legitimately answers the practice numbers.
    if not code and key is not None and not ans.problem:
        whose = ("'practice', the code anyone may use" if ans.code == PRACTICE else repr(ans.code))
        note += (f" ({UNVERIFIED}: graded with the quiz code answers.toml names, {whose}; without the "
                 f"grading seed and the student's name the grader cannot tell it is theirs)")
    out = []
    for q in questions:
        verdict, earned, worth, hint, said = "wrong", 0.0, each, "", ()
        if key is None or q.id not in key or q.gpu and not (device or {}).get("regs_per_sm"):
            # Not gradable here: out of the maximum, or kept in it, as [points] unearnable says.
            keyed = key is not None and q.id in key
            verdict, worth = "skipped", each if stage.points.unearnable == "keep" or keyed and on_gpu else 0.0
            message = ("asks what the grading GPU reports: nothing of this stage ran on the GPU to report it"
                       if keyed and on_gpu else
                       "asks what the grading GPU reports: graded on a GPU only" if keyed else
                       "graded by your course's autograder (the answer key is not in the student kit)")
            if q.measure and not ans.problem:   # the measurement needs no key: the self-learner's check
                said = _measurement(draw(q, use, stage.id), ans.values.get(q.id), None, measure)
        elif ans.problem:
            verdict = "missing" if answers_path is None or not Path(answers_path).exists() else "bad_input"
            message = ans.problem + (f" (your quiz code is {code}: `./tilelab quiz {stage.id} --code {code}`)"
                                     if code else "")
        else:
            d = draw(q, use, stage.id)
            want = expected(d, key[q.id], device)
            given = ans.values.get(q.id)
            if not _answered(given):
                message = f"not answered (no '{q.id}' in {stage.id}/{ANSWERS})"
            elif right(d, given, want):
                verdict, earned, message, said = "pass", each, "right" + note, notes
            else:
                message, said = f"{given!r} is not the right answer" + note, notes
            said += _measurement(d, given, want, measure)
            if q.cite and verdict != "pass":
                hint = f"see {q.cite}"
        message += "".join(f"\n{text}" for kind, text in said if kind == Note.COMPARISON)
        out.append(CheckScore(f"{impl}.{stage.id}.{q.id}.{CHECK}", q.id, CHECK, verdict, earned, worth, message, hint,
                              notes=said))
    return out


def ask(stage: str, code: str, out: Path, root: Path = ROOT, read=input, write=print) -> Path:
    """`./tilelab quiz STAGE`: ask each question in the terminal and write answers.toml. An empty
    reply keeps an earlier answer from the same file."""
    questions = load_questions(root / "assignments" / stage)
    if not questions:
        raise QuizError(f"stage {stage} has no questions.toml")
    old = read_answers(out, stage)
    keep = old.values if not old.problem and old.code == code else {}
    answers = {}
    write(f"Questions of {stage}, quiz code {code!r} (your numbers come from it)\n")
    for n, q in enumerate(questions, 1):
        d = draw(q, code, stage)
        write(f"{n}. {d.text}" + (f"\n   ({q.cite})" if q.cite else ""))
        if q.kind == "choice":
            for letter, text in zip(LETTERS, d.shown_choices):
                write(f"   {letter}) {text}")
        prompt = "   answer" + (f" [{keep[q.id]}]" if q.id in keep else "") + ": "
        while True:
            reply = read(prompt).strip()
            if not reply and q.id in keep:
                answers[q.id] = keep[q.id]
                break
            if q.kind == "choice" and reply.lower().rstrip(")") in LETTERS[:len(q.choices)]:
                answers[q.id] = reply.lower().rstrip(")")
                break
            if q.kind == "number":
                try:
                    answers[q.id] = float(reply.replace(",", ""))
                    break
                except ValueError:
                    pass
            if not reply:
                break   # left unanswered
            write("   " + ("a letter of the choices above" if q.kind == "choice" else "a number, e.g. 250 or 0.25"))
        write("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(stage, code, answers))
    return out


def render(stage: str, code: str, answers: dict) -> str:
    """answers.toml's text (toml has no writer in the standard library; the values are plain)."""
    lines = [f"# Answers to assignments/{stage}/questions.toml, written by ./tilelab quiz {stage}.",
             "# Hand this file in beside matmul.cu. The numbers you were asked came from this code:",
             f'code = "{code}"', "", "[answers]"]
    for k, v in answers.items():
        lines.append(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v!r}")
    return "\n".join(lines) + "\n"
