// Held-out kernel t07-dbuf-8w-2x2-bk8-cstage (stage 07-tensor-cores): 64x128 block tiles, 8 warps (2 down, 4 across) of 32x32 (2x2 fragments), BK 8 (one k-step per phase): 64x8 and 8x128 tiles, unpadded, double-buffered through registers (one float4 of the N tile per thread, one of the M tile for threads 0-127; one barrier per phase), TF32 conversion in the fragment after load_matrix_sync; the whole 64x128 block tile of P stored through a padded shared array (ldm 132) and written to P by all threads, row-contiguous, with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 128
#define BK 8
#define NT 256           // 8 warps: 2 x 4, each 32 x 32
#define CROW (BN + 4)    // the staged output's rows: 132 floats

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

template <bool VEC>
__device__ __forceinline__ float4 seg(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        const float* p = A + (size_t)r * cols + c;
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(p);
        } else {
            if (c < cols) v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

__device__ __forceinline__ void to_tf32(FragA& f) {
    for (int t = 0; t < f.num_elements; ++t) f.x[t] = wmma::__float_to_tf32(f.x[t]);
}
__device__ __forceinline__ void to_tf32(FragB& f) {
    for (int t = 0; t < f.num_elements; ++t) f.x[t] = wmma::__float_to_tf32(f.x[t]);
}

template <bool VEC>
__global__ void __launch_bounds__(NT)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[2][BM][BK];
    __shared__ __align__(128) float Bs[2][BK][BN];
    __shared__ __align__(128) float Cs[BM][CROW];

    const int tid = threadIdx.x, warp = tid / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const int wm = (warp / 4) * 32, wn = (warp % 4) * 32;
    const bool loadsA = tid < BM * BK / 4;           // 128 segments of the M tile
    const int ar = tid / (BK / 4), ac = (tid % (BK / 4)) * 4;
    const int br = tid / (BN / 4), bc = (tid % (BN / 4)) * 4;

    FragC acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    float4 ga = make_float4(0.0f, 0.0f, 0.0f, 0.0f), gb;
    if (loadsA) ga = seg<VEC>(M, J, K, bm + ar, ac);
    gb = seg<VEC>(N, K, L, br, bn + bc);
    if (loadsA) *reinterpret_cast<float4*>(&As[0][ar][ac]) = ga;
    *reinterpret_cast<float4*>(&Bs[0][br][bc]) = gb;
    __syncthreads();

    const int phases = (K + BK - 1) / BK;
    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1, k1 = (ph + 1) * BK;
        const bool more = ph + 1 < phases;
        if (more) {
            if (loadsA) ga = seg<VEC>(M, J, K, bm + ar, k1 + ac);
            gb = seg<VEC>(N, K, L, k1 + br, bn + bc);
        }
        FragA a[2];
        FragB b[2];
        for (int i = 0; i < 2; ++i) {
            wmma::load_matrix_sync(a[i], &As[cur][wm + 16 * i][0], BK);
            to_tf32(a[i]);
        }
        for (int j = 0; j < 2; ++j) {
            wmma::load_matrix_sync(b[j], &Bs[cur][0][wn + 16 * j], BN);
            to_tf32(b[j]);
        }
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        if (more) {
            if (loadsA) *reinterpret_cast<float4*>(&As[cur ^ 1][ar][ac]) = ga;
            *reinterpret_cast<float4*>(&Bs[cur ^ 1][br][bc]) = gb;
        }
        __syncthreads();
    }

    // The block's whole tile of P through shared memory (Cs is not the tiles' memory: no barrier
    // needed before it), then to P by rows of 128 consecutive elements.
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(&Cs[wm + 16 * i][wn + 16 * j], acc[i][j], CROW, wmma::mem_row_major);
    __syncthreads();
    for (int e = tid; e < BM * BN; e += NT) {
        const int r = e / BN, c = e % BN;
        if (bm + r < J && bn + c < L) P[(size_t)(bm + r) * L + bn + c] = Cs[r][c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(NT);
    dim3 dimGrid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
