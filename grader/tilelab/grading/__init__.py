"""Grading one implementation (the reference solution, the starter or a submission): the layer that
joins the engine's outcome (`run.engine`) to its scoring (`score`) and hands back a GradeReport
(`report.model`). Its own layer, above `report` and below `commands`, because it needs all three
and none of them may need it: the options of a grade and the build tree they pick (`options`), one
stage's outcome scored under a grade's options (`stage`), its graded questions (`questions`), a
whole grade, from the submission's copy through each stage's engine run and score to the scrubbed
report (`implementation`), and a class's batch as the local and the Slurm batch both run it
(`classbatch`). Every command that grades (grade, check, batch, slurm, autograder, setup) imports
this, never another command.
It may import `report`, `score`, `run` and `specs`; never `commands`."""
