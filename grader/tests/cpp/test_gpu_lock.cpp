// The GPU's lock between processes (grader/runner/gpu_lock.hpp), with real processes: a timing
// loop waits for the checks sharing the GPU, a sharer waits for a timing loop, a timing loop that
// is queued keeps new sharers out, a holder that lets go or is killed lets the next in.
#include <doctest/doctest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gpu_lock_holder.hpp"

using gpu_lock_test::fresh_path;
using gpu_lock_test::Holder;
using gpu_lock_test::kTakes;
using tilelab::judge::GpuLock;

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

TEST_CASE("let_go lets the next in: after a share the waiting loop, after alone the waiting checks") {
  const std::string path = fresh_path();
  GpuLock lock(path);
  lock.share();
  {
    Holder timing(path, true);
    CHECK_FALSE(timing.took(300));
    lock.let_go();
    CHECK(timing.took(kTakes));
  }
  lock.alone();
  Holder sharer(path, false);
  CHECK_FALSE(sharer.took(300));
  lock.let_go();
  CHECK(sharer.took(kTakes));
  // Queued only now: a timing loop queued beside the sharer could take the gate first and, as
  // designed, keep the sharer out (CI's Debian 13 root did, 2026-11-29).
  Holder timing(path, true);
  CHECK_FALSE(timing.took(300));  // the sharer still shares; this judge holds nothing
  sharer.kill();
  CHECK(timing.took(kTakes));
}

TEST_CASE("a lock file that cannot be opened is an error, not a turn") {
  CHECK_THROWS_AS(GpuLock("/nonexistent-folder-of-tilelab/gpu.lock"), std::system_error);
}
