"""`tilelab setup`: after grader/setup/install-deps.sh has installed the packages (the launcher
runs it first), build the kit and run the main job -- grading the reference solutions, on the GPU
when one is present and on the CPU emulator otherwise."""

from __future__ import annotations

from . import grade


def setup(run_main_job: bool = True, assume_yes: bool = False) -> int:
    del assume_yes  # install-deps.sh never prompts; kept so `setup -y` reads naturally in scripts
    if not run_main_job:
        return 0
    print("tilelab: grading the reference solutions (the kit's main job)")
    return grade.grade(impl="solution", build_dir=str(grade.BUILD_ROOT / "grade-solution"))
