// Held-out kernel t07-gdirect-1w-edge-stage (stage 07-tensor-cores): one warp per block computing one 16x16 fragment of P; each k-step's fragments loaded straight from global memory (ldm K and L) when K and L are multiples of 4 (and M, N, P 32-byte aligned), the fragment lies inside P and the k-step inside K, otherwise staged through a 16x8 and an 8x16 zero-padded tile in shared memory; TF32 conversion in the fragment after each load; the fragment stored straight to P where legal, else through a 16x16 scratch.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>
#include <cstdint>

using namespace nvcuda;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;

// One warp (32 threads) per block, one 16x16 fragment of P per warp: the straightforward kernel of
// the walkthrough's step 1, made correct for any size. A k-step whose fragments are whole inside M
// and N (and legal: ldm = K and L multiples of 4) reads them from global memory; any other k-step
// goes through shared memory with zeros past the edges. The block is one warp, so __syncthreads()
// is the warp's barrier.
template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(128) float As[16][8];
    __shared__ __align__(128) float Bs[8][16];
    __shared__ __align__(128) float Cs[16][16];

    const int lane = threadIdx.x;
    const int row = blockIdx.y * 16, col = blockIdx.x * 16;
    const bool inside = VEC && row + 16 <= J && col + 16 <= L;

    FragA a;
    FragB b;
    FragC c;
    wmma::fill_fragment(c, 0.0f);

    for (int k = 0; k < K; k += 8) {
        if (inside && k + 8 <= K) {
            wmma::load_matrix_sync(a, M + (size_t)row * K + k, K);
            wmma::load_matrix_sync(b, N + (size_t)k * L + col, L);
        } else {
            for (int e = lane; e < 16 * 8; e += 32) {
                int r = e / 8, kc = e % 8;
                As[r][kc] = (row + r < J && k + kc < K) ? M[(size_t)(row + r) * K + k + kc] : 0.0f;
                int kr = e / 16, cc = e % 16;
                Bs[kr][cc] = (k + kr < K && col + cc < L) ? N[(size_t)(k + kr) * L + col + cc] : 0.0f;
            }
            __syncthreads();
            wmma::load_matrix_sync(a, &As[0][0], 8);
            wmma::load_matrix_sync(b, &Bs[0][0], 16);
            __syncthreads();  // read before the next k-step overwrites them
        }
        for (int t = 0; t < a.num_elements; ++t) a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; ++t) b.x[t] = wmma::__float_to_tf32(b.x[t]);
        wmma::mma_sync(c, a, b, c);
    }

    if (inside) {
        wmma::store_matrix_sync(P + (size_t)row * L + col, c, L, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(&Cs[0][0], c, 16, wmma::mem_row_major);
        __syncthreads();
        for (int e = lane; e < 16 * 16; e += 32) {
            int r = row + e / 16, cc = col + e % 16;
            if (r < J && cc < L) P[(size_t)r * L + cc] = Cs[e / 16][e % 16];
        }
    }
}

// wmma's pointers must be 256-bit aligned: cudaMalloc's always are, but test it rather than assume it.
static bool aligned32(const void* p) { return reinterpret_cast<uintptr_t>(p) % 32 == 0; }

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(32);
    dim3 dimGrid((L + 15) / 16, (J + 15) / 16);
    if (K % 4 == 0 && L % 4 == 0 && aligned32(M) && aligned32(N) && aligned32(P))
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
