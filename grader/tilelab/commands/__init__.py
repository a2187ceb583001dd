"""The `tilelab` commands, one module each, as plain functions: `grade` (whose run() is the grading
path that `check`, `batch`, `slurm`, `bootstrap` and the hosted autograders reuse), `check`, `batch`,
`slurm`, `release` (with `leaks`, its scan for what must not ship), `bootstrap` (`setup`), `doctor`,
`bench`, `calibrate`, `trace`, `similarity`, `autograder` (Gradescope and PrairieLearn), and the
progress bar the CLI shows (`progress`). cli.py, above this package, is the thin layer that parses a
command line, calls one of these functions and prints what it returned. It may import every other
subpackage; none of them imports it."""
