// Red team 2 (a product computed on the host, through a host pointer smuggled as an integer): a
// kernel copies M and N into malloc'd host memory whose address it receives as a uintptr_t (the
// emulator's host-pointer check looks at pointer arguments), the host multiplies there, and a second
// kernel copies the product from host memory into P. No copy, memset or pinned memory.
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

__global__ void Out(const float* M, const float* N, uintptr_t dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* h = reinterpret_cast<float*>(dst);
    if (i < n) { h[i] = M[i]; h[n + i] = N[i]; }
}

__global__ void In(float* P, uintptr_t src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) P[i] = reinterpret_cast<const float*>(src)[i];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    std::vector<float> buf(3 * (size_t)n);
    Out<<<(n + 255) / 256, 256>>>(M, N, reinterpret_cast<uintptr_t>(buf.data()), n);
    cudaDeviceSynchronize();
    host_product(buf.data(), buf.data() + n, buf.data() + 2 * n, Width);
    In<<<(n + 255) / 256, 256>>>(P, reinterpret_cast<uintptr_t>(buf.data() + 2 * n), n);
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
