// Held-out kernel b05-adj4-f4-t16 (stage 05-coarsened): coarsening by 4 adjacent columns (4tx .. 4tx + 3) with 16x16 threads computing a 16x64 tile of P: the 16x64 N tile loaded as one float4 per thread (four scalars when L is not a multiple of 4) and read from shared memory as float4, one 16x16 M tile; dynamic shared memory (5 KB), the sums in a float4.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define T 16
#define CF 4

// Coarsening by 4 ADJACENT columns read as float4: 16x16 threads compute a 16x64 tile of P, thread
// (tx, ty) the columns 4tx .. 4tx + 3 of row ty. Per phase one 16x16 M tile and one 16x64 N tile
// (one float4 per thread when L is a multiple of 4, else four scalars, 0 outside) in dynamic
// shared memory; the N tile read back as float4.
template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    extern __shared__ __align__(16) float smem[];
    float* Mds = smem;                 // T x T
    float* Nds = smem + T * T;         // T x (T * CF)
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * T + ty;
    int col = blockIdx.x * T * CF + tx * CF;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k0 = 0; k0 < K; k0 += T) {
        Mds[ty * T + tx] = (Row < J && k0 + tx < K) ? M[(size_t)Row * K + k0 + tx] : 0.0f;
        int nr = k0 + ty;
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (nr < K) {
            const float* src = N + (size_t)nr * L + col;
            if (VEC) {
                if (col < L) v = *reinterpret_cast<const float4*>(src);
            } else {
                if (col + 0 < L) v.x = src[0];
                if (col + 1 < L) v.y = src[1];
                if (col + 2 < L) v.z = src[2];
                if (col + 3 < L) v.w = src[3];
            }
        }
        *reinterpret_cast<float4*>(&Nds[ty * T * CF + tx * CF]) = v;
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float m = Mds[ty * T + k];
            float4 n = *reinterpret_cast<const float4*>(&Nds[k * T * CF + tx * CF]);
            acc.x += m * n.x;
            acc.y += m * n.y;
            acc.z += m * n.z;
            acc.w += m * n.w;
        }
        __syncthreads();
    }
    if (Row < J) {
        float* dst = P + (size_t)Row * L + col;
        if (col + 0 < L) dst[0] = acc.x;
        if (col + 1 < L) dst[1] = acc.y;
        if (col + 2 < L) dst[2] = acc.z;
        if (col + 3 < L) dst[3] = acc.w;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    static int maxShared = 0;
    if (maxShared == 0) {
        int dev = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&maxShared, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    }
    size_t bytes = (size_t)(T * T + T * T * CF) * sizeof(float);   // 5 KB, far below maxShared
    (void)maxShared;
    dim3 block(T, T);
    dim3 grid((L + T * CF - 1) / (T * CF), (J + T - 1) / T);
    if (L % 4 == 0) MatrixMulKernel<true><<<grid, block, bytes>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block, bytes>>>(M, N, P, J, K, L);
}
