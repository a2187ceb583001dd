// Held-out kernel v03-t8x32-k32 (stage 03-boundary): 32x8 blocks, each an 8-row x 32-column tile of P, phases 32 deep: the 8x32 M tile one element per thread, the 32x32 N tile four rows per thread (ty + 8i), ternary zero fill.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TR 8    // rows of P per block
#define TC 32   // columns of P per block; also the phase depth

// 32x8 blocks, each an 8-row x 32-column tile of P, phases 32 deep: the 8x32 M tile one element
// per thread, the 32x32 N tile four rows per thread (ty + 8i); zeros outside the matrices.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Ms[TR][TC];
    __shared__ float Ns[TC][TC];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TR + ty;
    int Col = blockIdx.x * TC + tx;

    float sum = 0.0f;
    for (int ph = 0; ph < (Width + TC - 1) / TC; ++ph) {
        int kc = ph * TC + tx;
        Ms[ty][tx] = (Row < Width && kc < Width) ? M[Row * Width + kc] : 0.0f;
        for (int i = 0; i < TC / TR; ++i) {
            int kr = ph * TC + ty + i * TR;
            Ns[ty + i * TR][tx] = (kr < Width && Col < Width) ? N[kr * Width + Col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TC; ++k)
            sum += Ms[ty][k] * Ns[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width) P[Row * Width + Col] = sum;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TC, TR);
    dim3 dimGrid((Width + TC - 1) / TC, (Width + TR - 1) / TR);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
