// Known-good submission for stage 07-tensor-cores (no false alarm on code from elsewhere): wmma the
// way CUDA's programming guide and its simpleTensorCoreGEMM sample teach it -- one warp per 16 x 16
// tile of P, warpM/warpN from the global thread index, fragments loaded with load_matrix_sync
// straight from global memory (no shared-memory staging), each element rounded with
// wmma::__float_to_tf32 after the load, store_matrix_sync straight to P. The guide's kernel needs
// whole fragments and 16-byte row lengths, so a student makes it safe for any J, K, L the usual
// way: a warp whose tile is whole (and K % 8 == 0, L % 4 == 0) takes the tensor-core path, any
// other warp computes its tile on the CUDA cores (each lane 8 of the 256 elements, in float32).
// Slow (every fragment from global memory), but correct. Must pass on both backends.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

const int WMMA_M = 16;
const int WMMA_N = 16;
const int WMMA_K = 8;

// Blocks of 128 x 4 threads: 4 warps along x (tiles down the rows of P), 4 along y (across its
// columns), so a block covers 64 x 64 of P.
__global__ void wmma_tf32_gemm(const float* a, const float* b, float* c, int J, int K, int L) {
    // Tile using a 2D grid
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = (blockIdx.y * blockDim.y + threadIdx.y);

    int row0 = warpM * WMMA_M;
    int col0 = warpN * WMMA_N;
    if (row0 >= J || col0 >= L) return;  // the whole warp: row0 and col0 are the same in its lanes

    bool whole = row0 + WMMA_M <= J && col0 + WMMA_N <= L && K % WMMA_K == 0 && L % 4 == 0;
    if (whole) {
        // Declare the fragments
        wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32, wmma::row_major> a_frag;
        wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, wmma::precision::tf32, wmma::row_major> b_frag;
        wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
        wmma::fill_fragment(acc_frag, 0.0f);

        // Loop over k
        for (int i = 0; i < K; i += WMMA_K) {
            wmma::load_matrix_sync(a_frag, a + row0 * K + i, K);
            wmma::load_matrix_sync(b_frag, b + i * L + col0, L);
#pragma unroll
            for (int t = 0; t < a_frag.num_elements; t++) a_frag.x[t] = wmma::__float_to_tf32(a_frag.x[t]);
#pragma unroll
            for (int t = 0; t < b_frag.num_elements; t++) b_frag.x[t] = wmma::__float_to_tf32(b_frag.x[t]);
            // Perform the matrix multiplication
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
        // Store the output
        wmma::store_matrix_sync(c + row0 * L + col0, acc_frag, L, wmma::mem_row_major);
    } else {
        int lane = threadIdx.x % warpSize;
        for (int e = lane; e < WMMA_M * WMMA_N; e += warpSize) {
            int r = row0 + e / WMMA_N, col = col0 + e % WMMA_N;
            if (r < J && col < L) {
                float sum = 0.0f;
                for (int k = 0; k < K; ++k) sum += a[r * K + k] * b[k * L + col];
                c[r * L + col] = sum;
            }
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 blockDim(128, 4);
    dim3 gridDim;
    gridDim.x = (J + (WMMA_M * blockDim.x / 32 - 1)) / (WMMA_M * blockDim.x / 32);
    gridDim.y = (L + WMMA_N * blockDim.y - 1) / (WMMA_N * blockDim.y);
    wmma_tf32_gemm<<<gridDim, blockDim>>>(M, N, P, J, K, L);
}
