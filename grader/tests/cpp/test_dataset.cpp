// Dataset generation is deterministic and zero-mean, the folder format round-trips, and hidden
// datasets follow their rule.
#include <doctest/doctest.h>

#include "doctest_contains.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "tilelab/contract.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/spec.hpp"

using namespace tilelab;
namespace fs = std::filesystem;

TEST_CASE("generation is a pure function of the spec") {
  DatasetSpec s;
  s.shape = {20, 30, 10};
  s.seed = 5;
  Matrix M1, N1, M2, N2;
  generate_inputs(s, M1, N1);
  generate_inputs(s, M2, N2);
  CHECK(M1.data == M2.data);
  CHECK(N1.data == N2.data);
  s.seed = 6;
  generate_inputs(s, M2, N2);
  CHECK(M1.data != M2.data);
  CHECK(M1.data != N1.data);
}

TEST_CASE("each distribution is zero-mean and never constant") {
  for (Distribution d : {Distribution::Normal, Distribution::Uniform, Distribution::Integer}) {
    DatasetSpec s;
    s.shape = {200, 200, 1};
    s.seed = 3;
    s.distribution = d;
    Matrix M, N;
    generate_inputs(s, M, N);
    const double mean = std::accumulate(M.data.begin(), M.data.end(), 0.0) / double(M.size());
    CAPTURE(to_string(d));
    CHECK(std::fabs(mean) < 0.1);
    CHECK(*std::min_element(M.data.begin(), M.data.end()) < 0);
    CHECK(*std::max_element(M.data.begin(), M.data.end()) > 0);
    if (d == Distribution::Integer)
      for (float x : M.data) CHECK(x == std::round(x));
  }
}

TEST_CASE("the float64 reference is exact on integer data") {
  DatasetSpec s;
  s.shape = {17, 33, 9};
  s.seed = 8;
  s.distribution = Distribution::Integer;
  const Dataset d = make_dataset(s);
  for (int64_t i = 0; i < 17; ++i)
    for (int64_t j = 0; j < 9; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < 33; ++k) acc += double(d.M.at(i, k)) * d.N.at(k, j);
      CHECK(d.P[size_t(i * 9 + j)] == acc);
    }
}

TEST_CASE("a dataset folder round-trips, and a damaged one is a clear error") {
  DatasetSpec s;
  s.stage = "01-basic";
  s.name = "rt";
  s.shape = {3, 4, 5};
  s.seed = 1;
  const auto dir = fs::temp_directory_path() / "tilelab_test_dataset";
  fs::remove_all(dir);
  write_dataset(dir, make_dataset(s));
  const Dataset back = read_dataset(dir);
  CHECK(back.spec.shape.J == 3);
  CHECK(back.spec.shape.L == 5);
  CHECK(back.M.rows == 3);
  CHECK(back.P.size() == 15);

  std::ofstream(dir / "meta.json") << R"({"stage": "01-basic", "name": "rt", "J": 3, "K": 4, "L": 6,
                                          "seed": 1, "distribution": "normal"})";
  try {
    read_dataset(dir);
    FAIL("a shape mismatch must be rejected");
  } catch (const BadInput& e) {
    CHECK(std::string(e.what()).find("does not match meta.json") != std::string::npos);
  }
  std::ofstream(dir / "meta.json") << "{ not json";
  CHECK_THROWS_AS(read_dataset(dir), BadInput);
  CHECK_THROWS_AS(read_dataset(dir / "nope"), BadInput);
}

TEST_CASE("a performance dataset's stored references are the ones the timed check would compute") {
  DatasetSpec s;
  s.stage = "02-tiled";
  s.name = "perf";
  s.shape = {33, 47, 29};
  s.seed = 7;
  const auto dir = fs::temp_directory_path() / "tilelab_test_perf_dataset";
  fs::remove_all(dir);
  Dataset made = make_dataset(s);
  write_dataset(dir, made);
  CHECK_FALSE(has_perf_references(dir));
  CHECK(read_dataset(dir).absMN.empty());
  write_perf_references(dir, made);
  REQUIRE(has_perf_references(dir));
  const Dataset back = read_dataset(dir);
  const std::vector<double> exact = product_f64(made.M, made.N, true);
  REQUIRE(back.absMN.size() == exact.size());
  for (size_t e = 0; e < exact.size(); ++e) {  // never below the exact bound, at most one float32 ulp above
    CHECK(back.absMN[e] >= exact[e]);
    CHECK(back.absMN[e] <= double(std::nextafter(float(exact[e]), INFINITY)));
  }
  Dataset stored = back;  // abs_product gives the stored bound, not a new product
  CHECK(&abs_product(stored) == &stored.absMN);
  CHECK(abs_product(stored) == back.absMN);
  Dataset plain = make_dataset(s);  // without one, it computes the exact product and keeps it
  CHECK(abs_product(plain) == exact);
  CHECK(plain.absMN == exact);
  // The fresh inputs are the ones the judge would draw: fresh_spec's seed, their own P and bound.
  const Dataset fresh = read_dataset(dir / "fresh");
  const Dataset drawn = make_dataset(fresh_spec(s));
  CHECK(fresh.spec.seed == drawn.spec.seed);
  CHECK(fresh.spec.seed != s.seed);
  CHECK(fresh.M.data == drawn.M.data);
  CHECK(fresh.N.data == drawn.N.data);
  CHECK(fresh.absMN.size() == exact.size());
  CHECK(fresh.absMN != back.absMN);
  fs::remove_all(dir);
}

