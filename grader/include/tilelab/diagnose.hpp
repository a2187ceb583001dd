// From a failed check to a hint naming the likely bug. Pure function of the inputs, the output
// and the report, so it is unit-tested on planted bugs without any GPU.
#pragma once
#include <string>

#include "tilelab/matrix.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

struct Diagnosis {
  std::string code;  // stable identifier, e.g. "unwritten-edge", "transposed", "race"
  std::string hint;  // one or two sentences a student can act on
};

// absMN is |M||N|, the scale of the check's bound (check_product takes the same).
Diagnosis diagnose(const Matrix& M, const Matrix& N, const Matrix& P, const std::vector<double>& Pref,
                   const std::vector<double>& absMN, const CheckReport& report, const Shape& shape);

// A failed CUDA call, from the runner's message ("kernel launch: cudaErrorInvalidValue (...)"):
// code "cuda-error", with the hint chosen by the error's name.
Diagnosis diagnose_cuda_error(const std::string& message);

}  // namespace tilelab
