// Held-out kernel g03-dyn-ternary (stage 03-boundary): 16x16 tiles in dynamic shared memory with the width a run-time argument, bounds tests as ternaries, (Width - 1) / tile + 1 phases.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

// Run-time tile width, tiles in dynamic shared memory, bounds tests written as ternaries and the
// phase count as (Width - 1) / tile + 1.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width, int tile) {
    extern __shared__ float tiles[];
    float* Mds = tiles;
    float* Nds = tiles + tile * tile;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * tile + ty;
    int Col = blockIdx.x * tile + tx;
    float Pvalue = 0.0f;
    int phases = (Width - 1) / tile + 1;
    for (int ph = 0; ph < phases; ++ph) {
        int mc = ph * tile + tx;
        int nr = ph * tile + ty;
        Mds[ty * tile + tx] = (Row < Width && mc < Width) ? M[Row * Width + mc] : 0.0f;
        Nds[ty * tile + tx] = (nr < Width && Col < Width) ? N[nr * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < tile; ++k)
            Pvalue += Mds[ty * tile + k] * Nds[k * tile + tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    const int tile = 16;
    int blocks = (Width - 1) / tile + 1;
    dim3 dimBlock(tile, tile);
    dim3 dimGrid(blocks, blocks);
    MatrixMulKernel<<<dimGrid, dimBlock, 2 * tile * tile * sizeof(float)>>>(M, N, P, Width, tile);
}
