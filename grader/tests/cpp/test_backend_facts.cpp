// nvcc's back end in the model's result (grader/runner/backend_facts.hpp): the Backend object from a
// facts document, and what a missing or unread document gives.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "backend_facts.hpp"

using tilelab::attach_backend;
using tilelab::backend_of;
using tilelab::resources_of;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("the Backend object takes the main kernel's facts and the counted launch") {
  const std::string path = write_temp("tilelab-backend-facts-test.json", R"J({
    "schema": "tilelab-sass-facts/1", "read": true, "nvcc": "nvcc 13.5 (V13.5.37)", "main": "_Zk",
    "kernels": {"_Zk": {"name": "k()", "registers": 130, "spill_store_bytes": 8, "spill_load_bytes": 4,
                        "stack_frame_bytes": 8, "static_shared_bytes": 33280, "max_threads_per_block": 0,
                        "hot_loop": {"ffma": 64, "lds": 16, "total": 90}},
                "_Zother": {"name": "other()", "registers": 16}}})J");
  const nlohmann::json counts = {{"threads_per_block", 256.0}, {"shared_bytes_per_block", 33280.0}};
  const nlohmann::json b = backend_of(path, counts);
  CHECK(b["read"] == true);
  CHECK(b["kernel"] == "k()");
  CHECK(b["kernels"] == 2);
  CHECK(b["registers_per_thread"] == 130);
  CHECK(b["spill_store_bytes"] == 8);
  CHECK(b["local_bytes_per_thread"] == 8);
  CHECK(b["blocks_per_sm"] == 1);
  CHECK(b["binding_limit"] == "registers");
  CHECK(b["hot_loop"]["ffma"] == 64);

  nlohmann::json model = {{"counts", counts}, {"derived", nlohmann::json::object()}, {"model", {{"ms", 1.0}}}};
  attach_backend(model, path);
  CHECK(model["graded_by"] == "traffic+sass");
  CHECK(model["model"]["ms"] == 1.0);  // the modelled time is not changed
  std::remove(path.c_str());
}

TEST_CASE("without facts the model is the traffic model and says why") {
  nlohmann::json model = {{"counts", nlohmann::json::object()}};
  attach_backend(model, "");
  CHECK(model["graded_by"] == "traffic");
  CHECK(model["backend"]["read"] == false);
  CHECK(model["backend"]["why"].get<std::string>().find("wheels were not found") != std::string::npos);

  attach_backend(model, "/nonexistent/facts.json");
  CHECK(model["backend"]["why"].get<std::string>().find("no facts") != std::string::npos);

  const std::string path = write_temp("tilelab-backend-facts-unread.json",
                                      R"J({"read": false, "why": "nvcc did not compile the file: error"})J");
  attach_backend(model, path);
  CHECK(model["graded_by"] == "traffic");
  CHECK(model["backend"]["why"] == "nvcc did not compile the file: error");
  std::remove(path.c_str());
}

TEST_CASE("the model charges the main kernel's registers and its hot loop's spills per product instruction") {
  const std::string path = write_temp("tilelab-backend-facts-resources.json", R"J({
    "schema": "tilelab-sass-facts/1", "read": true, "main": "_Zk",
    "kernels": {"_Zk": {"name": "k()", "registers": 255, "spill_store_bytes": 320, "spill_load_bytes": 308,
                        "hot_loop": {"ffma": 256, "products": 256, "ldl": 36, "stl": 36,
                                     "ldl_by_width": {"32": 32, "128": 4}, "stl_by_width": {"32": 36}}}}})J");
  const tilelab::KernelResources k = resources_of(path);
  CHECK(k.known);
  CHECK(k.registers == 255);
  CHECK(k.local_insts_per_product == doctest::Approx(72.0 / 256));
  CHECK(k.local_wavefronts_per_product == doctest::Approx((32 + 4 * 4 + 36) / 256.0));  // LDL.128: 4 wavefronts
  std::remove(path.c_str());

  const tilelab::KernelResources none = resources_of("");
  CHECK_FALSE(none.known);
  CHECK(none.why.find("wheels were not found") != std::string::npos);
  CHECK_FALSE(resources_of("/nonexistent/facts.json").known);
}
