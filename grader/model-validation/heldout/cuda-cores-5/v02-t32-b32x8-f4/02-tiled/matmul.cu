// Held-out kernel v02-t32-b32x8-f4 (stage 02-tiled): 32x8 blocks (256 threads), each a 32x32 tile of P: one float4 of the 32x32 M tile and one of the N tile loaded per thread per phase, each thread computing the 4 outputs of rows ty + 8i in its column.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8   // blockDim.y: each thread computes TILE / ROWS = 4 rows of the tile

// 32x8 blocks (256 threads), each a 32x32 tile of P. Every phase each thread loads one float4 of
// the 32x32 M tile and one of the N tile (row tid / 8, columns (tid % 8) * 4 ..), then computes the
// 4 outputs of its column in rows ty + 8i.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ __align__(16) float Ms[TILE][TILE];
    __shared__ __align__(16) float Ns[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TILE + tx;
    int lr = tid / 8, lc = (tid % 8) * 4;
    int rowBase = blockIdx.y * TILE;
    int Col = blockIdx.x * TILE + tx;

    float acc[TILE / ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < Width / TILE; ++ph) {
        *reinterpret_cast<float4*>(&Ms[lr][lc]) =
            *reinterpret_cast<const float4*>(&M[(rowBase + lr) * Width + ph * TILE + lc]);
        *reinterpret_cast<float4*>(&Ns[lr][lc]) =
            *reinterpret_cast<const float4*>(&N[(ph * TILE + lr) * Width + blockIdx.x * TILE + lc]);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float n = Ns[k][tx];
            for (int i = 0; i < TILE / ROWS; ++i)
                acc[i] += Ms[ty + i * ROWS][k] * n;
        }
        __syncthreads();
    }
    for (int i = 0; i < TILE / ROWS; ++i)
        P[(rowBase + ty + i * ROWS) * Width + Col] = acc[i];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE, ROWS);
    dim3 dimGrid(Width / TILE, Width / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
