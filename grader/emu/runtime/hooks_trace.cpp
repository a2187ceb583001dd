// The trace build's hooks (internal.hpp, namespace hooks; what is recorded: trace.hpp). The student's
// file is compiled as for the race build (instrument.hpp), with its TILE_WIDTH set to 2 by the
// rewriter, and run by the trace runner on the book's tiny examples. Every 4-byte load and store
// that touches shared memory or a cudaMalloc buffer (its guard zones included) is kept, in the
// order the emulator runs them; device memory has guard zones, as in the plain build, so an overrun
// reads NaN and is named (M[4][0]) rather than faulting.
//
// A store's value is not known when its callback runs (before the store): it is read back at the
// thread's next access, at its next __syncthreads() or at the end of the block, whichever comes first.
#include <cmath>
#include <cstring>

#include "../trace.hpp"
#include "guard_zones.hpp"
#include "instrument.hpp"
#include "internal.hpp"

namespace tlemu {
namespace {

struct Pending {
  size_t event;
  uintptr_t address;
};

struct TraceState {
  std::vector<trace::Access> events;
  std::vector<const void*> pcs;                 // events[i]'s return address into the student's code
  std::vector<std::vector<Pending>> pending;    // per thread of the block: stores to read back
  std::vector<int> barriers;                    // per thread of the block: __syncthreads() passed
  int launch = 0;
};
TraceState& state() {
  static TraceState* s = new TraceState();  // never destroyed, like the Runtime
  return *s;
}

bool g_tracing = false;  // a launch runs

void read_back(TraceState& s, size_t tid) {
  if (tid >= s.pending.size()) return;
  for (const Pending& p : s.pending[tid]) std::memcpy(&s.events[p.event].value, reinterpret_cast<const void*>(p.address), 4);
  s.pending[tid].clear();
}

// "M[1][2]" for a float element of a buffer the runner named with its row length (as if the matrix
// went on past either end), "name[i]" otherwise; false when `a` is in no buffer nor its guard zones.
bool name_global(Runtime& r, uintptr_t a, std::string& element, bool& inside) {
  for (const auto& [base, b] : r.buffers) {
    const auto lo = reinterpret_cast<uintptr_t>(b.region ? b.region : b.ptr);
    const size_t span = b.region ? b.region_size : b.size;
    if (a < lo || a >= lo + span) continue;
    const long long index = ((long long)a - (long long)base) >> 2;  // floor division by 4
    inside = a >= base && a < base + b.size;
    const std::string name = b.name.empty() ? "buffer" : b.name;
    if (b.row_length == 0) {
      element = name + "[" + std::to_string(index) + "]";
    } else {
      const long long n = (long long)b.row_length;
      const long long row = index >= 0 ? index / n : -((-index + n - 1) / n);
      element = name + "[" + std::to_string(row) + "][" + std::to_string(index - row * n) + "]";
    }
    return true;
  }
  return false;
}

__attribute__((noinline)) void access(uintptr_t a, size_t n, bool write, const void* pc) {
  Runtime& r = rt();
  TraceState& s = state();
  if (!r.current) return;  // not a thread of the kernel (host code between launches)
  read_back(s, r.tid);
  const auto lo = reinterpret_cast<uintptr_t>(r.arena);
  const bool shared = a >= lo && a < lo + kStaticArena + r.dynamic_bytes;
  for (size_t at = 0; at + 4 <= n || (at == 0 && n < 4); at += 4) {  // one event per float
    const uintptr_t e = a + at;
    trace::Access ev;
    if (shared) {
      ev.element = r.shared_name(e - lo);  // outside every __shared__ variable: a sentence saying where
      ev.inside = ev.element.find(' ') == std::string::npos;
      ev.kind = write ? 's' : 'l';
    } else {
      if (!name_global(r, e, ev.element, ev.inside)) return;  // a local, host memory: not the book's
      ev.kind = write ? 'S' : 'L';
    }
    ev.launch = s.launch;
    ev.block = blockIdx;
    ev.thread = r.threads[r.tid].idx;
    ev.barriers = r.tid < s.barriers.size() ? s.barriers[r.tid] : 0;
    if (n < 4) {
      ev.value = std::nanf("");
    } else if (write) {
      s.pending[r.tid].push_back({s.events.size(), e});
    } else {
      std::memcpy(&ev.value, reinterpret_cast<const void*>(e), 4);
    }
    s.events.push_back(std::move(ev));
    s.pcs.push_back(pc);
    if (n < 4) break;
  }
}

}  // namespace

namespace trace {
std::vector<Access> take() {
  TraceState& s = state();
  std::set<const void*> pcs(s.pcs.begin(), s.pcs.end());
  pcs.erase(nullptr);
  const auto where = symbolize(pcs);
  for (size_t i = 0; i < s.events.size(); ++i) {
    auto it = where.find(s.pcs[i]);
    if (it != where.end()) s.events[i].line = it->second.second;
  }
  std::vector<Access> out;
  out.swap(s.events);
  s.pcs.clear();
  return out;
}
}  // namespace trace

namespace hooks {
const char* backend_name() { return "emu-trace"; }
size_t stack_bytes() { return 128 * 1024; }

void runtime_created(Runtime&) {}
void shared_declared(Runtime&, size_t, size_t) {}
void launch_begin(Runtime&, size_t) { g_tracing = true; }
void launch_end(Runtime& r, const LaunchSite& site, size_t) {
  g_tracing = false;
  ++state().launch;
  guard_zones::check(r, &site);
}
void block_begin(Runtime& r) {
  TraceState& s = state();
  s.pending.assign(r.threads.size(), {});
  s.barriers.assign(r.threads.size(), 0);
}
void block_end(Runtime& r) {
  TraceState& s = state();
  for (size_t t = 0; t < r.threads.size(); ++t) {
    read_back(s, t);
    trace::Access ev;
    ev.kind = 'E';
    ev.launch = s.launch;
    ev.block = blockIdx;
    ev.thread = r.threads[t].idx;
    ev.barriers = s.barriers[t];
    s.events.push_back(std::move(ev));
    s.pcs.push_back(nullptr);
  }
}
void barrier(Runtime& r, const char*, int) {
  TraceState& s = state();
  read_back(s, r.tid);
  if (r.tid < s.barriers.size()) ++s.barriers[r.tid];
}
void switch_start(Runtime&, int, void**) {}
void switch_finish(Runtime&, void*) {}
}  // namespace hooks

}  // namespace tlemu

#define TLEMU_TRACE_FILTER(a) ((void)(a), tlemu::g_tracing)
TLEMU_ACCESS_CALLBACKS(TLEMU_TRACE_FILTER, tlemu::access)
