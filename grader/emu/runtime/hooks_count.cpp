// The count build's hooks (internal.hpp, namespace hooks): the memory traffic of the student's
// kernel as chapter 4 reasons about it, for the performance model (grader/runner/perf_model.cpp,
// docs/performance.md). Every load and store of the student's file is seen (instrument.hpp), as in
// the race build; device memory has guard zones, as in the plain build.
//
// What is counted, per launch:
//   warps     32 consecutive linear thread ids of a block, as on the hardware;
//   a warp-level access: the k-th execution of one load or store instruction (code address) by the
//             lanes of one warp (SIMT: lanes that run it together); per global one, the 32-byte
//             sectors and 128-byte lines it touches and the bytes its lanes asked for; per shared
//             one, its wavefronts: the bank-conflict degree (32 banks of 4 bytes; lanes reading the
//             same word share it), summed over the lane groups a wide access is split into (8-byte
//             accesses: 2 groups of 16 lanes, 16-byte: 4 groups of 8), halved for a wide load whose lanes
//             read in pairs (see paired());
//   per block the distinct sectors it touches (what the L2 cache must deliver to its SM at least),
//             and the barriers it passed.
// The detailed counts are made in sampled blocks only (every block still runs, so P is whole): their
// accesses are logged, grouped into warp-level accesses and counted, scaled up by blocks / sampled.
// The sample is the corner blocks of the grid and a pseudo-random one drawn afresh for each launch,
// from the grid, the launch's place in the run and the seed the judge sends (set_sample_seed: a
// digest of the worker's file and the grading seed), so a regrade counts the same blocks, and a block
// that learnt (from the pause after it) that an earlier block was sampled learns nothing about itself
// or the next launch. The global bytes every block loads and asks for (global_load_bytes,
// global_bytes_requested) are summed exactly, over every block: the loads per multiply-add the judge
// requires are the whole grid's, and sampled_global_load_bytes, the sample's estimate of the same,
// shows a kernel whose sampled blocks load less than the others (the judge's uneven_work). clock64()
// is a virtual clock (tilelab_emu.h), the same in sampled blocks as in the others.
//
// Products that reach P (tensor_fmas_unstored): a warp's accumulator (an mma_sync's d, known by its
// lead lane's storage) holds the multiply-adds of every mma_sync whose c was it -- carried only when
// c still holds the values the last mma_sync left there, so values the kernel wrote into a fragment
// itself start a new sum. Each accumulator's last values at the end of a sampled block (and those of
// one overwritten meanwhile) are looked for, when the call ends (take_counts), among the words the
// block stored into P as P then holds them (the run's P, set_product: a later launch that overwrote
// them leaves them uncounted); its products count as the product's in the share of its nonzero values found
// there, and the rest are tensor_fmas_unstored. mma_syncs on fragments whose results are never stored
// (token products) are so told from the product: the model charges them on the tensor cores and
// charges the product's FP32 time as if they were not there (known-bad attack2-fake-mma-wide).
//
// Global memory is every memory the kernel's loads and stores reach but the shared arena and the
// thread's own stack (its locals and its copy of the launch's arguments, tilelab_emu.h): cudaMalloc
// buffers, pinned host memory, static storage (__device__, __constant__, __managed__ and host
// variables), the heap (device-side malloc, host malloc reached through a smuggled pointer), other
// threads' stacks -- less the runtime's own variables a kernel reads (threadIdx, blockIdx, blockDim,
// gridDim) and the references the rewriter makes of __shared__ variables. No kind of memory is left
// uncounted: a copy of M and N anywhere is counted as M and N are (known-bad
// redteam2-count-device-heap, attack-count-device-symbol-copy, attack-count-pinned-copy).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "guard_zones.hpp"
#include "instrument.hpp"
#include "internal.hpp"
#include "tilelab_emu_f16.h"

// The program's static storage (glibc's and the linker's symbols: .data through .bss), where the
// emulator's __device__, __constant__ and __managed__ variables are.
extern "C" char __data_start[], _end[];

