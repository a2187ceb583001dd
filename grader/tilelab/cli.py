"""The `tilelab` command: a thin CLI over plain functions of the package (the `commands`
subpackage's, mostly). Each cmd_* only parses, calls one function and prints what it returned."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import ROOT
from .specs.contract import CommandCode, ExitCode


def _mib(text: str) -> int:
    return int(float(text) * (1 << 20))


def cmd_starter(args) -> int:
    from .specs import starter

    if args.from_previous:
        try:
            print(starter.from_previous(ROOT / "starter", args.from_previous, force=args.force))
        except starter.MarkerError as e:
            print(f"tilelab: {e}")
            return ExitCode.BAD_INPUT
        return ExitCode.PASS
    if args.level != "guided" or args.out:
        if not args.out:
            print("tilelab: --level bare writes elsewhere than starter/ (the kit's guided level): give --out DIR")
            return ExitCode.BAD_INPUT
        drifts = starter.generate(ROOT, check=args.check, level=args.level, out=Path(args.out))
        if not args.check:
            print(f"{args.level} starters written to {args.out}")
        return ExitCode.WRONG if drifts else ExitCode.PASS
    drifts = starter.generate(ROOT, check=args.check)
    for d in drifts:
        print(f"{d.path.relative_to(ROOT)}: {d.reason}; regenerate with ./tilelab starter")
    if not args.check:
        print(f"starters written for: {', '.join(starter.stages(ROOT))}")
    return ExitCode.WRONG if drifts else ExitCode.PASS


def cmd_quiz(args) -> int:
    from .score import quiz

    out = Path(args.out) if args.out else ROOT / "starter" / args.stage / quiz.ANSWERS
    try:
        written = quiz.ask(args.stage, args.code, out)
    except quiz.QuizError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    except (EOFError, KeyboardInterrupt):
        print("\ntilelab: stopped; nothing written")
        return CommandCode.INTERRUPTED
    print(f"wrote {written}: hand it in beside {args.stage}/matmul.cu")
    return ExitCode.PASS


def cmd_quiz_codes(args) -> int:
    from .score import quiz
    from .specs import seed

    text = seed.text(args.seed)   # the same text grade and batch derive the codes from
    if text is None:
        print("tilelab: --seed is empty")
        return ExitCode.BAD_INPUT
    for name in args.students:
        print(f"{name},{quiz.code_for(text, name)}")
    return ExitCode.PASS


def cmd_setup(args) -> int:
    from .commands import bootstrap

    return bootstrap.setup(run_main_job=not args.no_grade, assume_yes=args.yes)


SEED_HELP = "the grading seed for the hidden datasets: any text (an integer is used as it is; other text gives a number, grader/tilelab/specs/seed.py)"
BACKEND_HELP = ("where the checks run: gpu, emu (the CPU emulator), or auto: the GPU when one is usable "
                "here, else the emulator (default %(default)s)")
PERF_BASIS_HELP = ("performance points from the GPU's timed check or the emulator's modelled counts "
                   "([performance.model]); auto: gpu on a GPU, model on the emulator")


def cmd_grade(args) -> int:
    from .commands import grade

    formats = tuple(args.format or ("gradescope", "grade"))
    return grade.grade(stages=args.stages, submission=args.submission, backend=args.backend,
                       hidden=args.hidden, seed=args.seed, build_dir=args.build_dir, impl=args.impl,
                       out=args.out, formats=formats, jobs=args.jobs, perf_basis=args.perf_basis,
                       table=args.table)


def cmd_check(args) -> int:
    from .commands import check

    return check.check(args.stage, watch_file=args.watch, impl=args.impl, jobs=args.jobs,
                       build_dir=Path(args.build_dir) if args.build_dir else None)


def _batch_options(args):
    from .grading import classbatch

    return classbatch.BatchOptions(out=Path(args.out), jobs=args.jobs, backend=args.backend, perf_basis=args.perf_basis,
                                   stages=args.stage or None,
                                   hidden=args.hidden, seed=args.seed, build_timeout=args.timeout,
                                   check_timeout=args.timeout,
                                   memory_bytes=_mib(args.memory_mib) if args.memory_mib else None,
                                   isolate_network=not args.allow_network, keep_builds=args.keep_builds,
                                   prebuilt_kit=not args.no_prebuilt_kit,
                                   regrade=args.regrade == [], regrade_names=tuple(args.regrade or ()))


def _slurm_batch(args, opts) -> int:
    from .commands import slurm
    from .grading.classbatch import BatchError

    sopts = slurm.SlurmOptions(partition=args.partition, account=args.account, time=args.slurm_time,
                               max_running=args.max_running, chunk=args.chunk, cpus=args.cpus_per_task,
                               mem=args.slurm_mem or None, gres=args.gres, extra=args.sbatch_arg or [],
                               poll=args.poll, wait=not args.no_wait, collect=args.collect,
                               retry_failed=args.retry_failed, dry_run=args.dry_run)

    def progress(counts, failed):
        print("slurm: " + ", ".join(f"{v} {k}" for k, v in counts.items()), flush=True)

    try:
        s = slurm.run(Path(args.submissions), opts, sopts, on_progress=progress)
    except (slurm.SlurmError, BatchError) as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    if args.dry_run:
        print(s.script, end="")
        print("(dry run: nothing was submitted; the job script above is what sbatch would get)")
        return 0
    if s.job:
        print(f"submitted Slurm job {s.job}: {len(s.submitted)} submissions")
    elif not args.collect:
        print("nothing to submit: every submission is done" + (" or still queued" if s.live else ""))
    for name, why in sorted(s.failed.items()):
        print(f"FAILED {name}: {why}")
    print(f"gradebook: {s.gradebook}")
    print(f"reports:   {opts.out / 'index.html'}")
    print(f"done {len(s.done)}, failed {len(s.failed)}, still queued or running {len(s.live)}")
    if s.live:
        print("collect later: the same command with --collect added (it waits for what is left; "
              "with --no-wait too, it writes the gradebook from what is done now)")
    return 1 if s.failed else 0


def cmd_batch(args) -> int:
    from .commands import batch, progress
    from .grading.classbatch import BatchError
    from .grading.options import resolve_backend
    from .report.formats.common import summary_line

    opts = _batch_options(args)
    if opts.hidden and not opts.seed:
        print("tilelab: --hidden needs --seed")
        return ExitCode.BAD_INPUT
    if args.slurm:
        rc = _slurm_batch(args, opts)
        return rc if args.dry_run else _similarity_after(args, opts) or rc
    from .run.submission import discover

    n = len(discover(Path(args.submissions)))
    print(f"tilelab batch: {n} submissions from {args.submissions}, backend {resolve_backend(opts.backend)}, "
          f"{opts.jobs} at a time; each student's first step is shown as it starts", flush=True)
    with progress.Progress(n, "grading") as bar:
        def event(name, report, reused):
            bar.advance(("(done before) " if reused else "") + summary_line(report))

        def step(name, what):
            bar.note(f"{name}: {what}")
            if what == "configuring":
                bar.log(f"{name}: started")
        try:
            summary = batch.run_batch(Path(args.submissions), opts, on_event=event, on_step=step)
        except BatchError as e:
            print(f"tilelab: {e}")
            return ExitCode.BAD_INPUT
    print(f"gradebook: {summary.gradebook}")
    print(f"reports:   {opts.out / 'index.html'}")
    print(f"graded {len(summary.graded)}, reused {len(summary.reused)}"
          + (f"; problems: {', '.join(summary.problems)}" if summary.problems else ""))
    if summary.interrupted:
        print("interrupted: run the same command again to finish (finished students are not regraded)")
        return CommandCode.INTERRUPTED
    return _similarity_after(args, opts)


def _similarity_after(args, opts) -> int:
    """batch --similarity: the batch's stages compared, into OUT/similarity/<stage>/."""
    if not args.similarity:
        return ExitCode.PASS
    from .specs import spec

    ns = argparse.Namespace(submissions=args.submissions, stage=args.stage or [s.id for s in spec.load_all(ROOT)],
                            out=str(Path(args.out) / "similarity"), top=50)
    return cmd_similarity(ns)


