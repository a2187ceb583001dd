// The performance model (grader/runner/perf_model.hpp): what each counted product and each of nvcc's
// facts is charged. The counts are made up, each case a kernel reduced to what it tests.
#include <doctest/doctest.h>

#include "perf_model.hpp"

using tilelab::KernelResources;
using tilelab::ModelGpu;
using tilelab::perf_model;

namespace {

const tilelab::Shape kShape{256, 192, 384};
const double kFmas = 256.0 * 192 * 384;

// A float32 register-tiled kernel's counts at kShape: 64-thread blocks, few loads per product.
tlemu::TrafficCounts cuda_core_kernel() {
  tlemu::TrafficCounts c;
  c.launches = 1, c.blocks = 6, c.sampled_blocks = 6, c.threads_per_block = 64, c.shared_bytes_per_block = 8448;
  c.barriers_per_block = 48;
  c.global_loads = 2 * 6 * 24 * 16, c.global_load_bytes = 4.0 * (256 * 192 + 192 * 384) * 2;
  c.global_load_sectors = c.global_load_bytes / 32, c.global_wavefronts = c.global_load_bytes / 128;
  c.global_stores = 6 * 2 * 256, c.global_store_sectors = 256 * 384 * 4 / 32.0;
  c.shared_loads = kFmas / 32 / 16, c.shared_wavefronts = kFmas / 32 / 16;
  return c;
}

double ms_of(const nlohmann::json& m, const char* resource) { return m["model"]["ms_by_resource"][resource].get<double>(); }

}  // namespace

TEST_CASE("token tensor products (results never stored into P) take no FP32 time: they add tensor time") {
  const tlemu::TrafficCounts plain = cuda_core_kernel();
  tlemu::TrafficCounts tokens = plain;  // the same kernel and as many mma products, none stored
  tokens.tensor_fmas = kFmas, tokens.tensor_insts = kFmas / 1024, tokens.tensor_fmas_unstored = kFmas;
  tokens.fragment_registers = 6;
  const nlohmann::json a = perf_model(plain, kShape), b = perf_model(tokens, kShape);
  // The FP32 pipe does the whole product either way: at most its peak (4 warp FFMA a clock an SM).
  const ModelGpu g;
  const double fp32_peak_ms = kFmas / 32 / (g.fma_warp_insts_per_clk * g.sms * g.clock_hz) * 1e3;
  CHECK(ms_of(b, "fp32") == doctest::Approx(fp32_peak_ms));
  CHECK(ms_of(b, "fp32") == doctest::Approx(ms_of(a, "fp32")));
  CHECK(ms_of(b, "tensor") > 0);
  CHECK(ms_of(b, "issue") > ms_of(a, "issue"));  // the mma instructions issue too
  CHECK(b["model"]["ms"].get<double>() >= a["model"]["ms"].get<double>());
  CHECK(b["model"]["gflops"].get<double>() <= 2 * kFmas / (fp32_peak_ms * 1e6) * (1 + 1e-9));

  // Stored products stand for the product's: the FP32 pipe then has none of it.
  tlemu::TrafficCounts stored = tokens;
  stored.tensor_fmas_unstored = 0;
  CHECK(ms_of(perf_model(stored, kShape), "fp32") == 0);
}

TEST_CASE("nvcc's registers bind every kernel's blocks per SM (unknown, a CUDA-core kernel takes none)") {
  const tlemu::TrafficCounts c = cuda_core_kernel();
  const nlohmann::json unknown = perf_model(c, kShape);
  CHECK(unknown["derived"]["registers_from"] == "unknown");
  CHECK(unknown["derived"]["blocks_per_sm"] == 24);  // 64 threads, 8.25 KB (+ 1 KB) of 228 KB: 24
  KernelResources k;
  k.known = true, k.registers = 255;  // 64 threads x 255 registers: 16384 a block, 4 an SM
  const nlohmann::json known = perf_model(c, kShape, k);
  CHECK(known["derived"]["registers_from"] == "nvcc");
  CHECK(known["derived"]["registers_per_thread"] == 255);
  CHECK(known["derived"]["blocks_per_sm"] == 4);
  CHECK(ms_of(known, "latency") == doctest::Approx(ms_of(unknown, "latency") * 24 / 4));
}

TEST_CASE("spills: the hot loop's local loads and stores per product are charged for every product") {
  const tlemu::TrafficCounts c = cuda_core_kernel();
  KernelResources none, spills;
  none.known = spills.known = true;
  none.registers = spills.registers = 255;
  spills.local_insts_per_product = 72.0 / 256, spills.local_wavefronts_per_product = 72.0 / 256;
  const nlohmann::json a = perf_model(c, kShape, none), b = perf_model(c, kShape, spills);
  const double per_clock = ModelGpu{}.sms * ModelGpu{}.clock_hz;
  const double local = 72.0 / 256 * kFmas / 32;  // one local request per 256 / 72 warp FFMA
  CHECK(ms_of(b, "issue") - ms_of(a, "issue") == doctest::Approx(local / (3 * per_clock) * 1e3));
  CHECK(ms_of(b, "l1-shared") - ms_of(a, "l1-shared") == doctest::Approx(local / per_clock * 1e3));
  CHECK(b["derived"]["local_requests_per_warp_fma"].get<double>() == doctest::Approx(72.0 / 256));
  CHECK(b["model"]["ms"].get<double>() > a["model"]["ms"].get<double>());
}
