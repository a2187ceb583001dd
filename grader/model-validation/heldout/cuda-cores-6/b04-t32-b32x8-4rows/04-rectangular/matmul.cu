// Held-out kernel b04-t32-b32x8-4rows (stage 04-rectangular): 32x8 blocks (256 threads), each a 32x32 tile of P: every thread loads rows ty + 8i of both 32x32 tiles (ternary zero fill, #pragma unroll) and computes the 4 outputs of those rows, the N value of a step read once, sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 32
#define BY 8

// 32x8 blocks (256 threads), each a 32x32 tile of P: each thread loads rows ty + 8i of both 32x32
// tiles and computes the 4 outputs of those rows in one column, the N value of a step read once.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * TILE_WIDTH;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TILE_WIDTH) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            int r = ty + i * BY;
            int gr = rowBase + r;
            Mds[r][tx] = (gr < J && k0 + tx < K) ? M[gr * K + k0 + tx] : 0.0f;
            Nds[r][tx] = (k0 + r < K && Col < L) ? N[(k0 + r) * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float n = Nds[k][tx];
#pragma unroll
            for (int i = 0; i < 4; ++i) s[i] += Mds[ty + i * BY][k] * n;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int gr = rowBase + ty + i * BY;
        if (gr < J && Col < L) P[gr * L + Col] = s[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, BY);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
