// Known-bad (issue #39, family 4): a copy kernel reads M and N once (all the loads any product needs)
// into pinned host memory (cudaMallocHost, which kernels may use); the untiled product reads them
// from there, where the count build used to count nothing (it counted cudaMalloc buffers only).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void CopyIn(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

__global__ void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += one * M[Row * K + k] * N[k * L + Col];
    P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    float *Mh = nullptr, *Nh = nullptr;
    cudaMallocHost(&Mh, sizeof(float) * J * K);
    cudaMallocHost(&Nh, sizeof(float) * K * L);
    CopyIn<<<(J * K + 255) / 256, 256>>>(M, Mh, J * K);
    CopyIn<<<(K * L + 255) / 256, 256>>>(N, Nh, K * L);
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    UntiledKernel<<<grid, block>>>(Mh, Nh, P, J, K, L);
    cudaDeviceSynchronize();
    cudaFreeHost(Mh);
    cudaFreeHost(Nh);
}
