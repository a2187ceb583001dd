#include "worker_client.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "addr2line.hpp"
#include "backend.hpp"  // DeviceError
#include "confine.hpp"
#include "sandbox.hpp"

// close_range(2) (Linux 5.9) through syscall(2): glibc has a wrapper only from 2.34 (Debian 11's
// is 2.31); the number is the same on every architecture.
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
namespace {
void close_from(unsigned first) { ::syscall(__NR_close_range, first, ~0u, 0u); }
}  // namespace

extern char** environ;

namespace tilelab {
namespace {

LaunchOptions g_launch;

// fd moved to a number >= 10 (so that placing the channel on 3..7 clobbers nothing).
int high(int fd) { return ::fcntl(fd, F_DUPFD, 10); }

// What of the judge's environment a worker gets: what the loader, the CUDA driver and runtime, the
// compute-sanitizer's injection and the emulator's sanitizers read. Not the grading seed, not the
// grader's paths or an instructor's tokens (the attack env-leak).
bool passed_on(const char* entry) {
  static const char* const kExact[] = {"PATH=", "LANG=", "LC_ALL=", "TZ=", "LD_LIBRARY_PATH=", "LD_PRELOAD=",
                                       "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=", "TILELAB_EXACT_BUFFERS=",
                                       "TILELAB_UNWRITTEN_GUARDS=",  // the GPU runner's buffers under memcheck, initcheck
                                       "TILELAB_VARIANT="};  // the differential check's kernel variant (kit.emu.differential)
  static const char* const kPrefixes[] = {"CUDA_", "NV_", "NVIDIA_", "__NV", "COMPUTE_SANITIZER", "INJECTION", "LC_"};
  for (const char* e : kExact)
    if (std::strncmp(entry, e, std::strlen(e)) == 0) return true;
  for (const char* e : kPrefixes)
    if (std::strncmp(entry, e, std::strlen(e)) == 0) return true;
  return false;
}

// A page at a random address holding `path`: the launch filter allows the one execve whose path
// argument lies there (sandbox.hpp), and the program it runs cannot know where that was.
char* exec_page(const std::string& path) {
  for (int tries = 0; tries < 16; ++tries) {
    uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) != sizeof r) break;
    void* want = reinterpret_cast<void*>((r & 0x00003ffffffff000ull) + 0x10000000000ull);
    void* p = ::mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want) {
      std::memcpy(p, path.c_str(), std::min<size_t>(path.size() + 1, 4095));
      return static_cast<char*>(p);
    }
    if (p != MAP_FAILED) ::munmap(p, 4096);
  }
  return nullptr;
}

// In the child, where the worker cannot be confined or started: answers the judge's first request
// with the reason (a grading error, never the student's), then ends.
[[noreturn]] void refuse_in_child(const std::string& why) {
  wire::Message m;
  if (wire::receive(wire::kWorkerIn, m, std::chrono::steady_clock::now() + std::chrono::seconds(30), 0) ==
      wire::Read::kOk)
    wire::send(wire::kWorkerOut, {{"error", why}});
  ::_exit(127);
}

// Reads "Key:\tvalue" from /proc/<pid>/status: the kernel's word, which no code in the worker can change.
long status_field(pid_t pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) return std::strtol(line.c_str() + key.size() + 1, nullptr, 10);
  return -1;
}

}  // namespace

void set_launch_options(const LaunchOptions& o) { g_launch = o; }

