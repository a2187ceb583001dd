// Held-out kernel q01-warp-b32x1 (stage 01-basic): one-warp blocks (blockDim 32x1) on a 2-D grid: blockIdx.x picks 32 columns, blockIdx.y the row (Width block rows).
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

#define WARP 32

// Each block is a single warp (blockDim 32x1): blockIdx.x picks a group of 32 columns, blockIdx.y
// the row, so every warp reads one float of M (broadcast) and 32 consecutive floats of N per step.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y;
    int Col = blockIdx.x * WARP + threadIdx.x;
    if (Col >= Width) return;
    float sum = 0.0f;
    for (int k = 0; k < Width; k++) {
        sum += M[Row * Width + k] * N[k * Width + Col];
    }
    P[Row * Width + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(WARP, 1);
    dim3 dimGrid((Width + WARP - 1) / WARP, Width);
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
