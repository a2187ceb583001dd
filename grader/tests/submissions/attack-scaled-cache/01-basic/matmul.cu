// Known-bad submission (sealed judging, family 4: timed calls answered from a cache): multiplies
// only when it sees a set of buffers for the first time, and keeps those inputs and their product.
// Called again on the same buffers (the timed calls), it assumes the new inputs are the cached ones
// with each row of M and each column of N scaled (M' = D_r M, N' = N D_c: the cheap structured
// change a judge might make instead of a permutation), reads the factors off one element of each
// row and column, and answers P' = D_r P D_c -- O(Width^2) on the device, no multiply. Exact for
// scaled inputs; for any inputs the judge could derive cheaply from earlier ones, some such
// derivation exists, which is why the timed inputs are drawn fresh (issue 39).
// Everything stays on the device (no copy from the host), and every call launches kernels.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdio>

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

// factor[i] = A'[first nonzero of line i of A0] / A0[that element]; a line is a row of M (stride 1
// along it, Width across) or a column of N (Width along, 1 across).
__global__ void Factors(const float* A, const float* A0, int Width, int along, int across, float* factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= Width) return;
    float f = 1.0f;
    for (int k = 0; k < Width; ++k) {
        size_t e = (size_t)i * across + (size_t)k * along;
        if (A0[e] != 0.0f) {
            f = A[e] / A0[e];
            break;
        }
    }
    factor[i] = f;
}

__global__ void Scaled(const float* cached, const float* row_factor, const float* col_factor, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = row_factor[Row] * cached[(size_t)Row * Width + Col] * col_factor[Col];
}

static const float *kM = nullptr, *kN = nullptr;
static float* kP = nullptr;
static int kW = 0;
static float *M0 = nullptr, *N0 = nullptr, *P0 = nullptr;  // the first call's inputs and product
static float *row_factor = nullptr, *col_factor = nullptr;

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    int threads = 256, blocks = (Width + threads - 1) / threads;
    if (P0 && M == kM && N == kN && P == kP && Width == kW) {  // a timed call: derive, don't multiply
        Factors<<<blocks, threads>>>(M, M0, Width, 1, Width, row_factor);
        Factors<<<blocks, threads>>>(N, N0, Width, Width, 1, col_factor);
        Scaled<<<dimGrid, dimBlock>>>(P0, row_factor, col_factor, P, Width);
        return;
    }
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
    if (P0) cudaFree(M0), cudaFree(N0), cudaFree(P0), cudaFree(row_factor), cudaFree(col_factor);
    size_t n = (size_t)Width * Width;
    cudaMalloc(&M0, n * sizeof(float));
    cudaMalloc(&N0, n * sizeof(float));
    cudaMalloc(&P0, n * sizeof(float));
    cudaMalloc(&row_factor, Width * sizeof(float));
    cudaMalloc(&col_factor, Width * sizeof(float));
    cudaMemcpy(M0, M, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(N0, N, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(P0, P, n * sizeof(float), cudaMemcpyDeviceToDevice);
    kM = M, kN = N, kP = P, kW = Width;
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
