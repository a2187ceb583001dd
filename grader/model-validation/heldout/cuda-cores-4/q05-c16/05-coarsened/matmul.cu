// Held-out kernel q05-c16 (stage 05-coarsened): coarsening by 16 columns (tile-width apart): one M tile and 16 N tiles per phase in dynamic shared memory, the tile width the widest whose 17 tiles fit (16), the 16 sums in an array.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 16

// Coarsening by 16 columns (TILE_WIDTH apart): per phase one M tile and 16 N tiles in dynamic
// shared memory; the tile width is the widest whose 17 tiles fit (16 on current GPUs).
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float shmem[];
    float* Mds = shmem;
    float* Nds = shmem + TILE_WIDTH * TILE_WIDTH;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

    int numPhases = (K + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < numPhases; ++ph) {
        int kc = ph * TILE_WIDTH + tx;
        int kr = ph * TILE_WIDTH + ty;
        if (Row < J && kc < K) Mds[ty * TILE_WIDTH + tx] = M[Row * K + kc];
        else Mds[ty * TILE_WIDTH + tx] = 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            if (kr < K && Col < L) Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = N[kr * L + Col];
            else Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[(c * TILE_WIDTH + k) * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    if (Row < J) {
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            if (Col < L) P[Row * L + Col] = Pvalue[c];
        }
    }
}

static int pickTile() {
    static int tile = 0;
    if (tile == 0) {
        cudaDeviceProp prop;
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
            fprintf(stderr, "cudaGetDeviceProperties failed; tile width 8\n");
            tile = 8;
        } else {
            tile = 8;
            for (int t = 32; t >= 8; t /= 2) {
                size_t need = (size_t)(1 + COARSE_FACTOR) * t * t * sizeof(float);
                if (need <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) { tile = t; break; }
            }
        }
    }
    return tile;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = pickTile();
    int colsPerBlock = tile * COARSE_FACTOR;
    dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + tile - 1) / tile);
    dim3 dimBlock(tile, tile);
    size_t shared = (size_t)(1 + COARSE_FACTOR) * tile * tile * sizeof(float);
    switch (tile) {
        case 32: MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        case 16: MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        default: MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
    }
}
