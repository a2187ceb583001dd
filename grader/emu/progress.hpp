// How far the emulator has got, for the judge to read when a run passes its time limit (issue #26,
// item 2): a kernel that is still finishing threads, passing barriers and finishing blocks is slow,
// not hung, and the judge says which and why.
//
// The judge (worker_client.cpp) creates one page of shared memory (a memfd) for each worker, writes
// kMagic at its start and hands it to the worker as fd kProgressFd; the emulator runtime (core.cpp)
// maps it and updates it as the kernel runs; a worker without the emulator leaves it alone. It is
// written by the process that runs the code under test, so the judge believes nothing in it beyond
// the wording of a timeout: the verdict stays `timeout` whatever it says.
#pragma once
#include <cstdint>

namespace tlemu {

inline constexpr int kProgressFd = 5;
inline constexpr uint64_t kProgressMagic = 0x31474f5250554d45ull;  // "EMUPROG1"

struct Progress {
  uint64_t magic;          // kProgressMagic, written by the judge
  uint64_t attached;       // 1 once the emulator runtime mapped the page
  uint64_t launches;       // launches begun
  uint64_t grid[3], block[3];  // of the launch that runs (or ran last)
  uint64_t blocks_total;   // of that launch
  uint64_t blocks_done;    // of that launch
  uint64_t threads_done;   // in the block that runs
  uint64_t barriers;       // barrier releases in the block that runs
  uint64_t phases;         // releases of the block's first __syncthreads() call site, in the block that runs
  uint64_t phases_per_block;  // the same, in the last block that finished (0: none yet)
  int64_t phase_line;      // the line of that __syncthreads() (0: none)
  int64_t launch_start_ns;    // CLOCK_MONOTONIC (steady_clock on Linux) when the launch began
  int64_t last_progress_ns;   // when a thread last finished, a barrier or a warp operation was last released, or a block finished
  char kernel[64];         // the kernel of the launch (NUL-terminated)
  char phase_file[192];    // the file of phase_line
};

}  // namespace tlemu
