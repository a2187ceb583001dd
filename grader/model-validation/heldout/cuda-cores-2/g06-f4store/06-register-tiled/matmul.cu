// Held-out kernel g06-f4store (stage 06-register-tiled): 128x128 block tiles, 8x8 contiguous outputs per thread, BK 8, one buffer: one float4 load of each tile per thread (M stored transposed), float4 shared reads, float4 stores of P.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

// 128 x 128 block tiles, 8 x 8 contiguous outputs per thread, BK 8, one buffer. Each thread loads one
// float4 of the M tile (stored transposed) and one of the N tile per phase when K and L are multiples of
// 4 (element by element otherwise), reads its 8 + 8 values per step as float4, and stores each row of
// its 8 outputs as two float4.
template <bool VEC>
__global__ void __launch_bounds__(THREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[BK][BM];   // Ms[k][row]
    __shared__ __align__(16) float Ns[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % (BN / TN), ty = tid / (BN / TN);
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    int mr = tid / (BK / 4), mc = (tid % (BK / 4)) * 4;   // this thread's float4 of the M tile
    int nr = tid / (BN / 4), nc = (tid % (BN / 4)) * 4;   // and of the N tile
    float acc[TM][TN] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 mv = make_float4(0.0f, 0.0f, 0.0f, 0.0f), nv = mv;
        int r = bm + mr, c = k0 + mc;
        if (r < J) {
            const float* p = M + (size_t)r * K;
            if (VEC) {
                if (c < K) mv = *reinterpret_cast<const float4*>(p + c);
            } else {
                if (c < K) mv.x = p[c];
                if (c + 1 < K) mv.y = p[c + 1];
                if (c + 2 < K) mv.z = p[c + 2];
                if (c + 3 < K) mv.w = p[c + 3];
            }
        }
        r = k0 + nr; c = bn + nc;
        if (r < K) {
            const float* p = N + (size_t)r * L;
            if (VEC) {
                if (c < L) nv = *reinterpret_cast<const float4*>(p + c);
            } else {
                if (c < L) nv.x = p[c];
                if (c + 1 < L) nv.y = p[c + 1];
                if (c + 2 < L) nv.z = p[c + 2];
                if (c + 3 < L) nv.w = p[c + 3];
            }
        }
        Ms[mc + 0][mr] = mv.x;
        Ms[mc + 1][mr] = mv.y;
        Ms[mc + 2][mr] = mv.z;
        Ms[mc + 3][mr] = mv.w;
        *reinterpret_cast<float4*>(&Ns[nr][nc]) = nv;
        __syncthreads();

        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&Ms[k][ty * TM]);
            float4 a1 = *reinterpret_cast<const float4*>(&Ms[k][ty * TM + 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Ns[k][tx * TN]);
            float4 b1 = *reinterpret_cast<const float4*>(&Ns[k][tx * TN + 4]);
            float a[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = bm + ty * TM + i;
        if (row >= J) break;
#pragma unroll
        for (int h = 0; h < TN / 4; ++h) {
            int col = bn + tx * TN + h * 4;
            float* out = P + (size_t)row * L + col;
            if (VEC) {
                if (col < L)
                    *reinterpret_cast<float4*>(out) =
                        make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) out[j] = acc[i][h * 4 + j];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
