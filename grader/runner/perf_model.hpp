// The performance model of the count build (docs/performance.md, "The model"): from the memory
// traffic the emulator counted (tlemu::TrafficCounts) and the problem's shape, the figures chapter 4
// reasons with and an estimate of the kernel's time on a named reference GPU (H100 SXM), in the
// spirit of a roofline: the time of the busiest resource. Pure arithmetic, so that a student can
// redo it by hand from the counts in results.json.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "traffic_counts.hpp"
#include "tilelab/spec.hpp"

namespace tilelab {

// The reference GPU: H100 SXM5 (132 SMs at 1.98 GHz). Each figure is per SM and clock unless named.
struct ModelGpu {
  const char* name = "H100 SXM (model)";
  double sms = 132, clock_hz = 1.98e9;
  double fma_warp_insts_per_clk = 4;   // 128 FP32 lanes: 4 warp-wide FFMA per clock (66.9 TFLOP/s)
  // 4 schedulers of one warp instruction a clock, of which a tuned kernel keeps about 3 busy: the
  // 06 reference issues 3.07 instructions a clock, cuBLAS 3.64 (Nsight Compute on an H100).
  double issue_per_clk = 3;
  // Tensor cores (07-tensor-cores): the multiply-adds a clock an SM's wmma kernels reach, fitted
  // with exposed_phase_clk on the 32 seen 07 kernels (the fitting set's two and three held-out sets,
  // timed on an H100; docs/performance.md, "07-tensor-cores"): 27 of them in their band. For
  // scale: wmma's mma_sync fed from shared memory and nothing else reaches 235-268 a clock, alone
  // 460-470 (the explorer's peak.cu, walkthrough 07 section 7), Hopper's dense TF32 peak (wgmma) 1024.
  double tensor_fmas_per_clk = 200;
  // An exposed phase of a tensor-core kernel (exposed_phases_per_block: tiles stored to shared
  // memory before the warp's next mma_sync, so it waits for its loads with nothing to compute)
  // costs its block this long beyond its products; the other blocks of its SM compute meanwhile.
  // A hidden phase (loads held in registers across the products) costs nothing beyond them.
  double exposed_phase_clk = 3000;
  // Registers decide how many blocks of a tensor-core kernel an SM holds: 65536 a SM, allocated per
  // warp in 256s; a thread needs its warp's fragments and the loads it holds (fragment_registers)
  // plus about 56 more (nvcc's counts for the 22 seen kernels less their fragments': the median),
  // at most 255.
  double registers_per_sm = 65536, register_alloc_per_warp = 256, registers_beyond_fragments = 56;
  double wavefronts_per_clk = 1;       // L1/shared data path: a shared wavefront, or a global request's per 128-byte line
  // A global load or store instruction holds the L1's request path at least this long, whatever its
  // lines: the basic kernel with 32-wide blocks (2 requests, 2 lines per warp FMA) runs 1.11x the
  // 16x16 one (2 requests, 3 lines), not the 1.5x its lines alone give (the fitting set's 01-b32x8,
  // timed on an H100; Nsight Compute: its wavefront pipe is 80% busy where the 16x16 one's is 99%).
  double global_request_clk = 1.35;
  // L2 to the SMs, all of them, at the clock the timed check runs at: set so that the fitting set's
  // 01-1d256 (L2-bound: one row of P per 256-thread block) models at its timed 0.89 of the 16x16
  // kernel (H100, 2026-11-26). Nsight Compute measured 8.34 TB/s of L2-to-L1 sectors for it, but it
  // locks the clocks at base while it profiles: the 06 reference takes 3.63 ms there and 2.95 ms in
  // the timed check, and 8.34 * 3.63 / 2.95 = 10.3 TB/s, the figure below within 3%.
  double l2_bytes_per_s = 9.98e12;
  double dram_bytes_per_s = 3.35e12;   // HBM3
  // Occupancy (occupancy.hpp): shared memory is allocated per block in 128-byte units, plus 1 KB reserved.
  double max_threads_per_sm = 2048, max_blocks_per_sm = 32, shared_per_sm = 233472, shared_reserved = 1024, shared_alloc = 128;
  // A phase of a block (two barriers: after the tiles are stored, after they are used) takes at
  // least one global-memory round trip under load, ~850 ns, whatever else the SM does meanwhile.
  // The one figure taken from a kernel's time: the 8x8-tile kernel on an H100 (docs/performance.md).
  double phase_latency_clk = 1700;
};

// What nvcc's back end says of the kernel doing the product (backend_facts.hpp reads it from the facts
// document the build wrote), as the model charges it: ptxas's registers for every kernel's
// occupancy, and the local memory (spills) its hot loop reads and writes per product instruction.
// Unknown (`known` false, `why` says why: no wheels, nvcc refused the file) the model falls back:
// no registers for a CUDA-core kernel, a tensor-core kernel's fragments plus 56, no spills.
struct KernelResources {
  bool known = false;
  std::string why;
  double registers = 0;
  double local_insts_per_product = 0;       // LDL + STL in the hot loop per FFMA / DFMA / MMA there
  double local_wavefronts_per_product = 0;  // their L1 wavefronts: a warp's 4 bytes a lane are 128, one
};

// {"counts": what was counted, "derived": CGMA ratio, per-FMA figures, coalescing, occupancy,
//  "model": {"ms", "bound", per-resource times, "gpu"}} for the product of shape s.
nlohmann::json perf_model(const tlemu::TrafficCounts& c, const Shape& s, const KernelResources& k = {},
                          const ModelGpu& gpu = {});

}  // namespace tilelab
