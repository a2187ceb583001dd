// Held-out kernel b05-rows8-t16 (stage 05-coarsened): coarsening along rows by 8: 16x16 threads compute a 128x16 tile of P (rows ty + 16r of one column), per phase 8 M tiles and one N tile of 16x16 in dynamic shared memory (checked once against sharedMemPerBlock), the N value of a step read once for the 8 sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define T 16
#define RF 8      // rows per thread

// Coarsening along rows by 8: 16x16 threads compute a 128x16 tile of P, each thread rows
// ty + 16r (r = 0..7) of one column; per phase 8 M tiles (the 128x16 slab) and one N tile in
// dynamic shared memory; the N value of a step read once for the 8 sums.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ float sm[];
    float* Mds = sm;                 // (T * RF) x T
    float* Nds = sm + T * RF * T;    // T x T
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * T * RF;
    int Col = blockIdx.x * T + tx;
    float acc[RF];
#pragma unroll
    for (int r = 0; r < RF; ++r) acc[r] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
#pragma unroll
        for (int r = 0; r < RF; ++r) {
            int row = rowBase + ty + r * T;
            Mds[(ty + r * T) * T + tx] = (row < J && k0 + tx < K) ? M[(size_t)row * K + k0 + tx] : 0.0f;
        }
        Nds[ty * T + tx] = (k0 + ty < K && Col < L) ? N[(size_t)(k0 + ty) * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float n = Nds[k * T + tx];
#pragma unroll
            for (int r = 0; r < RF; ++r) acc[r] += Mds[(ty + r * T) * T + k] * n;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RF; ++r) {
        int row = rowBase + ty + r * T;
        if (row < J && Col < L) P[(size_t)row * L + Col] = acc[r];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    static size_t limit = 0;
    if (limit == 0) {
        cudaDeviceProp prop;
        int dev = 0;
        cudaGetDevice(&dev);
        cudaGetDeviceProperties(&prop, dev);
        limit = prop.sharedMemPerBlock;
    }
    size_t bytes = (size_t)(RF + 1) * T * T * sizeof(float);   // 9 KB
    if (bytes > limit) {
        fprintf(stderr, "not enough shared memory per block\n");
        return;
    }
    dim3 block(T, T);
    dim3 grid((L + T - 1) / T, (J + T * RF - 1) / (T * RF));
    MatrixMulKernel<<<grid, block, bytes>>>(M, N, P, J, K, L);
}
