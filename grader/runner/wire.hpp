// The one channel between the judge (judge.cpp, trusted) and a worker (worker.cpp, which runs the
// code under test in a process of its own). A message is a JSON head and the float matrices it
// announces ("mats": n), each sent as a frame: type (1 byte), length (8 bytes), payload. The judge
// reads with a deadline and a size cap, so a worker that hangs, dies or sends garbage is judged,
// never trusted and never able to stall or crash the judge.
#pragma once
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tilelab::wire {

// The worker's ends, set up by the judge before it executes the worker.
inline constexpr int kWorkerIn = 3;   // commands from the judge
inline constexpr int kWorkerOut = 4;  // replies to the judge

struct Message {
  nlohmann::json head;
  std::vector<std::vector<float>> mats;
};

enum class Read { kOk, kEof, kTimeout, kGarbage };

using Deadline = std::chrono::steady_clock::time_point;

// False when the peer is gone.
bool send(int fd, const nlohmann::json& head, const std::vector<const std::vector<float>*>& mats = {});
// Blocks until a whole message is read, the peer closes, or `deadline` passes. A head over 16 MiB
// or a matrix over max_floats elements is garbage.
Read receive(int fd, Message& out, Deadline deadline, size_t max_floats);

}  // namespace tilelab::wire
