// Held-out kernel v06-512t-8x4-dbuf-split (stage 06-register-tiled): 128x128 block tiles, 512 threads of 8x4 outputs (rows in two 4-wide strips 64 apart, 4 contiguous columns), BK 8, shared-memory double buffering: threads 0-255 load one float4 of the M tile (stored transposed), threads 256-511 one float4 of the N tile, straight into the other buffer before the current one is multiplied; one barrier per phase, float4 shared reads.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 4
#define NTHREADS 512   // (BM / TM) * (BN / TN)

// 128x128 block tiles, 512 threads of 8x4 outputs (rows in two 4-wide strips ty*4 and 64 + ty*4,
// 4 contiguous columns tx*4), BK 8, shared-memory double buffering: threads 0-255 load one float4
// of the M tile (stored transposed), threads 256-511 one float4 of the N tile, straight into the
// other buffer before the current one is multiplied; one barrier per phase; float4 shared reads.
template <bool VEC>
__device__ float4 fetch4(const float* A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r < rows) {
        if (VEC) {
            if (c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
        } else {
            if (c < cols) v.x = A[(size_t)r * cols + c];
            if (c + 1 < cols) v.y = A[(size_t)r * cols + c + 1];
            if (c + 2 < cols) v.z = A[(size_t)r * cols + c + 2];
            if (c + 3 < cols) v.w = A[(size_t)r * cols + c + 3];
        }
    }
    return v;
}

template <bool VEC>
__device__ void loadTiles(float (*Ms)[BM], float (*Ns)[BN], const float* M, const float* N,
                          int J, int K, int L, int bm, int bn, int k0) {
    int tid = threadIdx.x;
    if (tid < 256) {
        int r = tid / 2, c = (tid % 2) * 4;          // M tile: 128 rows x 2 float4
        float4 v = fetch4<VEC>(M, J, K, bm + r, k0 + c);
        Ms[c + 0][r] = v.x;
        Ms[c + 1][r] = v.y;
        Ms[c + 2][r] = v.z;
        Ms[c + 3][r] = v.w;
    } else {
        int t = tid - 256;
        int r = t / 32, c = (t % 32) * 4;            // N tile: 8 rows x 32 float4
        *reinterpret_cast<float4*>(&Ns[r][c]) = fetch4<VEC>(N, K, L, k0 + r, bn + c);
    }
}

template <bool VEC>
__global__ void __launch_bounds__(NTHREADS)
MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ __align__(16) float Ms[2][BK][BM];
    __shared__ __align__(16) float Ns[2][BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 32, ty = tid / 32;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    const int phases = (K + BK - 1) / BK;

    loadTiles<VEC>(Ms[0], Ns[0], M, N, J, K, L, bm, bn, 0);
    __syncthreads();

    for (int ph = 0; ph < phases; ++ph) {
        const int cur = ph & 1;
        if (ph + 1 < phases)
            loadTiles<VEC>(Ms[cur ^ 1], Ns[cur ^ 1], M, N, J, K, L, bm, bn, (ph + 1) * BK);
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Ms[cur][k][ty * 4]);
            *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Ms[cur][k][64 + ty * 4]);
            *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Ns[cur][k][tx * 4]);
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        const int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (row >= J) continue;
        const int col = bn + tx * 4;
        if (VEC) {
            if (col < L)
                *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        } else {
            for (int j = 0; j < TN; ++j)
                if (col + j < L) P[(size_t)row * L + col + j] = acc[i][j];
        }
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + BN - 1) / BN, (J + BM - 1) / BM);
    if (K % 4 == 0 && L % 4 == 0) MatrixMulKernel<true><<<grid, NTHREADS>>>(M, N, P, J, K, L);
    else MatrixMulKernel<false><<<grid, NTHREADS>>>(M, N, P, J, K, L);
}
