"""The `tilelab` command: a thin CLI over plain functions in this package."""

from __future__ import annotations

import argparse
import sys

from . import ROOT


def cmd_starter(args) -> int:
    from . import starter

    drifts = starter.generate(ROOT, check=args.check)
    for d in drifts:
        print(f"{d.path.relative_to(ROOT)}: {d.reason}; regenerate with ./tilelab starter")
    if not args.check:
        print(f"starters written for: {', '.join(starter.stages(ROOT))}")
    return 1 if drifts else 0


def cmd_setup(args) -> int:
    from . import bootstrap

    return bootstrap.setup(run_main_job=not args.no_grade, assume_yes=args.yes)


def cmd_grade(args) -> int:
    from . import grade

    return grade.grade(stages=args.stages, submission=args.submission, backend=args.backend,
                       hidden=args.hidden, seed=args.seed, build_dir=args.build_dir)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tilelab", description="Tiled matrix multiplication course kit")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("setup", help="install what the kit needs, build it, grade the reference solutions")
    p.add_argument("--no-grade", action="store_true", help="install and build only")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask before installing packages")
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("grade", help="build and check stages; print a score table")
    p.add_argument("stages", nargs="*", help="stages to grade (default: all)")
    p.add_argument("--submission", help="a folder shaped like starter/ (default: your starter/ files)")
    p.add_argument("--backend", choices=["gpu", "emu", "auto"], default="auto")
    p.add_argument("--hidden", action="store_true", help="also run the hidden datasets")
    p.add_argument("--seed", help="grading seed for --hidden")
    p.add_argument("--build-dir", help="build tree to use (default: a scratch folder under build/)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("starter", help="regenerate starter/ from solutions/")
    p.add_argument("--check", action="store_true", help="only report starters that drifted")
    p.set_defaults(func=cmd_starter)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
