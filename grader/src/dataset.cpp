#include "tilelab/dataset.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>
#include "tilelab/random.hpp"
#include <fstream>
#include <nlohmann/json.hpp>

#include "tilelab/npy.hpp"

namespace tilelab {
namespace {

double unit(uint64_t bits) { return double(bits >> 11) * 0x1p-53; }  // [0, 1)

float draw(Distribution d, uint64_t key, uint64_t e) {
  const uint64_t a = mix(key ^ mix(2 * e));
  switch (d) {
    case Distribution::Uniform:
      return float(2.0 * unit(a) - 1.0);
    case Distribution::Integer:  // -8..8: every partial sum is exact in float32 for K < 2^18
      return float(int64_t(a % 17) - 8);
    case Distribution::Normal:
    case Distribution::Wide: {  // Box-Muller
      const uint64_t key_b = key ^ mix(2 * e + 1), b = mix(key_b);
      const double r = std::sqrt(-2.0 * std::log1p(-unit(a)));
      const double x = r * std::cos(2.0 * M_PI * unit(b));
      if (d == Distribution::Normal) return float(x);
      // Times 2^s, s uniform in -20..20: magnitudes float32 and TF32 hold (8 exponent bits) and
      // half precision does not (largest 65504, smallest normal 2^-14).
      return float(std::ldexp(x, int(mix(key_b ^ 0x5bd1e995u) % 41) - 20));
    }
  }
  return 0.0f;
}

// Element e's value depends on (key, e) alone, so the matrix is the same for any number of threads;
// split over the cores, as one core takes about a second for a 4096x4096 normal matrix, which every
// timed check's fresh inputs wait for.
void fill(Matrix& m, Distribution d, uint64_t key) {
  const size_t n = m.size();
  const size_t parts = std::clamp<size_t>(n >> 16, 1, std::max(1u, std::thread::hardware_concurrency()));
  auto part = [&](size_t p) {
    for (size_t e = n * p / parts; e < n * (p + 1) / parts; ++e) m.data[e] = draw(d, key, e);
  };
  std::vector<std::thread> others;
  for (size_t p = 1; p < parts; ++p) others.emplace_back(part, p);
  part(0);
  for (auto& t : others) t.join();
}

}  // namespace

std::string Shape::str() const {
  return std::to_string(J) + "x" + std::to_string(K) + "x" + std::to_string(L);
}

Distribution parse_distribution(const std::string& s) {
  if (s == "normal") return Distribution::Normal;
  if (s == "uniform") return Distribution::Uniform;
  if (s == "integer") return Distribution::Integer;
  if (s == "wide") return Distribution::Wide;
  throw BadInput("unknown distribution '" + s + "' (expected normal, uniform, integer or wide)");
}

std::string to_string(Distribution d) {
  switch (d) {
    case Distribution::Normal: return "normal";
    case Distribution::Uniform: return "uniform";
    case Distribution::Integer: return "integer";
    case Distribution::Wide: return "wide";
  }
  return "?";
}

void generate_inputs(const DatasetSpec& spec, Matrix& M, Matrix& N) {
  M = Matrix(spec.shape.J, spec.shape.K);
  N = Matrix(spec.shape.K, spec.shape.L);
  fill(M, spec.distribution, mix(spec.seed * 2 + 0));
  fill(N, spec.distribution, mix(spec.seed * 2 + 1));
}

std::vector<double> product_f64(const Matrix& A, const Matrix& B, bool absolute) {
  if (A.cols != B.rows) throw std::logic_error("product_f64: inner dimensions differ");
  std::vector<double> a(A.data.begin(), A.data.end()), b(B.data.begin(), B.data.end());
  if (absolute) {
    for (auto& x : a) x = std::fabs(x);
    for (auto& x : b) x = std::fabs(x);
  }
  std::vector<double> c(size_t(A.rows * B.cols));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(A.rows), int(B.cols), int(A.cols),
              1.0, a.data(), int(A.cols), b.data(), int(B.cols), 0.0, c.data(), int(B.cols));
  return c;
}

Matrix to_f32(const std::vector<double>& v, int64_t rows, int64_t cols) {
  Matrix m(rows, cols);
  for (size_t e = 0; e < v.size(); ++e) m.data[e] = float(v[e]);
  return m;
}

Dataset make_dataset(const DatasetSpec& spec) {
  Dataset d;
  d.spec = spec;
  generate_inputs(spec, d.M, d.N);
  d.P = product_f64(d.M, d.N);
  return d;
}

const std::vector<double>& abs_product(Dataset& d) {
  if (d.absMN.empty()) d.absMN = product_f64(d.M, d.N, true);
  return d.absMN;
}

