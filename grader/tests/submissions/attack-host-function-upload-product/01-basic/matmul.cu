// Known-bad submission (sealed judging, a product computed on the host): matmul_host multiplies
// M_h and N_h on the host, uploads the product (not M_h and N_h) into P's device buffer, launches a
// kernel that adds zero to it, and copies it back: a kernel ran and P_h came from the device.
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

__global__ void AddZero(float* P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) P[i] = P[i] + 0.0f;
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t n = (size_t)Width * Width, size = n * sizeof(float);
    std::vector<float> p(n);
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            double s = 0;
            for (int k = 0; k < Width; ++k) s += double(M_h[i * Width + k]) * N_h[k * Width + j];
            p[i * Width + j] = float(s);
        }
    float* P_d;
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(P_d, p.data(), size, cudaMemcpyHostToDevice);
    AddZero<<<(int(n) + 255) / 256, 256>>>(P_d, int(n));
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(P_d);
}
