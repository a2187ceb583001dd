// Held-out kernel k06-warprows-bk4 (stage 06-register-tiled): 128x128 block tiles, each warp a 16x128 slab, each lane 8x8 outputs (8 contiguous rows, columns in two 4-wide strips 64 apart), BK 4: scalar global loads (2 of each tile per thread), the M tile transposed without padding, float4 shared reads; one buffer.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 4
#define THREADS 256   // 8 warps

// Each of the 8 warps owns a 16 x 128 slab of the block's 128 x 128 tile of P (rows warp*16 ..
// warp*16 + 15). Lane (lr, lc) = (lane / 16, lane % 16) of it computes 8 x 8 outputs: rows
// warp*16 + lr*8 .. +7 and columns lc*4 .. +3 and 64 + lc*4 .. +3. Phases are 4 deep; the tiles are
// loaded element by element (2 of each per thread), the M tile transposed into Mt[k][row].
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Mt[BK][BM];
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int lr = lane / 16, lc = lane % 16;
    const int rowOff = warp * 16 + lr * 8;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[8][8];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int l = 0; l < (BM * BK) / THREADS; ++l) {
            int s = tid + l * THREADS;
            int r = s / BK, c = s % BK;
            Mt[c][r] = (bm + r < J && k0 + c < K) ? M[(size_t)(bm + r) * K + k0 + c] : 0.0f;
        }
        for (int l = 0; l < (BK * BN) / THREADS; ++l) {
            int s = tid + l * THREADS;
            int r = s / BN, c = s % BN;
            Ns[r][c] = (k0 + r < K && bn + c < L) ? N[(size_t)(k0 + r) * L + bn + c] : 0.0f;
        }
        __syncthreads();

        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&Mt[k][rowOff]);
            float4 a1 = *reinterpret_cast<const float4*>(&Mt[k][rowOff + 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Ns[k][lc * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&Ns[k][64 + lc * 4]);
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < 8; ++i) {
        int row = bm + rowOff + i;
        if (row >= J) break;
        for (int j = 0; j < 8; ++j) {
            int col = bn + (j < 4 ? lc * 4 + j : 64 + lc * 4 + j - 4);
            if (col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
