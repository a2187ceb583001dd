#!/usr/bin/env python3
"""kit.portability.<scenario>: the kit's set-up command, word for word, on a fresh copy of the tree in
a debootstrapped Debian root, as the scenario's user; then a reduced proof of the test command.

A scenario is a Debian release, a user and what its administrator installed (SCENARIOS). The root is
made once per build tree (debootstrap --variant=minbase, then apt-get install --no-install-recommends
of the scenario's packages, into <cache>/roots/<scenario>) under a lock of its own, and every run
starts from it unchanged: an overlay (the root read-only below, the run's changes in
<cache>/runs/<scenario>/upper) mounted in a mount and PID namespace of the test's own, so the mounts
and every process go when the test ends. The tree under test is what `git ls-files -co
--exclude-standard` lists (tracked files and untracked ones not ignored: never build/, .venv/,
.deps/), copied into the user's home. Then, as that user, with a timeout each:

  setup  `./tilelab setup` -- installs, builds the kit's grading tree, grades every stage's reference
         solution on the CPU emulator; must exit 0 and say "dependencies ready";
  proof  the README's test command (`./tilelab test`: `cmake --workflow --preset default` in the kit's
         environment, grader/setup/kit-env.sh), reduced to what fits CI: in that environment,
         `cmake --preset default` (the whole self-test tree's configure), a build of the C++ core's
         and the emulator's unit tests, and CTest's run of them (kit.unit.*, kit.emu.unit) -- the
         whole workflow builds the kit three more times and takes ~25 min on CI's 2 cores.

A scenario whose tree is "student" (trixie-user) takes instead the student repository, made on the
host from the tree under test by `./tilelab release` (what students clone; a user without root on
a shared machine is most likely a student): there setup grades the starter, must exit 0, say that
the starter's failures are the assignment and never speak of reference solutions -- what kit.release
asserted of the student repository's setup, here from nothing on Debian 13 without root (kit.release
keeps the student repository's whole test workflow, on the host). The proof is the same.

Exit 0: both did what they should. 1: a step failed (root, user, step and its log's tail are
printed). 77: the test cannot run here (not root, no debootstrap/unshare, no network to the Debian
mirror or PyPI) -- except under CI=true, where that is a failure too (exit 1).
Logs and times: <cache>/runs/<scenario>/{prepare,setup,proof}.log and times.json.
"""

from __future__ import annotations

import argparse
import fcntl
import resource
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

