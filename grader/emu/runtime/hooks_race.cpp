// The race build's hooks (internal.hpp, namespace hooks): every shared-memory access of the
// student's file is seen (instrument.hpp); a read and a write (or two writes) of the same byte by
// two threads of a block between two barriers is a race, a read of a byte no thread of the block
// has written is uninitialized shared memory. Device memory has guard zones, as in the plain build,
// and its plain stores are watched too: two blocks of one launch storing to the same word is a race
// between blocks (on a GPU the blocks run in any order; here in order, so the last block's value
// would always win and hide it).
//
// Both are judged by the values (issue #26, items 3 and 4). Shared memory starts each block filled
// with a NaN of its own payload (kUnwritten): a read of a byte no thread of the block wrote is a
// safety violation only when that value reaches an element of device memory the kernel stores (the
// NaN propagates through arithmetic), else a warning. Two blocks storing to one word is a race only
// when the values they leave there differ; the same bits from both (overlapping edge blocks that
// compute the same element the same way) is a warning: P does not depend on the blocks' order.
#include <link.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <tuple>
#include <unordered_map>

#include "guard_zones.hpp"
#include "instrument.hpp"
#include "internal.hpp"
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

extern int tlemu_in_atomic;  // core.cpp; tilelab_emu_warp.h
// The program's static storage (glibc's and the linker's symbols: .data through .bss).
extern "C" char __data_start[], _end[];

namespace tlemu {
namespace {

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
  uint32_t w_ws = 0, r_ws = 0;  // the accessing warp's __syncwarp count at the write, at the last read
  uint16_t w_tid = 0, r_tid = 0;
  bool r_many = false;
  bool r_warps = false;  // this interval's reads came from more than one warp
  const void* w_pc = nullptr;
  const void* r_pc = nullptr;
};

// The detector's state, for the launch that runs.
struct RaceState {
  std::vector<Cell> shadow;  // one cell per byte of the shared arena
  std::unordered_map<RaceKey, RaceRecord, RaceKeyHash> races;
  std::set<std::pair<std::string, int>> barrier_sites;  // every __syncthreads() seen
  const char* last_site_file = nullptr;
  int last_site_line = 0;
};
RaceState& race() {
  static RaceState* s = new RaceState();  // never destroyed, like the Runtime
  return *s;
}

// What unwritten shared memory holds in this build: a quiet NaN whose payload no arithmetic makes
// (x86 keeps a NaN operand's payload, and its sign may flip), so a stored value that carries it came
// from a read of unwritten shared memory.
constexpr uint32_t kUnwritten = kUnwrittenShared;
bool carries_unwritten(uint32_t bits) { return (bits & 0x7FFFFFFFu) == kUnwritten; }
void fill_unwritten(char* p, size_t bytes) {
  for (size_t i = 0; i + 4 <= bytes; i += 4) std::memcpy(p + i, &kUnwritten, 4);
}

uintptr_t g_lo = 0, g_span = 0;  // the shared arena while a kernel runs; span 0 otherwise
uintptr_t g_arena_span = 0;       // the arena's whole mapping while a kernel runs (check_host)
uintptr_t g_dlo = 0, g_dspan = 0;  // from the first to the last byte of device memory, while a kernel runs

// Global memory: the block that last stored to each 4-byte word of a device buffer in this launch.
struct WordWriter {
  uint32_t launch = 0, block = 0;
  const void* pc = nullptr;
  uint32_t value = 0;  // the word's bits when that block ended
};
struct BlockRace {
  long count = 0;
  const void *pc_now = nullptr, *pc_then = nullptr;
  uint32_t block_now = 0, block_then = 0;
  uint32_t value_now = 0, value_then = 0;
  std::string element;
};
// A store of the block that runs to a word another block of the launch stored to: judged at the
// block's end, by the values the two blocks left there.
struct Overlap {
  uintptr_t base;
  size_t word;
  uint32_t block_then, value_then;
  const void *pc_then, *pc_now;
};
std::vector<std::pair<uintptr_t, size_t>> g_touched;  // words the block that runs stored to (first store)
std::vector<Overlap> g_overlaps;
BlockRace g_block_same;    // overlapping stores of the same bits: a warning
long g_unwritten_stored = 0;  // stored words carrying kUnwritten, in this launch
bool g_async_copies = false;  // the launch started a cp_async_16 (its destination reads as unwritten until it lands)
std::string g_unwritten_element;  // the first of them
std::unordered_map<uintptr_t, std::vector<WordWriter>>& writers() {
  static auto* w = new std::unordered_map<uintptr_t, std::vector<WordWriter>>();
  return *w;
}
uint32_t g_launch = 0;
BlockRace g_block_race;

uint32_t block_number() { return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); }

