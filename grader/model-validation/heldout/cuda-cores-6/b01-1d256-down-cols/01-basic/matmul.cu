// Held-out kernel b01-1d256-down-cols (stage 01-basic): 1-D blocks of 256 threads along a column of P (Row = blockIdx.x * 256 + threadIdx.x, Col = blockIdx.y): a warp reads 32 rows of M (uncoalesced) and one broadcast element of N per k.
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

#define THREADS 256

// 1-D blocks of 256 threads running DOWN a column of P: Row = blockIdx.x * 256 + threadIdx.x,
// Col = blockIdx.y. A warp reads 32 different rows of M (32 segments per load) and one element of N.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.x * THREADS + threadIdx.x;
    int Col = blockIdx.y;
    if (Row < Width) {
        float sum = 0.0f;
        for (int k = 0; k < Width; ++k)
            sum += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = sum;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid((Width + THREADS - 1) / THREADS, Width);
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
