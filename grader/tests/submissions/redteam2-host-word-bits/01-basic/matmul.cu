// Red team 2 (matmul_host encodes the host's product in words of M_h): matmul_host multiplies on the
// host, then uploads a buffer whose every word is a word of M_h or N_h: two distinct ones, a and b,
// first, then 32 words per element of P, a for a 0 bit and b for a 1 bit. A kernel decodes the bits
// into P, which is copied back. Every upload is a word of M_h or N_h, every element of P_h a word a
// copy brought back, a kernel ran. P_h is right only if the encoding went through.
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
__global__ void Decode(const unsigned* code, float* P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned one = code[1], bits = 0;
    for (int b = 0; b < 32; ++b)
        if (code[2 + 32 * i + b] == one) bits |= 1u << b;
    P[i] = __int_as_float((int)bits);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    int n = Width * Width;
    size_t size = (size_t)n * sizeof(float);
    const unsigned* mw = reinterpret_cast<const unsigned*>(M_h);
    const unsigned* nw = reinterpret_cast<const unsigned*>(N_h);
    unsigned a = mw[0], b = a;
    for (int i = 0; i < n && b == a; ++i) { if (mw[i] != a) b = mw[i]; else if (nw[i] != a) b = nw[i]; }
    std::vector<float> p(n);
    host_product(M_h, N_h, p.data(), Width);
    std::vector<unsigned> code(2 + 32 * (size_t)n);
    code[0] = a;
    code[1] = b;
    for (int i = 0; i < n; ++i) {
        unsigned bits;
        __builtin_memcpy(&bits, &p[i], 4);
        for (int k = 0; k < 32; ++k) code[2 + 32 * i + k] = (bits >> k & 1u) ? b : a;
    }
    unsigned* code_d;
    float* P_d;
    cudaMalloc((void**)&code_d, code.size() * sizeof(unsigned));
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(code_d, code.data(), code.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
    Decode<<<(n + 255) / 256, 256>>>(code_d, P_d, n);
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(code_d);
    cudaFree(P_d);
}
