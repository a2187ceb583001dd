// Held-out kernel h05-c4t16 (stage 05-coarsened): the book's coarsening (4 columns, TILE_WIDTH apart) with the tile width fixed at 16.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16
#define COARSE_FACTOR 4

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float Mds_Nds[];
    float* Mds = Mds_Nds;
    float* Nds = Mds_Nds + TILE_WIDTH * TILE_WIDTH;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[(c * TILE_WIDTH + k) * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * TILE_WIDTH;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int colsPerBlock = TILE_WIDTH * COARSE_FACTOR;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    size_t shared = (1 + COARSE_FACTOR) * TILE_WIDTH * TILE_WIDTH * sizeof(float);
    MatrixMulKernel<<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
}
