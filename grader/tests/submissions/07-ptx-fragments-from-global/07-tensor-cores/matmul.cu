// Known-good submission for stage 07-tensor-cores (no false alarm on code from elsewhere): the kit's
// PTX wrapper mma_m16n8k8_tf32 used otherwise than by the reference -- no shared memory, no
// cp.async and no ldmatrix: each lane gathers its own fragment registers straight from global
// memory by the PTX ISA's layout of mma.m16n8k8 (g = lane / 4, t = lane % 4; zero outside the
// matrices), rounds them with to_tf32, and stores its four results of the 16 x 8 tile of P under
// bounds tests. Four warps per block, 2 x 2 tiles: a block covers 32 x 16 of P. Slow, but correct.
// Must pass on both backends.
#include <cuda_runtime.h>
#include <cstdint>
#include <tilelab/mma_ptx.cuh>

// Element (r, c) of a rows x cols row-major matrix, 0 outside it.
__device__ __forceinline__ float at(const float* __restrict__ A, int rows, int cols, int r, int c) {
    return (r < rows && c < cols) ? A[(size_t)r * cols + c] : 0.0f;
}

__global__ void __launch_bounds__(128)
mma_direct(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = blockIdx.y * 32 + (warp >> 1) * 16;  // this warp's 16 x 8 tile of P
    const int col0 = blockIdx.x * 16 + (warp & 1) * 8;
    const int g = lane >> 2, t = lane & 3;

    // Every lane of the warp runs every mma (the tile past P's edge computes zeros, never stored).
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 8) {
        const uint32_t a[4] = {to_tf32(at(M, J, K, row0 + g, k0 + t)), to_tf32(at(M, J, K, row0 + g + 8, k0 + t)),
                               to_tf32(at(M, J, K, row0 + g, k0 + t + 4)), to_tf32(at(M, J, K, row0 + g + 8, k0 + t + 4))};
        const uint32_t b[2] = {to_tf32(at(N, K, L, k0 + t, col0 + g)), to_tf32(at(N, K, L, k0 + t + 4, col0 + g))};
        mma_m16n8k8_tf32(d, a, b);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + g + (i >> 1) * 8, c = col0 + 2 * t + (i & 1);
        if (r < J && c < L) P[(size_t)r * L + c] = d[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const dim3 grid((L + 15) / 16, (J + 31) / 32);
    mma_direct<<<grid, 128>>>(M, N, P, J, K, L);
}
