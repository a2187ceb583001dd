// Red team 2 (the counted run, a load the counter may not see): the count build counts the loads
// g++'s -fsanitize=thread instrumentation reports; the untiled kernel carries
// __attribute__((no_sanitize_thread)) (nvcc ignores it with a warning), so g++ leaves its loads
// uninstrumented: 2 global loads per multiply-add, none counted. A Touch kernel loads M and N once
// with counted loads (kernel-did-not-load).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ __attribute__((no_sanitize_thread)) void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k) Pvalue += M[Row * K + k] * N[k * L + Col];
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
