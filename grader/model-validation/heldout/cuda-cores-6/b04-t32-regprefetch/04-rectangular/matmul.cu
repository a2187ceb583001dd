// Held-out kernel b04-t32-regprefetch (stage 04-rectangular): 32x32 tiles (1024 threads) with register prefetching: the next phase's elements of M and N (bounds-tested, so past the last phase they are zeros) loaded after the first barrier, before the products, and stored at the start of the next phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32

// 32x32 tiles (1024 threads) with register prefetching: the next phase's two elements loaded into
// registers before this phase's products, stored after the second barrier.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    float m = (Row < J && tx < K) ? M[Row * K + tx] : 0.0f;
    float n = (ty < K && Col < L) ? N[ty * L + Col] : 0.0f;
    float Pvalue = 0.0f;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty][tx] = m;
        Nds[ty][tx] = n;
        __syncthreads();
        int mc = (ph + 1) * TILE_WIDTH + tx;
        int nr = (ph + 1) * TILE_WIDTH + ty;
        m = (Row < J && mc < K) ? M[Row * K + mc] : 0.0f;
        n = (nr < K && Col < L) ? N[nr * L + Col] : 0.0f;
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
