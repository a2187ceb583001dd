// Attack (red team 2 of 2026-11-29, the 07 perf model): no tensor cores at all. A float32 kernel
// whose threads each hold a 16 x 16 tile of P (256 accumulators: on a GPU they spill, nvcc's limit is
// 255 registers) in blocks of 64 threads, so each shared load feeds 16 multiply-adds and its warps'
// loads of a step are broadcasts. The model charges a kernel without mma_sync no registers, and its
// FP32 bound at the H100's peak lies below the reference's modelled time (the reference is bound by
// its shared-memory wavefronts there), so the model puts it at or above the reference.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TT 16        // a thread's tile of P: TT x TT
#define THREADS 64   // (BM / TT) * (BN / TT)
#define PAD 4

__global__ void __launch_bounds__(THREADS)
WideKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(16) float Mds[BK][BM + PAD];  // transposed: Mds[k][row]
    __shared__ __align__(16) float Nds[BK][BN + PAD];
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
    float acc[TT][TT] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += THREADS) {
            const int r = i / BK, c = i % BK;
            Mds[c][r] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += THREADS) {
            const int r = i / BN, c = i % BN;
            Nds[r][c] = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[TT], b[TT];
            for (int s = 0; s < 4; ++s) {
                *reinterpret_cast<float4*>(&a[s * 4]) = *reinterpret_cast<const float4*>(&Mds[k][s * 32 + ty * 4]);
                *reinterpret_cast<float4*>(&b[s * 4]) = *reinterpret_cast<const float4*>(&Nds[k][s * 32 + tx * 4]);
            }
            for (int i = 0; i < TT; ++i)
                for (int j = 0; j < TT; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TT; ++i) {
        const int row = bm + (i / 4) * 32 + ty * 4 + i % 4;
        if (row >= J) continue;
        for (int j = 0; j < TT; ++j) {
            const int col = bn + (j / 4) * 32 + tx * 4 + j % 4;
            if (col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    WideKernel<<<grid, THREADS>>>(M, N, P, J, K, L);
}
