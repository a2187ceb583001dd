// Held-out kernel h05-rows (stage 05-coarsened): coarsening along rows instead of columns: 32x32 tiles, each thread 4 rows of one column (4 M tiles, 1 N tile per phase; dynamic shared memory).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define COARSE_FACTOR 4

// Thread (ty, tx) computes rows rowStart + c * TILE_WIDTH (c < COARSE_FACTOR) of column Col.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    float* Mds = smem;                                        // COARSE_FACTOR tiles of M
    float* Nds = smem + COARSE_FACTOR * TILE_WIDTH * TILE_WIDTH;  // one tile of N
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowStart = blockIdx.y * TILE_WIDTH * COARSE_FACTOR + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Row = rowStart + c * TILE_WIDTH;
            Mds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        }
        Nds[ty * TILE_WIDTH + tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k * TILE_WIDTH + tx];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += Mds[(c * TILE_WIDTH + ty) * TILE_WIDTH + k] * n;
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Row = rowStart + c * TILE_WIDTH;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int rowsPerBlock = TILE_WIDTH * COARSE_FACTOR;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + rowsPerBlock - 1) / rowsPerBlock);
    size_t shared = (COARSE_FACTOR + 1) * TILE_WIDTH * TILE_WIDTH * sizeof(float);
    MatrixMulKernel<<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
}
