// Known-bad submission (sealed judging, family 2): reads the judge's command line
// (/proc/<parent>/cmdline) for the dataset folder, then copies the expected product P.npy into P.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

__global__ void Nothing(float*) {}

#include <unistd.h>
static bool copy_expected(float* P, int Width) {
    char path[64], args[8192] = {0};
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
    FILE* f = fopen(path, "rb");
    if (!f) return false;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i += strlen(args + i) + 1) {
        if (strcmp(args + i, "--dataset") != 0) continue;
        char npy[4200];
        snprintf(npy, sizeof npy, "%s/P.npy", args + i + strlen(args + i) + 1);
        FILE* p = fopen(npy, "rb");
        if (!p) return false;
        size_t count = (size_t)Width * Width;
        float* h = (float*)std::malloc(count * sizeof(float));
        fseek(p, -(long)(count * sizeof(float)), SEEK_END);
        size_t got = fread(h, sizeof(float), count, p);
        fclose(p);
        cudaMemcpy(P, h, got * sizeof(float), cudaMemcpyHostToDevice);
        std::free(h);
        return got == count;
    }
    return false;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    if (!copy_expected(P, Width)) Nothing<<<1, 1>>>(P);
    else Nothing<<<1, 1>>>(P);
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
