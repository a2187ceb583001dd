"""A timeout the emulator saw making progress is a slow kernel, not a hung one (issue #26, item 2):
checkpasses.hung, which stops a stage's other checks and marks them "not run", ignores it."""

import json

from tilelab.run import checkpasses
from tilelab.specs.contract import SCHEMAS
from tilelab.score.scoring import Hung


def write(d, name, verdict, hint_code):
    (d / f"{name}.json").write_text(json.dumps({
        "schema": SCHEMAS["result"], "stage": "04-rectangular", "dataset": name.split(".")[2], "check": "correct",
        "verdict": verdict, "exit_code": 3, "message": f"{hint_code} run", "hint_code": hint_code, "hint": "h"}))


def test_a_too_slow_timeout_is_not_a_hang(tmp_path):
    write(tmp_path, "s.04-rectangular.4093x17x1021-primes.emu", "timeout", "too-slow")
    assert checkpasses.hung(tmp_path, "s.04-rectangular.", "emu") is None


def test_a_hung_timeout_still_is(tmp_path):
    write(tmp_path, "s.04-rectangular.4093x17x1021-primes.emu", "timeout", "too-slow")
    write(tmp_path, "s.04-rectangular.15x16x17.emu", "timeout", "timeout")
    hang = checkpasses.hung(tmp_path, "s.04-rectangular.", "emu")
    assert hang == Hung("15x16x17", "timeout run")
