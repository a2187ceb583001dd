// The emulator runtime: CUDA runtime calls on host memory, the block scheduler (one Boost.Context
// fiber per CUDA thread, blocks in order), barrier checks, and per build (runtime.hpp) the guard
// zones, the AddressSanitizer hooks or the shared-memory race detector.
//
// Compile with exactly one of TLEMU_BUILD_PLAIN, TLEMU_BUILD_ASAN, TLEMU_BUILD_RACE.
#include "runtime.hpp"

#include <dlfcn.h>
#include <link.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <chrono>
#include <cinttypes>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#if defined(TLEMU_BUILD_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

#include "tilelab/contract.hpp"  // TILELAB_EXIT_ERROR_TEXT: a finding exits as the runner's error code
#endif

#if (defined(TLEMU_BUILD_PLAIN) + defined(TLEMU_BUILD_ASAN) + defined(TLEMU_BUILD_RACE)) != 1
#error "define exactly one of TLEMU_BUILD_PLAIN, TLEMU_BUILD_ASAN, TLEMU_BUILD_RACE"
#endif

// ---- the built-in variables of the thread that runs ----
uint3 threadIdx{0, 0, 0};
uint3 blockIdx{0, 0, 0};
dim3 blockDim;
dim3 gridDim;

namespace tlemu {
namespace ctx = boost::context;

namespace {

// H100 SXM limits: what a launch is validated against and what cudaGetDeviceProperties reports.
constexpr size_t kMaxSharedPerBlock = 232448;  // opt-in maximum, static + dynamic
constexpr size_t kStaticArena = 256 * 1024;    // room for every __shared__ variable of a program
constexpr size_t kRedzone = 64;                // between two __shared__ variables
#if defined(TLEMU_BUILD_ASAN)
constexpr size_t kStackBytes = 512 * 1024;  // ASan frames are large
#else
constexpr size_t kStackBytes = 128 * 1024;
#endif
// Plain and race builds: a cudaMalloc buffer has at least this much guard zone on each side, filled
// with a signalling NaN: an overrun reads NaN (as a GPU reads garbage), and a store there is told
// apart from the pattern even when it stores a NaN computed from it (arithmetic quiets NaNs).
constexpr size_t kGuardMin = 1 << 20;
constexpr uint32_t kGuardWord = 0x7FA5A5A5u;
void fill_guard(char* from, char* to) {  // both 4-byte aligned
  for (char* p = from; p < to; p += 4) std::memcpy(p, &kGuardWord, 4);
}
const char* first_dirty(const char* from, const char* to) {
  for (const char* p = from; p < to; p += 4)
    if (std::memcmp(p, &kGuardWord, 4) != 0) return p;
  return nullptr;
}
const char* last_dirty(const char* from, const char* to) {
  for (const char* p = to; p > from; p -= 4)
    if (std::memcmp(p - 4, &kGuardWord, 4) != 0) return p - 4;
  return nullptr;
}

std::string fmt_idx(uint3 v, dim3 extent) {
  std::string s = "(" + std::to_string(v.x);
  if (extent.y > 1 || extent.z > 1) s += "," + std::to_string(v.y);
  if (extent.z > 1) s += "," + std::to_string(v.z);
  return s + ")";
}

// ---- device memory ----
struct Buffer {
  char* ptr;
  size_t size;
  char* region;  // mapping holding the buffer and its guard zones (plain, race)
  size_t region_size;
  std::string name;
  size_t row_length = 0;  // of a float matrix, when the runner named one
};

struct SharedVar {
  size_t offset, size, elem;
  std::vector<int> dims;
  std::string name, file, kernel;
  int line;
};

enum class State : char { Ready, Waiting, WarpWaiting, Done };

struct Thread {
  ctx::fiber fiber;  // this thread's continuation while it does not run
  uint3 idx;
  State state = State::Ready;
  const char* wait_file = nullptr;
  int wait_line = 0;
  int predicate = 0;
  // At a warp-level operation (State::WarpWaiting): what it contributes and what it gets back.
  int warp_op = 0;
  unsigned warp_mask = 0;
  uint64_t warp_value = 0;
  int warp_arg = 0, warp_width = 32;
  uint64_t warp_result = 0;
  void* stack_bottom = nullptr;
  size_t stack_size = 0;
  void* asan_fake_stack = nullptr;
};

// Stacks are reused across blocks: a block of T threads needs T stacks, mapped once.
struct StackPool {
  std::vector<ctx::stack_context> free;
  ctx::stack_context last;
  size_t count = 0;
  ~StackPool() {
    for (auto& s : free) ::munmap(static_cast<char*>(s.sp) - s.size, kStackBytes);  // sp - size: the mapping
  }
};
struct PoolAllocator {
  StackPool* pool;
  ctx::stack_context allocate() {
    if (!pool->free.empty()) {
      pool->last = pool->free.back();
      pool->free.pop_back();
      return pool->last;
    }
    void* p = ::mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(p, size_t(::sysconf(_SC_PAGESIZE)), PROT_NONE);  // a guard page: overflow faults
    // Tops of stack staggered by 64-byte steps: stacks all aligned alike would make every
    // thread's hot frames compete for the same L1 cache sets.
    const size_t stagger = 64 * (pool->count++ % 61);
    ctx::stack_context s;
    s.size = kStackBytes - stagger;
    s.sp = static_cast<char*>(p) + kStackBytes - stagger;
    pool->last = s;
    return s;
  }
  void deallocate(ctx::stack_context& s) { pool->free.push_back(s); }
};

// A race between two accesses, or a read of unwritten shared memory, before symbolization.
struct RaceKey {
  char kind;  // 'R' read after write, 'W' write after read, 'X' write after write, 'U' uninitialized
  const void* pc_now;
  const void* pc_then;
  bool operator==(const RaceKey& o) const { return kind == o.kind && pc_now == o.pc_now && pc_then == o.pc_then; }
};
struct RaceKeyHash {
  size_t operator()(const RaceKey& k) const {
    return std::hash<const void*>()(k.pc_now) * 31 + std::hash<const void*>()(k.pc_then) * 7 + size_t(k.kind);
  }
};
struct RaceRecord {
  long count = 0;
  size_t offset = 0;
  uint3 block, now, then;
  dim3 grid, bdim;
};

// Shadow of one byte of shared memory (race build).
struct Cell {
  uint32_t w_epoch = 0, r_epoch = 0;
  uint16_t w_tid = 0, r_tid = 0;
  bool r_many = false;
  const void* w_pc = nullptr;
  const void* r_pc = nullptr;
};

struct Runtime {
  cudaError_t last_error = cudaSuccess;
  cudaError_t sticky = cudaSuccess;
  std::map<uintptr_t, Buffer> buffers;  // by start address
  std::map<uintptr_t, size_t> pinned;   // cudaMallocHost: host memory kernels may use (UVA)
  bool pinned_at(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = pinned.upper_bound(a);
    return it != pinned.begin() && a <= std::prev(it)->first + std::prev(it)->second;
  }

