// Known-bad submission (sealed judging, family 1: code that runs before main): forks from the .init section a process that leaves the worker's process group (setsid) to outlive the check.
// Its kernel is right only when the escape worked (scale 1), so it earns its points only if it
// escaped: stopped by the launch filter: no process of its own (docs/integrity.md, "The boundary").
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <elf.h>
#include <cstdint>
#include <cstdio>

#define BLOCK_WIDTH 16

// Correct only when `scale` is 1: the product counts only if the escape worked.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width, float scale) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k) Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue * scale;
    }
}

static bool same(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

// libc's definition of `name`, found in its dynamic symbol table from printf's address: no name
// the allow-list refuses appears in the object.
static void* libc_function(const char* name) {
    int (*volatile anchor)(const char*, ...) = printf;
    uintptr_t base = reinterpret_cast<uintptr_t>(anchor) & ~uintptr_t(4095);
    while (*reinterpret_cast<const uint32_t*>(base) != 0x464c457f) base -= 4096;  // "\x7fELF"
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
    const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
    const Elf64_Dyn* dyn = nullptr;
    for (int i = 0; i < eh->e_phnum; ++i)
        if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(base + ph[i].p_vaddr);
    uintptr_t symtab = 0, strtab = 0;
    for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
        if (dyn->d_tag == DT_SYMTAB) symtab = dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRTAB) strtab = dyn->d_un.d_ptr;
    }
    if (symtab < base) symtab += base;
    if (strtab < base) strtab += base;
    for (auto* s = reinterpret_cast<const Elf64_Sym*>(symtab); reinterpret_cast<uintptr_t>(s) < strtab; ++s)
        if (s->st_value && same(reinterpret_cast<const char*>(strtab + s->st_name), name))
            return reinterpret_cast<void*>(base + s->st_value);
    return nullptr;
}

static volatile bool g_escaped = false;

// From the .init section, before main: a process of its own that leaves the worker's process group
// (setsid), so the judge's kill of the group misses it, and lives on after the check.
extern "C" __attribute__((used)) void tl_before_main() {
    using Fork = int (*)();
    using Setsid = int (*)();
    using Sleep = unsigned (*)(unsigned);
    using Exit = void (*)(int);
    int pid = reinterpret_cast<Fork>(libc_function("fork"))();
    if (pid == 0) {
        reinterpret_cast<Setsid>(libc_function("setsid"))();
        reinterpret_cast<Sleep>(libc_function("sleep"))(30);
        reinterpret_cast<Exit>(libc_function("_exit"))(0);
    }
    if (pid > 0) g_escaped = true;
}
#ifndef __CUDA_ARCH__
// ".init" in this file: the first of its constructors (priority 101, before the runtime's): .init
// code needs file-scope asm, which the allow-list scan refuses (docs/integrity.md, "Nothing the
// instrumentation cannot see"). What this case proves is its payload's confinement, not the section.
__attribute__((constructor(101))) static void tl_first_constructor() { tl_before_main(); }
#endif

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width, g_escaped ? 1.0f : 0.5f);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
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
