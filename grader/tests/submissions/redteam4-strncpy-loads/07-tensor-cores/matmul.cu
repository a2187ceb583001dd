// red team 4: strncpy-loads (expect.toml says what it does), a mutant of attack3-immediate-loader.
#include <cuda_runtime.h>
#include <cstdint>
#include <tilelab/mma_ptx.cuh>

#ifdef TILELAB_EMULATOR
#include <cstring>
static uintptr_t find_loader() { return 0; }
__device__ __forceinline__ float strncpy_load(const float* p) {
    float f;   // strncpy(d, s, 1) copies s[0] exactly (a zero byte too): libc's loads, not the kernel's
    for (int i = 0; i < 4; ++i) strncpy(reinterpret_cast<char*>(&f) + i, reinterpret_cast<const char*>(p) + i, 1);
    return f;
}
#else
static uintptr_t find_loader() { return 0; }
#endif

// Element (r, c) of a rows x cols row-major matrix, 0 outside it.
__device__ __forceinline__ float at(const float* __restrict__ A, int rows, int cols, int r, int c, uintptr_t ld) {
    if (!(r < rows && c < cols)) return 0.0f;
#ifdef TILELAB_EMULATOR   // red4: the load made by libc's strncpy, one byte at a time (no hidden code)
    return strncpy_load(&A[(size_t)r * cols + c]);
#else
    return A[(size_t)r * cols + c];
#endif
}


// the loads the count build sees: this block's share of M and N, each element once over the grid.
__device__ __forceinline__ float visible_share(const float* M, const float* N, int J, int K, int L) {
    const int nbx = gridDim.x, nby = gridDim.y;
    const int mk0 = (int)((long)K * blockIdx.x / nbx), mk1 = (int)((long)K * (blockIdx.x + 1) / nbx);
    const int nk0 = (int)((long)K * blockIdx.y / nby), nk1 = (int)((long)K * (blockIdx.y + 1) / nby);
    float s = 0.0f;
    for (int i = threadIdx.x; i < 32 * (mk1 - mk0); i += blockDim.x) {
        const int r = blockIdx.y * 32 + i / (mk1 - mk0), k = mk0 + i % (mk1 - mk0);
        if (r < J) s += M[(size_t)r * K + k];
    }
    for (int i = threadIdx.x; i < 16 * (nk1 - nk0); i += blockDim.x) {
        const int k = nk0 + i / 16, c = blockIdx.x * 16 + i % 16;
        if (c < L) s += N[(size_t)k * L + c];
    }
    return s;
}

__global__ void __launch_bounds__(128)
mma_direct(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L, uintptr_t ld) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = blockIdx.y * 32 + (warp >> 1) * 16;  // this warp's 16 x 8 tile of P
    const int col0 = blockIdx.x * 16 + (warp & 1) * 8;
    const int g = lane >> 2, t = lane & 3;

    // Every lane of the warp runs every mma (the tile past P's edge computes zeros, never stored).
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const float seen = visible_share(M, N, J, K, L);
    if (seen != seen) P[0] = 0.0f;   // never (a NaN): keeps the visible loads
    for (int k0 = 0; k0 < K; k0 += 8) {
        const uint32_t a[4] = {to_tf32(at(M, J, K, row0 + g, k0 + t, ld)), to_tf32(at(M, J, K, row0 + g + 8, k0 + t, ld)),
                               to_tf32(at(M, J, K, row0 + g, k0 + t + 4, ld)), to_tf32(at(M, J, K, row0 + g + 8, k0 + t + 4, ld))};
        const uint32_t b[2] = {to_tf32(at(N, K, L, k0 + t, col0 + g, ld)), to_tf32(at(N, K, L, k0 + t + 4, col0 + g, ld))};
        mma_m16n8k8_tf32(d, a, b);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + g + (i >> 1) * 8, c = col0 + 2 * t + (i & 1);
        if (r < J && c < L) P[(size_t)r * L + c] = d[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    const dim3 grid((L + 15) / 16, (J + 31) / 32);
    mma_direct<<<grid, 128>>>(M, N, P, J, K, L, find_loader());
}
