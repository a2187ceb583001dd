// Stage 03-boundary: the tiled kernel for any Width >= 1 (PMPP 3rd ed., section 4.6, Fig. 4.20).
//
// P = M N for square Width x Width matrices, row-major float. The kernel is the tiled kernel of
// stage 02 with three changes: the number of phases is rounded up, every load of a tile element
// is bounds-checked and stores 0 when it falls outside the matrix (the book's figure leaves out
// those else branches; without them the last phase adds stale shared-memory values into P), and
// the store of P is guarded. Every thread still takes part in every phase and reaches both
// barriers, even a thread whose P element lies outside P.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Thread (tx, ty) of block (bx, by) computes P[Row][Col] when it lies inside P.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on.
    // BEGIN SOLUTION: compute Row (from by and ty) and Col (from bx and tx), the element of P this thread computes (it may lie outside P: do not return early, the thread is still needed to load tiles)
    // GOAL: find the element of P this thread computes (it may be outside P)
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    // STARTER: int Row = 0;
    // STARTER: int Col = 0;
    // STARTER: (void)bx; (void)by;
    // END SOLUTION

    // Loop over the M and N tiles required to compute the P element.
    float Pvalue = 0;
    // BEGIN SOLUTION: one phase per tile, rounded up (ceiling division of Width by TILE_WIDTH); load M[Row][ph*TILE_WIDTH+tx] into Mds[ty][tx] only if that element is inside M, else store 0.0f; likewise N[ph*TILE_WIDTH+ty][Col] into Nds[ty][tx], else 0.0f; __syncthreads(); add the TILE_WIDTH products Mds[ty][k]*Nds[k][tx]; __syncthreads() -- every thread reaches both barriers in every phase
    // GOAL: accumulate the dot product tile by tile for any Width
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Collaborative loading of the M and N tiles, with zeros outside the matrices
        if (Row < Width && ph * TILE_WIDTH + tx < Width)
            Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;
        if (ph * TILE_WIDTH + ty < Width && Col < Width)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }
    // STARTER: (void)M; (void)N; (void)tx; (void)ty; (void)Mds; (void)Nds;
    // END SOLUTION

    // BEGIN SOLUTION: store Pvalue in P[Row][Col] only if Row and Col both lie inside P
    // GOAL: write the result where it belongs to P
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
    // STARTER: (void)P; (void)Width; (void)Row; (void)Col; (void)Pvalue;
    // END SOLUTION
}

// M, N, P are device pointers; Width >= 1. Launches one TILE_WIDTH x TILE_WIDTH block per tile of
// P, the last row and column of tiles possibly partial, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    // BEGIN SOLUTION: use TILE_WIDTH x TILE_WIDTH blocks and enough of them to cover every element of P, including a partial last tile (ceiling division, in x for columns and y for rows)
    // GOAL: launch enough blocks for any Width
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    // STARTER: dim3 dimBlock(1, 1);
    // STARTER: dim3 dimGrid(1, 1);
    // END SOLUTION
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
