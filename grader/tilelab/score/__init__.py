"""Deciding what a stage's runs are worth: the scored values, frozen (`scores`: a check's and a
stage's score, a Cause, a graded question's Notes), its typed outcome turned into them (`scoring`,
the only place a verdict is decided, from the engine's outcome, run/outcome.py), the numbers every output
shows for a check (`metrics`), a stage's distinct problems, root causes first (`diagnoses`), and the
graded questions (`quiz`). It may import `run` and `specs`; never `report`, `grading` or `commands`."""
