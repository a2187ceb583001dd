// Held-out kernel b01-int64-b32x8 (stage 01-basic): 32x8 blocks (256 threads), Row, Col, Width and k all 64-bit long long (every index product in 64 bits).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(call)                                                             \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err_));                                       \
            return;                                                                  \
        }                                                                            \
    } while (0)

#define BX 32
#define BY 8

// 32x8 blocks; every index is a 64-bit long long, the products of the row and k offsets included.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    long long Row = (long long)blockIdx.y * BY + threadIdx.y;
    long long Col = (long long)blockIdx.x * BX + threadIdx.x;
    long long W = Width;
    if (Row < W && Col < W) {
        float Pvalue = 0.0f;
        for (long long k = 0; k < W; ++k)
            Pvalue += M[Row * W + k] * N[k * W + Col];
        P[Row * W + Col] = Pvalue;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BX, BY);
    dim3 dimGrid((Width + BX - 1) / BX, (Width + BY - 1) / BY);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
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
