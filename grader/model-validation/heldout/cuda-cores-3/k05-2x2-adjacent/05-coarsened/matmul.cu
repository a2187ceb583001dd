// Held-out kernel k05-2x2-adjacent (stage 05-coarsened): 2x2 adjacent outputs per thread (rows 2ty, 2ty + 1, columns 2tx, 2tx + 1): 16x16 threads compute a 32x32 tile of P; the 32x32 tiles loaded by a flat loop, 4 elements per thread; static shared memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE 32      // the block's tile of P is TILE x TILE, and the depth of a phase
#define THREADS_X 16
#define THREADS_Y 16

// 16 x 16 threads compute a 32 x 32 tile of P, each thread the 2 x 2 square at rows 2ty, 2ty + 1 and
// columns 2tx, 2tx + 1 of the tile. The 32 x 32 tiles of M and N are loaded by a flat loop over the
// block's 256 threads, 4 elements of each per thread.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE][TILE];
    __shared__ float Nds[TILE][TILE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * THREADS_X + tx;
    const int rowBase = blockIdx.y * TILE, colBase = blockIdx.x * TILE;

    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = 0; k0 < K; k0 += TILE) {
        for (int i = tid; i < TILE * TILE; i += THREADS_X * THREADS_Y) {
            int r = i / TILE, c = i % TILE;
            Mds[r][c] = (rowBase + r < J && k0 + c < K) ? M[(rowBase + r) * K + k0 + c] : 0.0f;
            Nds[r][c] = (k0 + r < K && colBase + c < L) ? N[(k0 + r) * L + colBase + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float m0 = Mds[2 * ty][k], m1 = Mds[2 * ty + 1][k];
            float n0 = Nds[k][2 * tx], n1 = Nds[k][2 * tx + 1];
            acc[0][0] += m0 * n0;
            acc[0][1] += m0 * n1;
            acc[1][0] += m1 * n0;
            acc[1][1] += m1 * n1;
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i) {
        int Row = rowBase + 2 * ty + i;
        if (Row >= J) continue;
        for (int j = 0; j < 2; ++j) {
            int Col = colBase + 2 * tx + j;
            if (Col < L) P[Row * L + Col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS_X, THREADS_Y);
    dim3 dimGrid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
