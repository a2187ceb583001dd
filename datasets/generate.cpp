// tilelab-datagen: writes a stage's public datasets (datasets/README.md) from its resolved spec.
//   tilelab-datagen --spec build/default/generated/stages/01-basic.json --out build/datasets/01-basic [--only NAME]
//                   [--skip-tag TAG ...] [--max-size S]
// A tree without the GPU backend never reads the performance dataset (4096^3: 200 MB and seconds of
// float64 reference product per stage) nor one larger than the emulator checks, so it passes
// --skip-tag perf --max-size TILELAB_EMU_MAX_SIZE. --max-size S leaves out a dataset only when
// J*K*L > (S+1)^3, so every dataset whose size (the rounded cube root, codegen.py) is at most S
// is still written.
// A dataset whose meta.json already matches its spec entry is left alone, so rebuilding is cheap.
// A performance dataset (tag perf) also gets its timed check's references, made once here
// (write_perf_references: absMN.npy and fresh/).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tilelab/dataset.hpp"
#include "tilelab/contract.hpp"
#include "tilelab/spec.hpp"

namespace {

bool up_to_date(const std::filesystem::path& dir, const tilelab::DatasetSpec& d) {
  std::ifstream in(dir / "meta.json");
  if (!in) return false;
  try {
    nlohmann::json m;
    in >> m;
    for (const char* f : {"M.npy", "N.npy", "P.npy"})
      if (!std::filesystem::exists(dir / f)) return false;
    return m.at("J") == d.shape.J && m.at("K") == d.shape.K && m.at("L") == d.shape.L &&
           m.at("seed") == d.seed && m.at("distribution") == tilelab::to_string(d.distribution);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generate a stage's public datasets from its resolved spec (written from stage.toml at configure time)"};
  std::string spec_path, out_dir, only;
  std::vector<std::string> skip_tags;
  int64_t max_size = 0;
  app.add_option("--spec", spec_path, "the stage's resolved spec, <build>/generated/stages/<stage>.json")->required()->check(CLI::ExistingFile);
  app.add_option("--out", out_dir, "output folder (one subfolder per dataset)")->required();
  app.add_option("--only", only, "generate only this dataset");
  app.add_option("--skip-tag", skip_tags, "leave out the datasets with this tag (repeatable)");
  app.add_option("--max-size", max_size, "leave out the datasets with J*K*L > (S+1)^3 (0: none)")
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : tilelab::kBadInput;
  }
  try {
    const tilelab::StageSpec spec = tilelab::load_stage_spec(spec_path);
    for (const auto& d : spec.datasets) {
      if (!only.empty() && d.name != only) continue;
      if (std::any_of(d.tags.begin(), d.tags.end(), [&](const std::string& tag) {
            return std::find(skip_tags.begin(), skip_tags.end(), tag) != skip_tags.end();
          }))
        continue;
      const double work = double(d.shape.J) * double(d.shape.K) * double(d.shape.L);
      if (max_size > 0 && work > std::pow(double(max_size + 1), 3)) continue;
      const auto dir = std::filesystem::path(out_dir) / d.name;
      const bool perf = std::find(d.tags.begin(), d.tags.end(), "perf") != d.tags.end();
      if (up_to_date(dir, d) && (!perf || tilelab::has_perf_references(dir))) continue;
      const auto t0 = std::chrono::steady_clock::now();
      tilelab::Dataset data = tilelab::make_dataset(d);
      tilelab::write_dataset(dir, data);
      if (perf) tilelab::write_perf_references(dir, data);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cout << spec.id << "/" << d.name << " (" << d.shape.str() << ", " << tilelab::to_string(d.distribution)
                << ") in " << s << " s\n";
    }
  } catch (const tilelab::BadInput& e) {
    std::cerr << "tilelab-datagen: " << e.what() << "\n";
    return tilelab::kBadInput;
  }
  return 0;
}