std::string block_text(uint32_t n) {
  const uint3 b{n % gridDim.x, (n / gridDim.x) % gridDim.y, n / (gridDim.x * gridDim.y)};
  return fmt_idx(b, gridDim);
}

void global_store(uintptr_t a, size_t n, const void* pc) {
  if (tlemu_in_atomic > 0) return;
  Runtime& r = rt();
  Buffer* b = r.find_buffer(reinterpret_cast<const void*>(a), n);
  if (!b) return;  // past a buffer: the guard zones tell it at the end of the launch
  const uintptr_t base = reinterpret_cast<uintptr_t>(b->ptr);
  std::vector<WordWriter>& w = writers()[base];
  if (w.size() < (b->size + 3) / 4) w.resize((b->size + 3) / 4);
  const uint32_t me = block_number();
  for (size_t word = (a - base) / 4; word <= (a + n - 1 - base) / 4; ++word) {
    WordWriter& c = w[word];
    if (c.launch != g_launch || c.block != me) {
      g_touched.emplace_back(base, word);
      if (c.launch == g_launch) g_overlaps.push_back({base, word, c.block, c.value, c.pc, pc});
    }
    c.launch = g_launch, c.block = me, c.pc = pc;
  }
}

__attribute__((noinline)) void shared_access(uintptr_t a, size_t n, bool write, const void* pc) {
  Runtime& r = rt();
  RaceState& s = race();
  const size_t off = a - g_lo;
  if (off + n > r.arena_size) n = r.arena_size - off;
  const uint16_t me = r.tid;
  const uint32_t ep = r.epoch;
  const uint32_t ws = r.warp_syncs[me / 32];
  // Ordered within the barrier interval: by the same thread, or by a lane of the same warp before a
  // __syncwarp() this warp has completed since.
  const auto synced = [&](uint16_t tid, uint32_t then_ws) { return tid / 32 == me / 32 && then_ws < ws; };
  const auto ordered = [&](uint16_t tid, uint32_t then_ws) { return tid == me || synced(tid, then_ws); };
  bool reported = false;
  for (size_t i = 0; i < n; ++i) {
    Cell& c = s.shadow[off + i];
    char kind = 0;
    const void* then = nullptr;
    uint16_t other = 0;
    if (!write) {
      if (c.w_epoch < r.block_epoch) {
        kind = 'U';
      } else if (c.w_epoch == ep && !ordered(c.w_tid, c.w_ws)) {
        kind = 'R', then = c.w_pc, other = c.w_tid;
      }
      if (c.r_epoch != ep) {
        c.r_epoch = ep, c.r_tid = me, c.r_many = false, c.r_warps = false, c.r_pc = pc;
      } else if (c.r_tid != me) {
        c.r_many = true;
        c.r_warps = c.r_warps || c.r_tid / 32 != me / 32;
      }
      c.r_ws = ws;
    } else {
      if (c.w_epoch == ep && !ordered(c.w_tid, c.w_ws)) {
        kind = 'X', then = c.w_pc, other = c.w_tid;
      } else if (c.r_epoch == ep && (c.r_tid != me || c.r_many) && (c.r_warps || !synced(c.r_tid, c.r_ws))) {
        // another thread read it, and not every read was by this warp before its last __syncwarp()
        kind = 'W', then = c.r_pc, other = c.r_tid;
      }
      c.w_epoch = ep, c.w_tid = me, c.w_pc = pc, c.w_ws = ws;
    }
    if (kind && !reported) {
      reported = true;
      RaceRecord& rec = s.races[RaceKey{kind, pc, then}];
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

// ---- kernels' accesses to host memory (kernel-accessed-host; issue #39, family 3) ----
// A kernel may reach device memory (cudaMalloc buffers with their guard zones, whose overruns are
// global-overrun's; the section of __device__, __constant__ and __managed__ variables), pinned
// host memory (cudaMallocHost: mapped for kernels on a GPU, and counted by the host-traffic ledger
// by its size), shared memory, its own stack, the runtime's built-in variables, and read-only data
// (loads only: constants the compiler put there cannot carry a product computed at run time). Any
// other address is host memory -- a host variable, a std::vector or malloc memory whose address
// reached the kernel as an integer, the host's stack -- which a GPU's kernel cannot reach (it faults
// without HMM): a finding at the access's line, so that a product the host computed cannot reach P
// through memory the emulator shares between host code and kernels. Seen in every access of the
// launch (the filter passes all but the thread's own stack); the ranges are gathered once per launch
// and the two last hit are tried first (a kernel alternates between M and N).
uintptr_t g_stack_lo = 0, g_stack_span = 0;  // the running thread's own stack (switch_start)
struct Range {
  uintptr_t lo, span;
};
std::vector<Range> g_device;    // may be read and written (launch_begin)
std::vector<Range> g_readonly;  // may be read: the program's read-only segments (runtime_created)
Range g_hit[2] = {{0, 0}, {0, 0}};
struct HostAccess {
  long count = 0;
  const void* pc = nullptr;
  uintptr_t addr = 0;
  bool write = false;
  uint3 thread{}, block{};
} g_host;

int readonly_segment(struct dl_phdr_info* info, size_t, void*) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const bool ro = (ph.p_type == PT_LOAD && !(ph.p_flags & PF_W)) || ph.p_type == PT_GNU_RELRO;
    if (ro && ph.p_memsz) g_readonly.push_back({uintptr_t(info->dlpi_addr + ph.p_vaddr), uintptr_t(ph.p_memsz)});
  }
  return 0;
}

void gather_device_ranges(Runtime& r) {
  g_device.clear();
  for (const auto& [base, b] : r.buffers)
    g_device.push_back(b.region ? Range{reinterpret_cast<uintptr_t>(b.region), b.region_size} : Range{base, b.size});
  for (const auto& [base, size] : r.pinned) g_device.push_back({base, std::max<size_t>(size, 1)});
  const auto [lo, hi] = device_vars();
  if (lo) g_device.push_back({reinterpret_cast<uintptr_t>(lo), uintptr_t(hi - lo)});
  for (const void* v : {static_cast<const void*>(&threadIdx), static_cast<const void*>(&blockIdx),
                        static_cast<const void*>(&blockDim), static_cast<const void*>(&gridDim)})
    g_device.push_back({reinterpret_cast<uintptr_t>(v), sizeof(dim3)});
  g_device.push_back({reinterpret_cast<uintptr_t>(&tlemu_in_atomic), sizeof tlemu_in_atomic});
  g_hit[0] = g_hit[1] = {0, 0};
}

void hit(const Range& x) {
  g_hit[1] = g_hit[0];
  g_hit[0] = x;
}

__attribute__((noinline)) void check_host(uintptr_t a, size_t n, bool write, const void* pc) {
  // Past the launch's shared-memory request but inside the arena's mapping: a shared-memory overrun,
  // not host memory (the ASan build names it, out-of-bounds-shared; 05-shared-too-small).
  if (a - g_lo < g_arena_span) return;
  for (const Range& x : g_device)
    if (a - x.lo < x.span) return hit(x);
  if (!write)
    for (const Range& x : g_readonly)
      if (a - x.lo < x.span) return hit(x);  // a store there faults before it is made
  // A __shared__ variable is bound from a pointer in static storage (rewrite_shared.cpp; a reference
  // in static storage at namespace scope): its load reads nullptr before the runtime binds it
  // (bind_shared_slot, not instrumented: no store of the kernel's), the start of a __shared__
  // variable or of dynamic shared memory after. Nothing else in static storage is the kernel's to
  // read, and nothing there to write: a host variable read by a kernel can then only hold those
  // values, which carry nothing from the host (attack3-atomic-host-product).
  const auto s_lo = reinterpret_cast<uintptr_t>(__data_start), s_hi = reinterpret_cast<uintptr_t>(_end);
  if (n == 8 && !write && a >= s_lo && a < s_hi) {
    uintptr_t v;
    std::memcpy(&v, reinterpret_cast<const void*>(a), sizeof v);
    if (v == 0 || v - g_lo == kStaticArena) return;
    for (const SharedVar& sv : rt().shared_vars)
      if (v - g_lo == sv.offset) return;
  }
  if (g_host.count++ == 0) g_host = {1, pc, a, write, threadIdx, blockIdx};
}

void flush_host_access(Runtime& r, const LaunchSite& site) {
  if (g_host.count == 0) return;
  const auto where = symbolize({g_host.pc});
  const auto w = where.find(g_host.pc);
  Finding f;
  f.kind = f.hint_code = tilelab::findings::kKernelAccessedHost;
  f.file = w != where.end() ? w->second.first : site.file;
  f.line = w != where.end() ? w->second.second : site.line;
  const auto a = g_host.addr;
  const bool is_static = a >= reinterpret_cast<uintptr_t>(__data_start) && a < reinterpret_cast<uintptr_t>(_end);
  f.message = std::string("the kernel ") + site.kernel + (g_host.write ? " wrote" : " read") +
              " host memory (" + (is_static ? "a host variable" : "a host array, malloc memory or the host's stack") +
              ") in thread " + fmt_idx(g_host.thread, blockDim) + " of block " + fmt_idx(g_host.block, gridDim) +
              (g_host.count > 1 ? " (" + std::to_string(g_host.count) + " accesses in the launch)" : std::string()) +
              "; on a GPU this faults";
  r.add(f, "kernel-accessed-host:" + f.file + ":" + std::to_string(f.line));
  g_host = {};
}

__attribute__((noinline)) void access(uintptr_t a, size_t n, bool write, const void* pc) {
  if (a - g_lo < g_span) return shared_access(a, n, write, pc);
  if (a - g_hit[0].lo >= g_hit[0].span && a - g_hit[1].lo >= g_hit[1].span) check_host(a, n, write, pc);
  if (write && a - g_dlo < g_dspan) global_store(a, n, pc);
}

std::string element_text(const Buffer& b, size_t word) {
  const std::string name = b.name.empty() ? "device memory" : b.name;
  return b.row_length ? name + "[" + std::to_string(word / b.row_length) + "][" + std::to_string(word % b.row_length) + "]"
                      : name + " (float " + std::to_string(word) + ")";
}

std::string value_text(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));
  return buf;
}

