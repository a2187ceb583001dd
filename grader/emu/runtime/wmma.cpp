// The emulator's tensor-core operations (nvcuda::wmma, include/tilelab_emu_wmma.h): the warp-wide
// collective of load_matrix_sync, store_matrix_sync and mma_sync, its checks, and mma_sync's product;
// also the kit's PTX wrappers' collectives (include/tilelab_emu_ptx.h): mma_m16n8k8_tf32 is an
// mma_sync of 16 x 8 x 8, ldmatrix_x4 is released by ptx.cpp's release_ldmatrix.
//
// A lane calls wmma_sync with what it brings (wmma::Call, on its own stack, alive while it waits);
// it waits as at any warp operation (core.cpp warp_op, scheduler.cpp release_warp). When its warp is
// released, release_wmma checks the lanes there and, for mma_sync, computes d = a * b + c from every
// lane's fragments into each lane's d. Loads and stores are made afterwards by each lane itself, in
// the student's file, where the asan, race and count builds see them.
//
// What is a finding (each once per call site; wording for the student):
//   wmma-divergence  a lane of the warp is not at the call: it returned, waits at a __syncthreads(),
//                    is at another warp operation or wmma call, or does not exist (a block whose
//                    thread count is not a multiple of 32). On a GPU the result is undefined.
//   wmma-nonuniform  lanes at the same call pass different pointers, ldm or layouts (CUDA requires
//                    them equal across the warp).
//   wmma-misaligned  a pointer that is not 256-bit (32-byte) aligned, or an ldm that is not a
//                    multiple of 16 bytes (8 __half, 4 float elements): CUDA's rules for mptr and ldm.
#include <cmath>
#include <cstring>
#include <string>

#include "internal.hpp"
#include "tilelab_emu_f16.h"
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

namespace tlemu {

void wmma_sync(const wmma::Call& call, const char* file, int line) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return;  // host code: no warp to meet
  warp_op(warp::wmma, 0xffffffffu, uint64_t(reinterpret_cast<uintptr_t>(&call)), 0, 32, file, line);
}

const wmma::Call& call_of(const Runtime& r, size_t base, size_t lane) {
  return *reinterpret_cast<const wmma::Call*>(uintptr_t(r.threads[base + lane].warp_value));
}

namespace {

// "lanes 0-15, 20" for a mask of lanes.
std::string lanes_text(uint32_t mask) {
  std::string s;
  int count = 0;
  for (int l = 0; l < 32;) {
    if (!(mask >> l & 1u)) {
      ++l;
      continue;
    }
    int e = l;
    while (e + 1 < 32 && (mask >> (e + 1) & 1u)) ++e;
    s += (s.empty() ? "" : ", ") + std::to_string(l) + (e > l ? "-" + std::to_string(e) : "");
    count += e - l + 1;
    l = e + 1;
  }
  return (count == 1 ? "lane " : "lanes ") + s;
}

}  // namespace

