// The JSON result: field names the Python grader relies on, and non-finite numbers as strings.
#include <doctest/doctest.h>

#include <fstream>
#include <limits>

#include "tilelab/diagnose.hpp"
#include "tilelab/result.hpp"
#include "tilelab/result_schema.hpp"

using namespace tilelab;

TEST_CASE("a check report serialises every field the grader reads") {
  CheckReport r;
  r.pass = false;
  r.checked = 100;
  r.wrong = 2;
  r.not_finite = 1;
  r.rel_fro_error = std::numeric_limits<double>::infinity();
  r.first_wrong = {{1, 2, 3.0, std::numeric_limits<double>::quiet_NaN(), 1e-6}};
  r.wrong_rows = {{1, 1}};
  const auto j = to_json(r);
  CHECK(j["pass"] == false);
  CHECK(j["wrong"] == 2);
  CHECK(j["rel_fro_error"] == "inf");
  CHECK(j["first_wrong"][0]["actual"] == "nan");
  CHECK(j["first_wrong"][0]["row"] == 1);
  CHECK(j["wrong_rows"][0][1] == 1);
  CHECK_FALSE(j.contains("wrong_map"));  // no map without cells
  // Valid JSON throughout (no bare NaN tokens).
  CHECK_NOTHROW(nlohmann::json::parse(j.dump()));
  r.wrong_map = {2, 1, {"01", "20"}};
  const auto m = to_json(r)["wrong_map"];
  CHECK(m["cell_rows"] == 2);
  CHECK(m["rows"][1] == "20");
}

TEST_CASE("verdict names match the exit codes") {
  CHECK(std::string(verdict_name(kPass)) == "pass");
  CHECK(std::string(verdict_name(kWrong)) == "wrong");
  CHECK(std::string(verdict_name(kSkipped)) == "skipped");
  CHECK(std::string(verdict_name(ExitCode(99))) == "crash");
}

TEST_CASE("a finding's advice: its variant's own text, else its code's, else the default (contract.toml [findings])") {
  const std::string plain = finding_advice("uninitialized-shared");
  CHECK(plain.find("reaches P") != std::string::npos);
  CHECK(std::string(finding_advice("uninitialized-shared", "warning")).find("no points are lost") != std::string::npos);
  CHECK(std::string(finding_advice("undefined-behavior", "misaligned")).find("cudaErrorMisalignedAddress") != std::string::npos);
  CHECK(std::string(finding_advice("undefined-behavior")).find("signed integer overflow") != std::string::npos);
  CHECK(finding_advice("uninitialized-shared", "no-such-variant") == plain);   // a variant without text: the code's
  CHECK(std::string(finding_advice("out-of-bounds-global")) == hints::kGlobalOverrun.text);  // same_as
  CHECK(std::string(finding_advice("no-such-code", "misaligned")) == kFindingAdviceDefault);
}

TEST_CASE("a hint code is a declared constant: a fixed one carries its text, a composed one only its code") {
  const Diagnosis fixed = hints::kInputsModified;
  CHECK(fixed.code == "inputs-modified");
  CHECK(fixed.hint == hints::kInputsModified.text);
  const Diagnosis composed{hints::kTransposed, "P holds the transpose."};
  CHECK(composed.code == "transposed");
  CHECK(Diagnosis::of_host(composed, "matmul_host: x").code == "host-transposed");
  CHECK(Diagnosis{}.code.empty());
}

TEST_CASE("results are written whole") {
  const auto p = std::filesystem::temp_directory_path() / "tilelab_test_result" / "r.json";
  write_result(p, {{"schema", kResultSchema}, {"verdict", "pass"}});
  std::ifstream in(p);
  const auto j = nlohmann::json::parse(in);
  CHECK(j["schema"] == kResultSchema);
  CHECK_FALSE(std::filesystem::exists(p.string() + ".tmp"));
}

// A hidden dataset's comparison (CheckReport::values_withheld, set by the judge): where P is wrong
// and how, never a value -- a kernel could otherwise write the hidden inputs, or anything it read,
// into P and read them back from its own failure (issue #39).
TEST_CASE("a hidden dataset's report holds positions and counts, no value") {
  CheckReport r;
  r.checked = 100;
  r.wrong = 2;
  r.max_abs_error = 1234.5;
  r.max_error_ratio = 77.0;
  r.rel_fro_error = 0.25;
  r.first_wrong = {{1, 2, 3.0, 7654321.0, 1e-6}};
  r.wrong_rows = {{1, 1}};
  r.values_withheld = true;
  const auto j = to_json(r);
  CHECK(j["values_withheld"] == true);
  CHECK(j["first_wrong"][0]["row"] == 1);
  CHECK(j["first_wrong"][0]["col"] == 2);
  CHECK(j["wrong"] == 2);
  CHECK(j["wrong_rows"][0][1] == 1);
  for (const char* k : {"max_abs_error", "max_error_ratio", "rel_fro_error"}) CHECK_FALSE(j.contains(k));
  for (const char* k : {"expected", "actual", "allowed"}) CHECK_FALSE(j["first_wrong"][0].contains(k));
  const std::string text = j.dump();
  for (const char* v : {"7654321", "1234.5", "0.25", "77"}) CHECK(text.find(v) == std::string::npos);
  r.values_withheld = false;  // a public dataset's keeps today's feedback
  CHECK(to_json(r)["first_wrong"][0]["actual"] == 7654321.0);
  CHECK(to_json(r)["rel_fro_error"] == 0.25);
}

TEST_CASE("a hidden dataset's report holds positions and counts, never a value") {
  CheckReport r;
  r.pass = false;
  r.values_withheld = true;
  r.first_wrong = {{1, 2, 3.0, 4.0, 1e-6}};
  const auto j = to_json(r);
  CHECK(j["values_withheld"] == true);
  CHECK(j["first_wrong"][0].dump() == R"({"col":2,"row":1})");
  for (const char* k : {"max_abs_error", "max_error_ratio", "rel_fro_error"}) CHECK_FALSE(j.contains(k));
}

TEST_CASE("the result writer writes the schema's fields with their types, NaN as a string") {
  nlohmann::json doc;
  schema::Writer<schema::Result> r(doc);
  r.set(schema::result::verdict, "pass").set(schema::result::exit_code, 0);
  auto timing = r.at(schema::result::timing);
  timing.set(schema::timing::ratio_to_reference, std::numeric_limits<double>::quiet_NaN());
  timing.entry(schema::timing::impls, "solution").set(schema::impl_timing::runs, 3);
  r.at(schema::result::shape).set(schema::shape::J, int64_t(2));
  CHECK(r.has(schema::result::verdict));
  CHECK_FALSE(r.has(schema::result::hint));
  CHECK(doc.dump() == R"({"exit_code":0,"shape":{"J":2},"timing":{"impls":{"solution":{"runs":3}},)"
                      R"("ratio_to_reference":"nan"},"verdict":"pass"})");
  r.clear();
  CHECK(doc.dump() == "{}");
}
