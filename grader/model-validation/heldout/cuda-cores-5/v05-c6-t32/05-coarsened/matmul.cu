// Held-out kernel v05-c6-t32 (stage 05-coarsened): the book's column coarsening with factor 6: TxT threads compute a T x 6T region of P (columns T apart), one M tile and 6 N tiles per phase in dynamic shared memory, the tile width the widest whose 7 tiles fit (cudaGetDeviceProperties, asked once).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE 6

// The book's column coarsening with factor 6: TxT threads compute a T x 6T region of P (columns T
// apart), one M tile and 6 N tiles per phase in dynamic shared memory, the 6 sums in an array; the
// tile width the widest in {32, 16, 8} whose 7 tiles fit, from the device's properties, asked once.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float sm[];
    float* Ms = sm;           // T x T
    float* Ns = sm + T * T;   // COARSE tiles of T x T

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int col0 = blockIdx.x * T * COARSE + tx;

    float acc[COARSE];
    for (int c = 0; c < COARSE; ++c) acc[c] = 0.0f;

    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int mc = ph * T + tx, nr = ph * T + ty;
        Ms[ty * T + tx] = (Row < J && mc < K) ? M[(size_t)Row * K + mc] : 0.0f;
        for (int c = 0; c < COARSE; ++c) {
            int Col = col0 + c * T;
            Ns[c * T * T + ty * T + tx] = (nr < K && Col < L) ? N[(size_t)nr * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float m = Ms[ty * T + k];
            for (int c = 0; c < COARSE; ++c)
                acc[c] += m * Ns[c * T * T + k * T + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE; ++c) {
        int Col = col0 + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = acc[c];
    }
}

static int tileWidth() {
    static int t = 0;
    if (t) return t;
    cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "cannot read the device properties; tile width 16\n");
        return t = 16;
    }
    for (t = 32; t > 8; t /= 2)
        if ((1 + COARSE) * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock)
            break;
    return t;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = tileWidth();
    dim3 block(t, t);
    dim3 grid((L + t * COARSE - 1) / (t * COARSE), (J + t - 1) / t);
    size_t bytes = (1 + COARSE) * (size_t)t * t * sizeof(float);
    if (t == 32) MatrixMulKernel<32><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<grid, block, bytes>>>(M, N, P, J, K, L);
}
