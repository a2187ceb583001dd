// Held-out kernel t2-rpf-16w-1x2-bk8 (stage 07-tensor-cores): 128x64 block tiles, 16 warps (512 threads, 8 down, 2 across) of 16x32 (1x2 fragments), BK 8 (one k-step per phase): 128x8 and 8x64 tiles in one shared buffer, rows padded by 4, with register prefetching of scalar zero-filled loads (2 of the M tile and 1 of the N tile per thread, the next phase's loaded after the first barrier, before the products; two barriers per phase), rounded to TF32 as they are stored; fragments inside P stored straight to it (L a multiple of 4), the others through a per-warp 16x16 scratch in the tiles' memory.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-2/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BLK_M 128
#define BLK_N 64
#define BLK_K 8
#define THREADS 512
#define LDS_A (BLK_K + 4)              // 12
#define LDS_B (BLK_N + 4)              // 68
#define OFF_B (BLK_M * LDS_A)          // 1536 floats: the N tile starts here
#define SMEM_FLOATS (16 * 256)         // large enough for 16 warps' output scratch too

__global__ void __launch_bounds__(THREADS)
matmul_tc16(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float smem[SMEM_FLOATS];
    float* As = smem;
    float* Bs = smem + OFF_B;

    const int tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    const int wRow = (warp >> 1) * 16;   // 8 warps down
    const int wCol = (warp & 1) * 32;    // 2 across
    const int gRow = blockIdx.y * BLK_M, gCol = blockIdx.x * BLK_N;

    // this thread's elements: M tile rows tid/8 and 64 + tid/8, column tid%8; N tile row tid/64, column tid%64
    const int aR = tid >> 3, aC = tid & 7;
    const int bR = tid >> 6, bC = tid & 63;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c0, c1;
    wmma::fill_fragment(c0, 0.0f);
    wmma::fill_fragment(c1, 0.0f);

    float a0, a1, b0;
    {
        int k = aC;
        a0 = (gRow + aR < J && k < K) ? M[(size_t)(gRow + aR) * K + k] : 0.0f;
        a1 = (gRow + aR + 64 < J && k < K) ? M[(size_t)(gRow + aR + 64) * K + k] : 0.0f;
        b0 = (bR < K && gCol + bC < L) ? N[(size_t)bR * L + gCol + bC] : 0.0f;
    }

    for (int k0 = 0; k0 < K; k0 += BLK_K) {
        As[aR * LDS_A + aC] = wmma::__float_to_tf32(a0);
        As[(aR + 64) * LDS_A + aC] = wmma::__float_to_tf32(a1);
        Bs[bR * LDS_B + bC] = wmma::__float_to_tf32(b0);
        __syncthreads();

        const int kn = k0 + BLK_K;
        if (kn < K) {   // next phase's values, in flight during the mma
            int k = kn + aC;
            a0 = (gRow + aR < J && k < K) ? M[(size_t)(gRow + aR) * K + k] : 0.0f;
            a1 = (gRow + aR + 64 < J && k < K) ? M[(size_t)(gRow + aR + 64) * K + k] : 0.0f;
            b0 = (kn + bR < K && gCol + bC < L) ? N[(size_t)(kn + bR) * L + gCol + bC] : 0.0f;
        }

        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb0, fb1;
        wmma::load_matrix_sync(fa, As + wRow * LDS_A, LDS_A);
        wmma::load_matrix_sync(fb0, Bs + wCol, LDS_B);
        wmma::load_matrix_sync(fb1, Bs + wCol + 16, LDS_B);
        wmma::mma_sync(c0, fa, fb0, c0);
        wmma::mma_sync(c1, fa, fb1, c1);
        __syncthreads();
    }

    float* scratch = smem + warp * 256;
    for (int j = 0; j < 2; j++) {
        const int r0 = gRow + wRow, cc0 = gCol + wCol + 16 * j;
        if (r0 >= J || cc0 >= L) continue;
        wmma::fragment<wmma::accumulator, 16, 16, 8, float>& c = j ? c1 : c0;
        if ((L & 3) == 0 && r0 + 16 <= J && cc0 + 16 <= L) {
            wmma::store_matrix_sync(P + (size_t)r0 * L + cc0, c, L, wmma::mem_row_major);
        } else {
            wmma::store_matrix_sync(scratch, c, 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = r0 + (e >> 4), cc = cc0 + (e & 15);
                if (r < J && cc < L) P[(size_t)r * L + cc] = scratch[e];
            }
            __syncwarp();
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BLK_N - 1) / BLK_N, (J + BLK_M - 1) / BLK_M);
    matmul_tc16<<<grid, THREADS>>>(M, N, P, J, K, L);
}
