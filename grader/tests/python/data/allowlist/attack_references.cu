// Attacks by reference: each function calls one thing the allow-list refuses.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <csetjmp>
#include <csignal>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <link.h>
#include <pthread.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern "C" int cublasSgemm_v2(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
                              const float*, float*, int);
extern "C" int cudnnCreate(void**);
extern "C" void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                       const int*, const float*, const int*, const float*, float*, const int*);
extern "C" int __libc_start_main(void*, int, char**, void*, void*, void*, void*);
extern "C" int cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                              void**, void**);
extern "C" int __real_cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
extern char** environ;
namespace tilelab { bool check_product(const float* P, int n); }
namespace tilelab_ref_02_tiled { void launch_matmul(const float*, const float*, float*, int); }
namespace tilelab_prev_01_basic { void launch_matmul(const float*, const float*, float*, int); }
namespace tlemu {
struct Finding;
struct TrafficCounts;
void set_fatal_handler(std::function<void(const std::vector<Finding>&)> handler);
// Return types are not part of a function's symbol: these name the runtime's functions.
int take_findings();
bool take_counts(TrafficCounts& out);
void name_buffer(const void* device_ptr, const std::string& name, size_t row_length);
void start_recording();
void stop_recording();
const char* backend_name();
}
#ifdef TILELAB_EMULATOR
// What the emulator's headers do not declare (the GPU's cuda_runtime.h does).
extern "C" int cudaLaunchKernelEx(const void*, const void*, void**);
extern "C" int cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, void*);
extern "C" int cudaGraphCreate(void**, unsigned);
extern "C" int cudaGraphLaunch(void*, void*);
extern "C" int cudaIpcGetMemHandle(void*, void*);
extern "C" int cudaHostRegister(void*, size_t, unsigned);
extern "C" int cudaDeviceSetLimit(int, size_t);
extern "C" int cudaMallocManaged(void**, size_t, unsigned);
extern "C" int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
extern "C" int cudaGetDriverEntryPoint(const char*, void**, unsigned long long);
#endif

__global__ void K(float* p) { p[threadIdx.x] = 1.0f; }

static void* worker(void*) { return nullptr; }
static jmp_buf where;

void launch_cuda(float* d) {
#ifdef TILELAB_EMULATOR
    void* args[] = {&d};
    cudaLaunchKernelEx(nullptr, (const void*)K, args);
    cudaLaunchCooperativeKernel((const void*)K, dim3(1), dim3(32), args, 0, nullptr);
    void* g = nullptr;
    cudaGraphCreate(&g, 0);
    cudaGraphLaunch(g, nullptr);
    cudaIpcGetMemHandle(nullptr, d);
    cudaHostRegister(d, 4, 0);
    cudaDeviceSetLimit(0, 0);
    cudaMallocManaged((void**)&d, 4, 1);
    // Through a variable: the rewriter takes a cast off the argument itself, which then launches
    // through the emulator's own cudaLaunchKernel (tilelab_emu_launch_api.h) and references nothing.
    const void* erased = (const void*)K;
    cudaLaunchKernel(erased, dim3(1), dim3(1), args, 0, nullptr);
    void* fn = nullptr;
    cudaGetDriverEntryPoint("cuLaunchKernel", &fn, 0);
#else
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    cudaLaunchKernelEx(&cfg, K, d);
    void* args[] = {&d};
    cudaLaunchCooperativeKernel((const void*)K, dim3(1), dim3(32), args, 0, nullptr);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaGraphCreate(&g, 0);
    cudaGraphInstantiate(&ge, g, 0);
    cudaGraphLaunch(ge, nullptr);
    cudaIpcMemHandle_t h;
    cudaIpcGetMemHandle(&h, d);
    cudaHostRegister(d, 4, 0);
    cudaDeviceSetLimit(cudaLimitStackSize, 0);
    cudaMallocManaged(&d, 4);
    void* fn = nullptr;
    cudaGetDriverEntryPoint("cuLaunchKernel", &fn, 0, nullptr);
#endif
    cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
    __real_cudaLaunchKernel((const void*)K, dim3(1), dim3(1), args, 0, nullptr);
    cudaDeviceReset();
    cudaSetDevice(1);
}

void launch_libraries(const float* M, float* P) {
    cublasSgemm_v2(nullptr, 0, 0, 1, 1, 1, M, M, 1, M, 1, M, P, 1);
    void* h = nullptr;
    cudnnCreate(&h);
    cblas_sgemm(101, 111, 111, 1, 1, 1, 1.0f, M, 1, M, 1, 0.0f, P, 1);
    int one = 1;
    float a = 1, b = 0;
    sgemm_("N", "N", &one, &one, &one, &a, M, &one, M, &one, &b, P, &one);
}

static int count_phdr(dl_phdr_info*, size_t, void*) { return 0; }

void launch_loading(const float* M, float* P, int n) {
    void* lib = dlopen("libcublas.so", RTLD_NOW);
    void* sym = dlsym(lib, "cublasSgemm_v2");
    dl_iterate_phdr(count_phdr, nullptr);
    printf("%p %p %p %p %p\n", sym, (void*)&_r_debug, (void*)_DYNAMIC, (void*)environ, (void*)__libc_start_main);
    tilelab::check_product(P, n);
    tilelab_ref_02_tiled::launch_matmul(M, M, P, n);
    tilelab_prev_01_basic::launch_matmul(M, M, P, n);
}

void launch_system(float* P) {
    mprotect(P, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
    void* m = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    syscall(SYS_getpid, m);
    int fd = open("/proc/self/cmdline", O_RDONLY);
    FILE* f = fopen("/proc/self/maps", "r");
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (fork() == 0) execve("/bin/sh", nullptr, nullptr);
    kill(getppid(), SIGKILL);
    signal(SIGALRM, SIG_IGN);
    struct sigaction sa = {};
    sigaction(SIGSEGV, &sa, nullptr);
    pthread_t t;
    pthread_create(&t, nullptr, worker, nullptr);
    if (setjmp(where) == 0) longjmp(where, 1);
    const char* home = getenv("HOME");
    std::ifstream in("/proc/self/status");
    std::thread th([] {});
    th.join();
    printf("%d %d %p %d %s %d\n", fd, s, (void*)f, (int)in.good(), home, (int)P[0]);
}

void launch_emulator_backend() {
    tlemu::take_findings();
    tlemu::set_fatal_handler([](const std::vector<tlemu::Finding>&) {});
    tlemu::TrafficCounts* c = nullptr;
    tlemu::take_counts(*c);
    tlemu::name_buffer(nullptr, "P", 0);
    tlemu::start_recording();
    tlemu::stop_recording();
    puts(tlemu::backend_name());
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    (void)N;
    launch_cuda(P);
    launch_libraries(M, P);
    launch_loading(M, P, Width);
    launch_system(P);
    launch_emulator_backend();
}
