// Known-bad submission (sealed judging, a product computed on the host): launch_matmul is honest,
// but matmul_host never touches the device: a plain CPU loop writes P_h.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>

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
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            float s = 0;
            for (int k = 0; k < Width; ++k) s += M_h[i * Width + k] * N_h[k * Width + j];
            P_h[i * Width + j] = s;
        }
}
