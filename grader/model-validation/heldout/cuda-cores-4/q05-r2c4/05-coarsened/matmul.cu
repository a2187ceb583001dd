// Held-out kernel q05-r2c4 (stage 05-coarsened): coarsening 2 rows x 4 columns (tile-width apart): TxT threads compute a 2T x 4T region of P, 8 sums, 2 M tiles and 4 N tiles per phase in dynamic shared memory; tile width from cudaDeviceGetAttribute, asked once.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define ROWS 2   // rows of tiles of P per block
#define COLS 4   // columns of tiles of P per block

// Coarsening both ways: a TxT block computes a (2T) x (4T) region of P, each thread rows Row + iT
// (i < 2) and columns Col + cT (c < 4), 8 sums. Per phase the block loads 2 M tiles and 4 N tiles
// into dynamic shared memory (Ms: 2 tiles, then Ns: 4 tiles).
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    float* Ms = smem;                 // ROWS tiles: Ms[(i*T + ty)*T + tx]
    float* Ns = smem + ROWS * T * T;  // COLS tiles: Ns[(c*T + ty)*T + tx]

    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * ROWS * T + ty;
    int col0 = blockIdx.x * COLS * T + tx;

    float acc[ROWS][COLS];
    for (int i = 0; i < ROWS; ++i)
        for (int c = 0; c < COLS; ++c) acc[i][c] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < ROWS; ++i) {
            int r = row0 + i * T;
            Ms[(i * T + ty) * T + tx] = (r < J && k0 + tx < K) ? M[(size_t)r * K + k0 + tx] : 0.0f;
        }
        for (int c = 0; c < COLS; ++c) {
            int col = col0 + c * T;
            Ns[(c * T + ty) * T + tx] = (k0 + ty < K && col < L) ? N[(size_t)(k0 + ty) * L + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float a[ROWS], b[COLS];
            for (int i = 0; i < ROWS; ++i) a[i] = Ms[(i * T + ty) * T + k];
            for (int c = 0; c < COLS; ++c) b[c] = Ns[(c * T + k) * T + tx];
            for (int i = 0; i < ROWS; ++i)
                for (int c = 0; c < COLS; ++c) acc[i][c] += a[i] * b[c];
        }
        __syncthreads();
    }

    for (int i = 0; i < ROWS; ++i) {
        int r = row0 + i * T;
        if (r >= J) break;
        for (int c = 0; c < COLS; ++c) {
            int col = col0 + c * T;
            if (col < L) P[(size_t)r * L + col] = acc[i][c];
        }
    }
}

// The widest of 32, 16, 8 whose 6 tiles fit the block's shared memory (asked once).
static int tileWidth() {
    static int tile = 0;
    if (tile) return tile;
    int dev = 0, smem = 0, maxThreads = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, dev) != cudaSuccess) {
        fprintf(stderr, "device attributes unavailable, using tiles of 16\n");
        return tile = 16;
    }
    for (int t = 32; t >= 8; t /= 2) {
        if ((size_t)(ROWS + COLS) * t * t * sizeof(float) <= (size_t)smem && t * t <= maxThreads) return tile = t;
    }
    return tile = 8;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = tileWidth();
    dim3 dimBlock(t, t);
    dim3 dimGrid((L + COLS * t - 1) / (COLS * t), (J + ROWS * t - 1) / (ROWS * t));
    size_t bytes = (size_t)(ROWS + COLS) * t * t * sizeof(float);
    if (t == 32) MatrixMulKernel<32><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
}
