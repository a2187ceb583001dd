// Held-out kernel b05-c2-t32 (stage 05-coarsened): the book's column coarsening with factor 2 (columns T apart): one M tile and 2 N tiles per phase in dynamic shared memory, the tile width the widest whose 3 tiles fit (cudaGetDeviceProperties, asked once; 32 on the GPU), two scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define COARSE_FACTOR 2

// The book's column coarsening with factor 2: TxT threads compute T rows x 2T columns of P (the
// two columns T apart), one M tile and 2 N tiles per phase in dynamic shared memory.
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    float* Mds = smem;
    float* Nds = smem + TILE_WIDTH * TILE_WIDTH;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int col0 = blockIdx.x * TILE_WIDTH * COARSE_FACTOR + tx;
    float p0 = 0.0f, p1 = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mc = ph * TILE_WIDTH + tx, nr = ph * TILE_WIDTH + ty;
        Mds[ty * TILE_WIDTH + tx] = (Row < J && mc < K) ? M[(size_t)Row * K + mc] : 0.0f;
        int c0 = col0, c1 = col0 + TILE_WIDTH;
        Nds[ty * TILE_WIDTH + tx] = (nr < K && c0 < L) ? N[(size_t)nr * L + c0] : 0.0f;
        Nds[TILE_WIDTH * TILE_WIDTH + ty * TILE_WIDTH + tx] = (nr < K && c1 < L) ? N[(size_t)nr * L + c1] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m = Mds[ty * TILE_WIDTH + k];
            p0 += m * Nds[k * TILE_WIDTH + tx];
            p1 += m * Nds[TILE_WIDTH * TILE_WIDTH + k * TILE_WIDTH + tx];
        }
        __syncthreads();
    }
    if (Row < J) {
        if (col0 < L) P[(size_t)Row * L + col0] = p0;
        if (col0 + TILE_WIDTH < L) P[(size_t)Row * L + col0 + TILE_WIDTH] = p1;
    }
}

static int chooseTileWidth() {
    static int chosen = 0;
    if (chosen) return chosen;
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        chosen = 16;
        return chosen;
    }
    chosen = 8;
    for (int t = 32; t >= 8; t /= 2)
        if ((1 + COARSE_FACTOR) * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) {
            chosen = t;
            break;
        }
    return chosen;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = chooseTileWidth();
    dim3 block(t, t);
    dim3 grid((L + t * COARSE_FACTOR - 1) / (t * COARSE_FACTOR), (J + t - 1) / t);
    size_t bytes = (1 + COARSE_FACTOR) * (size_t)t * t * sizeof(float);
    if (t == 32) MatrixMulKernel<32><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else if (t == 16) MatrixMulKernel<16><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<8><<<grid, block, bytes>>>(M, N, P, J, K, L);
}
