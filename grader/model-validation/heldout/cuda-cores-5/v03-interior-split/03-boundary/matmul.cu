// Held-out kernel v03-interior-split (stage 03-boundary): 16x16 tiles, two copies of the phase loop: a block whose whole tile of P lies inside P tests only the phase's k index and stores unguarded; the blocks of the last row and column of tiles test everything.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// 16x16 tiles; a block whose whole 16x16 tile of P lies inside P takes a path that tests only the
// phase's k index (the row and column always exist) and stores unguarded; the blocks of the last
// row and column of tiles take the path with every test.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    int phases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    float Pvalue = 0.0f;

    bool interior = ((int)blockIdx.x + 1) * TILE_WIDTH <= Width && ((int)blockIdx.y + 1) * TILE_WIDTH <= Width;
    if (interior) {
        for (int ph = 0; ph < phases; ++ph) {
            int mc = ph * TILE_WIDTH + tx, nr = ph * TILE_WIDTH + ty;
            Mds[ty][tx] = mc < Width ? M[Row * Width + mc] : 0.0f;
            Nds[ty][tx] = nr < Width ? N[nr * Width + Col] : 0.0f;
            __syncthreads();
            for (int k = 0; k < TILE_WIDTH; ++k)
                Pvalue += Mds[ty][k] * Nds[k][tx];
            __syncthreads();
        }
        P[Row * Width + Col] = Pvalue;
    } else {
        for (int ph = 0; ph < phases; ++ph) {
            int mc = ph * TILE_WIDTH + tx, nr = ph * TILE_WIDTH + ty;
            Mds[ty][tx] = (Row < Width && mc < Width) ? M[Row * Width + mc] : 0.0f;
            Nds[ty][tx] = (nr < Width && Col < Width) ? N[nr * Width + Col] : 0.0f;
            __syncthreads();
            for (int k = 0; k < TILE_WIDTH; ++k)
                Pvalue += Mds[ty][k] * Nds[k][tx];
            __syncthreads();
        }
        if (Row < Width && Col < Width)
            P[Row * Width + Col] = Pvalue;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
