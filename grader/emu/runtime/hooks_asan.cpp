// The asan build's hooks (internal.hpp, namespace hooks): AddressSanitizer + UBSan. cudaMalloc
// buffers have their exact size (AddressSanitizer's redzones start at the first byte past the end)
// and the shared arena is poisoned but for the declared variables, so an out-of-bounds access stops
// the run with the student's line; the sanitizers' report becomes the last finding.
#include <dlfcn.h>
#include <link.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "internal.hpp"
#include "tilelab/contract.hpp"  // TILELAB_EXIT_ERROR_TEXT: a finding exits as the runner's error code

namespace tlemu {
namespace {
std::string g_report_prefix;  // where the sanitizers write their report

// "    #3 0x55d0c1 in MatrixMulKernel(...) /path/matmul.cu:27:31" -> the first frame in a .cu file.
bool first_cu_frame(const std::string& text, std::string& file, int& line) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    const size_t hash = l.find('#');
    if (hash == std::string::npos || l.find(" in ", hash) == std::string::npos) continue;
    const size_t cu = l.find(".cu:");
    if (cu == std::string::npos) continue;
    size_t b = l.rfind(' ', cu);
    b = b == std::string::npos ? 0 : b + 1;
    file = l.substr(b, cu + 3 - b);
    line = std::atoi(l.c_str() + cu + 4);
    return true;
  }
  return false;
}

void on_death() {
  Runtime& r = rt();
  std::string text;
  if (!g_report_prefix.empty()) {  // each runtime writes <prefix>.<pid>
    const std::string path = g_report_prefix + "." + std::to_string(::getpid());
    if (FILE* in = std::fopen(path.c_str(), "rb")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) text.append(buf, n);
      std::fclose(in);
    }
    std::remove(path.c_str());
    ssize_t ignored = ::write(2, text.data(), text.size());  // the full report, for the log
    (void)ignored;
  }
  Finding f;
  f.kind = "memory-error";
  const size_t ub = text.find(": runtime error: ");
  if (ub != std::string::npos) {  // UBSan: "file.cu:27:14: runtime error: message"
    f.kind = f.hint_code = "undefined-behavior";
    const size_t ls = text.rfind('\n', ub) == std::string::npos ? 0 : text.rfind('\n', ub) + 1;
    const std::string where = text.substr(ls, ub - ls);
    const size_t c1 = where.find(':');
    f.file = where.substr(0, c1);
    f.line = c1 == std::string::npos ? 0 : std::atoi(where.c_str() + c1 + 1);
    const size_t le = text.find('\n', ub);
    const std::string what = text.substr(ub + 17, le == std::string::npos ? std::string::npos : le - ub - 17);
    if (what.find("out of bounds for type") != std::string::npos) {  // -fsanitize=bounds: a declared array
      f.kind = f.hint_code = "out-of-bounds-index";
      f.message = what + (r.in_kernel ? " (thread " + fmt_idx(threadIdx, blockDim) + " of block " +
                                            fmt_idx(blockIdx, gridDim) + ")"
                                      : std::string());
    } else {
      f.message = "undefined behaviour: " + what;
    }
  } else {
    first_cu_frame(text, f.file, f.line);
    const size_t e = text.find("ERROR: AddressSanitizer: ");
    std::string desc = e == std::string::npos ? "memory error" : text.substr(e + 25, text.find(' ', e + 25) - e - 25);
    const bool write = text.find("WRITE of size") != std::string::npos;
    const size_t sz = text.find(write ? "WRITE of size " : "READ of size ");
    const int bytes = sz == std::string::npos ? 0 : std::atoi(text.c_str() + sz + (write ? 14 : 13));
    const size_t at = text.find(" on address 0x");
    const uintptr_t addr = at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + 12, nullptr, 16);
    bool shared = false;
    const std::string near = r.describe_outside(addr, shared);
    if (shared)
      f.kind = "out-of-bounds-shared";
    else if (desc == "heap-buffer-overflow")
      f.kind = "out-of-bounds-global";
    else if (desc == "stack-buffer-overflow" || desc == "stack-buffer-underflow")
      f.kind = "out-of-bounds-local";
    f.hint_code = f.kind;
    f.message = std::string(write ? "writes " : "reads ") + std::to_string(bytes) + " bytes " + near + " (" + desc +
                (r.in_kernel ? ", in thread " + fmt_idx(threadIdx, blockDim) + " of block " + fmt_idx(blockIdx, gridDim)
                             : std::string(", in host code")) +
                ")";
  }
  r.add(f, "fatal");
  if (r.fatal) r.fatal(r.findings);
}

