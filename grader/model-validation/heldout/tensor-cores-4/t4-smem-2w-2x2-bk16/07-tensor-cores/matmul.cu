// Held-out kernel t4-smem-2w-2x2-bk16 (stage 07-tensor-cores): 32x64 block tiles, 2 warps (64 threads, side by side) of 32x32 (2x2 fragments), BK 16: 32x16 and 16x64 tiles in unpadded shared memory (ldm 16 and 64), filled by scalar zero-filled loads (8 of the M tile and 16 of the N tile per thread) whatever K and L; stored unconverted and rounded to TF32 in each fragment after load_matrix_sync; one buffer, two barriers per phase, no prefetch; fragments inside P stored straight to it (L a multiple of 4, tested at run time in the kernel), the others through a per-warp 16x16 scratch array.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

const int TM = 32, TN = 64, TK = 16;

template <typename Frag>
__device__ void round_tf32(Frag& f) {
    for (int t = 0; t < f.num_elements; t++) f.x[t] = wmma::__float_to_tf32(f.x[t]);
}

__global__ void tc2warps(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(32) float Ms[TM][TK];
    __shared__ __align__(32) float Ns[TK][TN];
    __shared__ __align__(32) float Cs[2][16 * 16];

    int tid = threadIdx.x;          // 0..63
    int warp = tid / 32, lane = tid % 32;
    int baseRow = blockIdx.y * TM;
    int baseCol = blockIdx.x * TN;
    int myCol = warp * 32;          // warp 0 left half, warp 1 right half

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(c[i][j], 0.0f);

    for (int k = 0; k < K; k += TK) {
        for (int e = tid; e < TM * TK; e += 64) {
            int r = e / TK, cc = e % TK;
            int gr = baseRow + r, gk = k + cc;
            Ms[r][cc] = (gr < J && gk < K) ? M[gr * K + gk] : 0.0f;
        }
        for (int e = tid; e < TK * TN; e += 64) {
            int r = e / TN, cc = e % TN;
            int gk = k + r, gc = baseCol + cc;
            Ns[r][cc] = (gk < K && gc < L) ? N[gk * L + gc] : 0.0f;
        }
        __syncthreads();

        for (int kk = 0; kk < TK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a0, a1;
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b0, b1;
            wmma::load_matrix_sync(a0, &Ms[0][kk], TK);
            wmma::load_matrix_sync(a1, &Ms[16][kk], TK);
            wmma::load_matrix_sync(b0, &Ns[kk][myCol], TN);
            wmma::load_matrix_sync(b1, &Ns[kk][myCol + 16], TN);
            round_tf32(a0);
            round_tf32(a1);
            round_tf32(b0);
            round_tf32(b1);
            wmma::mma_sync(c[0][0], a0, b0, c[0][0]);
            wmma::mma_sync(c[0][1], a0, b1, c[0][1]);
            wmma::mma_sync(c[1][0], a1, b0, c[1][0]);
            wmma::mma_sync(c[1][1], a1, b1, c[1][1]);
        }
        __syncthreads();
    }

    bool direct_ok = (L % 4 == 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int r0 = baseRow + 16 * i, c0 = baseCol + myCol + 16 * j;
            if (r0 >= J || c0 >= L) continue;
            if (direct_ok && r0 + 16 <= J && c0 + 16 <= L) {
                wmma::store_matrix_sync(P + r0 * L + c0, c[i][j], L, wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(Cs[warp], c[i][j], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    int r = r0 + e / 16, cc = c0 + e % 16;
                    if (r < J && cc < L) P[r * L + cc] = Cs[warp][e];
                }
                __syncwarp();
            }
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + TN - 1) / TN, (J + TM - 1) / TM);
    tc2warps<<<grid, 64>>>(M, N, P, J, K, L);
}
