// The asan build's hooks (internal.hpp, namespace hooks): AddressSanitizer + UBSan. cudaMalloc
// buffers have their exact size (AddressSanitizer's redzones start at the first byte past the end)
// and the shared arena is poisoned but for the declared variables, so an out-of-bounds access stops
// the run with the student's line; the sanitizers' report becomes the last finding.
#include <dlfcn.h>
#include <link.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>
#include <cstdlib>

#include <cstring>
#include <set>

#include "internal.hpp"
#include "tilelab/contract.hpp"  // TILELAB_EXIT_ERROR_TEXT: a finding exits as the runner's error code
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

namespace tlemu {
namespace {
// The report, from the sanitizers' own interfaces (asan_interface.h, UBSan's report data), never
// from their text: the worker's sandbox lets them print (to stderr, for the log) but not open a
// report file or start a symbolizer, so the lines come from symbolize(), through the helper that
// was started before the sandbox.
struct UbsanReport {
  bool present = false;
  std::string message, file;
  unsigned line = 0;
} g_ubsan;

// The first frame in a .cu file: the report's pc (the return address of the instrumentation's
// call, as ASan prints it less one), then the frame-pointer chain from bp (every frame of the
// runner and of the student's code keeps its frame pointer).
void first_cu_frame(uintptr_t pc, uintptr_t bp, std::string& file, int& line) {
  std::vector<const void*> calls{reinterpret_cast<const void*>(pc)};  // return addresses, innermost first
  for (int i = 0; i < 64 && bp && bp % sizeof(void*) == 0; ++i) {
    const auto* frame = reinterpret_cast<const uintptr_t*>(bp);
    if (!frame[1]) break;
    calls.push_back(reinterpret_cast<const void*>(frame[1]));
    if (frame[0] <= bp || frame[0] - bp > (uintptr_t(1) << 24)) break;
    bp = frame[0];
  }
  const auto where = symbolize(std::set<const void*>(calls.begin(), calls.end()));
  for (const void* a : calls) {
    const auto w = where.find(a);
    if (w == where.end() || w->second.second <= 0) continue;
    const std::string& f = w->second.first;
    if (f.size() < 3 || f.compare(f.size() - 3, 3, ".cu") != 0) continue;
    file = f, line = w->second.second;
    return;
  }
}

void on_death() {
  Runtime& r = rt();
  Finding f;
  f.kind = tilelab::findings::kMemoryError;
  if (g_ubsan.present) {
    f.kind = f.hint_code = tilelab::findings::kUndefinedBehavior;
    f.file = g_ubsan.file;
    f.line = int(g_ubsan.line);
    const std::string& what = g_ubsan.message;
    if (what.find("out of bounds for type") != std::string::npos) {  // -fsanitize=bounds: a declared array
      f.kind = f.hint_code = tilelab::findings::kOutOfBoundsIndex;
      f.message = what + (r.in_kernel ? " (thread " + fmt_idx(threadIdx, blockDim) + " of block " +
                                            fmt_idx(blockIdx, gridDim) + ")"
                                      : std::string());
    } else {
      f.message = "undefined behaviour: " + what;
      // UBSan's own words are the only place it says which check failed ("load of misaligned address").
      if (what.find("misaligned") != std::string::npos) f.variant = tilelab::finding_variants::kMisaligned;
    }
  } else if (__asan_report_present()) {
    first_cu_frame(uintptr_t(__asan_get_report_pc()), uintptr_t(__asan_get_report_bp()), f.file, f.line);
    const std::string desc = __asan_get_report_description() ? __asan_get_report_description() : "memory error";
    const bool write = __asan_get_report_access_type() != 0;
    const size_t bytes = __asan_get_report_access_size();
    bool shared = false;
    const std::string near = r.describe_outside(uintptr_t(__asan_get_report_address()), shared);
    if (shared)
      f.kind = tilelab::findings::kOutOfBoundsShared;
    else if (desc == "heap-buffer-overflow")
      f.kind = tilelab::findings::kOutOfBoundsGlobal;
    else if (desc == "stack-buffer-overflow" || desc == "stack-buffer-underflow")
      f.kind = tilelab::findings::kOutOfBoundsLocal;
    f.hint_code = f.kind;
    f.message = std::string(write ? "writes " : "reads ") + std::to_string(bytes) + " bytes " + near + " (" + desc +
                (r.in_kernel ? ", in thread " + fmt_idx(threadIdx, blockDim) + " of block " + fmt_idx(blockIdx, gridDim)
                             : std::string(", in host code")) +
                ")";
  } else {
    f.message = "the sanitizers stopped the run";
  }
  r.add(f, "fatal");
  if (r.fatal) r.fatal(r.findings);
}

// g++ links AddressSanitizer and UBSan as two libraries, each with its own copy of the common
// sanitizer runtime: the death callback is set in both.
int set_hooks_in(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name;
  if (!name || (!std::strstr(name, "libubsan") && !std::strstr(name, "libasan"))) return 0;
  void* lib = ::dlopen(name, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return 0;
  using SetDeath = void (*)(void (*)());
  if (auto death = reinterpret_cast<SetDeath>(::dlsym(lib, "__sanitizer_set_death_callback"))) death(on_death);
  ::dlclose(lib);
  return 0;
}

struct AsanSetup {
  AsanSetup() {
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
  // 256-byte aligned as cudaMalloc's (wmma's load_matrix_sync needs 32); AddressSanitizer still
  // poisons from exactly `size` bytes on, so a read one element past the end is still found.
  void* p = nullptr;
  if (::posix_memalign(&p, 256, std::max<size_t>(size, 1)) != 0) return false;
  b.ptr = static_cast<char*>(p);
  return true;
}
void free_buffer(Runtime&, Buffer& b) { std::free(b.ptr); }
}  // namespace hooks

}  // namespace tlemu

// UBSan calls this as it reports an error (before it halts): the report's fields, kept for on_death.
extern "C" void __ubsan_get_current_report_data(const char** kind, const char** message, const char** file,
                                               unsigned* line, unsigned* column, char** address);
extern "C" void __ubsan_on_report() {
  const char *kind = nullptr, *message = nullptr, *file = nullptr;
  unsigned line = 0, column = 0;
  char* address = nullptr;
  __ubsan_get_current_report_data(&kind, &message, &file, &line, &column, &address);
  tlemu::g_ubsan = {true, message ? message : "", file ? file : "", line};
}

extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:symbolize=0:exitcode=" TILELAB_EXIT_ERROR_TEXT ":halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0";
}
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1:symbolize=0:exitcode=" TILELAB_EXIT_ERROR_TEXT; }
