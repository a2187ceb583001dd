// Datasets: deterministic generation from a spec entry, the float64 CBLAS reference, and the
// folder format (M.npy N.npy P.npy meta.json) documented in datasets/README.md.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tilelab/matrix.hpp"

namespace tilelab {

enum class Distribution { Normal, Uniform, Integer, Wide };  // wide: normal times 2^-20..2^20
Distribution parse_distribution(const std::string& s);
std::string to_string(Distribution d);

struct DatasetSpec {
  std::string stage;
  std::string name;
  Shape shape;
  Distribution distribution = Distribution::Normal;
  uint64_t seed = 0;
  std::vector<std::string> tags;
};

// M (J x K) and N (K x L), zero-mean, a pure function of (distribution, seed, shape).
void generate_inputs(const DatasetSpec& spec, Matrix& M, Matrix& N);

// A B in float64 through CBLAS (|A| |B| when absolute is set: the scale of the error bound).
std::vector<double> product_f64(const Matrix& A, const Matrix& B, bool absolute = false);

Matrix to_f32(const std::vector<double>& v, int64_t rows, int64_t cols);

struct Dataset {
  DatasetSpec spec;
  Matrix M, N;
  std::vector<double> P;      // expected product (float64, or widened from P.npy)
  std::vector<double> absMN;  // |M| |N|, the error bound's scale, where stored (absMN.npy); else empty
};

// |M| |N| of d: the stored one (absMN.npy), or computed now and kept in d.absMN.
const std::vector<double>& abs_product(Dataset& d);

// The timed check's fresh inputs for a performance dataset: the same shape, another seed.
DatasetSpec fresh_spec(const DatasetSpec& d);
// Inputs of d's shape and distribution drawn for one grade (docs/integrity.md, "Public values are
// not the product"): their seed mixes the grading seed with d's own, so no file written before the
// grade can hold them or their product, which differs from d's. The judge's fresh values of a
// public dataset's correctness check and, in a sealed grade, the timed check's fresh inputs.
DatasetSpec graded_spec(const DatasetSpec& d, uint64_t grading_seed);

// A performance dataset's references, made once with it (datasets/README.md): its absMN.npy and
// its fresh inputs in fresh/ (with theirs), so a timed check reads them instead of computing three
// float64 products of 4096^3 (about 4 s of a GPU machine's 16 cores) each time it runs.
void write_perf_references(const std::filesystem::path& dir, Dataset& d);
bool has_perf_references(const std::filesystem::path& dir);

// Generates inputs and the float64 expected product in memory (hidden and fresh-input checks).
Dataset make_dataset(const DatasetSpec& spec);

void write_dataset(const std::filesystem::path& dir, const Dataset& d);
Dataset read_dataset(const std::filesystem::path& dir);

}  // namespace tilelab
