"""Running untrusted code: a wall-clock limit, a memory limit, no network, and no root.

Each command runs in its own process group. A watchdog thread sums the resident memory of the
group (from /proc) and ends the whole group when it passes the limit or the time is up; this
works for CUDA and sanitizer builds, which reserve far more address space than they use (so an
address-space rlimit would break them). Where unprivileged or root `unshare -n` works, the command
gets a network namespace with no interfaces. When the grader is root (as in Gradescope's
containers), a command run with `unprivileged=True` runs as the user TILELAB_SANDBOX_USER names
(default `nobody`) through util-linux's setpriv, after the folders it must write are handed to
that user; where that user cannot read the kit or run its Python, it runs as root, and the log
says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


STOP = threading.Event()
"""Set it (e.g. on Ctrl-C) and every running command's process group is ended at once."""


@dataclass
class Ran:
    returncode: int
    seconds: float
    timed_out: bool = False
    out_of_memory: bool = False
    output: str = ""            # stdout and stderr together (for logs, never parsed)
    stopped: bool = False       # ended early because run_limited's stop_when said so

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.out_of_memory and not self.stopped


def _asks_to_stop(stop_when: Callable[[], bool]) -> bool:
    try:
        return bool(stop_when())
    except Exception:  # a broken predicate must not leave the command without its watchdog
        return False


