// The GPU's lock between processes (grader/runner/gpu_lock.hpp), with real processes: a timing
// loop waits for the checks sharing the GPU, a sharer waits for a timing loop, a timing loop that
// is queued keeps new sharers out, and a holder that is killed lets go.
#include <doctest/doctest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "../../runner/gpu_lock.hpp"

using tilelab::judge::GpuLock;

namespace {

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

std::string fresh_path() {
  const auto dir = std::filesystem::temp_directory_path() / ("tilelab-gpu-lock-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  static int n = 0;
  return (dir / ("lock" + std::to_string(++n))).string();
}

}  // namespace

TEST_CASE("checks share the GPU side by side") {
  const std::string path = fresh_path();
  Holder a(path, false), b(path, false);
  CHECK(a.took(kTakes));
  CHECK(b.took(kTakes));
}

TEST_CASE("a timing loop waits for the checks sharing the GPU, and a killed sharer lets go") {
  const std::string path = fresh_path();
  Holder sharer(path, false);
  REQUIRE(sharer.took(kTakes));
  Holder timing(path, true);
  CHECK_FALSE(timing.took(300));
  sharer.kill();
  CHECK(timing.took(kTakes));
}

TEST_CASE("a check waits while a timing loop has the GPU alone, until its holder dies") {
  const std::string path = fresh_path();
  Holder timing(path, true);
  REQUIRE(timing.took(kTakes));
  Holder sharer(path, false), second(path, true);
  CHECK_FALSE(sharer.took(300));
  CHECK_FALSE(second.took(1));
  timing.kill();
  // The next timing loop and the check each get it in turn: one now, the other once it is gone.
  pollfd both[2] = {{sharer.said, POLLIN, 0}, {second.said, POLLIN, 0}};
  REQUIRE(::poll(both, 2, kTakes) >= 1);
  const bool first_sharer = both[0].revents & POLLIN;
  REQUIRE(first_sharer == sharer.took(0));
  if (first_sharer) {
    CHECK_FALSE(second.took(300));
    sharer.kill();
    CHECK(second.took(kTakes));
  } else {
    CHECK(second.took(kTakes));
    CHECK_FALSE(sharer.took(300));
    second.kill();
    CHECK(sharer.took(kTakes));
  }
}

TEST_CASE("a timing loop that is waiting keeps new checks out") {
  const std::string path = fresh_path();
  Holder sharer(path, false);
  REQUIRE(sharer.took(kTakes));
  Holder timing(path, true);
  CHECK_FALSE(timing.took(300));
  Holder late(path, false);
  CHECK_FALSE(late.took(300));  // without the gate it would join the first check and starve the loop
  sharer.kill();
  CHECK(timing.took(kTakes));
  CHECK_FALSE(late.took(300));
  timing.kill();
  CHECK(late.took(kTakes));
}

TEST_CASE("share_again lets the waiting checks in and keeps the share") {
  const std::string path = fresh_path();
  GpuLock lock(path);
  lock.share();
  lock.alone();
  Holder sharer(path, false);
  CHECK_FALSE(sharer.took(300));
  lock.share_again();
  CHECK(sharer.took(kTakes));
  // Queued only now: a timing loop queued beside the sharer could take the gate first and, as
  // designed, keep the sharer out (CI's Debian 13 root did, 2026-11-29).
  Holder timing(path, true);
  CHECK_FALSE(timing.took(300));  // this process and the sharer still share
}

TEST_CASE("a lock file that cannot be opened is an error, not a turn") {
  CHECK_THROWS_AS(GpuLock("/nonexistent-folder-of-tilelab/gpu.lock"), std::system_error);
}
