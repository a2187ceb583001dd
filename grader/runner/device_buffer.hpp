// Device memory for the runner's checks, written once against the CUDA runtime API: the GPU
// backend compiles it with the real <cuda_runtime.h>, the emulator backend with grader/emu's,
// which provides the same calls on host memory.
#pragma once
#include <algorithm>
#include <cstring>
#include <string>

#include "backend.hpp"

namespace tilelab {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// A device buffer owning its memory, freed on scope exit (errors there are ignored on purpose:
// a sticky error has already been reported).
struct DeviceBuffer {
  float* p = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) {
    check(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(float)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void upload(const Matrix& m) {
    check(cudaMemcpy(p, m.data.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void download(Matrix& m) const {
    check(cudaMemcpy(m.data.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
  void poison() {  // 0xFF bytes: a quiet NaN in every element
    check(cudaMemset(p, 0xFF, n * sizeof(float)), "cudaMemset");
  }
};

// Bit-for-bit equality (NaN payloads included): the inputs must come back exactly as sent.
inline bool same_bits(const Matrix& a, const Matrix& b) {
  return a.data.size() == b.data.size() &&
         std::equal(a.data.begin(), a.data.end(), b.data.begin(),
                    [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

// After a launch: P from the device, and whether M and N came back bit-identical.
inline void collect(RunOutcome& out, const DeviceBuffer& dM, const DeviceBuffer& dN, const DeviceBuffer& dP,
                    const Matrix& M, const Matrix& N, const Shape& s) {
  out.P = Matrix(s.J, s.L);
  dP.download(out.P);
  Matrix M2(M.rows, M.cols), N2(N.rows, N.cols);
  dM.download(M2);
  dN.download(N2);
  out.inputs_unchanged = same_bits(M, M2) && same_bits(N, N2);
}

}  // namespace tilelab
