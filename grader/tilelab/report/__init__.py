"""What a grade is shown as: the whole run as plain data (`model`: GradeReport, which round-trips
through grade.json), what every format shows of it besides, computed once per report (`view`: each
stage's diagnoses and each check's figures), every output format and their one registry
(`formats`, `formats.registry`), the pictures (`plot`: speed charts; `wrongmap`: where P was wrong),
the jinja2 templates (`templates/`), and the one speed table (`benchtable`: `tilelab bench` and a
folder of runner results). It may import `score`, `run` and `specs`; never `grading` or `commands`."""
