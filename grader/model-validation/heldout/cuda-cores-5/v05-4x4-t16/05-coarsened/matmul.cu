// Held-out kernel v05-4x4-t16 (stage 05-coarsened): coarsening both ways by 4: 16x16 threads compute a 64x64 tile of P, 4x4 outputs per thread 16 apart; 4 M tiles and 4 N tiles of 16x16 per phase in static shared memory, the 4 + 4 values of a step read into registers.
// Frozen for the performance model's validation (grader/model-validation/heldout/cuda-cores-5/heldout.toml;
// docs/performance.md, "Validation"): fix a bug in it if one is found, never edit it toward the model.
#include <cuda_runtime.h>

#define T 16   // threads per side, tile width and phase depth
#define C 4    // coarsening each way

// Coarsening both ways by 4: 16x16 threads compute a 64x64 tile of P, each thread 4x4 outputs 16
// apart (rows ty + 16i, columns tx + 16j); per phase 4 M tiles and 4 N tiles of 16x16 in static
// shared memory, the 4 M and 4 N values of a step read once into registers.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Ms[C][T][T];
    __shared__ float Ns[C][T][T];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * T * C + ty;
    int col0 = blockIdx.x * T * C + tx;

    float acc[C][C] = {};
    for (int ph = 0; ph < (K + T - 1) / T; ++ph) {
        int mc = ph * T + tx, nr = ph * T + ty;
        for (int i = 0; i < C; ++i) {
            int r = row0 + i * T, c = col0 + i * T;
            Ms[i][ty][tx] = (r < J && mc < K) ? M[(size_t)r * K + mc] : 0.0f;
            Ns[i][ty][tx] = (nr < K && c < L) ? N[(size_t)nr * L + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float a[C], b[C];
            for (int i = 0; i < C; ++i) a[i] = Ms[i][ty][k];
            for (int j = 0; j < C; ++j) b[j] = Ns[j][k][tx];
            for (int i = 0; i < C; ++i)
                for (int j = 0; j < C; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < C; ++i)
        for (int j = 0; j < C; ++j) {
            int r = row0 + i * T, c = col0 + j * T;
            if (r < J && c < L) P[(size_t)r * L + c] = acc[i][j];
        }
}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    dim3 block(T, T);
    dim3 grid((L + T * C - 1) / (T * C), (J + T * C - 1) / (T * C));
    MatrixMulKernel<<<grid, block>>>(M, N, P, J, K, L);
}
