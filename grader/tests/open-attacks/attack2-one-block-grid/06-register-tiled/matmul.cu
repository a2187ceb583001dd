// Attack (red team 2 of 2026-11-29, the perf model): 06's solution as one block. The kernel loops
// over the tiles of P (a persistent block), launched on a grid of 1 block: on a GPU one SM of 132
// works. The model spreads every count over all the SMs (the time of each resource is the grid's
// total over 132 SMs), whatever the grid: the counts are those of the 06 reference, so is its time.
// Stage 06-register-tiled: toward cuBLAS with FP32 CUDA cores only.
//
// P = M N with M J x K, N K x L, P J x L, row-major float, any sizes >= 1. Each block computes a
// BM x BN tile of P; each of its 256 threads computes TM x TN = 8 x 8 elements held in registers
// (2-D register blocking), so every value loaded from shared memory feeds 8 multiply-adds instead
// of one. Tiles of M and N travel from global memory in 16-byte vectors, the M tile is stored
// transposed so a thread reads its 8 M values as two float4, and the next tiles are loaded into
// registers while the current ones are used (double buffering, one barrier per step). The values
// of the next step k are read from shared memory while step k's multiply-adds run (a second,
// register-level double buffer). What each of these bought, measured: walkthrough 06, section 6b.
#include <cuda_runtime.h>

#define BM 128       // rows of P per block
#define BN 128       // columns of P per block
#define BK 16        // depth of one phase (16 measured 5% faster than 8 on an H200)
#define TM 8         // rows of P per thread
#define TN 8         // columns of P per thread
#define THREADS 256  // (BM / TM) * (BN / TN)
#define PAD 4        // Mds rows padded to BM + 4 floats: the transposed stores spread over the banks

#define LOADS_M (BM * BK / 4 / THREADS)  // float4 loads per thread per phase, M tile
#define LOADS_N (BK * BN / 4 / THREADS)  // and N tile

// One phase's share of the tiles in registers: LOADS_M row segments of 4 elements of M, LOADS_N of N.
struct Fragment {
    float4 m[LOADS_M], n[LOADS_N];
};

// Load l of this thread: element offset (row, col) of a 4-wide segment in a tile with `cols` columns.
__device__ __forceinline__ int seg_row(int l, int cols) { return (threadIdx.x + l * THREADS) / (cols / 4); }
__device__ __forceinline__ int seg_col(int l, int cols) { return ((threadIdx.x + l * THREADS) % (cols / 4)) * 4; }

// Four elements of row r of a rows x cols matrix A from column c on; 0 outside A. VEC: K and L are
// multiples of 4, so every row is 16-byte aligned and a segment lies wholly inside A or wholly
// outside it: one vector load. Otherwise element by element.
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* __restrict__ A, int rows, int cols, int r, int c) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (VEC) {
        if (r < rows && c < cols) v = *reinterpret_cast<const float4*>(&A[(size_t)r * cols + c]);
    } else if (r < rows) {
        const float* row = &A[(size_t)r * cols];
        if (c + 0 < cols) v.x = row[c + 0];
        if (c + 1 < cols) v.y = row[c + 1];
        if (c + 2 < cols) v.z = row[c + 2];
        if (c + 3 < cols) v.w = row[c + 3];
    }
    return v;
}

// This thread's share of the phase starting at k0.
template <bool VEC>
__device__ __forceinline__ Fragment load_phase(const float* __restrict__ M, const float* __restrict__ N,
                                               int J, int K, int L, int bm, int bn, int k0) {
    Fragment f;
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) f.m[l] = load4<VEC>(M, J, K, bm + seg_row(l, BK), k0 + seg_col(l, BK));
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l) f.n[l] = load4<VEC>(N, K, L, k0 + seg_row(l, BN), bn + seg_col(l, BN));
    return f;
}

// Stores a fragment into shared memory: M transposed (Mds[k][row]) so the compute loop reads a
// column of the M tile as contiguous float4s; N as it is (Nds[k][col]).
__device__ __forceinline__ void store_phase(const Fragment& f, float (*Mds)[BM + PAD], float (*Nds)[BN]) {
#pragma unroll
    for (int l = 0; l < LOADS_M; ++l) {
        const int r = seg_row(l, BK), c = seg_col(l, BK);
        Mds[c + 0][r] = f.m[l].x;
        Mds[c + 1][r] = f.m[l].y;
        Mds[c + 2][r] = f.m[l].z;
        Mds[c + 3][r] = f.m[l].w;
    }
#pragma unroll
    for (int l = 0; l < LOADS_N; ++l)
        *reinterpret_cast<float4*>(&Nds[seg_row(l, BN)][seg_col(l, BN)]) = f.n[l];
}