def cmd_similarity(args) -> int:
    from .commands import similarity
    from .specs import spec

    if os.environ.get("PYTHONHASHSEED") != "0":
        # copydetect hashes k-grams with Python's hash(), salted per process for strings: with a
        # fixed seed the same class gives the same scores on every run.
        import subprocess
        argv = [sys.executable, "-m", "tilelab", "similarity", str(args.submissions), "--out", str(args.out),
                "--top", str(args.top), *[a for s in (args.stage or []) for a in ("--stage", s)]]
        return subprocess.run(argv, env=dict(os.environ, PYTHONHASHSEED="0",
                                             PYTHONPATH=str(ROOT / "grader"))).returncode

    ids = [s.id for s in spec.load_all(ROOT)]
    stages = args.stage or ids
    bad = [s for s in stages if s not in ids]
    if bad:
        print(f"tilelab: unknown stage(s) {bad}; stages are {ids}")
        return ExitCode.BAD_INPUT
    out = Path(args.out)
    for stage in stages:
        res = similarity.compare(Path(args.submissions), stage)
        if not res.files:
            continue
        print(f"{stage}: {len(res.files)} students, {len(res.pairs)} pairs")
        print("\n".join(similarity.table_lines(res, args.top)))
        print(f"wrote {similarity.write_html(res, out / stage, args.top)}")
    return ExitCode.PASS


