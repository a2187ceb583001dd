// The worker's sandbox (docs/integrity.md, "The sandbox"): a seccomp filter, entered once the
// backend is up and before any code under test is called, that stops the system calls a kernel
// course never needs -- opening or changing files, starting programs or processes, networking,
// reaching another process, and the kernel's privileged or bypass interfaces (io_uring, bpf, ...).
// It judges system calls, not names, so code that finds a libc function by address, or jumps to
// bytes it wrote, is stopped the same way. A stopped call ends the worker: it tells the judge
// which call on the channel ({"sandbox": name}) and exits with kError, before the call runs.
#pragma once

namespace tilelab {

// The two stages of the worker's confinement (docs/integrity.md, "The boundary"). kLaunch is
// entered by the judge in the worker's process before exec (worker_client.cpp), so it holds from
// the worker's first instruction -- constructors, .init code, ifunc resolvers -- and for the
// backend's start-up (the CUDA driver opens its device nodes): no process, no program but the
// worker itself, no file created, changed or written outside Landlock's rules, no network, no
// other process. kServe is entered by the worker once its backend is up, before the first request:
// no file opened at all. A submission's code that runs before main can defeat kServe (it runs in the
// same process first) but never kLaunch, which the kernel keeps across exec and nobody can lift.
enum class Stage { kLaunch, kServe };

// The judge's half, in the child after fork and before exec: enters kLaunch for this thread.
// `exec_path` is where the path of the one execve it allows lies. `tool_attached`: the worker runs
// under compute-sanitizer, whose library injected into it talks to its front end through a socket
// and files: those are allowed (Landlock still decides where). Throws std::runtime_error where the
// kernel refuses.
// `trap_refused` (tilelab_confine_probe only): a refused call ends the process with SIGSYS, whose
// si_syscall names it, to find what a GPU driver's start-up needs.
void enter_launch_filter(const void* exec_path, bool tool_attached = false, bool trap_refused = false);

// Enters the sandbox for every thread of the process (the CUDA runtime's too). Throws
// std::runtime_error where the kernel refuses the filter; a worker does not run code under test
// outside it.
void enter_sandbox();

}  // namespace tilelab
