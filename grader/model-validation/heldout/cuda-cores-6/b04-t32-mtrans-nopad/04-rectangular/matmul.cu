// Held-out kernel b04-t32-mtrans-nopad (stage 04-rectangular): 32x32 tiles (1024 threads) with the M tile stored transposed and unpadded (MdsT[tx][ty], a 32-way bank conflict on every store) and read as MdsT[k][ty], the book's if/else bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32

// 32x32 tiles with the M tile stored transposed and unpadded: MdsT[tx][ty] = M[Row][k0 + tx], read
// as MdsT[k][ty] (the store is a 32-way bank conflict; the read is conflict-free).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float MdsT[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mc = ph * TILE_WIDTH + tx, nr = ph * TILE_WIDTH + ty;
        if (Row < J && mc < K) MdsT[tx][ty] = M[Row * K + mc];
        else MdsT[tx][ty] = 0.0f;
        if (nr < K && Col < L) Nds[ty][tx] = N[nr * L + Col];
        else Nds[ty][tx] = 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += MdsT[k][ty] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
