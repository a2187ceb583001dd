// The performance model (perf_model.hpp; docs/performance.md says the same in words).
#include "perf_model.hpp"

#include <algorithm>
#include <cmath>

#include "occupancy.hpp"

namespace tilelab {

nlohmann::json perf_model(const tlemu::TrafficCounts& c, const Shape& s, const KernelResources& k, const ModelGpu& g) {
  const double fmas = double(s.J) * double(s.K) * double(s.L);  // the problem's: FLOPs = 2 * fmas
  const double warp_fmas = fmas / 32;
  const double load_floats = c.global_load_bytes / 4;
  const double sectors = c.global_load_sectors + c.global_store_sectors;
  nlohmann::json counts = {
      {"launches", c.launches}, {"blocks", c.blocks}, {"sampled_blocks", c.sampled_blocks},
      {"threads_per_block", c.threads_per_block}, {"shared_bytes_per_block", c.shared_bytes_per_block},
      {"barriers_per_block", c.barriers_per_block}, {"global_loads", c.global_loads},
      {"global_stores", c.global_stores}, {"global_load_sectors", c.global_load_sectors},
      {"global_store_sectors", c.global_store_sectors}, {"global_load_bytes", c.global_load_bytes},
      {"sampled_global_load_bytes", c.sampled_global_load_bytes},
      {"global_bytes_requested", c.global_bytes_requested}, {"global_wavefronts", c.global_wavefronts},
      {"l2_sectors", c.l2_sectors}, {"shared_loads", c.shared_loads}, {"shared_stores", c.shared_stores},
      {"shared_wavefronts", c.shared_wavefronts}, {"tensor_fmas", c.tensor_fmas}, {"tensor_insts", c.tensor_insts},
      {"tensor_fmas_unstored", c.tensor_fmas_unstored},
      {"staging_phases_per_block", c.staging_phases_per_block}, {"exposed_phases_per_block", c.exposed_phases_per_block},
      {"fragment_registers", c.fragment_registers},
      {"fmas", fmas}, {"flops", 2 * fmas}};

  // Occupancy from the launch, its shared memory and its registers, by the rules the judge's back-end
  // lines use (occupancy.hpp): ptxas's registers for every kernel where nvcc's back end was read;
  // else none for a CUDA-core kernel (the emulator does not know them) and, for a tensor-core
  // kernel, its fragments and held loads and the rest nvcc adds.
  const double warps = std::ceil(c.threads_per_block / 32);  // per block
  double registers = k.known ? k.registers : 0;
  const char* registers_from = k.known ? "nvcc" : "unknown";
  if (!k.known && c.tensor_fmas > 0 && c.threads_per_block > 0)
    registers = std::min(255.0, c.fragment_registers + g.registers_beyond_fragments), registers_from = "fragments";
  auto blocks_with = [&](double regs) {
    return double(tilelab::occupancy(regs, c.threads_per_block, c.shared_bytes_per_block, g).blocks_per_sm);
  };
  // The latency bound's blocks per SM (without nvcc's, no registers: the estimate of a tensor-core
  // kernel's serves its chain alone) and the tensor-core chain's.
  const double blocks_per_sm = blocks_with(k.known ? registers : 0);
  const double occupancy = blocks_per_sm * warps * 32 / g.max_threads_per_sm;
  const double tensor_blocks_per_sm = blocks_with(registers);
  auto per = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  nlohmann::json derived = {
      {"cgma", per(2 * fmas, load_floats)},  // the book's: FLOPs per float loaded from global memory
      {"global_floats_loaded_per_fma", per(load_floats, fmas)},
      {"global_sectors_per_warp_fma", per(sectors, warp_fmas)},
      {"shared_wavefronts_per_warp_fma", per(c.shared_wavefronts, warp_fmas)},
      {"l1_wavefronts_per_warp_fma", per(c.global_wavefronts, warp_fmas)},
      {"coalescing_efficiency", std::min(1.0, per(c.global_bytes_requested, 32 * sectors))},
      {"bank_conflict_degree", per(c.shared_wavefronts, c.shared_loads + c.shared_stores)},
      {"barriers_per_block", c.barriers_per_block},
      {"blocks_per_sm", blocks_per_sm},
      {"occupancy", occupancy},
      {"registers_per_thread", registers},
      {"registers_from", registers_from}};
  if (!k.known) derived["resources_unknown"] = k.why;
  if (c.tensor_fmas > 0) {  // stage 07's figures, only where there are mma_sync products
    derived["exposed_phases_per_block"] = c.exposed_phases_per_block;
    derived["tensor_blocks_per_sm"] = tensor_blocks_per_sm;
    derived["tensor_fmas_unstored"] = c.tensor_fmas_unstored;
  }

  // The time of each resource of the whole GPU; the kernel takes the longest (a roofline).
  const double per_clock = g.sms * g.clock_hz;
  const double compulsory = 4.0 * (double(s.J) * s.K + double(s.K) * s.L + double(s.J) * s.L);
  const double requests = c.global_loads + c.global_stores + c.shared_loads + c.shared_stores;
  // Multiply-adds on tensor cores (mma_sync) are not FP32 instructions: the rest of the product's,
  // one warp FFMA per 32, and the mma instructions issue. Only the tensor products whose results the
  // kernel stored into P stand for the product's (hooks_count.cpp): token mma_syncs add their own
  // time on the tensor cores and in issue and take none from the FP32 pipe.
  const double core_warp_fmas = std::max(0.0, fmas - (c.tensor_fmas - c.tensor_fmas_unstored)) / 32;
  // Spills (nvcc's back end): the hot loop's local loads and stores per product instruction, for
  // every product instruction the kernel runs; each a request on the L1 as a global one is.
  const double local_requests = k.local_insts_per_product * (core_warp_fmas + c.tensor_insts);
  const double local_wavefronts = k.local_wavefronts_per_product * (core_warp_fmas + c.tensor_insts);
  const double t_fma = core_warp_fmas / (g.fma_warp_insts_per_clk * per_clock);
  // The products at the SM's rate, or, when the blocks an SM holds (tensor_blocks_per_sm) cannot
  // hide one another's exposed phases, each block's own chain: its products (at its share of the
  // SM's rate: a block of fewer than 4 warps reaches only that many of the 4 schedulers) and its
  // exposed phases, tensor_blocks_per_sm blocks at a time.
  double t_tensor = c.tensor_fmas / (g.tensor_fmas_per_clk * per_clock);
  if (c.tensor_fmas > 0) {
    const double share = std::min(4.0, warps) / 4;
    const double chain = c.tensor_fmas / (g.tensor_fmas_per_clk * share) + c.blocks * c.exposed_phases_per_block * g.exposed_phase_clk;
    t_tensor = std::max(t_tensor, chain / (std::max(1.0, tensor_blocks_per_sm) * per_clock));
  }
  const double t_issue = (core_warp_fmas + c.tensor_insts + requests + local_requests) / (g.issue_per_clk * per_clock);
  // The L1 data path: a shared wavefront, or a global request's wavefronts -- one per distinct
  // 128-byte line its lanes touch, as Nsight Compute counts them on an H100 (the basic kernel: 3 per
  // warp FMA with 16x16 blocks, 2 with blocks 32 wide; docs/performance.md, "The model").
  const double t_lsu = (c.shared_wavefronts + c.global_wavefronts + local_wavefronts) / (g.wavefronts_per_clk * per_clock);
  const double t_requests = (c.global_loads + c.global_stores + local_requests) * g.global_request_clk / per_clock;
  const double t_l2 = 32 * c.l2_sectors / g.l2_bytes_per_s;
  const double t_dram = compulsory / g.dram_bytes_per_s;
  // Latency (Little's law on phases): an SM holds blocks_per_sm blocks, each needing one round trip
  // per phase, so it finishes at most blocks_per_sm phases per phase_latency_clk.
  const double phases = c.blocks * c.barriers_per_block / 2;
  const double t_latency = blocks_per_sm > 0 ? phases * g.phase_latency_clk / (blocks_per_sm * per_clock) : 0.0;
  const std::pair<const char*, double> bounds[] = {{"fp32", t_fma}, {"tensor", t_tensor}, {"issue", t_issue}, {"l1-shared", t_lsu},
                                                   {"l1-requests", t_requests}, {"l2", t_l2}, {"dram", t_dram},
                                                   {"latency", t_latency}};
  const auto* worst = &bounds[0];
  for (const auto& b : bounds)
    if (b.second > worst->second) worst = &b;
  nlohmann::json times;
  for (const auto& [name, t] : bounds) times[name] = t * 1e3;
  const double ms = worst->second * 1e3;
  if (local_requests > 0) derived["local_requests_per_warp_fma"] = per(local_requests, warp_fmas);
  nlohmann::json model = {{"gpu", g.name}, {"ms", ms}, {"bound", worst->first}, {"ms_by_resource", times},
                          {"gflops", ms > 0 ? 2 * fmas / (ms * 1e6) : 0.0}};
  return {{"counts", counts}, {"derived", derived}, {"model", model}};
}

}  // namespace tilelab