std::string where_text(Runtime& r, const void* p, size_t elem_bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto lo = reinterpret_cast<uintptr_t>(r.arena);
  if (a >= lo && a < lo + r.arena_size) return r.shared_name(a - lo);
  if (const Buffer* b = r.find_buffer(p, 0)) {
    const size_t off = a - reinterpret_cast<uintptr_t>(b->ptr);
    const std::string name = b->name.empty() ? "a cudaMalloc buffer" : b->name;
    if (elem_bytes && off % elem_bytes == 0) return name + " + " + std::to_string(off / elem_bytes) + " elements";
    return name + " + " + std::to_string(off) + " bytes";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return std::string("address ") + buf;
}

Finding wmma_finding(const char* kind, const char* file, int line, std::string message) {
  Finding f;
  f.kind = f.hint_code = kind;
  f.file = file ? file : "";
  f.line = line;
  f.message = std::move(message);
  return f;
}

namespace {

float read_elem(const wmma::FragRef& f, int i) {
  if (f.elem == wmma::elem_half) return tlemu::f16_to_float(static_cast<const tlemu::f16*>(f.x)[i]);
  return static_cast<const float*>(f.x)[i];
}
void write_elem(const wmma::FragRef& f, int i, float v) {
  if (f.elem == wmma::elem_half) static_cast<tlemu::f16*>(f.x)[i] = tlemu::f16_from(v);
  else static_cast<float*>(f.x)[i] = v;
}

// What the tensor cores read of a float given as tf32: its top 19 bits (the mantissa truncated to 10
// bits). A NaN stays the NaN it is (its payload is carried, as the race build's unwritten-shared
// marker must be), infinity stays infinity.
float tf32_input(float v) {
  if (std::isnan(v)) return v;
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u &= 0xFFFFE000u;
  std::memcpy(&v, &u, 4);
  return v;
}

bool same_kind(const wmma::FragRef& a, const wmma::FragRef& b) {
  return a.use == b.use && a.m == b.m && a.n == b.n && a.k == b.k && a.elem == b.elem && a.count == b.count;
}

// Whether every lane of `group` gives its mma fragments (a, b, c, d) as its own registers: storage on
// its own stack. compute_mma reads and writes them here, in the runtime, which no build instruments,
// so an operand naming global or shared memory (a reference into M handed to mma_m16n8k8_tf32, a
// wmma fragment cast over a tile: legal C++, a load on a GPU) would be a load no build counts,
// bounds-checks or orders (red team 2026-11-29: attack-ptx-operand-in-global, and its variants that
// overload or macro away what the wrapper headers do in the student's file). Such a call is refused,
// as an emulator limit, and not computed. The asan build is left out: its locals may lie on
// AddressSanitizer's fake stack, and its runtime's reads are checked anyway.
bool registers_only(Runtime& r, size_t base, uint32_t group, const wmma::Call& call, const char* file, int line) {
  static const bool asan = std::string(hooks::backend_name()) == "emu-asan";
  if (asan) return true;
  for (uint32_t m = group; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    const Thread& t = r.threads[base + size_t(l)];
    const auto lo = reinterpret_cast<uintptr_t>(t.stack_bottom);
    const wmma::Call& c = call_of(r, base, size_t(l));
    for (int f = 0; f < 4; ++f) {
      const wmma::FragRef& fr = c.frag[f];
      const size_t bytes = size_t(fr.count) * (fr.elem == wmma::elem_half ? 2 : 4);
      const auto a = reinterpret_cast<uintptr_t>(fr.x);
      if (a - lo <= t.stack_size && bytes <= t.stack_size - (a - lo)) continue;
      static const char* const kOperand[4] = {"d", "a", "b", "c"};
      r.add(wmma_finding(tilelab::findings::kPtxOperand, file, line,
                         std::string(call.name) + " at line " + std::to_string(line) + ": lane " + std::to_string(l) +
                             "'s operand " + kOperand[f] + " is " + where_text(r, fr.x, 4) +
                             ", not the lane's own registers; on the emulator an mma's a, b, c and d must be "
                             "local arrays (fragments) of the thread: load memory into one first (an emulator "
                             "limit: it could not count, bounds-check or order the operand's loads)"),
            "ptx-operand-registers:" + std::to_string(line));
      return false;
    }
  }
  return true;
}

// mma_sync for the lanes of `group` (all at one call site): every lane's a, b and c gathered into
// whole matrices (elements of lanes not there are 0: a divergence was reported), d = a * b + c with
// exact products and float32 sums in k order from c, scattered into each lane's d.
void compute_mma(Runtime& r, size_t base, uint32_t group) {
  const wmma::Call& first = call_of(r, base, size_t(__builtin_ctz(group)));
  const int m = first.frag[0].m, n = first.frag[0].n, k = first.frag[0].k;
  const bool tf32 = first.frag[1].elem == wmma::elem_tf32;
  float A[32 * 16] = {}, B[16 * 32] = {}, C[32 * 32] = {}, D[32 * 32];
  float* mats[4] = {nullptr, A, B, C};
  const int cols[4] = {n, k, n, n};
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1u)) continue;
    const wmma::Call& c = call_of(r, base, size_t(l));
    for (int f = 1; f < 4; ++f) {
      const wmma::FragRef& fr = c.frag[f];
      if (!same_kind(fr, first.frag[f])) continue;  // reported as non-uniform
      const int distinct = wmma::operand_elements(fr.use, m, n, k, fr.elem);
      for (int i = 0; i < distinct; ++i) {
        int row = 0, col = 0;
        wmma::element_at(fr.use, m, n, k, l, i, row, col);
        const float v = read_elem(fr, i);
        mats[f][row * cols[f] + col] = tf32 && f < 3 ? tf32_input(v) : v;
      }
    }
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = C[i * n + j];
      for (int kk = 0; kk < k; ++kk) {
        const float p = A[i * k + kk] * B[kk * n + j];  // exact: two 11-bit significands
        acc = acc + p;
      }
      D[i * n + j] = acc;
    }
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1u)) continue;
    const wmma::FragRef& d = call_of(r, base, size_t(l)).frag[0];
    if (!same_kind(d, first.frag[0])) continue;
    const int distinct = wmma::operand_elements(d.use, m, n, k, d.elem);
    for (int i = 0; i < d.count; ++i) {
      int row = 0, col = 0;
      wmma::element_at(d.use, m, n, k, l, i % distinct, row, col);
      write_elem(d, i, D[row * n + col]);
    }
  }
}

}  // namespace

