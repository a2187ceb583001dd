"""A real single-node Slurm cluster in a temporary folder, for the kit's Slurm test: Debian 12's
munged, slurmctld and slurmd, a generated slurm.conf, localhost only, free ports, no cgroups, no
accounting daemon (squeue remembers finished jobs for MinJobAge, which is what tilelab falls back
on where sacct has no accounting). Nothing is written outside the folder but the daemons' sockets
inside it; stop() ends exactly the processes start() began.

    with MiniCluster(folder, cpus=2) as c:      # raises Unavailable, saying why, if it cannot start
        env = c.env                              # SLURM_CONF for sbatch, squeue, scancel ...
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
SBIN = ("/usr/sbin", "/sbin")


class Unavailable(RuntimeError):
    """Slurm cannot be started here (missing packages, not root, a daemon refused): the reason."""


def _which(name: str) -> str | None:
    return shutil.which(name) or next((f"{d}/{name}" for d in SBIN if os.access(f"{d}/{name}", os.X_OK)), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 8) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


class MiniCluster:
    def __init__(self, folder: Path, cpus: int = 2, memory_mib: int = 4096, min_job_age: int = 3600):
        self.dir = Path(folder).resolve()
        self.cpus, self.memory_mib, self.min_job_age = cpus, memory_mib, min_job_age
        self.procs: list[subprocess.Popen] = []
        self.conf = self.dir / "slurm.conf"
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def __enter__(self) -> "MiniCluster":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _spawn(self, name: str, args: list[str], log: Path) -> None:
        f = open(log, "ab")
        self.procs.append(subprocess.Popen([_which(name), *args], stdout=f, stderr=subprocess.STDOUT,
                                           env=self.env, start_new_session=True))

    def start(self) -> None:
        missing = [d for d in DAEMONS if not _which(d)]
        if missing:
            raise Unavailable(f"not installed: {', '.join(missing)} (Debian: apt-get install slurm-wlm munge)")
        if os.geteuid() != 0:
            raise Unavailable("slurmd must run as root to start jobs as their user; run the test as root (CI is)")
        d = self.dir
        for sub in ("munge", "state", "spool", "logs"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d / "munge", 0o700)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = d / "munge" / "munge.socket"
        self._spawn("munged", ["-F", "-f", f"--socket={sock}", f"--key-file={key}",
                               f"--pid-file={d / 'munge' / 'munged.pid'}", f"--log-file={d / 'logs' / 'munged.log'}",
                               f"--seed-file={d / 'munge' / 'munged.seed'}"], d / "logs" / "munged.out")
        for _ in range(50):
            if sock.exists():
                break
            if self.procs[-1].poll() is not None:
                raise Unavailable(f"munged exited: {_tail(d / 'logs' / 'munged.out')} {_tail(d / 'logs' / 'munged.log')}")
            time.sleep(0.1)
        else:
            raise Unavailable("munged did not open its socket in 5 s")
        self.conf.write_text("\n".join([
            "ClusterName=tilelabtest",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={sock}",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'logs' / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'logs' / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "MpiDefault=none",
            "ReturnToService=2",
            f"MinJobAge={self.min_job_age}",
            "SchedulerType=sched/backfill",
            "SlurmctldTimeout=30",
            "SlurmdTimeout=30",
            "InactiveLimit=0",
            "KillWait=5",
            f"NodeName=localhost NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={self.memory_mib} State=UNKNOWN",
            "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
            ""]))
        self._spawn("slurmctld", ["-D", "-i", "-f", str(self.conf)], d / "logs" / "slurmctld.out")
        self._spawn("slurmd", ["-D", "-N", "localhost", "-f", str(self.conf)], d / "logs" / "slurmd.out")
        deadline = time.monotonic() + 40
        state = ""
        while time.monotonic() < deadline:
            for p, name in zip(self.procs, ("munged", "slurmctld", "slurmd")):
                if p.poll() is not None:
                    raise Unavailable(f"{name} exited ({p.returncode}): {_tail(d / 'logs' / (name + '.out'))} "
                                      f"{_tail(d / 'logs' / (name + '.log'))}")
            r = subprocess.run([_which("sinfo"), "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                               env=self.env, timeout=30)
            state = r.stdout.strip() or r.stderr.strip()
            if r.returncode == 0 and state.rstrip("*") in ("idle", "mixed", "allocated"):
                return
            time.sleep(0.5)
        raise Unavailable(f"the node did not come up in 40 s (sinfo: {state!r}); slurmd: "
                          f"{_tail(d / 'logs' / 'slurmd.log')}; slurmctld: {_tail(d / 'logs' / 'slurmctld.log')}")

    def stop(self) -> None:
        """End slurmd, slurmctld, munged (each by its own process), waiting for each."""
        if self.conf.exists() and _which("scancel"):
            subprocess.run([_which("scancel"), "--user=root"], env=self.env, capture_output=True, timeout=30)
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs.clear()
