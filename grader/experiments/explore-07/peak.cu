// Walkthrough 07, section 7: the ceilings of wmma TF32 on this GPU. The
// throughput of mma_sync alone (fragments in registers), and of load_matrix_sync from shared
// memory + mma_sync (a 64 x 64 warp tile, 4 x 4 fragments per k-step of 8, as the reference's
// inner loop; SMEM 2 also loads the next k-step's fragments before this one's products), with 4 or 8
// warps per block, a grid of 16 blocks per SM, no global memory. The best of 5 runs.
#include <cuda_runtime.h>
#include <mma.h>
#include <cstdio>
using namespace nvcuda;
typedef wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> FragC;
constexpr int ITERS = 2048;

template <int SMEM, int LDB>
__global__ void ceiling(float* out, int flag) {
    __shared__ __align__(128) float As[128 * 36];
    __shared__ __align__(128) float Bs[32 * LDB];
    for (int i = threadIdx.x; i < 128 * 36; i += blockDim.x) As[i] = (i % 7) * 0.25f;
    for (int i = threadIdx.x; i < 32 * LDB; i += blockDim.x) Bs[i] = (i % 5) * 0.25f;
    __syncthreads();
    const int warp = threadIdx.x / 32, wm = (warp / 2 % 2) * 64, wn = (warp % 2) * 64;
    FragC acc[4][4];
    for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    FragA a[4]; FragB b[4];
    for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], As + (wm + 16 * i) * 36, 36);
    for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], Bs + wn + 16 * j, LDB);
    FragA a2[4]; FragB b2[4];
    for (int it = 0; it < ITERS; it += 2) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int kk = ((it + h) % 4) * 8, nk = ((it + h + 1) % 4) * 8;
            FragA (&ca)[4] = h ? a2 : a; FragB (&cb)[4] = h ? b2 : b;
            FragA (&na)[4] = h ? a : a2; FragB (&nb)[4] = h ? b : b2;
            if (SMEM == 1) {
#pragma unroll
                for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(ca[i], As + (wm + 16 * i) * 36 + kk, 36);
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(cb[j], Bs + kk * LDB + wn + 16 * j, LDB);
            }
            if (SMEM == 2) {  // the next k-step's fragments loaded before this one's products
#pragma unroll
                for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(na[i], As + (wm + 16 * i) * 36 + nk, 36);
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(nb[j], Bs + nk * LDB + wn + 16 * j, LDB);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], (SMEM == 0 ? a : ca)[i], (SMEM == 0 ? b : cb)[j], acc[i][j]);
        }
    }
    float s = 0;
    for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) for (int t = 0; t < acc[i][j].num_elements; ++t) s += acc[i][j].x[t];
    if (flag) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int SMEM, int LDB>
void measure(const char* name, int warps, int blocks_per_sm, float* out) {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int grid = sms * blocks_per_sm * 8;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    ceiling<SMEM, LDB><<<grid, warps * 32>>>(out, 0);
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        cudaEventRecord(a); ceiling<SMEM, LDB><<<grid, warps * 32>>>(out, 0); cudaEventRecord(b);
        cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
    }
    const double flops = 2.0 * grid * warps * ITERS * 16 * (16 * 16 * 8);
    printf("ceiling %-28s warps/block %d  grid %5d  %7.1f TFLOP/s  (%s)\n", name, warps, grid, flops / best / 1e9,
           cudaGetErrorString(cudaGetLastError()));
}
int main() {
    float* out; cudaMalloc(&out, 1 << 26);
    for (int w : {4, 8}) {  // 16 warps of 230 registers do not fit an SM
        measure<0, 136>("mma_sync only", w, 2, out);
        measure<1, 136>("smem+mma", w, 2, out);
        measure<2, 136>("smem+mma, fragments prefetched", w, 2, out);
    }
}
