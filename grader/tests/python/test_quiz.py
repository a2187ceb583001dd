"""Graded questions (quiz.py): numbers vary with the student's code, right and wrong answers are
scored so, a missing or broken answers.toml is a clear zero, and the answer key never ships."""

from dataclasses import replace

import pytest

from tilelab import ROOT
from tilelab.commands import leaks
from tilelab.score import quiz
from tilelab.score.scores import Note
from tilelab.specs import spec

# The answer keys are instructor material: in the student repository there is nothing to grade with.
pytestmark = pytest.mark.skipif(not (ROOT / "solutions").exists(), reason="needs the instructor's answer keys")

STAGES = [s for s in spec.load_all(ROOT) if (ROOT / "assignments" / s.id / "questions.toml").exists()]
DEVICE = {"regs_per_sm": 65536, "max_threads_per_sm": 2048}   # an H100/H200 as the runner reports it


def _right_answers(stage, code):
    key = quiz.load_key(stage.id)
    return {q.id: quiz.expected(quiz.draw(q, code, stage.id), key[q.id], DEVICE)
            for q in quiz.load_questions(ROOT / "assignments" / stage.id)}


def _write(tmp_path, stage, code, answers):
    p = tmp_path / stage.id / quiz.ANSWERS
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(quiz.render(stage.id, code, answers))
    return p


def test_a_stage_has_questions_exactly_when_its_points_count_them():
    """A rule over every stage, not a list of them: a new stage touches only its own folders."""
    every = spec.load_all(ROOT)
    for s in every:
        asked = (ROOT / "assignments" / s.id / "questions.toml").exists()
        assert asked == (s.points.questions > 0), f"{s.id}: questions.toml {'present' if asked else 'absent'}, " \
                                                  f"[points] questions = {s.points.questions}"
    assert STAGES, "no stage has questions"


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.id)
def test_two_codes_give_different_numbers(stage):
    qs = [q for q in quiz.load_questions(ROOT / "assignments" / stage.id) if q.draw]
    assert qs, f"{stage.id} has no question with drawn numbers"
    a = [quiz.draw(q, quiz.code_for("seed-1", "ann@uni.edu"), stage.id).values for q in qs]
    b = [quiz.draw(q, quiz.code_for("seed-1", "bob@uni.edu"), stage.id).values for q in qs]
    assert a != b
    # and the same student gets the same numbers every time
    assert a == [quiz.draw(q, quiz.code_for("seed-1", "ann@uni.edu"), stage.id).values for q in qs]


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.id)
def test_every_question_varies_or_shuffles_and_its_key_evaluates(stage):
    key = quiz.load_key(stage.id)
    for q in quiz.load_questions(ROOT / "assignments" / stage.id):
        assert q.id in key, f"{stage.id}: no key for {q.id}"
        shown = {(quiz.draw(q, f"c{i}", stage.id).text, tuple(quiz.draw(q, f"c{i}", stage.id).shown_choices))
                 for i in range(40)}
        assert len(shown) > 1, f"{stage.id}/{q.id}: every student sees the same question"
        for i in range(40):   # every draw has an answer: a number, or one of the choices' letters
            want = quiz.expected(quiz.draw(q, f"c{i}", stage.id), key[q.id], DEVICE)
            assert want in quiz.LETTERS[:len(q.choices)] if q.kind == "choice" else isinstance(want, float)


DRAWS = 2000
# Other GPUs a course may grade on (cudaGetDeviceProperties as the runner reports it): an answer that
# depends on the grading GPU must vary with it too.
DEVICES = [DEVICE, {"regs_per_sm": 65536, "max_threads_per_sm": 1536}, {"regs_per_sm": 65536, "max_threads_per_sm": 1024}]


def _sample(stage, q, key):
    """The question's right answer over DRAWS students (and the GPUs above): numbers, or the index
    of the right choice in the file."""
    out = []
    for i in range(DRAWS):
        d = quiz.draw(q, f"sample-{i}", stage.id)
        want = quiz.expected(d, key[q.id], DEVICES[i % len(DEVICES)])
        out.append(want if q.kind == "number" else d.order[quiz.LETTERS.index(want)])
    return out


QUESTIONS = [(s, q) for s in STAGES for q in quiz.load_questions(ROOT / "assignments" / s.id)]


