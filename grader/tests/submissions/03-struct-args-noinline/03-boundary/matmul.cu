// Stage 03 with the matrices passed as structs by value (as courses define a Matrix type).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

#define TILE 16

struct MatView {            // a matrix passed by value, as ECE/CS courses' "Matrix" struct
  const float* elements;
  int rows, cols, stride;
};
struct OutView { float* elements; int rows, cols, stride; };

static __device__ __noinline__ float get(const MatView& m, int r, int c) {
  return (r < m.rows && c < m.cols) ? m.elements[__mul24(r, m.stride) + c] : 0.0f;
}
__device__ inline constexpr int ceil_div_dev(int a, int b) { return (a + b - 1) / b; }

template <bool kGuardStore, int kTile>
__global__ void tiled(MatView A, MatView B, OutView C) {
  __shared__ __align__(16) float As[kTile][kTile + 1];   // padded: no bank conflicts
  __shared__ float Bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float2 acc = make_float2(0.0f, 0.0f);
  const int lane = (ty * kTile + tx) % warpSize;
  (void)lane;
  for (int t = 0; t < ceil_div_dev(A.cols, kTile); ++t) {
    As[ty][tx] = get(A, row, t * kTile + tx);
    Bs[ty][tx] = get(B, t * kTile + ty, col);
    __syncthreads();
    for (int k = 0; k < kTile; k += 2) {
      acc.x += As[ty][k] * Bs[k][tx];
      acc.y += As[ty][k + 1] * Bs[k + 1][tx];
    }
    __syncthreads();
  }
  if constexpr (kGuardStore) {
    if (row < C.rows && col < C.cols) C.elements[row * C.stride + col] = acc.x + acc.y;
  } else {
    C.elements[row * C.stride + col] = acc.x + acc.y;
  }
}
template __global__ void tiled<true, TILE>(MatView, MatView, OutView);

void launch_matmul(const float* M, const float* N, float* P, int Width) {
  const MatView a{M, Width, Width, Width}, b{N, Width, Width, Width};
  const OutView c{P, Width, Width, Width};
  const dim3 block(TILE, TILE), grid((Width + TILE - 1) / TILE, (Width + TILE - 1) / TILE);
  tiled<true, TILE><<<grid, block>>>(a, b, c);
}
