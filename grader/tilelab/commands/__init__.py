"""The `tilelab` commands, one module each, as plain functions, each thin: it parses what it is
given, calls the layer below (a grade: `grading`; its files: `report.formats`) and hands back what
to print and the exit status. `grade`, `check`, `batch`, `slurm` (with `batch`, its other half),
`release` (with `leaks`, its scan for what must not ship), `bootstrap` (`setup`), `doctor`, `bench`,
`calibrate`, `trace`, `similarity`, `autograder` (Gradescope and PrairieLearn), and the progress bar
the CLI shows (`progress`). No command imports `grade` or another command but its other half
(test_layout.py). cli.py, above this package, is the thin layer that parses a command line, calls one
of these functions and prints what it returned. It may import every other subpackage; none of them
imports it."""
