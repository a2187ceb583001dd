// Held-out kernel b05-c4-pad-t32 (stage 05-coarsened): the book's coarsening by 4 with every tile's rows padded by one float (T x (T + 1), padding where no conflict was) in dynamic shared memory, tile width from cudaDeviceGetAttribute asked once (32 on the GPU).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

// The book's coarsening by 4 with every tile's rows padded by one float (T x (T + 1)), where the
// unpadded tiles had no conflicts; tile width from cudaDeviceGetAttribute, asked once.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float sm[];
    const int S = T + 1;                 // padded row
    float* Mds = sm;                     // T x S
    float* Nds = sm + T * S;             // COARSE_FACTOR tiles of T x S
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int colStart = blockIdx.x * T * COARSE_FACTOR + tx;
    float acc[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int mc = ph * T + tx, nr = ph * T + ty;
        if (Row < J && mc < K) Mds[ty * S + tx] = M[(size_t)Row * K + mc];
        else Mds[ty * S + tx] = 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * T;
            if (nr < K && Col < L) Nds[c * T * S + ty * S + tx] = N[(size_t)nr * L + Col];
            else Nds[c * T * S + ty * S + tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float m = Mds[ty * S + k];
            for (int c = 0; c < COARSE_FACTOR; ++c) acc[c] += m * Nds[c * T * S + k * S + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = acc[c];
    }
}

static int tileWidth() {
    static int t = 0;
    if (t) return t;
    int dev = 0, smem = 0, maxThreads = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, dev);
    t = 8;
    for (int w = 32; w >= 8; w /= 2)
        if ((size_t)(1 + COARSE_FACTOR) * w * (w + 1) * sizeof(float) <= (size_t)smem && w * w <= maxThreads) {
            t = w;
            break;
        }
    return t;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = tileWidth();
    dim3 block(t, t);
    dim3 grid((L + t * COARSE_FACTOR - 1) / (t * COARSE_FACTOR), (J + t - 1) / t);
    size_t bytes = (size_t)(1 + COARSE_FACTOR) * t * (t + 1) * sizeof(float);
    if (t == 32) MatrixMulKernel<32><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<grid, block, bytes>>>(M, N, P, J, K, L);
}
