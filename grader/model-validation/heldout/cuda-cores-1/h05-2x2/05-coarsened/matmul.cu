// Held-out kernel h05-2x2 (stage 05-coarsened): 2x2 outputs per thread: 16x16 threads compute a 32x32 tile of P (outputs 16 apart), 32x32 tiles in static shared memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define HALF (TILE_WIDTH / 2)

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int bRow = blockIdx.y * TILE_WIDTH, bCol = blockIdx.x * TILE_WIDTH;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int k0 = ph * TILE_WIDTH;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                int r = ty + i * HALF, c = tx + j * HALF;
                Mds[r][c] = (bRow + r < J && k0 + c < K) ? M[(size_t)(bRow + r) * K + k0 + c] : 0.0f;
                Nds[r][c] = (k0 + r < K && bCol + c < L) ? N[(size_t)(k0 + r) * L + bCol + c] : 0.0f;
            }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float a0 = Mds[ty][k], a1 = Mds[ty + HALF][k];
            float b0 = Nds[k][tx], b1 = Nds[k][tx + HALF];
            acc[0][0] += a0 * b0;
            acc[0][1] += a0 * b1;
            acc[1][0] += a1 * b0;
            acc[1][1] += a1 * b1;
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            int Row = bRow + ty + i * HALF, Col = bCol + tx + j * HALF;
            if (Row < J && Col < L) P[(size_t)Row * L + Col] = acc[i][j];
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(HALF, HALF);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
