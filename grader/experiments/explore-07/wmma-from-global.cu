// Step 1 of walkthrough 07: the tensor cores fed straight from global memory. Each warp computes one
// 16 x 16 fragment of P, loading its M and N fragments with load_matrix_sync from global memory
// (ldm K and L), converting them to TF32 in the fragment. No shared memory, no edges: sizes must be
// multiples of 16 (the bench's square shapes).
#include <mma.h>
using namespace nvcuda;
__global__ void naive_wmma(const float* M, const float* N, float* P, int J, int K, int L) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int row = (warp / (L / 16)) * 16, col = (warp % (L / 16)) * 16;
    if (row >= J) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 8) {
        wmma::load_matrix_sync(a, M + (size_t)row * K + k, K);
        wmma::load_matrix_sync(b, N + (size_t)k * L + col, L);
        for (int t = 0; t < a.num_elements; ++t) a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; ++t) b.x[t] = wmma::__float_to_tf32(b.x[t]);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(P + (size_t)row * L + col, c, L, wmma::mem_row_major);
}
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const int warps = (J / 16) * (L / 16);
    naive_wmma<<<(warps + 7) / 8, 256>>>(M, N, P, J, K, L);
}
