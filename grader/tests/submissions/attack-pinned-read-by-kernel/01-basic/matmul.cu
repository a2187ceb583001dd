// Known-bad submission (sealed judging, a product computed on the host): no copy at all. A kernel
// writes M and N into pinned host memory (cudaMallocHost, which kernels reach directly through
// unified addressing), the host multiplies them there, and a kernel that also loads M and N reads
// the product from the pinned buffer into P.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>

__global__ void Stash(const float* M, const float* N, float* H, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        H[i] = M[i];
        H[n + i] = N[i];
    }
}

__global__ void CopyKernel(const float* M, const float* N, const float* H, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float touch = M[Row * Width + Col] * 0.0f + N[Row * Width + Col] * 0.0f;  // loads M and N
        P[Row * Width + Col] = H[Row * Width + Col] + touch;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    float* H = nullptr;
    cudaMallocHost((void**)&H, 3 * (size_t)n * sizeof(float));
    Stash<<<(n + 255) / 256, 256>>>(M, N, H, n);
    cudaDeviceSynchronize();
    float* prod = H + 2 * (size_t)n;
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            float acc = 0;
            for (int k = 0; k < Width; ++k) acc += H[i * Width + k] * H[n + k * Width + j];
            prod[i * Width + j] = acc;
        }
    dim3 block(16, 16), grid((Width + 15) / 16, (Width + 15) / 16);
    CopyKernel<<<grid, block>>>(M, N, prod, P, Width);
    cudaDeviceSynchronize();
    cudaFreeHost(H);
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
