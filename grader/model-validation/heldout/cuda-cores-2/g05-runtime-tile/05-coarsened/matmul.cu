// Held-out kernel g05-runtime-tile (stage 05-coarsened): coarsening by 4 with the tile width an ordinary kernel argument instead of a template parameter (run-time indices and k bound).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define COARSE_FACTOR 4

// No template: the tile width is an ordinary kernel argument, so every index and the k loop's bound
// are run-time values. Tiles as in the book's layout: M, then the COARSE_FACTOR tiles of N.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L, int tile) {
    extern __shared__ float sm[];
    float* Mds = sm;
    float* Nds = sm + tile * tile;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * tile + ty;
    int colStart = blockIdx.x * tile * COARSE_FACTOR + tx;
    float Pvalue[COARSE_FACTOR] = {0.0f, 0.0f, 0.0f, 0.0f};
    int phases = (K + tile - 1) / tile;
    for (int ph = 0; ph < phases; ++ph) {
        int mCol = ph * tile + tx;
        int nRow = ph * tile + ty;
        Mds[ty * tile + tx] = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * tile;
            Nds[c * tile * tile + ty * tile + tx] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < tile; ++k) {
            float m = Mds[ty * tile + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[c * tile * tile + k * tile + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * tile;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen) return chosen;
    cudaDeviceProp prop;
    int device = 0;
    chosen = 16;
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        for (int t = 32; t >= 8; t /= 2) {
            if ((1 + COARSE_FACTOR) * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) {
                chosen = t;
                break;
            }
        }
    }
    return chosen;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = chooseTileWidth();
    dim3 dimBlock(tile, tile);
    dim3 dimGrid((L + tile * COARSE_FACTOR - 1) / (tile * COARSE_FACTOR), (J + tile - 1) / tile);
    size_t shared = (1 + COARSE_FACTOR) * tile * tile * sizeof(float);
    MatrixMulKernel<<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L, tile);
}