// The end of a block: the values it left in the words it stored to -- whether one carries
// unwritten shared memory, and whether the words another block stored to hold different bits.
void settle_block() {
  Runtime& r = rt();
  auto& all = writers();
  for (const auto& [base, word] : g_touched) {
    uint32_t bits;
    std::memcpy(&bits, reinterpret_cast<const void*>(base + 4 * word), 4);
    all[base][word].value = bits;
    if (carries_unwritten(bits) && g_unwritten_stored++ == 0) {
      const Buffer* b = r.find_buffer(reinterpret_cast<const void*>(base), 1);
      g_unwritten_element = b ? element_text(*b, word) : "device memory";
    }
  }
  for (const Overlap& o : g_overlaps) {
    const uint32_t now = all[o.base][o.word].value;
    BlockRace& br = now == o.value_then ? g_block_same : g_block_race;
    if (br.count++ == 0) {
      br.pc_now = o.pc_now, br.pc_then = o.pc_then;
      br.block_now = block_number(), br.block_then = o.block_then;
      br.value_now = now, br.value_then = o.value_then;
      const Buffer* b = r.find_buffer(reinterpret_cast<const void*>(o.base), 1);
      br.element = b ? element_text(*b, o.word) : "device memory";
    }
  }
  g_touched.clear();
  g_overlaps.clear();
}

