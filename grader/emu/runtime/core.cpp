// The emulator runtime's core: the built-in variables, the Runtime object, the runner's side
// (runtime.hpp) and the student-facing side (tilelab_emu.h): barriers, warp operations, shared
// memory and the launch. What differs per build is behind hooks:: (internal.hpp).
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

#include "internal.hpp"
#include "tilelab/contract.hpp"  // tilelab::kError: a finding exits as the runner's error code
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

// ---- the built-in variables of the thread that runs ----
uint3 threadIdx{0, 0, 0};
uint3 blockIdx{0, 0, 0};
dim3 blockDim;
dim3 gridDim;
int tlemu_in_atomic = 0;  // tilelab_emu_warp.h: above 0 while an atomic runs

namespace tlemu {

std::string fmt_idx(uint3 v, dim3 extent) {
  std::string s = "(" + std::to_string(v.x);
  if (extent.y > 1 || extent.z > 1) s += "," + std::to_string(v.y);
  if (extent.z > 1) s += "," + std::to_string(v.z);
  return s + ")";
}

// ---- the Runtime object ----
Runtime::Runtime() {
  arena_size = kStaticArena + kMaxSharedPerBlock;
  void* p = ::mmap(nullptr, arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "tilelab emulator: cannot map the shared-memory arena\n");
    std::abort();
  }
  arena = static_cast<char*>(p);
  progress = progress_page();
  install_device_fault_handler();
  hooks::runtime_created(*this);
}

// The judge's progress page (progress.hpp) when this worker was given one, else a private one:
// mapped once, at the latest when the program starts (before a worker may enter a sandbox).
Progress* progress_page() {
  static Progress* page = [] {
    static Progress own{};
    Progress* p = &own;
    struct stat st;
    if (::fstat(kProgressFd, &st) == 0 && size_t(st.st_size) >= sizeof(Progress)) {
      void* q = ::mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED, kProgressFd, 0);
      if (q != MAP_FAILED && static_cast<Progress*>(q)->magic == kProgressMagic) p = static_cast<Progress*>(q);
      else if (q != MAP_FAILED) ::munmap(q, sizeof(Progress));
    }
    p->attached = 1;
    return p;
  }();
  return page;
}
namespace {
__attribute__((constructor)) void map_progress_page() { progress_page(); }
}  // namespace

