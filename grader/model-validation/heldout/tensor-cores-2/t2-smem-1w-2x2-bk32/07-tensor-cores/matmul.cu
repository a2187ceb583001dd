// Held-out kernel t2-smem-1w-2x2-bk32 (stage 07-tensor-cores): one warp per block computing a 32x32 tile of P as 2x2 fragments, BK 32 (four k-steps of 8 per phase): 32x32 tiles of M and N in shared memory, rows padded by 4, filled by float4 loads (8 of each tile per lane) when K and L are multiples of 4, else scalar zero-filled loads (32 of each per lane), rounded to TF32 and stored element by element; one buffer, two barriers per phase, no prefetch; every fragment stored to P through a 16x16 scratch in shared memory, copied with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define T 32        // block tile (32 x 32) and phase depth
#define LD (T + 4)  // padded row: 36 floats

__global__ void __launch_bounds__(32)
one_warp_kernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L, int vec) {
    __shared__ __align__(128) float tileM[T][LD];
    __shared__ __align__(128) float tileN[T][LD];
    __shared__ __align__(128) float out[16][16];

    const int lane = threadIdx.x;
    const int bRow = blockIdx.y * T, bCol = blockIdx.x * T;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += T) {
        if (vec) {
            // 8 float4 per row; lane handles segments lane, lane + 32, ... (8 of each tile)
            for (int s = lane; s < T * T / 4; s += 32) {
                int r = s / 8, c = (s % 8) * 4;
                float4 a = make_float4(0.f, 0.f, 0.f, 0.f), b = make_float4(0.f, 0.f, 0.f, 0.f);
                if (bRow + r < J && k0 + c < K) a = *(const float4*)&M[(size_t)(bRow + r) * K + k0 + c];
                if (k0 + r < K && bCol + c < L) b = *(const float4*)&N[(size_t)(k0 + r) * L + bCol + c];
                tileM[r][c + 0] = wmma::__float_to_tf32(a.x);
                tileM[r][c + 1] = wmma::__float_to_tf32(a.y);
                tileM[r][c + 2] = wmma::__float_to_tf32(a.z);
                tileM[r][c + 3] = wmma::__float_to_tf32(a.w);
                tileN[r][c + 0] = wmma::__float_to_tf32(b.x);
                tileN[r][c + 1] = wmma::__float_to_tf32(b.y);
                tileN[r][c + 2] = wmma::__float_to_tf32(b.z);
                tileN[r][c + 3] = wmma::__float_to_tf32(b.w);
            }
        } else {
            for (int e = lane; e < T * T; e += 32) {
                int r = e / T, c = e % T;
                float a = (bRow + r < J && k0 + c < K) ? M[(size_t)(bRow + r) * K + k0 + c] : 0.f;
                float b = (k0 + r < K && bCol + c < L) ? N[(size_t)(k0 + r) * L + bCol + c] : 0.f;
                tileM[r][c] = wmma::__float_to_tf32(a);
                tileN[r][c] = wmma::__float_to_tf32(b);
            }
        }
        __syncthreads();

        for (int kk = 0; kk < T; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
            wmma::load_matrix_sync(a[0], &tileM[0][kk], LD);
            wmma::load_matrix_sync(a[1], &tileM[16][kk], LD);
            wmma::load_matrix_sync(b[0], &tileN[kk][0], LD);
            wmma::load_matrix_sync(b[1], &tileN[kk][16], LD);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int r0 = bRow + 16 * i, c0 = bCol + 16 * j;
            if (r0 >= J || c0 >= L) continue;
            wmma::store_matrix_sync(&out[0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = e / 16, c = e % 16;
                if (r0 + r < J && c0 + c < L) P[(size_t)(r0 + r) * L + c0 + c] = out[r][c];
            }
            __syncwarp();
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + T - 1) / T, (J + T - 1) / T);
    int vec = (K % 4 == 0 && L % 4 == 0) ? 1 : 0;
    one_warp_kernel<<<grid, 32>>>(M, N, P, J, K, L, vec);
}
