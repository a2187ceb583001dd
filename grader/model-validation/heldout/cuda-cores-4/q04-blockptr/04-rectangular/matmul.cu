// Held-out kernel q04-blockptr (stage 04-rectangular): 16x16 tiles with M, N and P moved to the block's corner at the start, M advanced by 16 columns and N by 16 rows after every phase, the bounds tests on the block's remaining rows, columns and depth.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles. The block first moves M, N and P to its own corner (M to row by*16, N and P to
// column bx*16) and advances M by 16 columns and N by 16 rows after every phase; the bounds tests
// use the block's remaining rows, columns and depth.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int rowsLeft = J - blockIdx.y * TILE_WIDTH;   // rows of P from this block's first on
    const int colsLeft = L - blockIdx.x * TILE_WIDTH;   // columns likewise

    M += (size_t)blockIdx.y * TILE_WIDTH * K;
    N += blockIdx.x * TILE_WIDTH;
    P += (size_t)blockIdx.y * TILE_WIDTH * L + blockIdx.x * TILE_WIDTH;

    float acc = 0.0f;
    for (int kLeft = K; kLeft > 0; kLeft -= TILE_WIDTH) {
        As[ty][tx] = (ty < rowsLeft && tx < kLeft) ? M[ty * K + tx] : 0.0f;
        Bs[ty][tx] = (ty < kLeft && tx < colsLeft) ? N[ty * L + tx] : 0.0f;
        __syncthreads();
        M += TILE_WIDTH;
        N += TILE_WIDTH * L;
        for (int k = 0; k < TILE_WIDTH; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (ty < rowsLeft && tx < colsLeft)
        P[ty * L + tx] = acc;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
