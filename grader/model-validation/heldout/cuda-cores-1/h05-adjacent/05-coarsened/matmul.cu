// Held-out kernel h05-adjacent (stage 05-coarsened): coarsening by 4 adjacent columns per thread (Col = base + tx*4 + c), 32x32 tiles: stride-4 global loads of N and 4-way bank conflicts.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define COARSE_FACTOR 4
#define WIDE (TILE_WIDTH * COARSE_FACTOR)

// Thread (ty, tx) computes columns colBase + tx * COARSE_FACTOR + c of row Row: next to each other.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][WIDE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colBase = blockIdx.x * WIDE + tx * COARSE_FACTOR;
    float Pvalue[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colBase + c;
            Nds[ty][tx * COARSE_FACTOR + c] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty][k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[k][tx * COARSE_FACTOR + c];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colBase + c;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + WIDE - 1) / WIDE, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
