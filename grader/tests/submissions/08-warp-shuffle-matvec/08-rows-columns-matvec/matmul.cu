// Known-good submission for stage 08-rows-columns-matvec (no false alarm on code from elsewhere):
// the three kernels with what a performance-minded student adds -- the matrix-vector kernel reads
// C once per warp, 32 elements at a time (lane j loads C[j0 + j]), and hands each element to every
// lane with __shfl_sync over the full warp (the lanes past the last row take part in every shuffle
// and store nothing); the row kernel is a grid-stride loop over rows with the row of M's pointer
// hoisted; the column kernel reads through __ldg with #pragma unroll 4. launch_matmul is the given
// one. Must pass on both backends.
#include <cuda_runtime.h>

#define BLOCK_SIZE 128
#define FULL_MASK 0xffffffffu

__global__ void MatrixMulRowKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    for (int Row = blockIdx.x * blockDim.x + threadIdx.x; Row < J; Row += gridDim.x * blockDim.x) {
        const float* mRow = M + (size_t)Row * K;
        float* pRow = P + (size_t)Row * L;
        for (int Col = 0; Col < L; ++Col) {
            float Pvalue = 0.0f;
            for (int k = 0; k < K; ++k) Pvalue += mRow[k] * N[(size_t)k * L + Col];
            pRow[Col] = Pvalue;
        }
    }
}

__global__ void MatrixMulColKernel(const float* __restrict__ M, const float* __restrict__ N,
                                   float* __restrict__ P, int J, int K, int L) {
    const int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Col >= L) return;
    for (int Row = 0; Row < J; ++Row) {
        float Pvalue = 0.0f;
#pragma unroll 4
        for (int k = 0; k < K; ++k) Pvalue += __ldg(&M[Row * K + k]) * __ldg(&N[k * L + Col]);
        P[Row * L + Col] = Pvalue;
    }
}

// A = B C; the warp's 32 lanes load C 32 elements at a time and share them by shuffles.
__global__ void MatVecKernel(const float* B, const float* C, float* A, int n_rows, int n_cols) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % warpSize;
    const bool active = i < n_rows;  // no early return: every lane takes part in the shuffles
    float sum = 0.0f;
    for (int j0 = 0; j0 < n_cols; j0 += warpSize) {
        const float mine = (j0 + lane < n_cols) ? C[j0 + lane] : 0.0f;
        const int chunk = min(warpSize, n_cols - j0);
        for (int s = 0; s < chunk; ++s) {
            const float cj = __shfl_sync(FULL_MASK, mine, s);
            if (active) sum += B[(size_t)i * n_cols + j0 + s] * cj;
        }
    }
    if (active) A[i] = sum;
}

// One thread per item (row, column or element of A): blocks of BLOCK_SIZE threads, enough of them.
static dim3 grid_for(int items) {
    return dim3((items + BLOCK_SIZE - 1) / BLOCK_SIZE);
}

// Given: picks one of the kernels above by the shape of P.
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (L == 1) {
        MatVecKernel<<<grid_for(J), BLOCK_SIZE>>>(M, N, P, J, K);
    } else if (J >= L) {
        MatrixMulRowKernel<<<grid_for(J), BLOCK_SIZE>>>(M, N, P, J, K, L);
    } else {
        MatrixMulColKernel<<<grid_for(L), BLOCK_SIZE>>>(M, N, P, J, K, L);
    }
}