void release_wmma(Runtime& r, size_t base, size_t n, uint32_t present, uint32_t wmma_lanes, uint32_t at_barrier,
                  uint32_t done) {
  const std::string warp = "warp " + std::to_string(base / 32) + " of block " + fmt_idx(blockIdx, gridDim);
  const uint32_t exist = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  uint32_t left = wmma_lanes;
  while (left) {
    // The lanes at the same call as the lowest lane left.
    const Thread& t0 = r.threads[base + size_t(__builtin_ctz(left))];
    uint32_t group = 0;
    for (uint32_t m = left; m; m &= m - 1) {
      const Thread& t = r.threads[base + size_t(__builtin_ctz(m))];
      if (t.wait_line == t0.wait_line && t.wait_file == t0.wait_file) group |= 1u << __builtin_ctz(m);
    }
    left &= ~group;
    const wmma::Call& call = call_of(r, base, size_t(__builtin_ctz(group)));
    const std::string at = std::string(call.name) + " at line " + std::to_string(t0.wait_line);

    // Every lane of the warp must be here.
    const uint32_t absent = 0xffffffffu & ~group;
    if (absent) {
      std::string why;
      const auto add = [&](uint32_t lanes, const std::string& what) {
        if (lanes) why += (why.empty() ? "" : "; ") + lanes_text(lanes) + " " + what;
      };
      add(done & absent, "returned");
      for (uint32_t m = at_barrier & absent; m;) {  // by barrier line
        const Thread& b = r.threads[base + size_t(__builtin_ctz(m))];
        uint32_t same = 0;
        for (uint32_t q = m; q; q &= q - 1) {
          const Thread& u = r.threads[base + size_t(__builtin_ctz(q))];
          if (u.wait_line == b.wait_line && u.wait_file == b.wait_file) same |= 1u << __builtin_ctz(q);
        }
        add(same, "wait at the __syncthreads() at line " + std::to_string(b.wait_line));
        m &= ~same;
      }
      for (uint32_t m = present & absent; m;) {  // at another warp operation, by line
        const Thread& o = r.threads[base + size_t(__builtin_ctz(m))];
        uint32_t same = 0;
        for (uint32_t q = m; q; q &= q - 1) {
          const Thread& u = r.threads[base + size_t(__builtin_ctz(q))];
          if (u.wait_line == o.wait_line && u.wait_file == o.wait_file) same |= 1u << __builtin_ctz(q);
        }
        const std::string what = o.warp_op == warp::wmma
                                     ? std::string(call_of(r, base, size_t(__builtin_ctz(same))).name)
                                     : std::string("a warp operation");
        add(same, "are at " + what + " at line " + std::to_string(o.wait_line));
        m &= ~same;
      }
      add(absent & ~exist, "do not exist (the block has " + std::to_string(r.threads.size()) +
                               " threads, not a multiple of 32)");
      r.add(wmma_finding(tilelab::findings::kWmmaDivergence, t0.wait_file, t0.wait_line,
                         "every lane of a warp must call " + std::string(call.name) + " together: in " + warp + ", " +
                             lanes_text(group) + " are at " + at + " while " + why +
                             "; call the wmma functions where the whole warp goes (a condition that differs "
                             "between lanes, or an early return of some lanes, splits the warp), as on a GPU, "
                             "where the result is undefined"),
            "wmma-divergence:" + std::to_string(t0.wait_line));
    }

    // The same arguments in every lane (ldmatrix's lanes each give a row: ptx.cpp checks them).
    const bool memory_op = call.op == wmma::op_load || call.op == wmma::op_store;
    const int lead = __builtin_ctz(group);
    for (uint32_t m = group & (group - 1); m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      const wmma::Call& c = call_of(r, base, size_t(l));
      bool same = c.op == call.op;
      for (int f = 0; f < (call.op == wmma::op_mma ? 4 : 1) && same; ++f) same = same_kind(c.frag[f], call.frag[f]);
      std::string what;
      if (!same) what = "fragments of different types";
      else if (memory_op && c.ptr != call.ptr)
        what = "different pointers (lane " + std::to_string(lead) + ": " + where_text(r, call.ptr, call.elem_bytes) +
               ", lane " + std::to_string(l) + ": " + where_text(r, c.ptr, c.elem_bytes) + ")";
      else if (memory_op && c.ldm != call.ldm)
        what = "different ldm (lane " + std::to_string(lead) + ": " + std::to_string(call.ldm) + ", lane " +
               std::to_string(l) + ": " + std::to_string(c.ldm) + ")";
      else if (memory_op && c.mem_col_major != call.mem_col_major)
        what = "different layouts";
      if (what.empty()) continue;
      r.add(wmma_finding(tilelab::findings::kWmmaNonuniform, t0.wait_file, t0.wait_line,
                         "the lanes of " + warp + " pass " + what + " to " + at +
                             ": the pointer, ldm and layout must be the same for every lane of the warp (the warp "
                             "loads or stores the whole tile together): compute them from the warp's index (such "
                             "as threadIdx.x / 32), not from the lane's"),
            "wmma-nonuniform:" + std::to_string(t0.wait_line));
      break;
    }

    // CUDA's rules for mptr and ldm.
    if (call.op == wmma::op_ldmatrix) {
      release_ldmatrix(r, base, group, t0.wait_file, t0.wait_line);
    } else if (memory_op) {
      const auto a = reinterpret_cast<uintptr_t>(call.ptr);
      if (a % 32 != 0)
        r.add(wmma_finding(tilelab::findings::kWmmaMisaligned, t0.wait_file, t0.wait_line,
                           at + " is given " + where_text(r, call.ptr, call.elem_bytes) + ", " +
                               std::to_string(a % 32) + " bytes past a 32-byte boundary: mptr must be 256-bit "
                               "(32-byte) aligned, so a tile must start at a multiple of " +
                               std::to_string(32 / (call.elem_bytes ? call.elem_bytes : 1)) +
                               " elements from an aligned base (a matrix row of a width that is not such a "
                               "multiple does not: stage the tile through shared memory)"),
              "wmma-misaligned:" + std::to_string(t0.wait_line));
      if ((size_t(call.ldm) * call.elem_bytes) % 16 != 0)
        r.add(wmma_finding(tilelab::findings::kWmmaMisaligned, t0.wait_file, t0.wait_line,
                           at + " is given ldm = " + std::to_string(call.ldm) + ": ldm must be a multiple of " +
                               std::to_string(16 / (call.elem_bytes ? call.elem_bytes : 1)) + " for " +
                               (call.elem_bytes == 2 ? "__half" : "float") +
                               " elements (16 bytes), so that every row (or column) starts aligned: pad the "
                               "tile's row length to such a multiple"),
              "wmma-ldm:" + std::to_string(t0.wait_line));
    } else {
      if (!registers_only(r, base, group, call, t0.wait_file, t0.wait_line)) continue;
      hooks::accumulator(r, base, group, false);  // the count build follows c into d (hooks_count.cpp)
      compute_mma(r, base, group);
      hooks::accumulator(r, base, group, true);
      const void* frag[3];
      int regs[3];
      for (int f = 0; f < 3; ++f)
        frag[f] = call.frag[f].x, regs[f] = call.frag[f].elem == wmma::elem_half ? (call.frag[f].count + 1) / 2 : call.frag[f].count;
      hooks::tensor_op(r, base, call.frag[1].m, call.frag[1].n, call.frag[1].k, frag, regs);  // the count build counts it
    }
  }
}

}  // namespace tlemu
