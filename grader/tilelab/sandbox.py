"""Running untrusted code: a wall-clock limit, a memory limit and no network.

Each command runs in its own process group. A watchdog thread sums the resident memory of the
group (from /proc) and ends the whole group when it passes the limit or the time is up; this
works for CUDA and sanitizer builds, which reserve far more address space than they use (so an
address-space rlimit would break them). Where unprivileged or root `unshare -n` works, the command
gets a network namespace with no interfaces.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path


STOP = threading.Event()
"""Set it (e.g. on Ctrl-C) and every running command's process group is ended at once."""


@dataclass
class Ran:
    returncode: int
    seconds: float
    timed_out: bool = False
    out_of_memory: bool = False
    output: str = ""            # stdout and stderr together (for logs, never parsed)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.out_of_memory


@functools.cache
def network_isolation() -> tuple[str, ...]:
    """The command prefix that removes network access here, or () when none works."""
    unshare = shutil.which("unshare")
    if not unshare:
        return ()
    for prefix in ((unshare, "-n"), (unshare, "-rn")):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.SubprocessError):
            pass
    return ()


def _session_pids(sid: int) -> list[int]:
    """Every process of the session the command started. The runner puts the code under test in
    a process group of its own (grader/runner/isolation.hpp), so groups would miss it; a new
    session needs setsid, which the static scan forbids."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if os.getsid(int(d.name)) == sid:
                    pids.append(int(d.name))
            except (OSError, ProcessLookupError):
                continue
    return pids


def _group_rss_bytes(sid: int) -> int:
    total = 0
    for pid in _session_pids(sid):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
                    break
        except (OSError, ValueError):
            continue
    return total


def _kill_group(sid: int) -> None:
    for pid in [sid, *_session_pids(sid)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def run_limited(cmd: list[str], *, timeout: float | None = None, memory_bytes: int | None = None,
                cwd: Path | None = None, env: dict | None = None, isolate_network: bool = False,
                log: Path | None = None, poll: float = 0.25) -> Ran:
    """Run cmd with limits; never raises for the command's own failures."""
    full = [*network_isolation(), *cmd] if isolate_network else list(cmd)
    start = time.monotonic()
    try:
        p = subprocess.Popen(full, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", start_new_session=True)
    except OSError as e:
        return Ran(127, 0.0, output=f"cannot run {cmd[0]}: {e}")
    state = {"timed_out": False, "oom": False}
    done = threading.Event()

    def watch():
        while not done.wait(poll):
            if STOP.is_set():
                pass
            elif timeout is not None and time.monotonic() - start > timeout:
                state["timed_out"] = True
            elif memory_bytes and _group_rss_bytes(p.pid) > memory_bytes:
                state["oom"] = True
            else:
                continue
            _kill_group(p.pid)
            return

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    out, _ = p.communicate()
    done.set()
    t.join()
    _kill_group(p.pid)  # nothing of the group outlives it (stray kernels, daemons)
    ran = Ran(p.returncode, time.monotonic() - start, state["timed_out"], state["oom"], out or "")
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
        note = " (timed out)" if ran.timed_out else " (memory limit)" if ran.out_of_memory else ""
        log.write_text(f"$ {' '.join(full)}\n{ran.output}\n[exit {ran.returncode}{note}, {ran.seconds:.1f} s]\n")
    return ran
