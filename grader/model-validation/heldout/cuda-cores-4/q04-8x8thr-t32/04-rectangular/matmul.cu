// Held-out kernel q04-8x8thr-t32 (stage 04-rectangular): 8x8 threads computing a 32x32 tile of P, 4x4 outputs per thread 8 apart (rows ty + 8i, columns tx + 8j): 16 elements of each 32x32 tile loaded per thread, the 4 + 4 operands of a step read into registers.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32
#define THR 8                 // 8x8 threads per block
#define PER (TILE / THR)      // 4x4 outputs per thread

// 8x8 threads compute a 32x32 tile of P: thread (tx, ty) owns rows ty + 8i and columns tx + 8j
// (i, j = 0..3), loads the same 16 positions of the 32x32 M and N tiles each phase (0 outside the
// matrices), and keeps its 16 sums in a 4x4 array.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[TILE][TILE];
    __shared__ float Ns[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;

    float c[PER][PER];
    for (int i = 0; i < PER; ++i)
        for (int j = 0; j < PER; ++j) c[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        for (int i = 0; i < PER; ++i) {
            for (int j = 0; j < PER; ++j) {
                int r = ty + THR * i, q = tx + THR * j;
                int mRow = row0 + r, mCol = k0 + q;
                Ms[r][q] = (mRow < J && mCol < K) ? M[mRow * K + mCol] : 0.0f;
                int nRow = k0 + r, nCol = col0 + q;
                Ns[r][q] = (nRow < K && nCol < L) ? N[nRow * L + nCol] : 0.0f;
            }
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float a[PER], b[PER];
            for (int i = 0; i < PER; ++i) a[i] = Ms[ty + THR * i][k];
            for (int j = 0; j < PER; ++j) b[j] = Ns[k][tx + THR * j];
            for (int i = 0; i < PER; ++i)
                for (int j = 0; j < PER; ++j) c[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < PER; ++i) {
        int row = row0 + ty + THR * i;
        for (int j = 0; j < PER; ++j) {
            int col = col0 + tx + THR * j;
            if (row < J && col < L) P[row * L + col] = c[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THR, THR);
    dim3 dimGrid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
