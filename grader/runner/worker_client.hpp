// The judge's side of a worker (worker.cpp): starts it as a new program -- fork, then exec, so it
// shares no memory with the judge: no dataset beyond M and N, no reference, no judge code -- in a
// process group of its own, sends it requests and reads its replies before a deadline. Whatever the
// worker does (hang, crash, exit, write garbage to the channel) becomes a WorkerGone the judge turns
// into a verdict; the judge never blocks past the deadline and never crashes with it.
#pragma once
#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "progress.hpp"  // grader/emu: how far the emulator got when a run timed out
#include "wire.hpp"

namespace tilelab {

struct WorkerGone : std::runtime_error {
  enum Kind { kTimeout, kCrashed, kExited, kGarbled, kSandboxed } kind;  // kSandboxed: what() is the call
  int signal = 0, exit_code = -1;
  // kTimeout: what the worker's emulator said of its progress at the deadline (attached == 0: nothing).
  tlemu::Progress progress{};
  int64_t at_ns = 0;  // CLOCK_MONOTONIC when the deadline passed
  WorkerGone(Kind k, const std::string& what, int sig = 0, int code = -1)
      : std::runtime_error(what), kind(k), signal(sig), exit_code(code) {}
};

// A finding that ended the worker (AddressSanitizer halts at its first error), as it reported it.
struct FatalFindings : std::runtime_error {
  nlohmann::json findings;
  explicit FatalFindings(nlohmann::json f) : std::runtime_error("fatal findings"), findings(std::move(f)) {}
};

// How the judge starts workers (set once, from its command line).
struct LaunchOptions {
  bool sealed = false;         // a grading seed is set: no worker runs without Landlock (confine.hpp)
  bool tool_attached = false;  // run under compute-sanitizer, whose injected library needs /tmp and a socket
};
void set_launch_options(const LaunchOptions&);

class Worker {
 public:
  // Starts `path --serve` with the channel on fds 3 and 4 (wire.hpp).
  Worker(const std::string& path, wire::Deadline deadline);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void set_deadline(wire::Deadline d) { deadline_ = d; }
  // Stops (SIGSTOP) or continues its process group: a worker launches nothing while its judge waits
  // for the GPU without a share of it (gpu_lock.hpp).
  void pause(bool stopped) const;
  // What confines the worker, read from the kernel (/proc/<pid>/status) and from the Landlock ABI
  // the judge applied before exec: {landlock_abi, no_new_privs, seccomp_mode, seccomp_filters}.
  nlohmann::json confinement() const;
  // One request and its reply. Throws WorkerGone, FatalFindings, or DeviceError when the worker
  // reports a CUDA error; every matrix of the reply must have `expect_floats` elements.
  wire::Message call(const nlohmann::json& head, const std::vector<const std::vector<float>*>& mats = {},
                     size_t expect_floats = 0);

 private:
  [[noreturn]] void gone(wire::Read why);
  void relay_output();  // the worker's output memfd to the judge's stderr, once, when the worker is gone
  pid_t pid_ = -1, symbolizer_ = -1;
  int landlock_abi_ = 0;
  tlemu::Progress* progress_ = nullptr;  // the page shared with the worker (progress.hpp), or null
  int to_ = -1, from_ = -1;
  int output_ = -1;  // the worker's stdout and stderr where the judge's are files (the constructor)
  static constexpr long kOutputCap = 1 << 20;
  wire::Deadline deadline_;
};

}  // namespace tilelab
