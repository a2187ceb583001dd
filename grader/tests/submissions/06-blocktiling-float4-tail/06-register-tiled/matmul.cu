// Known-good submission for stage 06-register-tiled (no false alarm on code from elsewhere): the
// "2-D blocktiling" SGEMM of the well-known tutorial kernels (a 128 x 128 block tile, BK = 8, 256
// threads each computing 8 x 8 of P in registers, the M tile stored transposed in shared memory),
// made safe for any J, K, L: 16-byte float4 loads and stores where the row length is a multiple of
// 4 (so every vector is aligned and wholly inside or wholly outside the matrix), a scalar path for
// the rest, constexpr tile sizes checked by static_assert, and everything templated on them.
// Single buffered: slower than the reference, but correct. Must pass on both backends.
#include <cuda_runtime.h>

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int NUM_THREADS = (BM / TM) * (BN / TN);
static_assert(NUM_THREADS == 256, "one float4 of each tile per thread per phase");
static_assert(BM * BK == 4 * NUM_THREADS && BK * BN == 4 * NUM_THREADS, "tile loads: one float4 per thread");

// Four consecutive elements of row r of a rows x cols row-major matrix from column c on, 0 outside.
// vec: cols % 4 == 0 and c % 4 == 0, so the four are one aligned float4 wholly in or out of the row.
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c, bool vec) {
    if (r >= rows) return make_float4(0.f, 0.f, 0.f, 0.f);
    const float* row = A + (size_t)r * cols;
    if (vec) return c < cols ? *reinterpret_cast<const float4*>(row + c) : make_float4(0.f, 0.f, 0.f, 0.f);
    float4 v;
    v.x = c + 0 < cols ? row[c + 0] : 0.f;
    v.y = c + 1 < cols ? row[c + 1] : 0.f;
    v.z = c + 2 < cols ? row[c + 2] : 0.f;
    v.w = c + 3 < cols ? row[c + 3] : 0.f;
    return v;
}

template <int BM_, int BN_, int BK_, int TM_, int TN_>
__global__ void __launch_bounds__((BM_ / TM_) * (BN_ / TN_))
sgemm2DBlocktiling(int J, int K, int L, const float* __restrict__ A, const float* __restrict__ B,
                   float* __restrict__ C) {
    __shared__ __align__(16) float As[BK_][BM_];  // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK_][BN_];  // stored a float4 at a time

    const int cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % (BN_ / TN_);
    const int threadRow = threadIdx.x / (BN_ / TN_);

    // This thread's float4 of each tile.
    const int innerRowA = threadIdx.x / (BK_ / 4), innerColA = (threadIdx.x % (BK_ / 4)) * 4;
    const int innerRowB = threadIdx.x / (BN_ / 4), innerColB = (threadIdx.x % (BN_ / 4)) * 4;
    const bool vecA = (K % 4) == 0, vecB = (L % 4) == 0;

    float threadResults[TM_ * TN_] = {0.0f};
    float regM[TM_], regN[TN_];

    for (int bkIdx = 0; bkIdx < K; bkIdx += BK_) {
        const float4 a = load4(A, J, K, cRow * BM_ + innerRowA, bkIdx + innerColA, vecA);
        As[innerColA + 0][innerRowA] = a.x;
        As[innerColA + 1][innerRowA] = a.y;
        As[innerColA + 2][innerRowA] = a.z;
        As[innerColA + 3][innerRowA] = a.w;
        const float4 b = load4(B, K, L, bkIdx + innerRowB, cCol * BN_ + innerColB, vecB);
        *reinterpret_cast<float4*>(&Bs[innerRowB][innerColB]) = b;
        __syncthreads();

#pragma unroll
        for (int dotIdx = 0; dotIdx < BK_; ++dotIdx) {
#pragma unroll
            for (int i = 0; i < TM_; ++i) regM[i] = As[dotIdx][threadRow * TM_ + i];
#pragma unroll
            for (int i = 0; i < TN_; ++i) regN[i] = Bs[dotIdx][threadCol * TN_ + i];
#pragma unroll
            for (int m = 0; m < TM_; ++m)
#pragma unroll
                for (int n = 0; n < TN_; ++n) threadResults[m * TN_ + n] += regM[m] * regN[n];
        }
        __syncthreads();
    }

    for (int m = 0; m < TM_; ++m) {
        const int row = cRow * BM_ + threadRow * TM_ + m;
        if (row >= J) break;
        float* out = C + (size_t)row * L;
        for (int n = 0; n < TN_; n += 4) {
            const int col = cCol * BN_ + threadCol * TN_ + n;
            if (vecB && col + 3 < L) {
                *reinterpret_cast<float4*>(out + col) =
                    make_float4(threadResults[m * TN_ + n], threadResults[m * TN_ + n + 1],
                                threadResults[m * TN_ + n + 2], threadResults[m * TN_ + n + 3]);
            } else {
                for (int q = 0; q < 4 && col + q < L; ++q) out[col + q] = threadResults[m * TN_ + n + q];
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const dim3 gridDim((L + BN - 1) / BN, (J + BM - 1) / BM);
    const dim3 blockDim(NUM_THREADS);
    sgemm2DBlocktiling<BM, BN, BK, TM, TN><<<gridDim, blockDim>>>(J, K, L, M, N, P);
}