TEST_CASE("values drawn for a grade: same shape and distribution, a seed no published file holds") {
  DatasetSpec s;
  s.name = "17x31x13-primes";
  s.shape = {17, 31, 13};
  s.seed = 7;
  s.distribution = Distribution::Integer;
  const DatasetSpec a = graded_spec(s, 424242), again = graded_spec(s, 424242), other = graded_spec(s, 424243);
  CHECK(a.seed == again.seed);  // the same grade draws the same values
  CHECK(a.seed != other.seed);  // another grading seed, other values
  CHECK(a.seed != s.seed);
  CHECK(a.seed != fresh_spec(s).seed);  // not the published fresh inputs either
  CHECK(a.shape.str() == s.shape.str());
  CHECK(a.distribution == s.distribution);
  DatasetSpec t = s;  // another dataset of the same grade: its own values
  t.seed = 8;
  CHECK(graded_spec(t, 424242).seed != a.seed);
  const Dataset published = make_dataset(s), drawn = make_dataset(a);
  CHECK(drawn.M.data != published.M.data);
  CHECK(drawn.P != published.P);
}

namespace {

// A resolved spec as tilelab.specs.codegen writes it (every key present; stage.toml's validation is
// tilelab/specs/spec.py's, tested by test_spec.py), with the given api, datasets and [hidden] rule.
fs::path write_resolved(const std::string& file, const std::string& api, const nlohmann::json& datasets,
                        const nlohmann::json& hidden, const std::string& precision = "float32",
                        const std::string& threads = "element") {
  const nlohmann::json doc = {
      {"schema", kSpecSchema}, {"id", "99-test"}, {"title", "t"}, {"book", ""}, {"api", api},
      {"host_function", false}, {"tile", 16}, {"width_multiple", 1}, {"previous", ""},
      {"requires_shared_memory", false}, {"precision", precision}, {"threads", threads}, {"max_global_loads_per_fma", nullptr},
      {"datasets", datasets}, {"hidden", hidden},
      {"performance", {{"dataset", "a"}, {"full_credit_ratio", 0.9}, {"zero_credit_ratio", 0.5},
                       {"basis", "reference"}, {"min_runs", 3}, {"max_runs", 7}, {"target_rel_stderr", 0.02}}},
      {"points", {{"public", 1.0}, {"hidden", 1.0}, {"host_function", 0.0}, {"performance", 1.0},
                  {"unearnable", "exclude"}, {"safety_penalty", nullptr}}},
      {"timeouts", {{"correct", 60}, {"perf", 300}}}, {"path", ""}};
  const fs::path path = fs::temp_directory_path() / file;
  std::ofstream(path) << doc.dump(2);
  return path;
}

nlohmann::json one_dataset(int64_t side) {
  return nlohmann::json::array(
      {{{"name", "a"}, {"shape", {side, side, side}}, {"distribution", "normal"}, {"seed", 1}, {"tags", {"large"}}}});
}

}  // namespace

TEST_CASE("a resolved spec is read whole") {
  const auto path = write_resolved("tilelab_test_resolved.json", "rect", one_dataset(4), nullptr);
  const StageSpec spec = load_stage_spec(path);
  CHECK(spec.id == "99-test");
  CHECK(spec.api == "rect");
  CHECK(spec.precision == "float32");
  CHECK(spec.threads == "element");
  CHECK(spec.rule.u == ToleranceRule{}.u);
  CHECK(!spec.hidden);
  REQUIRE(spec.datasets.size() == 1);
  CHECK(spec.dataset("a").shape.K == 4);
  CHECK(spec.dataset("a").tags == std::vector<std::string>{"large"});
  CHECK(spec.perf.min_runs == 3);
  CHECK(spec.perf.max_runs == 7);
  CHECK(spec.perf.target_rel_stderr == doctest::Approx(0.02));
}