@pytest.mark.parametrize("stage, q", QUESTIONS, ids=lambda x: getattr(x, "id", ""))
def test_every_question_is_graded_by_what_varies(stage, q):
    """Issue #28: the sampler over every question. A choice question's every choice is the right
    one for some students (no distractor that is never right, no question whose answer is the same
    letter for everyone); a number question has at least five different answers across students;
    a count is graded exactly, and only a question that says why (tolerance_why) allows a
    tolerance; 0 is an answer only where the question says it may be (the text allows for it)."""
    key = quiz.load_key(stage.id)
    got = _sample(stage, q, key)
    where = f"{stage.id}/{q.id}"
    if q.kind == "choice":
        never = sorted(set(range(len(q.choices))) - set(got))
        assert not never, f"{where}: choices {[q.choices[i] for i in never]} are never right"
        return
    assert len(set(got)) >= 5, f"{where}: only {sorted(set(got))} as answers over {DRAWS} students"
    if all(float(v).is_integer() for v in got):
        assert q.tolerance == 0, f"{where}: every answer is a whole number (a count): it must be exact"
    if q.tolerance:
        assert q.tolerance_why, f"{where}: a tolerance needs its reason"
    if not q.may_be_zero:
        assert 0 not in got, f"{where}: 0 is the answer for some students, which the question does not allow for"


def test_a_rounded_down_count_is_wrong():
    """The phases question: floor(W / T), the bug stage 03 teaches, was accepted within 1% in about
    a quarter of the draws. Counts are exact now."""
    stage = next(s for s in STAGES if s.id == "03-boundary")
    q = next(q for q in quiz.load_questions(ROOT / "assignments" / stage.id) if q.id == "phases")
    key, tried = quiz.load_key(stage.id), 0
    for i in range(500):
        d = quiz.draw(q, f"c{i}", stage.id)
        want = quiz.expected(d, key[q.id])
        floor = d.values["W"] // d.values["T"]
        if floor != want:
            tried += 1
            assert not quiz.right(d, floor, want), d.values
        assert quiz.right(d, want, want) and quiz.right(d, f"{int(want)}", want)
    assert tried > 100


def test_a_tolerance_without_its_reason_is_refused(tmp_path):
    (tmp_path / "questions.toml").write_text('[[question]]\nid = "x"\nkind = "number"\ntext = "?"\ntolerance = 0.01\n')
    with pytest.raises(quiz.QuizError, match="tolerance_why"):
        quiz.load_questions(tmp_path)


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.id)
def test_right_answers_earn_every_point_and_wrong_ones_none(stage, tmp_path):
    right = _right_answers(stage, "abc")
    checks = quiz.score(stage, "submission", _write(tmp_path, stage, "abc", right), 10, None, DEVICE)
    assert [c.verdict for c in checks] == ["pass"] * len(right)
    assert sum(c.points for c in checks) == pytest.approx(10)
    wrong = {k: (v * 3 + 1 if isinstance(v, float) else "z") for k, v in right.items()}
    checks = quiz.score(stage, "submission", _write(tmp_path, stage, "abc", wrong), 10, None, DEVICE)
    assert [c.verdict for c in checks] == ["wrong"] * len(right)
    assert sum(c.points for c in checks) == 0 and sum(c.max_points for c in checks) == pytest.approx(10)


def test_a_wrong_choice_letter_is_wrong(tmp_path):
    stage = STAGES[1]
    right = _right_answers(stage, "abc")
    qid = "occupancy-limit"
    other = next(x for x in "abcd" if x != right[qid])
    checks = quiz.score(stage, "s", _write(tmp_path, stage, "abc", {**right, qid: other}), 10, None, DEVICE)
    assert {c.dataset: c.verdict for c in checks}[qid] == "wrong"
    assert sum(c.verdict == "pass" for c in checks) == len(right) - 1


def test_answers_for_another_students_code_are_graded_against_ones_own(tmp_path):
    stage = STAGES[1]
    mine, theirs = quiz.code_for("s", "ann"), quiz.code_for("s", "bob")
    copied = _write(tmp_path, stage, theirs, _right_answers(stage, theirs))
    checks = quiz.score(stage, "s", copied, 10, mine, DEVICE)
    drawn = [c for c in checks if quiz.load_questions(ROOT / "assignments" / stage.id)]
    assert sum(c.points for c in drawn) < 10
    assert any(mine in c.message for c in checks if c.verdict == "wrong")


