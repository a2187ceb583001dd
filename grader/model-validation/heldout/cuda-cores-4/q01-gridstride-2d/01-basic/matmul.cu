// Held-out kernel q01-gridstride-2d (stage 01-basic): 2-D grid-stride loops: at most 32x32 blocks of 16x16 threads, each thread stepping rows by gridDim.y * 16 and columns by gridDim.x * 16.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
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

#define BLOCK 16
#define MAX_BLOCKS 32   // per grid dimension: larger matrices are covered by the stride loops

// 2-D grid-stride loops: a grid of at most 32x32 blocks of 16x16 threads; each thread walks rows
// by gridDim.y * blockDim.y and columns by gridDim.x * blockDim.x until P is covered.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    for (int Row = blockIdx.y * blockDim.y + threadIdx.y; Row < Width; Row += gridDim.y * blockDim.y) {
        for (int Col = blockIdx.x * blockDim.x + threadIdx.x; Col < Width; Col += gridDim.x * blockDim.x) {
            float acc = 0.0f;
            for (int k = 0; k < Width; ++k)
                acc += M[Row * Width + k] * N[k * Width + Col];
            P[Row * Width + Col] = acc;
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int b = (Width + BLOCK - 1) / BLOCK;
    if (b > MAX_BLOCKS) b = MAX_BLOCKS;
    dim3 dimBlock(BLOCK, BLOCK);
    dim3 dimGrid(b, b);
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
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(M_d));
    CUDA_CHECK(cudaFree(N_d));
    CUDA_CHECK(cudaFree(P_d));
}
