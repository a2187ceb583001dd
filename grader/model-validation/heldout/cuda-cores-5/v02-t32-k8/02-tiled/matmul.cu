// Held-out kernel v02-t32-k8 (stage 02-tiled): 32x32 blocks (1024 threads), each a 32x32 tile of P, phases 8 deep: the 32x8 M tile loaded by the threads with tx < 8, the 8x32 N tile by those with ty < 8.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32   // tile of P: 32x32, one element per thread
#define DEPTH 8   // phase depth

// 32x32 blocks (1024 threads), each a 32x32 tile of P, phases 8 deep: the 32x8 M tile loaded by
// the threads with tx < 8, the 8x32 N tile by those with ty < 8.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Ms[TILE][DEPTH];
    __shared__ float Ns[DEPTH][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE + ty;
    int Col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int ph = 0; ph < Width / DEPTH; ++ph) {
        if (tx < DEPTH) Ms[ty][tx] = M[Row * Width + ph * DEPTH + tx];
        if (ty < DEPTH) Ns[ty][tx] = N[(ph * DEPTH + ty) * Width + Col];
        __syncthreads();
        for (int k = 0; k < DEPTH; ++k)
            sum += Ms[ty][k] * Ns[k][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE, TILE);
    dim3 dimGrid(Width / TILE, Width / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