def test_missing_answers_give_zero_and_say_how_to_write_them(tmp_path):
    stage = STAGES[0]
    checks = quiz.score(stage, "s", tmp_path / "none" / quiz.ANSWERS, 10)
    assert checks and all(c.verdict == "missing" and c.points == 0 and c.max_points > 0 for c in checks)
    assert "./tilelab quiz 01-basic" in checks[0].message


@pytest.mark.parametrize("text", ["code = \n[answers", "answers = 3\n", "\x00\xff garbage = = ="])
def test_malformed_answers_give_zero_with_the_reason(tmp_path, text):
    stage = STAGES[0]
    p = tmp_path / quiz.ANSWERS
    p.write_text(text)
    checks = quiz.score(stage, "s", p, 10)
    assert checks and all(c.verdict == "bad_input" and c.points == 0 for c in checks)
    assert "01-basic/answers.toml" in checks[0].message


def test_a_non_numeric_answer_is_wrong_not_a_crash(tmp_path):
    stage = STAGES[0]
    p = tmp_path / quiz.ANSWERS
    p.write_text('code = "x"\n[answers]\nbasic-bound = "lots"\ngrid-y-limit = [1, 2]\nbound-ex9 = 3\n')
    verdicts = {c.dataset: c.verdict for c in quiz.score(stage, "s", p, 10)}
    assert verdicts["basic-bound"] == verdicts["grid-y-limit"] == verdicts["bound-ex9"] == "wrong"
    assert verdicts["add-shared-ex1"] == "wrong"   # not answered


def test_without_the_key_questions_are_skipped_and_out_of_the_maximum(tmp_path):
    stage = STAGES[0]
    (tmp_path / "assignments" / stage.id).mkdir(parents=True)
    (tmp_path / "assignments" / stage.id / "questions.toml").write_text(
        (ROOT / "assignments" / stage.id / "questions.toml").read_text())
    checks = quiz.score(stage, "s", None, 10, root=tmp_path)
    assert checks and all(c.verdict == "skipped" and c.max_points == 0 for c in checks)


def test_a_gpu_question_is_skipped_off_the_gpu(tmp_path):
    stage = STAGES[1]
    p = _write(tmp_path, stage, "abc", _right_answers(stage, "abc"))
    by = {c.dataset: c for c in quiz.score(stage, "s", p, 10, None, {})}
    assert by["grading-gpu"].verdict == "skipped" and by["grading-gpu"].max_points == 0
    assert by["occupancy-limit"].verdict == "pass"


def test_a_gpu_question_stays_in_the_maximum_on_the_gpu_when_nothing_ran(tmp_path):
    # A submission that did not compile, graded on a GPU: no check reported the device, yet the
    # question is gradable there -- out of the maximum, that student's maximum was below the class's
    # (89.1 of 90 in a batch on an H200, session 18).
    stage = STAGES[1]
    p = _write(tmp_path, stage, "abc", _right_answers(stage, "abc"))
    each = 10 / len(quiz.load_questions(ROOT / "assignments" / stage.id))
    by = {c.dataset: c for c in quiz.score(stage, "s", p, 10, None, {}, on_gpu=True)}
    c = by["grading-gpu"]
    assert c.verdict == "skipped" and c.points == 0 and c.max_points == pytest.approx(each)
    assert "nothing of this stage ran on the GPU" in c.message
    assert sum(c.max_points for c in by.values()) == pytest.approx(10)


def test_the_ece569_numbers_bind_on_threads():
    # 48 KB, 2048 threads, 16 blocks per SM, TILE_WIDTH 16: 24 blocks by shared memory, 8 by threads.
    key = quiz.load_key("02-tiled")
    v = {"S": 48, "TH": 2048, "BL": 16, "T": 16}
    assert quiz.evaluate(key["occupancy-limit"], v) == "threads per SM"
    assert quiz.evaluate(key["occupancy-threads"], {**v, "N": 1}) == 2048
    # the book's device D: 16,384 registers, 1,536 threads, blocks of 512, 11 registers: 1,024 threads
    assert quiz.evaluate(key["device-d-registers"], {"R": 16384, "TH": 1536, "BS": 512, "r": 11}) == 1024


