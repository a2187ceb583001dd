"""Deciding what a stage's runs are worth: its typed outcome turned into verdicts and points
(`scoring`, the only place a verdict is decided, from the engine's outcome, run/outcome.py; its
scores are frozen), the numbers every output
shows for a check (`metrics`), a stage's distinct problems, root causes first (`diagnoses`), and the
graded questions (`quiz`). It may import `run` and `specs`; never `report`, `grading` or `commands`."""
