// Held-out kernel t4-ksplit-4w-4x4-64x64-bk32 (stage 07-tensor-cores): 64x64 block tiles, 4 warps that split K rather than P: every warp accumulates the whole 64x64 tile (4x4 fragments) over its own k-step of each BK 32 phase (warp w columns 8w..8w+7 of the M tile, rows 8w..8w+7 of the N tile; 16 products per warp per phase): 64x32 and 32x64 tiles, rows padded by 4, filled by float4 loads (4 of each tile per thread) when K and L are multiples of 4, else the same segments element by element with zero fill, rounded to TF32 as they are stored; one buffer, two barriers per phase, no prefetch; the four partial tiles added through a 64x68 shared array (warp 0 stores its fragments, then warps 1, 2, 3 in turn load them back as accumulator fragments, add their own element by element and store them, a barrier between turns), then written to P by all threads, row-contiguous, scalar, with bounds tests.
// Frozen for the performance model's validation (grader/model-validation/heldout/tensor-cores-4/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define T 64        // block tile, square
#define KB 32       // phase depth: 4 k-steps, one per warp
#define LDA (KB + 4)
#define LDB (T + 4)
#define LDC (T + 4)

typedef wmma::fragment<wmma::accumulator, 16, 16, 8, float> Acc;

template <bool VEC>
__global__ void __launch_bounds__(128)
splitk_tc(const float* __restrict__ M, const float* __restrict__ N, float* __restrict__ P, int J, int K, int L) {
    __shared__ __align__(128) float As[T][LDA];
    __shared__ __align__(128) float Bs[KB][LDB];
    __shared__ __align__(128) float Cs[T][LDC];

    const int tid = threadIdx.x;
    const int w = tid / 32;
    const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    const int myk = w * 8;   // this warp's k-step inside each phase

    Acc acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += KB) {
        for (int s = 0; s < 4; ++s) {
            const int id = tid + s * 128;
            // M tile: 64 rows of 8 segments
            {
                const int r = id / 8, c = (id % 8) * 4;
                const int gr = row0 + r, gc = k0 + c;
                float v[4] = {0.f, 0.f, 0.f, 0.f};
                if (VEC) {
                    if (gr < J && gc < K) {
                        float4 q = *reinterpret_cast<const float4*>(M + (size_t)gr * K + gc);
                        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
                    }
                } else if (gr < J) {
                    for (int u = 0; u < 4; ++u)
                        if (gc + u < K) v[u] = M[(size_t)gr * K + gc + u];
                }
                for (int u = 0; u < 4; ++u) As[r][c + u] = wmma::__float_to_tf32(v[u]);
            }
            // N tile: 32 rows of 16 segments
            {
                const int r = id / 16, c = (id % 16) * 4;
                const int gr = k0 + r, gc = col0 + c;
                float v[4] = {0.f, 0.f, 0.f, 0.f};
                if (VEC) {
                    if (gr < K && gc < L) {
                        float4 q = *reinterpret_cast<const float4*>(N + (size_t)gr * L + gc);
                        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
                    }
                } else if (gr < K) {
                    for (int u = 0; u < 4; ++u)
                        if (gc + u < L) v[u] = N[(size_t)gr * L + gc + u];
                }
                for (int u = 0; u < 4; ++u) Bs[r][c + u] = wmma::__float_to_tf32(v[u]);
            }
        }
        __syncthreads();

        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[4];
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[4];
        for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[16 * i][myk], LDA);
        for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[myk][16 * j], LDB);
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        __syncthreads();
    }

    // Add the four partial sums in Cs, one warp at a time.
    for (int turn = 0; turn < 4; ++turn) {
        if (w == turn) {
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    if (turn > 0) {
                        Acc prev;
                        wmma::load_matrix_sync(prev, &Cs[16 * i][16 * j], LDC, wmma::mem_row_major);
                        for (int e = 0; e < prev.num_elements; ++e) acc[i][j].x[e] += prev.x[e];
                    }
                    wmma::store_matrix_sync(&Cs[16 * i][16 * j], acc[i][j], LDC, wmma::mem_row_major);
                }
        }
        __syncthreads();
    }

    for (int id = tid; id < T * T; id += 128) {
        const int r = id / T, c = id % T;
        if (row0 + r < J && col0 + c < L) P[(size_t)(row0 + r) * L + col0 + c] = Cs[r][c];
    }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 grid((L + T - 1) / T, (J + T - 1) / T);
    if (K % 4 == 0 && L % 4 == 0)
        splitk_tc<true><<<grid, 128>>>(M, N, P, J, K, L);
    else
        splitk_tc<false><<<grid, 128>>>(M, N, P, J, K, L);
}
