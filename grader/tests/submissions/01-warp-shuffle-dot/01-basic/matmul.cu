// Stage 01 as one warp per element of P: the lanes split the dot product, a shuffle reduction sums it.
#include <cuda_runtime.h>
#include <cstdint>

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

__global__ void warp_per_element(const float* M, const float* N, float* P, int Width) {
  const int lane = threadIdx.x & 31;
  const long long element = (long long)blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  const bool live = element < (long long)Width * Width;   // uniform over the warp
  if (!live) return;
  const int row = int(element / Width), col = int(element % Width);
  float partial = 0.0f;
  for (int k = lane; k < Width; k += 32) partial += M[row * Width + k] * N[k * Width + col];
  __syncwarp();
  const float total = warp_sum(partial);
  if (lane == 0) P[row * Width + col] = total;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
  const long long elements = (long long)Width * Width;
  const unsigned blocks = unsigned((elements + kWarpsPerBlock - 1) / kWarpsPerBlock);
  warp_per_element<<<blocks, 32 * kWarpsPerBlock, 0, cudaStreamDefault>>>(M, N, P, Width);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
  const size_t bytes = sizeof(float) * Width * Width;
  float* buf = nullptr;
  if (cudaMalloc(&buf, 3 * bytes) != cudaSuccess) return;
  float *M_d = buf, *N_d = buf + (size_t)Width * Width, *P_d = buf + 2 * (size_t)Width * Width;
  cudaMemcpy(M_d, M_h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice);
  launch_matmul(M_d, N_d, P_d, Width);
  cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost);
  cudaFree(buf);
}
