"""grade.json: the GradeReport itself (model.py's to_dict), from which `batch` resumes and
`./tilelab report` re-renders every other format without re-running anything."""

from __future__ import annotations

from .registry import Format, register
from .common import as_json

register(Format("grade", "grade.json", lambda v, o: as_json(v.report.to_dict()), "the whole report, to re-render later"))
