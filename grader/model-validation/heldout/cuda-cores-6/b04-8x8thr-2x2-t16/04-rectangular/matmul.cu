// Held-out kernel b04-8x8thr-2x2-t16 (stage 04-rectangular): 8x8 threads (64 per block) computing a 16x16 tile of P, 2x2 outputs per thread 8 apart (rows ty, ty + 8, columns tx, tx + 8), phases 16 deep with 4 elements of each tile loaded per thread, four scalar sums.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-6/heldout.toml;
// written blind for issue #44): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define T 16      // tile of P and depth of a phase
#define BT 8      // threads per side

// 8x8 threads (64 per block) computing a 16x16 tile of P: 2x2 outputs per thread 8 apart
// (rows ty, ty + 8; columns tx, tx + 8); each thread loads 4 elements of each 16x16 tile.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[T][T];
    __shared__ float Nds[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int rowBase = blockIdx.y * T, colBase = blockIdx.x * T;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                int r = ty + i * BT, c = tx + j * BT;
                int gr = rowBase + r, gc = k0 + c;
                Mds[r][c] = (gr < J && gc < K) ? M[gr * K + gc] : 0.0f;
                int nr = k0 + r, nc = colBase + c;
                Nds[r][c] = (nr < K && nc < L) ? N[nr * L + nc] : 0.0f;
            }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float a0 = Mds[ty][k], a1 = Mds[ty + BT][k];
            float b0 = Nds[k][tx], b1 = Nds[k][tx + BT];
            c00 += a0 * b0; c01 += a0 * b1;
            c10 += a1 * b0; c11 += a1 * b1;
        }
        __syncthreads();
    }
    int r0 = rowBase + ty, r1 = r0 + BT, q0 = colBase + tx, q1 = q0 + BT;
    if (r0 < J && q0 < L) P[r0 * L + q0] = c00;
    if (r0 < J && q1 < L) P[r0 * L + q1] = c01;
    if (r1 < J && q0 < L) P[r1 * L + q0] = c10;
    if (r1 < J && q1 < L) P[r1 * L + q1] = c11;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(BT, BT);
    dim3 dimGrid((L + T - 1) / T, (J + T - 1) / T);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
