// Held-out kernel k04-bx-rows-long (stage 04-rectangular): 16x16 tiles with blockIdx.x walking rows of tiles and blockIdx.y columns, every index and offset a 64-bit long.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// blockIdx.x walks the rows of tiles of P and blockIdx.y the columns (threadIdx.x still on columns),
// and every index is a 64-bit long so that no product of sizes can overflow.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    long tx = threadIdx.x, ty = threadIdx.y;
    long Row = (long)blockIdx.x * TILE_WIDTH + ty;
    long Col = (long)blockIdx.y * TILE_WIDTH + tx;
    long lJ = J, lK = K, lL = L;

    float Pvalue = 0.0f;
    long phases = (lK + TILE_WIDTH - 1) / TILE_WIDTH;
    for (long ph = 0; ph < phases; ++ph) {
        long mCol = ph * TILE_WIDTH + tx;
        long nRow = ph * TILE_WIDTH + ty;
        if (Row < lJ && mCol < lK)
            Mds[ty][tx] = M[Row * lK + mCol];
        else
            Mds[ty][tx] = 0.0f;
        if (nRow < lK && Col < lL)
            Nds[ty][tx] = N[nRow * lL + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (long k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < lJ && Col < lL)
        P[Row * lL + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((J + TILE_WIDTH - 1) / TILE_WIDTH, (L + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
