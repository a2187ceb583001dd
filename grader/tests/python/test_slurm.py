"""`batch --slurm` without a cluster: the scheduler's answers parsed, the job script, and the whole
submit / task / collect / retry cycle with sbatch and squeue stood in for (the real cluster is
kit.slurm's, grader/tests/slurm/slurm_check.py)."""

import csv
import json
import subprocess

import pytest

import fakes
from tilelab.commands import slurm
from tilelab.grading import classbatch

STAGE = "01-basic"


def test_squeue_and_sacct_lines_give_each_array_task_its_state():
    q = slurm.parse_squeue("7_0|RUNNING|None\n7_1|PENDING|JobArrayTaskLimit\n7_[2-5%2]|PENDING|x\n")
    assert q["7_0"].state == "RUNNING" and q["7_0"].reason == ""
    assert q["7_1"].reason == "JobArrayTaskLimit" and "7_[2-5%2]" not in q
    a = slurm.parse_sacct("7_0|COMPLETED|0:0|None\n7_1|CANCELLED by 0|0:15|None\n7_2|TIMEOUT|0:0|TimeLimit\n"
                          "7_[3-5]|PENDING|0:0|None\n")
    assert a["7_1"].state == "CANCELLED" and a["7_1"].exit_code == "0:15"
    assert a["7_2"].reason == "TimeLimit" and "7_[3-5]" not in a


def test_a_failed_task_is_described_with_the_schedulers_words_and_what_to_do(tmp_path):
    why = slurm.describe(slurm.TaskState("7_2", "OUT_OF_MEMORY", "", "0:125"), tmp_path / "7_2.log")
    assert "7_2 OUT_OF_MEMORY" in why and "memory" in why and "exit code 0:125" in why
    assert "7_2.log" in why and "--retry-failed" in why
    assert "no longer knows" in slurm.describe(None, tmp_path / "x.log")


def test_the_job_script_asks_for_what_was_given(tmp_path):
    o = classbatch.BatchOptions(out=tmp_path)
    s = slurm.SlurmOptions(partition="gpu", account="cs4xx", time="00:30:00", max_running=8,
                           extra=["--qos=exam", "--constraint=h100"])
    gpu = slurm.job_script(o, s, "gpu", 400, tmp_path / "job-1.json")
    for want in ("#SBATCH --array=0-399%8", "#SBATCH --partition=gpu", "#SBATCH --account=cs4xx",
                 "#SBATCH --time=00:30:00", "#SBATCH --gres=gpu:1", "#SBATCH --qos=exam",
                 "#SBATCH --constraint=h100", '_slurm-task', '"$SLURM_ARRAY_TASK_ID"'):
        assert want in gpu
    emu = slurm.job_script(o, slurm.SlurmOptions(), "emu", 3, tmp_path / "job-1.json")
    assert "--gres" not in emu and "#SBATCH --array=0-2\n" in emu


class FakeQueue:
    """sbatch records the job; squeue/sacct answer from `states` (task -> state)."""

    def __init__(self):
        self.jobs, self.states = 0, {}

    def __call__(self, cmd, timeout=60):
        if cmd[0] == "sbatch":
            self.jobs += 1
            return subprocess.CompletedProcess(cmd, 0, f"{self.jobs}\n", "")
        if cmd[0] == "sacct":
            return subprocess.CompletedProcess(cmd, 1, "", "Slurm accounting storage is disabled\n")
        lines = "".join(f"{t}|{s}|None\n" for t, s in self.states.items())
        return subprocess.CompletedProcess(cmd, 0, lines, "")


def grader(go):
    return fakes.report(go.name, verdict="pass", hidden=False)


