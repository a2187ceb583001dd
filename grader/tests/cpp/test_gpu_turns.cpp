// A judge's turns on the GPU (grader/runner/gpu_turns.hpp), with real processes: its workers (here
// children of four threads each, counting as fast as they can) run only in a turn or while it has
// the GPU alone and are stopped, every thread, when it returns; a timing loop of another process
// waits for a turn in progress but not for a judge between turns; a turn waits while a loop has
// the GPU alone and counts the wait; a worker that is gone ends a turn as any other.
#include <doctest/doctest.h>

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "../../runner/gpu_turns.hpp"
#include "gpu_lock_holder.hpp"

using gpu_lock_test::fresh_path;
using gpu_lock_test::Holder;
using gpu_lock_test::kTakes;
using tilelab::judge::GpuLock;
using tilelab::judge::GpuTurns;

namespace {

// A worker stand-in: a child in a process group of its own whose four threads count in shared memory.
struct Counter {
  std::atomic<long>* count;
  pid_t pid = -1;
  explicit Counter(bool exit_at_once = false) {
    void* p = ::mmap(nullptr, sizeof(std::atomic<long>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    count = new (p) std::atomic<long>(0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setpgid(0, 0);
      if (exit_at_once) ::_exit(0);
      std::vector<std::thread> threads;
      for (int i = 0; i < 4; ++i)
        threads.emplace_back([this] {
          for (;;) count->fetch_add(1, std::memory_order_relaxed);
        });
      for (auto& t : threads) t.join();
    }
    ::setpgid(pid, pid);
  }
  long now() const { return count->load(); }
  // Whether it counts on within `ms` milliseconds.
  bool runs(int ms) const {
    const long c0 = now();
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end)
      if (now() != c0) return true;
    return false;
  }
  ~Counter() {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    ::munmap(count, sizeof(std::atomic<long>));
  }
};

}  // namespace

TEST_CASE("a worker runs only in its judge's turns, every thread of it stopped when a turn ends") {
  GpuLock lock(fresh_path());
  GpuTurns turns(lock);
  Counter worker;
  {
    GpuTurns::Turn start(&turns);
    turns.join(worker.pid);
    CHECK(worker.runs(kTakes));
  }
  // Stopped by the time the turn is over, not some moments later: nothing counts from here on.
  const long at_end = worker.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(worker.now() == at_end);
  for (int call = 0; call < 3; ++call) {
    {
      GpuTurns::Turn t(&turns);
      GpuTurns::Turn nested(&turns);  // one turn
      CHECK(worker.runs(kTakes));
    }
    CHECK_FALSE(worker.runs(200));
  }
  turns.alone();
  CHECK(worker.runs(kTakes));
  turns.end_alone();
  CHECK_FALSE(worker.runs(200));
}

TEST_CASE("a timing loop waits for a turn in progress, not for a judge between turns") {
  const std::string path = fresh_path();
  GpuLock lock(path);
  GpuTurns turns(lock);
  Counter worker;
  turns.join(worker.pid);
  {
    GpuTurns::Turn t(&turns);
    Holder loop(path, true);  // another judge's timing loop
    CHECK_FALSE(loop.took(300));
    CHECK(worker.runs(kTakes));
  }  // the loop takes the GPU as soon as the turn ends
  Holder loop(path, true);  // another judge's timing loop
  CHECK(loop.took(kTakes));
  CHECK_FALSE(worker.runs(200));
}

TEST_CASE("a turn waits while another judge has the GPU alone, the worker stopped, and counts the wait") {
  const std::string path = fresh_path();
  GpuLock lock(path);
  GpuTurns turns(lock);
  double told = -1;
  turns.on_wait = [&](double total) { told = total; };
  Counter worker;
  turns.join(worker.pid);
  { GpuTurns::Turn t(&turns); }  // stopped
  Holder loop(path, true);  // another judge's timing loop
  REQUIRE(loop.took(kTakes));
  std::atomic<bool> in_turn{false};
  std::thread judge([&] {
    GpuTurns::Turn t(&turns);
    in_turn = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK_FALSE(in_turn.load());
  CHECK_FALSE(worker.runs(100));
  loop.kill();
  judge.join();
  CHECK(in_turn.load());
  CHECK(turns.waited() >= 0.5);
  CHECK(told == turns.waited());
}

TEST_CASE("a worker that is gone ends a turn as one that stopped") {
  GpuLock lock(fresh_path());
  GpuTurns turns(lock);
  Counter gone(true);
  turns.join(gone.pid);
  const auto t0 = std::chrono::steady_clock::now();
  { GpuTurns::Turn t(&turns); }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  turns.leave(gone.pid);
  CHECK_THROWS_AS((turns.alone(), turns.alone()), std::logic_error);  // alone is taken outside any turn
}