// ---- progress (progress.hpp) ----
int64_t now_ns() {
  timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

namespace {
const char* g_phase_file = nullptr;  // the first __syncthreads() released in the block that runs
int g_phase_line = 0;
}  // namespace

void progress_thread_done(Runtime& r) {
  ++r.progress->threads_done;
  r.progress->last_progress_ns = now_ns();
}

void progress_barrier(Runtime& r, const char* file, int line) {
  Progress& p = *r.progress;
  ++p.barriers;
  if (!g_phase_file) {
    g_phase_file = file, g_phase_line = line;
    p.phase_line = line;
    std::snprintf(p.phase_file, sizeof p.phase_file, "%s", file ? file : "");
  }
  if (file == g_phase_file && line == g_phase_line) ++p.phases;
  p.last_progress_ns = now_ns();
}

bool Runtime::pinned_at(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = pinned.upper_bound(a);
  return it != pinned.begin() && a <= std::prev(it)->first + std::prev(it)->second;
}

void Runtime::add(Finding f, const std::string& key) {
  auto it = finding_index.find(key);
  if (it != finding_index.end()) {
    Finding& had = findings[it->second];
    f.count += had.count;
    if (had.warning && !f.warning) had = std::move(f);  // a violation outranks a warning of the same key
    else had.count = f.count;
    return;
  }
  if (findings.size() >= 50) return;  // enough to act on
  finding_index[key] = findings.size();
  findings.push_back(std::move(f));
}

Buffer* Runtime::find_buffer(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = buffers.upper_bound(a);
  if (it == buffers.begin()) return nullptr;
  --it;
  Buffer& b = it->second;
  const auto base = reinterpret_cast<uintptr_t>(b.ptr);
  if (a < base || a + n > base + b.size) return nullptr;
  return &b;
}

std::string Runtime::shared_name(size_t off) const {
  if (off >= kStaticArena) {
    const size_t i = (off - kStaticArena) / dynamic_elem;
    return (dynamic_name.empty() ? "extern __shared__ memory" : dynamic_name) + "[" + std::to_string(i) + "]";
  }
  for (const auto& v : shared_vars) {
    if (off < v.offset || off >= v.offset + v.size) continue;
    size_t i = (off - v.offset) / v.elem;
    std::string s;
    for (int d = int(v.dims.size()) - 1; d >= 0; --d) {
      s = "[" + std::to_string(i % size_t(v.dims[size_t(d)])) + "]" + s;
      i /= size_t(v.dims[size_t(d)]);
    }
    return v.name + s;
  }
  bool shared = false;
  return describe_outside(reinterpret_cast<uintptr_t>(arena) + off, shared);
}

namespace {
// "just past the end of " for the first byte after an object (the classic off-by-one), else the distance.
std::string past_the_end(size_t bytes) {
  return bytes == 0 ? "just past the end of " : std::to_string(bytes) + " bytes past the end of ";
}
}  // namespace

std::string Runtime::describe_outside(uintptr_t a, bool& shared) const {
  const auto lo = reinterpret_cast<uintptr_t>(arena);
  shared = a >= lo && a < lo + arena_size;
  if (shared) {
    const size_t off = a - lo;
    if (off >= kStaticArena)
      return past_the_end(off - kStaticArena - dynamic_bytes) + "the " + std::to_string(dynamic_bytes) +
             " bytes of dynamic shared memory" + (dynamic_name.empty() ? "" : " (" + dynamic_name + ")");
    const SharedVar* best = nullptr;
    for (const auto& v : shared_vars)
      if (v.offset <= off && (!best || v.offset > best->offset)) best = &v;
    if (best && off >= best->offset + best->size)
      return past_the_end(off - best->offset - best->size) + "__shared__ " + best->name + " (declared at line " +
             std::to_string(best->line) + ")";
    if (!shared_vars.empty() && off < shared_vars.front().offset)
      return "before __shared__ " + shared_vars.front().name;
    return "in shared memory";
  }
  const Buffer* near = nullptr;
  long long dist = 0;
  for (const auto& [base, b] : buffers) {
    const long long d = a >= base + b.size ? (long long)(a - base - b.size) : (long long)a - (long long)base;
    if (d < 0 ? -d < 4096 : d < 4096) {
      if (!near || std::llabs(d) < std::llabs(dist)) near = &b, dist = d;
    }
  }
  if (!near) return "outside every cudaMalloc buffer";
  const std::string name = near->name.empty() ? "a cudaMalloc buffer" : near->name;
  const std::string sz = " (" + std::to_string(near->size) + " bytes, " + std::to_string(near->size / 4) + " floats)";
  if (dist < 0) return std::to_string(-dist) + " bytes before the start of " + name + sz;
  return past_the_end(size_t(dist)) + name + sz;
}

Runtime& rt() {
  static Runtime* r = new Runtime();  // never destroyed: used until the process exits
  return *r;
}

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) rt().last_error = e;
  return e;
}

// ---- the runner's side (runtime.hpp) ----
const char* backend_name() { return hooks::backend_name(); }

// A build that counts nothing leaves out hooks::take_counts (the one optional hook).
__attribute__((weak)) bool hooks::take_counts(TrafficCounts&) { return false; }
__attribute__((weak)) void hooks::tensor_op(Runtime&, size_t, int, int, int, const void* const[3], const int[3]) {}
__attribute__((weak)) void hooks::accumulator(Runtime&, size_t, uint32_t, bool) {}
__attribute__((weak)) void hooks::async_copy_issued(Runtime&, void*, size_t, const void*) {}
bool take_counts(TrafficCounts& out) { return hooks::take_counts(out); }

std::vector<Finding> take_findings() {
  Runtime& r = rt();
  std::vector<Finding> out;
  out.swap(r.findings);
  r.finding_index.clear();
  return out;
}

