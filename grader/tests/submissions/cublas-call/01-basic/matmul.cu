// Known-bad submission for stage 01-basic: launch_matmul calls cuBLAS (declared by hand, so it compiles without cublas_v2.h).
// The GPU runner links cuBLAS (for its own comparison), so only the static scan stops it there.
// The kit's self-test asserts what the grader makes of it in ../expect.toml ([grade]: the Python
// grader's path, grade_check.py; [emu]: the runner alone, check.py; [gpu]: gpu-suite.sh).
#include <cuda_runtime.h>
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

typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasCreate_v2(cublasHandle_t* handle);
extern "C" int cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k,
                              const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc);

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    static cublasHandle_t handle = nullptr;
    if (!handle) cublasCreate_v2(&handle);
    const float one = 1.0f, zero = 0.0f;
    // Row-major P = M N is column-major P^T = N^T M^T.
    cublasSgemm_v2(handle, 0, 0, Width, Width, Width, &one, N, Width, M, Width, &zero, P, Width);
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
