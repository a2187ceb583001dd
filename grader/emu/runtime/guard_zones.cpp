// Guard zones around cudaMalloc buffers (guard_zones.hpp).
#include "guard_zones.hpp"
#include "tilelab/findings.hpp"  // tilelab::findings: every finding code, generated from contract.toml

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace tlemu::guard_zones {
namespace {
// A cudaMalloc buffer has at least this much guard zone on each side, filled
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

// The first byte written after a buffer, as a student counts it: for a float matrix the element,
// its row and column as if the matrix went on (P[17][0] of a 17 x 17 P is one row too far), else
// the distance in bytes. "0 bytes past the end" read as "nothing was written out of bounds".
std::string overrun_element(const Buffer& b, const std::string& name, const char* at) {
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

}  // namespace

void check(Runtime& r, const LaunchSite* site) {
  for (auto& [base, b] : r.buffers) {
    if (!b.region) continue;
    const char* end = b.ptr + (b.size + 3) / 4 * 4;
    const char* region_end = b.region + b.region_size;
    const char* before = last_dirty(b.region, b.ptr);  // the one nearest the buffer
    const char* after = first_dirty(end, region_end);
    if (!before && !after) continue;
    const std::string name = b.name.empty() ? "a cudaMalloc buffer" : b.name;
    Finding f;
    f.kind = f.hint_code = tilelab::findings::kGlobalOverrun;
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

bool alloc(Buffer& b, size_t size) {
  // The buffer ends exactly where a NaN-filled guard zone starts; another guard zone precedes it.
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  const size_t guard = std::max(kGuardMin, (size + page - 1) / page * page);
  const size_t body = (size + 255) / 256 * 256;
  b.region_size = guard + body + guard;
  void* p = ::mmap(nullptr, b.region_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  b.region = static_cast<char*>(p);
  // 256-byte aligned, as cudaMalloc's pointers are (float4 loads need 16, wmma's load_matrix_sync
  // 32), ending at most 255 bytes before the guard zone; those bytes hold the guard pattern and are
  // checked like the guard zone.
  b.ptr = b.region + guard + body - (size + 255) / 256 * 256;
  fill_guard(b.region, b.region + b.region_size);
  return true;
}

void free(Runtime& r, Buffer& b) {
  check(r, nullptr);
  ::munmap(b.region, b.region_size);
}

}  // namespace tlemu::guard_zones

// Every build that links this file keeps its buffers in guard zones: its hooks for cudaMalloc and
// cudaFree are these (hooks_asan.cpp, which does not link it, has AddressSanitizer's own).
namespace tlemu::hooks {
bool alloc_buffer(Buffer& b, size_t size) { return guard_zones::alloc(b, size); }
void free_buffer(Runtime& r, Buffer& b) { guard_zones::free(r, b); }
}  // namespace tlemu::hooks