@pytest.mark.parametrize("expr", ["().__class__", "open('x')", "__import__('os')", "[x for x in ()]", "lambda: 1"])
def test_formulas_cannot_reach_python(expr):
    with pytest.raises(quiz.QuizError):
        quiz.evaluate(expr, {})


def test_quiz_writes_answers_that_grade(tmp_path):
    stage = STAGES[0]
    right = _right_answers(stage, "k1")
    qs = quiz.load_questions(ROOT / "assignments" / stage.id)
    replies = iter(str(right[q.id]) for q in qs)
    out = quiz.ask(stage.id, "k1", tmp_path / quiz.ANSWERS, read=lambda prompt: next(replies), write=lambda s: None)
    assert all(c.verdict == "pass" for c in quiz.score(stage, "s", out, 10))


def test_a_copy_of_an_answer_key_is_a_leak():
    secrets = leaks.secrets_of(ROOT)
    key = (ROOT / "solutions" / "02-tiled" / quiz.KEY).read_text()
    assert any("answer formulas of 02-tiled" in f for f in leaks._text_leaks("docs/x.md", key, secrets))
    questions = (ROOT / "assignments" / "02-tiled" / "questions.toml").read_text()
    assert not leaks._text_leaks("assignments/02-tiled/questions.toml", questions, secrets)


def test_a_right_kernel_without_answers_is_not_called_failed(tmp_path):
    """The stage's line says the kernel passed and the questions are unanswered; a failed kernel
    check, or a wrong answer, still makes it 'failed'."""
    from tilelab.report.formats.common import UNANSWERED, stage_style, stage_verdict
    from tilelab.score.scoring import CheckScore, StageScore

    stage = STAGES[0]
    unanswered = quiz.score(stage, "s", tmp_path / "none" / quiz.ANSWERS, 10)
    kernel = CheckScore(name="s.01-basic.w17.emu", dataset="w17", check="emu", verdict="pass",
                        points=10, max_points=10)
    s = StageScore(stage=stage.id, checks=[kernel, *unanswered])
    assert stage_verdict(s) == UNANSWERED and stage_style(s) == "skipped"   # yellow, not red
    skipped = CheckScore(name="s.01-basic.w17.correct", dataset="w17", check="correct", verdict="skipped",
                         points=0, max_points=10)
    nothing_run = StageScore(stage=stage.id, checks=[skipped])
    assert stage_verdict(nothing_run) == "not checked here" and stage_style(nothing_run) == "skipped"
    wrong = CheckScore(name="s.01-basic.w33.emu", dataset="w33", check="emu", verdict="wrong",
                       points=0, max_points=10)
    failed = StageScore(stage=stage.id, checks=[kernel, wrong, *unanswered])
    assert stage_verdict(failed) == "failed" and stage_style(failed) == "fail"
    answered_wrong = [CheckScore(name=c.name, dataset=c.dataset, check=c.check, verdict="wrong",
                                 points=0, max_points=c.max_points) for c in unanswered]
    assert stage_verdict(StageScore(stage=stage.id, checks=[kernel, *answered_wrong])) == "failed"
    assert stage_verdict(StageScore(stage=stage.id, checks=[kernel])) == "passed"


def test_only_the_first_sets_of_answers_count():
    a, b, c = ({"code": "abc", "values": {"q": v}} for v in (1.0, 2.0, 3.0))
    new = quiz.Answers("abc", {"q": 9.0})
    assert quiz.attempt(new, [], 2) == (new, ())                           # nothing before
    assert quiz.attempt(new, [a], 2) == (new, ())                          # the second set counts
    got, notes = quiz.attempt(new, [a, b, a], 2)                           # a third set does not
    assert got.values == {"q": 2.0} and [kind for kind, _ in notes] == [Note.ATTEMPTS_USED]
    assert "2 different sets of answers" in notes[0][1]
    again = quiz.Answers("abc", {"q": 1.0})
    assert quiz.attempt(again, [a, b], 2) == (again, ())                   # a set that counted still counts
    assert quiz.attempt(new, [a, b, c], 0) == (new, ())                    # no cap


