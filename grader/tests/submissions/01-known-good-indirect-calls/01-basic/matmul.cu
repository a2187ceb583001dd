// Known-good: honest calls through pointers, in host code and in a kernel. A virtual "strategy"
// picks the launch, std::function wraps the copies, a table of function pointers chooses the block
// width, qsort's comparator orders candidates, a lambda converted to a function pointer frees the
// buffers, and the kernel calls a __device__ function through a pointer and switches over a dense
// range of cases (a jump table, where a compiler makes one). Every such branch lands on a function's first instruction.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

typedef float (*combine_fn)(float, float);

__device__ float fused(float acc, float product) { return acc + product; }

__device__ int unroll_hint(int k) {
    switch (k & 7) {   // dense cases
        case 0: return 1;
        case 1: return 1;
        case 2: return 1;
        case 3: return 1;
        case 4: return 1;
        case 5: return 1;
        case 6: return 1;
        default: return 1;
    }
}

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    combine_fn combine = fused;
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; k += unroll_hint(k)) {
            Pvalue = combine(Pvalue, M[Row * Width + k] * N[k * Width + Col]);
        }
        P[Row * Width + Col] = Pvalue;
    }
}

struct LaunchStrategy {
    virtual ~LaunchStrategy() = default;
    virtual int block_width() const = 0;
    virtual void launch(const float* M, const float* N, float* P, int Width) const {
        const int b = block_width();
        dim3 dimBlock(b, b);
        dim3 dimGrid((Width + b - 1) / b, (Width + b - 1) / b);
        MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
    }
};
struct Square16 : LaunchStrategy { int block_width() const override { return 16; } };
struct Square8 : LaunchStrategy { int block_width() const override { return 8; } };

static std::unique_ptr<LaunchStrategy> make16() { return std::make_unique<Square16>(); }
static std::unique_ptr<LaunchStrategy> make8() { return std::make_unique<Square8>(); }
static std::unique_ptr<LaunchStrategy> (*const kStrategies[])() = {make16, make8};

static int ascending(const void* a, const void* b) { return *static_cast<const int*>(a) - *static_cast<const int*>(b); }

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int candidates[3] = {16, Width, 8};   // libc's qsort calls the comparator
    std::qsort(candidates, 3, sizeof(int), ascending);
    kStrategies[candidates[0] == Width || Width < 16 ? 1 : 0]()->launch(M, N, P, Width);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
    std::function<cudaError_t(void*, const void*, cudaMemcpyKind)> copy =
        [size](void* dst, const void* src, cudaMemcpyKind kind) { return cudaMemcpy(dst, src, size, kind); };
    cudaError_t (*release)(void*) = [](void* p) { return cudaFree(p); };
    if (cudaMalloc((void**)&M_d, size) != cudaSuccess || cudaMalloc((void**)&N_d, size) != cudaSuccess ||
        cudaMalloc((void**)&P_d, size) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return;
    }
    copy(M_d, M_h, cudaMemcpyHostToDevice);
    copy(N_d, N_h, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    copy(P_h, P_d, cudaMemcpyDeviceToHost);
    release(M_d);
    release(N_d);
    release(P_d);
}
