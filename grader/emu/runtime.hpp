// The emulator runtime as the runner's backend (grader/runner/emu_backend.cpp) sees it: findings,
// launch records and buffer names. The student-facing half is include/tilelab_emu.h.
//
// The runtime is built three times from the same sources (grader/cmake/TilelabEmu.cmake):
//   plain  correctness; cudaMalloc buffers sit inside NaN-filled guard zones (an overrun reads NaN,
//          as a GPU reads garbage, and a write there is reported after the launch);
//   asan   AddressSanitizer + UBSan: exact-size cudaMalloc buffers and a poisoned shared arena, so
//          an out-of-bounds access stops the run with the student's line;
//   race   every shared-memory access of the student's file is seen (through g++'s
//          -fsanitize=thread callbacks): read/write conflicts between two barriers and
//          reads of shared memory no thread of the block has written;
//   count  every load and store of the student's file is counted, warp by warp: global sectors,
//          shared-memory wavefronts (bank conflicts), barriers (TrafficCounts below).
// All of them report barrier divergence and barriers skipped by threads that returned.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilelab_emu.h"
#include "traffic_counts.hpp"

namespace tlemu {

// One problem the emulator saw, deduplicated by kind and source lines: `count` occurrences.
struct Finding {
  std::string kind;     // barrier-divergence, barrier-skipped, race, uninitialized-shared,
                        // out-of-bounds-global, out-of-bounds-shared, out-of-bounds-local,
                        // memory-error, undefined-behavior, global-overrun, host-pointer-argument
  std::string file;     // the student's source file (as compiled)
  int line = 0;         // 0 when unknown (e.g. global-overrun in the plain build)
  std::string message;  // one sentence, without the file:line prefix
  std::string hint_code;  // refines kind for the hint, e.g. missing-barrier-before-use
  // Refines hint_code for the advice, where contract.toml [findings.advice] has "<hint_code>.<variant>":
  // "misaligned" (an undefined-behavior finding that is a misaligned vector access); "" for none.
  std::string variant;
  long count = 1;
  // A warning: reported, but no safety violation -- it fails nothing (an uninitialised shared value
  // that reaches no stored element; two blocks storing the same bits to one element).
  bool warning = false;
};

// "emu", "emu-asan", "emu-race" or "emu-count": which build of the runtime this is.
const char* backend_name();

// Findings since the last call (and forgets them).
std::vector<Finding> take_findings();

// A finding that ends the process (AddressSanitizer and UBSan halt on the first error) is handed to
// this function with every finding so far, just before the process exits with status 2.
void set_fatal_handler(std::function<void(const std::vector<Finding>&)> handler);

// Names a cudaMalloc buffer in findings ("M", "N", "P"); row_length: the floats in one row of the
// matrix it holds (0: not a matrix), so an overrun is told as an element, its row and column.
void name_buffer(const void* device_ptr, const std::string& name, size_t row_length = 0);

struct LaunchRecord {
  std::string kernel, file;
  int line = 0;
  dim3 grid, block;
  size_t dynamic_shared = 0;
  size_t static_shared = 0;  // bytes of the __shared__ variables the kernel declared and reads (as nvcc's)
  bool default_stream = true;
  double seconds = 0;
  cudaError_t error = cudaSuccess;
};
void start_recording();
std::vector<LaunchRecord> stop_recording();
// The launch configuration of one launch, seen without running it (grader/runner/grid_parallelism.hpp):
// from observe_launch(k) on, the launches of the code under test run as ever but the k-th (1 for the
// first), which is recorded (while recording) and not run, and its launch throws LaunchObserved
// instead of returning, so no code of the call runs after a launch that did not run; a later launch
// (the code caught it) fails and does not run either. observe_launch(0): off.
struct LaunchObserved {};
void observe_launch(int k);
bool launch_observed(LaunchRecord* out);  // since observe_launch(): the k-th launch was seen (its record)
// The judge's own preparation of device memory (hundreds of MB at a timed shape): open for all its
// operations at once while `open`, not opened and re-protected at each. Closed again before the code
// under test runs, which must meet device memory as in every checked run (a host read of it faults;
// a syscall handed a device pointer fails), or the pass could be told from the counted runs.
void hold_device_open(bool open);
// The buffer whose host-to-device copies are counted while recording (P of the run: a product the
// host computed and copied in is not a kernel's); take_host_copies() returns them since the last
// start_recording(), as the GPU backend's launch probe counts them.
void watch_host_copies(const void* device_ptr, size_t bytes);
size_t take_host_copies();
// Stores the host made through device pointers while recording (a GPU crashes on them; here
// device memory is host memory), found by comparing the buffers between device operations.
size_t take_host_stores();
// Every copy, set and pinned allocation of the CUDA API, as it happens, for the runner's ledger
// (grader/runner/host_traffic.hpp, whose CopyEvent kinds these are, in the same order): device
// memory is a cudaMalloc buffer or a __device__/__constant__ symbol, host memory anything else,
// pinned memory included. pinned_held(): bytes of cudaMallocHost memory not yet freed.
// kLaunchArgs: a launch's by-value arguments (bytes), which the host sends to the device with it.
struct MemoryEvent {
  enum Kind { kCopy, kMemset, kPinnedAlloc, kPinnedFree, kLaunchArgs } kind = kCopy;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  bool dst_device = false, src_device = false;
};
void set_memory_observer(std::function<void(const MemoryEvent&)> observer);
size_t pinned_held();
// The count build's sampled blocks (runtime/hooks_count.cpp) depend on this seed, which the judge
// draws for each check; other builds ignore it. every_block: count them all (exact, slower).
void set_sample_seed(uint64_t seed, bool every_block = false);
// The count build: the P the next launches write (the products that count are those whose results
// the kernel stored there: runtime/hooks_count.cpp); other builds ignore it.
void set_product(const void* P, size_t bytes);

// A worker's: names source lines for findings through the helper the judge started for it
// (grader/runner/addr2line.hpp), or names none where it was given none. Never called, a process
// (the trace tool) runs addr2line itself.
void start_symbolizer();

// The counts since the last call (and forgets them); false in a build that does not count.
bool take_counts(TrafficCounts& out);

}  // namespace tlemu
