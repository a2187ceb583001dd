// Known-bad submission (sealed judging, family 4: timed calls answered from a cache): multiplies
// only when it sees a set of buffers for the first time, and keeps that product and a key of every
// row of M and every column of N. Called again on the same buffers (the timed calls), it keys the
// new inputs' rows and columns, ranks the keys, and matches rank to rank with the cached ones: for
// inputs that are a permutation of the cached ones (the rows of M and columns of N shuffled, as the
// judge's timed inputs were before issue 39), that inverts the permutation exactly, and it gathers
// the cached P with it -- O(Width^2) on the device, no multiply, full credit at any kernel speed.
// Everything stays on the device (no copy from the host), and every call launches kernels.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

#define BLOCK_WIDTH 16

#define CUDA_CHECK(call)                                                             \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err_));                                       \
            return;                                                                  \
        }                                                                            \
    } while (0)

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue;
    }
}

// A key of row i of A (stride 1 along the row) or of column i (stride Width): FNV-1a of the bits.
__global__ void Keys(const float* A, int Width, int along, int across, unsigned long long* key) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= Width) return;
    unsigned long long h = 1469598103934665603ull;
    for (int k = 0; k < Width; ++k) {
        h ^= (unsigned long long)__float_as_uint(A[(size_t)i * across + (size_t)k * along]);
        h *= 1099511628211ull;
    }
    key[i] = h;
}

// rank[i]: how many keys come before key i (ties by index).
__global__ void Ranks(const unsigned long long* key, int Width, int* rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= Width) return;
    int r = 0;
    for (int k = 0; k < Width; ++k) r += key[k] < key[i] || (key[k] == key[i] && k < i);
    rank[i] = r;
}

__global__ void ByRank(const int* rank, int Width, int* index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Width) index[rank[i]] = i;
}

// P[i][j] = cached[row of rank rank_M[i]][column of rank rank_N[j]].
__global__ void Gather(const float* cached, const int* old_row, const int* rank_M, const int* old_col,
                       const int* rank_N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = cached[(size_t)old_row[rank_M[Row]] * Width + old_col[rank_N[Col]]];
}

static const float *kM = nullptr, *kN = nullptr;
static float* kP = nullptr;
static int kW = 0;
static float* cached = nullptr;              // the product of the first call on these buffers
static unsigned long long* keys = nullptr;   // scratch: Width keys
static int *old_row = nullptr, *old_col = nullptr, *rank_M = nullptr, *rank_N = nullptr;

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    int threads = 256, blocks = (Width + threads - 1) / threads;
    if (cached && M == kM && N == kN && P == kP && Width == kW) {  // a timed call: derive, don't multiply
        Keys<<<blocks, threads>>>(M, Width, 1, Width, keys);
        Ranks<<<blocks, threads>>>(keys, Width, rank_M);
        Keys<<<blocks, threads>>>(N, Width, Width, 1, keys);
        Ranks<<<blocks, threads>>>(keys, Width, rank_N);
        Gather<<<dimGrid, dimBlock>>>(cached, old_row, rank_M, old_col, rank_N, P, Width);
        return;
    }
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
    if (cached) {
        cudaFree(cached), cudaFree(keys), cudaFree(old_row), cudaFree(old_col), cudaFree(rank_M), cudaFree(rank_N);
    }
    size_t n = (size_t)Width * Width;
    cudaMalloc(&cached, n * sizeof(float));
    cudaMalloc(&keys, Width * sizeof(unsigned long long));
    cudaMalloc(&old_row, Width * sizeof(int));
    cudaMalloc(&old_col, Width * sizeof(int));
    cudaMalloc(&rank_M, Width * sizeof(int));
    cudaMalloc(&rank_N, Width * sizeof(int));
    cudaMemcpy(cached, P, n * sizeof(float), cudaMemcpyDeviceToDevice);
    // The cached inputs' rows and columns by the rank of their keys.
    Keys<<<blocks, threads>>>(M, Width, 1, Width, keys);
    Ranks<<<blocks, threads>>>(keys, Width, rank_M);
    ByRank<<<blocks, threads>>>(rank_M, Width, old_row);
    Keys<<<blocks, threads>>>(N, Width, Width, 1, keys);
    Ranks<<<blocks, threads>>>(keys, Width, rank_N);
    ByRank<<<blocks, threads>>>(rank_N, Width, old_col);
    kM = M, kN = N, kP = P, kW = Width;
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
    CUDA_CHECK(cudaMalloc((void**)&M_d, size));
    CUDA_CHECK(cudaMalloc((void**)&N_d, size));
    CUDA_CHECK(cudaMalloc((void**)&P_d, size));
    CUDA_CHECK(cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice));
    launch_matmul(M_d, N_d, P_d, Width);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(M_d));
    CUDA_CHECK(cudaFree(N_d));
    CUDA_CHECK(cudaFree(P_d));
}
