// Known-bad (habit) submission for stage 01-basic: a correct kernel, launch_matmul and matmul_host,
// plus the student's own int main() that tested them on a laptop. The grader's runner supplies main:
// the grade must say so (not 'forbidden: static initializer calls puts' -- g++ -O2 puts main in
// .text.startup, where the static-initializer scan looks). Asserted in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdio>

#define BLOCK_WIDTH 16

// Stops matmul_host with a message naming the failed call; the grader sees P_h left unwritten.
#define CUDA_CHECK(call)                                                             \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err_));                                       \
            return;                                                                  \
        }                                                                            \
    } while (0)

// Thread (Row, Col) computes P[Row][Col], the dot product of row Row of M and column Col of N.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        }
        P[Row * Width + Col] = Pvalue;
    }
}

// M, N, P are device pointers. Launches one thread per element of P and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}

// M_h, N_h, P_h are host pointers: allocate device memory, copy M and N in, launch, copy P
// back, free. Every CUDA call is checked, the launch included.
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

// The student's own test program, left in the file.
int main() {
    const int Width = 4;
    float M_h[Width * Width], N_h[Width * Width], P_h[Width * Width];
    for (int i = 0; i < Width * Width; ++i) {
        M_h[i] = float(i % 3);
        N_h[i] = float(i % 5);
    }
    matmul_host(M_h, N_h, P_h, Width);
    puts("P =");
    for (int i = 0; i < Width * Width; ++i) printf("%g%c", P_h[i], (i + 1) % Width ? ' ' : '\n');
    return 0;
}