void set_fatal_handler(std::function<void(const std::vector<Finding>&)> handler) { rt().fatal = std::move(handler); }

void name_buffer(const void* p, const std::string& name, size_t row_length) {
  if (Buffer* b = rt().find_buffer(p, 0)) {
    b->name = name;
    b->row_length = row_length;
  }
}

namespace {
uint64_t device_fingerprint(const Runtime& r) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (const auto& [start, b] : r.buffers) {
    h = (h ^ start ^ b.size) * 0x100000001b3ull;
    const char* p = b.ptr;
    size_t n = b.size, i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < n; ++i) h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  }
  return h;
}
}  // namespace

DeviceOp::DeviceOp(Runtime& rt_) : r(rt_), open(rt_) {
  if (r.recording && device_fingerprint(r) != r.device_print) ++r.host_stores;
}
DeviceOp::~DeviceOp() {
  if (r.recording) r.device_print = device_fingerprint(r);
}

// ---- device memory unreachable from host code (internal.hpp, DeviceAccess) ----
// The section tlemu_device_vars: the rewriter's TLEMU_DEVICE_VAR variables of every object, then
// this fence. The fence is page-aligned (so the whole section is: a section is as aligned as its
// most aligned part) and is a whole page, and it comes last, since the linker lays out the objects
// on its command line before the members of a static library such as this runtime: the section is
// whole pages that hold nothing but device variables and the fence.
__attribute__((section("tlemu_device_vars"), aligned(4096), used)) char tlemu_device_vars_fence[4096];
}  // namespace tlemu
extern "C" char __start_tlemu_device_vars[], __stop_tlemu_device_vars[];  // the linker's
namespace tlemu {

std::pair<char*, char*> device_vars() {
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  // Whole pages only: on a machine of pages larger than the fence's alignment, what shares a page
  // with other data stays open (the race build still sees kernels' accesses there).
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(__start_tlemu_device_vars) + page - 1) / page * page;
  const uintptr_t hi = reinterpret_cast<uintptr_t>(__stop_tlemu_device_vars) / page * page;
  if (hi <= lo) return {nullptr, nullptr};
  return {reinterpret_cast<char*>(lo), reinterpret_cast<char*>(hi)};
}

namespace {
void protect_device(Runtime& r, int prot) {
  for (auto& [base, b] : r.buffers)
    if (b.region) ::mprotect(b.region, b.region_size, prot);
  const auto [lo, hi] = device_vars();
  if (lo) ::mprotect(lo, size_t(hi - lo), prot);
}

// What device memory holds address a (for the finding), or "" when a is not device memory.
std::string device_memory_at(const Runtime& r, uintptr_t a) {
  for (const auto& [base, b] : r.buffers) {
    const auto lo = reinterpret_cast<uintptr_t>(b.region ? b.region : b.ptr);
    const size_t span = b.region ? b.region_size : b.size;
    if (a - lo >= span) continue;
    const std::string name = b.name.empty() ? "a cudaMalloc buffer" : "the cudaMalloc buffer " + b.name;
    return a - base < b.size ? name : "the guard zone of " + name;
  }
  const auto [lo, hi] = device_vars();
  if (lo && a >= reinterpret_cast<uintptr_t>(lo) && a < reinterpret_cast<uintptr_t>(hi))
    return "a __device__, __constant__ or __managed__ variable";
  return "";
}

struct sigaction g_previous_segv {};

// Host code faulted on protected memory. Device memory: a finding (the first .cu frame names the
// line), reported as the sanitizers' are (Runtime::fatal), and the run ends with the runner's error
// code. Anything else: the handler that was there before (the fault repeats on return).
void on_segv(int sig, siginfo_t* info, void* context) {
  Runtime& r = rt();
  const uintptr_t a = reinterpret_cast<uintptr_t>(info->si_addr);
  const std::string what = r.device_open == 0 && r.device_sealed ? device_memory_at(r, a) : "";
  if (what.empty()) {
    ::sigaction(sig, &g_previous_segv, nullptr);
    return;
  }
  bool write = false;
  std::vector<const void*> calls;
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  const void* pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#else
  (void)context;
  const void* pc = nullptr;
#endif
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  calls.assign(frames, frames + n);
  Finding f;
  f.kind = f.hint_code = tilelab::findings::kHostAccessedDevice;
  auto first_cu = [&](const std::map<const void*, std::pair<std::string, int>>& where) {
    for (const auto& [at, fl] : where) {
      (void)at;
      const std::string& file = fl.first;
      if (fl.second > 0 && file.size() >= 3 && file.compare(file.size() - 3, 3, ".cu") == 0) {
        f.file = file, f.line = fl.second;
        return true;
      }
    }
    return false;
  };
  if (!(pc && first_cu(symbolize({pc}, false)))) {
    const auto where = symbolize(std::set<const void*>(calls.begin(), calls.end()));
    for (const void* c : calls) {  // innermost first
      const auto w = where.find(c);
      if (w != where.end() && first_cu({{c, w->second}})) break;
    }
  }
  const bool variable = what.find("variable") != std::string::npos;
  f.message = std::string("host code ") + (write ? "wrote" : "read") + " device memory (" + what + "): on a GPU " +
              (variable ? "such a variable named in host code is a host copy that kernels never see"
                        : "a host dereference of a device pointer faults");
  end_with_finding(r, f, "host-accessed-device");
}
}  // namespace