  // Shared memory: [static arena | dynamic region], one mapping.
  char* arena = nullptr;
  size_t arena_size = 0;
  size_t static_used = 0;
  std::vector<SharedVar> shared_vars;
  std::string dynamic_name;
  size_t dynamic_elem = 1;
  size_t dynamic_bytes = 0;

  // Findings, deduplicated by key.
  std::vector<Finding> findings;
  std::map<std::string, size_t> finding_index;
  std::function<void(const std::vector<Finding>&)> fatal;

  bool recording = false;
  std::vector<LaunchRecord> records;

  // The launch that runs.
  bool in_kernel = false;
  const LaunchSite* site = nullptr;
  std::vector<Thread> threads;
  Thread* current = nullptr;
  uint16_t tid = 0;
  int from = -1;          // who switched last (-1: the scheduler)
  ctx::fiber main_cont;   // the scheduler's continuation while a thread runs
  void (*body)(void*) = nullptr;
  void* body_ctx = nullptr;
  int barrier_count = 0;  // predicate count of the last barrier released
  std::set<std::pair<std::string, int>> barrier_sites;  // race build: every __syncthreads() seen
  const char* last_site_file = nullptr;
  int last_site_line = 0;
  StackPool stacks;
  void* main_stack_bottom = nullptr;
  size_t main_stack_size = 0;
  void* main_fake_stack = nullptr;

  // Race build.
  std::vector<Cell> shadow;
  uint32_t epoch = 0, block_epoch = 0;
  std::unordered_map<RaceKey, RaceRecord, RaceKeyHash> races;

  Runtime() {
    arena_size = kStaticArena + kMaxSharedPerBlock;
    void* p = ::mmap(nullptr, arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "tilelab emulator: cannot map the shared-memory arena\n");
      std::abort();
    }
    arena = static_cast<char*>(p);
#if defined(TLEMU_BUILD_ASAN)
    ASAN_POISON_MEMORY_REGION(arena, arena_size);  // only declared variables are addressable
#endif
#if defined(TLEMU_BUILD_RACE)
    shadow.resize(arena_size);
#endif
  }

  void add(Finding f, const std::string& key) {
    auto it = finding_index.find(key);
    if (it != finding_index.end()) {
      findings[it->second].count += f.count;
      return;
    }
    if (findings.size() >= 50) return;  // enough to act on
    finding_index[key] = findings.size();
    findings.push_back(std::move(f));
  }

  Buffer* find_buffer(const void* p, size_t n) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    auto it = buffers.upper_bound(a);
    if (it == buffers.begin()) return nullptr;
    --it;
    Buffer& b = it->second;
    const auto base = reinterpret_cast<uintptr_t>(b.ptr);
    if (a < base || a + n > base + b.size) return nullptr;
    return &b;
  }

  // The __shared__ variable holding arena offset `off`, and the element index it names.
  std::string shared_name(size_t off) const {
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
  // "just past the end of " for the first byte after an object (the classic off-by-one), else the distance.
  static std::string past_the_end(size_t bytes) {
    return bytes == 0 ? "just past the end of " : std::to_string(bytes) + " bytes past the end of ";
  }
  // A description of an address outside every buffer and variable: which one it is next to.
  std::string describe_outside(uintptr_t a, bool& shared) const {
    const auto lo = reinterpret_cast<uintptr_t>(arena);
    shared = a >= lo && a < lo + arena_size;
    if (shared) {
      const size_t off = a - lo;
      if (off >= kStaticArena)
        return past_the_end(off - kStaticArena - dynamic_bytes) + "the " +
               std::to_string(dynamic_bytes) + " bytes of dynamic shared memory" +
               (dynamic_name.empty() ? "" : " (" + dynamic_name + ")");
      const SharedVar* best = nullptr;
      for (const auto& v : shared_vars)
        if (v.offset <= off && (!best || v.offset > best->offset)) best = &v;
      if (best && off >= best->offset + best->size)
        return past_the_end(off - best->offset - best->size) + "__shared__ " + best->name +
               " (declared at line " + std::to_string(best->line) + ")";
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
};

Runtime& rt() {
  static Runtime* r = new Runtime();  // never destroyed: used until the process exits
  return *r;
}

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) rt().last_error = e;
  return e;
}
#define TLEMU_STICKY() \
  if (rt().sticky != cudaSuccess) return rt().sticky

// ---- symbolization of code addresses (race build): addr2line on this executable ----
std::map<const void*, std::pair<std::string, int>> symbolize(const std::set<const void*>& pcs) {
  std::map<const void*, std::pair<std::string, int>> out;
  if (pcs.empty()) return out;
  Dl_info info{};
  if (!::dladdr(*pcs.begin(), &info) || !info.dli_fbase) return out;
  const auto* ehdr = static_cast<const Elf64_Ehdr*>(info.dli_fbase);
  const bool pie = ehdr->e_type == ET_DYN;
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return out;
  exe[n] = 0;
  std::string cmd = "addr2line -i -a -e '" + std::string(exe) + "'";
  std::vector<const void*> order(pcs.begin(), pcs.end());
  for (const void* pc : order) {
    // A return address: the call (the access) is the instruction before it.
    const uintptr_t a = reinterpret_cast<uintptr_t>(pc) - 1 - (pie ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0);
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%" PRIxPTR, a);
    cmd += buf;
  }
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[8192];
  size_t k = 0;
  bool want = false;  // the first location after an address line is the innermost (inlined) frame
  while (std::fgets(line, sizeof line, p)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.rfind("0x", 0) == 0) {
      want = true;
      continue;
    }
    if (!want || k >= order.size()) continue;
    want = false;
    const size_t d = l.find(" (discriminator");
    if (d != std::string::npos) l.resize(d);
    const size_t c = l.rfind(':');
    int ln = 0;
    if (c != std::string::npos) ln = std::atoi(l.c_str() + c + 1);
    out[order[k++]] = {c == std::string::npos ? l : l.substr(0, c), ln};
  }
  ::pclose(p);
  return out;
}

