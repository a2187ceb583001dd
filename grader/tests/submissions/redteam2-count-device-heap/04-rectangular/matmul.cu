// Red team (issue #39 follow-up, the counted run): a kernel copies M and N once into memory it
// allocates from the device heap (device-side malloc, a CUDA feature since Fermi), and the untiled
// product reads them there. The count build counts global memory as cudaMalloc buffers, pinned
// memory and static storage: the device heap is none of these, so the untiled loads (2 per
// multiply-add) may vanish from the count. The copy kernel loads all of M and N once, so
// kernel-did-not-load passes. Right only if the heap copy works.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__device__ float* g_heap;

// The previous call's copy is freed here, so the untiled kernel is the call's last launch.
__global__ void Alloc(size_t n) {
    if (g_heap) free(g_heap);
    g_heap = (float*)malloc(n * sizeof(float));
}

__global__ void CopyIn(const float* M, const float* N, int nm, int nn) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* h = g_heap;
    if (i < nm) h[i] = M[i];
    else if (i < nm + nn) h[i] = N[i - nm];
}

__global__ void UntiledKernel(float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    const float* Mh = g_heap;
    const float* Nh = g_heap + (size_t)J * K;
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += Mh[Row * K + k] * Nh[k * L + Col];
    P[Row * L + Col] = Pvalue * one;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int nm = J * K, nn = K * L;
    Alloc<<<1, 1>>>((size_t)nm + nn);
    CopyIn<<<(nm + nn + 255) / 256, 256>>>(M, N, nm, nn);
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    UntiledKernel<<<grid, block>>>(P, J, K, L);
}