def cmd_slurm_task(args) -> int:
    from .commands import slurm

    return slurm.run_task(Path(args.spec), args.index)


def cmd_release(args) -> int:
    from .commands import release

    try:
        rel = release.make(Path(args.out), force=args.force, starter_level=args.starter_level)
    except FileExistsError as e:
        print(f"tilelab: {e}")
        return ExitCode.BAD_INPUT
    if rel.not_tracked:
        shown = ", ".join(rel.not_tracked[:8]) + (f" and {len(rel.not_tracked) - 8} more" if len(rel.not_tracked) > 8 else "")
        print(f"not shipped: {len(rel.not_tracked)} file(s) git does not track: {shown} "
              f"(only tracked files ship; git add what students need)")
    if not rel.ok:
        print("".join(f"LEAK: {p}\n" for p in rel.leaks) + "".join(f"BROKEN REFERENCE: {p}\n" for p in rel.broken_references), end="")
        print(f"tilelab: nothing was written to {rel.out}: fix the above and release again")
        return ExitCode.WRONG
    print(f"wrote the student repository to {rel.out} ({len(rel.files)} files; adapted: {', '.join(rel.changed)})")
    print(f"check it: cd {rel.out} && ./tilelab setup && cmake --workflow --preset default")
    return ExitCode.PASS


def cmd_gradescope(args) -> int:
    from .commands import autograder

    cfg = autograder.AutograderConfig.load().overridden(stages=args.stage, seed=args.seed, backend=args.backend,
                                                        perf_basis=args.perf_basis,
                                                        hidden_visibility=args.hidden_visibility,
                                                        question_visibility=args.question_visibility,
                                                        question_attempts=args.question_attempts, timeout=args.timeout,
                                                        starter_level=args.starter_level)
    if args.make_zip:
        names = autograder.make_zip(Path(args.make_zip), cfg)
        print(f"wrote {args.make_zip} ({len(names)} files; upload it as the autograder of a Gradescope "
              f"programming assignment; base image Ubuntu 24.04)")
        if not cfg.seed:
            print("note: no --seed given, so the hidden datasets are not graded")
        return ExitCode.PASS
    if args.prepare:
        return autograder.prepare(Path(args.build_dir) if args.build_dir else autograder.BUILD, cfg)
    fmt = "prairielearn" if args.prairielearn else "gradescope"
    report, path = autograder.autograde(fmt, args.submission and Path(args.submission),
                                        args.results and Path(args.results), args.build_dir and Path(args.build_dir),
                                        cfg)
    from .report.formats.common import student_view, summary_line

    # A platform may show the job's output (PrairieLearn's log): the line students may see.
    print(summary_line(student_view(report, cfg.question_visibility)))
    print(f"wrote {path}")
    return ExitCode.PASS  # the platform reads the score from the results file


