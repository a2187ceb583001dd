// Device memory of the builds without AddressSanitizer (plain, race, and those built like them):
// a cudaMalloc buffer sits between NaN-filled guard zones, so an overrun reads NaN (as a GPU reads
// garbage) and a write there is reported after the launch. guard_zones.cpp defines those builds'
// hooks::alloc_buffer and hooks::free_buffer; their hooks files call check from hooks::launch_end.
#pragma once
#include "internal.hpp"

namespace tlemu::guard_zones {
bool alloc(Buffer& b, size_t size);  // false: out of memory
void free(Runtime& r, Buffer& b);    // checks every buffer's guard zones first
// A write into a guard zone is an overrun the launch made (site: the launch; nullptr at cudaFree).
void check(Runtime& r, const LaunchSite* site);
}  // namespace tlemu::guard_zones
