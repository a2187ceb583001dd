// Held-out kernel g05-c3 (stage 05-coarsened): the book's column coarsening with factor 3, the tile width asked of the device (cudaDeviceGetAttribute) at every launch, the 3 N tiles stored as one wide tile.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define COARSE_FACTOR 3

// The book's coarsening with 3 columns per thread, TILE_WIDTH apart. The COARSE_FACTOR tiles of N are
// stored as one wide TILE_WIDTH x (COARSE_FACTOR * TILE_WIDTH) tile after the tile of M.
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    const int NW = COARSE_FACTOR * TILE_WIDTH;   // row length of the wide N tile
    float* Mds = smem;
    float* Nds = smem + TILE_WIDTH * TILE_WIDTH;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * NW + tx;
    float Pvalue[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f};
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            Nds[ty * NW + c * TILE_WIDTH + tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[k * NW + c * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * TILE_WIDTH;
        if (Row < J && Col < L)
            P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

// Asks the device at every launch (cudaDeviceGetAttribute) for the largest tile in {32, 16, 8} that fits.
static int pickTile() {
    int dev = 0, smem = 0, maxThreads = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, dev);
    for (int t = 32; t > 8; t /= 2)
        if ((1 + COARSE_FACTOR) * t * t * (int)sizeof(float) <= smem && t * t <= maxThreads)
            return t;
    return 8;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = pickTile();
    dim3 dimBlock(tile, tile);
    dim3 dimGrid((L + tile * COARSE_FACTOR - 1) / (tile * COARSE_FACTOR), (J + tile - 1) / tile);
    size_t shared = (1 + COARSE_FACTOR) * tile * tile * sizeof(float);
    if (tile == 32)
        MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
    else if (tile == 16)
        MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
}
