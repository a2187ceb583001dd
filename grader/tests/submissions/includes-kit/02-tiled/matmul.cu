// Known-bad (cheat) submission for stage 02-tiled: it includes files of the kit. On a GPU it is
// nothing but an #include of the 02 reference solution through a relative path (which scored full
// marks on an H100); on the CPU emulator, where that include cannot compile (the solution's <<< >>> is
// not rewritten), it includes a kit header through the emulator's include folder and brings its own
// correct kernel. Either way the grade is `forbidden`, naming the file: only system, C++ and CUDA
// headers may be included (tilelab.includes reads the compiler's depfile). Asserted in ../expect.toml.
#include <cuda_runtime.h>

#if __has_include(<../rewrite.hpp>)   // the CPU emulator: -I grader/emu/include, so this is grader/emu/rewrite.hpp
#include <../rewrite.hpp>
#define OWN_KERNEL 1
#elif __has_include("../../../../../solutions/02-tiled/matmul.cu")   // grader/tests/submissions/<name>/02-tiled/
#include "../../../../../solutions/02-tiled/matmul.cu"
#elif __has_include("../../../../solutions/02-tiled/matmul.cu")      // build/<tree>/submission-src/02-tiled/
#include "../../../../solutions/02-tiled/matmul.cu"
#else
#define OWN_KERNEL 1
#endif

#ifdef OWN_KERNEL
#define TILE_WIDTH 16

// Thread (ty, tx) of block (by, bx) computes P[Row][Col]; M, N, P are device pointers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on.
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    // Loop over the M and N tiles required to compute the P element.
    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        // Collaborative loading of the M and N tiles into shared memory
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }

    P[Row * Width + Col] = Pvalue;
}

// M, N, P are device pointers; Width is a multiple of 32. Launches one thread per element of P,
// one TILE_WIDTH x TILE_WIDTH block per tile of P, and returns (asynchronously).
void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
#endif
