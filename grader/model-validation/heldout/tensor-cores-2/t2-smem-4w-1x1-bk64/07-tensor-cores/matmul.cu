// Held-out kernel t2-smem-4w-1x1-bk64 (stage 07-tensor-cores): 32x32 block tiles, 4 warps (2x2) of one 16x16 fragment each, BK 64 (eight k-steps of 8 per phase): 32x64 and 64x32 tiles, rows padded by 4, filled by float4 loads (4 of each tile per thread) when K and L are multiples of 4, else the same segments element by element with zero fill; no TF32 conversion anywhere (the tensor cores truncate); one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch array.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE 32
#define DEPTH 64
#define SA (DEPTH + 4)   // 68
#define SB (TILE + 4)    // 36

__device__ __forceinline__ float4 read4(const float* base, int rows, int cols, int r, int c, bool vec) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r < rows) {
        const float* p = base + (size_t)r * cols;
        if (vec) {
            if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
        } else {
            if (c < cols) v.x = p[c];
            if (c + 1 < cols) v.y = p[c + 1];
            if (c + 2 < cols) v.z = p[c + 2];
            if (c + 3 < cols) v.w = p[c + 3];
        }
    }
    return v;
}

__global__ void __launch_bounds__(128)
mm_tc_bk64(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float sM[TILE][SA];
    __shared__ __align__(128) float sN[DEPTH][SB];
    __shared__ __align__(128) float sOut[4][16 * 16];

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wy = warp / 2, wx = warp % 2;
    const int by = blockIdx.y * TILE, bx = blockIdx.x * TILE;
    const bool vec = (K % 4 == 0) && (L % 4 == 0);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += DEPTH) {
        for (int q = 0; q < 4; q++) {
            int s = tid + 128 * q;
            // M tile 32 x 64: 16 segments per row
            int ra = s / 16, ca = (s % 16) * 4;
            *reinterpret_cast<float4*>(&sM[ra][ca]) = read4(M, J, K, by + ra, k0 + ca, vec);
            // N tile 64 x 32: 8 segments per row
            int rb = s / 8, cb = (s % 8) * 4;
            *reinterpret_cast<float4*>(&sN[rb][cb]) = read4(N, K, L, k0 + rb, bx + cb, vec);
        }
        __syncthreads();
        for (int kk = 0; kk < DEPTH; kk += 8) {
            wmma::load_matrix_sync(fa, &sM[wy * 16][kk], SA);
            wmma::load_matrix_sync(fb, &sN[kk][wx * 16], SB);
            wmma::mma_sync(fc, fa, fb, fc);
        }
        __syncthreads();
    }

    const int row = by + wy * 16, col = bx + wx * 16;
    if (row >= J || col >= L) return;   // no barrier below
    if (L % 4 == 0 && row + 16 <= J && col + 16 <= L) {
        wmma::store_matrix_sync(P + (size_t)row * L + col, fc, L, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(sOut[warp], fc, 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            int r = row + e / 16, c = col + e % 16;
            if (r < J && c < L) P[(size_t)r * L + c] = sOut[warp][e];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + TILE - 1) / TILE, (J + TILE - 1) / TILE);
    mm_tc_bk64<<<grid, 128>>>(M, N, P, J, K, L);
}