Worker::Worker(const std::string& path, wire::Deadline deadline) : deadline_(deadline) {
  std::error_code ec;
  const std::string exe = std::filesystem::canonical(path, ec).string();
  if (ec) throw std::runtime_error("no worker " + path);
  landlock_abi_ = confine::landlock_abi();
  if (g_launch.sealed && landlock_abi_ == 0)
    throw std::runtime_error("cannot confine the worker: this kernel has no Landlock (Linux 5.13 or later with "
                             "landlock among its LSMs), and a sealed grade (a grading seed is set) needs it");
  int to[2], from[2], request[2], reply[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0 || ::pipe2(request, O_CLOEXEC) != 0 ||
      ::pipe2(reply, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  // The emulator's progress page (progress.hpp): optional, a worker without it runs the same.
  int page = ::memfd_create("tilelab-progress", MFD_CLOEXEC);
  if (page >= 0 && ::ftruncate(page, sizeof(tlemu::Progress)) == 0) {
    void* p = ::mmap(nullptr, sizeof(tlemu::Progress), PROT_READ | PROT_WRITE, MAP_SHARED, page, 0);
    if (p != MAP_FAILED) {
      progress_ = static_cast<tlemu::Progress*>(p);
      progress_->magic = tlemu::kProgressMagic;
    }
  }
  // The worker's standard output and error when the judge's own are files (or sockets): a memfd the
  // judge copies to its stderr when the worker is gone (relay_output), so that no descriptor of the
  // judge's naming a file of the machine reaches the worker (the red team's inherited-fds: a log
  // it could rewrite). Pipes and character devices (ctest's capture, a terminal) are passed on.
  // Its size is fixed and sealed (kOutputCap): a flood of prints stops there instead of filling the
  // machine's memory; the offset the worker shares with output_ says how much it wrote.
  output_ = ::memfd_create("tilelab-worker-output", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (output_ >= 0 && (::ftruncate(output_, kOutputCap) != 0 ||
                       ::fcntl(output_, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)) {
    ::close(output_);
    output_ = -1;
  }
  std::vector<char*> env;
  for (char** e = environ; e && *e; ++e)
    if (passed_on(*e)) env.push_back(*e);
  env.push_back(nullptr);
  std::fflush(nullptr);
  // The helper that names source lines for the emulator's findings (addr2line.hpp): the judge's
  // code, in the judge's process group; it ends when the worker closes its pipe or the judge dies.
  symbolizer_ = ::fork();
  if (symbolizer_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Only its own two ends: holding the worker's channel open would hide the worker's death from
    // the judge (a worker that crashed before its greeting was judged a timeout).
    const int in = high(request[0]), out = high(reply[1]);
    if (in < 0 || out < 0 || ::dup2(in, 3) < 0 || ::dup2(out, 4) < 0) ::_exit(0);
    close_from(5);
    addr2line::serve(3, 4, exe);
  }
  ::close(request[0]);
  ::close(reply[1]);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // A session and process group of its own: the judge can end everything it starts, and the
    // worker has no controlling terminal to push keystrokes into (TIOCSTI: the red team's tty-inject).
    if (::setsid() < 0) ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);
    const int in = high(to[0]), out = high(from[1]), req = high(request[1]), rep = high(reply[0]);
    const int pg = progress_ ? high(page) : -1;
    if (in < 0 || out < 0 || req < 0 || rep < 0 || ::dup2(in, wire::kWorkerIn) < 0 ||
        ::dup2(out, wire::kWorkerOut) < 0 || ::dup2(req, addr2line::kRequestFd) < 0 || ::dup2(rep, addr2line::kReplyFd) < 0)
      ::_exit(127);
    if (progress_ && (pg < 0 || ::dup2(pg, tlemu::kProgressFd) < 0)) ::_exit(127);
    if (!progress_) ::close(tlemu::kProgressFd);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC), output = output_ >= 0 ? high(output_) : -1;
    if (null < 0 || ::dup2(null, 0) < 0) ::_exit(127);
    for (int fd : {1, 2}) {
      struct stat st{};
      const bool passed = ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
      if (!passed && (output < 0 || ::dup2(output, fd) < 0)) ::_exit(127);
    }
    // none of the judge's other files reach the worker
    close_from(addr2line::kReplyFd + 1);
    // Confined from here on, and so from the worker's first instruction (sandbox.hpp, confine.hpp):
    // what it may read, write and execute; no core file; the launch filter.
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    // A worker run as root (the kit's own tests, a grader without a sandbox user) keeps uid 0 but no
    // capability: no real-time priority over the judge, no bypassing file permissions.
    if (!confine::drop_capabilities()) refuse_in_child("cannot confine the worker: cannot drop its capabilities");
    confine::Policy policy = confine::worker_policy(exe, long(::getpid()));
    if (g_launch.tool_attached) {  // compute-sanitizer's injected library talks to its front end
      policy.write.insert(policy.write.end(), {"/tmp", "/dev/shm"});
      policy.deny_network = false;
    }
    std::string why;
    if (landlock_abi_ > 0 && confine::restrict(policy, why) == 0 && g_launch.sealed)
      refuse_in_child("cannot confine the worker: " + why);
    char* at = exec_page(exe);
    if (!at) refuse_in_child("cannot confine the worker: no page for the launch filter");
    try {
      enter_launch_filter(at, g_launch.tool_attached);
    } catch (const std::exception& e) {
      refuse_in_child(std::string("cannot confine the worker: ") + e.what());
    }
    char* argv[] = {at, const_cast<char*>("--serve"), nullptr};
    ::execve(at, argv, env.data());
    refuse_in_child(std::string("cannot run ") + path + ": " + std::strerror(errno));
  }
  ::setpgid(pid_, pid_);  // also here, so there is no window before the child's own call
  if (page >= 0) ::close(page);
  ::close(to[0]);
  ::close(from[1]);
  ::close(request[1]);
  ::close(reply[0]);
  to_ = to[1];
  from_ = from[0];
}

nlohmann::json Worker::confinement() const {
  return {{"landlock_abi", g_launch.sealed || landlock_abi_ > 0 ? landlock_abi_ : 0},
          {"no_new_privs", status_field(pid_, "NoNewPrivs") == 1},
          {"seccomp_mode", status_field(pid_, "Seccomp")},
          {"seccomp_filters", status_field(pid_, "Seccomp_filters")}};
}

void Worker::relay_output() {
  if (output_ < 0) return;
  constexpr off_t kTail = 64 << 10;  // what a student's prints need; more is cut to its end
  const off_t end = ::lseek(output_, 0, SEEK_CUR);
  if (end > 0) {
    off_t from = end > kTail ? end - kTail : 0;
    if (from > 0) std::fprintf(stderr, "[the worker's output: its first %lld bytes left out]\n", (long long)from);
    if (end >= kOutputCap) std::fprintf(stderr, "[the worker's output: cut at %lld bytes]\n", (long long)kOutputCap);
    std::fflush(stderr);
    char buf[8192];
    ssize_t n;
    while (from < end && (n = ::pread(output_, buf, size_t(std::min<off_t>(sizeof buf, end - from)), from)) > 0) {
      if (::write(2, buf, size_t(n)) < 0) break;
      from += n;
    }
  }
  ::close(output_);
  output_ = -1;
}

void Worker::pause(bool stopped) const {
  if (pid_ > 0) ::kill(-pid_, stopped ? SIGSTOP : SIGCONT);
}

Worker::~Worker() {
  if (symbolizer_ > 0) {
    ::kill(symbolizer_, SIGKILL);
    ::waitpid(symbolizer_, nullptr, 0);
  }
  if (progress_) ::munmap(progress_, sizeof(tlemu::Progress));
  if (to_ >= 0) ::close(to_);
  if (from_ >= 0) ::close(from_);
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the worker, and anything it left behind
    ::waitpid(pid_, nullptr, 0);
  }
  relay_output();
}

