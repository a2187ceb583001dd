// Runs the code under test in a child process, so that what the runner reports cannot be forged
// by it. The trusted parent loads the data and computes the references, forks, and waits; the
// child runs the implementation and sends back its JSON result and the raw P matrices it saw
// through a pipe. The parent then checks those matrices against its own references, kills the
// child's whole process group, and is the only one to write the result file. A child that
// crashes, hangs, or exits without reporting (exit(0) in student code) is judged by the parent.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tilelab::isolation {

// Frame types sent by the child.
inline constexpr char kResult = 'R';   // the JSON result object
inline constexpr char kKernelP = 'K';  // P from launch_matmul
inline constexpr char kHostP = 'H';    // P from matmul_host
inline constexpr char kFreshP = 'F';   // P from the fresh-input run after timing

// True in the child process.
bool in_child();
// Child side: sends one frame to the parent (no-op outside a child).
void send(char type, const void* data, size_t bytes);

struct ChildReport {
  bool timed_out = false;
  bool has_result = false;
  nlohmann::json result;
  std::map<char, std::vector<float>> matrices;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
};

// Forks; the child runs body() and _exits with its return value. The parent collects the frames,
// enforcing timeout_s (0: none), then kills the child's process group.
ChildReport run_isolated(const std::function<int()>& body, double timeout_s);

}  // namespace tilelab::isolation
