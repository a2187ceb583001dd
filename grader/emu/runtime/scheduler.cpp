// The emulator's scheduler: one context (context.hpp) per CUDA thread, the blocks of a launch in
// order, barrier checks, and warp-level operations (the 32 lanes of consecutive linear thread ids
// meet, as on a GPU).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "internal.hpp"
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

namespace tlemu {

// ---- thread stacks ----
StackPool::~StackPool() {
  for (const auto& s : stacks) ::munmap(s.bottom, hooks::stack_bytes());
}

const Stack& StackPool::at(size_t i) {
  while (stacks.size() <= i) {
    const size_t bytes = hooks::stack_bytes();
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(p, size_t(::sysconf(_SC_PAGESIZE)), PROT_NONE);  // a guard page: overflow faults
    // Tops of stack staggered by 64-byte steps: stacks all aligned alike would make every
    // thread's hot frames compete for the same L1 cache sets.
    const size_t stagger = 64 * (stacks.size() % 61);
    stacks.push_back({static_cast<char*>(p), bytes - stagger});
  }
  return stacks[i];
}

// ---- the scheduler ----
// Control passes directly from one thread to the next ready one (one context switch per thread
// and barrier, not two): each pass runs the ready threads in index order, the last one hands back
// to the scheduler, which then releases the barrier. Whoever switches sets r.from to itself
// (-1: the scheduler), for the hooks of the side that resumes. This path runs at every barrier of
// every thread (about 135 million times for a 1024^3 product in 16 x 16 tiles): it is kept short.
namespace {
int next_ready(const Runtime& r, int after) {
  for (size_t i = size_t(after + 1); i < r.threads.size(); ++i)
    if (r.threads[i].state == State::Ready) return int(i);
  return -1;
}

context::Handle& context_of(Runtime& r, int who) {
  return who < 0 ? r.main_context : r.threads[size_t(who)].context;
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

// The thread that will probably run after `who` (the next in index order): its saved frame is
// fetched toward the cache while `who` runs, so the next switch does not wait for it.
__attribute__((always_inline)) inline void prefetch_after(const Runtime& r, int who) {
  const size_t next = size_t(who + 1);
  if (who >= 0 && next < r.threads.size()) context::prefetch(r.threads[next].context);
}

// Switches from `me` to `to` (either may be -1, the scheduler); returns when `me` runs again.
// fake: the leaving side's fake-stack slot for the hooks; nullptr when its stack is done (it never
// runs again: a finished thread's context is made afresh for the next block).
__attribute__((always_inline)) inline void transfer(Runtime& r, int me, int to, void** fake) {
  set_current(r, to);
  r.from = me;
  hooks::switch_start(r, to, fake);
  prefetch_after(r, to);
  context::swap(&context_of(r, me), context_of(r, to));
  hooks::switch_finish(r, fake ? *fake : nullptr);
}
}  // namespace

void yield(Runtime& r) {
  const int me = r.tid;
  transfer(r, me, next_ready(r, me), &r.threads[size_t(me)].asan_fake_stack);
}

namespace {
// Where each thread starts (context::make): runs the kernel's body, then hands over for good.
void thread_main() {
  Runtime& r = rt();
  const int me = r.tid;
  hooks::switch_finish(r, nullptr);
  r.body(r.body_ctx);
  if (r.threads[size_t(me)].state != State::Done) {  // Done already: it ran its block as loops
    r.threads[size_t(me)].state = State::Done;
    progress_thread_done(r);
  }
  transfer(r, me, next_ready(r, me), nullptr);
  __builtin_unreachable();
}

// Every thread of the block is waiting at a barrier or has returned: check that they agree, then
// let the waiting ones go (as a GPU's bar.sync counts arrivals, whatever the call site).
void release_barrier(Runtime& r) {
  const Runtime::Arrivals arrived = r.arrivals;
  r.arrivals = {};
  // The common case, known from syncthreads()'s count: every thread waits, all at the first one's
  // call site (no thread can have returned or be at a warp operation: each of the n threads called
  // __syncthreads() once since the last release and waits there until this one).
  if (arrived.count > 0 && arrived.count == r.threads.size() && arrived.one_site) {
    progress_barrier(r, arrived.file, arrived.line);
    r.barrier_count = arrived.predicate;
    for (auto& t : r.threads) t.state = State::Ready;
    ++r.epoch;
    return;
  }
  // Otherwise (threads that returned, or at different sites) each thread's state tells.
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
    f.kind = f.hint_code = tilelab::findings::kBarrierDivergence;
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
    f.kind = f.hint_code = tilelab::findings::kBarrierSkipped;
    f.file = site.first;
    f.line = site.second;
    f.message = std::to_string(done) + " of the " + std::to_string(r.threads.size()) + " threads of block " + block +
                " (first: thread " + fmt_idx(first_done->idx, blockDim) +
                ") finished without reaching the __syncthreads() at line " + std::to_string(site.second) +
                " that the other " + std::to_string(waiting) + " wait at";
    r.add(f, "barrier-skipped:" + std::to_string(site.second));
  }
  if (!sites.empty()) progress_barrier(r, sites.begin()->first.first, sites.begin()->first.second);
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

}  // namespace

bool release_warp(Runtime& r, size_t base, bool forced) {
  const size_t n = std::min<size_t>(32, r.threads.size() - base);
  uint32_t present = 0, missing = 0, done = 0, wmma_lanes = 0;
  for (size_t l = 0; l < n; ++l) {
    const State s = r.threads[base + l].state;
    if (s == State::WarpWaiting) present |= 1u << l;
    else if (s == State::Ready || (s == State::Waiting && !forced)) return false;  // not all here yet
    else if (s == State::Waiting) missing |= 1u << l;
    else done |= 1u << l;
    if (s == State::WarpWaiting && r.threads[base + l].warp_op == warp::wmma) wmma_lanes |= 1u << l;
  }
  if (!present) return false;
  // Lanes at wmma calls (wmma.cpp): their own checks (no lane may be missing) and mma's product.
  if (wmma_lanes) release_wmma(r, base, n, present, wmma_lanes, missing, done);
  const uint32_t others = present & ~wmma_lanes;  // at shuffles, votes, __syncwarp
  uint32_t asked = 0;
  for (size_t l = 0; l < n; ++l)
    if (others >> l & 1u) asked |= r.threads[base + l].warp_mask;
  if (missing & asked) {
    const Thread& t = r.threads[base + size_t(__builtin_ctz(others))];
    Finding f;
    f.kind = f.hint_code = tilelab::findings::kBarrierDivergence;
    f.file = t.wait_file;
    f.line = t.wait_line;
    f.message = "lanes of warp " + std::to_string(base / 32) + " of block " + fmt_idx(blockIdx, gridDim) +
                " wait at a __syncthreads() while the lanes named in the mask of the warp operation at line " +
                std::to_string(t.wait_line) + " wait for them there; all lanes of a mask must reach it together";
    r.add(f, "warp-divergence:" + std::to_string(t.wait_line));
  }
  for (size_t l = 0; l < n; ++l)
    if (others >> l & 1u) r.threads[base + l].warp_result = warp_result(r, base, n, l, r.threads[base + l], others);
  if (others && r.threads[base + size_t(__builtin_ctz(others))].warp_op == warp::sync) ++r.warp_syncs[base / 32];
  for (size_t l = 0; l < n; ++l)
    if (present >> l & 1u) r.threads[base + l].state = State::Ready;
  r.progress->last_progress_ns = now_ns();  // a warp operation done is progress too (progress.hpp)
  return true;
}

// ---- threads as loops between barriers (tilelab_emu.h, run_as_loops) ----
// Thread 0 of a block runs every thread itself, in the order the passes above run them; each step
// records the same states (arrive(), Done), so release_barrier judges and releases as it does here.
bool loops_offered() {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current || r.tid != 0 || r.loops) return false;
  r.loops = true;
  return true;
}

size_t loop_threads() { return rt().threads.size(); }

bool loop_select(size_t t) {
  Runtime& r = rt();
  if (r.threads[t].state != State::Ready) return false;
  set_current(r, int(t));
  return true;
}

void loop_arrive(const char* file, int line) { arrive(rt(), file, line, 0); }

void loop_finished(size_t t) {
  Runtime& r = rt();
  r.threads[t].state = State::Done;
  progress_thread_done(r);
}

bool loop_release() {
  Runtime& r = rt();
  bool waiting = false;
  for (const auto& t : r.threads) waiting = waiting || t.state == State::Waiting;
  if (waiting) {
    release_barrier(r);
    return true;
  }
  set_current(r, 0);  // thread 0's body returns to thread_main
  return false;
}

void run_block(Runtime& r) {
  r.block_epoch = ++r.epoch;
  const size_t n = r.threads.size();
  for (size_t i = 0; i < n; ++i) {
    Thread& t = r.threads[i];
    t.state = State::Ready;
    t.predicate = 0;
    const Stack& s = r.stacks.at(i);
    t.context = context::make(s.bottom + s.size, s.size, thread_main);
    t.stack_bottom = s.bottom;
    t.stack_size = s.size;
  }
  r.arrivals = {};
  hooks::block_begin(r);
  for (;;) {
    // Every thread waits at a __syncthreads() (syncthreads()'s count): none can run, no warp
    // operation waits, so the pass below would find nothing but the barrier to release.
    if (n > 0 && r.arrivals.count == n) release_barrier(r);
    // One look at every thread per pass (this loop runs at every barrier of every block): the
    // first that can run, else whether warp operations or a barrier hold the others.
    int first = -1;
    bool warp_waiting = false, waiting = false;
    for (size_t i = 0; i < n && first < 0; ++i) {
      const State s = r.threads[i].state;
      if (s == State::Ready) first = int(i);
      warp_waiting = warp_waiting || s == State::WarpWaiting;
      waiting = waiting || s == State::Waiting;
    }
    if (first >= 0) {
      transfer(r, -1, first, &r.main_fake_stack);  // back when the pass is over
      continue;  // lanes a warp operation released before the pass reached them
    }
    // No thread can run: warps whose other lanes returned or wait at a barrier go on without them.
    if (warp_waiting) {
      bool released = false;
      for (size_t w = 0; w < n; w += 32) released = release_warp(r, w, true) || released;
      if (released) continue;
    }
    if (!waiting) break;
    release_barrier(r);
  }
  r.current = nullptr;
  r.loops = false;
  hooks::block_end(r);
}

}  // namespace tlemu
