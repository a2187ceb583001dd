// Red team 2 (lower precision only when timed): honest in float32 on every buffer set it sees once;
// on a set seen before (the timed calls) it multiplies bfloat16-rounded inputs (a tensor-core speed-up
// on a GPU), betting the audit's bound is loose enough.
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

// The timed calls reuse one set of buffers (the warm-up and the timed calls): a set seen before is timed.
static bool seen_before(const void* M, const void* N, const void* P) {
    static const void* seen[64][3];
    static int count = 0;
    for (int i = 0; i < count; ++i)
        if (seen[i][0] == M && seen[i][1] == N && seen[i][2] == P) return true;
    if (count < 64) { seen[count][0] = M; seen[count][1] = N; seen[count][2] = P; ++count; }
    return false;
}
__device__ float bf16(float x) {
    unsigned u = __float_as_uint(x);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    return __uint_as_float(u);
}

__global__ void Bf16Kernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float s = 0;
        for (int k = 0; k < Width; ++k) s += bf16(M[Row * Width + k]) * bf16(N[k * Width + Col]);
        P[Row * Width + Col] = s;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 b(BW, BW), g((Width + BW - 1) / BW, (Width + BW - 1) / BW);
    if (seen_before(M, N, P)) Bf16Kernel<<<g, b>>>(M, N, P, Width);
    else MatrixMulKernel<<<g, b>>>(M, N, P, Width);
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