namespace tlemu {
namespace {

struct Access {
  uintptr_t addr;
  const void* pc;
  uint32_t bytes;
  bool write, shared;
};

// A barrier or a warp's mma_sync, at a position of a thread's log: before its pos-th access.
struct Mark {
  size_t pos;
  bool mma;  // else a barrier
};

// The blocks of a launch fall in four strata, each sampled and scaled up on its own: the grid's
// corners (all counted), the rest of its last row, the rest of its last column (where an honest
// kernel's partial edge tiles are: alike along the row, alike along the column), and the others
// (alike, full tiles). For an honest kernel each stratum's blocks do the same work, so the estimate
// is exact whichever blocks are drawn; one row or column of blocks cut by P's edge no longer makes
// the figures depend on how many edge blocks the draw happened to catch.
struct Stratum {
  TrafficCounts c;                  // its sampled blocks' counts
  uint64_t blocks = 0, sampled = 0;
  double barriers = 0, phases = 0, exposed = 0;  // its sampled blocks' sums
};
enum { kCorner, kLastRow, kLastColumn, kInner, kStrata };

// A warp's accumulator (Products that reach P, above): the multiply-adds its sums hold, and its
// lanes' values after the last mma_sync that wrote it.
struct Accumulator {
  double fmas = 0;
  std::vector<float> values;
};

struct CountState {
  bool sampled = false;                // the block that runs is counted (its log goes to count_block)
  int stratum = kInner;                // ... and its stratum
  uint64_t launch_seq = 0;             // launches so far: each draws its own sample
  double exact_load_bytes = 0, exact_requested_bytes = 0;  // the launch's global bytes, every block
  std::vector<std::vector<Access>> log;  // per thread of the block, in program order
  std::vector<std::vector<Mark>> marks;  // per thread: its barriers; a warp's first thread: its mma_syncs
  std::vector<std::unordered_map<const void*, int>> fragments;  // per warp: the lead lane's, and their registers
  double registers = 0;                // the most any sampled block of the launch needs
  std::vector<std::unordered_map<const void*, Accumulator>> accumulators;  // per warp, by the lead lane's d
  std::vector<Accumulator> overwritten;  // the block's accumulators written over by an mma_sync not carrying them
  double carried = 0;                    // the running mma_sync's: what its c holds (accumulator(after = false))
  TrafficCounts total;                 // since the last take_counts(), scaled
  double heaviest_work = -1;           // since the last take_counts(): the most work of one launch (launch_end)
  Stratum strata[kStrata];             // the launch that runs
  uint64_t launch_blocks = 0, sampled_blocks = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> own;  // the runtime's variables a kernel reads: start, size
  uintptr_t own_lo = 0, own_span = 0;                 // the span from the first of them to the end of the last
  std::pair<uintptr_t, uintptr_t> statics;            // the program's static storage: start, end
};
CountState& cs() {
  static CountState* s = new CountState();  // never destroyed, like the Runtime
  return *s;
}

uintptr_t g_lo = 0, g_span = 0;  // the shared arena (set at each block; span 0 before the first)
bool g_on = false;               // a block runs: its global accesses are summed (every block)
bool g_sampled = false;          // ... and it is sampled: all its accesses are logged and counted
uintptr_t g_stack_lo = 0, g_stack_span = 0;  // the running thread's own stack (switch_start; span 0: none)

// How many blocks are sampled: enough that a kernel whose blocks differ (edge tiles) is seen; of
// those, kEdgeSample in each of the last row and column (Stratum), the rest among the others.
constexpr uint64_t kSample = 16, kEdgeSample = 4;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a fixed, portable hash
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

int stratum_of(uint3 b, dim3 g) {
  const bool corner = (b.x == 0 || b.x == g.x - 1) && (b.y == 0 || b.y == g.y - 1) && (b.z == 0 || b.z == g.z - 1);
  return corner ? kCorner : b.y == g.y - 1 ? kLastRow : b.x == g.x - 1 ? kLastColumn : kInner;
}

// Whether block b of stratum k is counted: about kEdgeSample blocks of each edge stratum (its middle
// one always, so none is left uncounted) and kSample of the others, drawn afresh for each launch
// (launch_seq); all of a grid of at most kSample blocks.
bool is_sampled(uint3 b, dim3 g, int k) {
  const uint64_t blocks = uint64_t(g.x) * g.y * g.z;
  if (blocks <= kSample || rt().count_every_block || k == kCorner) return true;
  if ((k == kLastRow && b.x == g.x / 2) || (k == kLastColumn && b.y == g.y / 2)) return true;
  const uint64_t in_stratum = k == kLastRow ? g.x : k == kLastColumn ? g.y : blocks;
  const uint64_t id = (uint64_t(b.z) * g.y + b.y) * g.x + b.x;
  return mix(id ^ mix(rt().sample_seed ^ mix(cs().launch_seq))) % in_stratum < (k == kInner ? kSample : kEdgeSample);
}

__attribute__((noinline)) void record(uintptr_t a, size_t n, bool write, const void* pc) {
  CountState& s = cs();
  const bool shared = a - g_lo < g_span;
  // Not shared and not the thread's own stack (the filter): global, but for the runtime's variables.
  if (!shared) {
    // Every global access comes here (exact sums, every block): M, N and P lie outside the span of
    // the runtime's variables, so one comparison rules them out before the ranges are tried.
    if (a - s.own_lo < s.own_span)
      for (const auto& [lo, size] : s.own)
        if (a - lo < size) return;
    if (n == 8 && a >= s.statics.first && a < s.statics.second) {
      // A __shared__ variable is bound from a pointer in static storage (rewrite_shared.cpp; a
      // reference at namespace scope): loading it is the variable's address (nullptr before the
      // runtime binds it), a constant on a GPU, not traffic. 8-byte stores into static storage are
      // not counted (stores carry no operand of the product; its loads are counted; the race build
      // reports a kernel's store there).
      uintptr_t v;
      std::memcpy(&v, reinterpret_cast<const void*>(a), sizeof v);
      if (write || v == 0 || v - g_lo < g_span) return;
    }
    s.exact_requested_bytes += double(n);
    if (!write) s.exact_load_bytes += double(n);
  }
  if (s.sampled) s.log[rt().tid].push_back({a, pc, uint32_t(n), write, shared});
}


// What is not global memory though neither shared nor the thread's stack: the runtime's variables a
// kernel reads (CountState::own).
void own_ranges(CountState& s) {
  s.own.clear();
  for (const void* v : {static_cast<const void*>(&threadIdx), static_cast<const void*>(&blockIdx),
                        static_cast<const void*>(&blockDim), static_cast<const void*>(&gridDim)})
    s.own.push_back({reinterpret_cast<uintptr_t>(v), sizeof(dim3)});
  s.own_lo = UINTPTR_MAX;
  uintptr_t own_hi = 0;
  for (const auto& [lo, size] : s.own) s.own_lo = std::min(s.own_lo, lo), own_hi = std::max(own_hi, lo + size);
  s.own_span = own_hi - s.own_lo;
  s.statics = {reinterpret_cast<uintptr_t>(__data_start), reinterpret_cast<uintptr_t>(_end)};
}

// True when the lanes of a wide load come in pairs reading one address: lane n and lane n^1 for all
// active lanes, or n and n^2. The L1 returns 128 bytes a clock, so a 16-byte load of 32 lanes needs
// 4 wavefronts whatever the addresses, but such a pair's registers are returned packed, in half
// as many (NVIDIA's note on uniform shared loads of CC 7.x; assumed of 8.x and 9.0 alike).
bool paired(const std::vector<const Access*>& lanes, const std::vector<int>& lane_of) {
  uintptr_t addr[32];
  bool on[32] = {};
  for (size_t i = 0; i < lanes.size(); ++i)
    if (lane_of[i] >= 0 && lane_of[i] < 32) addr[lane_of[i]] = lanes[i]->addr, on[lane_of[i]] = true;
  for (int step : {1, 2}) {
    bool all = true;
    for (int n = 0; n < 32 && all; ++n)
      if (on[n] && (!on[n ^ step] || addr[n ^ step] != addr[n])) all = false;
    if (all) return true;
  }
  return false;
}

// Shared-memory wavefronts of one warp-level access: per lane group, the most distinct 4-byte words
// any one bank must deliver; halved for a wide load of paired lanes.
double shared_wavefronts(const std::vector<const Access*>& lanes, const std::vector<int>& lane_of) {
  uint32_t width = 4;
  for (const Access* a : lanes) width = std::max(width, a->bytes);
  const int per_group = int(32 / std::min<uint32_t>(width / 4, 32));
  static std::vector<std::pair<int, uintptr_t>> words;  // (bank, word) of one group; reused
  double total = 0;
  for (int g = 0; g * per_group < 32; ++g) {
    // The common case, decided first: no bank asked for two distinct words (one wavefront).
    uintptr_t bank_word[32];
    uint32_t banks = 0;
    bool conflict = false;
    for (size_t i = 0; i < lanes.size() && !conflict; ++i) {
      if (lane_of[i] / per_group != g) continue;
      for (uintptr_t w = lanes[i]->addr / 4; w < (lanes[i]->addr + lanes[i]->bytes + 3) / 4; ++w) {
        const uint32_t bit = 1u << (w % 32);
        if (!(banks & bit)) banks |= bit, bank_word[w % 32] = w;
        else conflict = conflict || bank_word[w % 32] != w;
      }
    }
    if (!conflict) {
      total += banks ? 1 : 0;
      continue;
    }
    words.clear();
    for (size_t i = 0; i < lanes.size(); ++i) {
      if (lane_of[i] / per_group != g) continue;
      for (uintptr_t w = lanes[i]->addr / 4; w < (lanes[i]->addr + lanes[i]->bytes + 3) / 4; ++w)
        words.push_back({int(w % 32), w});
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int worst = 0;
    for (size_t i = 0; i < words.size();) {
      size_t j = i;
      while (j < words.size() && words[j].first == words[i].first) ++j;
      worst = std::max(worst, int(j - i));
      i = j;
    }
    total += worst;
  }
  if (per_group < 32 && !lanes.front()->write && total > 1 && paired(lanes, lane_of)) total /= 2;
  return total;
}

// One warp-level access (its lanes' accesses) into the counts.
void count_instance(TrafficCounts& c, const std::vector<const Access*>& lanes, const std::vector<int>& lane_of,
                    std::unordered_set<uintptr_t>& block_sectors) {
  const Access& first = *lanes.front();
  if (first.shared) {
    (first.write ? c.shared_stores : c.shared_loads) += 1;
    c.shared_wavefronts += shared_wavefronts(lanes, lane_of);
    return;
  }
  static std::vector<uintptr_t> sectors, lines;  // reused
  sectors.clear(), lines.clear();
  for (const Access* a : lanes) {
    for (uintptr_t x = a->addr / 32; x <= (a->addr + a->bytes - 1) / 32; ++x) sectors.push_back(x);
    for (uintptr_t x = a->addr / 128; x <= (a->addr + a->bytes - 1) / 128; ++x) lines.push_back(x);
    c.global_bytes_requested += a->bytes;
    if (!a->write) c.global_load_bytes += a->bytes;
  }
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  std::sort(lines.begin(), lines.end());
  const double n_lines = double(std::unique(lines.begin(), lines.end()) - lines.begin());
  (first.write ? c.global_stores : c.global_loads) += 1;
  (first.write ? c.global_store_sectors : c.global_load_sectors) += double(sectors.size());
  c.global_wavefronts += n_lines;
  block_sectors.insert(sectors.begin(), sectors.end());
}

// A warp's warp-level accesses, in program order: instance i has lanes(i) lanes; lane k of it is the
// warp's lane lane(i, k) and made access at(i, k). Two views: UniformWarp, where every lane ran the
// same loads and stores in the same order (instance i is each lane's i-th access), and DivergentWarp,
// where the k-th execution of each instruction by each lane is matched through a map.
struct UniformWarp {
  const CountState& s;
  size_t base, n;
  size_t size() const { return s.log[base].size(); }
  size_t lanes(size_t) const { return n; }
  int lane(size_t, size_t k) const { return int(k); }
  const Access& at(size_t i, size_t k) const { return s.log[base + k][i]; }
};
struct DivergentWarp {
  std::vector<std::vector<const Access*>> inst;  // per instance, its lanes' accesses, lowest lane first
  std::vector<std::vector<int>> lane_of;
  size_t size() const { return inst.size(); }
  size_t lanes(size_t i) const { return inst[i].size(); }
  int lane(size_t i, size_t k) const { return lane_of[i][k]; }
  const Access& at(size_t i, size_t k) const { return *inst[i][k]; }
};

// The width nvcc gives each shared load of one warp (a view above): 4 bytes as written, or 16 (8)
// where 4 (2) loads side by side in the code -- distinct instructions, between the same two shared
// stores -- read, in every lane (the same lanes), consecutive words from a 16-byte (8-byte) aligned
// address: the unrolled k loop's Mds[ty][k..k+3], a register tile read one float at a time, or the
// same with a coarsening loop inside the k loop (Mds[c][ty][k] for each c: the loads that continue
// one another are 4 apart). nvcc merges those into one LDS.128 (LDS.64) when it has unrolled the
// loop and knows the alignment when compiling, as it does for a tile whose rows are a multiple of
// 16 bytes; a padded row (Mds[16][17]) is not aligned in every lane and stays scalar. The builds
// that count unroll loops as nvcc does (tilelab_emu.h, TLEMU_UNROLL), so a loop nvcc leaves rolled
// because its trip count is known only at run time (a tile width passed as an argument) runs one
// load instruction again and again here too, and is not merged. A warp that diverges elsewhere (the
// bounds tests of an edge tile) keeps its merged loads: nvcc's LDS.128 is in the code whichever
// lanes run it. 0 marks an execution merged into an earlier one. (Nsight Compute on an H100,
// docs/performance.md: the 16x16 tiled kernel's shared wavefronts are 1.65 per warp FMA, not the
// 2.13 its source-level loads count.)
template <class Warp>
std::vector<uint32_t> vector_widths(const Warp& w) {
  const size_t count = w.size();
  std::vector<uint32_t> width(count);
  for (size_t i = 0; i < count; ++i) width[i] = w.at(i, 0).bytes;
  auto scalar_shared_load = [&](size_t i) {
    const Access& a = w.at(i, 0);
    return a.shared && !a.write && a.bytes == 4;
  };
  // The first lane's address -> the scalar shared loads from it, in order; stores_before[i]: the
  // shared stores before execution i (no load is merged across one).
  std::unordered_map<uintptr_t, std::vector<size_t>> at;
  std::vector<size_t> stores_before(count);
  size_t stores = 0;
  for (size_t i = 0; i < count; ++i) {
    stores_before[i] = stores;
    const Access& a = w.at(i, 0);
    if (a.shared && a.write) ++stores;
    else if (scalar_shared_load(i)) at[a.addr].push_back(i);
  }
  // The first unmerged load after `after`, between the same stores, by the same lanes, whose address
  // is lane by lane `words` words past `from`'s and whose instruction is none of `run`'s; SIZE_MAX
  // if there is none.
  auto continuation = [&](size_t from, size_t after, uintptr_t words, const std::vector<size_t>& run) {
    const auto it = at.find(w.at(from, 0).addr + 4 * words);
    if (it == at.end()) return SIZE_MAX;
    const std::vector<size_t>& execs = it->second;
    for (auto q = std::upper_bound(execs.begin(), execs.end(), after); q != execs.end(); ++q) {
      const size_t p = *q;
      if (stores_before[p] != stores_before[from]) return SIZE_MAX;
      if (width[p] != 4 || w.lanes(p) != w.lanes(from)) continue;
      bool other = true;
      for (size_t r : run) other = other && w.at(r, 0).pc != w.at(p, 0).pc;
      if (!other) return SIZE_MAX;  // the same instruction again: a loop nvcc has not unrolled
      bool lanes = true;
      for (size_t k = 0; k < w.lanes(p) && lanes; ++k)
        lanes = w.lane(p, k) == w.lane(from, k) && w.at(p, k).addr == w.at(from, k).addr + 4 * words &&
                w.at(p, k).bytes == 4;
      if (lanes) return p;
    }
    return SIZE_MAX;
  };
  auto aligned = [&](size_t from, size_t n) {
    for (size_t k = 0; k < w.lanes(from); ++k)
      if (w.at(from, k).addr % (4 * n)) return false;
    return true;
  };
  std::vector<size_t> run;
  for (size_t i = 0; i < count; ++i) {
    if (!scalar_shared_load(i) || width[i] != 4) continue;
    for (size_t n : {size_t(4), size_t(2)}) {
      if (!aligned(i, n)) continue;
      run.assign(1, i);
      for (size_t j = 1, after = i; j < n; ++j) {
        after = continuation(i, after, j, run);
        if (after == SIZE_MAX) break;
        run.push_back(after);
      }
      if (run.size() < n) continue;
      width[i] = uint32_t(4 * n);
      for (size_t k = 1; k < run.size(); ++k) width[run[k]] = 0;
      break;
    }
  }
  return width;
}

// Every warp-level access of one warp (a view above), at the widths vector_widths gives them.
template <class Warp>
void count_warp(TrafficCounts& c, const Warp& w, std::unordered_set<uintptr_t>& block_sectors) {
  const std::vector<uint32_t> width = vector_widths(w);
  static std::vector<Access> wide;  // the lanes' accesses at their merged width; reused
  static std::vector<const Access*> lanes;
  static std::vector<int> lane_of;
  for (size_t i = 0; i < w.size(); ++i) {
    if (width[i] == 0) continue;  // merged into an earlier execution's wide load
    wide.clear(), lanes.clear(), lane_of.clear();
    for (size_t k = 0; k < w.lanes(i); ++k) {
      Access a = w.at(i, k);
      a.bytes = width[i];
      wide.push_back(a);
      lane_of.push_back(w.lane(i, k));
    }
    for (const Access& a : wide) lanes.push_back(&a);
    count_instance(c, lanes, lane_of, block_sectors);
  }
}

// The block's accesses, grouped into warp-level accesses and counted. The common case, every lane
// of a warp running the same loads and stores in the same order, pairs them by position; otherwise
// (divergence) the k-th execution of each instruction by each lane is matched through a map.
void count_block(CountState& s, size_t threads) {
  TrafficCounts& c = s.strata[s.stratum].c;
  std::unordered_set<uintptr_t> block_sectors;
  for (size_t base = 0; base < threads; base += 32) {
    const size_t n = std::min<size_t>(32, threads - base);
    const auto& first = s.log[base];
    bool uniform = true;
    for (size_t l = 1; l < n && uniform; ++l) {
      const auto& other = s.log[base + l];
      uniform = other.size() == first.size();
      for (size_t i = 0; i < first.size() && uniform; ++i)
        uniform = other[i].pc == first[i].pc && other[i].shared == first[i].shared;
    }
    if (uniform) {
      count_warp(c, UniformWarp{s, base, n}, block_sectors);
      continue;
    }
    DivergentWarp w;
    std::unordered_map<uint64_t, size_t> inst;  // (pc, k-th execution by a lane) -> its instance
    for (size_t lane = 0; lane < n; ++lane) {
      std::unordered_map<const void*, uint32_t> seen;
      for (const Access& a : s.log[base + lane]) {
        const uint64_t key = mix(reinterpret_cast<uintptr_t>(a.pc)) ^ seen[a.pc]++;
        auto [it, fresh] = inst.try_emplace(key, w.inst.size());
        if (fresh) w.inst.emplace_back(), w.lane_of.emplace_back();  // first-seen order: deterministic
        w.inst[it->second].push_back(&a);
        w.lane_of[it->second].push_back(int(lane));
      }
    }
    count_warp(c, w, block_sectors);
  }
  c.l2_sectors += double(block_sectors.size());
}

// The phases of one warp (a tensor-core kernel's; staging_phases_per_block in traffic_counts.hpp),
// from its first thread's accesses and marks in program order. A phase is a stretch of the warp's
// work with global loads and no mma_sync or barrier in it, whose values the warp stores to shared
// memory: the tiles staged. It is exposed when a store follows the loads before any mma_sync
// (single-buffered tiles, or a second buffer filled before the products: the warp waits for its
// loads with nothing else to do), hidden when the stores come only after an mma_sync (the loads
// held in registers across the products: the reference's prefetch), and then the loads' bytes are
// registers the thread holds meanwhile. Loads whose values no store follows before the next loads
// (fragments loaded straight from global memory) make no phase. "The products" means at least half
// of the warp's mma_syncs per phase: a token mma_sync put between the loads and the stores hides
// nothing on a GPU, and hides nothing here either.
struct WarpPhases {
  double phases = 0, exposed = 0, held_registers = 0;
};
WarpPhases warp_phases(const std::vector<Access>& log, const std::vector<Mark>& marks) {
  enum Kind { load, store, mma, barrier, other };
  std::vector<std::pair<Kind, uint32_t>> ev;  // in program order, with a global load's bytes
  size_t m = 0, mmas = 0;
  for (size_t i = 0; i <= log.size(); ++i) {
    for (; m < marks.size() && marks[m].pos == i; ++m) {
      ev.push_back({marks[m].mma ? mma : barrier, 0});
      mmas += marks[m].mma;
    }
    if (i == log.size()) break;
    const Access& a = log[i];
    ev.push_back({!a.shared && !a.write ? load : a.shared && a.write ? store : other, a.bytes});
  }
  // Each phase: the mma_syncs between its loads and its stores (none when a store is among the
  // loads), and the loads' bytes.
  std::vector<std::pair<size_t, double>> found;
  for (size_t i = 0; i < ev.size();) {
    if (ev[i].first != load) { ++i; continue; }
    double bytes = 0;
    bool stored = false;  // a store after the stretch's first load, inside it
    size_t j = i;
    for (; j < ev.size() && ev[j].first != mma && ev[j].first != barrier; ++j) {
      if (ev[j].first == load) bytes += ev[j].second;
      if (ev[j].first == store) stored = true;
    }
    if (stored) {
      found.push_back({0, bytes});
    } else {
      size_t computed = 0;  // mma_syncs before the first store after the stretch
      for (size_t k = j; k < ev.size() && ev[k].first != load; ++k) {
        if (ev[k].first == mma) ++computed;
        if (ev[k].first != store) continue;
        found.push_back({computed, bytes});
        break;
      }
    }
    i = j;
  }
  WarpPhases w;
  w.phases = double(found.size());
  for (const auto& [computed, bytes] : found) {
    if (computed > 0 && 2 * computed * found.size() >= mmas) w.held_registers = std::max(w.held_registers, bytes / 4);
    else w.exposed += 1;
  }
  return w;
}

// A counted block's phases and registers (tensor-core kernels): the warp with the most phases, the
// most registers any warp's fragments and held loads need.
void count_phases(CountState& s, size_t threads) {
  WarpPhases most;
  double registers = 0;
  for (size_t base = 0; base < threads; base += 32) {
    const auto& frags = s.fragments[base / 32];
    if (frags.empty()) continue;  // a warp without mma_sync
    const WarpPhases w = warp_phases(s.log[base], s.marks[base]);
    if (w.phases > most.phases) most = w;
    double f = 0;
    for (const auto& [ptr, regs] : frags) f += regs;
    registers = std::max(registers, f + w.held_registers);
  }
  s.strata[s.stratum].phases += most.phases, s.strata[s.stratum].exposed += most.exposed;
  s.registers = std::max(s.registers, registers);
}

// The lanes' values of one fragment of a warp's mma_sync (f: 0 d, 3 c), lane by lane, as floats.
void fragment_values(const Runtime& r, size_t base, uint32_t group, int f, std::vector<float>& out) {
  out.clear();
  for (uint32_t m = group; m; m &= m - 1) {
    const wmma::FragRef& x = call_of(r, base, size_t(__builtin_ctz(m))).frag[f];
    for (int i = 0; i < x.count; ++i)
      out.push_back(x.elem == wmma::elem_half ? f16_to_float(static_cast<const f16*>(x.x)[i]) : static_cast<const float*>(x.x)[i]);
  }
}

// A sampled block's accumulators and the words of P it stored, judged when the call ends
// (take_counts) against what P holds then: a product counts only when its values are in the P the
// call leaves, not in one a later launch overwrote (known-bad attack3-token-kernel-overwritten).
struct BlockProducts {
  std::vector<uintptr_t> words;   // the 4-byte words of P the block's stores reached
  std::vector<Accumulator> accs;  // its accumulators' last values, and those overwritten meanwhile
  int stratum = kInner;
  double scale = 0;               // its stratum's blocks per sampled block (launch_end)
  uintptr_t product = 0;          // the run's P (set_product) when the block ran: read only while it still is
};
std::vector<BlockProducts> g_products;  // the call's, since take_counts
size_t g_products_scaled = 0;           // those before it were scaled by their launch's end

BlockProducts products_of_block(CountState& s, size_t threads) {
  const uintptr_t p = rt().product, p_bytes = rt().product_bytes;
  BlockProducts b;
  b.stratum = s.stratum;
  b.product = p;
  for (size_t t = 0; t < threads; ++t)
    for (const Access& a : s.log[t]) {
      if (a.shared || !a.write || a.addr - p >= p_bytes) continue;
      for (uintptr_t w = a.addr & ~uintptr_t(3); w < a.addr + a.bytes && w - p < p_bytes; w += 4) b.words.push_back(w);
    }
  for (auto& warp : s.accumulators)
    for (auto& [key, acc] : warp) b.accs.push_back(std::move(acc));
  for (Accumulator& acc : s.overwritten) b.accs.push_back(std::move(acc));
  return b;
}

// The multiply-adds of a block's accumulators whose last values P does not hold when the call ends
// (Products that reach P, above): each accumulator's in the share of its nonzero values not among
// the words the block stored, as they are now. Device memory is open while it reads them.
double unstored_fmas(const BlockProducts& b) {
  std::unordered_set<uint32_t> stored;
  for (uintptr_t w : b.words) {
    uint32_t bits;
    std::memcpy(&bits, reinterpret_cast<const void*>(w), sizeof bits);
    stored.insert(bits);
  }
  double unstored = 0;
  for (const Accumulator& acc : b.accs) {
    double nonzero = 0, found = 0;
    for (float v : acc.values) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      if ((bits & 0x7fffffffu) == 0) continue;  // zeros: a token product's, or a tile's padding
      nonzero += 1;
      found += stored.count(bits);
    }
    unstored += acc.fmas * (nonzero > 0 ? 1 - found / nonzero : 1);
  }
  return unstored;
}

}  // namespace

namespace hooks {
const char* backend_name() { return "emu-count"; }
size_t stack_bytes() { return 128 * 1024; }

void runtime_created(Runtime&) {}
void shared_declared(Runtime&, size_t, size_t) {}
void launch_begin(Runtime&, size_t) {
  CountState& s = cs();
  for (Stratum& k : s.strata) k = Stratum{};
  s.launch_blocks = s.sampled_blocks = 0;
  s.registers = 0;
  s.exact_load_bytes = s.exact_requested_bytes = 0;
  own_ranges(s);
}
void launch_end(Runtime& r, const LaunchSite& site, size_t dynamic_shared) {
  CountState& s = cs();
  guard_zones::check(r, &site);
  ++s.launch_seq;
  if (s.sampled_blocks == 0) return;
  // Each stratum scaled from its sampled blocks to all of its blocks. Only the inner stratum can have
  // none sampled (a draw that caught none of it): it then adds nothing, as a launch did before.
  TrafficCounts c;
  double barriers = 0, phases = 0, exposed = 0;
  for (Stratum& k : s.strata) {
    if (k.sampled == 0) continue;
    const double scale = double(k.blocks) / double(k.sampled);
    for (double* f : {&k.c.global_loads, &k.c.global_stores, &k.c.global_load_sectors, &k.c.global_store_sectors,
                      &k.c.global_bytes_requested, &k.c.global_load_bytes, &k.c.global_wavefronts, &k.c.l2_sectors,
                      &k.c.shared_loads, &k.c.shared_stores, &k.c.shared_wavefronts, &k.c.tensor_fmas, &k.c.tensor_insts,
                      &k.c.tensor_fmas_unstored})
      *f *= scale;
    c.add(k.c);
    barriers += k.barriers * scale, phases += k.phases * scale, exposed += k.exposed * scale;
  }
  for (; g_products_scaled < g_products.size(); ++g_products_scaled) {
    BlockProducts& b = g_products[g_products_scaled];
    const Stratum& k = s.strata[b.stratum];
    b.scale = k.sampled ? double(k.blocks) / double(k.sampled) : 0;
  }
  // The bytes every block loaded, summed exactly; the sample's estimate kept beside them.
  c.sampled_global_load_bytes = c.global_load_bytes;
  c.global_load_bytes = s.exact_load_bytes;
  c.global_bytes_requested = s.exact_requested_bytes;
  c.launches = 1;
  c.blocks = double(s.launch_blocks);
  c.sampled_blocks = double(s.sampled_blocks);
  c.threads_per_block = double(blockDim.x) * blockDim.y * blockDim.z;
  c.barriers_per_block = barriers / double(s.launch_blocks) / c.threads_per_block;
  c.staging_phases_per_block = phases / double(s.launch_blocks);
  c.exposed_phases_per_block = exposed / double(s.launch_blocks);
  c.fragment_registers = s.registers;
  size_t shared = dynamic_shared;
  for (const auto& v : r.shared_vars)  // occupancy as nvcc's: a variable never read takes no memory
    if ((v.kernel == site.kernel || v.kernel.empty()) && v.read) shared += v.size;  // namespace scope: core.cpp
  c.shared_bytes_per_block = double(shared);
  // The launch doing the product: the most warp-level accesses and tensor instructions of the call.
  const double work = c.global_loads + c.global_stores + c.shared_loads + c.shared_stores + c.tensor_insts;
  const double heaviest = work > s.heaviest_work ? s.total.launches + 1 : s.total.heaviest_launch;
  s.heaviest_work = std::max(s.heaviest_work, work);
  s.total.add(c);
  s.total.heaviest_launch = heaviest;
}
void block_begin(Runtime& r) {
  CountState& s = cs();
  ++s.launch_blocks;
  // Every block's global bytes are summed (record()); a sampled block's accesses are logged too, and
  // counted after it (block_end).
  g_on = true;
  s.stratum = stratum_of(blockIdx, gridDim);
  s.sampled = is_sampled(blockIdx, gridDim, s.stratum);
  g_sampled = s.sampled;
  s.sampled_blocks += s.sampled;
  ++s.strata[s.stratum].blocks;
  s.strata[s.stratum].sampled += s.sampled;
  g_lo = reinterpret_cast<uintptr_t>(r.arena);
  g_span = r.arena_size;
  if (!s.sampled) return;
  s.log.resize(std::max(s.log.size(), r.threads.size()));
  for (auto& l : s.log) l.clear();
  s.marks.resize(s.log.size());
  for (auto& m : s.marks) m.clear();
  s.fragments.resize((s.log.size() + 31) / 32);
  for (auto& f : s.fragments) f.clear();
  s.accumulators.resize(s.fragments.size());
  for (auto& a : s.accumulators) a.clear();
  s.overwritten.clear();
}
void block_end(Runtime& r) {
  if (!g_on) return;
  g_on = false;
  if (!g_sampled) return;
  g_sampled = false;
  count_block(cs(), r.threads.size());
  count_phases(cs(), r.threads.size());
  g_products.push_back(products_of_block(cs(), r.threads.size()));
}
void barrier(Runtime&, const char*, int) {
  if (!g_sampled) return;
  CountState& s = cs();
  ++s.strata[s.stratum].barriers;
  s.marks[rt().tid].push_back({s.log[rt().tid].size(), false});
}
// The thread about to run (-1: the scheduler): its own stack, whose accesses are not global.
void switch_start(Runtime& r, int to, void**) { running_stack(r, to, g_stack_lo, g_stack_span); }
void switch_finish(Runtime&, void*) {}

// One warp's mma_sync (wmma.cpp, once per warp): nvcc makes a 16x16 wmma product of two mma.sync
// instructions of 16 x 8 (m16n8k8 for TF32, m16n8k16 for half), as SASS shows (HMMA).
void tensor_op(Runtime&, size_t base, int m, int n, int k, const void* const frag[3], const int regs[3]) {
  if (!g_sampled) return;
  CountState& s = cs();
  s.strata[s.stratum].c.tensor_fmas += double(m) * n * k;
  s.strata[s.stratum].c.tensor_insts += double(m) * n / 128;
  s.marks[base].push_back({s.log[base].size(), true});
  for (int f = 0; f < 3; ++f) s.fragments[base / 32][frag[f]] = regs[f];
}

// A warp's mma_sync follows its accumulator (Products that reach P, above): before it computes, what
// c carries (the sums of the accumulator whose last values it still holds, which it then leaves);
// after, d holds that and this mma_sync's m n k, and an accumulator d held before, not carried into
// it, is kept aside to be looked for in P at the block's end.
void accumulator(Runtime& r, size_t base, uint32_t group, bool after) {
  if (!g_sampled || group == 0) return;
  CountState& s = cs();
  auto& warp = s.accumulators[base / 32];
  const wmma::Call& lead = call_of(r, base, size_t(__builtin_ctz(group)));
  static std::vector<float> values;  // reused
  if (!after) {
    s.carried = 0;
    const auto c = warp.find(lead.frag[3].x);
    if (c == warp.end()) return;
    fragment_values(r, base, group, 3, values);
    if (values != c->second.values) return;  // written since: a new sum
    s.carried = c->second.fmas;
    if (lead.frag[3].x != lead.frag[0].x) warp.erase(c);
    return;
  }
  const wmma::FragRef& d = lead.frag[0];
  Accumulator& acc = warp[d.x];
  if (acc.fmas > 0 && d.x != lead.frag[3].x) s.overwritten.push_back(std::move(acc));
  else if (acc.fmas > s.carried) s.overwritten.push_back({acc.fmas - s.carried, acc.values});  // c was d, written since
  acc.fmas = s.carried + double(d.m) * d.n * d.k;
  fragment_values(r, base, group, 0, acc.values);
}

bool take_counts(TrafficCounts& out) {
  {
    DeviceAccess open(rt());
    for (size_t i = 0; i < g_products_scaled; ++i)
      if (g_products[i].product == rt().product)  // the run's P, not an earlier run's buffer
        cs().total.tensor_fmas_unstored += unstored_fmas(g_products[i]) * g_products[i].scale;
  }
  g_products.clear();
  g_products_scaled = 0;
  out = cs().total;
  cs().total = TrafficCounts{};
  cs().heaviest_work = -1;
  return true;
}
}  // namespace hooks

}  // namespace tlemu

// record() sees every access of a sampled block and the non-shared ones of the others, but those of
// the thread's own stack; it sums the global ones and logs a sampled block's shared and global ones.
#define TLEMU_COUNT_FILTER(a)                                                                      \
  (tlemu::g_on && (a) - tlemu::g_stack_lo >= tlemu::g_stack_span &&                                \
   (tlemu::g_sampled || (a) - tlemu::g_lo >= tlemu::g_span))
TLEMU_ACCESS_CALLBACKS(TLEMU_COUNT_FILTER, tlemu::record)
