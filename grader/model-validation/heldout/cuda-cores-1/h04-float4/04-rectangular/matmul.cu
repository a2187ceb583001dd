// Held-out kernel h04-float4 (stage 04-rectangular): 16x16 tiles loaded as float4 by 128 of the 256 threads when K and L are multiples of 4 (element by element otherwise).
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-1/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Four elements of row r of a rows x cols matrix from column c on, 0 outside it. VEC: cols is a
// multiple of 4 (so is c): the four lie wholly inside or wholly outside, one 16-byte load.
template <bool VEC>
__device__ float4 load4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows) return v;
    const float* p = A + (size_t)r * cols;
    if (VEC) {
        if (c < cols) v = *reinterpret_cast<const float4*>(p + c);
    } else {
        if (c + 0 < cols) v.x = p[c + 0];
        if (c + 1 < cols) v.y = p[c + 1];
        if (c + 2 < cols) v.z = p[c + 2];
        if (c + 3 < cols) v.w = p[c + 3];
    }
    return v;
}

template <bool VEC>
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ __align__(16) float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TILE_WIDTH + tx;
    int bRow = blockIdx.y * TILE_WIDTH, bCol = blockIdx.x * TILE_WIDTH;
    int Row = bRow + ty, Col = bCol + tx;
    // Threads 0..63 load the M tile, 64..127 the N tile: 16 rows of 4 float4 each.
    int seg = tid % 64, r = seg / 4, c = (seg % 4) * 4;
    float Pvalue = 0;
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int k0 = ph * TILE_WIDTH;
        if (tid < 64)
            *reinterpret_cast<float4*>(&Mds[r][c]) = load4<VEC>(M, J, K, bRow + r, k0 + c);
        else if (tid < 128)
            *reinterpret_cast<float4*>(&Nds[r][c]) = load4<VEC>(N, K, L, k0 + r, bCol + c);
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < J && Col < L)
        P[(size_t)Row * L + Col] = Pvalue;
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
