// Known-good submission for stage 02-tiled (no false alarm on code from elsewhere): PMPP's Fig. 4.16
// with the small habits of other courses -- `__host__ __device__ constexpr` ceiling division used
// both in the kernel (the phase count) and on the host (the grid), an `__host__ __device__ inline`
// row-major index helper, both tiles declared in one `__shared__` statement
// (`__shared__ float Mds[T][T], Nds[T][T];`), several variables per declaration, and the launch
// configuration as braced lists (`<<<{gx, gy}, {T, T}>>>`). Must pass on both backends.
#include <cuda_runtime.h>
#define TILE_WIDTH 16
__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ inline int idx2(int r, int c, int w) { return r * w + c; }
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH], Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0.0f;
    for (int ph = 0; ph < cdiv(Width, TILE_WIDTH); ++ph) {
        Mds[ty][tx] = M[idx2(Row, ph * TILE_WIDTH + tx, Width)];
        Nds[ty][tx] = N[idx2(ph * TILE_WIDTH + ty, Col, Width)];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[idx2(Row, Col, Width)] = Pvalue;
}
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    MatrixMulKernel<<<{(unsigned)cdiv(Width, TILE_WIDTH), (unsigned)cdiv(Width, TILE_WIDTH)}, {TILE_WIDTH, TILE_WIDTH}>>>(M, N, P, Width);
}
