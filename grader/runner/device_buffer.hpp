// Device memory for the runner's checks, written once against the CUDA runtime API: the GPU
// backend compiles it with the real <cuda_runtime.h>, the emulator backend with grader/emu's,
// which provides the same calls on host memory.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend.hpp"
#include "tilelab/contract.hpp"

namespace tilelab {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// What to do about a store outside M, N or P; both backends' "global-overrun" hint (contract.toml:
// worded for square and rectangular stages alike, and never inviting a guard around a barrier).
inline const char* kOverrunAdvice = hints::kGlobalOverrun.text;

// A device buffer owning its memory, freed on scope exit (errors there are ignored on purpose:
// a sticky error has already been reported). With guard > 0 (the GPU backend) `guard` elements of
// 0xFF bytes lie on each side of the n elements at p, so a store outside them can be found after
// the launch (overrun()); guard is a multiple of 64 elements, keeping p as aligned as cudaMalloc's.
// With written_guard false the guard elements are allocated but never written nor read back
// (overrun() finds nothing): under compute-sanitizer's initcheck a read past the end of the buffer
// then reads memory nothing wrote, which initcheck reports with the kernel's line.
struct DeviceBuffer {
  float* p = nullptr;
  size_t n = 0;
  size_t guard = 0;
  explicit DeviceBuffer(size_t count, size_t guard_elements = 0, bool written_guard = true)
      : n(count), guard((guard_elements + 63) / 64 * 64), written_guard_(written_guard) {
    check(cudaMalloc(&base_, (std::max<size_t>(n, 1) + 2 * guard) * sizeof(float)), "cudaMalloc");
    p = base_ + guard;
    if (guard && written_guard_) check(cudaMemset(base_, 0xFF, (n + 2 * guard) * sizeof(float)), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(base_); }
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
  void zero() { check(cudaMemset(p, 0, n * sizeof(float)), "cudaMemset"); }
  // How many guard elements are no longer 0xFF bytes; *nearest: the index (from p) of the changed
  // one nearest the buffer, after it if any is (negative: before it). 0 without guard zones.
  size_t overrun(long long* nearest) const {
    if (!guard || !written_guard_) return 0;
    std::vector<uint32_t> before(guard), after(guard);
    check(cudaMemcpy(before.data(), base_, guard * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    check(cudaMemcpy(after.data(), p + n, guard * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    size_t count = 0;
    for (size_t i = 0; i < guard; ++i)
      if (before[i] != 0xFFFFFFFFu) ++count, *nearest = (long long)i - (long long)guard;
    for (size_t i = guard; i-- > 0;)
      if (after[i] != 0xFFFFFFFFu) ++count, *nearest = (long long)(n + i);
    return count;
  }

 private:
  float* base_ = nullptr;
  bool written_guard_ = true;
};

// Bit-for-bit equality (NaN payloads included): the inputs must come back exactly as sent.
inline bool same_bits(const Matrix& a, const Matrix& b) {
  return a.data.size() == b.data.size() &&
         std::equal(a.data.begin(), a.data.end(), b.data.begin(),
                    [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

// What run_host hands matmul_host, on both backends: copies of M and N, compared with the
// originals afterwards (unchanged), and the outcome's P in the product's shape with every element a
// quiet NaN, so an element the code leaves unwritten reads as wrong.
struct HostCall {
  Matrix M, N;
  HostCall(RunOutcome& out, const Matrix& M0, const Matrix& N0, const Shape& s) : M(M0), N(N0) {
    out.P = Matrix(s.J, s.L);
    std::fill(out.P.data.begin(), out.P.data.end(), std::numeric_limits<float>::quiet_NaN());
  }
  bool unchanged(const Matrix& M0, const Matrix& N0) const { return same_bits(M0, M) && same_bits(N0, N); }
};

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
