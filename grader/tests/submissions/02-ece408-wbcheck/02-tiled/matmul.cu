// Stage 02 in the style of UIUC ECE408's MP3 (tiled matrix multiplication).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define TILE_WIDTH 16

#define wbCheck(stmt)                                                     \
  do {                                                                    \
    cudaError_t err = stmt;                                               \
    if (err != cudaSuccess) {                                             \
      printf("Failed to run stmt %s\n", #stmt);                           \
      printf("Got CUDA error ...  %s\n", cudaGetErrorString(err));        \
      return;                                                             \
    }                                                                     \
  } while (0)

namespace {

__global__ void __launch_bounds__(TILE_WIDTH * TILE_WIDTH, 2)
matrixMultiplyShared(const float * __restrict__ A, const float * __restrict__ B, float * __restrict__ C,
                     int numARows, int numAColumns, int numBRows, int numBColumns, int numCRows,
                     int numCColumns) {
  __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
  __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;
  float Cvalue = 0.0;
  for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
    if (Row < numARows && m * TILE_WIDTH + tx < numAColumns)
      subTileA[ty][tx] = A[Row * numAColumns + m * TILE_WIDTH + tx];
    else
      subTileA[ty][tx] = 0;
    if (Col < numBColumns && m * TILE_WIDTH + ty < numBRows)
      subTileB[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + Col];
    else
      subTileB[ty][tx] = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE_WIDTH; ++k)
      Cvalue = fmaf(subTileA[ty][k], subTileB[k][tx], Cvalue);
    __syncthreads();
  }
  if (Row < numCRows && Col < numCColumns)
    C[Row * numCColumns + Col] = Cvalue;
}

}  // namespace

void launch_matmul(const float* M, const float* N, float* P, int Width) {
  wbCheck(cudaFuncSetCacheConfig(matrixMultiplyShared, cudaFuncCachePreferShared));
  matrixMultiplyShared<<<dim3((Width - 1) / TILE_WIDTH + 1, (Width - 1) / TILE_WIDTH + 1, 1),
                         dim3(TILE_WIDTH, TILE_WIDTH, 1), 0, 0>>>(M, N, P, Width, Width, Width, Width,
                                                                  Width, Width);
  wbCheck(cudaGetLastError());
}
