// The worker's sandbox (docs/integrity.md, "The sandbox"): a seccomp filter, entered once the
// backend is up and before any code under test is called, that stops the system calls a kernel
// course never needs -- opening or changing files, starting programs or processes, networking,
// reaching another process, and the kernel's privileged or bypass interfaces (io_uring, bpf, ...).
// It judges system calls, not names, so code that finds a libc function by address, or jumps to
// bytes it wrote, is stopped the same way. A stopped call ends the worker: it tells the judge
// which call on the channel ({"sandbox": name}) and exits with kError, before the call runs.
#pragma once

namespace tilelab {

// Enters the sandbox for every thread of the process (the CUDA runtime's too). Throws
// std::runtime_error where the kernel refuses the filter; a worker does not run code under test
// outside it.
void enter_sandbox();

}  // namespace tilelab