// The race between blocks, if the launch had one: one finding at the later store's line; and
// overlapping stores of the same bits, if any: a warning.
void flush_block_race(Runtime& r) {
  for (BlockRace* p : {&g_block_race, &g_block_same}) {
    BlockRace& br = *p;
    if (br.count == 0) continue;
    const bool same = p == &g_block_same;
    auto where = symbolize({br.pc_now, br.pc_then});
    auto loc = [&](const void* pc) { return where.count(pc) ? where[pc] : std::pair<std::string, int>{"?", 0}; };
    const auto now = loc(br.pc_now), then = loc(br.pc_then);
    Finding f;
    f.file = now.first;
    f.line = now.second;
    f.count = br.count;
    const std::string both = "blocks " + block_text(br.block_then) + " and " + block_text(br.block_now) +
                             " both store to " + br.element + " (lines " + std::to_string(then.second) + " and " +
                             std::to_string(now.second) + ") in one launch";
    if (same) {
      f.kind = f.hint_code = tilelab::findings::kDuplicateStore;
      f.warning = true;
      f.message = both + ", the same bits from both (" + value_text(br.value_now) + "), as at all " +
                  std::to_string(br.count) + " elements two blocks stored to: P does not depend on the blocks' " +
                  "order, so this is duplicated work, not a race";
    } else {
      f.kind = tilelab::findings::kRace;
      f.hint_code = tilelab::findings::kRaceBetweenBlocks;
      f.message = both + ", different values (" + value_text(br.value_then) + " and " + value_text(br.value_now) +
                  ") (race between blocks)";
    }
    r.add(f, std::string(same ? "block-same:" : "block-race:") + now.first + ":" + std::to_string(then.second) + ":" +
                 std::to_string(now.second));
    br = BlockRace{};
  }
}

