// Held-out kernel g04-dbuf (stage 04-rectangular): 16x16 tiles with shared-memory double buffering (two tile pairs, one barrier per phase), the bounds-tested loads in a __device__ helper.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Loads this thread's element of phase ph's tiles into buffer b, 0 outside the matrices.
__device__ void loadTiles(float (*Mds)[TILE_WIDTH][TILE_WIDTH], float (*Nds)[TILE_WIDTH][TILE_WIDTH], int b,
                          const float* M, const float* N, int J, int K, int L, int Row, int Col, int ph) {
    int tx = threadIdx.x, ty = threadIdx.y;
    int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
    if (Row < J && mCol < K)
        Mds[b][ty][tx] = M[Row * K + mCol];
    else
        Mds[b][ty][tx] = 0.0f;
    if (nRow < K && Col < L)
        Nds[b][ty][tx] = N[nRow * L + Col];
    else
        Nds[b][ty][tx] = 0.0f;
}

// Shared-memory double buffering: phase ph + 1 is loaded into the other pair of tiles while phase ph
// is multiplied; one barrier per phase.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[2][TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[2][TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    float Pvalue = 0;
    loadTiles(Mds, Nds, 0, M, N, J, K, L, Row, Col, 0);
    __syncthreads();
    for (int ph = 0; ph < phases; ++ph) {
        int b = ph & 1;
        if (ph + 1 < phases)
            loadTiles(Mds, Nds, b ^ 1, M, N, J, K, L, Row, Col, ph + 1);
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[b][ty][k] * Nds[b][k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
