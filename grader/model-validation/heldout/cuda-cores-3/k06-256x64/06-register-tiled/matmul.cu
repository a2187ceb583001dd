// Held-out kernel k06-256x64 (stage 06-register-tiled): 256x64 block tiles, 256 threads of 8x8 outputs in two 4-wide strips each way (rows 128 apart, columns 32 apart), BK 16: float4 global loads (4 of M, 1 of N per thread), the M tile transposed, float4 shared reads; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 256       // rows of P per block
#define BN 64        // columns of P per block
#define BK 16
#define THREADS 256  // 32 rows x 8 columns of threads, 8 x 8 outputs each
#define PAD 4

#define LOADS_M (BM * BK / 4 / THREADS)   // 4 float4 of the M tile per thread
#define LOADS_N (BK * BN / 4 / THREADS)   // 1 float4 of the N tile per thread

template <bool VEC>
__device__ __forceinline__ float4 load4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
        } else {
            const float* row = &A[(size_t)r * cols];
            if (c < cols) v.x = row[c];
            if (c + 1 < cols) v.y = row[c + 1];
            if (c + 2 < cols) v.z = row[c + 2];
            if (c + 3 < cols) v.w = row[c + 3];
        }
    }
    return v;
}

// Tall block tiles: 256 x 64 of P per block. Thread (tx, ty) = (tid % 8, tid / 8) owns rows ty*4 .. +3
// and 128 + ty*4 .. +3, columns tx*4 .. +3 and 32 + tx*4 .. +3. The M tile is stored transposed
// (Mt[k][row]) so both operands are read as float4; one buffer, two barriers per phase.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Mt[BK][BM + PAD];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / 8), ty = tid / (BN / 8);
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[8][8] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < LOADS_M; ++l) {
            int s = tid + l * THREADS;
            int r = s / (BK / 4), c = (s % (BK / 4)) * 4;
            float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
            Mt[c + 0][r] = v.x;
            Mt[c + 1][r] = v.y;
            Mt[c + 2][r] = v.z;
            Mt[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < LOADS_N; ++l) {
            int s = tid + l * THREADS;
            int r = s / (BN / 4), c = (s % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Ns[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&Mt[k][ty * 4]);
            float4 a1 = *reinterpret_cast<const float4*>(&Mt[k][BM / 2 + ty * 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Ns[k][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&Ns[k][BN / 2 + tx * 4]);
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = bm + (i / 4) * (BM / 2) + ty * 4 + i % 4;
        if (row >= J) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = bn + h * (BN / 2) + tx * 4;
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) =
                        make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = acc[i][h * 4 + j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
