// Held-out kernel v04-t8x64-k8 (stage 04-rectangular): 64x8 blocks (512 threads), each an 8-row x 64-column tile of P, phases 8 deep: the 8x8 M tile loaded by the threads with tx < 8, the 8x64 N tile one element per thread.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TR 8    // rows of P per block; also the phase depth
#define TC 64   // columns of P per block

// 64x8 blocks (512 threads), each an 8-row x 64-column tile of P, phases 8 deep: the 8x8 M tile
// loaded by the threads with tx < 8, the 8x64 N tile one element per thread.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[TR][TR];
    __shared__ float Ns[TR][TC];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TR + ty;
    int Col = blockIdx.x * TC + tx;

    float acc = 0.0f;
    int phases = (K + TR - 1) / TR;
    for (int ph = 0; ph < phases; ++ph) {
        int k0 = ph * TR;
        if (tx < TR)
            Ms[ty][tx] = (Row < J && k0 + tx < K) ? M[Row * K + k0 + tx] : 0.0f;
        Ns[ty][tx] = (k0 + ty < K && Col < L) ? N[(k0 + ty) * L + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TR; ++k)
            acc += Ms[ty][k] * Ns[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L) P[Row * L + Col] = acc;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(TC, TR);
    dim3 grid((L + TC - 1) / TC, (J + TR - 1) / TR);
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
