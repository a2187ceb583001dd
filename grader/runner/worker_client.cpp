#include "worker_client.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "backend.hpp"  // DeviceError

namespace tilelab {
namespace {

// fd moved to a number >= 10 (so that placing the channel on 3 and 4 clobbers nothing).
int high(int fd) { return ::fcntl(fd, F_DUPFD, 10); }

}  // namespace

Worker::Worker(const std::string& path, wire::Deadline deadline) : deadline_(deadline) {
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  // The emulator's progress page (progress.hpp): optional, a worker without it runs the same.
  int page = ::memfd_create("tilelab-progress", MFD_CLOEXEC);
  if (page >= 0 && ::ftruncate(page, sizeof(tlemu::Progress)) == 0) {
    void* p = ::mmap(nullptr, sizeof(tlemu::Progress), PROT_READ | PROT_WRITE, MAP_SHARED, page, 0);
    if (p != MAP_FAILED) {
      progress_ = static_cast<tlemu::Progress*>(p);
      progress_->magic = tlemu::kProgressMagic;
    }
  }
  std::fflush(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::setpgid(0, 0);  // its own process group, so the judge can end everything it starts
    ::signal(SIGPIPE, SIG_DFL);
    const int in = high(to[0]), out = high(from[1]);
    if (in < 0 || out < 0 || ::dup2(in, wire::kWorkerIn) < 0 || ::dup2(out, wire::kWorkerOut) < 0) ::_exit(127);
    if (progress_) {
      const int pg = high(page);
      if (pg < 0 || ::dup2(pg, tlemu::kProgressFd) < 0) ::_exit(127);
    }
    // none of the judge's other files reach the worker (the progress page, fd 5, is the last it gets)
    ::close_range(progress_ ? tlemu::kProgressFd + 1 : wire::kWorkerOut + 1, ~0u, 0);
    char* argv[] = {const_cast<char*>(path.c_str()), const_cast<char*>("--serve"), nullptr};
    ::execv(path.c_str(), argv);
    std::fprintf(stderr, "tilelab-judge: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // also here, so there is no window before the child's own call
  if (page >= 0) ::close(page);
  ::close(to[0]);
  ::close(from[1]);
  to_ = to[1];
  from_ = from[0];
}

Worker::~Worker() {
  if (progress_) ::munmap(progress_, sizeof(tlemu::Progress));
  if (to_ >= 0) ::close(to_);
  if (from_ >= 0) ::close(from_);
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the worker, and anything it left behind
    ::waitpid(pid_, nullptr, 0);
  }
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
