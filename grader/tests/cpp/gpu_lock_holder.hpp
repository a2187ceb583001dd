// Another process's hold on the GPU's lock (grader/runner/gpu_lock.hpp), for the lock's and the
// turns' tests (test_gpu_lock.cpp, test_gpu_turns.cpp): real processes, as judges are.
#pragma once
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "../../runner/gpu_lock.hpp"

namespace gpu_lock_test {

using tilelab::judge::GpuLock;

// A child process that takes the lock (`alone` or a share), says so on a pipe, and holds it until
// it is killed.
struct Holder {
  pid_t pid = -1;
  int said = -1;
  Holder(const std::string& path, bool alone) {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(p[0]);
      GpuLock lock(path);
      lock.share();
      if (alone) lock.alone();
      (void)!::write(p[1], "x", 1);
      for (;;) ::pause();
    }
    ::close(p[1]);
    said = p[0];
  }
  // Whether it took the lock within `ms` milliseconds.
  bool took(int ms) const {
    pollfd f{said, POLLIN, 0};
    return ::poll(&f, 1, ms) == 1;
  }
  void kill() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      pid = -1;
    }
  }
  ~Holder() {
    kill();
    ::close(said);
  }
};

// How long a holder that should get the lock may take to say so: generous, since CI runs this on 2
// busy cores beside whole builds (2 s was once too short there, 2026-11-29); poll returns as soon as
// the child writes, so a lock that works costs nothing of it. The waits that must NOT end (300 ms)
// can only pass more easily on a busy machine, never fail.
constexpr int kTakes = 60000;

// A lock file of its own for each test, in a folder of this process's.
inline std::string fresh_path() {
  const auto dir = std::filesystem::temp_directory_path() / ("tilelab-gpu-lock-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  static int n = 0;
  return (dir / ("lock" + std::to_string(++n))).string();
}

}  // namespace gpu_lock_test
