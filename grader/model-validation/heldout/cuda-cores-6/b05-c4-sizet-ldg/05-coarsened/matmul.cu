// Held-out kernel b05-c4-sizet-ldg (stage 05-coarsened): the book's coarsening by 4 (columns T apart, dynamic shared memory, tile width from cudaGetDeviceProperties asked once) with every index a size_t, const __restrict__ pointers and __ldg tile loads.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

// The book's coarsening by 4 with size_t indices, const __restrict__ pointers and __ldg loads;
// tile width from cudaGetDeviceProperties, asked once.
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N,
                                float* __restrict__ P, int J, int K, int L) {
    extern __shared__ float Mds_Nds[];
    float* Mds = Mds_Nds;
    float* Nds = Mds_Nds + TILE_WIDTH * TILE_WIDTH;
    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t Row = (size_t)blockIdx.y * TILE_WIDTH + ty;
    size_t colStart = (size_t)blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;
    size_t JJ = J, KK = K, LL = L;
    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;
    for (size_t k0 = 0; k0 < KK; k0 += TILE_WIDTH) {
        Mds[ty * TILE_WIDTH + tx] = (Row < JJ && k0 + tx < KK) ? __ldg(&M[Row * KK + k0 + tx]) : 0.0f;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            size_t Col = colStart + (size_t)c * TILE_WIDTH;
            Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] =
                (k0 + ty < KK && Col < LL) ? __ldg(&N[(k0 + ty) * LL + Col]) : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[(c * TILE_WIDTH + k) * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        size_t Col = colStart + (size_t)c * TILE_WIDTH;
        if (Row < JJ && Col < LL) P[Row * LL + Col] = Pvalue[c];
    }
}

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen == 0) {
        int device = 0;
        cudaDeviceProp prop;
        chosen = 16;
        if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
            for (int t = 32; t >= 8; t /= 2)
                if ((1 + COARSE_FACTOR) * t * t * sizeof(float) <= prop.sharedMemPerBlock &&
                    t * t <= prop.maxThreadsPerBlock) {
                    chosen = t;
                    break;
                }
        }
    }
    return chosen;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int tile = chooseTileWidth();
    dim3 dimGrid((L + tile * COARSE_FACTOR - 1) / (tile * COARSE_FACTOR), (J + tile - 1) / tile);
    dim3 dimBlock(tile, tile);
    size_t shared = (1 + COARSE_FACTOR) * (size_t)tile * tile * sizeof(float);
    switch (tile) {
        case 32: MatrixMulKernel<32><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        case 16: MatrixMulKernel<16><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
        default: MatrixMulKernel<8><<<dimGrid, dimBlock, shared>>>(M, N, P, J, K, L); break;
    }
}