def test_answers_graded_without_seed_and_student_say_they_are_unverified(tmp_path):
    stage = STAGES[0]
    right = _right_answers(stage, "chosen-by-me")
    checks = quiz.score(stage, "submission", _write(tmp_path, stage, "chosen-by-me", right), 10, None, DEVICE)
    assert all(c.verdict == "pass" and "UNVERIFIED" in c.message for c in checks)
    # "practice" too, wherever a key grades it (issue #42 item 2): see test_practice_answers_are_unverified_...
    code = quiz.code_for("seed", "ann")
    checks = quiz.score(stage, "submission", _write(tmp_path, stage, code, _right_answers(stage, code)), 10, code, DEVICE)
    assert all(c.verdict == "pass" and "UNVERIFIED" not in c.message for c in checks)   # the grader knows the code


def test_predict_then_measure_shows_prediction_measurement_and_the_books_figure(tmp_path):
    """Graded on the prediction; the student's own kernel's count (measure) shown beside it and the
    book's, with what a difference means. Without the key (the student kit) the measurement is
    still shown, for the self-learner, and the autograder grades it."""
    import shutil
    stage = next(s for s in STAGES if s.id == "02-tiled")
    right = _right_answers(stage, "abc")
    q = next(q for q in quiz.load_questions(ROOT / "assignments" / stage.id) if q.measure)
    book = right[q.id]
    seen = []

    def measure(question, shape):
        seen.append((question.id, shape))
        return book + 4096, ""
    checks = quiz.score(stage, "s", _write(tmp_path, stage, "abc", right), 10, None, DEVICE, measure=measure)
    c = next(c for c in checks if c.dataset == q.id)
    assert c.verdict == "pass"
    assert f"your kernel, counted on the emulator: {book + 4096:,.0f}; the book's kernel: {book:,.0f}" in c.message
    assert "4,096 more" in c.message and seen == [(q.id, quiz.shape_of(quiz.draw(q, "abc", stage.id)))]
    # the student kit: no key, the measurement alone
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "assignments" / stage.id, kit / "assignments" / stage.id)
    checks = quiz.score(stage, "s", _write(tmp_path, stage, "abc", right), 10, None, DEVICE, root=kit, measure=measure)
    c = next(c for c in checks if c.dataset == q.id)
    assert c.verdict == "skipped" and "counted on the emulator" in c.message and "book's kernel" not in c.message


def _kit(tmp_path, stage):
    """The student kit of one stage: its questions, no key."""
    import shutil
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "assignments" / stage.id, kit / "assignments" / stage.id)
    return kit


MEASURED = [s for s in STAGES if any(q.measure for q in quiz.load_questions(ROOT / "assignments" / s.id))]


@pytest.mark.parametrize("stage", MEASURED, ids=lambda s: s.id)
@pytest.mark.parametrize("code", ["practice", "abc", "3f9c0b1e2a"])
def test_the_kit_never_measures_at_the_graded_shape_before_grading(tmp_path, stage, code):
    """Issue #42 item 3: for a kernel that follows the book the count at the graded shape is the
    answer, so the student kit (no key: nothing graded yet) measures the kernel at another shape of
    the same kind, says so, and no output it makes holds the graded shape's count."""
    q = next(q for q in quiz.load_questions(ROOT / "assignments" / stage.id) if q.measure)
    graded = quiz.shape_of(quiz.draw(q, code, stage.id))
    key = quiz.load_key(stage.id)
    book = quiz.expected(quiz.draw(q, code, stage.id), key[q.id])
    seen = []

    def measure(question, shape):   # the reference: what a kernel that follows the book loads
        seen.append(list(shape))
        d = quiz.draw(question, code, stage.id)
        d.values.update(dict(zip(["J", "K", "L"], shape)), W=shape[0])
        return quiz.expected(d, key[question.id]), ""
    answers = {q.id: 12345.0}
    checks = quiz.score(stage, "s", _write(tmp_path, stage, code, answers), 10, None, DEVICE,
                        root=_kit(tmp_path, stage), measure=measure)
    c = next(c for c in checks if c.dataset == q.id)
    assert seen and graded not in seen, "the kit measured at the graded shape"
    assert f"{book:,.0f}" not in c.message and f"{book:.0f}" not in c.message
    assert "another shape, not your question's" in c.message
    assert c.message.splitlines()[-1].startswith(quiz.PREDICT) and "counted on the emulator" in c.message