def cmd_bench(args) -> int:
    from .commands import bench
    from .run.sanitize import gpu_present

    if not gpu_present():
        print("tilelab bench: no usable NVIDIA GPU here (see ./tilelab doctor); nothing to time")
        return ExitCode.SKIPPED
    rows, device = bench.run(Path(args.build_dir), args.stage or None, args.sizes, args.timeout,
                             on_step=lambda s: print(f"tilelab: timing {s} ...", flush=True))
    print(f"device: {device.get('name', '?')}, FP32 peak {device.get('fp32_peak_gflops', 0):.0f} GFLOP/s")
    print("\n".join(bench.table_lines(rows)))
    for p in bench.save(rows, device, Path(args.out)):
        print(f"wrote {p}")
    return ExitCode.PASS if all(r.verdict == "pass" for r in rows) else ExitCode.WRONG


def cmd_calibrate(args) -> int:
    from .commands import calibrate
    from .run.sanitize import gpu_present

    if not gpu_present():
        print("tilelab calibrate: no usable NVIDIA GPU here; thresholds must be calibrated on the grading GPU")
        return ExitCode.SKIPPED
    sugg, device = calibrate.run(Path(args.build_dir), args.stage or None, args.repeats,
                                 on_step=lambda s: print(f"tilelab: {s} ...", flush=True))
    print(f"{'stage':16} {'runs':>4} {'self ratio':>18} {'vs previous':>12} {'now full/zero':>14} {'suggest':>12}")
    for s in sugg:
        sr = f"{min(s.self_ratios):.3f}..{max(s.self_ratios):.3f}" if s.self_ratios else "-"
        pr = f"{sorted(s.previous_ratios)[len(s.previous_ratios) // 2]:.2f}x" if s.previous_ratios else "-"
        now = f"{s.current[0]}/{s.current[1]}" if s.current else "-"
        sug = f"{s.full_credit_ratio}/{s.zero_credit_ratio}" if s.full_credit_ratio else "-"
        print(f"{s.stage:16} {len(s.self_ratios):>4} {sr:>18} {pr:>12} {now:>14} {sug:>12}  {s.note}")
    for s in sugg:
        if s.full_credit_ratio is None:
            continue
        if args.write:
            path = ROOT / "assignments" / s.stage / "stage.toml"
            calibrate.write_thresholds(path, s.full_credit_ratio, s.zero_credit_ratio)
            print(f"updated {path}")
        else:
            print(calibrate.toml_snippet(s, device))
    if not args.write:
        print("(re-run with --write to put these values into the stage.toml files)")
    return ExitCode.PASS


def cmd_trace(args) -> int:
    from .commands import trace

    try:
        result = trace.run(args.stage, submission=Path(args.submission) if args.submission else None,
                           impl=args.impl, build_dir=Path(args.build_dir) if args.build_dir else None, jobs=args.jobs)
    except trace.TraceError as e:
        print(f"tilelab trace: {e}")
        return 2
    trace.render(result)
    if args.json:
        Path(args.json).write_text(json.dumps(trace.as_data(result), indent=2) + "\n")
        print(f"wrote {args.json}")
    return 1 if any(ex.difference for ex in result.examples) else 0


