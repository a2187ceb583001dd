// The runtime's side of the kit's PTX wrappers (include/tilelab_emu_ptx.h): cp.async's copies in
// flight, per thread (include/tilelab_emu_ptx_calls.h says the protocol), and ldmatrix.x4's
// collective (released by wmma.cpp's release_wmma, as the wmma calls are).
//
// What is a finding (once per call site):
//   ptx-operand  an operand the instruction cannot take: cp_async_16's destination not 16-byte
//                aligned shared memory, or its source (when read) not 16-byte aligned or shared
//                memory; an ldmatrix_x4 row address not 16-byte aligned shared memory. On a GPU the
//                generic-to-shared conversion of such an address names other memory, or the
//                instruction faults (misaligned address).
// ldmatrix_x4's lanes not all at the call are wmma-divergence (wmma.cpp).
#include <cstring>
#include <vector>

#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml
#include "internal.hpp"
#include "tilelab_emu_ptx_calls.h"

namespace tlemu {
namespace {

struct Copy {
  float* dst;
  float v[4];
  uint64_t group;
};
// One thread's copies in flight, oldest first, in the block that stamped it.
struct Flight {
  uint32_t block_epoch = 0;
  uint64_t committed = 0;  // groups committed; the open group is number `committed`
  std::vector<Copy> copies;
  size_t landed = 0;  // copies[0, landed) have landed
};

Flight& flight(Runtime& r) {
  static auto* all = new std::vector<Flight>();  // by thread index; never destroyed, like the Runtime
  if (all->size() <= r.tid) all->resize(size_t(r.tid) + 1);
  Flight& f = (*all)[r.tid];
  if (f.block_epoch != r.block_epoch) {  // a new block: an earlier block's copies are gone with it
    f.copies.clear();
    f.committed = f.landed = 0;
    f.block_epoch = r.block_epoch;
  }
  return f;
}

bool in_arena(const Runtime& r, uintptr_t a, size_t bytes) {
  return a - reinterpret_cast<uintptr_t>(r.arena) <= r.arena_size - bytes;
}

void operand_finding(Runtime& r, const char* file, int line, const std::string& message) {
  r.add(wmma_finding(tilelab::findings::kPtxOperand, file, line, message),
        std::string(tilelab::findings::kPtxOperand) + ":" + std::to_string(line));
}

}  // namespace

namespace ptx {

bool cp_async_begin(const float* dst, const float* src, bool in_bounds, const char* file, int line) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return false;  // host code: no shared memory to copy into
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  std::string why;
  if (!in_arena(r, d, 16))
    why = "its destination " + where_text(r, dst, 4) + " is not shared memory (cp.async copies global memory into a __shared__ array)";
  else if (d % 16)
    why = "its destination " + where_text(r, dst, 4) + " is " + std::to_string(d % 16) + " bytes past a 16-byte boundary";
  else if (in_bounds && in_arena(r, s, 1))
    why = "its source " + where_text(r, src, 4) + " is shared memory, not global memory";
  else if (in_bounds && s % 16)
    why = "its source " + where_text(r, src, 4) + " is " + std::to_string(s % 16) + " bytes past a 16-byte boundary";
  if (why.empty()) return true;
  operand_finding(r, file, line,
                  "cp_async_16 at line " + std::to_string(line) + " cannot copy: " + why +
                      "; both addresses must be 16-byte aligned (4 floats: a row of a width that is not a multiple "
                      "of 4 does not start aligned), the destination in shared memory, the source in global memory");
  return false;
}

bool issue_writes_nan() {
  static const bool writes = [] {
    const std::string b = hooks::backend_name();
    return b == "emu" || b == "emu-asan";
  }();
  return writes;
}

__attribute__((noinline)) void cp_async_issue(float* dst, const float (&v)[4]) {
  Runtime& r = rt();
  // cp_async_begin checked it; a direct call of this entry point copies into shared memory only
  if (!r.in_kernel || !r.current || !in_arena(r, reinterpret_cast<uintptr_t>(dst), 16)) return;
  Flight& f = flight(r);
  Copy c{dst, {v[0], v[1], v[2], v[3]}, f.committed};
  f.copies.push_back(c);
  hooks::async_copy_issued(r, dst, 16, __builtin_return_address(0));
}

void cp_async_commit() {
  Runtime& r = rt();
  if (r.in_kernel && r.current) ++flight(r).committed;
}

bool cp_async_land(int pending, float*& dst, float (&v)[4]) {
  Runtime& r = rt();
  if (!r.in_kernel || !r.current) return false;
  Flight& f = flight(r);
  if (f.landed == f.copies.size() || f.copies[f.landed].group + uint64_t(pending < 0 ? 0 : pending) >= f.committed) {
    if (f.landed == f.copies.size()) f.copies.clear(), f.landed = 0;
    return false;
  }
  const Copy& c = f.copies[f.landed++];
  dst = c.dst;
  std::memcpy(v, c.v, sizeof v);
  return true;
}

}  // namespace ptx

void release_ldmatrix(Runtime& r, size_t base, uint32_t group, const char* file, int line) {
  static const float kZero = 0.0f;  // what a lane gets from a row no lane gave (a finding says why)
  uint32_t usable = 0;
  for (uint32_t m = group; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    const void* row = call_of(r, base, size_t(l)).ptr;
    const auto a = reinterpret_cast<uintptr_t>(row);
    std::string why;
    if (!in_arena(r, a, 16)) why = " is not shared memory (ldmatrix reads a __shared__ array)";
    else if (a % 16) why = " is " + std::to_string(a % 16) + " bytes past a 16-byte boundary";
    if (!why.empty()) {
      operand_finding(r, file, line,
                      "ldmatrix_x4 at line " + std::to_string(line) + ": lane " + std::to_string(l) + "'s row address " +
                          where_text(r, row, 4) + why +
                          "; each lane's row (lanes 8q .. 8q + 7 give the 8 rows of matrix q) must be 16 bytes "
                          "(4 floats) of shared memory, 16-byte aligned: pad a tile's rows to a multiple of 4 floats");
      if (!in_arena(r, a, 16)) continue;  // not read: it may be anywhere
    }
    usable |= 1u << l;
  }
  // Lane l receives word l % 4 of row l / 4 of each matrix q (32-bit values: two b16 each).
  for (uint32_t m = group; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    auto* src = static_cast<const void**>(call_of(r, base, size_t(l)).frag[0].x);
    for (int q = 0; q < 4; ++q) {
      const int from = 8 * q + l / 4;
      src[q] = usable >> from & 1u ? static_cast<const char*>(call_of(r, base, size_t(from)).ptr) + 4 * (l % 4)
                                   : static_cast<const void*>(&kZero);
    }
  }
}

}  // namespace tlemu
