// The count build's figures (runtime/hooks_count.cpp counts them): a plain struct, so that the
// judge's performance model (grader/runner/perf_model.hpp) reads them without the emulator.
#pragma once

namespace tlemu {

// The memory traffic of the launches, as the count build (emu-count) counts it: docs/performance.md
// and runtime/hooks_count.cpp say what each figure is. Figures of the whole grid, scaled up from
// the sampled blocks; requests and wavefronts are warp-level.
struct TrafficCounts {
  double launches = 0, blocks = 0, sampled_blocks = 0;
  double threads_per_block = 0, shared_bytes_per_block = 0, barriers_per_block = 0;  // of the last launch
  double global_loads = 0, global_stores = 0;                // warp-level requests
  double global_load_sectors = 0, global_store_sectors = 0;  // 32-byte sectors they touch
  double global_bytes_requested = 0;                         // bytes the lanes asked for
  double global_load_bytes = 0;                              // of those, by loads (every block's, exact)
  double sampled_global_load_bytes = 0;                      // the same estimated from the sampled blocks
  double global_wavefronts = 0;                              // 128-byte lines, summed over requests
  double l2_sectors = 0;                                     // distinct sectors per block, summed
  double shared_loads = 0, shared_stores = 0;                // warp-level requests
  double shared_wavefronts = 0;                              // bank-conflict degree, summed
  double tensor_fmas = 0;   // multiply-adds done by warps' mma_sync (m n k each: tensor cores, stage 07)
  double tensor_insts = 0;  // the mma instructions they are: m16n16k8 TF32 and m16n16k16 half are 2 each
  // Of tensor_fmas, those whose results never reached P: an accumulator's products count as the
  // product's only in the share of its last values (after its last mma_sync) that the kernel stored
  // into P (runtime/hooks_count.cpp, "Products that reach P"). 0 where every accumulator was stored.
  double tensor_fmas_unstored = 0;
  // Of the last launch, per block (the mean over the sampled blocks), for kernels that call mma_sync:
  // its phases (a run of global loads whose values a warp stores to shared memory; the warp with
  // the most), of those the exposed ones (stored before the warp's next mma_sync: the warp waits for
  // its loads with nothing to compute), and the registers a thread needs at least (its warp's
  // fragments plus the loads it holds across an mma_sync, in 32-bit registers; 0 without mma_sync).
  double staging_phases_per_block = 0, exposed_phases_per_block = 0, fragment_registers = 0;
  // Of the call: which of its launches (1 for the first) made the most warp-level accesses and
  // tensor instructions -- the product's, whose grid the judge then sees at the timed shape
  // (grader/runner/grid_parallelism.hpp). Set by the count build per call, never summed by add().
  double heaviest_launch = 0;
  void add(const TrafficCounts& o) {
    launches += o.launches, blocks += o.blocks, sampled_blocks += o.sampled_blocks;
    threads_per_block = o.threads_per_block, shared_bytes_per_block = o.shared_bytes_per_block;
    barriers_per_block = o.barriers_per_block;
    staging_phases_per_block = o.staging_phases_per_block, exposed_phases_per_block = o.exposed_phases_per_block;
    fragment_registers = o.fragment_registers;
    global_loads += o.global_loads, global_stores += o.global_stores;
    global_load_sectors += o.global_load_sectors, global_store_sectors += o.global_store_sectors;
    global_bytes_requested += o.global_bytes_requested, global_wavefronts += o.global_wavefronts;
    global_load_bytes += o.global_load_bytes, sampled_global_load_bytes += o.sampled_global_load_bytes;
    l2_sectors += o.l2_sectors;
    shared_loads += o.shared_loads, shared_stores += o.shared_stores, shared_wavefronts += o.shared_wavefronts;
    tensor_fmas += o.tensor_fmas, tensor_insts += o.tensor_insts, tensor_fmas_unstored += o.tensor_fmas_unstored;
  }
};

}  // namespace tlemu
