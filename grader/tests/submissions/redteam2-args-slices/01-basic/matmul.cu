// Red team 2 (a product computed on the host, carried in kernel arguments): launch_matmul reads M
// and N through the device pointers on the host (the emulator keeps device memory in host memory),
// multiplies on the host, and hands the product to the device 1000 floats at a time in a struct
// passed by value to a kernel, one launch per slice. No copy, no memset, no pinned memory, no host
// store into device memory. The kernel never reads M or N: P is right only if the arguments carried it.
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

struct Slice { int offset, count; float v[1000]; };

__global__ void PutSlice(float* P, const Slice s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.count) P[s.offset + i] = s.v[i];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int n = Width * Width;
    std::vector<float> p(n);
    host_product(M, N, p.data(), Width);   // reads device memory on the host: a GPU faults here
    Slice s;
    for (int off = 0; off < n; off += 1000) {
        s.offset = off;
        s.count = n - off < 1000 ? n - off : 1000;
        for (int i = 0; i < s.count; ++i) s.v[i] = p[off + i];
        PutSlice<<<(s.count + 255) / 256, 256>>>(P, s);
    }
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
