// Held-out kernel g06-warptile (stage 06-register-tiled): warp tiling: 128x128 block tiles as 8 warp tiles of 64x32, each lane 8x8 outputs in 4-wide strips (32 rows and 16 columns apart within the warp tile); BK 16, float4 loads and shared reads, one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128       // rows of P per block
#define BN 128       // columns of P per block
#define BK 16        // depth of a phase
#define WM 64        // rows of a warp's tile
#define WN 32        // columns of a warp's tile
#define THREADS 256  // 8 warps: 2 x 4 warp tiles of 64 x 32
#define LOADS (BM * BK / 4 / THREADS)   // float4 segments per thread per tile (2)

// Warp tiling: warp w owns a 64 x 32 tile of the block's P tile (rows (w / 4) * 64, columns (w % 4) * 32);
// its 32 lanes are 8 rows x 4 columns of threads, and lane (lr, lc) owns two 4-row strips (lr * 4 and
// 32 + lr * 4) by two 4-column strips (lc * 4 and 16 + lc * 4) of the warp tile: 8 x 8 outputs. Both
// tiles in shared memory as rows of the phase (the M tile transposed), read as float4.
template <bool VEC>
__device__ float4 load4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c < cols) v.x = p[c];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM];
    __shared__ __align__(16) float Ns[BK][BN];
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wr = (warp / (BN / WN)) * WM, wc = (warp % (BN / WN)) * WN;
    const int lr = lane / 4, lc = lane % 4;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[8][8];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int l = 0; l < LOADS; ++l) {
            int s = tid + l * THREADS;
            int r = s / (BK / 4), c = (s % (BK / 4)) * 4;        // M tile: 128 rows of 4 segments
            float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
            Ms[c + 0][r] = v.x;
            Ms[c + 1][r] = v.y;
            Ms[c + 2][r] = v.z;
            Ms[c + 3][r] = v.w;
            r = s / (BN / 4); c = (s % (BN / 4)) * 4;            // N tile: 16 rows of 32 segments
            *reinterpret_cast<float4*>(&Ns[r][c]) = load4<VEC>(N, K, L, k0 + r, bn + c);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            float4 t;
            t = *reinterpret_cast<const float4*>(&Ms[k][wr + lr * 4]);
            a[0] = t.x; a[1] = t.y; a[2] = t.z; a[3] = t.w;
            t = *reinterpret_cast<const float4*>(&Ms[k][wr + 32 + lr * 4]);
            a[4] = t.x; a[5] = t.y; a[6] = t.z; a[7] = t.w;
            t = *reinterpret_cast<const float4*>(&Ns[k][wc + lc * 4]);
            b[0] = t.x; b[1] = t.y; b[2] = t.z; b[3] = t.w;
            t = *reinterpret_cast<const float4*>(&Ns[k][wc + 16 + lc * 4]);
            b[4] = t.x; b[5] = t.y; b[6] = t.z; b[7] = t.w;
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < 8; ++i) {
        int row = bm + wr + (i / 4) * 32 + lr * 4 + i % 4;
        if (row >= J) continue;
        for (int h = 0; h < 2; ++h) {
            int col = bn + wc + h * 16 + lc * 4;
            for (int j = 0; j < 4; ++j)
                if (col + j < L) P[(size_t)row * L + col + j] = acc[i][h * 4 + j];
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
