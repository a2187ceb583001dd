// The plain build's hooks (internal.hpp, namespace hooks): correctness, barrier checks, and
// cudaMalloc buffers inside NaN-filled guard zones; the student's file is not instrumented.
#include "guard_zones.hpp"
#include "internal.hpp"

namespace tlemu::hooks {

const char* backend_name() { return "emu"; }
size_t stack_bytes() { return 128 * 1024; }

void runtime_created(Runtime&) {}
void shared_declared(Runtime&, size_t, size_t) {}
void launch_begin(Runtime&, size_t) {}
void launch_end(Runtime& r, const LaunchSite& site, size_t) { guard_zones::check(r, &site); }
void block_begin(Runtime&) {}
void block_end(Runtime&) {}
void barrier(Runtime&, const char*, int) {}
void switch_start(Runtime&, int, void**) {}
void switch_finish(Runtime&, void*) {}

}  // namespace tlemu::hooks
