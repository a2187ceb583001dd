// Held-out kernel k05-2x2-t32 (stage 05-coarsened): 2x2 outputs per thread, 32 apart: 32x32 threads compute a 64x64 tile of P from 2 M tiles and 2 N tiles per phase (dynamic shared memory, tile width from the device's properties), four scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

// Each thread computes 2 x 2 elements of P, TILE_WIDTH apart both ways: rows Row and Row + TILE_WIDTH,
// columns Col and Col + TILE_WIDTH. A block of TILE_WIDTH x TILE_WIDTH threads covers a
// 2*TILE_WIDTH x 2*TILE_WIDTH tile of P; per phase it loads 2 tiles of M (upper, lower) and 2 of N
// (left, right) into dynamic shared memory: 4 TILE_WIDTH^2 floats.
template <int TILE_WIDTH>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float smem[];
    float* Mup = smem;
    float* Mlo = smem + TILE_WIDTH * TILE_WIDTH;
    float* Nle = smem + 2 * TILE_WIDTH * TILE_WIDTH;
    float* Nri = smem + 3 * TILE_WIDTH * TILE_WIDTH;

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row0 = blockIdx.y * 2 * TILE_WIDTH + ty, Row1 = Row0 + TILE_WIDTH;
    int Col0 = blockIdx.x * 2 * TILE_WIDTH + tx, Col1 = Col0 + TILE_WIDTH;

    float p00 = 0.0f, p01 = 0.0f, p10 = 0.0f, p11 = 0.0f;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx;
        int nRow = ph * TILE_WIDTH + ty;
        int s = ty * TILE_WIDTH + tx;
        Mup[s] = (Row0 < J && mCol < K) ? M[Row0 * K + mCol] : 0.0f;
        Mlo[s] = (Row1 < J && mCol < K) ? M[Row1 * K + mCol] : 0.0f;
        Nle[s] = (nRow < K && Col0 < L) ? N[nRow * L + Col0] : 0.0f;
        Nri[s] = (nRow < K && Col1 < L) ? N[nRow * L + Col1] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) {
            float m0 = Mup[ty * TILE_WIDTH + k], m1 = Mlo[ty * TILE_WIDTH + k];
            float n0 = Nle[k * TILE_WIDTH + tx], n1 = Nri[k * TILE_WIDTH + tx];
            p00 += m0 * n0;
            p01 += m0 * n1;
            p10 += m1 * n0;
            p11 += m1 * n1;
        }
        __syncthreads();
    }
    if (Row0 < J) {
        if (Col0 < L) P[Row0 * L + Col0] = p00;
        if (Col1 < L) P[Row0 * L + Col1] = p01;
    }
    if (Row1 < J) {
        if (Col0 < L) P[Row1 * L + Col0] = p10;
        if (Col1 < L) P[Row1 * L + Col1] = p11;
    }
}

// The largest tile width in {32, 16, 8} whose 4 tiles fit in a block's shared memory and whose
// threads fit in a block; asked of the device once.
static int chooseTileWidth() {
    static int tile = 0;
    if (tile != 0) return tile;
    cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "cudaGetDeviceProperties failed; using 16 x 16 tiles\n");
        tile = 16;
        return tile;
    }
    tile = 8;
    for (int t = 32; t > 8; t /= 2) {
        if (4 * t * t * sizeof(float) <= prop.sharedMemPerBlock && t * t <= prop.maxThreadsPerBlock) {
            tile = t;
            break;
        }
    }
    return tile;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    int t = chooseTileWidth();
    dim3 dimBlock(t, t);
    dim3 dimGrid((L + 2 * t - 1) / (2 * t), (J + 2 * t - 1) / (2 * t));
    size_t bytes = 4 * (size_t)t * t * sizeof(float);
    if (t == 32)
        MatrixMulKernel<32><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else if (t == 16)
        MatrixMulKernel<16><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<8><<<dimGrid, dimBlock, bytes>>>(M, N, P, J, K, L);
}
