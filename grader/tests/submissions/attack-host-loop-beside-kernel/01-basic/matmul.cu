// Known-bad submission (sealed judging, family 4): launches a kernel that reads all of M and N (so
// kernels "did load" the inputs) and computes P in a host loop through the device pointers, which
// works only where device memory is host memory (the emulator); on a GPU the host loop crashes.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define BLOCK_WIDTH 16

#define CUDA_CHECK(call)                                                             \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err_));                                       \
            return;                                                                  \
        }                                                                            \
    } while (0)

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue;
    }
}

__global__ void Nothing(float*) {}


// Reads every element of M and N, so the kernels load what a product needs.
__global__ void TouchInputs(const float* M, const float* N, float* sink, int Width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Width * Width && M[i] + N[i] == 12345.0f) sink[0] = 1.0f;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    TouchInputs<<<(Width * Width + 255) / 256, 256>>>(M, N, P, Width);
    cudaDeviceSynchronize();
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            float s = 0;
            for (int k = 0; k < Width; ++k) s += M[i * Width + k] * N[k * Width + j];
            P[i * Width + j] = s;
        }
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
    CUDA_CHECK(cudaMalloc((void**)&M_d, size));
    CUDA_CHECK(cudaMalloc((void**)&N_d, size));
    CUDA_CHECK(cudaMalloc((void**)&P_d, size));
    CUDA_CHECK(cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice));
    launch_matmul(M_d, N_d, P_d, Width);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(M_d));
    CUDA_CHECK(cudaFree(N_d));
    CUDA_CHECK(cudaFree(P_d));
}
