// sm_90's occupancy rules (grader/runner/occupancy.hpp), on the cases the Python reader
// (grader/tilelab/run/occupancy.py, test_sass.py) is tested on too.
#include <fstream>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "occupancy.hpp"

using tilelab::occupancy;
using tilelab::occupancy_limits;

TEST_CASE("blocks per SM follow sm_90's occupancy rules on the cases occupancy.py is tested on") {
  std::ifstream in(std::string(TILELAB_TESTS_DIR) + "/python/data/occupancy-cases.json");
  REQUIRE(in);
  const auto cases = nlohmann::json::parse(in)["cases"];
  REQUIRE(cases.size() >= 10);
  for (const auto& c : cases) {
    const auto o = occupancy(c["registers"].get<double>(), c["threads"].get<double>(), c["shared_bytes"].get<double>());
    INFO(c.dump());
    CHECK(o.blocks_per_sm == c["blocks_per_sm"].get<int64_t>());
    CHECK(o.binding_limit == c["binding_limit"].get<std::string>());
  }
}

TEST_CASE("each resource's limit") {
  // Walkthrough 06 section 6: 128 registers, 256 threads, 33280 bytes.
  auto l = occupancy_limits(128, 256, 33280);
  CHECK(l["registers"] == 2);
  CHECK(l["shared_memory"] == 6);
  CHECK(l["threads"] == 8);
  CHECK(l["blocks"] == 32);
  CHECK(occupancy_limits(0, 256, 0)["registers"] == 32);  // unknown registers: not a limit
  CHECK(occupancy(128, 0, 0).blocks_per_sm == 0);          // no threads: no block
}
