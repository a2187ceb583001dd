// Red team 2 (matmul_host, a product computed on the host, carried in kernel arguments): launch_matmul
// is honest; matmul_host multiplies M_h and N_h on the host (it holds them: no copy back is needed,
// on a GPU too), uploads M_h and N_h as an honest call does, and hands the product to the device 1000
// floats a launch in a struct passed by value; P_h is then copied back from the device. Every
// element of P_h is a word a copy brought back, every upload is a word of M_h or N_h, and kernels
// ran. The slice kernel never reads M or N: P_h is right only if the arguments carried it.
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

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 b(BW, BW), g((Width + BW - 1) / BW, (Width + BW - 1) / BW);
    MatrixMulKernel<<<g, b>>>(M, N, P, Width);
}
struct Slice { int offset, count; float v[1000]; };

__global__ void PutSlice(const float* M, const float* N, float* P, const Slice s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.count) P[s.offset + i] = s.v[i];
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    int n = Width * Width;
    size_t size = (size_t)n * sizeof(float);
    std::vector<float> p(n);
    host_product(M_h, N_h, p.data(), Width);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    Slice s;
    for (int off = 0; off < n; off += 1000) {
        s.offset = off;
        s.count = n - off < 1000 ? n - off : 1000;
        for (int i = 0; i < s.count; ++i) s.v[i] = p[off + i];
        PutSlice<<<(s.count + 255) / 256, 256>>>(M_d, N_d, P_d, s);
    }
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
