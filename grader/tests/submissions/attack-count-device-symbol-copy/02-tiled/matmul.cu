// Known-bad (issue #39, family 4): a copy kernel reads M and N once (all the loads any product needs)
// into __device__ arrays; the untiled product reads them from there, where the count build used
// to count nothing (it counted cudaMalloc buffers only).
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define MAX_ELEMENTS (512 * 512)

__device__ float Mcopy[MAX_ELEMENTS];
__device__ float Ncopy[MAX_ELEMENTS];

__global__ void CopyIn(const float* M, const float* N, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { Mcopy[i] = M[i]; Ncopy[i] = N[i]; }
}

__global__ void UntiledKernel(float* P, int Width) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float Pvalue = 0;
    for (int k = 0; k < Width; ++k) Pvalue += one * Mcopy[Row * Width + k] * Ncopy[k * Width + Col];
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    if (n > MAX_ELEMENTS) return;  // only the sizes of the performance check
    CopyIn<<<(n + 255) / 256, 256>>>(M, N, n);
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    UntiledKernel<<<grid, block>>>(P, Width);
}
