// Held-out kernel q05-cfirst (stage 05-coarsened): coarsening by 4 columns with the loops of a phase swapped: for each column c the whole k loop (the M tile row read 4 times per phase); cudaGetDeviceProperties called at every launch.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define COARSE_FACTOR 4

// Coarsening by 4 columns (TILE_WIDTH apart) with the loops of a phase the other way round: for
// each of the 4 columns, the whole k loop (so the M tile's row is read from shared memory 4 times
// per phase). Dynamic shared memory; the tile width is asked of the device at every launch.
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float sm[];
    float* Mds = sm;
    float* Nds = sm + TILE_WIDTH * TILE_WIDTH;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int firstCol = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float sums[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) sums[c] = 0.0f;

    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < J && ph * TILE_WIDTH + tx < K)
            Mds[ty * TILE_WIDTH + tx] = M[Row * K + ph * TILE_WIDTH + tx];
        else
            Mds[ty * TILE_WIDTH + tx] = 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = firstCol + c * TILE_WIDTH;
            if (ph * TILE_WIDTH + ty < K && Col < L)
                Nds[c * TILE_WIDTH * TILE_WIDTH + ty * TILE_WIDTH + tx] = N[(ph * TILE_WIDTH + ty) * L + Col];
            else
                Nds[c * TILE_WIDTH * TILE_WIDTH + ty * TILE_WIDTH + tx] = 0.0f;
        }
        __syncthreads();
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            for (int k = 0; k < TILE_WIDTH; ++k)
                sums[c] += Mds[ty * TILE_WIDTH + k] * Nds[c * TILE_WIDTH * TILE_WIDTH + k * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = firstCol + c * TILE_WIDTH;
        if (Row < J && Col < L) P[Row * L + Col] = sums[c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int dev = 0;
    cudaDeviceProp prop;
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&prop, dev);
    int tile = 8;
    if ((1 + COARSE_FACTOR) * 32 * 32 * sizeof(float) <= prop.sharedMemPerBlock && 32 * 32 <= prop.maxThreadsPerBlock)
        tile = 32;
    else if ((1 + COARSE_FACTOR) * 16 * 16 * sizeof(float) <= prop.sharedMemPerBlock && 16 * 16 <= prop.maxThreadsPerBlock)
        tile = 16;
    size_t shared = (1 + COARSE_FACTOR) * tile * tile * sizeof(float);
    dim3 dimBlock(tile, tile);
    dim3 dimGrid((L + tile * COARSE_FACTOR - 1) / (tile * COARSE_FACTOR), (J + tile - 1) / tile);
    if (tile == 32) MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
    else if (tile == 16) MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L);
}
