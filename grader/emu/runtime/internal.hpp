// The emulator runtime's private header: the state every part of the runtime shares (the Runtime
// object, its buffers, shared variables and emulated threads) and the interfaces between its files.
// Nothing outside grader/emu/runtime/ includes it; the runner sees runtime.hpp, the student's file
// tilelab_emu.h.
//
// The files (docs/architecture.md, "The emulator's builds"):
//   core.cpp        built-in variables, the Runtime object, the runner's side (runtime.hpp) and
//                   the student-facing side (tilelab_emu.h): barriers, warp operations, shared
//                   memory, the launch
//   scheduler.cpp   one context (stack) per CUDA thread, barrier and warp-operation release
//   context.cpp     the context switch (context.hpp)
//   cuda_api.cpp    the CUDA runtime API on host memory
//   occupancy.cpp   the occupancy calculator and cudaFuncGetAttributes (tilelab_emu_occupancy.h)
//   wmma.cpp        tensor cores (nvcuda::wmma): the warp-wide collective, its checks, mma_sync's product
//   ptx.cpp         the kit's PTX wrappers (tilelab_emu_ptx.h): cp.async's copies in flight, ldmatrix
//   guard_zones.cpp device memory of the builds without AddressSanitizer: NaN-filled guard zones
//   symbolize.cpp   code addresses to file:line (addr2line), for builds that record accesses
//   indirect_branch.cpp  the check of the student's calls through pointers (__x86_indirect_thunk_*)
//   hooks_<build>.cpp  what differs per build (plain, asan, race, count): the interface `hooks` below.
// CMake (grader/cmake/TilelabEmu.cmake) compiles the common files plus one build's hooks file
// (and its helpers, e.g. guard_zones.cpp) into tilelab_emu_rt_<build>; there are no #if blocks.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "context.hpp"
#include "progress.hpp"
#include "runtime.hpp"
#include "tilelab_emu_ptx_calls.h"
#include "tilelab_emu_wmma_layout.h"

// Calls through pointers (indirect_branch.cpp): returns when `target` is a function's entry in the
// runner (or a shared library's code), else ends the run with the fatal finding hidden-code; `from`,
// a return address, names the caller's line.
extern "C" void tlemu_indirect_target_check(uintptr_t target, uintptr_t from);

namespace tlemu {

// H100 SXM limits: what a launch is validated against and what cudaGetDeviceProperties reports.
constexpr size_t kMaxSharedPerBlock = 232448;  // opt-in maximum, static + dynamic
constexpr size_t kStaticArena = 256 * 1024;    // room for every __shared__ variable of a program
constexpr size_t kRedzone = 64;                // between two __shared__ variables

std::string fmt_idx(uint3 v, dim3 extent);

// ---- device memory ----
struct Buffer {
  char* ptr;
  size_t size;
  char* region;  // mapping holding the buffer and its guard zones (builds with guard zones)
  size_t region_size;
  std::string name;
  size_t row_length = 0;  // of a float matrix, when the runner named one
};

struct SharedVar {
  size_t offset, size, elem;
  std::vector<int> dims;
  std::string name, file, kernel;
  int line;
  bool read = true;  // false: the kernel never reads it (rewrite_shared.cpp), so nvcc would allocate nothing
};

// ---- the emulated threads of the block that runs ----
enum class State : char { Ready, Waiting, WarpWaiting, Done };

// What the scheduler reads at every switch and barrier comes first (one cache line).
struct Thread {
  context::Handle context = nullptr;  // this thread's saved context while it does not run
  State state = State::Ready;
  int wait_line = 0;
  const char* wait_file = nullptr;
  int predicate = 0;
  uint3 idx;
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

// The threads' stacks, mapped once and reused by every block and launch: thread i runs on stack i.
struct Stack {
  char* bottom;  // the mapping's start: its first page is a guard page (an overflow faults)
  size_t size;   // from bottom to the top of the stack
};
struct StackPool {
  std::vector<Stack> stacks;
  const Stack& at(size_t i);  // maps stacks up to i the first time
  ~StackPool();
};

struct Runtime {
  cudaError_t last_error = cudaSuccess;
  cudaError_t sticky = cudaSuccess;
  std::map<uintptr_t, Buffer> buffers;  // by start address
  std::map<uintptr_t, size_t> pinned;   // cudaMallocHost: host memory kernels may use (UVA)
  bool pinned_at(const void* p) const;

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
  int observe_at = 0, launches_seen = 0;  // observe_launch(): the launch not run, the launches run so far
  bool observed = false;
  LaunchRecord observed_record;
  uint64_t sample_seed = 0;    // set_sample_seed(): which blocks the count build counts
  bool count_every_block = false;  // set_sample_seed(): all of them
  uintptr_t product = 0;       // set_product(): the P the launches write
  size_t product_bytes = 0;
  uintptr_t watched = 0;       // watch_host_copies(): P of the run
  size_t watched_bytes = 0, host_copies = 0;
  // Host code storing through a device pointer (which a GPU does not allow: the worker crashes
  // there): while recording, a fingerprint of every buffer is taken after each device operation
  // and compared before the next one and at the end (DeviceOp, core.cpp).
  uint64_t device_print = 0;
  size_t host_stores = 0;
  // DeviceAccess: how many are open, and whether device memory is protected outside them (from
  // the end of the first device operation on).
  int device_open = 0;
  bool device_sealed = false;
  std::function<void(const MemoryEvent&)> memory_observer;  // set_memory_observer()
  void observe(const MemoryEvent& e) {
    if (memory_observer) memory_observer(e);
  }

