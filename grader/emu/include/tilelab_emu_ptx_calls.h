// tilelab CPU emulator: what the kit's PTX wrappers (tilelab_emu_ptx.h, the student's side) ask of the
// runtime (runtime/ptx.cpp) for cp.async. Shared by both sides, as tilelab_emu_wmma_layout.h is for
// wmma; ldmatrix and mma go through tlemu::wmma_sync (that header).
//
// A thread's copies in flight: cp_async_16 checks its operands (cp_async_begin), loads its 16 bytes
// of global memory itself (a load of the student's file, which every build sees), and hands them to
// cp_async_issue, which keeps them in the thread's open group; cp_async_commit closes the group;
// cp_async_wait<N> takes back, one at a time (cp_async_land), the copies of every committed group but
// the newest N and stores them to their destinations itself (stores of the student's file). A copy
// never committed is never waited for (PTX's cp.async.wait_group too), and copies still in flight
// when the block ends are dropped.
#ifndef TILELAB_EMU_PTX_CALLS_H
#define TILELAB_EMU_PTX_CALLS_H

#include <cstdint>

namespace tlemu {
namespace ptx {

// What a cp_async_16 destination holds until its copy lands (the NaN the race build also gives
// unwritten shared memory, runtime/internal.hpp's kUnwrittenShared): a quiet NaN whose payload no
// arithmetic makes.
constexpr uint32_t kUnlandedBits = 0x7FC1A5EDu;

// Whether a cp_async_16 of 16 bytes from src (read only when in_bounds) into dst may be made: dst
// 16-byte aligned in shared memory, src 16-byte aligned and not shared memory. Else a finding
// (ptx-operand) at file:line, and false: the copy is not made (on a GPU it faults or writes
// elsewhere).
bool cp_async_begin(const float* dst, const float* src, bool in_bounds, const char* file, int line);
// Whether this build writes the destination with a NaN when a copy starts (the plain and asan
// builds: until the wait its content is undefined; the race build does it in cp_async_issue, with
// its shadow; the count and trace builds make no access that the GPU does not).
bool issue_writes_nan();
// The copy of `v` into dst starts, in the calling thread's open group.
void cp_async_issue(float* dst, const float (&v)[4]);
// The calling thread's open group is committed.
void cp_async_commit();
// One copy of the calling thread to land at a wait that leaves `pending` newest committed groups in
// flight: its destination and data, and true; false when no such copy is left.
bool cp_async_land(int pending, float*& dst, float (&v)[4]);

}  // namespace ptx
}  // namespace tlemu

#endif  // TILELAB_EMU_PTX_CALLS_H
