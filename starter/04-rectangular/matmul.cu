// Starter file, generated from the reference solution by `./tilelab starter`.
// Stage 04-rectangular: the tiled kernel for J x K times K x L (PMPP 3rd ed., the exercise that
// ends section 4.6).
//
// M is J x K, N is K x L, P = M N is J x L; all row-major float, any sizes >= 1. The three sizes
// play different roles: J counts the rows of M and P, L the columns of N and P, and K the terms of
// each dot product -- so K sets the number of phases, J bounds Row, L bounds Col, and each matrix
// is indexed with its own row length (K for M, L for N and P).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Thread (tx, ty) of block (bx, by) computes P[Row][Col] when it lies inside P.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on.
    // TODO (1): compute Row (from by and ty; a row of M and P) and Col (from bx and tx; a column of
    //   N and P)
    int Row = 0;
    int Col = 0;
    (void)bx; (void)by;

    // Loop over the M and N tiles required to compute the P element.
    float Pvalue = 0;
    // TODO (2): one phase per tile along K, rounded up; load M[Row][ph*TILE_WIDTH+tx] (M has J rows
    //   of K elements) into Mds[ty][tx] if inside M, else 0.0f; load N[ph*TILE_WIDTH+ty][Col] (N
    //   has K rows of L elements) into Nds[ty][tx] if inside N, else 0.0f; __syncthreads(); add the
    //   TILE_WIDTH products Mds[ty][k]*Nds[k][tx]; __syncthreads()
    (void)M; (void)N; (void)K; (void)tx; (void)ty; (void)Mds; (void)Nds;

    // TODO (3): store Pvalue in P[Row][Col] (P has J rows of L elements) only if the element lies
    //   inside P
    (void)P; (void)J; (void)L; (void)Row; (void)Col; (void)Pvalue;
}

// M, N, P are device pointers; M is J x K, N is K x L, P is J x L. Launches one
// TILE_WIDTH x TILE_WIDTH block per tile of P and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    // TODO (4): use TILE_WIDTH x TILE_WIDTH blocks and enough of them to cover the J x L elements
    //   of P (ceiling division: x covers the L columns, y the J rows)
    dim3 dimBlock(1, 1);
    dim3 dimGrid(1, 1);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