// ---- the scheduler ----
// Control passes directly from one thread to the next ready one (one context switch per thread
// and barrier, not two): each pass runs the ready threads in index order, the last one hands back
// to the scheduler, which then releases the barrier. Whoever switches sets r.from to itself
// (-1: the scheduler), so the resumed side can store the switcher's continuation in its slot.
ctx::fiber& slot(Runtime& r, int who) { return who < 0 ? r.main_cont : r.threads[size_t(who)].fiber; }

int next_ready(const Runtime& r, int after) {
  for (size_t i = size_t(after + 1); i < r.threads.size(); ++i)
    if (r.threads[i].state == State::Ready) return int(i);
  return -1;
}

void set_current(Runtime& r, int who) {
  if (who < 0) {
    r.current = nullptr;
    return;
  }
  r.current = &r.threads[size_t(who)];
  r.tid = uint16_t(who);
  threadIdx = r.current->idx;
}

#if defined(TLEMU_BUILD_ASAN)
// AddressSanitizer must know which stack runs (its fake stacks and stack bounds).
void stack_of(Runtime& r, int who, const void*& bottom, size_t& size) {
  if (who < 0) {
    bottom = r.main_stack_bottom, size = r.main_stack_size;
  } else {
    bottom = r.threads[size_t(who)].stack_bottom, size = r.threads[size_t(who)].stack_size;
  }
}
void arrived(Runtime& r, void* fake) {
  const void* from_bottom = nullptr;
  size_t from_size = 0;
  __sanitizer_finish_switch_fiber(fake, &from_bottom, &from_size);
  if (r.from < 0) r.main_stack_bottom = const_cast<void*>(from_bottom), r.main_stack_size = from_size;
}
#endif

// Switches from `me` to `to` (either may be -1, the scheduler); returns when `me` runs again.
void transfer(Runtime& r, int me, int to, void** fake) {
  set_current(r, to);
  r.from = me;
#if defined(TLEMU_BUILD_ASAN)
  const void* bottom;
  size_t size;
  stack_of(r, to, bottom, size);
  __sanitizer_start_switch_fiber(fake, bottom, size);
#else
  (void)fake;
#endif
  ctx::fiber back = std::move(slot(r, to)).resume();
#if defined(TLEMU_BUILD_ASAN)
  arrived(r, *fake);
#endif
  slot(r, r.from) = std::move(back);
}

ctx::fiber thread_main(ctx::fiber&& sink) {
  Runtime& r = rt();
  const int me = r.tid;
#if defined(TLEMU_BUILD_ASAN)
  arrived(r, nullptr);
#endif
  slot(r, r.from) = std::move(sink);
  r.body(r.body_ctx);
  r.threads[size_t(me)].state = State::Done;
  const int to = next_ready(r, me);
  set_current(r, to);
  r.from = me;  // the receiver stores an empty fiber in this finished thread's slot
#if defined(TLEMU_BUILD_ASAN)
  const void* bottom;
  size_t size;
  stack_of(r, to, bottom, size);
  __sanitizer_start_switch_fiber(nullptr, bottom, size);  // this stack is done
#endif
  return std::move(slot(r, to));
}

