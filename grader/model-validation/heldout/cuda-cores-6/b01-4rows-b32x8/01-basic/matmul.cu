// Held-out kernel b01-4rows-b32x8 (stage 01-basic): 32x8 blocks, each thread 4 rows of one column (rows ty + 8i of a 32x32 block of P), the element of N read once per k for the 4 sums, each row tested inside the k loop.
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
#define ROWS 4

// 32x8 blocks, each thread 4 rows of one column (rows ty + 8i of a 32-row block), so a block covers
// 32 rows x 32 columns; the element of N is read once per k for the 4 sums.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Col = blockIdx.x * BX + threadIdx.x;
    int Row0 = blockIdx.y * (BY * ROWS) + threadIdx.y;
    if (Col >= Width) return;
    float sum[ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < Width; ++k) {
        float n = N[k * Width + Col];
        for (int i = 0; i < ROWS; ++i) {
            int Row = Row0 + i * BY;
            if (Row < Width) sum[i] += M[Row * Width + k] * n;
        }
    }
    for (int i = 0; i < ROWS; ++i) {
        int Row = Row0 + i * BY;
        if (Row < Width) P[Row * Width + Col] = sum[i];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BX, BY);
    dim3 dimGrid((Width + BX - 1) / BX, (Width + BY * ROWS - 1) / (BY * ROWS));
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