def test_a_wrong_prediction_is_explained_term_by_term(tmp_path):
    """Graded (the key at hand), a prediction 16x too high is the basic kernel's count, and the
    explanation says so beside the book's figure term by term; one off by 2 names M or N."""
    stage = next(s for s in STAGES if s.id == "02-tiled")
    q = next(q for q in quiz.load_questions(ROOT / "assignments" / stage.id) if q.measure)
    d = quiz.draw(q, "abc", stage.id)
    j, k, l = quiz.shape_of(d)
    book = _right_answers(stage, "abc")[q.id]
    checks = quiz.score(stage, "s", _write(tmp_path, stage, "abc", {q.id: float(2 * j * k * l)}), 10, None, DEVICE,
                        measure=lambda question, shape: (book, ""))
    c = next(c for c in checks if c.dataset == q.id)
    assert c.verdict == "wrong"
    assert "16x too high: you counted the basic kernel's loads" in c.message
    assert f"ceil(L/16)*J*K = {book / 2:,.0f} of M" in c.message
    assert f"your kernel, counted on the emulator: {book:,.0f}" in c.message   # revealed once graded
    half = quiz.explain(d, book / 2, book)
    assert "2x too low" in half and "only M's or only N's" in half
    assert "too high" in quiz.explain(d, book * 1.37, book) and "you counted" not in quiz.explain(d, book * 1.37, book)
    d1 = quiz.draw(next(q for q in quiz.load_questions(ROOT / "assignments" / "01-basic") if q.measure), "abc", "01-basic")
    w = quiz.shape_of(d1)[0]
    assert "you counted the tiled kernel's loads" in quiz.explain(d1, 2 * w * w * -(-w // 16), 2 * w ** 3)


def test_the_comparison_is_in_the_terminal_and_html_reports_right_or_wrong():
    """The reports find the comparison by its note (Note.COMPARISON), not by how its line starts."""
    from tilelab.score import scores
    from tilelab.report.formats import common, terminal
    line = quiz.PREDICT + " (floats ..., J x K x L = 64 x 64 x 64): you predicted 32,768; your kernel, counted on the emulator: 32,768"
    s = scores.StageScore("02-tiled", [
        scores.CheckScore("s.02-tiled.predict-loads.question", "predict-loads", "question", "pass", 1, 1,
                          message="right\n" + line, notes=((Note.COMPARISON, line),))])
    assert line in common.stage_model_lines(s)
    from tilelab.report import view
    from tilelab.report.model import GradeReport
    assert any(line in ln for ln in terminal.stage_lines(s, view.of(GradeReport("x", "starter", "emu", stages=[s]))))
    unnoted = scores.StageScore("02-tiled", [replace(s.checks[0], notes=())])
    assert line not in common.stage_model_lines(unnoted)


def test_practice_answers_are_unverified_wherever_a_key_grades_them(tmp_path):
    """Issue #42 item 2: the practice code escaped the UNVERIFIED flag, so in a batch without --seed
    one shared answers.toml gave a whole class full marks, unflagged. It is flagged like any code the
    grader cannot tell is the student's; where the platform names the code (a PrairieLearn
    variant), practice answers are graded against that variant's numbers; without the key (the
    student kit, a self-learner) nothing is graded, so nothing is flagged."""
    stage = STAGES[0]
    shared = _write(tmp_path, stage, quiz.PRACTICE, _right_answers(stage, quiz.PRACTICE))
    checks = quiz.score(stage, "submission", shared, 10, None, DEVICE)
    assert checks and all(c.verdict == "pass" and quiz.UNVERIFIED in c.message and "practice" in c.message
                          for c in checks)
    variant = quiz.variant_code(123456789)
    checks = quiz.score(stage, "submission", shared, 10, variant, DEVICE)
    assert all(quiz.UNVERIFIED not in c.message and Note.WRONG_CODE in dict(c.notes)
               and dict(c.notes)[Note.WRONG_CODE] in c.message for c in checks)
    assert sum(c.points for c in checks) < 10, "the variant's numbers, not practice's, are graded"
    student_kit = tmp_path / "kit"
    (student_kit / "assignments").mkdir(parents=True)
    (student_kit / "assignments" / stage.id).symlink_to(ROOT / "assignments" / stage.id)
    checks = quiz.score(stage, "submission", shared, 10, None, DEVICE, root=student_kit)
    assert all(c.verdict == "skipped" and quiz.UNVERIFIED not in c.message for c in checks)


# Issue #42, item 4: a class shares few answers. Over 400 students of one class (quiz codes from one
# grading seed, graded on one GPU), every number question has at least 20 different right answers,
# so that about 20 students at most share each.
CLASS = [quiz.code_for("issue-42-class", f"student{i}@uni.edu") for i in range(400)]
NUMBERS = [(s, q) for s, q in QUESTIONS if q.kind == "number"]


@pytest.mark.parametrize("stage, q", NUMBERS, ids=lambda x: getattr(x, "id", ""))
def test_every_number_question_has_twenty_answers_over_a_class(stage, q):
    key = quiz.load_key(stage.id)
    got = {quiz.expected(quiz.draw(q, code, stage.id), key[q.id], DEVICE) for code in CLASS}
    assert len(got) >= 20, f"{stage.id}/{q.id}: only {len(got)} different answers over {len(CLASS)} students"
    if q.tolerance:   # answers that differ by less than the tolerance are one answer
        spread = sorted(got)
        assert sum(b > a * (1 + 2 * q.tolerance) for a, b in zip(spread, spread[1:])) + 1 >= 20, f"{stage.id}/{q.id}"


@pytest.mark.parametrize("stage, q", NUMBERS, ids=lambda x: getattr(x, "id", ""))
def test_no_number_question_states_its_answer(stage, q):
    """A number the text shows is the answer for at most half the class: 'With 8 x 8 tiles, by what
    factor...' (answer 8) or '250 blocks ... how many versions of a __shared__ variable' (answer
    250) is answered by copying a number. (A limit that binds, such as the SM's 2048 threads, is
    the answer for some students, rightly.)"""
    import re
    key, shown = quiz.load_key(stage.id), 0
    for code in CLASS:
        d = quiz.draw(q, code, stage.id)
        numbers = {float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", d.text)}
        shown += quiz.expected(d, key[q.id], DEVICE) in numbers
    assert shown <= len(CLASS) // 2, f"{stage.id}/{q.id}: the answer is a number of the text for {shown} of {len(CLASS)}"


# Issue #42, item 5: wording that makes a careful student wrong.
def _question(stage_id, qid):
    return next(q for q in quiz.load_questions(ROOT / "assignments" / stage_id) if q.id == qid)


# Each occupancy question's block size in threads, as a formula over its drawn numbers.
BLOCKS = {("02-tiled", "occupancy-limit"): "T * T", ("02-tiled", "occupancy-threads"): "T * T",
          ("02-tiled", "device-d-registers"): "BS", ("02-tiled", "grading-gpu"): "BS",
          ("04-rectangular", "occupancy-ex12"): "BS", ("05-coarsened", "regs-per-block-erratum"): "BS"}


@pytest.mark.parametrize("where", sorted(BLOCKS), ids="/".join)
def test_occupancy_questions_draw_whole_warps(where):
    """A block of 144 threads (T = 12) is 4.5 warps: an SM counts it as 5 (160 thread slots), and
    counting whole warps changed the key of most such draws. Every block drawn is whole warps, so
    counting threads or warps gives the same key."""
    q = _question(*where)
    key = quiz.load_key(where[0])[q.id]
    for code in CLASS:
        d = quiz.draw(q, code, where[0])
        assert quiz.evaluate(BLOCKS[where], d.values) % 32 == 0, f"{where}: {d.values}"
    if where[1] == "occupancy-threads":   # and the key is what whole-warp counting gives
        for code in CLASS:
            v = quiz.draw(q, code, where[0]).values
            warps = -(-v["T"] * v["T"] // 32)
            by_warps = min(v["S"] * 1024 // (8 * v["T"] ** 2), v["TH"] // 32 // warps, v["BL"]) * v["T"] ** 2 * v["N"]
            assert quiz.evaluate(key, v) == by_warps, v


@pytest.mark.parametrize("qid", ["device-d-registers", "grading-gpu"])
def test_register_questions_say_there_is_no_allocation_granularity(qid):
    """Walkthrough 01 teaches that registers are allocated per warp in units of 256; the key counts
    r registers per thread exactly, which the text must say: granularity changes the key often."""
    q = _question("02-tiled", qid)
    assert "no allocation granularity" in " ".join(quiz.draw(q, "c", "02-tiled").text.split())
    changed = 0
    for code in CLASS:
        v = quiz.draw(q, code, "02-tiled").values
        R, TH = v.get("R", DEVICE["regs_per_sm"]), v.get("TH", DEVICE["max_threads_per_sm"])
        per_block = -(-v["r"] * 32 // 256) * 256 * (v["BS"] // 32)
        changed += min(R // per_block, TH // v["BS"]) != min(R // (v["r"] * v["BS"]), TH // v["BS"])
    assert changed > 0


def test_regs_per_block_erratum_is_wrong_for_whoever_follows_section_4_7():
    """The question used to ask what `regsPerBlock` reports, the answer in the field's name. Now it
    gives both fields and asks how many threads an SM holds: reading regsPerBlock as the SM's
    registers, as section 4.7 does, is wrong for every student, and nothing in the text says which."""
    q = _question("05-coarsened", "regs-per-block-erratum")
    key = quiz.load_key("05-coarsened")[q.id]
    assert q.kind == "number"
    for code in CLASS:
        d = quiz.draw(q, code, "05-coarsened")
        book = quiz.evaluate(key, {**d.values, "RM": d.values["RB"]})
        assert book != quiz.evaluate(key, d.values), d.values
        assert "regsPerBlock" in d.text and "regsPerMultiprocessor" in d.text


def test_missing_barrier_and_shared_vs_registers_do_not_state_their_answers():
    """ex. 3 named the barrier by its role ('after the loads into Mds and Nds'), which is the choice
    'read elements ... not loaded yet'; ex. 4's choices restated the drawn count ('only the thread
    that fetched it uses it'). Now ex. 3 shows the loop without one barrier, and ex. 4 describes who
    reads the value, with choices that are the memories alone."""
    ex3 = _question("02-tiled", "missing-barrier-ex3")
    for code in CLASS[:40]:
        text = " ".join(quiz.draw(ex3, code, "02-tiled").text.split())
        assert "after the loads" not in text and "after the inner product" not in text and "__syncthreads();" in text
    ex4 = _question("02-tiled", "shared-vs-registers-ex4")
    assert ex4.choices == ["in a register", "in shared memory"]


def test_block_transpose_no_is_the_lock_step_misconception():
    """ex. 10's 'no' was 'the block is one thread', which nobody picks. It is the misconception now:
    the block's threads are one warp, in lock-step. That is right only before Volta (independent
    thread scheduling) and for a block of one warp; wrong on every GPU since."""
    q = _question("02-tiled", "block-transpose-ex10")
    key = quiz.load_key("02-tiled")[q.id]
    assert "lock-step" in q.choices[0] and q.choices[0].startswith("no")
    for code in CLASS:
        d = quiz.draw(q, code, "02-tiled")
        v = d.values
        assert v["BS"] >= 2
        assert quiz.evaluate(key, v) == (0 if v["cc"] < 70 and v["BS"] ** 2 <= 32 else 1), v


def test_table_4_1_and_else_zero_say_what_they_count():
    """table-4-1 asks for the book's table (float v[8] is 'local' there, though pvalue-registers
    shows nvcc may keep it in registers); else-zero counts the columns past M's edge, every one of
    whose elements is 0.0 (in the bottom block row every column holds some zeros); and walkthrough
    03 gives the lifetime the quiz's choices give: Table 4.1's 'kernel'."""
    t41 = " ".join(quiz.draw(_question("05-coarsened", "table-4-1"), "c", "05-coarsened").text.split())
    assert "according to" in t41.lower() and "Table 4.1" in t41
    ez = " ".join(quiz.draw(_question("03-boundary", "else-zero"), "c", "03-boundary").text.split())
    assert "past M's right edge" in ez and "entirely" not in ez
    walk = " ".join((ROOT / "docs" / "walkthrough" / "03-boundary.md").read_text().split())
    assert "as long as its thread" not in walk and "lifetime *kernel*" in walk