// Every thread of the block is waiting at a barrier or has returned: check that they agree, then
// let the waiting ones go (as a GPU's bar.sync counts arrivals, whatever the call site).
void release_barrier(Runtime& r) {
  // The common case, checked first: every thread waits, all at the same call site.
  {
    const Thread* first = nullptr;
    bool uniform = true;
    int predicate = 0;
    for (const auto& t : r.threads) {
      if (t.state != State::Waiting) {
        uniform = false;
        break;
      }
      if (!first) first = &t;
      uniform = t.wait_line == first->wait_line && t.wait_file == first->wait_file;
      if (!uniform) break;
      predicate += t.predicate != 0;
    }
    if (uniform) {
      r.barrier_count = predicate;
      for (auto& t : r.threads) t.state = State::Ready;
      ++r.epoch;
      return;
    }
  }
  std::map<std::pair<const char*, int>, int> sites;
  int done = 0, predicate = 0;
  const Thread* first_done = nullptr;
  for (const auto& t : r.threads) {
    if (t.state == State::Waiting) {
      ++sites[{t.wait_file, t.wait_line}];
      predicate += t.predicate != 0;
    } else if (t.state == State::Done) {
      ++done;
      if (!first_done) first_done = &t;
    }
  }
  const std::string block = fmt_idx(blockIdx, gridDim);
  if (sites.size() > 1) {
    std::string where, key = "barrier-divergence";
    auto minority = sites.begin();
    for (auto it = sites.begin(); it != sites.end(); ++it) {
      if (it->second < minority->second) minority = it;
      where += (where.empty() ? "" : ", ") + std::to_string(it->second) + " at line " + std::to_string(it->first.second);
      key += ":" + std::to_string(it->first.second);
    }
    Finding f;
    f.kind = f.hint_code = "barrier-divergence";
    f.file = minority->first.first;
    f.line = minority->first.second;
    f.message = "threads of block " + block + " wait at different __syncthreads(): " + where +
                "; every thread of a block must reach the same barriers in the same order";
    r.add(f, key);
  }
  if (done > 0) {
    const auto& site = sites.begin()->first;
    int waiting = 0;
    for (const auto& s : sites) waiting += s.second;
    Finding f;
    f.kind = f.hint_code = "barrier-skipped";
    f.file = site.first;
    f.line = site.second;
    f.message = std::to_string(done) + " of the " + std::to_string(r.threads.size()) + " threads of block " + block +
                " (first: thread " + fmt_idx(first_done->idx, blockDim) +
                ") finished without reaching the __syncthreads() at line " + std::to_string(site.second) +
                " that the other " + std::to_string(waiting) + " wait at";
    r.add(f, "barrier-skipped:" + std::to_string(site.second));
  }
  r.barrier_count = predicate;
  for (auto& t : r.threads)
    if (t.state == State::Waiting) t.state = State::Ready;
  ++r.epoch;
}

// ---- warp-level operations: the 32 lanes of consecutive linear thread ids meet, as on a GPU ----
// A lane that reaches one waits (State::WarpWaiting) until every lane of its warp that has not
// returned waits at one too; then all of them get their results at once and go on. When no thread
// of the block can run, `forced` releases a warp whose other lanes returned (they are inactive) or
// wait at a __syncthreads(): the latter is reported, since a lane named in the mask is missing.
uint64_t warp_result(const Runtime& r, size_t base, size_t n, size_t lane, const Thread& t, uint32_t present) {
  const auto value_of = [&](size_t src) {
    return src < n && (present >> src & 1u) ? r.threads[base + src].warp_value : t.warp_value;
  };
  const size_t width = t.warp_width > 0 && t.warp_width <= 32 && (t.warp_width & (t.warp_width - 1)) == 0
                           ? size_t(t.warp_width) : 32;
  const size_t seg = lane & ~(width - 1);
  switch (t.warp_op) {
    case warp::shfl: return value_of(seg + (size_t(unsigned(t.warp_arg)) & (width - 1)));
    case warp::shfl_up: {
      const long src = long(lane) - long(unsigned(t.warp_arg));
      return src < long(seg) ? t.warp_value : value_of(size_t(src));
    }
    case warp::shfl_down: {
      const size_t src = lane + size_t(unsigned(t.warp_arg));
      return src >= seg + width ? t.warp_value : value_of(src);
    }
    case warp::shfl_xor: {
      const size_t src = lane ^ size_t(unsigned(t.warp_arg) & 31u);
      return src >= seg + width ? t.warp_value : value_of(src);
    }
    case warp::ballot:
    case warp::all:
    case warp::any: {
      uint32_t ballot = 0;
      for (size_t l = 0; l < n; ++l)
        if ((present >> l & 1u) && (t.warp_mask >> l & 1u) && r.threads[base + l].warp_value) ballot |= 1u << l;
      const uint32_t asked = t.warp_mask & present;
      if (t.warp_op == warp::ballot) return ballot;
      if (t.warp_op == warp::all) return (ballot & asked) == asked ? 1 : 0;
      return ballot != 0 ? 1 : 0;
    }
    case warp::active: return present;
    default: return 0;  // warp::sync
  }
}

bool release_warp(Runtime& r, size_t base, bool forced) {
  const size_t n = std::min<size_t>(32, r.threads.size() - base);
  uint32_t present = 0, missing = 0;
  for (size_t l = 0; l < n; ++l) {
    const State s = r.threads[base + l].state;
    if (s == State::WarpWaiting) present |= 1u << l;
    else if (s == State::Ready || (s == State::Waiting && !forced)) return false;  // not all here yet
    else if (s == State::Waiting) missing |= 1u << l;
  }
  if (!present) return false;
  uint32_t asked = 0;
  for (size_t l = 0; l < n; ++l)
    if (present >> l & 1u) asked |= r.threads[base + l].warp_mask;
  if (missing & asked) {
    const Thread& t = r.threads[base + size_t(__builtin_ctz(present))];
    Finding f;
    f.kind = f.hint_code = "barrier-divergence";
    f.file = t.wait_file;
    f.line = t.wait_line;
    f.message = "lanes of warp " + std::to_string(base / 32) + " of block " + fmt_idx(blockIdx, gridDim) +
                " wait at a __syncthreads() while the lanes named in the mask of the warp operation at line " +
                std::to_string(t.wait_line) + " wait for them there; all lanes of a mask must reach it together";
    r.add(f, "warp-divergence:" + std::to_string(t.wait_line));
  }
  for (size_t l = 0; l < n; ++l)
    if (present >> l & 1u) r.threads[base + l].warp_result = warp_result(r, base, n, l, r.threads[base + l], present);
  for (size_t l = 0; l < n; ++l)
    if (present >> l & 1u) r.threads[base + l].state = State::Ready;
  return true;
}

