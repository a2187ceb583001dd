// Held-out kernel v05-c4-dbuf (stage 05-coarsened): coarsening by 4 columns with shared-memory double buffering: two sets of one M tile and 4 N tiles in dynamic shared memory, the next phase loaded into one while the other is multiplied, one barrier per phase; tile width from cudaDeviceGetAttribute (the widest whose two sets fit), asked once.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define COARSE 4

// Coarsening by 4 columns (T apart) with shared-memory double buffering: two sets of one M tile and
// 4 N tiles in dynamic shared memory; the next phase's tiles are loaded into the other set while
// this one is multiplied, one barrier per phase. Tile width from cudaDeviceGetAttribute (the
// largest whose two sets fit), asked once.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float buf[];   // 2 x (1 + COARSE) tiles of T x T

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int colStart = blockIdx.x * T * COARSE + tx;
    const int setSize = (1 + COARSE) * T * T;

    float s[COARSE] = {0.0f, 0.0f, 0.0f, 0.0f};
    int phases = (K + T - 1) / T;

    for (int ph = -1; ph < phases; ++ph) {
        // load phase ph + 1 into set (ph + 1) & 1
        if (ph + 1 < phases) {
            float* Ms = buf + ((ph + 1) & 1) * setSize;
            float* Ns = Ms + T * T;
            int mc = (ph + 1) * T + tx, nr = (ph + 1) * T + ty;
            Ms[ty * T + tx] = (Row < J && mc < K) ? M[(size_t)Row * K + mc] : 0.0f;
            for (int c = 0; c < COARSE; ++c) {
                int Col = colStart + c * T;
                Ns[c * T * T + ty * T + tx] = (nr < K && Col < L) ? N[(size_t)nr * L + Col] : 0.0f;
            }
        }
        // multiply phase ph from set ph & 1 (loaded before the last barrier)
        if (ph >= 0) {
            const float* Ms = buf + (ph & 1) * setSize;
            const float* Ns = Ms + T * T;
            for (int k = 0; k < T; ++k) {
                float m = Ms[ty * T + k];
                for (int c = 0; c < COARSE; ++c) s[c] += m * Ns[c * T * T + k * T + tx];
            }
        }
        __syncthreads();
    }

    for (int c = 0; c < COARSE; ++c) {
        int Col = colStart + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = s[c];
    }
}

static int g_tile = 0;

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (g_tile == 0) {
        int dev = 0, smem = 0, maxThreads = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
        cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, dev);
        g_tile = 8;
        for (int t = 32; t > 8; t /= 2)
            if (2 * (1 + COARSE) * t * t * (int)sizeof(float) <= smem && t * t <= maxThreads) {
                g_tile = t;
                break;
            }
    }
    int t = g_tile;
    dim3 block(t, t);
    dim3 grid((L + t * COARSE - 1) / (t * COARSE), (J + t - 1) / t);
    size_t bytes = 2 * (1 + COARSE) * (size_t)t * t * sizeof(float);
    if (t == 32) MatrixMulKernel<32><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<grid, block, bytes>>>(M, N, P, J, K, L);
}
