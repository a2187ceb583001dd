// Red team 2 (a product computed on the host, stored into a __device__ variable by name): a kernel
// copies M and N into a __device__ array, the host reads it and writes the product into another
// __device__ array by name (an ordinary store on the emulator), and a kernel copies it into P.
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

#define MAXW 129
__device__ float g_in[2 * MAXW * MAXW];
__device__ float g_product[MAXW * MAXW];

__global__ void Out(const float* M, const float* N, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { g_in[i] = M[i]; g_in[n + i] = N[i]; }
}

__global__ void In(float* P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) P[i] = g_product[i];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    if (Width > MAXW) {
        dim3 b(BW, BW), g((Width + BW - 1) / BW, (Width + BW - 1) / BW);
        MatrixMulKernel<<<g, b>>>(M, N, P, Width);
        return;
    }
    Out<<<(n + 255) / 256, 256>>>(M, N, n);
    cudaDeviceSynchronize();
    host_product(g_in, g_in + n, g_product, Width);
    In<<<(n + 255) / 256, 256>>>(P, n);
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