void run_block(Runtime& r) {
  r.block_epoch = ++r.epoch;
  const size_t n = r.threads.size();
  for (size_t i = 0; i < n; ++i) {
    Thread& t = r.threads[i];
    t.state = State::Ready;
    t.predicate = 0;
    t.fiber = ctx::fiber(std::allocator_arg, PoolAllocator{&r.stacks}, thread_main);
    t.stack_bottom = static_cast<char*>(r.stacks.last.sp) - r.stacks.last.size;
    t.stack_size = r.stacks.last.size;
  }
  for (;;) {
    const int first = next_ready(r, -1);
    if (first >= 0) {
      transfer(r, -1, first, &r.main_fake_stack);  // back when the pass is over
      continue;  // lanes a warp operation released before the pass reached them
    }
    // No thread can run: warps whose other lanes returned or wait at a barrier go on without them.
    bool released = false;
    for (size_t w = 0; w < r.threads.size(); w += 32) released = release_warp(r, w, true) || released;
    if (released) continue;
    bool waiting = false;
    for (const auto& t : r.threads) waiting = waiting || t.state == State::Waiting;
    if (!waiting) break;
    release_barrier(r);
  }
  r.current = nullptr;
}

// The first byte written after a buffer, as a student counts it: for a float matrix the element,
// its row and column as if the matrix went on (P[17][0] of a 17 x 17 P is one row too far), else
// the distance in bytes. "0 bytes past the end" read as "nothing was written out of bounds".
[[maybe_unused]] std::string overrun_element(const Buffer& b, const std::string& name, const char* at) {
  const size_t past = size_t(at - (b.ptr + b.size));
  if (b.row_length == 0 || b.size % (4 * b.row_length) != 0)
    return (past == 0 ? std::string("just past the end of ") : std::to_string(past) + " bytes past the end of ") + name +
           " (" + std::to_string(b.size) + " bytes)";
  const size_t count = b.size / 4, rows = count / b.row_length, index = size_t(at - b.ptr) / 4;
  const std::string shape = name + " (" + std::to_string(rows) + " x " + std::to_string(b.row_length) + " floats)";
  return "past the end of " + shape + ": the first element written out of bounds is " + name + "[" +
         std::to_string(index / b.row_length) + "][" + std::to_string(index % b.row_length) + "] (flat index " +
         std::to_string(index) + "; " + name + " ends at " + name + "[" + std::to_string(rows - 1) + "][" +
         std::to_string(b.row_length - 1) + "], flat index " + std::to_string(count - 1) + ")";
}

// Plain and race builds: a write into a guard zone is an overrun the launch made.
[[maybe_unused]] void check_guards(Runtime& r, const LaunchSite* site) {
  for (auto& [base, b] : r.buffers) {
    if (!b.region) continue;
    const char* end = b.ptr + (b.size + 3) / 4 * 4;
    const char* region_end = b.region + b.region_size;
    const char* before = last_dirty(b.region, b.ptr);  // the one nearest the buffer
    const char* after = first_dirty(end, region_end);
    if (!before && !after) continue;
    const std::string name = b.name.empty() ? "a cudaMalloc buffer" : b.name;
    Finding f;
    f.kind = f.hint_code = "global-overrun";
    f.file = site ? site->file : "";
    f.line = site ? site->line : 0;
    f.message = std::string("the kernel ") + (site ? site->kernel : "") + " wrote " +
                (after ? overrun_element(b, name, after) : std::to_string(b.ptr - before) + " bytes before the start of " +
                                                                  name + " (" + std::to_string(b.size) + " bytes)") +
                "; the emu-asan check names the line";
    r.add(f, "global-overrun:" + name);
    fill_guard(b.region, b.ptr);
    fill_guard(const_cast<char*>(end), b.region + b.region_size);
  }
}

// Race build: turns the records of the launch into findings, with source lines.
[[maybe_unused]] void flush_races(Runtime& r) {
  if (r.races.empty()) return;
  std::set<const void*> pcs;
  for (const auto& [k, v] : r.races) {
    pcs.insert(k.pc_now);
    if (k.pc_then) pcs.insert(k.pc_then);
  }
  auto where = symbolize(pcs);
  auto loc = [&](const void* pc) { return where.count(pc) ? where[pc] : std::pair<std::string, int>{"?", 0}; };
  // Any barrier between the two lines (in the source) means the pair is ordered by it one way
  // only: the missing barrier is the one that closes the loop, before the next overwrite.
  auto barrier_between = [&](int a, int b) {
    for (const auto& s : r.barrier_sites)
      if (s.second > std::min(a, b) && s.second < std::max(a, b)) return true;
    return false;
  };
  // Deterministic order (the map's is not): read-after-write first, then by source line, so that
  // of two findings merged below the same one is always kept.
  std::vector<std::pair<RaceKey, RaceRecord>> sorted(r.races.begin(), r.races.end());
  auto rank = [](char kind) { return std::string("RWXU").find(kind); };
  std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    const auto la = loc(a.first.pc_now), lb = loc(b.first.pc_now);
    const auto ta = loc(a.first.pc_then), tb = loc(b.first.pc_then);
    return std::make_tuple(rank(a.first.kind), la.second, ta.second, a.second.offset) <
           std::make_tuple(rank(b.first.kind), lb.second, tb.second, b.second.offset);
  });
  for (const auto& [k, v] : sorted) {
    const auto now = loc(k.pc_now), then = loc(k.pc_then);
    const std::string var = r.shared_name(v.offset);
    const std::string block = fmt_idx(v.block, v.grid);
    const std::string tn = fmt_idx(v.now, v.bdim), tt = fmt_idx(v.then, v.bdim);
    Finding f;
    f.file = now.first;
    f.line = now.second;
    f.count = v.count;
    if (k.kind == 'U') {
      f.kind = f.hint_code = "uninitialized-shared";
      f.message = "thread " + tn + " of block " + block + " reads " + var +
                  ", which no thread of this block has written (uninitialized shared memory)";
      r.add(f, "U:" + now.first + ":" + std::to_string(now.second));
      continue;
    }
    f.kind = "race";
    int wline = 0, rline = 0;
    if (k.kind == 'R') {  // read now, written then
      f.message = "thread " + tn + " of block " + block + " reads " + var + " at line " + std::to_string(now.second) +
                  " that thread " + tt + " wrote at line " + std::to_string(then.second) +
                  " with no __syncthreads() in between (read-after-write race)";
      wline = then.second, rline = now.second;
    } else if (k.kind == 'W') {  // written now, read then
      f.message = "thread " + tn + " of block " + block + " writes " + var + " at line " +
                  std::to_string(now.second) + " that thread " + tt + " read at line " + std::to_string(then.second) +
                  " with no __syncthreads() in between (write-after-read race)";
      wline = now.second, rline = then.second;
    } else {
      f.message = "threads " + tt + " and " + tn + " of block " + block + " both write " + var + " (lines " +
                  std::to_string(then.second) + " and " + std::to_string(now.second) +
                  ") with no __syncthreads() in between (write-after-write race)";
    }
    if (k.kind == 'X')
      f.hint_code = "race-write-write";
    else if (wline < rline && !barrier_between(wline, rline))
      f.hint_code = "missing-barrier-before-use";
    else
      f.hint_code = "missing-barrier-before-overwrite";
    const int a = std::min(now.second, then.second), b = std::max(now.second, then.second);
    r.add(f, "race:" + now.first + ":" + std::to_string(a) + ":" + std::to_string(b) + ":" + (k.kind == 'X' ? "X" : "RW"));
  }
  r.races.clear();
}

}  // namespace

