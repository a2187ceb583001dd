// Attack (the counted run, through the kit's PTX wrappers): mma_m16n8k8_tf32 takes its operands by
// reference, and a reference may name global memory as well as a register array. Here every warp's
// b operand is M itself: lane (g, t) hands &M[row g][k0 + 2t] as its two-word b, so the tensor core
// reads B(t, g) and B(t + 4, g) straight from M, where the k order of the step is permuted (k0 + 2t,
// k0 + 2t + 1) in both operands and D is a tile of P's transpose. Nothing is staged: each warp reads
// its operands from global memory at every k-step (an untiled kernel, as slow as one on a GPU).
// What it tests: whether the emulator counts the words an mma operand names (its count build must
// see M's loads; its asan build must check them against M's end), or whether only the runtime,
// uninstrumented, reads them. The same file builds with nvcc.
#include <cuda_runtime.h>
#include <tilelab/mma_ptx.cuh>

#include <cstdint>

constexpr int WARPS = 4;  // a block: 4 warps side by side along P's columns, each a 8 x 16 tile of P

__global__ void OperandInGlobal(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                                int J, int K, int L) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int r0 = blockIdx.y * 8, c0 = (blockIdx.x * WARPS + warp) * 16;  // P rows r0.., columns c0..
    const int row = r0 + g;                                                 // this lane's row of M (B's column g)
    const uint32_t zero[2] = {0u, 0u};
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 8) {
        // A(i, kk) = N[k0 + kappa(kk)][c0 + i], kappa(t) = 2t, kappa(t + 4) = 2t + 1.
        const int ka = k0 + 2 * t, kb = ka + 1, ci = c0 + g, cj = ci + 8;
        uint32_t a[4];
        a[0] = __float_as_uint(ka < K && ci < L ? N[(size_t)ka * L + ci] : 0.0f);
        a[1] = __float_as_uint(ka < K && cj < L ? N[(size_t)ka * L + cj] : 0.0f);
        a[2] = __float_as_uint(kb < K && ci < L ? N[(size_t)kb * L + ci] : 0.0f);
        a[3] = __float_as_uint(kb < K && cj < L ? N[(size_t)kb * L + cj] : 0.0f);
        // B(kk, j) = M[r0 + j][k0 + kappa(kk)]: lane (g, t)'s b[0], b[1] are M's two adjacent words.
        // The last partial step (or a row past J) from a register pair; every lane at one call.
        const uint32_t b[2] = {__float_as_uint(row < J && ka < K ? M[(size_t)row * K + ka] : 0.0f), zero[1]};
        const uint32_t(*bp)[2] = row < J && kb < K ? reinterpret_cast<const uint32_t(*)[2]>(&M[(size_t)row * K + ka]) : &b;
        mma_m16n8k8_tf32(d, a, *bp);
    }
    // D(i, j) = P[r0 + j][c0 + i]: d[0] D(g, 2t), d[1] D(g, 2t + 1), d[2] D(g + 8, 2t), d[3] D(g + 8, 2t + 1).
    const int pr = r0 + 2 * t, pc = c0 + g;
    if (pr < J && pc < L) P[(size_t)pr * L + pc] = d[0];
    if (pr + 1 < J && pc < L) P[(size_t)(pr + 1) * L + pc] = d[1];
    if (pr < J && pc + 8 < L) P[(size_t)pr * L + pc + 8] = d[2];
    if (pr + 1 < J && pc + 8 < L) P[(size_t)(pr + 1) * L + pc + 8] = d[3];
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const dim3 grid((L + 16 * WARPS - 1) / (16 * WARPS), (J + 7) / 8);
    OperandInGlobal<<<grid, 32 * WARPS>>>(M, N, P, J, K, L);
}
