// Attacks by definition: each global definition takes a name someone else in the runner owns.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <new>

extern "C" void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int) {}
extern "C" void* malloc(size_t n) noexcept { return calloc(n, 1); }
extern "C" __attribute__((weak)) int puts(const char*) { return 0; }
extern "C" const char* __asan_default_options() { return "halt_on_error=0:detect_leaks=0"; }
void* operator new(size_t n) { return calloc(n, 1); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 1e-6f; return cudaSuccess; }
#ifdef TILELAB_EMULATOR
extern "C" cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) { return cudaSuccess; }
#else
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) { return cudaSuccess; }
#endif
namespace tilelab { bool check_product(const float*, int) { return true; } }
namespace tlemu { int take_findings() { return 0; } }
namespace std { void helper_of_mine() {} }
int cudaCheck(cudaError_t e) { return int(e); }

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Width) P[i] = M[i] + N[i];
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    MatrixMulKernel<<<1, Width>>>(M, N, P, Width);
    tilelab::check_product(P, Width);
    tlemu::take_findings();
    std::helper_of_mine();
    cudaCheck(cudaSuccess);
}
