// Held-out kernel q05-ntrans-pad (stage 05-coarsened): the book's coarsening by 4 with each N tile stored transposed (NdsT[c][tx][ty], rows padded to T + 1) and read as NdsT[c][tx][k]; dynamic shared memory, tile width from the device's properties.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

// The book's coarsening by 4 columns with each N tile stored transposed, NdsT[c][tx][ty] (rows of
// T + 1 floats so the transposed stores do not conflict), and read as NdsT[c][tx][k], a row of the
// transposed tile; dynamic shared memory, tile width from the device.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float buf[];
    float* Mds = buf;                   // T x T
    float* NdsT = buf + T * T;          // COARSE_FACTOR x T x (T + 1)
    const int S = T + 1;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int colStart = blockIdx.x * T * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int mCol = ph * T + tx;
        Mds[ty * T + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        int nRow = ph * T + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * T;
            NdsT[(c * T + tx) * S + ty] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float m = Mds[ty * T + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * NdsT[(c * T + tx) * S + k];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

static size_t sharedBytes(int t) { return ((size_t)t * t + (size_t)COARSE_FACTOR * t * (t + 1)) * sizeof(float); }

static int chooseTile() {
    static int chosen = 0;
    if (chosen) return chosen;
    cudaDeviceProp prop;
    int dev;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "cannot read device properties, tile 16\n");
        return chosen = 16;
    }
    chosen = 8;
    for (int t = 32; t > 8; t /= 2)
        if (sharedBytes(t) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) { chosen = t; break; }
    return chosen;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = chooseTile();
    dim3 dimBlock(t, t);
    dim3 dimGrid((L + t * COARSE_FACTOR - 1) / (t * COARSE_FACTOR), (J + t - 1) / t);
    if (t == 32) MatrixMulKernel<32><<<dimGrid, dimBlock, sharedBytes(32)>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<dimGrid, dimBlock, sharedBytes(16)>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<dimGrid, dimBlock, sharedBytes(8)>>>(M, N, P, J, K, L);
}