// Race build: turns the records of the launch into findings, with source lines.
void flush_races(Runtime& r) {
  RaceState& s = race();
  if (s.races.empty()) return;
  std::set<const void*> pcs;
  for (const auto& [k, v] : s.races) {
    pcs.insert(k.pc_now);
    if (k.pc_then) pcs.insert(k.pc_then);
  }
  auto where = symbolize(pcs);
  auto loc = [&](const void* pc) { return where.count(pc) ? where[pc] : std::pair<std::string, int>{"?", 0}; };
  // Any barrier between the two lines (in the source) means the pair is ordered by it one way
  // only: the missing barrier is the one that closes the loop, before the next overwrite.
  auto barrier_between = [&](int a, int b) {
    for (const auto& site : s.barrier_sites)
      if (site.second > std::min(a, b) && site.second < std::max(a, b)) return true;
    return false;
  };
  // Deterministic order (the map's is not): read-after-write first, then by source line, so that
  // of two findings merged below the same one is always kept.
  std::vector<std::pair<RaceKey, RaceRecord>> sorted(s.races.begin(), s.races.end());
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
      f.kind = f.hint_code = tilelab::findings::kUninitializedShared;
      f.message = "thread " + tn + " of block " + block + " reads " + var +
                  ", which no thread of this block has written (uninitialized shared memory)";
      if (g_async_copies)
        f.message += " or whose cp_async_16 copy has not landed yet (a cp_async_wait<N> that covers the copy's "
                     "group, then a __syncthreads(), must come before the read)";
      if (g_unwritten_stored > 0) {
        f.message += ", and such a value reaches " + g_unwritten_element + ", which the kernel stores";
      } else {  // read, but never stored: the handout's rule is about what reaches P
        f.warning = true;
        f.message += "; no element the kernel stores depends on it (it feeds only values that are never stored)";
      }
      r.add(f, "U:" + now.first + ":" + std::to_string(now.second));
      continue;
    }
    f.kind = tilelab::findings::kRace;
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
      f.hint_code = tilelab::findings::kRaceWriteWrite;
    else if (wline < rline && !barrier_between(wline, rline))
      f.hint_code = tilelab::findings::kMissingBarrierBeforeUse;
    else
      f.hint_code = tilelab::findings::kMissingBarrierBeforeOverwrite;
    const int a = std::min(now.second, then.second), b = std::max(now.second, then.second);
    r.add(f, "race:" + now.first + ":" + std::to_string(a) + ":" + std::to_string(b) + ":" + (k.kind == 'X' ? "X" : "RW"));
  }
  s.races.clear();
}


}  // namespace

