// Held-out kernel q05-rows3 (stage 05-coarsened): coarsening along rows by 3: TxT threads compute a 3T x T tile of P (rows T apart), 3 M tiles and 1 N tile per phase in dynamic shared memory, three scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define ROW_FACTOR 3

// Coarsening along rows by 3: a TxT block computes a 3T x T tile of P, each thread rows
// Row + iT (i < 3) of one column. Per phase 3 M tiles and one N tile in dynamic shared memory, the
// thread's N value of step k read once for its 3 sums.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float tiles[];
    float* Mt = tiles;                    // ROW_FACTOR tiles of T x T
    float* Nt = tiles + ROW_FACTOR * T * T;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * (ROW_FACTOR * T) + ty;
    int Col = blockIdx.x * T + tx;

    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int kc = ph * T + tx;
        for (int i = 0; i < ROW_FACTOR; ++i) {
            int r = Row + i * T;
            Mt[(i * T + ty) * T + tx] = (r < J && kc < K) ? M[(size_t)r * K + kc] : 0.0f;
        }
        int kr = ph * T + ty;
        Nt[ty * T + tx] = (kr < K && Col < L) ? N[(size_t)kr * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float n = Nt[k * T + tx];
            s0 += Mt[(0 * T + ty) * T + k] * n;
            s1 += Mt[(1 * T + ty) * T + k] * n;
            s2 += Mt[(2 * T + ty) * T + k] * n;
        }
        __syncthreads();
    }
    if (Col < L) {
        if (Row < J) P[(size_t)Row * L + Col] = s0;
        if (Row + T < J) P[(size_t)(Row + T) * L + Col] = s1;
        if (Row + 2 * T < J) P[(size_t)(Row + 2 * T) * L + Col] = s2;
    }
}

static int g_tile = 0;

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (g_tile == 0) {
        cudaDeviceProp prop;
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
            fprintf(stderr, "no device properties; using 16\n");
            g_tile = 16;
        } else {
            for (g_tile = 32; g_tile > 8; g_tile /= 2)
                if ((ROW_FACTOR + 1) * g_tile * g_tile * sizeof(float) <= prop.sharedMemPerBlock &&
                    g_tile * g_tile <= prop.maxThreadsPerBlock)
                    break;
        }
    }
    int t = g_tile;
    size_t bytes = (ROW_FACTOR + 1) * (size_t)t * t * sizeof(float);
    dim3 dimBlock(t, t);
    dim3 dimGrid((L + t - 1) / t, (J + ROW_FACTOR * t - 1) / (ROW_FACTOR * t));
    if (t == 32) MatrixMulKernel<32><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
}
