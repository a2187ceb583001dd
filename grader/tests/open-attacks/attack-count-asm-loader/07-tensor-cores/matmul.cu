// Attack (the counted run; red team 2026-11-29): every load of the product's operands goes through
// `load`, which on the emulator (device code compiled for x86-64 by g++) is a function written in
// file-scope assembly, outside any kernel, where the rewriter's refusal of inline assembly in device
// code does not look and no sanitizer instrumentation reaches: the count build would see none of
// them. A Touch kernel loads M and N once (as many bytes as the product needs at the least, so the
// model's "loaded less than half of M and N" rule passes). On a GPU (nvcc) `load` is a plain load.
// Otherwise attack-ptx-operand-in-global's untiled kernel, its b operand a register pair.
#include <cuda_runtime.h>
#include <tilelab/mma_ptx.cuh>

#include <cstdint>

#if defined(__x86_64__) && !defined(__CUDACC__)
// The emulator: a function of the student's object, in assembly: movss from the address, ret.
extern "C" float tl_asm_load(const float* p);
asm(".text\n.globl tl_asm_load\n.type tl_asm_load,@function\ntl_asm_load:\n\tmovss (%rdi), %xmm0\n\tret\n"
    ".size tl_asm_load, .-tl_asm_load\n");
__device__ __forceinline__ float load(const float* p) { return tl_asm_load(p); }
#else
__device__ __forceinline__ float load(const float* p) { return *p; }
#endif

constexpr int WARPS = 4;  // a block: 4 warps side by side along P's columns, each a 8 x 16 tile of P

__global__ void OperandInGlobal(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                                int J, int K, int L) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int r0 = blockIdx.y * 8, c0 = (blockIdx.x * WARPS + warp) * 16;  // P rows r0.., columns c0..
    const int row = r0 + g;                                                 // this lane's row of M (B's column g)
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 8) {
        // A(i, kk) = N[k0 + kappa(kk)][c0 + i], kappa(t) = 2t, kappa(t + 4) = 2t + 1.
        const int ka = k0 + 2 * t, kb = ka + 1, ci = c0 + g, cj = ci + 8;
        uint32_t a[4];
        a[0] = __float_as_uint(ka < K && ci < L ? load(&N[(size_t)ka * L + ci]) : 0.0f);
        a[1] = __float_as_uint(ka < K && cj < L ? load(&N[(size_t)ka * L + cj]) : 0.0f);
        a[2] = __float_as_uint(kb < K && ci < L ? load(&N[(size_t)kb * L + ci]) : 0.0f);
        a[3] = __float_as_uint(kb < K && cj < L ? load(&N[(size_t)kb * L + cj]) : 0.0f);
        // B(kk, j) = M[r0 + j][k0 + kappa(kk)]: lane (g, t)'s b[0], b[1] are M's two adjacent words.
        const uint32_t b[2] = {__float_as_uint(row < J && ka < K ? load(&M[(size_t)row * K + ka]) : 0.0f),
                               __float_as_uint(row < J && kb < K ? load(&M[(size_t)row * K + kb]) : 0.0f)};
        mma_m16n8k8_tf32(d, a, b);
    }
    // D(i, j) = P[r0 + j][c0 + i]: d[0] D(g, 2t), d[1] D(g, 2t + 1), d[2] D(g + 8, 2t), d[3] D(g + 8, 2t + 1).
    const int pr = r0 + 2 * t, pc = c0 + g;
    if (pr < J && pc < L) P[(size_t)pr * L + pc] = d[0];
    if (pr + 1 < J && pc < L) P[(size_t)(pr + 1) * L + pc] = d[1];
    if (pr < J && pc + 8 < L) P[(size_t)pr * L + pc + 8] = d[2];
    if (pr + 1 < J && pc + 8 < L) P[(size_t)(pr + 1) * L + pc + 8] = d[3];
}

// Every element of M and N loaded once, where the count build sees it; every thread of every block
// loads one float of each (indices wrap), so the sampled blocks load what the grid's average does.
__global__ void Touch(const float* M, const float* N, float* P, int nm, int nn) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float s = M[i % nm] + N[i % nn];
    if (s == 12345.678f) P[0] = s;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const dim3 grid((L + 16 * WARPS - 1) / (16 * WARPS), (J + 7) / 8);
    const int nm = J * K, nn = K * L, n = nm > nn ? nm : nn;
    if (nm > 0 && nn > 0) Touch<<<(n + 255) / 256, 256>>>(M, N, P, nm, nn);
    OperandInGlobal<<<grid, 32 * WARPS>>>(M, N, P, J, K, L);
}