namespace hooks {
const char* backend_name() { return "emu-race"; }
size_t stack_bytes() { return 128 * 1024; }

void runtime_created(Runtime& r) {
  race().shadow.resize(r.arena_size);
  ::dl_iterate_phdr(readonly_segment, nullptr);
}
// The gap after each variable too: a read just past a tile's end gets the NaN as well.
void shared_declared(Runtime& r, size_t off, size_t bytes) { fill_unwritten(r.arena + off, bytes + kRedzone); }
void launch_begin(Runtime& r, size_t dynamic_shared) {
  ++g_launch;
  g_unwritten_stored = 0;
  g_async_copies = false;
  g_unwritten_element.clear();
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (const auto& [base, b] : r.buffers) lo = std::min(lo, base), hi = std::max(hi, base + b.size);
  g_dlo = lo, g_dspan = hi > lo ? hi - lo : 0;
  gather_device_ranges(r);
  race().barrier_sites.clear();
  race().last_site_file = nullptr;
  g_lo = reinterpret_cast<uintptr_t>(r.arena);
  g_span = kStaticArena + dynamic_shared;
  g_arena_span = r.arena_size;
}
void launch_end(Runtime& r, const LaunchSite& site, size_t) {
  g_span = 0;
  g_arena_span = 0;
  g_dspan = 0;
  g_stack_lo = g_stack_span = 0;
  flush_host_access(r, site);
  flush_races(r);
  flush_block_race(r);
  g_unwritten_stored = 0;
  guard_zones::check(r, &site);
}
void block_begin(Runtime& r) {  // each block starts with every byte of shared memory unwritten
  fill_unwritten(r.arena, std::min(r.static_used + kRedzone, kStaticArena));
  fill_unwritten(r.arena + kStaticArena, r.dynamic_bytes);
}
void block_end(Runtime&) { settle_block(); }
void barrier(Runtime&, const char* file, int line) {
  RaceState& s = race();
  if (file != s.last_site_file || line != s.last_site_line) {  // a set insert per barrier is too slow
    s.last_site_file = file, s.last_site_line = line;
    s.barrier_sites.insert({file, line});
  }
}
// The thread about to run (-1: the scheduler): its own stack, whose accesses are neither shared nor host memory.
void switch_start(Runtime& r, int to, void**) { running_stack(r, to, g_stack_lo, g_stack_span); }
void switch_finish(Runtime&, void*) {}
// A copy in flight writes its destination at some point before the wait that covers it: here a write
// now (a race with this interval's other accesses), after which the bytes read as unwritten (the
// shadow and the NaN) until the copy lands, a store of the wait's line.
void async_copy_issued(Runtime& r, void* dst, size_t bytes, const void* pc) {
  const auto a = reinterpret_cast<uintptr_t>(dst);
  if (a - g_lo >= g_span) return;  // past the launch's shared memory: the asan build's to report
  shared_access(a, bytes, true, pc);
  RaceState& s = race();
  for (size_t i = 0; i < bytes && a - g_lo + i < r.arena_size; ++i) s.shadow[a - g_lo + i].w_epoch = 0;
  fill_unwritten(static_cast<char*>(dst), bytes);
  g_async_copies = true;
}
}  // namespace hooks

}  // namespace tlemu

// While a kernel runs, every access but those of the thread's own stack reaches the detector:
// shared memory's for races, the others for stores to device memory and for host memory.
#define TLEMU_RACE_FILTER(a) (tlemu::g_span != 0 && (a) - tlemu::g_stack_lo >= tlemu::g_stack_span)
TLEMU_ACCESS_CALLBACKS(TLEMU_RACE_FILTER, tlemu::access)