// ---- the race detector's entry (race build): every load and store of the student's file ----
#if defined(TLEMU_BUILD_RACE)
namespace {
uintptr_t g_lo = 0, g_span = 0;  // the shared arena while a kernel runs; span 0 otherwise

__attribute__((noinline)) void access(uintptr_t a, size_t n, bool write, const void* pc) {
  Runtime& r = rt();
  const size_t off = a - g_lo;
  if (off + n > r.arena_size) n = r.arena_size - off;
  const uint16_t me = r.tid;
  const uint32_t ep = r.epoch;
  bool reported = false;
  for (size_t i = 0; i < n; ++i) {
    Cell& c = r.shadow[off + i];
    char kind = 0;
    const void* then = nullptr;
    uint16_t other = 0;
    if (!write) {
      if (c.w_epoch < r.block_epoch) {
        kind = 'U';
      } else if (c.w_epoch == ep && c.w_tid != me) {
        kind = 'R', then = c.w_pc, other = c.w_tid;
      }
      if (c.r_epoch != ep) {
        c.r_epoch = ep, c.r_tid = me, c.r_many = false, c.r_pc = pc;
      } else if (c.r_tid != me) {
        c.r_many = true;
      }
    } else {
      if (c.w_epoch == ep && c.w_tid != me) {
        kind = 'X', then = c.w_pc, other = c.w_tid;
      } else if (c.r_epoch == ep && (c.r_tid != me || c.r_many)) {
        kind = 'W', then = c.r_pc, other = c.r_tid;
      }
      c.w_epoch = ep, c.w_tid = me, c.w_pc = pc;
    }
    if (kind && !reported) {
      reported = true;
      RaceRecord& rec = r.races[RaceKey{kind, pc, then}];
      if (rec.count++ == 0) {
        rec.offset = off + i;
        rec.block = blockIdx;
        rec.now = r.threads[me].idx;
        rec.then = r.threads[other].idx;
        rec.grid = gridDim;
        rec.bdim = blockDim;
      }
    }
  }
}
}  // namespace
}  // namespace tlemu

// g++ -fsanitize=kernel-address --param asan-instrumentation-with-call-threshold=0 calls these for
// every load and store it could not prove harmless; the arena test rejects all but shared memory.
#define TLEMU_HOOKS(n)                                                                        \
  extern "C" void __asan_load##n##_noabort(uintptr_t a) {                                    \
    if (a - tlemu::g_lo < tlemu::g_span) tlemu::access(a, n, false, __builtin_return_address(0)); \
  }                                                                                           \
  extern "C" void __asan_store##n##_noabort(uintptr_t a) {                                   \
    if (a - tlemu::g_lo < tlemu::g_span) tlemu::access(a, n, true, __builtin_return_address(0)); \
  }
TLEMU_HOOKS(1)
TLEMU_HOOKS(2)
TLEMU_HOOKS(4)
TLEMU_HOOKS(8)
TLEMU_HOOKS(16)
extern "C" void __asan_loadN_noabort(uintptr_t a, size_t n) {
  if (a - tlemu::g_lo < tlemu::g_span) tlemu::access(a, n, false, __builtin_return_address(0));
}
extern "C" void __asan_storeN_noabort(uintptr_t a, size_t n) {
  if (a - tlemu::g_lo < tlemu::g_span) tlemu::access(a, n, true, __builtin_return_address(0));
}
extern "C" void __asan_handle_no_return() {}
namespace tlemu {
#endif  // TLEMU_BUILD_RACE

// ---- AddressSanitizer and UBSan (asan build): their report becomes the last finding ----
#if defined(TLEMU_BUILD_ASAN)
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
}  // namespace
}  // namespace tlemu
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:exitcode=" TILELAB_EXIT_ERROR_TEXT ":halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0";
}
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1:exitcode=" TILELAB_EXIT_ERROR_TEXT; }
namespace tlemu {
#endif  // TLEMU_BUILD_ASAN

// ---- the runner's side (runtime.hpp) ----
const char* backend_name() {
#if defined(TLEMU_BUILD_ASAN)
  return "emu-asan";
#elif defined(TLEMU_BUILD_RACE)
  return "emu-race";
#else
  return "emu";
#endif
}

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

void start_recording() {
  rt().records.clear();
  rt().recording = true;
}
std::vector<LaunchRecord> stop_recording() {
  rt().recording = false;
  return std::move(rt().records);
}

// ---- the student-facing side (tilelab_emu.h) ----
int syncthreads(const char* file, int line, int predicate) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return 0;  // called from host code: nothing to wait for
  Thread& t = *r.current;
  t.state = State::Waiting;
  t.wait_file = file;
  t.wait_line = line;
  t.predicate = predicate;
#if defined(TLEMU_BUILD_RACE)
  if (file != r.last_site_file || line != r.last_site_line) {  // a set insert per barrier is too slow
    r.last_site_file = file, r.last_site_line = line;
    r.barrier_sites.insert({file, line});
  }
#endif
  const int me = r.tid;
  transfer(r, me, next_ready(r, me), &t.asan_fake_stack);
  return r.barrier_count;
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char* file, int line) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return op == warp::ballot || op == warp::active ? 1u : value;  // host code
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
  if (!release_warp(r, size_t(me) / 32 * 32, false)) transfer(r, me, next_ready(r, me), &t.asan_fake_stack);
  // Released (by the last lane to arrive, or by the scheduler): this thread runs again.
  return r.threads[size_t(me)].warp_result;
}

