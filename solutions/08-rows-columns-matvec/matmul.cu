// Stage 08-rows-columns-matvec: chapter 3's exercises as kernels (PMPP 4th ed., ch. 3, exercises 1
// and 2): one thread per row of P, one thread per column of P, and the matrix-vector product.
//
// M is J x K, N is K x L, P = M N is J x L; all row-major float, any sizes >= 1: element (r, c) of
// a matrix with `width` columns is at r * width + c. launch_matmul below is given, not yours to
// change: it picks the kernel by the shape of P, so each dataset grades one of your three kernels:
// - L == 1: the matrix-vector product A = B C (exercise 2), one thread per element of A: B is M
// (J x K), C is N (a vector of K elements), A is P (a vector of J elements);
// - J >= L: one thread per row of P (exercise 1a), the launch with more threads;
// - J < L: one thread per column of P (exercise 1b), the launch with more threads.
// Each kernel runs on 1-D blocks of BLOCK_SIZE threads along x, as many blocks as cover its rows
// (or columns); the last block may hold threads past the end, which must do nothing.
#include <cuda_runtime.h>

#define BLOCK_SIZE 128

// Exercise 1a: thread Row computes the whole row Row of P, every column of it.
__global__ void MatrixMulRowKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    // BEGIN SOLUTION: compute Row from blockIdx.x, blockDim.x and threadIdx.x; only if Row < J: for each column Col of P (0..L-1) set P[Row][Col] to the dot product of row Row of M (K elements, row-major: M[Row * K + k]) and column Col of N (N[k * L + Col])
    // GOAL: each thread computes one whole row of P, if that row exists
    int Row = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < J) {
        for (int Col = 0; Col < L; ++Col) {
            float Pvalue = 0;
            for (int k = 0; k < K; ++k) {
                Pvalue += M[Row * K + k] * N[k * L + Col];
            }
            P[Row * L + Col] = Pvalue;
        }
    }
    // STARTER: (void)M; (void)N; (void)P; (void)J; (void)K; (void)L;
    // END SOLUTION
}

// Exercise 1b: thread Col computes the whole column Col of P, every row of it.
__global__ void MatrixMulColKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    // BEGIN SOLUTION: compute Col from blockIdx.x, blockDim.x and threadIdx.x; only if Col < L: for each row Row of P (0..J-1) set P[Row][Col] to the dot product of row Row of M and column Col of N (P has L columns: P[Row * L + Col])
    // GOAL: each thread computes one whole column of P, if that column exists
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Col < L) {
        for (int Row = 0; Row < J; ++Row) {
            float Pvalue = 0;
            for (int k = 0; k < K; ++k) {
                Pvalue += M[Row * K + k] * N[k * L + Col];
            }
            P[Row * L + Col] = Pvalue;
        }
    }
    // STARTER: (void)M; (void)N; (void)P; (void)J; (void)K; (void)L;
    // END SOLUTION
}

// Exercise 2: A = B C, B an n_rows x n_cols matrix, C a vector of n_cols elements, A a vector of
// n_rows elements; thread i computes A[i], the dot product of row i of B and C.
__global__ void MatVecKernel(const float* B, const float* C, float* A, int n_rows, int n_cols) {
    // BEGIN SOLUTION: compute i from blockIdx.x, blockDim.x and threadIdx.x; only if i < n_rows: set A[i] to the dot product of row i of B (n_cols elements: B[i * n_cols + j]) and C (C[j] for j < n_cols, no further: C has n_cols elements)
    // GOAL: each thread computes one element of A, if that element exists
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_rows) {
        float sum = 0;
        for (int j = 0; j < n_cols; ++j) {
            sum += B[i * n_cols + j] * C[j];
        }
        A[i] = sum;
    }
    // STARTER: (void)B; (void)C; (void)A; (void)n_rows; (void)n_cols;
    // END SOLUTION
}

// One thread per item (row, column or element of A): blocks of BLOCK_SIZE threads, enough of them.
static dim3 grid_for(int items) {
    // BEGIN SOLUTION: enough blocks of BLOCK_SIZE threads to give each of `items` items its own thread (ceiling division)
    // GOAL: as many blocks as cover every item
    return dim3((items + BLOCK_SIZE - 1) / BLOCK_SIZE);
    // STARTER: (void)items;
    // STARTER: return dim3(1);
    // END SOLUTION
}

// M, N, P are device pointers; M is J x K, N is K x L, P is J x L. Given: picks one of the kernels
// above by the shape of P (see the top of the file) and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    if (L == 1) {
        MatVecKernel<<<grid_for(J), BLOCK_SIZE>>>(M, N, P, J, K);
    } else if (J >= L) {
        MatrixMulRowKernel<<<grid_for(J), BLOCK_SIZE>>>(M, N, P, J, K, L);
    } else {
        MatrixMulColKernel<<<grid_for(L), BLOCK_SIZE>>>(M, N, P, J, K, L);
    }
}
