// Held-out kernel v03-dbuf-t32 (stage 03-boundary): 32x32 tiles (1024 threads) with shared-memory double buffering: two pairs of tiles, the next phase's bounds-tested tiles loaded into one while the other is multiplied, one barrier per phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32

// 32x32 tiles (1024 threads) with shared-memory double buffering: two pairs of tiles; the next
// phase's bounds-tested tiles are loaded into one pair while the other is multiplied, one barrier
// per phase.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Ms[2][TILE][TILE];
    __shared__ float Ns[2][TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE + ty;
    int Col = blockIdx.x * TILE + tx;
    int phases = (Width + TILE - 1) / TILE;

    Ms[0][ty][tx] = (Row < Width && tx < Width) ? M[Row * Width + tx] : 0.0f;
    Ns[0][ty][tx] = (ty < Width && Col < Width) ? N[ty * Width + Col] : 0.0f;
    __syncthreads();

    float sum = 0.0f;
    for (int ph = 0; ph < phases; ++ph) {
        int cur = ph & 1, nxt = cur ^ 1;
        if (ph + 1 < phases) {
            int mc = (ph + 1) * TILE + tx, nr = (ph + 1) * TILE + ty;
            Ms[nxt][ty][tx] = (Row < Width && mc < Width) ? M[Row * Width + mc] : 0.0f;
            Ns[nxt][ty][tx] = (nr < Width && Col < Width) ? N[nr * Width + Col] : 0.0f;
        }
        for (int k = 0; k < TILE; ++k)
            sum += Ms[cur][ty][k] * Ns[cur][k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE, TILE);
    dim3 dimGrid((Width + TILE - 1) / TILE, (Width + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