void* shared_alloc(size_t bytes, size_t align, size_t elem_bytes, const int* dims, int rank, const char* name,
                   const char* file, int line) {
  Runtime& r = rt();
  align = std::max<size_t>(align, 16);
  size_t off = (r.static_used + kRedzone + align - 1) / align * align;
  if (off + bytes + kRedzone > kStaticArena) {
    std::fprintf(stderr, "%s:%d: tilelab emulator: __shared__ %s (%zu bytes) exceeds the emulator's %zu KiB arena\n",
                 file, line, name, bytes, kStaticArena / 1024);
    std::abort();
  }
  r.static_used = off + bytes;
  SharedVar v{off, bytes, std::max<size_t>(elem_bytes, 1), std::vector<int>(dims, dims + rank), name, file,
              r.site ? r.site->kernel : "", line};
  r.shared_vars.push_back(v);
#if defined(TLEMU_BUILD_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(r.arena + off, bytes);
#endif
  return r.arena + off;
}

void* dynamic_shared_base(const char* name, size_t elem_bytes) {
  Runtime& r = rt();
  r.dynamic_name = name;
  r.dynamic_elem = std::max<size_t>(elem_bytes, 1);
  return r.arena + kStaticArena;
}

void launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
                   void (*body)(void*), void* body_ctx, const void* const* pointers, int n_pointers) {
  Runtime& r = rt();
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
    f.kind = f.hint_code = "host-pointer-argument";
    f.file = site.file;
    f.line = site.line;
    f.message = "argument " + std::to_string(i + 1) + " of the pointers passed to " + site.kernel +
                " does not point into memory from cudaMalloc (a host pointer?); on a GPU the kernel fails "
                "with an illegal address";
    r.add(f, "host-pointer:" + std::to_string(site.line));
    r.sticky = cudaErrorIllegalAddress;
    return finish(cudaSuccess);  // the launch itself succeeds; the error shows at the next sync
  }

  const auto t0 = std::chrono::steady_clock::now();
  gridDim = grid;
  blockDim = block;
  r.site = &site;
  r.body = body;
  r.body_ctx = body_ctx;
  r.dynamic_bytes = dynamic_shared;
  r.dynamic_name.clear();
  r.barrier_sites.clear();
  r.last_site_file = nullptr;
  r.threads.clear();
  r.threads.resize(size_t(threads));
  for (unsigned z = 0, i = 0; z < block.z; ++z)
    for (unsigned y = 0; y < block.y; ++y)
      for (unsigned x = 0; x < block.x; ++x) r.threads[i++].idx = {x, y, z};
#if defined(TLEMU_BUILD_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(r.arena + kStaticArena, dynamic_shared);
#endif
#if defined(TLEMU_BUILD_RACE)
  g_lo = reinterpret_cast<uintptr_t>(r.arena);
  g_span = kStaticArena + dynamic_shared;
#endif
  r.in_kernel = true;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        blockIdx = {x, y, z};
        run_block(r);
      }
  r.in_kernel = false;
#if defined(TLEMU_BUILD_RACE)
  g_span = 0;
  flush_races(r);
#endif
#if defined(TLEMU_BUILD_ASAN)
  ASAN_POISON_MEMORY_REGION(r.arena + kStaticArena, dynamic_shared);
#else
  check_guards(r, &site);
#endif
  for (const auto& v : r.shared_vars)
    if (v.kernel == site.kernel) rec.static_shared += v.size;
  r.site = nullptr;
  r.threads.clear();
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  finish(cudaSuccess);
}

}  // namespace tlemu

// ---- the CUDA runtime API on host memory ----
using tlemu::rt;
using tlemu::set_error;

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define TLEMU_NAME(x) \
  case x:             \
    return #x;
    TLEMU_NAME(cudaSuccess)
    TLEMU_NAME(cudaErrorInvalidValue)
    TLEMU_NAME(cudaErrorMemoryAllocation)
    TLEMU_NAME(cudaErrorInitializationError)
    TLEMU_NAME(cudaErrorInvalidConfiguration)
    TLEMU_NAME(cudaErrorInvalidSymbol)
    TLEMU_NAME(cudaErrorInvalidDevicePointer)
    TLEMU_NAME(cudaErrorInvalidMemcpyDirection)
    TLEMU_NAME(cudaErrorInvalidDeviceFunction)
    TLEMU_NAME(cudaErrorNoDevice)
    TLEMU_NAME(cudaErrorInvalidDevice)
    TLEMU_NAME(cudaErrorInvalidResourceHandle)
    TLEMU_NAME(cudaErrorNotReady)
    TLEMU_NAME(cudaErrorIllegalAddress)
    TLEMU_NAME(cudaErrorLaunchOutOfResources)
    TLEMU_NAME(cudaErrorLaunchFailure)
    TLEMU_NAME(cudaErrorNotSupported)
    TLEMU_NAME(cudaErrorUnknown)
