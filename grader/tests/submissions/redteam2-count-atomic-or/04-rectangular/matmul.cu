// Red team 2 (the counted run, a load the counter may not see): an untiled kernel reads every element
// of M and N as atomicOr(address, 0), which returns the word and leaves it as it was (the inputs stay
// bit for bit the same). The emulator's atomics are its header's read-modify-writes; if the count
// build does not count them as global loads, the untiled kernel's 2 loads per multiply-add vanish.
// A Touch kernel loads M and N once with plain loads (kernel-did-not-load).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void UntiledKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float one;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    __syncthreads();
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    if (Row >= J || Col >= L) return;
    int* Mi = (int*)M;
    int* Ni = (int*)N;
    float Pvalue = 0;
    for (int k = 0; k < K; ++k)
        Pvalue += __int_as_float(atomicOr(&Mi[Row * K + k], 0)) * __int_as_float(atomicOr(&Ni[k * L + Col], 0));
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