TEST_CASE("a resolved spec's precision picks its correctness rule, and one it does not know is refused") {
  const StageSpec tf32 = load_stage_spec(write_resolved("tilelab_test_tf32.json", "rect", one_dataset(4), nullptr, "tf32"));
  CHECK(tf32.rule.u == ToleranceRule::of("tf32").u);
  CHECK(tf32.rule.fro_limit(1) == ToleranceRule::of("tf32").fro_limit(1));
  CHECK_THROWS_AS(load_stage_spec(write_resolved("tilelab_test_fp8.json", "rect", one_dataset(4), nullptr, "fp8")), BadInput);
  // threads: what one thread computes; a value the judge does not know is refused, not ignored.
  CHECK(load_stage_spec(write_resolved("tilelab_test_rows.json", "rect", one_dataset(4), nullptr, "float32", "row-or-column"))
            .threads == "row-or-column");
  CHECK_THROWS_AS(load_stage_spec(write_resolved("tilelab_test_tile.json", "rect", one_dataset(4), nullptr, "float32", "tile")),
                  BadInput);
}

TEST_CASE("hidden datasets follow the rule and depend on the seed") {
  const auto path = write_resolved(
      "tilelab_test_stage.json", "square", one_dataset(4),
      {{"rule", "widths in [1, 300], none a multiple of 8"}, {"count", 5}, {"min", 1}, {"max", 300},
       {"avoid_multiple_of", 8}, {"multiple_of", 1}, {"distribution", "normal"}});
  const StageSpec spec = load_stage_spec(path);
  for (int i = 0; i < 5; ++i) {
    const DatasetSpec h = spec.hidden_dataset(42, i);
    CHECK(h.shape.square());
    CHECK(h.shape.K >= 1);
    CHECK(h.shape.K <= 300);
    CHECK(h.shape.K % 8 != 0);
    CHECK(spec.hidden_dataset(42, i).shape.K == h.shape.K);
  }
  bool differs = false;
  for (int i = 0; i < 5; ++i) differs = differs || spec.hidden_dataset(42, i).shape.K != spec.hidden_dataset(43, i).shape.K;
  CHECK(differs);
  CHECK_THROWS_AS(spec.hidden_dataset(42, 5), BadInput);
}

TEST_CASE("hidden sizes can be restricted to multiples of a tile") {
  const auto path = write_resolved(
      "tilelab_test_multiple.json", "rect", one_dataset(32),
      {{"rule", "multiples of 32 in [32, 1536]"}, {"count", 6}, {"min", 20}, {"max", 1536},
       {"avoid_multiple_of", 0}, {"multiple_of", 32}, {"distribution", "normal"}});
  const StageSpec spec = load_stage_spec(path);
  for (int i = 0; i < 6; ++i) {
    const Shape s = spec.hidden_dataset(7, i).shape;
    for (int64_t v : {s.J, s.K, s.L}) {
      CHECK(v % 32 == 0);
      CHECK(v >= 32);
      CHECK(v <= 1536);
    }
  }
}

TEST_CASE("--spec takes the resolved spec, and says so when given anything else") {
  const auto path = fs::temp_directory_path() / "tilelab_test_bad.toml";
  std::ofstream(path) << "[stage]\nid = \"x\"\napi = \"square\"\n";
  CHECK_THROWS_CONTAINING(load_stage_spec(path), "generated/stages/<stage>.json", BadInput);
  std::ofstream(path) << nlohmann::json{{"schema", kResultSchema}, {"id", "x"}}.dump();
  CHECK_THROWS_CONTAINING(load_stage_spec(path), "not a resolved stage spec", BadInput);
  std::ofstream(path) << nlohmann::json{{"schema", kSpecSchema}, {"id", "x"}}.dump();
  CHECK_THROWS_CONTAINING(load_stage_spec(path), "reconfigure", BadInput);
  CHECK_THROWS_CONTAINING(load_stage_spec(fs::temp_directory_path() / "tilelab_no_such.json"),
                       "cannot read", BadInput);
}

TEST_CASE("every stage's generated spec loads (what codegen writes, C++ reads)") {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TILELAB_GENERATED_DIR) / "stages")) {
    const StageSpec spec = load_stage_spec(entry.path());
    CHECK(spec.id == entry.path().stem().string());
    CHECK(!spec.datasets.empty());
    spec.dataset(spec.perf.dataset);  // throws when the performance dataset is missing
    if (spec.hidden)
      for (int i = 0; i < spec.hidden->count; ++i) CHECK(spec.hidden_dataset(1, i).shape.J >= spec.hidden->min);
    ++seen;
  }
  CHECK(seen > 0);
}
