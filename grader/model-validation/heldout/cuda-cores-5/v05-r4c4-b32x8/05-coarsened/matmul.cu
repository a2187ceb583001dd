// Held-out kernel v05-r4c4-b32x8 (stage 05-coarsened): 32x8 blocks (256 threads) computing a 32x128 region of P: each thread 4 rows (ty + 8i) x 4 columns (tx + 32j), 16 sums; per phase one 32x32 M tile (4 elements per thread) and 4 N tiles (16 per thread) in static shared memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define T 32    // tile width and phase depth
#define BY 8    // blockDim.y
#define RF 4    // rows per thread (T / BY), BY apart
#define CF 4    // N tiles per phase: columns per thread, T apart

// 32x8 blocks (256 threads) computing a 32x128 region of P: each thread 4 rows (ty + 8i) x 4
// columns (tx + 32j), 16 sums; per phase one 32x32 M tile (4 elements per thread) and 4 N tiles
// (16 per thread) in static shared memory.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[T][T];
    __shared__ float Ns[T][CF * T];

    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * T;
    int colBase = blockIdx.x * CF * T;

    float acc[RF][CF];
    for (int i = 0; i < RF; ++i)
        for (int j = 0; j < CF; ++j) acc[i][j] = 0.0f;

    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int k0 = ph * T;
        for (int i = 0; i < RF; ++i) {
            int r = ty + i * BY;
            Ms[r][tx] = (rowBase + r < J && k0 + tx < K) ? M[(size_t)(rowBase + r) * K + k0 + tx] : 0.0f;
            for (int j = 0; j < CF; ++j) {
                int c = colBase + j * T + tx;
                Ns[r][j * T + tx] = (k0 + r < K && c < L) ? N[(size_t)(k0 + r) * L + c] : 0.0f;
            }
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float b[CF];
            for (int j = 0; j < CF; ++j) b[j] = Ns[k][j * T + tx];
            for (int i = 0; i < RF; ++i) {
                float a = Ms[ty + i * BY][k];
                for (int j = 0; j < CF; ++j) acc[i][j] += a * b[j];
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < RF; ++i) {
        int r = rowBase + ty + i * BY;
        if (r >= J) continue;
        for (int j = 0; j < CF; ++j) {
            int c = colBase + j * T + tx;
            if (c < L) P[(size_t)r * L + c] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(T, BY);
    dim3 grid((L + CF * T - 1) / (CF * T), (J + T - 1) / T);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
