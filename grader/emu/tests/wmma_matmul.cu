// A complete TF32 tensor-core matrix multiplication for the rectangular API (stage 04's
// launch_matmul(M, N, P, J, K, L): M is J x K, N is K x L, P = M N is J x L, row-major device
// memory, any sizes >= 1), written as a student of stage 07-tensor-cores would write it: the
// emulator's wmma tests (wmma.cu) run it in every build on odd shapes, and the allow-list tests
// scan what it compiles to. Each block computes a 32 x 32 tile of P with four warps of 16 x 16;
// the tiles of M and N are staged through shared memory, zero-padded past the matrices' edges (so
// no global access leaves M or N), and the result goes through shared memory to the guarded store.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define BLOCK_TILE 32  // P tile of a block
#define K_TILE 16      // columns of M (rows of N) per phase: two m16n16k8 steps
#define A_LD 20        // padded row lengths: multiples of 4 floats (wmma's ldm), rows of 16-byte multiples
#define B_LD 36
#define C_LD 36

__global__ void WmmaMatMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(32) float As[BLOCK_TILE][A_LD];
    __shared__ __align__(32) float Bs[K_TILE][B_LD];
    __shared__ __align__(32) float Cs[BLOCK_TILE][C_LD];
    const int tid = threadIdx.x;  // 128 threads: warps 0-3
    const int warp = tid / 32;
    const int wr = warp / 2, wc = warp % 2;  // the warp's 16 x 16 part of the block's tile
    const int row0 = blockIdx.y * BLOCK_TILE, col0 = blockIdx.x * BLOCK_TILE;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += K_TILE) {
        for (int i = tid; i < BLOCK_TILE * K_TILE; i += blockDim.x) {
            const int r = i / K_TILE, c = i % K_TILE;
            As[r][c] = (row0 + r < J && k0 + c < K) ? M[(row0 + r) * K + k0 + c] : 0.0f;
        }
        for (int i = tid; i < K_TILE * BLOCK_TILE; i += blockDim.x) {
            const int r = i / BLOCK_TILE, c = i % BLOCK_TILE;
            Bs[r][c] = (k0 + r < K && col0 + c < L) ? N[(k0 + r) * L + col0 + c] : 0.0f;
        }
        __syncthreads();
        for (int ks = 0; ks < K_TILE; ks += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
            wmma::load_matrix_sync(a, &As[wr * 16][ks], A_LD);
            wmma::load_matrix_sync(b, &Bs[ks][wc * 16], B_LD);
            for (int e = 0; e < a.num_elements; ++e) a.x[e] = wmma::__float_to_tf32(a.x[e]);
            for (int e = 0; e < b.num_elements; ++e) b.x[e] = wmma::__float_to_tf32(b.x[e]);
            wmma::mma_sync(acc, a, b, acc);
        }
        __syncthreads();
    }
    wmma::store_matrix_sync(&Cs[wr * 16][wc * 16], acc, C_LD, wmma::mem_row_major);
    __syncthreads();
    for (int i = tid; i < BLOCK_TILE * BLOCK_TILE; i += blockDim.x) {
        const int r = i / BLOCK_TILE, c = i % BLOCK_TILE;
        if (row0 + r < J && col0 + c < L) P[(row0 + r) * L + col0 + c] = Cs[r][c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(128);
    dim3 grid((L + BLOCK_TILE - 1) / BLOCK_TILE, (J + BLOCK_TILE - 1) / BLOCK_TILE);
    WmmaMatMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
