// Issue #45.3: peak.cu's ceilings for the PTX candidates. The inner loop of mma-sync-pipeline.cu
// (its own load_fragments and mma_16x8x8, BPERM as built: -DBPERM=0 is candidate C's layout, 1 is
// E's) with no global memory: 4 warps of 64 x 64, 2 blocks per SM (255 registers), one shared buffer
// of the kernel's layout, 16 blocks per SM in the grid. "mma only": the fragments stay in registers;
// "shared + mma": every k-step's fragments loaded from shared memory before the previous k-step's
// products, as the kernel does. The best of 5 runs.
#include "mma-sync-pipeline.cu"
#include <cstdio>
static_assert(BM == 128 && BN == 128 && WM == 64 && WN == 64, "the ceiling is measured on candidate C's and E's tiles");
constexpr int ITERS = 2048;

template <bool SMEM>
__global__ void __launch_bounds__(THREADS) ceiling(float* out, int flag) {
    extern __shared__ __align__(128) float smem[];
    for (int i = threadIdx.x; i < STAGE_FLOATS; i += THREADS) smem[i] = (i % 7) * 0.25f;
    __syncthreads();
    const int warp = threadIdx.x / 32, wm = (warp / 2) * 64, wn = (warp % 2) * 64;
    const float* As = smem;
    const float* Bs = smem + BM * LDA;
    float acc[MI][NI][4] = {};
    uint32_t a[2][MI][4], b[2][NI][2];
    mma_ptx::load_fragments(a[0], b[0], As, Bs, wm, wn, 0);
    mma_ptx::load_fragments(a[1], b[1], As, Bs, wm, wn, 1);
    for (int it = 0; it < ITERS; it += BK / 8) {
#pragma unroll
        for (int ks = 0; ks < BK / 8; ++ks) {
            if (SMEM) mma_ptx::load_fragments(a[(ks + 1) % 2], b[(ks + 1) % 2], As, Bs, wm, wn, (ks + 1) % (BK / 8));
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_ptx::mma_16x8x8(acc[i][j], a[ks % 2][i], b[ks % 2][j]);
        }
    }
    float s = 0;
    for (int i = 0; i < MI; ++i)
        for (int j = 0; j < NI; ++j)
            for (int v = 0; v < 4; ++v) s += acc[i][j][v];
    if (flag) out[blockIdx.x * THREADS + threadIdx.x] = s;
}

template <bool SMEM>
void measure(const char* name, float* out) {
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int grid = sms * 16, bytes = STAGE_FLOATS * 4;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    ceiling<SMEM><<<grid, THREADS, bytes>>>(out, 0);
    float best = 1e30f;
    for (int r = 0; r < 5; ++r) {
        cudaEventRecord(a);
        ceiling<SMEM><<<grid, THREADS, bytes>>>(out, 0);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        best = std::min(best, ms);
    }
    const double flops = 2.0 * grid * (THREADS / 32) * ITERS * MI * NI * (16 * 8 * 8);
    printf("ceiling PTX %-40s BPERM %d  grid %5d  %7.1f TFLOP/s  (%s)\n", name, BPERM, grid, flops / best / 1e9,
           cudaGetErrorString(cudaGetLastError()));
}

int main() {
    float* out;
    cudaMalloc(&out, 1 << 26);
    measure<false>("mma.sync only", out);
    measure<true>("shared (ldmatrix / LDS) + mma.sync", out);
}
