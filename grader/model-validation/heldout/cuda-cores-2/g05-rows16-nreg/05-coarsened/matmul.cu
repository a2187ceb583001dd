// Held-out kernel g05-rows16-nreg (stage 05-coarsened): coarsening along rows with 16x16 tiles (4 rows per thread, 16 apart; 4 M tiles and 1 N tile per phase), the thread's column of the N tile copied into 16 registers each phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define COARSE_FACTOR 4   // rows of P per thread, TILE_WIDTH apart

// Coarsening along rows with 16x16 tiles: a block covers 64 rows and 16 columns of P, and loads 4 tiles of
// M and one of N per phase. Each thread copies its column of the N tile into 16 registers, then runs
// through its 4 rows of M tiles against them.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[COARSE_FACTOR][TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowStart = blockIdx.y * TILE_WIDTH * COARSE_FACTOR + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float acc[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) acc[c] = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Row = rowStart + c * TILE_WIDTH;
            Mds[c][ty][tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        }
        Nds[ty][tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        __syncthreads();
        float n[TILE_WIDTH];
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k) n[k] = Nds[k][tx];
#pragma unroll
        for (int c = 0; c < COARSE_FACTOR; ++c)
#pragma unroll
            for (int k = 0; k < TILE_WIDTH; ++k)
                acc[c] += Mds[c][ty][k] * n[k];
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Row = rowStart + c * TILE_WIDTH;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = acc[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int rowsPerBlock = TILE_WIDTH * COARSE_FACTOR;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + rowsPerBlock - 1) / rowsPerBlock);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