@pytest.fixture
def cls(tmp_path, monkeypatch):
    for n in ("alice", "bob", "carol"):
        (tmp_path / "subs" / n / STAGE).mkdir(parents=True)
        (tmp_path / "subs" / n / STAGE / "matmul.cu").write_text(f"// {n}\n")
    q = FakeQueue()
    monkeypatch.setattr(slurm, "_run", q)
    o = classbatch.BatchOptions(out=tmp_path / "out", backend="emu", stages=[STAGE], formats=("grade", "html"))
    s = slurm.SlurmOptions(wait=False, poll=0)
    return tmp_path / "subs", o, s, q


def book(o):
    return {r["student"]: r for r in csv.DictReader(open(o.out / classbatch.GRADEBOOK))}


def test_submit_run_collect_and_retry_only_the_failed_task(cls):
    subs, o, s, q = cls
    q.states = {"1_0": "PENDING", "1_1": "PENDING", "1_2": "PENDING"}
    first = slurm.run(subs, o, s)
    assert first.job == "1" and sorted(first.submitted) == ["alice", "bob", "carol"]
    assert {r["status"] for r in book(o).values()} == {"pending"}            # --no-wait: pending rows
    spec = o.out / ".slurm" / "job-1.json"
    q.states = {"1_0": "COMPLETED", "1_1": "TIMEOUT", "1_2": "RUNNING"}
    assert slurm.run_task(spec, 0, grader) == 0                             # alice's task
    # a rerun while carol's task runs submits only bob (failed), never carol (still running)
    q.states["1_2"] = "COMPLETED"
    assert slurm.run_task(spec, 2, grader) == 0
    got = slurm.run(subs, o, slurm.SlurmOptions(collect=True, wait=False))
    assert got.job is None and sorted(got.done) == ["alice", "carol"] and list(got.failed) == ["bob"]
    rows = book(o)
    assert rows["bob"]["status"] == "error" and "1_1 TIMEOUT" in rows["bob"]["note"]
    assert "--retry-failed" in rows["bob"]["note"] and rows["alice"]["status"] == "graded"
    assert rows["alice"]["grader"].startswith("g") and (o.out / "index.html").exists()

    retry = slurm.run(subs, o, slurm.SlurmOptions(retry_failed=True, wait=False))
    assert retry.job == "2" and retry.submitted == ["bob"]
    jobs = json.loads((o.out / ".slurm" / "jobs.json").read_text())
    assert jobs[-1]["tasks"] == {"2_0": ["bob"]}
    q.states["2_0"] = "COMPLETED"
    slurm.run_task(o.out / ".slurm" / "job-2.json", 0, grader)
    done = slurm.run(subs, o, slurm.SlurmOptions(collect=True, wait=False))
    assert not done.failed and {r["status"] for r in book(o).values()} == {"graded"}
    assert slurm.run(subs, o, slurm.SlurmOptions(wait=False)).job is None   # resume: nothing left


def test_a_task_refuses_to_grade_with_a_grader_other_than_the_one_submitted(cls, monkeypatch):
    subs, o, s, q = cls
    slurm.run(subs, o, s)
    monkeypatch.setattr(classbatch.identity, "digest", lambda root=None: "another grader")
    assert slurm.run_task(o.out / ".slurm" / "job-1.json", 0, grader) == 4
    assert not (classbatch.student_dir(o.out, "alice") / classbatch.DONE).exists()


def test_dry_run_prints_the_script_and_submits_nothing(cls):
    subs, o, s, q = cls
    r = slurm.run(subs, o, slurm.SlurmOptions(dry_run=True, max_running=2))
    assert "#SBATCH --array=0-2%2" in r.script and q.jobs == 0
    assert not (o.out / ".slurm" / "jobs.json").exists()


def test_chunks_put_several_students_in_one_task(cls):
    subs, o, s, q = cls
    slurm.run(subs, o, slurm.SlurmOptions(wait=False, chunk=2))
    jobs = json.loads((o.out / ".slurm" / "jobs.json").read_text())
    assert jobs[0]["tasks"] == {"1_0": ["alice", "bob"], "1_1": ["carol"]}
