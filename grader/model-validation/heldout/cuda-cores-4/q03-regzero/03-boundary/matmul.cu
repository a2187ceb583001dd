// Held-out kernel q03-regzero (stage 03-boundary): 16x16 tiles: each element of M and N read into a register that starts at 0 and is overwritten only inside the matrix, then stored into the tile; the only other test guards the store of P.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles. Each thread reads its element of M and of N into a register that starts at 0 and
// is only overwritten when the element exists, then stores the register into the tile; the only
// other bounds test is the one around the store of P.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0.0f;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        float m = 0.0f, n = 0.0f;
        int mc = ph * TILE_WIDTH + tx;
        int nr = ph * TILE_WIDTH + ty;
        if (Row < Width && mc < Width) m = M[Row * Width + mc];
        if (nr < Width && Col < Width) n = N[nr * Width + Col];
        Mds[ty][tx] = m;
        Nds[ty][tx] = n;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
