// Held-out kernel b05-c4-1d256-t16 (stage 05-coarsened): the book's coarsening by 4 (columns 16 apart) with 1-D blocks of 256 threads (tx = t % 16, ty = t / 16), fixed 16-wide tiles in dynamic shared memory (no device query).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4
#define T 16

// The book's coarsening by 4 (columns T apart) with 1-D blocks of 256 threads (tx = t % 16,
// ty = t / 16) and fixed 16-wide tiles in dynamic shared memory.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float Mds_Nds[];
    float* Mds = Mds_Nds;
    float* Nds = Mds_Nds + T * T;
    int tx = threadIdx.x % T, ty = threadIdx.x / T;
    int Row = blockIdx.y * T + ty;
    int colStart = blockIdx.x * T * COARSE_FACTOR + tx;
    float Pvalue[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int mc = ph * T + tx;
        Mds[ty * T + tx] = (Row < J && mc < K) ? M[(size_t)Row * K + mc] : 0.0f;
        int nr = ph * T + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * T;
            Nds[c * T * T + ty * T + tx] = (nr < K && Col < L) ? N[(size_t)nr * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float m = Mds[ty * T + k];
            for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] += m * Nds[c * T * T + k * T + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(T * T);
    dim3 grid((L + T * COARSE_FACTOR - 1) / (T * COARSE_FACTOR), (J + T - 1) / T);
    size_t bytes = (1 + COARSE_FACTOR) * T * T * sizeof(float);
    MatrixMulKernel<<<grid, block, bytes>>>(M, N, P, J, K, L);
}