DatasetSpec fresh_spec(const DatasetSpec& d) {
  DatasetSpec f = d;
  f.seed ^= 0x5EEDF2E5ull;
  f.name += "-fresh";
  return f;
}

DatasetSpec graded_spec(const DatasetSpec& d, uint64_t grading_seed) {
  DatasetSpec f = fresh_spec(d);
  f.seed = mix(f.seed ^ mix(grading_seed ^ 0x475241444544ull));  // "GRADED"
  return f;
}

namespace {
// |M||N| stored as float32, each element rounded up, so the stored bound is never below the exact
// one (at most one float32 ulp, 6e-8 relative, above it).
Matrix rounded_up(const std::vector<double>& v, int64_t rows, int64_t cols) {
  Matrix m(rows, cols);
  for (size_t e = 0; e < v.size(); ++e) {
    float f = float(v[e]);
    if (double(f) < v[e]) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    m.data[e] = f;
  }
  return m;
}
}  // namespace

void write_perf_references(const std::filesystem::path& dir, Dataset& d) {
  const Shape& s = d.spec.shape;
  write_npy(dir / "absMN.npy", rounded_up(abs_product(d), s.J, s.L));
  Dataset fresh = make_dataset(fresh_spec(d.spec));
  write_dataset(dir / "fresh", fresh);
  write_npy(dir / "fresh" / "absMN.npy", rounded_up(abs_product(fresh), s.J, s.L));
}

bool has_perf_references(const std::filesystem::path& dir) {
  return std::filesystem::exists(dir / "absMN.npy") && std::filesystem::exists(dir / "fresh" / "absMN.npy");
}

void write_dataset(const std::filesystem::path& final_dir, const Dataset& d) {
  // Written beside its final place and renamed into it, so build trees that share a datasets
  // folder never see half a dataset; when two write the same one, the first rename wins.
  namespace fs = std::filesystem;
  const fs::path dir = final_dir.string() + ".tmp" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_npy(dir / "M.npy", d.M);
  write_npy(dir / "N.npy", d.N);
  write_npy(dir / "P.npy", to_f32(d.P, d.spec.shape.J, d.spec.shape.L));
  nlohmann::json meta = {{"stage", d.spec.stage}, {"name", d.spec.name},
                         {"J", d.spec.shape.J},   {"K", d.spec.shape.K},
                         {"L", d.spec.shape.L},   {"seed", d.spec.seed},
                         {"distribution", to_string(d.spec.distribution)},
                         {"tags", d.spec.tags}};
  std::ofstream(dir / "meta.json") << meta.dump(2) << "\n";
  fs::remove_all(final_dir);  // a stale or partial dataset of an older spec
  std::error_code ec;
  fs::rename(dir, final_dir, ec);
  if (ec) fs::remove_all(dir);  // another writer put the same dataset there first
}

Dataset read_dataset(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw BadInput(dir.string() + ": dataset folder not found (build the 'datasets' target)");
  Dataset d;
  std::ifstream in(dir / "meta.json");
  if (!in) throw BadInput((dir / "meta.json").string() + ": cannot open file");
  nlohmann::json meta;
  try {
    in >> meta;
    d.spec.stage = meta.at("stage").get<std::string>();
    d.spec.name = meta.at("name").get<std::string>();
    d.spec.shape = {meta.at("J").get<int64_t>(), meta.at("K").get<int64_t>(),
                    meta.at("L").get<int64_t>()};
    d.spec.seed = meta.at("seed").get<uint64_t>();
    d.spec.distribution = parse_distribution(meta.at("distribution").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw BadInput((dir / "meta.json").string() + ": " + e.what());
  }
  d.M = read_npy(dir / "M.npy");
  d.N = read_npy(dir / "N.npy");
  const Matrix P = read_npy(dir / "P.npy");
  const Shape& s = d.spec.shape;
  auto expect = [&](const Matrix& m, int64_t r, int64_t c, const char* name) {
    if (m.rows != r || m.cols != c)
      throw BadInput((dir / name).string() + ": shape (" + std::to_string(m.rows) + ", " +
                     std::to_string(m.cols) + ") does not match meta.json (" + std::to_string(r) +
                     ", " + std::to_string(c) + ")");
  };
  expect(d.M, s.J, s.K, "M.npy");
  expect(d.N, s.K, s.L, "N.npy");
  expect(P, s.J, s.L, "P.npy");
  d.P.assign(P.data.begin(), P.data.end());
  if (std::filesystem::exists(dir / "absMN.npy")) {
    const Matrix a = read_npy(dir / "absMN.npy");
    expect(a, s.J, s.L, "absMN.npy");
    d.absMN.assign(a.data.begin(), a.data.end());
  }
  return d;
}

}  // namespace tilelab
