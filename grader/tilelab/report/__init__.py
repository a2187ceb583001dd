"""What a grade is shown as: the whole run as plain data (`model`: GradeReport, which round-trips
through grade.json), every output format and their one registry (`formats`), the pictures (`plot`:
speed charts; `wrongmap`: where P was wrong), the jinja2 templates (`templates/`), and a plain table
of runner results (`benchtable`). It may import `score`, `run` and `specs`; never `commands`."""
