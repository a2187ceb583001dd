// Held-out kernel v05-c4-prefetch (stage 05-coarsened): the book's coarsening by 4 (columns T apart, dynamic shared memory, tile width from the device) with register prefetching: the next phase's element of M and 4 elements of N loaded after the first barrier, before the products, and stored at the start of the next phase.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

// The book's coarsening by 4 (columns T apart, dynamic shared memory) with register prefetching:
// the next phase's element of M and 4 elements of N are loaded into registers before this phase's
// products and stored into the tiles after the second barrier.
template <int T>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    float* Mds = smem;
    float* Nds = smem + T * T;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int colStart = blockIdx.x * T * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

    // phase 0 into registers
    float mNext = (Row < J && tx < K) ? M[(size_t)Row * K + tx] : 0.0f;
    float nNext[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * T;
        nNext[c] = (ty < K && Col < L) ? N[(size_t)ty * L + Col] : 0.0f;
    }

    int phases = (K + T - 1) / T;
    for (int ph = 0; ph < phases; ++ph) {
        Mds[ty * T + tx] = mNext;
        for (int c = 0; c < COARSE_FACTOR; ++c) Nds[(c * T + ty) * T + tx] = nNext[c];
        __syncthreads();

        if (ph + 1 < phases) {
            int mCol = (ph + 1) * T + tx, nRow = (ph + 1) * T + ty;
            mNext = (Row < J && mCol < K) ? M[(size_t)Row * K + mCol] : 0.0f;
            for (int c = 0; c < COARSE_FACTOR; ++c) {
                int Col = colStart + c * T;
                nNext[c] = (nRow < K && Col < L) ? N[(size_t)nRow * L + Col] : 0.0f;
            }
        }

        for (int k = 0; k < T; ++k) {
            float m = Mds[ty * T + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[(c * T + k) * T + tx];
        }
        __syncthreads();
    }

    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * T;
        if (Row < J && Col < L) P[(size_t)Row * L + Col] = Pvalue[c];
    }
}

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen == 0) {
        int device = 0;
        cudaDeviceProp prop;
        if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
            fprintf(stderr, "no device properties; 16 x 16 tiles\n");
            chosen = 16;
            return chosen;
        }
        for (int t = 32; t >= 8; t /= 2)
            if ((1 + COARSE_FACTOR) * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) {
                chosen = t;
                break;
            }
    }
    return chosen;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = chooseTileWidth();
    int colsPerBlock = tile * COARSE_FACTOR;
    dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + tile - 1) / tile);
    dim3 dimBlock(tile, tile);
    size_t shared = (1 + COARSE_FACTOR) * (size_t)tile * tile * sizeof(float);
    switch (tile) {
        case 32: MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        case 16: MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        default: MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
    }
}
