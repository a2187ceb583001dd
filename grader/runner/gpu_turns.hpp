// A judge's turns on the GPU (docs/integrity.md, "The GPU between checks"): its workers run only
// while it holds the machine's GPU lock (gpu_lock.hpp) -- a share around each call to a worker, its
// start and its end; the GPU alone around the timing loop -- and are stopped (SIGSTOP of their
// process group, waited for until every thread of it has stopped) before it lets go. So a timing
// loop waits only for the calls in progress, not for every other check's whole life (issue 45:
// loops waited 10x as long as they ran), and while it runs no other judge's worker runs at all:
// neither its calls, nor its threads, nor code under test that runs before main.
//
// A worker cannot leave its process group or start another program (sandbox.cpp stops fork,
// execve, setsid and setpgid), so its group is the worker with all its threads. What a stop does
// not stop: work a worker queued on the GPU before it was stopped (docs/integrity.md says why an
// honest worker has none, and what such work would do).
#pragma once
#include <sys/types.h>

#include <functional>
#include <vector>

#include "gpu_lock.hpp"

namespace tilelab::judge {

class GpuTurns {
 public:
  explicit GpuTurns(GpuLock& lock) : lock_(lock) {}
  GpuTurns(const GpuTurns&) = delete;
  GpuTurns& operator=(const GpuTurns&) = delete;

  // A worker's process group (its leader's pid; a child of this process), run only in a turn from
  // now on; `leave` once it is reaped.
  void join(pid_t worker) { workers_.push_back(worker); }
  void leave(pid_t worker);

  // A turn for the scope: the GPU shared and the workers running. Nested turns (and a turn inside
  // alone()) are the outermost one. A null GpuTurns (the emulator's judge) takes no turn.
  class Turn {
   public:
    explicit Turn(GpuTurns* t) : t_(t) {
      if (t_) t_->enter();
    }
    ~Turn() {
      if (t_) t_->leave_turn();
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

   private:
    GpuTurns* t_;
  };

  // The GPU alone, outside any turn (the workers stopped meanwhile); returns the seconds waited.
  // end_alone() stops the workers and lets go.
  double alone();
  void end_alone();

  // Seconds waited for shares so far (the result's seconds.gpu_share); on_wait is told the new
  // total after each wait.
  double waited() const { return waited_; }
  std::function<void(double)> on_wait;

 private:
  void enter();
  void leave_turn();
  void signal_all(int sig);
  void stop_all();

  GpuLock& lock_;
  std::vector<pid_t> workers_;
  int depth_ = 0;
  double waited_ = 0;
};

}  // namespace tilelab::judge
