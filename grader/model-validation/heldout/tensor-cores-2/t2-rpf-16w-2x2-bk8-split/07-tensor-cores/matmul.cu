// Held-out kernel t2-rpf-16w-2x2-bk8-split (stage 07-tensor-cores): 128x128 block tiles, 16 warps (512 threads, 4x4) of 32x32 (2x2 fragments), BK 8 (one k-step per phase): 128x8 and 8x128 tiles, rows padded by 4, double-buffered through registers with the loads split by role (threads 0-255 one float4 of the M tile, threads 256-511 one float4 of the N tile, loaded before the current buffer is multiplied and stored into the other after; one barrier per phase; the same segment element by element with zero fill when K or L is not a multiple of 4); no TF32 conversion anywhere (the tensor cores truncate); fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TB 128                    // block tile 128 x 128
#define KD 8                      // phase depth: one k-step
#define THREADS 512
#define LDA 12                    // KD + 4
#define LDB 132                   // TB + 4
#define A_SZ (TB * LDA)           // 1536
#define B_SZ (KD * LDB)           // 1056
#define STAGE (A_SZ + B_SZ)       // 2592 floats
#define SH_SZ (2 * STAGE)         // 5184 floats: also holds 16 warps' 16 x 16 scratch (4096)

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// One float4 of this thread's segment: the M tile's (threads 0-255) or the N tile's (256-511).
template <bool VEC>
__device__ __forceinline__ float4 load_seg(const float* M, const float* N, int J, int K, int L, int bm, int bn, int k0) {
    const float* src;
    int rows, cols, r, c;
    if (threadIdx.x < 256) {
        int s = threadIdx.x;                     // 2 segments per row of 8
        src = M; rows = J; cols = K; r = bm + s / 2; c = k0 + (s % 2) * 4;
    } else {
        int s = threadIdx.x - 256;               // 32 segments per row of 128
        src = N; rows = K; cols = L; r = k0 + s / 32; c = bn + (s % 32) * 4;
    }
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows && c < cols) {
        const float* p = src + (size_t)r * cols + c;
        if (VEC) {
            v = *reinterpret_cast<const float4*>(p);
        } else {
            v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

__device__ __forceinline__ void store_seg(float* stage, float4 v) {
    if (threadIdx.x < 256) {
        int s = threadIdx.x;
        *reinterpret_cast<float4*>(stage + (s / 2) * LDA + (s % 2) * 4) = v;
    } else {
        int s = threadIdx.x - 256;
        *reinterpret_cast<float4*>(stage + A_SZ + (s / 32) * LDB + (s % 32) * 4) = v;
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS)
tc16w(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float sh[SH_SZ];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp / 4) * 32, wn = (warp % 4) * 32;
    const int bm = blockIdx.y * TB, bn = blockIdx.x * TB;

    FragC acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    float4 reg = load_seg<VEC>(M, N, J, K, L, bm, bn, 0);
    store_seg(sh, reg);
    __syncthreads();

    const int steps = (K + KD - 1) / KD;
    for (int s = 0; s < steps; s++) {
        const float* As = sh + (s & 1) * STAGE;
        const float* Bs = As + A_SZ;
        if (s + 1 < steps) reg = load_seg<VEC>(M, N, J, K, L, bm, bn, (s + 1) * KD);

        FragA a[2];
        FragB b[2];
        for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], As + (wm + 16 * i) * LDA, LDA);
        for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], Bs + wn + 16 * j, LDB);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);

        if (s + 1 < steps) store_seg(sh + ((s + 1) & 1) * STAGE, reg);
        __syncthreads();
    }

    float* scratch = sh + warp * 256;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const int row = bm + wm + 16 * i, col = bn + wn + 16 * j;
            if (row >= J || col >= L) continue;
            if (VEC && row + 16 <= J && col + 16 <= L) {
                wmma::store_matrix_sync(P + (size_t)row * L + col, acc[i][j], L, wmma::mem_row_major);
                continue;
            }
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int r = row + e / 16, c = col + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = scratch[e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + TB - 1) / TB, (J + TB - 1) / TB);
    if (K % 4 == 0 && L % 4 == 0)
        tc16w<true><<<grid, THREADS>>>(M, N, P, J, K, L);
    else
        tc16w<false><<<grid, THREADS>>>(M, N, P, J, K, L);
}