void end_with_finding(Runtime& r, const Finding& f, const std::string& key) {
  r.add(f, key);
  if (r.fatal) r.fatal(r.findings);
  std::fprintf(stderr, "%s:%d: tilelab emulator: %s\n", f.file.c_str(), f.line, f.message.c_str());
  ::_exit(tilelab::kError);
}

void install_device_fault_handler() {
  void* warm[1];
  ::backtrace(warm, 1);  // loads the unwinder now, not in the handler
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, &g_previous_segv);
}

DeviceAccess::DeviceAccess(Runtime& rt_) : r(rt_) {
  if (r.device_open++ == 0 && r.device_sealed) protect_device(r, PROT_READ | PROT_WRITE);
}
DeviceAccess::~DeviceAccess() {
  if (--r.device_open != 0) return;
  protect_device(r, PROT_NONE);
  r.device_sealed = true;
}

void start_recording() {
  Runtime& r = rt();
  r.records.clear();
  r.host_copies = 0;
  r.host_stores = 0;
  {
    DeviceAccess open(r);
    r.device_print = device_fingerprint(r);
  }
  r.recording = true;
}
size_t take_host_stores() { return std::exchange(rt().host_stores, 0); }
void watch_host_copies(const void* device_ptr, size_t bytes) {
  rt().watched = reinterpret_cast<uintptr_t>(device_ptr);
  rt().watched_bytes = bytes;
}
size_t take_host_copies() { return std::exchange(rt().host_copies, 0); }
void set_memory_observer(std::function<void(const MemoryEvent&)> observer) { rt().memory_observer = std::move(observer); }
void note_launch_arguments(size_t bytes) {
  MemoryEvent e;
  e.kind = MemoryEvent::kLaunchArgs, e.bytes = bytes;
  rt().observe(e);
}
size_t pinned_held() {
  size_t n = 0;
  for (const auto& [start, size] : rt().pinned) n += size;
  return n;
}
void set_sample_seed(uint64_t seed, bool every_block) {
  rt().sample_seed = seed;
  rt().count_every_block = every_block;
}
void set_product(const void* P, size_t bytes) {
  rt().product = reinterpret_cast<uintptr_t>(P);
  rt().product_bytes = bytes;
}
void hold_device_open(bool open) {
  static std::optional<DeviceAccess> held;
  if (open && !held) held.emplace(rt());
  if (!open) held.reset();
}
void observe_launch(int k) {
  Runtime& r = rt();
  r.observe_at = k;
  r.launches_seen = 0;
  r.observed = false;
}
bool launch_observed(LaunchRecord* out) {
  if (rt().observed && out) *out = rt().observed_record;
  return rt().observed;
}
std::vector<LaunchRecord> stop_recording() {
  { DeviceOp last(rt()); }  // what the host stored after the last operation
  rt().recording = false;
  return std::move(rt().records);
}