  // The launch that runs.
  bool in_kernel = false;
  const LaunchSite* site = nullptr;
  std::vector<Thread> threads;
  Thread* current = nullptr;
  uint16_t tid = 0;
  int from = -1;          // who switched last (-1: the scheduler)
  context::Handle main_context = nullptr;  // the scheduler's, while a thread runs
  void (*body)(void*) = nullptr;
  void* body_ctx = nullptr;
  int barrier_count = 0;  // predicate count of the last barrier released
  // The __syncthreads() calls since the last barrier release (syncthreads() counts them): when
  // every thread of the block has called one, all at the first caller's site, the scheduler
  // releases them without looking at each thread's state first (release_barrier's common case,
  // decided in O(1) instead of three passes over the block).
  struct Arrivals {
    size_t count = 0;
    const char* file = nullptr;  // the first caller's site
    int line = 0;
    bool one_site = true;  // every caller so far at that site
    int predicate = 0;     // callers whose predicate was nonzero
  } arrivals;
  // The block that runs is run as loops by its thread 0 (scheduler.cpp, run_as_loops); set from
  // loops_offered() to the block's end.
  bool loops = false;
  StackPool stacks;
  void* main_stack_bottom = nullptr;
  size_t main_stack_size = 0;
  void* main_fake_stack = nullptr;
  // Barrier intervals: epoch grows at every barrier release; block_epoch is the first of the block.
  uint32_t epoch = 0, block_epoch = 0;
  // __syncwarp()s each warp of the block has completed (by warp index, tid / 32; never reset: the
  // race build compares them only within one barrier interval). A warp's lanes' shared accesses on
  // either side of one are ordered, as CUDA's memory model orders them.
  std::vector<uint32_t> warp_syncs = std::vector<uint32_t>(32, 0);
  // How far the launch has got (progress.hpp): the judge's shared page, or a private one.
  Progress* progress = nullptr;

