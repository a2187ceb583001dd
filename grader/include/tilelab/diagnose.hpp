// From a failed check to a hint naming the likely bug. Pure function of the inputs, the output
// and the report, so it is unit-tested on planted bugs without any GPU.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "tilelab/contract.hpp"
#include "tilelab/matrix.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab {

// A hint code and its hint. Made only from a code contract.toml [hints] declares (the generated
// hints::k<Code>), so a diagnosis cannot carry an undeclared code; empty where nothing is wrong.
struct Diagnosis {
  std::string code;  // its hint_code, e.g. "transposed", "race"
  std::string hint;  // one or two sentences a student can act on

  Diagnosis() = default;
  Diagnosis(HintCode c, std::string composed) : code(c.code), hint(std::move(composed)) {}
  Diagnosis(const Hint& h) : code(h.code), hint(h.text) {}  // NOLINT: a fixed hint is a diagnosis
  // matmul_host's wrong result where launch_matmul's was right: the code of what its P showed,
  // as `host-<code>` (contract.toml [hints]' header), with the hint the runner words for it.
  static Diagnosis of_host(const Diagnosis& d, std::string hint) {
    Diagnosis h;
    h.code = "host-" + d.code;
    h.hint = std::move(hint);
    return h;
  }
};

// absMN is |M||N|, the scale of the check's bound (check_product takes the same).
Diagnosis diagnose(const Matrix& M, const Matrix& N, const Matrix& P, const std::vector<double>& Pref,
                   const std::vector<double>& absMN, const CheckReport& report, const Shape& shape);

// "grid-too-small" made specific with what was launched (the last launch's grid and block, x y z):
// the rows and columns it covers against P's, what covering P needs with this block, and which
// mistake it looks like -- rounded-down block counts, x and y swapped, a 1-D launch for a 2-D P.
Diagnosis grid_coverage(const Shape& shape, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block);
// The same for a stage whose threads each compute a row of P (J >= L, the matrix-vector product
// included) or a column (J < L): the launch's threads against the rows or columns. Empty code
// where they cover them (then what P showed stands).
Diagnosis line_coverage(const Shape& shape, const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& block);

// "reads-p": every element of P is NaN although the kernel ran, and the same kernel is right when P
// starts at 0 -- it reads P before writing it (P += ..., beta * P).
Diagnosis reads_p(int64_t launches);

// A failed CUDA call, from the runner's message ("kernel launch: cudaErrorInvalidValue (...)"):
// code "cuda-error", with the hint contract.toml [[cuda_error_hints]] gives the error's name.
Diagnosis diagnose_cuda_error(const std::string& message);

}  // namespace tilelab
