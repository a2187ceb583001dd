// Held-out kernel v01-2cols-b16x16 (stage 01-basic): 16x16 blocks, each thread two adjacent columns of P (2*Col and 2*Col + 1; a block covers 16 rows x 32 columns), the element of M read once for both sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
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

#define BLOCK_WIDTH 16

// 16x16 blocks, each thread two adjacent columns of P (2 * Col and 2 * Col + 1): a block covers
// 16 rows and 32 columns, the row of M read once for both sums.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * BLOCK_WIDTH + threadIdx.y;
    int Col = (blockIdx.x * BLOCK_WIDTH + threadIdx.x) * 2;
    if (Row < Width && Col < Width) {
        bool second = Col + 1 < Width;
        float p0 = 0.0f, p1 = 0.0f;
        for (int k = 0; k < Width; ++k) {
            float m = M[Row * Width + k];
            p0 += m * N[k * Width + Col];
            if (second) p1 += m * N[k * Width + Col + 1];
        }
        P[Row * Width + Col] = p0;
        if (second) P[Row * Width + Col + 1] = p1;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + 2 * BLOCK_WIDTH - 1) / (2 * BLOCK_WIDTH), (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
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
