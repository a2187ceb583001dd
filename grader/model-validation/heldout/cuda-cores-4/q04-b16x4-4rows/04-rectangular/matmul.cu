// Held-out kernel q04-b16x4-4rows (stage 04-rectangular): 16x4 blocks (64 threads) computing 16x16 tiles of P: each thread loads rows ty + 4i of both tiles and computes the 4 outputs of those rows, sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define BLOCK_ROWS 4    // 16x4 threads per block: each thread covers 4 rows of the 16x16 tile

// 16x4 blocks (64 threads) computing 16x16 tiles of P: thread (tx, ty) loads rows ty + 4i of both
// tiles and computes the 4 outputs of those rows in column Col.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE_WIDTH;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float sum[TILE_WIDTH / BLOCK_ROWS] = {};
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        for (int r = ty; r < TILE_WIDTH; r += BLOCK_ROWS) {
            int mRow = rowBase + r, mCol = ph * TILE_WIDTH + tx;
            Mds[r][tx] = (mRow < J && mCol < K) ? M[mRow * K + mCol] : 0.0f;
            int nRow = ph * TILE_WIDTH + r;
            Nds[r][tx] = (nRow < K && Col < L) ? N[nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
            for (int i = 0; i < TILE_WIDTH / BLOCK_ROWS; ++i)
                sum[i] += Mds[ty + i * BLOCK_ROWS][k] * n;
        }
        __syncthreads();
    }
    for (int i = 0; i < TILE_WIDTH / BLOCK_ROWS; ++i) {
        int Row = rowBase + ty + i * BLOCK_ROWS;
        if (Row < J && Col < L) P[Row * L + Col] = sum[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, BLOCK_ROWS);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
