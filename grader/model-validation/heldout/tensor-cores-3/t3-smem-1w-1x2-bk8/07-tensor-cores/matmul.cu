// Held-out kernel t3-smem-1w-1x2-bk8 (stage 07-tensor-cores): one warp per block computing a 16x32 strip of P as 1x2 fragments, BK 8 (one k-step per phase): 16x8 and 8x32 tiles in unpadded shared memory (ldm 8 and 32), scalar zero-filled loads (4 of the M tile and 8 of the N tile per lane), TF32 conversion in the fragment after load_matrix_sync; one buffer, two barriers per phase; fragments inside P stored straight to it (L a multiple of 4), the others through a 16x16 scratch in shared memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-3/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

// One warp per block: a 16 x 32 strip of P, two accumulator fragments side by side.
__global__ void wmma_warp_strip(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(32) float sa[16 * 8];      // 16 x 8 piece of M, no padding (ldm 8)
    __shared__ __align__(32) float sb[8 * 32];      // 8 x 32 piece of N (ldm 32)
    __shared__ __align__(32) float sc[16 * 16];     // output staging

    int lane = threadIdx.x;
    int row = blockIdx.y * 16;
    int col = blockIdx.x * 32;

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b0, b1;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c0, c1;
    wmma::fill_fragment(c0, 0.0f);
    wmma::fill_fragment(c1, 0.0f);

    for (int k = 0; k < K; k += 8) {
        for (int i = lane; i < 16 * 8; i += 32) {
            int r = i / 8, cc = i % 8;
            sa[i] = (row + r < J && k + cc < K) ? M[(size_t)(row + r) * K + k + cc] : 0.0f;
        }
        for (int i = lane; i < 8 * 32; i += 32) {
            int r = i / 32, cc = i % 32;
            sb[i] = (k + r < K && col + cc < L) ? N[(size_t)(k + r) * L + col + cc] : 0.0f;
        }
        __syncthreads();

        wmma::load_matrix_sync(a, sa, 8);
        wmma::load_matrix_sync(b0, sb, 32);
        wmma::load_matrix_sync(b1, sb + 16, 32);
        for (int t = 0; t < a.num_elements; t++) a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b0.num_elements; t++) {
            b0.x[t] = wmma::__float_to_tf32(b0.x[t]);
            b1.x[t] = wmma::__float_to_tf32(b1.x[t]);
        }
        wmma::mma_sync(c0, a, b0, c0);
        wmma::mma_sync(c1, a, b1, c1);
        __syncthreads();
    }

    for (int h = 0; h < 2; h++) {
        int pc = col + h * 16;
        if (pc >= L) break;
        wmma::fragment<wmma::accumulator, 16, 16, 8, float>& cf = h == 0 ? c0 : c1;
        if (L % 4 == 0 && row + 16 <= J && pc + 16 <= L) {
            wmma::store_matrix_sync(P + (size_t)row * L + pc, cf, L, wmma::mem_row_major);
        } else {
            wmma::store_matrix_sync(sc, cf, 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = row + e / 16, cc = pc + e % 16;
                if (r < J && cc < L) P[(size_t)r * L + cc] = sc[e];
            }
            __syncwarp();
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + 31) / 32, (J + 15) / 16);
    wmma_warp_strip<<<grid, 32>>>(M, N, P, J, K, L);
}
