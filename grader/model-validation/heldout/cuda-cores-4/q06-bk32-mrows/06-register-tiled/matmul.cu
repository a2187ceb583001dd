// Held-out kernel q06-bk32-mrows (stage 06-register-tiled): 128x128 block tiles, BK 32, 256 threads of 8x8 outputs (8 contiguous rows, columns in two 4-wide strips 64 apart): the M tile not transposed (Ms[row][k], padded to 36), filled by float4 stores of float4 loads (4 of each tile per thread), M read one float at a time, N as float4; float4 stores of P; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 32
#define THREADS 256
#define MPAD 4      // keeps each row of Ms 16-byte aligned

// 128x128 block tiles, BK 32, 256 threads of 8x8 outputs: rows ty*8 .. ty*8 + 7 (contiguous),
// columns in two 4-wide strips 64 apart (tx*4 and 64 + tx*4). The M tile is NOT transposed:
// Ms[row][k], filled with float4 stores straight from the float4 global loads (4 of M and 4 of N
// per thread per phase), read one float at a time; N read as float4; float4 stores of P.
template <bool VEC>
__device__ __forceinline__ float4 ld4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        const float* row = A + (size_t)r * cols;
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(row + c);
        } else {
            v.x = (c < cols) ? row[c] : 0.0f;
            v.y = (c + 1 < cols) ? row[c + 1] : 0.0f;
            v.z = (c + 2 < cols) ? row[c + 2] : 0.0f;
            v.w = (c + 3 < cols) ? row[c + 3] : 0.0f;
        }
    }
    return v;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ __align__(16) float Ms[BM][BK + MPAD];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < (BM * BK / 4) / THREADS; ++l) {
            int idx = tid + l * THREADS;
            int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            *reinterpret_cast<float4*>(&Ms[r][c]) = ld4<VEC>(M, J, K, bm + r, k0 + c);
        }
#pragma unroll
        for (int l = 0; l < (BK * BN / 4) / THREADS; ++l) {
            int idx = tid + l * THREADS;
            int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Ns[r][c]) = ld4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();

        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) a[i] = Ms[ty * 8 + i][k];
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Ns[k][tx * 4]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Ns[k][64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = bm + ty * 8 + i;
        if (row >= J) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = bn + h * 64 + tx * 4;
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) =
                        make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = acc[i][h * 4 + j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<grid, THREADS>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<grid, THREADS>>>(M, N, P, J, K, L);
}