SKIP = 77
MIRROR = os.environ.get("TILELAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
PYPI = "https://pypi.org/simple/pip/"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# What the machine's administrator installed before the user cloned the kit. ca-certificates is in
# every Debian installed from its installer or cloud image, not in debootstrap's minbase; without it
# Debian's pip (python3-pip-whl) cannot even start (it reads /etc/ssl/certs/ca-certificates.crt). "user": who runs
# setup; "sudo": whether that user has (passwordless) sudo.
SCENARIOS = {
    # Debian 11 as root: Python 3.9, CMake 3.18 in Debian -- older than the kit's 3.25.
    "bullseye-root": dict(suite="bullseye", user="root", sudo=False, debs=["g++", "python3", "ca-certificates"]),
    # Debian 13 as a user without root or sudo: the compiler and Python, nothing else (no cmake,
    # no python3-venv, no -dev package).
    # It sets up the student repository (`./tilelab release`), not the kit: see the module's docstring.
    "trixie-user": dict(suite="trixie", user="student", sudo=False, debs=["g++", "python3", "ca-certificates"],
                        tree="student"),
    # The host's own release (CI's), the same user without root.
    "bookworm-user": dict(suite="bookworm", user="student", sudo=False, debs=["g++", "python3", "ca-certificates"]),
    # The dev container (.devcontainer/): mcr.microsoft.com/devcontainers/base:bookworm's user
    # vscode with passwordless sudo, and of that image's packages only what setup could lean on
    # (git, curl, ca-certificates, sudo): no compiler and no Python until setup installs them.
    "bookworm-devcontainer": dict(suite="bookworm", user="vscode", sudo=True,
                                  debs=["sudo", "git", "curl", "ca-certificates"]),
}


# What a root is made of (its stamp): the tree copied into a run is not.
ROOT_KEYS = ("suite", "user", "sudo", "debs")

# What setup's output must say, and must not, for each kind of tree.
SETUP_SAYS = {"kit": (["tilelab: dependencies ready", "tilelab: grading the reference solutions"], []),
              "student": (["tilelab: dependencies ready", "tilelab: grading your code in starter/",
                           "are the assignment"], ["reference solutions"])}


class Skip(Exception):
    pass


class Failed(Exception):
    pass


def log(msg: str) -> None:
    print(f"[portability] {msg}", flush=True)


def tail(path: Path, n: int = 60) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(lines[-n:])


def run_logged(cmd, logf: Path, timeout: int, what: str, env=None) -> int:
    """Runs cmd (a list) with stdout+stderr appended to logf; returns its exit status (124 on timeout)."""
    with open(logf, "ab") as f:
        f.write(f"\n$ {' '.join(shlex.quote(c) for c in cmd)}\n".encode())
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            f.write(f"\n[portability] {what}: timed out after {timeout} s\n".encode())
            return 124


def prerequisites(suite: str) -> None:
    if os.geteuid() != 0:
        raise Skip("needs root (debootstrap, chroot, mounts)")
    for tool in ("debootstrap", "unshare", "chroot", "mount"):
        if not shutil.which(tool):
            raise Skip(f"no {tool} on PATH (apt-get install debootstrap)")
    for url in (f"{MIRROR}/dists/{suite}/Release", PYPI):
        try:
            with urllib.request.urlopen(url, timeout=15) as r:
                r.read(1)
        except Exception as e:  # noqa: BLE001 -- any failure means no network for the test
            raise Skip(f"no network to {url}: {e}") from None


def chroot_env(user: str) -> list:
    home = "/root" if user == "root" else f"/home/{user}"
    return ["env", "-i", f"HOME={home}", f"USER={user}", f"LOGNAME={user}", f"PATH={PATH}",
            "LANG=C.UTF-8", "TERM=dumb", f"CMAKE_BUILD_PARALLEL_LEVEL={os.cpu_count() or 1}"]


def prepare_root(name: str, sc: dict, cache: Path, logf: Path) -> Path:
    """The scenario's root, made once per build tree: debootstrap + the administrator's packages + the
    user. Called under the root's exclusive lock."""
    root = cache / "roots" / name
    stamp = root / ".tilelab-root.json"
    want = json.dumps({k: sc[k] for k in ROOT_KEYS}, sort_keys=True)
    if stamp.is_file() and stamp.read_text() == want:
        log(f"{name}: reusing the root in {root}")
        return root
    if root.exists():
        shutil.rmtree(root)
    archives = cache / "apt" / sc["suite"]   # .debs, shared by debootstrap and the roots' apt
    (archives / "partial").mkdir(parents=True, exist_ok=True)
    t = time.monotonic()
    rc = run_logged(["debootstrap", "--variant=minbase", f"--cache-dir={archives}", sc["suite"], str(root), MIRROR],
                    logf, 900, "debootstrap")
    if rc != 0:
        raise Failed(f"{name}: debootstrap {sc['suite']} failed (exit {rc})")
    log(f"{name}: debootstrap --variant=minbase {sc['suite']}: {time.monotonic() - t:.0f} s")
    t = time.monotonic()
    user = sc["user"]
    script = ["set -e", "export DEBIAN_FRONTEND=noninteractive",
              "apt-get update -qq",
              f"apt-get install -y -qq --no-install-recommends {' '.join(sc['debs'])}"]
    if user != "root":
        script.append(f"useradd -m -s /bin/bash {user}")
    if sc["sudo"]:
        script += [f"echo '{user} ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/{user}",
                   f"chmod 0440 /etc/sudoers.d/{user}"]
    inner = " && ".join([
        f"mount --bind {shlex.quote(str(archives))} {shlex.quote(str(root))}/var/cache/apt/archives",
        f"mount -t proc proc {shlex.quote(str(root))}/proc",
        f"mount --rbind /dev {shlex.quote(str(root))}/dev",
        f"cp /etc/resolv.conf {shlex.quote(str(root))}/etc/resolv.conf",
        f"chroot {shlex.quote(str(root))} /bin/sh -c {shlex.quote('; '.join(script))}",
    ])
    rc = run_logged(["unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private", "sh", "-c", inner],
                    logf, 900, "install")
    if rc != 0:
        raise Failed(f"{name}: installing {' '.join(sc['debs'])} in the {sc['suite']} root failed (exit {rc})")
    log(f"{name}: apt-get install {' '.join(sc['debs'])}: {time.monotonic() - t:.0f} s")
    stamp.write_text(want)
    return root


def host_ca(m: str) -> str:
    """A host whose HTTPS goes through a proxy that re-signs it says so with its CA bundle (PIP_CERT,
    REQUESTS_CA_BUNDLE, SSL_CERT_FILE): the run's root gets that bundle where Debian keeps its own, or
    nothing reaches PyPI. On a host without one (CI) the root is left as Debian made it."""
    for var in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        ca = os.environ.get(var)
        if ca and os.path.isfile(ca):
            return (f"if [ -d {m}/etc/ssl/certs ]; then cp {shlex.quote(ca)} {m}/etc/ssl/certs/ca-certificates.crt; "
                    f"fi && ")
    return ""


def tree_files(source: Path) -> list:
    try:
        # Only when source is the top of its own checkout: a student repository released into the
        # kit's build tree is inside the kit's checkout, whose git would list none of it (ignored).
        top = subprocess.run(["git", "-C", str(source), "rev-parse", "--show-toplevel"],
                             check=True, capture_output=True, text=True).stdout.strip()
        if Path(top).resolve() != source.resolve():
            raise OSError(f"{source} is not the top of a git checkout")
        out = subprocess.run(["git", "-C", str(source), "ls-files", "-co", "--exclude-standard", "-z"],
                             check=True, capture_output=True).stdout.decode()
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        # not a git tree (an unpacked copy): everything but the build outputs
        skip = {"build", ".venv", ".deps", ".git", "out", "Testing"}
        names = [str(p.relative_to(source)) for p in source.rglob("*")
                 if p.is_file() and p.relative_to(source).parts[0] not in skip]
    # deleted in the working tree, or a nested repository (a folder): not part of the tree under test
    return sorted(n for n in names if (source / n).is_file() or (source / n).is_symlink())


def readme_test_command(source: Path) -> str:
    """The second command of the README's "The two commands" block."""
    text = (source / "README.md").read_text()
    block = text.split("## The two commands", 1)[-1].split("```sh", 1)[-1].split("```", 1)[0]
    cmds = [ln.split("#", 1)[0].strip() for ln in block.splitlines() if ln.split("#", 1)[0].strip()]
    return cmds[1] if len(cmds) > 1 else ""


def proof_script(test_cmd: str) -> str:
    """The README's test command, reduced to what fits CI. `./tilelab test` is `cmake --workflow
    --preset default` in the kit's environment (grader/setup/kit-env.sh: the kit's cmake, .venv's
    when the system's is too old or missing, and .deps on the paths); the proof takes the same
    environment, then configures the default preset, builds the unit tests and runs them."""
    env = ('if [ -f grader/setup/kit-env.sh ]; then root=$PWD; . grader/setup/kit-env.sh; '
           'else export PATH="$PWD/.venv/bin:$PATH"; fi')
    steps = ["command -v cmake", "cmake --version | head -1",
             "cmake --preset default",
             "cmake --build --preset default --target tilelab_unit_tests tilelab_emu_tests",
             "ctest --preset default -R '^kit[.](unit[.]|emu[.]unit$)'"]
    del test_cmd  # reported by the caller; the reduced steps are the same for either spelling
    return env + " && " + " && ".join(f"echo {shlex.quote('+ ' + s)} && {s}" for s in steps)


def student_repository(source: Path, run: Path) -> Path:
    """The student repository released from source (its own `./tilelab release`, the host's Python)."""
    out = run / "student"
    p = subprocess.run([str(source / "tilelab"), "release", str(out)], cwd=source, capture_output=True, text=True)
    if p.returncode != 0 or not (out / "tilelab").is_file():
        raise Failed(f"./tilelab release {out} failed (exit {p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--source", type=Path, required=True, help="the tree under test (its git working tree)")
    ap.add_argument("--cache", type=Path, required=True, help="roots, apt archives and runs (build tree)")
    ap.add_argument("--setup-timeout", type=int, default=int(os.environ.get("TILELAB_PORTABILITY_SETUP_TIMEOUT", 1500)))
    ap.add_argument("--proof-timeout", type=int, default=900)
    ap.add_argument("--no-proof", action="store_true", help="stop after setup")
    args = ap.parse_args()
    name, sc = args.scenario, SCENARIOS[args.scenario]
    ci = os.environ.get("CI", "").lower() == "true"
    kind = sc.get("tree", "kit")
    where = (f"{name} ({sc['suite']} root, user {sc['user']}{' with sudo' if sc['sudo'] else ''}"
             f"{', the student repository' if kind == 'student' else ''})")
    try:
        prerequisites(sc["suite"])
    except Skip as e:
        if ci:
            print(f"FAIL {where}: cannot run, and CI=true requires it: {e}")
            return 1
        print(f"SKIP {where}: {e}")
        return SKIP

    cache = args.cache.resolve()
    run = cache / "runs" / name
    if run.exists():
        subprocess.run(["rm", "-rf", "--one-file-system", str(run)], check=False)
    for d in ("upper", "work", "merged"):
        (run / d).mkdir(parents=True)
    times = {}
    source = args.source.resolve()
    (cache / "roots").mkdir(parents=True, exist_ok=True)
    lock = open(cache / "roots" / f"{name}.lock", "w")
    t0 = time.monotonic()
    try:
        # one lock per root: two runs never build the same root; a run holds it (shared) while it uses it
        fcntl.flock(lock, fcntl.LOCK_EX)
        root = prepare_root(name, sc, cache, run / "prepare.log")
        fcntl.flock(lock, fcntl.LOCK_SH)
        times["root"] = round(time.monotonic() - t0, 1)

        tree = student_repository(source, run) if kind == "student" else source
        files = tree_files(tree)
        with tarfile.open(run / "tree.tar", "w") as tar:
            for n in files:
                tar.add(str(tree / n), arcname=n, recursive=False)
        log(f"{where}: tree under test: {len(files)} files from {tree}")

        user = sc["user"]
        home = "/root" if user == "root" else f"/home/{user}"
        m = shlex.quote(str(run / "merged"))
        owner = "" if user == "root" else f"chroot {m} chown -R {user}: {home}/tilelab && "
        mounts = (f"mount -t overlay overlay -o lowerdir={shlex.quote(str(root))},upperdir={shlex.quote(str(run / 'upper'))},"
                  f"workdir={shlex.quote(str(run / 'work'))} {m} && "
                  f"mount -t proc proc {m}/proc && mount --rbind /dev {m}/dev && "
                  f"mount -t tmpfs -o mode=1777 tmpfs {m}/tmp && "
                  f"mount --bind {shlex.quote(str(cache / 'apt' / sc['suite']))} {m}/var/cache/apt/archives && "
                  f"cp /etc/resolv.conf {m}/etc/resolv.conf && "
                  f"{host_ca(m)}"
                  f"mkdir -p {m}{home}/tilelab && tar -xf {shlex.quote(str(run / 'tree.tar'))} -C {m}{home}/tilelab && "
                  f"{owner}")
        as_user = f"chroot --userspec={user}:{user} {m} " + " ".join(chroot_env(user))
        test_cmd = readme_test_command(tree)
        steps = [("setup", "./tilelab setup", args.setup_timeout)]
        if not args.no_proof:
            steps.append(("proof", proof_script(test_cmd), args.proof_timeout))
        # One namespace for all steps: each step's exit status is written where the test reads it.
        script = mounts + " ; ".join(
            f"s=$(date +%s.%N); timeout -k 10 {to} {as_user} sh -c {shlex.quote(f'cd {home}/tilelab && {cmd}')} "
            f"> {shlex.quote(str(run / (step + '.log')))} 2>&1; echo $? > {shlex.quote(str(run / (step + '.rc')))}; "
            f"echo $(date +%s.%N) $s > {shlex.quote(str(run / (step + '.time')))}; "
            f"[ \"$(cat {shlex.quote(str(run / (step + '.rc')))})\" = 0 ] || exit 0"
            for step, cmd, to in steps)
        log(f"{where}: running {', '.join(s for s, _, _ in steps)}" + (f" (README's test command: {test_cmd})" if test_cmd else ""))
        rc = run_logged(["unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private", "sh", "-c", script],
                        run / "namespace.log", sum(to for _, _, to in steps) + 300, "namespace")
        if rc != 0:
            raise Failed(f"{where}: mounting the root and copying the tree failed (exit {rc}):\n{tail(run / 'namespace.log')}")
        for step, cmd, to in steps:
            rcf = run / f"{step}.rc"
            if not rcf.is_file():
                break
            end, start = (float(x) for x in (run / f"{step}.time").read_text().split())
            times[step] = round(end - start, 1)
            src = int(rcf.read_text().strip() or 1)
            logf = run / f"{step}.log"
            log(f"{where}: {step}: exit {src} in {times[step]:.0f} s (log {logf})")
            if src != 0:
                why = f"timed out after {to} s" if src in (124, 137) else f"exit {src}"
                raise Failed(f"{where}: step '{step}' ({cmd if step == 'setup' else 'reduced test command'}) failed: {why}\n"
                             f"--- last lines of {logf} ---\n{tail(logf)}")
            text = logf.read_text(errors="replace")
            expect, refuse = SETUP_SAYS[kind] if step == "setup" else (["tests passed"], [])
            missing = [e for e in expect if e not in text]
            if missing:
                raise Failed(f"{where}: step '{step}' exited 0 but its output lacks {missing}\n"
                             f"--- last lines of {logf} ---\n{tail(logf)}")
            wrong = [e for e in refuse if e in text]
            if wrong:
                raise Failed(f"{where}: step '{step}' speaks of {wrong}, which this tree has none of\n"
                             f"--- last lines of {logf} ---\n{tail(logf)}")
        else:
            times["total"] = round(time.monotonic() - t0, 1)
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)   # what it costs a shared CI machine
            times["cpu"] = round(ru.ru_utime + ru.ru_stime, 1)
            # The root's writes (a whole kit build, 1.5 GB) go once the proof passed: CI's disk is
            # the whole run's, and a failed run keeps them to look at.
            du = subprocess.run(["du", "-sm", str(run / "upper")], capture_output=True, text=True).stdout.split()
            times["upper_mb"] = int(du[0]) if du else None
            for d in ("upper", "work"):
                subprocess.run(["rm", "-rf", "--one-file-system", str(run / d)], check=False)
            (run / "tree.tar").unlink(missing_ok=True)
            (run / "times.json").write_text(json.dumps(times, indent=1) + "\n")
            log(f"PASS {where}: seconds {json.dumps(times)}")
            return 0
        raise Failed(f"{where}: a step did not run:\n{tail(run / 'namespace.log')}")
    except Failed as e:
        times["total"] = round(time.monotonic() - t0, 1)
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        times["cpu"] = round(ru.ru_utime + ru.ru_stime, 1)
        (run / "times.json").write_text(json.dumps(times, indent=1) + "\n")
        print(f"FAIL {e}\nseconds: {json.dumps(times)}", flush=True)
        return 1
    finally:
        lock.close()


if __name__ == "__main__":
    sys.exit(main())
