"""What the kit declares, each fact read in one place: a stage's spec (`spec`, the only reader of
assignments/<stage>/stage.toml), the names the C++ and Python halves share (`contract`, from
grader/contract.toml), what CMake and C++ include, generated from those two at configure time
(`codegen`), the starters, generated from the reference solutions (`starter`), what a grading
seed is (`seed`), and what the kit needs of a Python newer than its floor, 3.9 (`compat`: tomllib).
The bottom layer: it imports nothing of tilelab but the kit's ROOT."""