@contextlib.contextmanager
def stop_on_signals():
    """While inside: SIGTERM and SIGHUP end the grader as Ctrl-C does (KeyboardInterrupt in the main
    thread, STOP set for every other thread's command), so every process group run_limited started
    is killed before the grader exits. Python's default for SIGTERM would exit at once and leave
    the groups, which live in sessions of their own, running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        STOP.set()
        raise KeyboardInterrupt(f"signal {signum}")

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    except KeyboardInterrupt:
        STOP.set()   # the other threads' commands too
        raise
    finally:
        for s, h in old.items():
            signal.signal(s, h)


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


@dataclass(frozen=True)
class SandboxUser:
    name: str
    uid: int
    gid: int

    def prefix(self) -> tuple[str, ...]:
        return (shutil.which("setpriv") or "setpriv", f"--reuid={self.uid}", f"--regid={self.gid}",
                "--clear-groups", "--")


def sandbox_user(readable: tuple[str, ...] = ()) -> tuple[SandboxUser | None, str]:
    """The user untrusted commands run as, or None (with the reason) when they run as this user:
    not root, TILELAB_SANDBOX_USER empty or 'root', no setpriv, no such user, or that user cannot
    read the files in `readable` (the kit, the grader's Python) or reach its folders (the build
    tree, which may lie below a folder only root may enter, such as pytest's /tmp/pytest-of-root)."""
    user, why = _configured_user(os.environ.get("TILELAB_SANDBOX_USER", "nobody"))
    if user is None:
        return None, why
    # Asked each time (not cached): a folder may become reachable once it is made.
    probe = [*user.prefix(), "sh", "-c", 'for p; do test -d "$p" || test -r "$p" || { echo "$p"; exit 1; }; done',
             "_", *readable]
    try:
        p = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"setpriv failed: {e}"
    if p.returncode != 0:
        return None, f"user {user.name!r} cannot read {p.stdout.strip() or p.stderr.strip()}"
    return user, f"as user {user.name!r}"


@functools.cache
def _configured_user(name: str) -> tuple[SandboxUser | None, str]:
    if os.geteuid() != 0:
        return None, "the grader is not root"
    if name in ("", "root"):
        return None, f"TILELAB_SANDBOX_USER={name!r}"
    if not shutil.which("setpriv"):
        return None, "setpriv (util-linux) is missing"
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        return None, f"no user {name!r}"
    return SandboxUser(name, pw.pw_uid, pw.pw_gid), ""


def hand_over(uid: int, gid: int, *paths: Path, readable: bool = False) -> None:
    """Give folders, with everything in them, to uid:gid (the sandbox user, or back to the grader).
    readable: also let everyone read them (and run what its owner may run), whatever the umask."""
    def give(path: str) -> None:
        try:
            os.chown(path, uid, gid, follow_symlinks=False)
            if readable and not os.path.islink(path):
                mode = os.stat(path).st_mode
                extra = 0o555 if os.path.isdir(path) else 0o444 | (0o111 if mode & 0o100 else 0)
                if mode & extra != extra:
                    os.chmod(path, mode | extra)
        except FileNotFoundError:   # removed meanwhile by a concurrent step
            pass

    for top in paths:
        if not top.exists():
            continue
        give(str(top))
        for dirpath, dirnames, filenames in os.walk(top):
            for n in dirnames + filenames:
                give(os.path.join(dirpath, n))


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
                unprivileged: bool = False, writable: tuple[Path, ...] = (), protected: tuple[Path, ...] = (),
                readable: tuple[str, ...] = (), log: Path | None = None, poll: float = 0.25,
                stop_when: Callable[[], bool] | None = None) -> Ran:
    """Run cmd with limits; never raises for the command's own failures. unprivileged: as the
    sandbox user when the grader is root (sandbox_user), after taking the `protected` folders back
    from it and handing it the `writable` ones inside them; `readable` are the paths that user
    must be able to read for the command to work at all. stop_when, polled with the limits: when
    it returns true the command's whole group is ended early (Ran.stopped), e.g. once a kernel has
    hung. Whatever ends this call -- the command, a limit, STOP, an exception such as Ctrl-C in the
    calling thread -- the command's whole session is killed before it returns or raises."""
    if unprivileged:
        for w in writable:
            w.mkdir(parents=True, exist_ok=True)
    user, why = sandbox_user(tuple(readable)) if unprivileged else (None, "")
    if user:
        hand_over(os.geteuid(), os.getegid(), *protected, readable=True)
        hand_over(user.uid, user.gid, *writable)
        env = dict(os.environ if env is None else env, HOME=str(writable[0]) if writable else "/tmp")
    # The network namespace is made as root, then the user is dropped inside it.
    full = [*(network_isolation() if isolate_network else ()), *(user.prefix() if user else ()), *cmd]
    start = time.monotonic()
    try:
        p = subprocess.Popen(full, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", start_new_session=True)
    except OSError as e:
        return Ran(127, 0.0, output=f"cannot run {cmd[0]}: {e}")
    state = {"timed_out": False, "oom": False, "stopped": False}
    done = threading.Event()

    def watch():
        while not done.wait(poll):
            if STOP.is_set():
                pass
            elif timeout is not None and time.monotonic() - start > timeout:
                state["timed_out"] = True
            elif memory_bytes and _group_rss_bytes(p.pid) > memory_bytes:
                state["oom"] = True
            elif stop_when is not None and _asks_to_stop(stop_when):
                state["stopped"] = True
            else:
                continue
            _kill_group(p.pid)
            return

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        out, _ = p.communicate()
    finally:
        # Also on KeyboardInterrupt/SystemExit here: the group lives in its own session, so a
        # Ctrl-C of the grader never reaches it, and nothing else would end it.
        done.set()
        _kill_group(p.pid)  # nothing of the group outlives it (stray kernels, daemons)
        t.join()
    ran = Ran(p.returncode, time.monotonic() - start, state["timed_out"], state["oom"], out or "",
              state["stopped"])
    if log:
        log.parent.mkdir(parents=True, exist_ok=True)
        note = " (timed out)" if ran.timed_out else " (memory limit)" if ran.out_of_memory else ""
        who = f"[untrusted: {why}]\n" if unprivileged else ""
        log.write_text(f"{who}$ {' '.join(full)}\n{ran.output}\n[exit {ran.returncode}{note}, {ran.seconds:.1f} s]\n")
    return ran
