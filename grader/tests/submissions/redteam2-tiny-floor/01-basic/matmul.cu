// Red team 2 (the allowance floor): for Width <= 8 (P of 256 bytes or less), launch_matmul copies M
// and N back (at most 256 bytes each way is the floor), multiplies on the host, uploads the product to
// a scratch buffer and a copy kernel moves it into P. Larger widths get zeros: P is right only where
// the host product got through.
#include <cuda_runtime.h>
#include <cstdint>
#include <vector>

#define BW 16

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float s = 0;
        for (int k = 0; k < Width; ++k) s += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = s;
    }
}

// The host's product, in float32 in the kernel's order (the judge's rule is met either way).
static void host_product(const float* m, const float* n, float* p, int W) {
    for (int i = 0; i < W; ++i)
        for (int j = 0; j < W; ++j) {
            float s = 0;
            for (int k = 0; k < W; ++k) s += m[i * W + k] * n[k * W + j];
            p[i * W + j] = s;
        }
}

__global__ void CopyKernel(const float* src, const float* M, const float* N, float* P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) P[i] = src ? src[i] : 0.0f;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    size_t bytes = (size_t)n * sizeof(float);
    if (Width > 8) {
        CopyKernel<<<(n + 255) / 256, 256>>>(nullptr, M, N, P, n);
        return;
    }
    std::vector<float> m(n), nn(n), p(n);
    cudaMemcpy(m.data(), M, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(nn.data(), N, bytes, cudaMemcpyDeviceToHost);
    host_product(m.data(), nn.data(), p.data(), Width);
    float* scratch = nullptr;
    cudaMalloc((void**)&scratch, bytes);
    cudaMemcpy(scratch, p.data(), bytes, cudaMemcpyHostToDevice);
    CopyKernel<<<(n + 255) / 256, 256>>>(scratch, M, N, P, n);
    cudaDeviceSynchronize();
    cudaFree(scratch);
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
