// What the CUDA driver's start-up needs inside the worker's confinement (docs/integrity.md,
// "Confinement from the first instruction"): starts itself again under each layer -- Landlock's
// worker policy, the launch filter, both, and variants -- the way the judge starts a worker (fork,
// confine, exec), and creates a CUDA context there. A layer that breaks the start-up is named, and
// with the filter's trap variant the system call it refused. Exits 0 when the worker's full
// confinement starts CUDA, 1 when it does not, 77 when no GPU works even unconfined.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "confine.hpp"
#include "sandbox.hpp"

namespace {

// Names each refused call (for openat, its path) and answers it as the launch filter would (the
// error, written into the interrupted context), so one run lists every call the start-up was refused.
void on_sigsys(int, siginfo_t* info, void* context) {
  char msg[512];
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* r = uc->uc_mcontext.gregs;
  const int nr = info->si_syscall;
  const char* path = nr == SYS_openat ? reinterpret_cast<const char*>(r[REG_RSI])
                     : nr == SYS_mkdir || nr == SYS_unlink || nr == SYS_symlink ? reinterpret_cast<const char*>(r[REG_RDI])
                                                                                 : "";
  if (nr == SYS_connect) {  // a sockaddr_un: its path, or "@name" for the abstract namespace
    path = reinterpret_cast<const char*>(r[REG_RSI]) + 2;
    if (!*path) path += 1;
  }
  const int n = std::snprintf(msg, sizeof msg, "refused system call %d %s (%#llx, %#llx, %#llx)\n", nr, path,
                              static_cast<unsigned long long>(r[REG_RDI]),
                              static_cast<unsigned long long>(r[REG_RSI]), static_cast<unsigned long long>(r[REG_RDX]));
  ssize_t ignored = ::write(2, msg, size_t(n));
  (void)ignored;
  r[REG_RAX] = -EACCES;
}

// What the confinement costs a timed kernel: the median of 30 runs of a naive 1024^3 product,
// CUDA events, in the child (printed as "ms <median>").
__global__ void naive(const float* M, const float* N, float* P, int n) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n || c >= n) return;
  float s = 0;
  for (int k = 0; k < n; ++k) s += M[r * n + k] * N[k * n + c];
  P[r * n + c] = s;
}

float time_kernel() {
  const int n = 1024;
  float *M, *N, *P;
  cudaMalloc(&M, sizeof(float) * n * n), cudaMalloc(&N, sizeof(float) * n * n), cudaMalloc(&P, sizeof(float) * n * n);
  cudaMemset(M, 0, sizeof(float) * n * n), cudaMemset(N, 0, sizeof(float) * n * n);
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  std::vector<float> ms;
  for (int i = 0; i < 31; ++i) {
    cudaEventRecord(a);
    naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(M, N, P, n);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    if (i > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The child's side: a CUDA context, and what the runtime said.
int cuda_here() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  ::sigaction(SIGSYS, &sa, nullptr);
  const cudaError_t e = cudaFree(nullptr);
  if (e != cudaSuccess) {
    std::printf("%s\n", cudaGetErrorString(e));
    return 2;
  }
  std::printf("ok, naive 1024^3 median %.4f ms\n", time_kernel());
  return 0;
}

struct Mode {
  const char* name;
  bool landlock, filter, trap;
  std::vector<std::string> extra_read;   // added to the worker policy's reads
  std::vector<std::string> extra_write;  // and its writes
};

int run(const std::string& self, const Mode& m) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (m.landlock) {
      tilelab::confine::Policy p = tilelab::confine::worker_policy(self, long(::getpid()));
      p.read.insert(p.read.end(), m.extra_read.begin(), m.extra_read.end());
      p.write.insert(p.write.end(), m.extra_write.begin(), m.extra_write.end());
      std::string why;
      if (tilelab::confine::restrict(p, why) == 0) {
        std::fprintf(stderr, "landlock: %s\n", why.c_str());
        ::_exit(4);
      }
    }
    char* page = static_cast<char*>(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::strcpy(page, self.c_str());
    if (m.filter) tilelab::enter_launch_filter(page, false, m.trap);
    char* argv[] = {page, const_cast<char*>("--cuda"), nullptr};
    ::execv(page, argv);
    ::_exit(5);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("%-28s exit %d\n", m.name, rc);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--cuda") == 0) return cuda_here();
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  const Mode modes[] = {
      {"unconfined", false, false, false, {}},
      {"landlock", true, false, false, {}},
      {"landlock + all of /proc", true, false, false, {"/proc"}},
      {"landlock + /run /var /tmp", true, false, false, {"/run", "/var", "/tmp"}},
      {"landlock + writes /dev/shm", true, false, false, {}, {"/dev/shm"}},
      {"landlock + writes /tmp", true, false, false, {}, {"/tmp"}},
      {"launch filter", false, true, false, {}},
      {"launch filter, trap", false, true, true, {}},
      {"both (the worker's)", true, true, false, {}},
  };
  int rc_none = -1, rc_both = -1;
  for (const Mode& m : modes) {
    const int rc = run(self, m);
    if (!m.landlock && !m.filter) rc_none = rc;
    if (m.landlock && m.filter) rc_both = rc;
  }
  if (rc_none != 0) return 77;
  return rc_both == 0 ? 0 : 1;
}
