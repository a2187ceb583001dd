#include "gpu_turns.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace tilelab::judge {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Whether the worker has stopped (every thread of it: the kernel reports the stop only once the
// group stop is complete) or is gone. WNOWAIT: the report stays for the worker's own reaping.
bool stopped_or_gone(pid_t worker) {
  siginfo_t info{};
  if (::waitid(P_PID, id_t(worker), &info, WSTOPPED | WEXITED | WNOHANG | WNOWAIT) != 0) return errno != EINTR;
  return info.si_pid == worker;
}

// A thread in a driver call stops when the call returns; an honest worker between calls sleeps in
// read(2) and stops at once. One that has not stopped within a minute is killed: it must not run
// beside another check's timing loop.
void wait_stopped(pid_t worker) {
  const auto t0 = Clock::now();
  auto nap = std::chrono::microseconds(20);
  while (!stopped_or_gone(worker)) {
    if (since(t0) > 60) {
      ::kill(-worker, SIGKILL);
      siginfo_t info{};
      while (::waitid(P_PID, id_t(worker), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
      }
      return;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace

void GpuTurns::leave(pid_t worker) { workers_.erase(std::remove(workers_.begin(), workers_.end(), worker), workers_.end()); }

void GpuTurns::signal_all(int sig) {
  for (pid_t w : workers_) ::kill(-w, sig);
}

void GpuTurns::stop_all() {
  signal_all(SIGSTOP);
  for (pid_t w : workers_) wait_stopped(w);
}

void GpuTurns::enter() {
  if (depth_++ > 0) return;
  const auto t0 = Clock::now();
  try {
    lock_.share();
  } catch (...) {
    depth_ = 0;
    throw;
  }
  waited_ += since(t0);
  if (on_wait) on_wait(waited_);
  signal_all(SIGCONT);
}

void GpuTurns::leave_turn() {
  if (--depth_ > 0) return;
  // Stopped before the share is given up: once it is, a timing loop may start.
  stop_all();
  lock_.let_go();
}

double GpuTurns::alone() {
  if (depth_ > 0) throw std::logic_error("the GPU alone is taken outside any turn, its workers stopped");
  const double waited = lock_.alone();
  depth_ = 1;
  signal_all(SIGCONT);
  return waited;
}

void GpuTurns::end_alone() {
  depth_ = 0;
  stop_all();
  lock_.let_go();
}

}  // namespace tilelab::judge
