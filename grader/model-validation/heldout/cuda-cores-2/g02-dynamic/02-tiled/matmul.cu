// Held-out kernel g02-dynamic (stage 02-tiled): 16x16 tiles in dynamic shared memory (extern __shared__), the tile width a run-time kernel argument (indices and the k loop's bound not known when compiling).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

// The tile width is a run-time argument and both tiles live in one extern __shared__ array
// of 2 * tile * tile floats (the third launch parameter).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width, int tile) {
    extern __shared__ float shmem[];
    float* Mds = shmem;
    float* Nds = shmem + tile * tile;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * tile + ty;
    int Col = blockIdx.x * tile + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < Width / tile; ++ph) {
        Mds[ty * tile + tx] = M[Row * Width + ph * tile + tx];
        Nds[ty * tile + tx] = N[(ph * tile + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < tile; ++k)
            Pvalue += Mds[ty * tile + k] * Nds[k * tile + tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int tile = 16;
    size_t shared = 2 * tile * tile * sizeof(float);
    dim3 dimBlock(tile, tile);
    dim3 dimGrid(Width / tile, Width / tile);
    MatrixMulKernel<<<dimGrid, dimBlock, shared>>>(M, N, P, Width, tile);
}
