// Stage 04 with the tiles in dynamic shared memory, sized at launch (CUDA samples style).
#include <cuda_runtime.h>
#include <algorithm>
#include <cassert>

namespace cfg {
constexpr int kTile = 32;
constexpr size_t kSharedBytes = 2 * kTile * kTile * sizeof(float);
static_assert(kTile % 32 == 0, "a tile row is whole warps");
}  // namespace cfg

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B,
                              int J, int K, int L) {
  extern __shared__ float smem[];
  float* As = smem;
  float* Bs = smem + BLOCK_SIZE * BLOCK_SIZE;
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BLOCK_SIZE + ty;
  const int col = blockIdx.x * BLOCK_SIZE + tx;
  assert(blockDim.x == BLOCK_SIZE && blockDim.y == BLOCK_SIZE);
  float Csub = 0;
  for (int t = 0; t < K; t += BLOCK_SIZE) {
    As[ty * BLOCK_SIZE + tx] = (row < J && t + (int)tx < K) ? __ldg(&A[(size_t)row * K + t + tx]) : 0.0f;
    Bs[ty * BLOCK_SIZE + tx] = (t + (int)ty < K && col < L) ? __ldg(&B[(size_t)(t + ty) * L + col]) : 0.0f;
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty * BLOCK_SIZE + k] * Bs[k * BLOCK_SIZE + tx];
    __syncthreads();
  }
  if (row < J && col < L) C[(size_t)row * L + col] = Csub;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
  using cfg::kTile;
  auto kernel = MatrixMulCUDA<kTile>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg::kSharedBytes);
  const dim3 threads(kTile, kTile);
  const dim3 grid{unsigned((L + kTile - 1) / kTile), unsigned((J + kTile - 1) / kTile)};
  kernel<<<grid, threads, cfg::kSharedBytes, nullptr>>>(P, M, N, J, K, L);
  MatrixMulCUDA<kTile><<<grid, threads, cfg::kSharedBytes, cudaStreamPerThread>>>(P, M, N, J, K, L);
}
