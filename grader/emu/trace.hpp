// The trace build of the emulator runtime (runtime/hooks_trace.cpp), as the trace runner
// (grader/runner/trace_main.cpp) sees it: every load and store of the student's file that touches a
// cudaMalloc buffer (its guard zones included) or shared memory, in the order the emulator ran them,
// one CUDA thread at a time. `tilelab trace` (grader/tilelab/commands/trace.py) turns them into the book's
// tables (docs/emulator.md, "The trace build"). Meant for the book's tiny examples: every access is kept.
#pragma once
#include <string>
#include <vector>

#include "tilelab_emu.h"

namespace tlemu::trace {

struct Access {
  char kind = 0;        // 'L' global load, 'S' global store, 'l' shared load, 's' shared store,
                        // 'E' a thread's end (barriers: how many it passed in all)
  int launch = 0;       // which launch of the process, from 0
  uint3 block{0, 0, 0}, thread{0, 0, 0};
  int barriers = 0;     // the __syncthreads() the thread had passed before this access
  std::string element;  // "M[1][2]" (row and column, as the runner named the buffer; an overrun is
                        // named as if the matrix went on: M[4][0]), "Mds[0][1]"; a 4-byte element each
  bool inside = true;   // false: past the end of (or before) the buffer or __shared__ variable
  float value = 0;      // the float loaded, or stored (read back after the store)
  int line = 0;         // the student's source line of the access (0: unknown)
};

// The accesses recorded since the last call (and forgets them).
std::vector<Access> take();

}  // namespace tlemu::trace
