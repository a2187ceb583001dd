// The performance model's grid at the timed shape (grader/runner/grid_parallelism.hpp): the counts of
// a small shape are charged by the SMs the grid the code launches at the timed shape keeps busy.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "grid_parallelism.hpp"
#include "perf_model.hpp"

using tilelab::charge_timed_grid;
using tilelab::perf_model;

namespace {

// 06's reference as the count build counts it at a small shape (6 blocks of 256 threads): the
// traffic, not the grid, decides its modelled time.
nlohmann::json tiled_model() {
  tlemu::TrafficCounts c;
  c.launches = 1, c.blocks = 6, c.sampled_blocks = 6, c.threads_per_block = 256, c.shared_bytes_per_block = 16384;
  c.barriers_per_block = 6, c.global_loads = 3000, c.global_stores = 800, c.global_load_sectors = 24000;
  c.global_store_sectors = 3200, c.global_bytes_requested = 880000, c.global_load_bytes = 770000;
  c.global_wavefronts = 7000, c.l2_sectors = 30000, c.shared_loads = 150000, c.shared_stores = 3000;
  c.shared_wavefronts = 160000;
  return perf_model(c, {240, 190, 360});
}

nlohmann::json launch(unsigned gx, unsigned gy = 1) {
  return {{"observed", true}, {"grid", {gx, gy, 1}}, {"block", {256, 1, 1}}, {"dynamic_shared_bytes", 0}};
}

double charged_ms(const nlohmann::json& l) {
  nlohmann::json m = tiled_model();
  charge_timed_grid(m, l, {4096, 4096, 4096});
  return m["model"]["ms"].get<double>();
}

}  // namespace

TEST_CASE("a grid that fills every SM at the timed shape keeps the model's time and bound") {
  const nlohmann::json before = tiled_model();
  for (const nlohmann::json& l : {launch(32, 32), launch(264), launch(132)}) {  // tiles; grid-stride over 2 x SMs; one an SM
    nlohmann::json m = before;
    charge_timed_grid(m, l, {4096, 4096, 4096});
    INFO(l.dump());
    CHECK(m["model"]["ms"] == before["model"]["ms"]);
    CHECK(m["model"]["bound"] == before["model"]["bound"]);
    CHECK(m["timed_grid"]["factor"] == 1.0);
  }
}

TEST_CASE("one persistent block is charged as one SM of 132: no credit beside the same traffic on a full grid") {
  const double full = charged_ms(launch(32, 32)), one = charged_ms(launch(1));
  CHECK(full / one == doctest::Approx(1.0 / 132));
  CHECK(full / one < 0.33);  // 06's zero-credit ratio
  nlohmann::json m = tiled_model();
  charge_timed_grid(m, launch(1), {4096, 4096, 4096});
  CHECK(m["timed_grid"]["blocks"] == 1.0);
  CHECK(m["timed_grid"]["sms_busy"] == 1.0);
  CHECK(m["timed_grid"]["factor"] == 132.0);
}

TEST_CASE("a grid capped below the SM count is charged by the SMs it keeps busy") {
  CHECK(charged_ms(launch(32, 32)) / charged_ms(launch(64)) == doctest::Approx(64.0 / 132));
}

TEST_CASE("a launch not seen at the timed shape is charged as one block") {
  CHECK(charged_ms({{"observed", false}}) == doctest::Approx(charged_ms(launch(1))));
  CHECK(charged_ms(nullptr) == doctest::Approx(charged_ms(launch(1))));
}

TEST_CASE("DRAM is the chip's: a one-block grid's DRAM time is not multiplied") {
  nlohmann::json m = tiled_model();
  const double dram = m["model"]["ms_by_resource"]["dram"].get<double>();
  charge_timed_grid(m, launch(1), {4096, 4096, 4096});
  CHECK(m["model"]["ms_by_resource"]["dram"].get<double>() == dram);
}
