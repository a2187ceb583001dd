// Held-out kernel k05-c4-mf4 (stage 05-coarsened): the book's coarsening by 4 (32x32 tiles, dynamic shared memory, tile width from the device) with the k loop stepping by 4 and the M row read from shared memory as one float4 per step.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 4

// The book's coarsening (4 columns of P per thread, TILE_WIDTH apart; one M tile and 4 N tiles per
// phase in dynamic shared memory), with the inner loop taking 4 values of k at a time: the 4 values
// of the thread's row of Mds are one float4 read (TILE_WIDTH is a multiple of 4, so each row of Mds
// and each group of 4 in it start on a 16-byte boundary).
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ __align__(16) float Mds_Nds[];
    float* Mds = Mds_Nds;
    float* Nds = Mds_Nds + TILE_WIDTH * TILE_WIDTH;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR];
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mCol < K) ? M[Row * K + mCol] : 0.0f;
        int nRow = ph * TILE_WIDTH + ty;
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            int Col = colStart + c * TILE_WIDTH;
            Nds[(c * TILE_WIDTH + ty) * TILE_WIDTH + tx] = (nRow < K && Col < L) ? N[nRow * L + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; k += 4) {
            float4 m = *reinterpret_cast<const float4*>(&Mds[ty * TILE_WIDTH + k]);
            for (int c = 0; c < COARSE_FACTOR; ++c) {
                const float* Nc = Nds + c * TILE_WIDTH * TILE_WIDTH;
                Pvalue[c] += m.x * Nc[(k + 0) * TILE_WIDTH + tx];
                Pvalue[c] += m.y * Nc[(k + 1) * TILE_WIDTH + tx];
                Pvalue[c] += m.z * Nc[(k + 2) * TILE_WIDTH + tx];
                Pvalue[c] += m.w * Nc[(k + 3) * TILE_WIDTH + tx];
            }
        }
        __syncthreads();
    }
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        int Col = colStart + c * TILE_WIDTH;
        if (Row < J && Col < L) P[Row * L + Col] = Pvalue[c];
    }
}

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen == 0) {
        int device = 0;
        cudaDeviceProp prop;
        if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
            fprintf(stderr, "cannot read the device properties; using 16 x 16 tiles\n");
            chosen = 16;
            return chosen;
        }
        chosen = 8;
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
