// The trace runner (`tilelab trace`; docs/emulator.md, "The trace build"): runs the implementation
// under test once, on the trace build of the CPU emulator, on a tiny M and N (the book's examples), and writes as JSON every load and store its threads made, in the order the
// emulator ran them (trace.hpp), the P it produced, the launch error if any and the emulator's
// findings. grader/tilelab/commands/trace.py writes the input and builds the book's tables from the output.
// Nothing is judged here.
//
//   trace-<impl>-<stage> --input in.json --out trace.json     in.json: {"M": [[...], ...], "N": [[...], ...]}
//
// Exit status: 0 when the JSON was written (whatever the kernel did), 2 on bad input.
#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>

#include "backend.hpp"
#include "runtime.hpp"
#include "tilelab/matrix.hpp"
#include "trace.hpp"

namespace tilelab {
extern const Implementation tilelab_impl_under_test;
}

namespace {

nlohmann::json floats(const std::vector<float>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (float x : v) a.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
  return a;
}

// A matrix from a JSON array of equally long rows.
tilelab::Matrix matrix(const nlohmann::json& rows) {
  if (!rows.is_array() || rows.empty() || !rows[0].is_array() || rows[0].empty())
    throw tilelab::BadInput("a matrix is a non-empty array of non-empty rows");
  tilelab::Matrix m(int64_t(rows.size()), int64_t(rows[0].size()));
  for (int64_t r = 0; r < m.rows; ++r) {
    if (rows[size_t(r)].size() != size_t(m.cols)) throw tilelab::BadInput("the rows of a matrix differ in length");
    for (int64_t c = 0; c < m.cols; ++c) m.at(r, c) = rows[size_t(r)][size_t(c)].get<float>();
  }
  return m;
}

// A device copy of `host`, named for the emulator as the grading runner names it.
float* device(const std::vector<float>& host, const char* name, size_t row_length) {
  void* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(float)) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  tlemu::name_buffer(p, name, row_length);
  return static_cast<float*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilelab trace runner: every load and store of the kernel on a tiny product, as JSON"};
  std::string in_path, out_path;
  app.add_option("--input", in_path, "M and N as JSON: {\"M\": [[...], ...], \"N\": [[...], ...]}")->required();
  app.add_option("--out", out_path, "where to write the trace")->required();
  CLI11_PARSE(app, argc, argv);

  tilelab::Matrix M, N;
  try {
    const auto in = nlohmann::json::parse(std::ifstream(in_path));
    M = matrix(in.at("M"));
    N = matrix(in.at("N"));
    if (M.cols != N.rows) throw tilelab::BadInput("M has " + std::to_string(M.cols) + " columns but N has " +
                                                  std::to_string(N.rows) + " rows");
  } catch (const std::exception& e) {
    std::cerr << "tilelab trace: " << e.what() << "\n";
    return 2;
  }
  const int J = int(M.rows), K = int(M.cols), L = int(N.cols);
  std::vector<float> P(size_t(J) * size_t(L), std::numeric_limits<float>::quiet_NaN());
  float* dM = device(M.data, "M", size_t(K));
  float* dN = device(N.data, "N", size_t(L));
  float* dP = device(P, "P", size_t(L));

  tilelab::tilelab_impl_under_test.launch(dM, dN, dP, J, K, L);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  cudaMemcpy(P.data(), dP, P.size() * sizeof(float), cudaMemcpyDeviceToHost);

  nlohmann::json doc = {{"shape", {J, K, L}}, {"M", floats(M.data)}, {"N", floats(N.data)}, {"P", floats(P)},
                        {"error", err == cudaSuccess ? nlohmann::json(nullptr) : nlohmann::json(cudaGetErrorName(err))},
                        {"findings", nlohmann::json::array()}, {"accesses", nlohmann::json::array()}};
  for (const auto& f : tlemu::take_findings())
    doc["findings"].push_back({{"kind", f.kind}, {"line", f.line}, {"message", f.message}});
  // One array per access, in order: [kind, launch, [bx, by], [tx, ty], barriers, element, inside, value, line].
  for (const auto& a : tlemu::trace::take())
    doc["accesses"].push_back({std::string(1, a.kind), a.launch, {a.block.x, a.block.y}, {a.thread.x, a.thread.y},
                               a.barriers, a.element, a.inside,
                               std::isfinite(a.value) ? nlohmann::json(a.value) : nlohmann::json(nullptr), a.line});
  std::ofstream(out_path) << doc.dump() << "\n";
  return 0;
}