void Worker::gone(wire::Read why) {
  // Give a worker that is exiting a moment to be reaped, so its exit code or signal is known.
  int status = 0;
  bool reaped = false;
  if (why != wire::Read::kTimeout) {
    for (int i = 0; i < 40 && !reaped; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) reaped = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ::kill(-pid_, SIGKILL);
  if (!reaped) ::waitpid(pid_, &status, 0);
  pid_ = -1;
  relay_output();
  if (why == wire::Read::kTimeout) {
    WorkerGone g(WorkerGone::kTimeout, "timed out");
    if (progress_) g.progress = *progress_;  // read after the kill: nothing changes it any more
    g.at_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch()).count();
    throw g;
  }
  if (why == wire::Read::kGarbage) throw WorkerGone(WorkerGone::kGarbled, "garbled channel");
  // SIGSYS is the sandbox's (sandbox.hpp): its handler names the call, unless signals were blocked
  // (posix_spawn blocks them), when the kernel ends the process with the signal itself.
  if (reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
    throw WorkerGone(WorkerGone::kSandboxed, "a call made with signals blocked, as starting a program does");
  if (reaped && WIFSIGNALED(status))
    throw WorkerGone(WorkerGone::kCrashed, strsignal(WTERMSIG(status)), WTERMSIG(status));
  throw WorkerGone(WorkerGone::kExited, "exited", 0, reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

wire::Message Worker::call(const nlohmann::json& head, const std::vector<const std::vector<float>*>& mats,
                           size_t expect_floats) {
  if (pid_ < 0) throw WorkerGone(WorkerGone::kExited, "exited");
  if (!wire::send(to_, head, mats)) gone(wire::Read::kEof);
  wire::Message m;
  const wire::Read r = wire::receive(from_, m, deadline_, expect_floats);
  if (r != wire::Read::kOk) gone(r);
  for (const auto& mat : m.mats)
    if (mat.size() != expect_floats) gone(wire::Read::kGarbage);
  if (m.head.contains("fatal_findings") || m.head.contains("sandbox")) {  // the worker exits after these
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    if (m.head.contains("fatal_findings")) throw FatalFindings(m.head["fatal_findings"]);
    const auto& call = m.head["sandbox"];
    throw WorkerGone(WorkerGone::kSandboxed, call.is_string() ? call.get<std::string>() : "a system call");
  }
  if (m.head.contains("device_error") && m.head["device_error"].is_string())
    throw DeviceError(m.head["device_error"].get<std::string>());
  if (m.head.contains("error") && m.head["error"].is_string())
    throw std::runtime_error(m.head["error"].get<std::string>());
  return m;
}

}  // namespace tilelab