  Runtime();
  void add(Finding f, const std::string& key);
  Buffer* find_buffer(const void* p, size_t n);
  // The __shared__ variable holding arena offset `off`, and the element index it names.
  std::string shared_name(size_t off) const;
  // A description of an address outside every buffer and variable: which one it is next to.
  std::string describe_outside(uintptr_t a, bool& shared) const;
};

Runtime& rt();
cudaError_t set_error(cudaError_t e);

// ---- progress (core.cpp): what the judge reads when a run passes its time limit ----
int64_t now_ns();
Progress* progress_page();
void progress_thread_done(Runtime& r);
void progress_barrier(Runtime& r, const char* file, int line);  // a barrier at file:line was released

// The current thread arrives at the barrier at file:line: its state, the block's count (core.cpp).
void arrive(Runtime& r, const char* file, int line, int predicate);

// ---- the scheduler (scheduler.cpp) ----
// The running thread (r.tid), its state saying why it waits, hands the CPU to the next ready thread
// in index order, or to the scheduler when the pass is over; returns when it runs again.
void yield(Runtime& r);
// Releases warp `base` /32 if all its lanes wait at a warp operation (forced: or returned/wait at a barrier).
bool release_warp(Runtime& r, size_t base, bool forced);
// Runs every thread of the block blockIdx to completion.
void run_block(Runtime& r);

// ---- tensor cores (wmma.cpp) ----
// Warp `base` / 32 is released with `wmma_lanes` (of `present`, the lanes at warp operations) at wmma
// calls; `at_barrier`: lanes waiting at a __syncthreads() instead, `done`: lanes that returned; n: the
// warp's lanes that exist. Reports the lanes not at each call and the calls' argument errors, and
// computes mma_sync's product into each lane's d.
void release_wmma(Runtime& r, size_t base, size_t n, uint32_t present, uint32_t wmma_lanes, uint32_t at_barrier,
                  uint32_t done);
// What lane `lane` of warp `base` / 32 brought to the wmma call it waits at.
const wmma::Call& call_of(const Runtime& r, size_t base, size_t lane);
// "matrix M + 12 elements", "sA[3][4]", "address 0x...": where p lies, for a finding's message.
std::string where_text(Runtime& r, const void* p, size_t elem_bytes);
// A finding of `kind` (also its hint code) at file:line.
Finding wmma_finding(const char* kind, const char* file, int line, std::string message);

// ---- the kit's PTX wrappers (ptx.cpp) ----
// ldmatrix_x4 at file:line, the lanes of `group` (all of warp base / 32 but those reported as
// divergent) there: checks each lane's row address and fills each lane's four source addresses.
void release_ldmatrix(Runtime& r, size_t base, uint32_t group, const char* file, int line);
// What unwritten shared memory holds in the race build (hooks_race.cpp), and a cp_async_16
// destination until its copy lands (ptx.cpp).
constexpr uint32_t kUnwrittenShared = ptx::kUnlandedBits;

// A fatal finding (core.cpp): added, reported as the sanitizers' are (Runtime::fatal), printed, and
// the run ended with the runner's error code.
[[noreturn]] void end_with_finding(Runtime& r, const Finding& f, const std::string& key);

// ---- code addresses to source lines (symbolize.cpp) ----
// Return addresses (of instrumentation callbacks) to {file, line} of the access before each.
// return_addresses: the pcs are return addresses (the call is the instruction before), not exact.
std::map<const void*, std::pair<std::string, int>> symbolize(const std::set<const void*>& pcs,
                                                              bool return_addresses = true);

// ---- the per-build hooks: one hooks_<build>.cpp per build ----
// Each build of the runtime links exactly one file that defines every function below; the common
// files call them at fixed points and know nothing else about the build. To add a build (e.g. a
// tracing or counting one): write hooks_<name>.cpp defining all of them, and list it with the
// student file's compile flags in TilelabEmu.cmake. A build that observes the student's loads and
// stores compiles the student's file with the race build's flags and defines the callbacks with
// TLEMU_ACCESS_CALLBACKS (instrument.hpp).
namespace hooks {
const char* backend_name();  // "emu", "emu-asan", "emu-race", ...: runtime.hpp's backend_name()
size_t stack_bytes();        // each emulated thread's stack (AddressSanitizer's frames are large)

void runtime_created(Runtime& r);  // once, after the shared arena is mapped
// A __shared__ variable was placed at arena offset `off` (the first time its declaration ran).
void shared_declared(Runtime& r, size_t off, size_t bytes);

// A launch that passed CUDA's checks: before its first block, after its last block.
void launch_begin(Runtime& r, size_t dynamic_shared);
void launch_end(Runtime& r, const LaunchSite& site, size_t dynamic_shared);
// A block of the launch: before its first thread runs (blockIdx is set), after its last returned.
void block_begin(Runtime& r);
void block_end(Runtime& r);
// A thread of the block reached __syncthreads() at file:line (before it waits).
void barrier(Runtime& r, const char* file, int line);

// Fiber switches (AddressSanitizer must know which stack runs): `to` is the thread about to run
// (-1: the scheduler); `fake` the leaving side's fake-stack slot (nullptr: its stack is done).
void switch_start(Runtime& r, int to, void** fake);
// On the side that runs again, right after the switch; `fake` as saved by switch_start.
void switch_finish(Runtime& r, void* fake);
// The stack of the thread about to run, [lo, lo + span), for the builds that judge every access but
// the thread's own locals (race, count); span 0 for the scheduler (`to` -1).
inline void running_stack(const Runtime& r, int to, uintptr_t& lo, uintptr_t& span) {
  if (to < 0) {
    lo = span = 0;
    return;
  }
  const Thread& t = r.threads[size_t(to)];
  lo = reinterpret_cast<uintptr_t>(t.stack_bottom);
  span = t.stack_size;
}

// cudaMalloc's buffer of `size` bytes: sets b.ptr (and b.region); false when out of memory. These
// two are guard_zones.cpp's in every build that links it, hooks_asan.cpp's in the asan build.
bool alloc_buffer(Buffer& b, size_t size);
// cudaFree (after the runtime's own checks); the buffer is forgotten after this.
void free_buffer(Runtime& r, Buffer& b);

// Optional (a weak default in core.cpp returns false): runtime.hpp's take_counts().
bool take_counts(TrafficCounts& out);
// Optional (a weak default in core.cpp does nothing): a warp's mma_sync of an m x n x k product ran,
// the warp's threads from `base` on; frag[0..2]: the lead lane's d, a and b fragments (their storage)
// and regs[0..2] the 32-bit registers each holds per lane.
void tensor_op(Runtime& r, size_t base, int m, int n, int k, const void* const frag[3], const int regs[3]);
// Optional (a weak default in core.cpp does nothing): the warp's mma_sync (the lanes of `group`,
// call_of's calls) is about to compute (after = false: c is read, d not yet written) or has
// computed (after = true: d written).
void accumulator(Runtime& r, size_t base, uint32_t group, bool after);
// Optional (a weak default in core.cpp does nothing): the running thread started a cp_async_16 of
// `bytes` into shared memory at `dst` (inside the arena) at code address pc; its data lands at the
// cp_async_wait that covers it (ptx.cpp), as a store the student's file makes.
void async_copy_issued(Runtime& r, void* dst, size_t bytes, const void* pc);
}  // namespace hooks

// ---- device memory unreachable from host code (issue #39, family 3) ----
// Device memory is the cudaMalloc buffers (with their guard zones, in the builds that have them:
// the asan build's buffers are malloc memory, which cannot be protected on its own) and the
// __device__, __constant__ and __managed__ variables (the section tlemu_device_vars, which the
// rewriter gives them: tilelab_emu.h, TLEMU_DEVICE_VAR). It is readable and writable only inside a
// DeviceAccess: a launch, the runtime's copies and sets, its own checks; once the first device
// operation has ended, every page of it is PROT_NONE whenever none is open, so host code that
// dereferences device memory faults, as on a GPU, and the fault is a finding
// (host-accessed-device, core.cpp) instead of a product the host computed from M and N read in
// place. Toggled once per operation (an mprotect per buffer), never per access.
struct DeviceAccess {
  explicit DeviceAccess(Runtime& r);
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
  Runtime& r;
};
// The section of the __device__ variables, whole pages: [begin, end), empty when it has none.
std::pair<char*, char*> device_vars();
// Runtime(): a fault on protected device memory in host code becomes the finding host-accessed-device.
void install_device_fault_handler();

// Brackets an operation that changes device memory legitimately (a launch, a copy, a set, an
// allocation): what changed between two of them was stored by the host (Runtime::host_stores).
// Device memory is open (DeviceAccess) for as long as it lasts.
struct DeviceOp {
  explicit DeviceOp(Runtime& r);
  ~DeviceOp();
  Runtime& r;
  DeviceAccess open;  // a member: opened before the constructor's fingerprint, closed after the destructor's
};

}  // namespace tlemu