// ---- the student-facing side (tilelab_emu.h) ----
int syncthreads(const char* file, int line, int predicate) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return 0;  // called from host code: nothing to wait for
  if (r.loops) {  // a call the rewriter's resumable copy did not see (rewrite_thread_loops.cpp): a kit bug
    std::fprintf(stderr, "%s:%d: tilelab emulator: __syncthreads() inside a block run as loops\n", file, line);
    std::abort();
  }
  arrive(r, file, line, predicate);
  yield(r);
  return r.barrier_count;
}

void arrive(Runtime& r, const char* file, int line, int predicate) {
  Thread& t = *r.current;
  t.state = State::Waiting;
  t.wait_file = file;
  t.wait_line = line;
  t.predicate = predicate;
  Runtime::Arrivals& a = r.arrivals;
  if (a.count++ == 0) a.file = file, a.line = line, a.one_site = true, a.predicate = 0;
  else a.one_site = a.one_site && line == a.line && file == a.file;
  a.predicate += predicate != 0;
  hooks::barrier(r, file, line);
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char* file, int line) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return op == warp::ballot || op == warp::active ? 1u : value;  // host code
  if (r.loops) {  // as in syncthreads(): the resumable copy refuses kernels with warp operations
    std::fprintf(stderr, "%s:%d: tilelab emulator: a warp operation inside a block run as loops\n", file, line);
    std::abort();
  }
  Thread& t = *r.current;
  t.state = State::WarpWaiting;
  t.wait_file = file;
  t.wait_line = line;
  t.warp_op = op;
  t.warp_mask = mask;
  t.warp_value = value;
  t.warp_arg = arg;
  t.warp_width = width;
  const int me = r.tid;
  if (!release_warp(r, size_t(me) / 32 * 32, false)) yield(r);
  // Released (by the last lane to arrive, or by the scheduler): this thread runs again.
  return r.threads[size_t(me)].warp_result;
}

void* shared_alloc(size_t bytes, size_t align, size_t elem_bytes, const int* dims, int rank, const char* name,
                   const char* file, int line, bool read) {
  Runtime& r = rt();
  align = std::max<size_t>(align, 32);  // 32: a wmma tile at the start of a variable is 256-bit aligned, as CUDA wants it
  size_t off = (r.static_used + kRedzone + align - 1) / align * align;
  if (off + bytes + kRedzone > kStaticArena) {
    std::fprintf(stderr, "%s:%d: tilelab emulator: __shared__ %s (%zu bytes) exceeds the emulator's %zu KiB arena\n",
                 file, line, name, bytes, kStaticArena / 1024);
    std::abort();
  }
  r.static_used = off + bytes;
  SharedVar v{off, bytes, std::max<size_t>(elem_bytes, 1), std::vector<int>(dims, dims + rank), name, file,
              r.site ? r.site->kernel : "", line};
  v.read = read;
  r.shared_vars.push_back(v);
  hooks::shared_declared(r, off, bytes);
  return r.arena + off;
}

void* bind_shared_slot(void** slot, void* at) {
  *slot = at;
  return at;
}

void* dynamic_shared_base(const char* name, size_t elem_bytes) {
  Runtime& r = rt();
  r.dynamic_name = name;
  r.dynamic_elem = std::max<size_t>(elem_bytes, 1);
  return r.arena + kStaticArena;
}

void launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
                   void (*body)(void*), void* body_ctx, const void* const* pointers, int n_pointers) {
  // The runtime calls `body` for every thread, from code no thunk is in: it must be a function's
  // entry (tlemu::start_thread's, from the header), as any call through a pointer of the student's
  // (indirect_branch.cpp; a direct call of this entry point with other bytes: red team 4).
  tlemu_indirect_target_check(reinterpret_cast<uintptr_t>(body), reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  Runtime& r = rt();
  DeviceOp op(r);
  LaunchRecord rec;
  rec.kernel = site.kernel;
  rec.file = site.file;
  rec.line = site.line;
  rec.grid = grid;
  rec.block = block;
  rec.dynamic_shared = dynamic_shared;
  rec.default_stream = stream == nullptr;
  auto finish = [&](cudaError_t e) {
    rec.error = e;
    set_error(e);
    if (r.recording) r.records.push_back(rec);
  };
  if (r.sticky != cudaSuccess) return finish(r.sticky);
  // CUDA's limits (compute capability 9.0), with its error codes. An empty grid is
  // cudaErrorInvalidValue as CUDA 13.0 reports it on an H100 (older releases said
  // cudaErrorInvalidConfiguration).
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return finish(cudaErrorInvalidValue);
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 || threads > 1024 || grid.x > 2147483647u ||
      grid.y > 65535 || grid.z > 65535)
    return finish(cudaErrorInvalidConfiguration);
  if (dynamic_shared > kMaxSharedPerBlock) return finish(cudaErrorInvalidValue);
  for (int i = 0; i < n_pointers; ++i) {
    if (!pointers[i] || r.find_buffer(pointers[i], 0) || r.pinned_at(pointers[i])) continue;
    Finding f;
    f.kind = f.hint_code = tilelab::findings::kHostPointerArgument;
    f.file = site.file;
    f.line = site.line;
    f.message = "argument " + std::to_string(i + 1) + " of the pointers passed to " + site.kernel +
                " does not point into memory from cudaMalloc (a host pointer?); on a GPU the kernel fails "
                "with an illegal address";
    r.add(f, "host-pointer:" + std::to_string(site.line));
    r.sticky = cudaErrorIllegalAddress;
    return finish(cudaSuccess);  // the launch itself succeeds; the error shows at the next sync
  }
  if (r.observe_at > 0) {  // observe_launch(): the k-th launch is seen, not run, and its call ends there
    if (r.observed) return finish(cudaErrorLaunchFailure);
    if (++r.launches_seen == r.observe_at) {
      r.observed = true;
      finish(cudaSuccess);
      r.observed_record = rec;
      throw LaunchObserved{};
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  gridDim = grid;
  blockDim = block;
  r.site = &site;
  r.body = body;
  r.body_ctx = body_ctx;
  r.dynamic_bytes = dynamic_shared;
  r.dynamic_name.clear();
  r.threads.clear();
  r.threads.resize(size_t(threads));
  for (unsigned z = 0, i = 0; z < block.z; ++z)
    for (unsigned y = 0; y < block.y; ++y)
      for (unsigned x = 0; x < block.x; ++x) r.threads[i++].idx = {x, y, z};
  hooks::launch_begin(r, dynamic_shared);
  Progress& pg = *r.progress;
  ++pg.launches;
  pg.grid[0] = grid.x, pg.grid[1] = grid.y, pg.grid[2] = grid.z;
  pg.block[0] = block.x, pg.block[1] = block.y, pg.block[2] = block.z;
  pg.blocks_total = uint64_t(grid.x) * grid.y * grid.z;
  pg.blocks_done = pg.phases_per_block = 0;
  std::snprintf(pg.kernel, sizeof pg.kernel, "%s", site.kernel);
  pg.launch_start_ns = pg.last_progress_ns = now_ns();
  r.in_kernel = true;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        blockIdx = {x, y, z};
        pg.threads_done = pg.barriers = pg.phases = 0;
        g_phase_file = nullptr, g_phase_line = 0;
        run_block(r);
        pg.phases_per_block = pg.phases;
        ++pg.blocks_done;
        pg.last_progress_ns = now_ns();
      }
  r.in_kernel = false;
  hooks::launch_end(r, site, dynamic_shared);
  // As nvcc's attributes: a variable never read takes no memory; one at namespace scope (allocated
  // before main, for no kernel) is every kernel's, as CUDA allocates it in each kernel that uses it.
  for (const auto& v : r.shared_vars)
    if ((v.kernel == site.kernel || v.kernel.empty()) && v.read) rec.static_shared += v.size;
  r.site = nullptr;
  r.threads.clear();
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  finish(cudaSuccess);
}

}  // namespace tlemu
