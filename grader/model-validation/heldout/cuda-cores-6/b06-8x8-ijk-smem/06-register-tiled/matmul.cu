// Held-out kernel b06-8x8-ijk-smem (stage 06-register-tiled): 128x128 block tiles, 256 threads of 8x8 contiguous outputs, BK 8, the products written as loops i, j, k (k innermost) reading both operands from shared memory every time (2 shared reads per multiply-add, no operand registers); one float4 of each tile per thread, M stored transposed and padded by 1; one buffer; scalar stores of P.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

// A[r][c .. c+3] as a float4, 0 outside A: one 16-byte load when VEC (rows 16-byte aligned,
// c a multiple of 4, so c < cols means all four are inside), else element by element.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c + 0 < cols) v.x = p[c + 0];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

// Stores 4 values of a row of P at column c (float4 when VEC), only those inside P.
template <bool VEC>
__device__ __forceinline__ void store4(float* P, int J, int L, int r, int c, float x, float y, float z, float w) {
    if (r >= J) return;
    float* p = P + (size_t)r * L;
    if (VEC) {
        if (c < L) *reinterpret_cast<float4*>(p + c) = make_float4(x, y, z, w);
    } else {
        if (c + 0 < L) p[c + 0] = x;
        if (c + 1 < L) p[c + 1] = y;
        if (c + 2 < L) p[c + 2] = z;
        if (c + 3 < L) p[c + 3] = w;
    }
}

// A first register tile that keeps the outputs in registers but not the operands: 128x128 block
// tiles, 256 threads of 8x8 contiguous outputs, BK 8, and the products written as loops i, j, k
// reading both operands from shared memory each time (Ms[k][row + i], Ns[k][col + j]: 2 shared
// reads per multiply-add). One float4 of each tile per thread, M stored transposed and padded by 1;
// one buffer, two barriers per phase.
template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[BK][BM + 1];
    __shared__ __align__(16) float Ns[BK][BN];
    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN];
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        int r = t / 2, c = (t % 2) * 4;
        float4 v = load4<VEC>(M, J, K, bm + r, k0 + c);
        Ms[c + 0][r] = v.x; Ms[c + 1][r] = v.y; Ms[c + 2][r] = v.z; Ms[c + 3][r] = v.w;
        int nr = t / 32, nc = (t % 32) * 4;
        *reinterpret_cast<float4*>(&Ns[nr][nc]) = load4<VEC>(N, K, L, k0 + nr, bn + nc);
        __syncthreads();
        for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j)
                for (int k = 0; k < BK; ++k)
                    acc[i][j] += Ms[k][ty * TM + i] * Ns[k][tx * TN + j];
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        int row = bm + ty * TM + i;
        if (row >= J) break;
        for (int j = 0; j < TN; ++j) {
            int col = bn + tx * TN + j;
            if (col < L) P[(size_t)row * L + col] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(THREADS);
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, block>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, block>>>(M, N, P, J, K, L);
}
