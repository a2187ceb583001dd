// Red team 2 (the counted run, a load the counter may not see): the count build counts the loads
// g++'s ThreadSanitizer instrumentation reports, which never sees inline assembly. On the emulator
// (device code compiled for x86-64) the untiled kernel loads M and N with `movss` in an asm
// statement; on a GPU, plain loads. A Touch kernel loads M and N once (kernel-did-not-load).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
// The emulator compiles device code for the host: load through the CPU's own instruction.
__device__ __forceinline__ float load(const float* p) {
    float v;
    asm volatile("movss (%1), %0" : "=x"(v) : "r"(p) : "memory");
    return v;
}
#else
__device__ __forceinline__ float load(const float* p) { return *p; }
#endif

__global__ void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += load(&M[Row * K + k]) * load(&N[k * L + Col]);
    P[Row * L + Col] = Pvalue * one;
}

__global__ void Touch(const float* M, const float* N, float* P, int nm, int nn) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    if (i < nm) s += M[i];
    if (i < nn) s += N[i];
    if (s == 12345.678f) P[0] = s;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int nm = J * K, nn = K * L, n = nm > nn ? nm : nn;
    Touch<<<(n + 255) / 256, 256>>>(M, N, P, nm, nn);
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    UntiledKernel<<<grid, block>>>(M, N, P, J, K, L);
}
