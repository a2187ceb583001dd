// Known-bad submission (sealed judging, a product computed on the host): matmul_host goes through
// the motions -- M_h and N_h copied in, launch_matmul launched, P copied back -- into a scratch host
// buffer, then a CPU loop writes P_h itself.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <vector>

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 block(16, 16), grid((Width + 15) / 16, (Width + 15) / 16);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t n = (size_t)Width * Width, size = n * sizeof(float);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    std::vector<float> ignored(n);
    cudaMemcpy(ignored.data(), P_d, size, cudaMemcpyDeviceToHost);
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            double s = 0;  // in double: not the bits the kernel's float sums give
            for (int k = 0; k < Width; ++k) s += double(M_h[i * Width + k]) * N_h[k * Width + j];
            P_h[i * Width + j] = float(s);
        }
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