// g++ links AddressSanitizer and UBSan as two libraries, each with its own copy of the common
// sanitizer runtime: the report file and the death callback are set in both.
int set_hooks_in(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name;
  if (!name || (!std::strstr(name, "libubsan") && !std::strstr(name, "libasan"))) return 0;
  void* lib = ::dlopen(name, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return 0;
  using SetPath = void (*)(const char*);
  using SetDeath = void (*)(void (*)());
  if (auto path = reinterpret_cast<SetPath>(::dlsym(lib, "__sanitizer_set_report_path")))
    path(g_report_prefix.c_str());
  if (auto death = reinterpret_cast<SetDeath>(::dlsym(lib, "__sanitizer_set_death_callback"))) death(on_death);
  ::dlclose(lib);
  return 0;
}

struct AsanSetup {
  AsanSetup() {
    const char* tmp = std::getenv("TMPDIR");
    g_report_prefix = std::string(tmp && *tmp ? tmp : "/tmp") + "/tilelab-emu-sanitizer";
    __sanitizer_set_report_path(g_report_prefix.c_str());
    __sanitizer_set_death_callback(on_death);
    ::dl_iterate_phdr(set_hooks_in, nullptr);
  }
} g_asan_setup;

// AddressSanitizer must know which stack runs (its fake stacks and stack bounds).
void stack_of(Runtime& r, int who, const void*& bottom, size_t& size) {
  if (who < 0) {
    bottom = r.main_stack_bottom, size = r.main_stack_size;
  } else {
    bottom = r.threads[size_t(who)].stack_bottom, size = r.threads[size_t(who)].stack_size;
  }
}
}  // namespace

namespace hooks {
const char* backend_name() { return "emu-asan"; }
size_t stack_bytes() { return 512 * 1024; }  // ASan frames are large

void runtime_created(Runtime& r) {
  ASAN_POISON_MEMORY_REGION(r.arena, r.arena_size);  // only declared variables are addressable
}
void shared_declared(Runtime& r, size_t off, size_t bytes) { ASAN_UNPOISON_MEMORY_REGION(r.arena + off, bytes); }
void launch_begin(Runtime& r, size_t dynamic_shared) {
  ASAN_UNPOISON_MEMORY_REGION(r.arena + kStaticArena, dynamic_shared);
}
void launch_end(Runtime& r, const LaunchSite&, size_t dynamic_shared) {
  ASAN_POISON_MEMORY_REGION(r.arena + kStaticArena, dynamic_shared);
}
void block_begin(Runtime&) {}
void block_end(Runtime&) {}
void barrier(Runtime&, const char*, int) {}
void switch_start(Runtime& r, int to, void** fake) {
  const void* bottom;
  size_t size;
  stack_of(r, to, bottom, size);
  __sanitizer_start_switch_fiber(fake, bottom, size);
}
void switch_finish(Runtime& r, void* fake) {
  const void* from_bottom = nullptr;
  size_t from_size = 0;
  __sanitizer_finish_switch_fiber(fake, &from_bottom, &from_size);
  if (r.from < 0) r.main_stack_bottom = const_cast<void*>(from_bottom), r.main_stack_size = from_size;
}
bool alloc_buffer(Buffer& b, size_t size) {
  b.ptr = static_cast<char*>(std::malloc(std::max<size_t>(size, 1)));
  return b.ptr != nullptr;
}
void free_buffer(Runtime&, Buffer& b) { std::free(b.ptr); }
}  // namespace hooks

}  // namespace tlemu

extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:exitcode=" TILELAB_EXIT_ERROR_TEXT ":halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0";
}
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1:exitcode=" TILELAB_EXIT_ERROR_TEXT; }
