// Red team 2 (pinned memory the ledger may not see): pinned host memory allocated with
// cudaMallocHost by a constructor at namespace scope, before the first call, so it is neither
// allocated in a call nor "kept from an earlier call". Kernels write M and N into it, the host
// multiplies there, a kernel reads the product from it into P. No copy.
#include <cuda_runtime.h>
#include <cstdint>
#include <vector>

#define BW 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float s = 0;
        for (int k = 0; k < Width; ++k) s += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = s;
    }
}

// The host's product, in float32 in the kernel's order (the judge's rule is met either way).
static void host_product(const float* m, const float* n, float* p, int W) {
    for (int i = 0; i < W; ++i)
        for (int j = 0; j < W; ++j) {
            float s = 0;
            for (int k = 0; k < W; ++k) s += m[i * W + k] * n[k * W + j];
            p[i * W + j] = s;
        }
}

__global__ void Out(const float* M, const float* N, float* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { h[i] = M[i]; h[n + i] = N[i]; }
}

__global__ void In(float* P, const float* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) P[i] = h[i];
}
#define MAXW 129
struct PinnedArena {
    float* p = nullptr;
    PinnedArena() { cudaMallocHost((void**)&p, 3 * MAXW * MAXW * sizeof(float)); }
};
static PinnedArena arena;

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    if (Width > MAXW || !arena.p) {
        dim3 b(BW, BW), g((Width + BW - 1) / BW, (Width + BW - 1) / BW);
        MatrixMulKernel<<<g, b>>>(M, N, P, Width);
        return;
    }
    float* h = arena.p;
    Out<<<(n + 255) / 256, 256>>>(M, N, h, n);
    cudaDeviceSynchronize();
    host_product(h, h + n, h + 2 * n, Width);
    In<<<(n + 255) / 256, 256>>>(P, h + 2 * n, n);
    cudaDeviceSynchronize();
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
