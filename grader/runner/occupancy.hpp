// Blocks per SM on the model's GPU (sm_90: H100, H200) by CUDA's occupancy calculator's rules (PMPP
// 4.7; walkthrough 06 section 6): registers allocated per warp in units of 256 from the SM's 65536;
// shared memory per block in units of 128 bytes, each block with 1 KB reserved, from 228 KB; at most
// 2048 threads and 32 blocks. The one copy of these rules in C++: the performance model (its
// latency bound and the tensor-core chain, with ptxas's registers where nvcc's back end was read)
// and the judge's back-end lines (backend_facts.cpp) both call it, so the "blocks per SM" a student
// reads is the one the model used. The build-time reader
// grader/tilelab/run/occupancy.py applies the same rules; grader/tests/python/data/occupancy-cases.json
// holds the cases both are tested on.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "perf_model.hpp"

namespace tilelab {

// Blocks per SM each resource allows ("threads", "registers", "shared_memory", "blocks") for a
// block of `threads` threads and `shared_bytes` of shared memory whose threads use `registers`
// registers. Registers 0 (unknown: the emulator's counts do not say) and shared memory 0 are no limit.
std::map<std::string, int64_t> occupancy_limits(double registers, double threads, double shared_bytes,
                                                const ModelGpu& g = {});

struct Occupancy {
  int64_t blocks_per_sm = 0;         // 0 where the block has no threads
  std::string binding_limit;         // the resource that binds ("" where the block has no threads)
  std::map<std::string, int64_t> limits;
};

// The blocks an SM holds and the resource that binds; of a tie, the launch's own limits first:
// threads, blocks, then shared memory, then registers (as occupancy.py).
Occupancy occupancy(double registers, double threads, double shared_bytes, const ModelGpu& g = {});

}  // namespace tilelab
