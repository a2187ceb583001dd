// Held-out kernel q06-regprefetch (stage 06-register-tiled): 128x128 block tiles, 256 threads of 8x8 contiguous outputs, BK 8, one shared buffer with two barriers per phase: the next phase's float4 of M and of N loaded into registers after the first barrier, before the products; M transposed, float4 shared reads.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS 256

// 128x128 block tiles, 256 threads of 8x8 contiguous outputs (rows ty*8.., columns tx*8..), BK 8,
// one shared buffer. Double buffering through registers: after the tiles of phase p are stored and
// the barrier passed, each thread issues the global loads of phase p + 1 (one float4 of M, one of
// N) into registers, then multiplies phase p; a second barrier, and the registers go to shared.
template <bool VEC>
__device__ float4 tileLoad(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
        } else {
            if (c < cols) v.x = A[(size_t)r * cols + c];
            if (c + 1 < cols) v.y = A[(size_t)r * cols + c + 1];
            if (c + 2 < cols) v.z = A[(size_t)r * cols + c + 2];
            if (c + 3 < cols) v.w = A[(size_t)r * cols + c + 3];
        }
    }
    return v;
}

template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM];   // transposed: Ms[k][row]
    __shared__ __align__(16) float Ns[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    // This thread's float4 of each tile: M row mr, columns mc..mc+3; N row nr, columns nc..nc+3.
    const int mr = tid / (BK / 4), mc = (tid % (BK / 4)) * 4;
    const int nr = tid / (BN / 4), nc = (tid % (BN / 4)) * 4;

    float c[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) c[i][j] = 0.0f;

    float4 mNext = tileLoad<VEC>(M, J, K, bm + mr, mc);
    float4 nNext = tileLoad<VEC>(N, K, L, nr, bn + nc);

    const int phases = (K + BK - 1) / BK;
    for (int p = 0; p < phases; p++) {
        Ms[mc + 0][mr] = mNext.x;
        Ms[mc + 1][mr] = mNext.y;
        Ms[mc + 2][mr] = mNext.z;
        Ms[mc + 3][mr] = mNext.w;
        *reinterpret_cast<float4*>(&Ns[nr][nc]) = nNext;
        __syncthreads();

        if (p + 1 < phases) {
            int k0 = (p + 1) * BK;
            mNext = tileLoad<VEC>(M, J, K, bm + mr, k0 + mc);
            nNext = tileLoad<VEC>(N, K, L, k0 + nr, bn + nc);
        }

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Ms[k][ty * TM]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Ms[k][ty * TM + 4]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Ns[k][tx * TN]);
            *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Ns[k][tx * TN + 4]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) c[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; i++) {
        int row = bm + ty * TM + i;
        if (row >= J) break;
        for (int j = 0; j < TN; j++) {
            int col = bn + tx * TN + j;
            if (col < L) P[(size_t)row * L + col] = c[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    bool vec = (K % 4 == 0) && (L % 4 == 0);
    if (vec) MatrixMulKernel<true><<<grid, NTHREADS>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