def cmd_doctor(args) -> int:
    from .commands import doctor

    lines, rc = doctor.report(doctor.checks())
    print("\n".join(lines))
    return rc


def cmd_report(args) -> int:
    from .grading import implementation
    from .report import formats, view
    from .report.formats import terminal
    from .report.model import GradeReport

    report = GradeReport.from_dict(json.loads(Path(args.grade_json).read_text()))
    shown = view.of(report)   # once, for the table and the files
    terminal.print_report(shown, table=args.table)
    for p in formats.write(shown, Path(args.out or Path(args.grade_json).parent), tuple(args.format)):
        print(f"wrote {p}")
    return implementation.exit_status(report)


def build_parser() -> argparse.ArgumentParser:
    from .report import formats   # the registry of output formats (formats/__init__.py)

    ap = argparse.ArgumentParser(prog="tilelab", description="Tiled matrix multiplication course kit")
    sub = ap.add_subparsers(dest="command", required=True)
    cpus = os.cpu_count() or 1

    def command(name: str, help: str | None = None, description: str | None = None) -> argparse.ArgumentParser:
        """A subcommand whose `--help` opens with a description: its own, else its one-line help."""
        return sub.add_parser(name, **({"help": help} if help else {}), description=description or help)

    p = command("setup", help="install what the kit needs, build it, grade the reference solutions")
    p.add_argument("--no-grade", action="store_true", help="install and build only")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask before installing packages")
    p.set_defaults(func=cmd_setup)

    p = command("grade", help="build and check stages; print a score table; write results.json")
    p.add_argument("stages", nargs="*", help="stages to grade (default: all)")
    p.add_argument("--submission", help="a folder or zip shaped like starter/ (default: your starter/ files)")
    p.add_argument("--impl", choices=["starter", "solution", "submission"], help=argparse.SUPPRESS)
    p.add_argument("--backend", choices=["gpu", "emu", "auto"], default="auto", help=BACKEND_HELP)
    p.add_argument("--perf-basis", choices=["gpu", "model", "auto"], default="auto", help=PERF_BASIS_HELP)
    p.add_argument("--hidden", action="store_true", help="also run the hidden datasets")
    p.add_argument("--seed", help=SEED_HELP)
    p.add_argument("--build-dir", help="build tree to use (default: a scratch folder under build/)")
    p.add_argument("--out", help="where results.json and grade.json go (default: the build tree)")
    p.add_argument("--format", action="append", choices=formats.names(),
                   help="outputs to write (repeatable; default: gradescope and grade)")
    p.add_argument("--table", "-v", action="store_true",
                   help="print every check (dataset x check) as a table, not only the diagnoses")
    p.add_argument("-j", "--jobs", type=int, default=cpus, help="parallel compile jobs")
    p.set_defaults(func=cmd_grade)

    p = command("trace", help="the book's figures run on your kernel (TILE_WIDTH 2, on the CPU emulator)")
    p.add_argument("stage", help="01-basic, 02-tiled, 03-boundary or 04-rectangular")
    p.add_argument("--submission", help="a folder or zip shaped like starter/ (default: your starter/ file)")
    p.add_argument("--impl", choices=["starter", "solution", "submission"], help=argparse.SUPPRESS)
    p.add_argument("--build-dir", help="build tree to use (default: the emulator's grading tree under build/)")
    p.add_argument("--json", help="also write the tables as JSON data (what the HTML report shows)")
    p.add_argument("-j", "--jobs", type=int, default=cpus, help="parallel compile jobs")
    p.set_defaults(func=cmd_trace)
    p = command("check", help="quick check while you write a kernel: the small public datasets on the "
                       "CPU emulator (plain build); not a grade")
    p.add_argument("stage", help="the stage to check, e.g. 02-tiled")
    p.add_argument("--watch", action="store_true", help="check again each time the stage's matmul.cu is saved")
    p.add_argument("--impl", choices=["starter", "solution"], default="starter", help=argparse.SUPPRESS)
    p.add_argument("--build-dir", help="build tree to use (default: the emulator's grading tree, build/grade-emu, "
                   "which `tilelab grade --backend emu` shares)")
    p.add_argument("-j", "--jobs", type=int, default=cpus, help="parallel compile jobs")
    p.set_defaults(func=cmd_check)

    p = command("batch", help="grade a folder of submissions into a gradebook")
    p.add_argument("submissions", help="one folder or .zip per student")
    p.add_argument("--out", required=True, help="gradebook.csv, index.html and students/<name>/ go here")
    p.add_argument("-j", "--jobs", type=int, default=cpus,
                   help="submissions graded at once (default: every core; a timed loop has the GPU alone all the same)")
    p.add_argument("--backend", choices=["gpu", "emu", "auto"], default="auto", help=BACKEND_HELP)
    p.add_argument("--perf-basis", choices=["gpu", "model", "auto"], default="auto", help=PERF_BASIS_HELP)
    p.add_argument("--stage", action="append", help="grade only this stage (repeatable)")
    p.add_argument("--hidden", action="store_true", help="also grade the hidden datasets (needs --seed)")
    p.add_argument("--seed", help=SEED_HELP)
    p.add_argument("--timeout", type=float, default=1200, help="seconds per stage, for the build and the checks each")
    p.add_argument("--memory-mib", type=float, default=8192, help="memory limit per build or check run (0: none)")
    p.add_argument("--allow-network", action="store_true", help="do not cut the network for student code")
    p.add_argument("--keep-builds", action="store_true", help="keep each student's build tree")
    p.add_argument("--no-prebuilt-kit", action="store_true",
                   help="build the whole kit in every student's tree (default: once, in OUT/.kit, read-only to them)")
    p.add_argument("--regrade", nargs="*", metavar="NAME",
                   help="regrade these students (no NAME: everyone), even if done with the same grader")
    s = p.add_argument_group("Slurm (a shared filesystem holds the kit, the submissions and --out)")
    s.add_argument("--slurm", action="store_true", help="grade through a Slurm job array instead of here")
    s.add_argument("--partition", help="sbatch --partition")
    s.add_argument("--account", help="sbatch --account")
    s.add_argument("--slurm-time", default="01:00:00", help="time limit of one task (sbatch --time)")
    s.add_argument("--max-running", type=int, help="tasks running at once (the array's %%N)")
    s.add_argument("--chunk", type=int, default=1, help="submissions graded by one task")
    s.add_argument("--cpus-per-task", type=int, default=4, help="cores of one task (its compile jobs)")
    s.add_argument("--slurm-mem", default="16G", help="memory of one task (sbatch --mem; '' for none)")
    s.add_argument("--gres", help="default gpu:1 for the gpu backend, none for the emulator ('' for none)")
    s.add_argument("--sbatch-arg", action="append", help="another sbatch argument, e.g. --qos=exam (repeatable)")
    s.add_argument("--poll", type=float, default=30, help="seconds between looks at the queue")
    s.add_argument("--no-wait", action="store_true", help="submit and return; `--collect` gathers later")
    s.add_argument("--collect", action="store_true", help="submit nothing: wait for the batch's tasks and "
                   "write the gradebook (with --no-wait: from what is done now)")
    s.add_argument("--retry-failed", action="store_true", help="resubmit only the students whose task failed")
    s.add_argument("--dry-run", action="store_true", help="print the job script; submit nothing")
    p.add_argument("--similarity", action="store_true",
                   help="also rank the students' kernels by similarity (OUT/similarity/<stage>/index.html)")
    p.set_defaults(func=cmd_batch)

    p = command("similarity", help="rank pairs of students by how alike their kernels are (HTML)")
    p.add_argument("submissions", help="one folder or .zip per student")
    p.add_argument("--stage", action="append", help="a stage to compare (repeatable; default: every stage)")
    p.add_argument("--out", default="similarity", help="<out>/<stage>/index.html and pairs/ go here")
    p.add_argument("--top", type=int, default=50, help="pairs listed first and given side-by-side pages")
    p.set_defaults(func=cmd_similarity)

    p = command("_slurm-task")   # one array task, run by the job script (slurm.job_script)
    p.add_argument("spec", help="the batch's task list, OUT/.slurm/job-<n>.json")
    p.add_argument("index", type=int, help="this array task's index in it (SLURM_ARRAY_TASK_ID)")
    p.set_defaults(func=cmd_slurm_task)

    p = command("release", help="write the student repository (no solutions, no seeds)")
    p.add_argument("out", help="the folder to write the student repository to (refused when not empty, unless --force)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("--starter-level", choices=["guided", "bare"], default="guided",
                   help="the starters' TODOs: guided (step by step) or bare (one line per TODO on the goal)")
    p.set_defaults(func=cmd_release)

    p = command("starter", help="regenerate starter/ from solutions/; or begin a stage from your previous one")
    p.add_argument("--check", action="store_true", help="only report starters that drifted")
    p.add_argument("--level", choices=["guided", "bare"], default="guided",
                   help="guided: TODOs step by step (starter/); bare: one line per TODO on the goal (needs --out)")
    p.add_argument("--out", help="write the starters here instead of starter/")
    p.add_argument("--from-previous", metavar="STAGE",
                   help="students: start STAGE from your own previous stage's matmul.cu (the old file is kept as matmul.cu.orig)")
    p.add_argument("--force", action="store_true", help="with --from-previous: replace a matmul.cu you already changed")
    p.set_defaults(func=cmd_starter)

    p = command("quiz", help="answer a stage's graded questions; writes <stage>/answers.toml")
    p.add_argument("stage", help="the stage whose questions to answer, e.g. 01-basic")
    p.add_argument("--code", default="practice",
                   help="your quiz code (from your instructor or your first autograder run): your numbers come from it")
    p.add_argument("--out", help="default: starter/STAGE/answers.toml, beside your matmul.cu")
    p.set_defaults(func=cmd_quiz)

    p = command("quiz-codes", help="instructors: each student's quiz code, from the grading seed")
    p.add_argument("--seed", required=True, help="the grading seed the class is graded with: the codes derive from it")
    p.add_argument("students", nargs="+", help="as the grader knows them: Gradescope e-mail, batch folder name")
    p.set_defaults(func=cmd_quiz_codes)

    p = command("gradescope", help="autograder entry (Gradescope, PrairieLearn) and its zip")
    p.add_argument("--submission", help="default /autograder/submission (PrairieLearn: /grade/student)")
    p.add_argument("--results", help="default /autograder/results/results.json (PrairieLearn: /grade/results/results.json)")
    p.add_argument("--build-dir", help="the prepared build (default: build/autograder in the kit)")
    p.add_argument("--prairielearn", action="store_true", help="write PrairieLearn's results format")
    p.add_argument("--prepare", action="store_true", help="build everything but the student's file, once (setup.sh)")
    p.add_argument("--make-zip", metavar="ZIP", help="write the Gradescope autograder zip and stop")
    # These override the kit's tilelab-autograder.json (which --make-zip writes from them).
    p.add_argument("--stage", action="append", help="a stage graded (repeatable; default: every stage handed in)")
    p.add_argument("--seed", help=SEED_HELP)
    p.add_argument("--timeout", type=float, help="seconds per stage for the build and for the checks, each")
    p.add_argument("--backend", choices=["gpu", "emu", "auto"],
                   help="where the checks run: gpu, emu (the CPU emulator), or auto (default: the config's, else auto)")
    p.add_argument("--perf-basis", choices=["gpu", "model", "auto"], help=PERF_BASIS_HELP)
    p.add_argument("--hidden-visibility", choices=["hidden", "after_due_date", "after_published", "visible"],
                   help="when students see the hidden datasets' tests (default after_published)")
    p.add_argument("--question-visibility", choices=["hidden", "after_due_date", "after_published", "visible"],
                   help="when students see each graded question's verdict (default after_due_date; until "
                        "'visible', no other field holds a question's verdict or points; PrairieLearn leaves "
                        "the questions out of its results)")
    p.add_argument("--question-attempts", type=int, metavar="N",
                   help="only the first N different sets of answers a student hands in are graded (default 3; 0: all)")
    p.add_argument("--starter-level", choices=["guided", "bare"], help="the starters in the zip's kit")
    p.set_defaults(func=cmd_gradescope)

    p = command("bench", help="time every stage's solution and cuBLAS at several sizes",
                description="Time each stage's reference solution against cuBLAS FP32 (and the previous stage's "
                            "reference) on this machine's NVIDIA GPU, at square sizes N x N x N: builds the solutions' "
                            "GPU runners in --build-dir, runs each size's timed check, prints a table (ms, GFLOP/s, "
                            "% of cuBLAS, % of FP32 peak) and writes bench.json and bench.png to --out. Exit 0 when "
                            "every run passed, 1 when one did not, 77 where there is no usable GPU.")
    p.add_argument("--stage", action="append", help="a stage to time (repeatable; default: every stage)")
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048, 4096], metavar="N",
                   help="the sizes to time each stage at, N x N x N (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=300,
                   help="seconds one size's timed check may take; one that takes longer is a `missing` row "
                        "(default %(default)g)")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "bench"),
                   help="the GPU grading tree the solutions' runners are built in (default: build/bench)")
    p.add_argument("--out", default=str(ROOT / "build" / "bench" / "out"),
                   help="where bench.json and bench.png are written (default: build/bench/out)")
    p.set_defaults(func=cmd_bench)

    p = command("calibrate", help="suggest stage.toml performance thresholds for this GPU",
                description="Run each stage's solution perf check --repeats times on this machine's NVIDIA GPU and "
                            "suggest its [performance] full_credit_ratio and zero_credit_ratio: full credit just "
                            "under what the reference reaches against itself, none just above the previous stage's "
                            "reference (docs/instructor.md, section 2). Prints a table and a stage.toml snippet per "
                            "stage; --write puts them into assignments/*/stage.toml. Exit 77 where there is no "
                            "usable GPU.")
    p.add_argument("--stage", action="append", help="a stage to calibrate (repeatable; default: every stage)")
    p.add_argument("--repeats", type=int, default=5,
                   help="timed runs of each stage's perf check the suggestion is made from (default %(default)s)")
    p.add_argument("--write", action="store_true", help="write the suggestions into assignments/*/stage.toml")
    p.add_argument("--build-dir", default=str(ROOT / "build" / "calibrate"),
                   help="the GPU grading tree the solutions are built and timed in (default: build/calibrate)")
    p.set_defaults(func=cmd_calibrate)

    p = command("doctor", help="what this machine has, and how to get what is missing")
    p.set_defaults(func=cmd_doctor)

    p = command("report", help="re-render a grade.json as a table, results.json, HTML ...")
    p.add_argument("grade_json", help="a grade.json written by grade or batch")
    p.add_argument("--out", help="where the outputs are written (default: grade.json's folder)")
    p.add_argument("--format", action="append", default=None, choices=formats.names(),
                   help="outputs to write (repeatable; default: html)")
    p.add_argument("--table", "-v", action="store_true", help="print every check as a table too")
    p.set_defaults(func=cmd_report)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "command", "") == "report" and not args.format:
        args.format = ["html"]
    from .run.sandbox import stop_on_signals

    # Ctrl-C, SIGTERM or SIGHUP: every check, build and runner this command started ends with it.
    try:
        with stop_on_signals():
            return args.func(args)
    except KeyboardInterrupt:
        print("tilelab: stopped; every process it started was ended", file=sys.stderr)
        return CommandCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
