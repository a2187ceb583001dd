// Stage 01-basic: one thread per element of P (PMPP 4th ed., section 3.4, Fig. 3.11).
//
// P = M N for square Width x Width matrices, row-major float. launch_matmul takes device
// pointers; matmul_host takes host pointers and does the whole round trip itself.
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
    // BEGIN SOLUTION: compute Row (from the y dimension) and Col (from x); if both lie inside P, set P[Row][Col] to the dot product of row Row of M and column Col of N
    // GOAL: each thread computes its one element of P, if that element exists
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        }
        P[Row * Width + Col] = Pvalue;
    }
    // END SOLUTION
}

// M, N, P are device pointers. Launches one thread per element of P and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    // BEGIN SOLUTION: use BLOCK_WIDTH x BLOCK_WIDTH blocks and enough of them to cover every element of P (ceiling division)
    // GOAL: launch one thread per element of P
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    // STARTER: dim3 dimBlock(1, 1);
    // STARTER: dim3 dimGrid(1, 1);
    // END SOLUTION
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}

// M_h, N_h, P_h are host pointers: allocate device memory, copy M and N in, launch, copy P
// back, free. Every CUDA call is checked, the launch included.
void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
    // BEGIN SOLUTION: allocate M_d, N_d, P_d; copy M_h and N_h to the device; call launch_matmul and check the launch; copy P_d back to P_h; free all three (wrap every call in CUDA_CHECK)
    // GOAL: run the kernel on host matrices: device memory, copies both ways, launch, clean-up
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
    // STARTER: (void)size; (void)M_h; (void)N_h; (void)P_h; (void)M_d; (void)N_d; (void)P_d;
    // END SOLUTION
}