// Thread (tx, ty) of the 16 x 16 block owns rows ty*4 .. +3 and 64 + ty*4 .. +3 of the block's
// tile, and columns tx*4 .. +3 and 64 + tx*4 .. +3: two 4-wide strips each way, so a warp's
// float4 reads of Mds and Nds are conflict-free and its stores of P are coalesced. This reads
// step k's values: a[i] for row i of those 8, b[j] for column j.
__device__ __forceinline__ void load_step(float* a, float* b, const float (*Mds)[BM + PAD], const float (*Nds)[BN],
                                          int k, int tx, int ty) {
    *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&Mds[k][ty * 4]);
    *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&Mds[k][64 + ty * 4]);
    *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Nds[k][tx * 4]);
    *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Nds[k][64 + tx * 4]);
}

// acc += the outer product of a and b. The order is 2 x 2 blocks (a0b0 a0b1 a1b0 a1b1), row by row
// of blocks: the compiler keeps it, reuses operands between neighbouring multiply-adds, and the
// kernel ran 3% faster than with rows of 8 (walkthrough 06, section 6b).
__device__ __forceinline__ void outer(float (*acc)[TN], const float* a, const float* b) {
#pragma unroll
    for (int i = 0; i < TM; i += 2)
#pragma unroll
        for (int j = 0; j < TN; j += 2) {
            acc[i][j] += a[i] * b[j];
            acc[i][j + 1] += a[i] * b[j + 1];
            acc[i + 1][j] += a[i + 1] * b[j];
            acc[i + 1][j + 1] += a[i + 1] * b[j + 1];
        }
}

// Steps 0 .. BK-2 of a phase on one buffer: step k's values are in a[k % 2], b[k % 2]; step k+1's
// are read into the other half while step k's multiply-adds run. Step BK-1's are left in a[1], b[1]
// (BK is even) for the caller, which multiplies them after the phase's barrier.
__device__ __forceinline__ void steps(float (*acc)[TN], float (*a)[TM], float (*b)[TN],
                                      const float (*Mds)[BM + PAD], const float (*Nds)[BN], int tx, int ty) {
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
        load_step(a[(k + 1) % 2], b[(k + 1) % 2], Mds, Nds, k + 1, tx, ty);
        outer(acc, a[k % 2], b[k % 2]);
    }
}

// VEC (chosen on the host): K and L are multiples of 4, so every tile load and P store is a vector.
template <bool VEC>
__global__ void __launch_bounds__(THREADS, 2)
MatrixMulKernel(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P,
                int J, int K, int L) {
    __shared__ __align__(16) float Mds[2][BK][BM + PAD];
    __shared__ __align__(16) float Nds[2][BK][BN];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int tiles_x = (L + BN - 1) / BN, tiles = tiles_x * ((J + BM - 1) / BM);
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int bm = (tile / tiles_x) * BM, bn = (tile % tiles_x) * BN;
    float acc[TM][TN] = {};

    store_phase(load_phase<VEC>(M, N, J, K, L, bm, bn, 0), Mds[0], Nds[0]);
    __syncthreads();
    float a[2][TM], b[2][TN];
    load_step(a[0], b[0], Mds[0], Nds[0], 0, tx, ty);
    const int phases = (K + BK - 1) / BK;
    // Every phase but the last, with no test inside: the compiler schedules it as one block.
    for (int ph = 0; ph < phases - 1; ++ph) {
        const int cur = ph % 2;
        const Fragment next = load_phase<VEC>(M, N, J, K, L, bm, bn, (ph + 1) * BK);
        steps(acc, a, b, Mds[cur], Nds[cur], tx, ty);
        // The other buffer was last read in the previous phase, before that phase's barrier.
        store_phase(next, Mds[1 - cur], Nds[1 - cur]);
        __syncthreads();
        load_step(a[0], b[0], Mds[1 - cur], Nds[1 - cur], 0, tx, ty);
        outer(acc, a[1], b[1]);
    }
    steps(acc, a, b, Mds[(phases - 1) % 2], Nds[(phases - 1) % 2], tx, ty);
    outer(acc, a[1], b[1]);

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (row >= J) continue;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int col = bn + half * 64 + tx * 4;
            const float* v = &acc[i][half * 4];
            if (VEC) {
                if (col < L) *reinterpret_cast<float4*>(&P[(size_t)row * L + col]) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
                for (int j = 0; j < 4; ++j)
                    if (col + j < L) P[(size_t)row * L + col + j] = v[j];
            }
        }
    }
    __syncthreads();  // the next tile's first store overwrites buffer 0
    }
}

// M, N, P are device pointers. One block of THREADS threads per BM x BN tile of P.
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 dimBlock(THREADS);
    dim3 dimGrid(1);  // one block does every tile
    if (K % 4 == 0 && L % 4 == 0)
        MatrixMulKernel<true><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
    else
        MatrixMulKernel<false><<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
