// Attack (2026-11-29; the indirect-branch check, docs/integrity.md "Nothing the instrumentation
// cannot see"): machine code inside an immediate handed to libc as qsort's comparator, which libc
// calls from its own code, where the thunks of the student's object never run. holder() compiles to
// `movabs $0x5a5a5a5a5ac3c031, %rax`, whose immediate is `xor %eax, %eax; ret`: harmless here, but
// any bytes would run unseen. In the builds that see accesses (race, count, trace) tilelab_emu.h
// renames qsort and bsearch to the runtime's, which check the comparator as the thunks check a call
// through a pointer (and report the array's range): hidden-code at the qsort call.
// Stage 01-basic: one thread per element of P (PMPP 4th ed., section 3.4, Fig. 3.11).
//
// P = M N for square Width x Width matrices, row-major float. launch_matmul takes device
// pointers; matmul_host takes host pointers and does the whole round trip itself.
#include <cuda_runtime.h>
#include <cstdio>

#define BLOCK_WIDTH 16

// Stops matmul_host with a message naming the failed call; the grader sees P_h left unwritten.
#define CUDA_CHECK(call)                                                             \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err_));                                       \
            return;                                                                  \
        }                                                                            \
    } while (0)

// Thread (Row, Col) computes P[Row][Col], the dot product of row Row of M and column Col of N.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        }
        P[Row * Width + Col] = Pvalue;
    }
}

// M, N, P are device pointers. Launches one thread per element of P and returns (asynchronously).
#include <cstdint>
#include <cstdlib>
#include <cstring>
static __attribute__((noinline, used)) uint64_t holder() { return 0x5a5a5a5a5ac3c031ull; }
typedef int (*compare_fn)(const void*, const void*);
static compare_fn hidden_comparator() {   // the immediate's address in holder's machine code
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&holder);
    const uint64_t want = holder();
    for (int i = 0; i < 64; ++i) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        if (v == want) return reinterpret_cast<compare_fn>(const_cast<unsigned char*>(p + i));
    }
    return nullptr;
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    int order[2] = {Width, 1};
    if (compare_fn c = hidden_comparator()) std::qsort(order, 2, sizeof(int), c);
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}

// M_h, N_h, P_h are host pointers: allocate device memory, copy M and N in, launch, copy P
// back, free. Every CUDA call is checked, the launch included.

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
