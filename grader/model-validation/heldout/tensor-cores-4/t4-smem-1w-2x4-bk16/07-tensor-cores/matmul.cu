// Held-out kernel t4-smem-1w-2x4-bk16 (stage 07-tensor-cores): one warp per block computing a 32x64 tile of P as 2x4 fragments, BK 16 (two k-steps of 8 per phase): 32x16 and 16x64 tiles in shared memory, rows padded by 4, filled by float4 loads (4 of the M tile and 8 of the N tile per lane) when K and L are multiples of 4, else scalar zero-filled loads (16 and 32 per lane), rounded to TF32 and stored element by element; one buffer, two barriers per phase, no prefetch; every fragment stored to P through a 16x16 scratch in shared memory, copied with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define WTM 32
#define WTN 64
#define WTK 16
#define ALD (WTK + 4)   // 20
#define BLD (WTN + 4)   // 68

__global__ void one_warp_2x4(const float* M, const float* N, float* P, int J, int K, int L, int vec4) {
    __shared__ __align__(128) float a_s[WTM][ALD];
    __shared__ __align__(128) float b_s[WTK][BLD];
    __shared__ __align__(128) float c_s[16 * 16];

    const int lane = threadIdx.x;   // 32 threads
    const int top = blockIdx.y * WTM, left = blockIdx.x * WTN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WTK) {
        if (vec4) {
            for (int s = lane; s < WTM * WTK / 4; s += 32) {   // 128 segments: 4 per lane
                int r = s / (WTK / 4), c = (s % (WTK / 4)) * 4;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (top + r < J && k0 + c < K) v = *(const float4*)&M[(size_t)(top + r) * K + k0 + c];
                a_s[r][c] = wmma::__float_to_tf32(v.x);
                a_s[r][c + 1] = wmma::__float_to_tf32(v.y);
                a_s[r][c + 2] = wmma::__float_to_tf32(v.z);
                a_s[r][c + 3] = wmma::__float_to_tf32(v.w);
            }
            for (int s = lane; s < WTK * WTN / 4; s += 32) {   // 256 segments: 8 per lane
                int r = s / (WTN / 4), c = (s % (WTN / 4)) * 4;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (k0 + r < K && left + c < L) v = *(const float4*)&N[(size_t)(k0 + r) * L + left + c];
                b_s[r][c] = wmma::__float_to_tf32(v.x);
                b_s[r][c + 1] = wmma::__float_to_tf32(v.y);
                b_s[r][c + 2] = wmma::__float_to_tf32(v.z);
                b_s[r][c + 3] = wmma::__float_to_tf32(v.w);
            }
        } else {
            for (int e = lane; e < WTM * WTK; e += 32) {
                int r = e / WTK, c = e % WTK;
                float v = (top + r < J && k0 + c < K) ? M[(size_t)(top + r) * K + k0 + c] : 0.f;
                a_s[r][c] = wmma::__float_to_tf32(v);
            }
            for (int e = lane; e < WTK * WTN; e += 32) {
                int r = e / WTN, c = e % WTN;
                float v = (k0 + r < K && left + c < L) ? N[(size_t)(k0 + r) * L + left + c] : 0.f;
                b_s[r][c] = wmma::__float_to_tf32(v);
            }
        }
        __syncthreads();

        for (int kk = 0; kk < WTK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[4];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &a_s[16 * i][kk], ALD);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], &b_s[kk][16 * j], BLD);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
            int r0 = top + 16 * i, col = left + 16 * j;
            if (r0 >= J || col >= L) continue;
            wmma::store_matrix_sync(c_s, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = r0 + e / 16, c = col + e % 16;
                if (r < J && c < L) P[(size_t)r * L + c] = c_s[e];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + WTN - 1) / WTN, (J + WTM - 1) / WTM);
    int vec4 = (K % 4 == 0 && L % 4 == 0) ? 1 : 0;
    one_warp_2x4<<<grid, 32>>>(M, N, P, J, K, L, vec4);
}
