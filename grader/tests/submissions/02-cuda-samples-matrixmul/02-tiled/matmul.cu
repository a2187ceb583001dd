// Known-good submission for stage 02-tiled (no false alarm on code from elsewhere): the kernel of
// NVIDIA's CUDA samples, 0_Simple/matrixMul, as a student copies it -- a kernel template on
// BLOCK_SIZE, the tiles reached through the samples' older `AS(i, j)` / `BS(i, j)` macros, the
// `a`/`b` loop over row-major offsets of A's row of tiles and B's column of tiles (aBegin, aEnd,
// aStep, bBegin, bStep), the non-const `float*` parameters of the sample (the const inputs handed
// over with C-style casts; the kernel never writes them), `#pragma unroll`, and the sample's
// launch: 32 x 32 threads where Width allows it, else 16 x 16. Must pass on both backends.
#include <cuda_runtime.h>

#define AS(i, j) As[i][j]
#define BS(i, j) Bs[i][j]

// Matrix multiplication on the device: C = A * B, wA is A's width and wB is B's width.
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  // Block index
  int bx = blockIdx.x;
  int by = blockIdx.y;

  // Thread index
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  int aBegin = wA * BLOCK_SIZE * by;

  // Index of the last sub-matrix of A processed by the block
  int aEnd = aBegin + wA - 1;

  // Step size used to iterate through the sub-matrices of A
  int aStep = BLOCK_SIZE;

  // Index of the first sub-matrix of B processed by the block
  int bBegin = BLOCK_SIZE * bx;

  // Step size used to iterate through the sub-matrices of B
  int bStep = BLOCK_SIZE * wB;

  // Csub is used to store the element of the block sub-matrix that is computed by the thread
  float Csub = 0;

  // Loop over all the sub-matrices of A and B required to compute the block sub-matrix
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    // Shared memory for the sub-matrices of A and B
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Load the matrices from device memory to shared memory; each thread loads one element of each
    AS(ty, tx) = A[a + wA * ty + tx];
    BS(ty, tx) = B[b + wB * ty + tx];

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

    // Multiply the two matrices together; each thread computes one element of the block sub-matrix
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += AS(ty, k) * BS(k, tx);
    }

    // Synchronize to make sure that the preceding computation is done before loading two new
    // sub-matrices of A and B in the next iteration
    __syncthreads();
  }

  // Write the block sub-matrix to device memory; each thread writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

void launch_matmul(const float *M, const float *N, float *P, int Width) {
  // Width is a multiple of 32 in this stage (width_multiple), as the sample requires.
  int block_size = (Width % 32 == 0) ? 32 : 16;
  dim3 threads(block_size, block_size);
  dim3 grid(Width / threads.x, Width / threads.y);
  if (block_size == 16) {
    MatrixMulCUDA<16><<<grid, threads>>>(P, (float *)M, (float *)N, Width, Width);
  } else {
    MatrixMulCUDA<32><<<grid, threads>>>(P, (float *)M, (float *)N, Width, Width);
  }
}
