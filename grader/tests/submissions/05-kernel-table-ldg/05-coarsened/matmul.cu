// Known-good submission for stage 05-coarsened (no false alarm on code from elsewhere): the
// coarsened kernel written with what tuning tutorials teach -- __launch_bounds__ on the template,
// __ldg loads of M and N, the COARSE_FACTOR partial sums in a register array under #pragma unroll,
// the dynamic shared array split into pointers, the tile width chosen once from
// cudaDeviceGetAttribute (not cudaGetDeviceProperties), and the launch through a table of kernel
// pointers indexed by the chosen width (a function pointer in the <<< >>>). Must pass on both
// backends.
#include <cuda_runtime.h>

#define COARSE_FACTOR 4

template <int TILE_WIDTH>
__global__ void __launch_bounds__(TILE_WIDTH * TILE_WIDTH)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    extern __shared__ float Mds_Nds[];  // (1 + COARSE_FACTOR) * TILE_WIDTH^2 floats
    float* const Mds = Mds_Nds;
    float* const Nds = Mds_Nds + TILE_WIDTH * TILE_WIDTH;

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Row = blockIdx.y * TILE_WIDTH + ty;
    const int colStart = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;

    float Pvalue[COARSE_FACTOR];
#pragma unroll
    for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        const int mCol = ph * TILE_WIDTH + tx;
        const int nRow = ph * TILE_WIDTH + ty;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mCol < K) ? __ldg(&M[Row * K + mCol]) : 0.0f;
#pragma unroll
        for (int c = 0; c < COARSE_FACTOR; ++c) {
            const int Col = colStart + c * TILE_WIDTH;
            Nds[c * TILE_WIDTH * TILE_WIDTH + ty * TILE_WIDTH + tx] =
                (nRow < K && Col < L) ? __ldg(&N[nRow * L + Col]) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TILE_WIDTH; ++k) {
            const float m = Mds[ty * TILE_WIDTH + k];
#pragma unroll
            for (int c = 0; c < COARSE_FACTOR; ++c)
                Pvalue[c] += m * Nds[c * TILE_WIDTH * TILE_WIDTH + k * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
#pragma unroll
    for (int c = 0; c < COARSE_FACTOR; ++c) {
        const int Col = colStart + c * TILE_WIDTH;
        if (Row < J && Col < L) P[Row * L + Col] = Pvalue[c];
    }
}

static size_t sharedBytes(int tile) { return (1 + COARSE_FACTOR) * (size_t)tile * tile * sizeof(float); }

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen != 0) return chosen;
    int device = 0, smemPerBlock = 0, maxThreads = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&smemPerBlock, cudaDevAttrMaxSharedMemoryPerBlock, device);
    cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, device);
    chosen = 8;
    for (int t = 32; t > 8; t /= 2) {
        if (sharedBytes(t) <= (size_t)smemPerBlock && t * t <= maxThreads) {
            chosen = t;
            break;
        }
    }
    return chosen;
}

typedef void (*MatmulKernel)(const float*, const float*, float*, int, int, int);

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    static const MatmulKernel kernels[] = {MatrixMulKernel<8>, MatrixMulKernel<16>, MatrixMulKernel<32>};
    const int tile = chooseTileWidth();
    const MatmulKernel kernel = kernels[tile == 32 ? 2 : tile == 16 ? 1 : 0];
    const int colsPerBlock = tile * COARSE_FACTOR;
    const dim3 dimGrid((L + colsPerBlock - 1) / colsPerBlock, (J + tile - 1) / tile);
    const dim3 dimBlock(tile, tile);
    kernel<<<dimGrid, dimBlock, sharedBytes(tile)>>>(M, N, P, J, K, L);
}
