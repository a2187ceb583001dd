// Known-bad submission for stage 07-tensor-cores: launch_matmul hands the product to cuBLAS on its
// TF32 tensor cores (declared by hand, so it compiles without cublas_v2.h): within the stage's TF32
// rule and faster than any wmma kernel, and the library is not the student's work. The GPU runner
// links cuBLAS (for its own comparison), so only the static scan stops it there.
#include <cuda_runtime.h>

typedef struct cublasContext* cublasHandle_t;
extern "C" int cublasCreate_v2(cublasHandle_t* handle);
extern "C" int cublasSetMathMode(cublasHandle_t handle, int mode);
extern "C" int cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k,
                              const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc);

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    static cublasHandle_t handle = nullptr;
    if (!handle) {
        cublasCreate_v2(&handle);
        cublasSetMathMode(handle, 3);  // CUBLAS_TF32_TENSOR_OP_MATH
    }
    const float one = 1.0f, zero = 0.0f;
    // Row-major P = M N is column-major P^T = N^T M^T.
    cublasSgemm_v2(handle, 0, 0, L, J, K, &one, N, L, M, K, &zero, P, L);
}
