// Held-out kernel v02-t64-4x4-s16 (stage 02-tiled): 16x16 threads computing a 64x64 tile of P, 4x4 outputs per thread 16 apart (rows ty + 16i, columns tx + 16j), phases 16 deep (64x16 M tile and 16x64 N tile, 4 elements of each per thread), the rows and columns of the last block tested because Width is a multiple of 32 only.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define T 16        // threads per side; also the phase depth
#define R 4         // outputs per thread each way
#define BT (T * R)  // 64: the block's tile of P

// 16x16 threads computing a 64x64 tile of P, 4x4 outputs per thread 16 apart (rows ty + 16i,
// columns tx + 16j); phases 16 deep: the 64x16 M tile and the 16x64 N tile, 4 elements of each per
// thread, the 4 + 4 operands of a step read into registers. Width is a multiple of 32 but not
// always of 64, so rows and columns of the last block are tested (zeros loaded outside).
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Ms[BT][T];
    __shared__ float Ns[T][BT];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;

    float c[R][R];
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < R; ++j) c[i][j] = 0.0f;

    for (int ph = 0; ph < Width / T; ++ph) {
        for (int i = 0; i < R; ++i) {
            int r = row0 + ty + i * T, cn = col0 + tx + i * T;
            Ms[ty + i * T][tx] = r < Width ? M[r * Width + ph * T + tx] : 0.0f;
            Ns[ty][tx + i * T] = cn < Width ? N[(ph * T + ty) * Width + cn] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float a[R], b[R];
            for (int i = 0; i < R; ++i) a[i] = Ms[ty + i * T][k];
            for (int j = 0; j < R; ++j) b[j] = Ns[k][tx + j * T];
            for (int i = 0; i < R; ++i)
                for (int j = 0; j < R; ++j) c[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < R; ++j)
            if (row0 + ty + i * T < Width && col0 + tx + j * T < Width)
                P[(row0 + ty + i * T) * Width + col0 + tx + j * T] = c[i][j];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(T, T);
    dim3 dimGrid((Width + BT - 1) / BT, (Width + BT - 1) / BT);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
