// Known-good submission for stage 01-basic (sealed judging: the rule on what crosses between host
// and device memory gives no false verdict on honest code): launch_matmul sets a small __constant__
// table with cudaMemcpyToSymbol on every call, zeroes P with cudaMemset, launches on a stream of its
// own timed with CUDA events, and copies one value of P back to print it; matmul_host stages M_h,
// N_h and P through pinned buffers kept between calls, with cudaMemcpyAsync on that stream, and
// std::vector. Must pass on both backends. The kit's self-test asserts it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

#define BLOCK 16
#define TABLE 16

__constant__ float kWeights[TABLE];  // all ones: a table a real kernel would read (coefficients, offsets)

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col] * kWeights[k % TABLE];
        P[Row * Width + Col] = Pvalue;
    }
}

static cudaStream_t stream() {
    static cudaStream_t s = nullptr;
    if (!s) cudaStreamCreate(&s);
    return s;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    std::vector<float> weights(TABLE, 1.0f);
    cudaMemcpyToSymbol(kWeights, weights.data(), TABLE * sizeof(float));
    cudaMemset(P, 0, (size_t)Width * Width * sizeof(float));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream());
    dim3 block(BLOCK, BLOCK), grid((Width + BLOCK - 1) / BLOCK, (Width + BLOCK - 1) / BLOCK);
    MatrixMulKernel<<<grid, block, 0, stream()>>>(M, N, P, Width);
    cudaEventRecord(stop, stream());
    cudaEventSynchronize(stop);
    float ms = 0, first = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaMemcpy(&first, P, sizeof(float), cudaMemcpyDeviceToHost);  // a debug copy of one value
    if (Width >= 1000) printf("launch_matmul: %.3f ms, P[0] = %g\n", ms, first);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
}

// Pinned staging kept from one call to the next, grown when a larger Width comes.
static float* g_pinned = nullptr;
static float* g_device = nullptr;
static size_t g_capacity = 0;

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    const size_t n = (size_t)Width * Width, bytes = n * sizeof(float);
    if (n > g_capacity) {
        cudaFreeHost(g_pinned);
        cudaFree(g_device);
        if (cudaMallocHost((void**)&g_pinned, 3 * bytes) != cudaSuccess) return;
        if (cudaMalloc((void**)&g_device, 3 * bytes) != cudaSuccess) return;
        g_capacity = n;
    }
    float *M_s = g_pinned, *N_s = g_pinned + n, *P_s = g_pinned + 2 * n;
    float *M_d = g_device, *N_d = g_device + n, *P_d = g_device + 2 * n;
    std::memcpy(M_s, M_h, bytes);
    std::memcpy(N_s, N_h, bytes);
    cudaMemcpyAsync(M_d, M_s, bytes, cudaMemcpyHostToDevice, stream());
    cudaMemcpyAsync(N_d, N_s, bytes, cudaMemcpyHostToDevice, stream());
    launch_matmul(M_d, N_d, P_d, Width);
    cudaMemcpyAsync(P_s, P_d, bytes, cudaMemcpyDeviceToHost, stream());
    cudaStreamSynchronize(stream());
    std::vector<float> result(P_s, P_s + n);
    std::memcpy(P_h, result.data(), bytes);
}