#undef TLEMU_NAME
  }
  return "cudaErrorUnknown";
}

// The texts of CUDA's runtime, so that a student's error messages read the same.
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unrecognized error code";
}

cudaError_t cudaGetLastError() {
  auto& r = rt();
  const cudaError_t e = r.sticky != cudaSuccess ? r.sticky : r.last_error;
  r.last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return rt().sticky != cudaSuccess ? rt().sticky : rt().last_error; }
cudaError_t cudaDeviceSynchronize() {
  TLEMU_STICKY();
  return cudaSuccess;
}
cudaError_t cudaDeviceReset() {
  rt().sticky = rt().last_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (!p) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "tilelab CPU emulator (NVIDIA H100-like limits)");
  p->totalGlobalMem = 80ull << 30;
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->clockRate = 1980000;
  p->totalConstMem = 65536;
  p->major = 9, p->minor = 0;
  p->multiProcessorCount = 132;
  p->memoryClockRate = 2619000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 233472;
  p->regsPerMultiprocessor = 65536;
  p->sharedMemPerBlockOptin = tlemu::kMaxSharedPerBlock;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->concurrentKernels = 1;
  p->deviceOverlap = 1;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value || device != 0) return set_error(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    default: return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t tlemu_func_set_attribute(const void* key, cudaFuncAttribute attr, int value) {
  if (!key) return set_error(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize && (value < 0 || size_t(value) > tlemu::kMaxSharedPerBlock))
    return set_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  TLEMU_STICKY();
  if (!ptr) return set_error(cudaErrorInvalidValue);
  // More than the emulated device holds fails as it would on the GPU, before any guard zone
  // (as large as the request) is touched.
  if (size > (80ull << 30)) {
    *ptr = nullptr;
    return set_error(cudaErrorMemoryAllocation);
  }
  auto& r = rt();
  tlemu::Buffer b{};
  b.size = size;
#if defined(TLEMU_BUILD_ASAN)
  // Exact size: AddressSanitizer's redzones start at the first byte past the end.
  b.ptr = static_cast<char*>(std::malloc(std::max<size_t>(size, 1)));
  if (!b.ptr) return set_error(cudaErrorMemoryAllocation);
#else
  // The buffer ends exactly where a NaN-filled guard zone starts; another guard zone precedes it.
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  const size_t guard = std::max(tlemu::kGuardMin, (size + page - 1) / page * page);
  const size_t body = (size + 255) / 256 * 256;
  b.region_size = guard + body + guard;
  void* p = ::mmap(nullptr, b.region_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return set_error(cudaErrorMemoryAllocation);
  b.region = static_cast<char*>(p);
  // 16-byte aligned (float4 loads), ending at most 15 bytes before the guard zone; those bytes
  // are checked like the guard zone.
  b.ptr = b.region + guard + body - (size + 15) / 16 * 16;
  tlemu::fill_guard(b.region, b.region + b.region_size);
#endif
  r.buffers[reinterpret_cast<uintptr_t>(b.ptr)] = b;
  *ptr = b.ptr;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  TLEMU_STICKY();
  if (!ptr) return cudaSuccess;
  auto& r = rt();
  auto it = r.buffers.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == r.buffers.end()) return set_error(cudaErrorInvalidValue);
#if defined(TLEMU_BUILD_ASAN)
  std::free(it->second.ptr);
#else
  tlemu::check_guards(r, nullptr);
  ::munmap(it->second.region, it->second.region_size);
#endif
  r.buffers.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (!ptr) return set_error(cudaErrorInvalidValue);
  *ptr = std::malloc(std::max<size_t>(size, 1));
  if (!*ptr) return set_error(cudaErrorMemoryAllocation);
  rt().pinned[reinterpret_cast<uintptr_t>(*ptr)] = size;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (!rt().pinned.erase(reinterpret_cast<uintptr_t>(ptr))) return set_error(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

namespace {
// A device-side range must lie inside one cudaMalloc buffer, as the CUDA runtime requires.
bool device_range(const void* p, size_t n) { return rt().find_buffer(p, n) != nullptr; }
}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  TLEMU_STICKY();
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return set_error(cudaErrorInvalidValue);
  bool dst_dev = false, src_dev = false;
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: dst_dev = true; break;
    case cudaMemcpyDeviceToHost: src_dev = true; break;
    case cudaMemcpyDeviceToDevice: dst_dev = src_dev = true; break;
    case cudaMemcpyDefault:
      dst_dev = rt().find_buffer(dst, 0) != nullptr;
      src_dev = rt().find_buffer(src, 0) != nullptr;
      break;
    default: return set_error(cudaErrorInvalidMemcpyDirection);
  }
  if ((dst_dev && !device_range(dst, count)) || (src_dev && !device_range(src, count)))
    return set_error(cudaErrorInvalidValue);
  std::memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  TLEMU_STICKY();
  if (count == 0) return cudaSuccess;
  if (!device_range(ptr, count)) return set_error(cudaErrorInvalidValue);
  std::memset(ptr, value, count);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t) { return cudaMemset(ptr, value, count); }

// Streams and events: work runs to completion at the launch, so every stream is idle.
struct CUstream_st {};
struct CUevent_st {
  std::chrono::steady_clock::time_point t;
  bool recorded = false;
};
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return set_error(cudaErrorInvalidValue);
  *s = new CUstream_st;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int /*flags: every stream is in order here*/) {
  return cudaStreamCreate(s);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  TLEMU_STICKY();
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return set_error(cudaErrorInvalidValue);
  *e = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return set_error(cudaErrorInvalidResourceHandle);
  e->t = std::chrono::steady_clock::now();
  e->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { return e ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventQuery(cudaEvent_t e) { return e ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b) return set_error(cudaErrorInvalidValue);
  if (!a->recorded || !b->recorded) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}
