// The emulator runtime as the runner's backend (grader/runner/emu_backend.cpp) sees it: findings,
// launch records and buffer names. The student-facing half is include/tilelab_emu.h.
//
// The runtime is built three times from the same sources (grader/cmake/TilelabEmu.cmake):
//   plain  correctness; cudaMalloc buffers sit inside NaN-filled guard zones (an overrun reads NaN,
//          as a GPU reads garbage, and a write there is reported after the launch);
//   asan   AddressSanitizer + UBSan: exact-size cudaMalloc buffers and a poisoned shared arena, so
//          an out-of-bounds access stops the run with the student's line;
//   race   every shared-memory access of the student's file is seen (through g++'s
//          -fsanitize=kernel-address callbacks): read/write conflicts between two barriers and
//          reads of shared memory no thread of the block has written;
//   count  every load and store of the student's file is counted, warp by warp: global sectors,
//          shared-memory wavefronts (bank conflicts), barriers (TrafficCounts below).
// All of them report barrier divergence and barriers skipped by threads that returned.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tilelab_emu.h"

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
  long count = 1;
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
  size_t static_shared = 0;  // bytes of the __shared__ variables the kernel declared
  bool default_stream = true;
  double seconds = 0;
  cudaError_t error = cudaSuccess;
};
void start_recording();
std::vector<LaunchRecord> stop_recording();

// The memory traffic of the launches, as the count build (emu-count) counts it: docs/performance.md
// and runtime/hooks_count.cpp say what each figure is. Figures of the whole grid, scaled up from
// the sampled blocks; requests and wavefronts are warp-level.
struct TrafficCounts {
  double launches = 0, blocks = 0, sampled_blocks = 0;
  double threads_per_block = 0, shared_bytes_per_block = 0, barriers_per_block = 0;  // of the last launch
  double global_loads = 0, global_stores = 0;                // warp-level requests
  double global_load_sectors = 0, global_store_sectors = 0;  // 32-byte sectors they touch
  double global_bytes_requested = 0;                         // bytes the lanes asked for
  double global_load_bytes = 0;                              // of those, by loads
  double global_wavefronts = 0;                              // 128-byte lines, summed over requests
  double l2_sectors = 0;                                     // distinct sectors per block, summed
  double shared_loads = 0, shared_stores = 0;                // warp-level requests
  double shared_wavefronts = 0;                              // bank-conflict degree, summed
  void add(const TrafficCounts& o) {
    launches += o.launches, blocks += o.blocks, sampled_blocks += o.sampled_blocks;
    threads_per_block = o.threads_per_block, shared_bytes_per_block = o.shared_bytes_per_block;
    barriers_per_block = o.barriers_per_block;
    global_loads += o.global_loads, global_stores += o.global_stores;
    global_load_sectors += o.global_load_sectors, global_store_sectors += o.global_store_sectors;
    global_bytes_requested += o.global_bytes_requested, global_wavefronts += o.global_wavefronts;
    global_load_bytes += o.global_load_bytes;
    l2_sectors += o.l2_sectors;
    shared_loads += o.shared_loads, shared_stores += o.shared_stores, shared_wavefronts += o.shared_wavefronts;
  }
};
// The counts since the last call (and forgets them); false in a build that does not count.
bool take_counts(TrafficCounts& out);

}  // namespace tlemu
