// Known-bad submission (sealed judging, a product computed on the host): launch_matmul copies M and
// N back, multiplies them in a CPU loop, and puts the product in a __device__ array with
// cudaMemcpyToSymbol (a symbol, not a cudaMalloc buffer); a copy kernel that also loads M and N
// moves it into P.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <vector>

#define MAX_WIDTH 129
__device__ float g_product[MAX_WIDTH * MAX_WIDTH];

__global__ void CopyKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float touch = M[Row * Width + Col] * 0.0f + N[Row * Width + Col] * 0.0f;  // loads M and N
        P[Row * Width + Col] = g_product[Row * Width + Col] + touch;
    }
}

__global__ void Multiply(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float s = 0;
        for (int k = 0; k < Width; ++k) s += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = s;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 block(16, 16), grid((Width + 15) / 16, (Width + 15) / 16);
    if (Width > MAX_WIDTH) {  // too large for the symbol: a real kernel
        Multiply<<<grid, block>>>(M, N, P, Width);
        return;
    }
    size_t n = (size_t)Width * Width;
    std::vector<float> m(n), nn(n), p(n);
    cudaMemcpy(m.data(), M, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(nn.data(), N, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            float s = 0;
            for (int k = 0; k < Width; ++k) s += m[i * Width + k] * nn[k * Width + j];
            p[i * Width + j] = s;
        }
    cudaMemcpyToSymbol(g_product, p.data(), n * sizeof(float));
    CopyKernel<<<grid, block>>>(M, N, P, Width);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
