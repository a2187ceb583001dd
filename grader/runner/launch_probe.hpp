// Records the kernels launched by the code under test, by wrapping the CUDA runtime's launch
// entry points at link time (-Wl,--wrap). From the recorded function, grid, block and dynamic
// shared memory come the resource report and occupancy of PMPP section 4.7 -- read from the
// compiled kernel's attributes, not from its source text.
#pragma once
#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include "host_traffic.hpp"

namespace tilelab::probe {

void start_recording();
void stop_recording();
// How many launches were recorded since the last start_recording().
size_t count();
// The buffer whose host-to-device copies are counted while recording (P of the run: a product the
// host computed and copied in is not a kernel's); copies_into_watched() counts them since the last
// start_recording(). Wraps cudaMemcpy, cudaMemcpyAsync, cudaMemcpy2D and cudaMemcpy2DAsync.
void watch(const void* p, size_t bytes);
size_t copies_into_watched();
// The traffic between host and device memory of one call (host_traffic.hpp): every copy, symbol
// copy, set and pinned allocation the code under test makes goes to this ledger while it is begun
// (wrapped at link time: TilelabStages.cmake lists them). pinned_held(): pinned host memory
// allocated through the wrapped calls and not freed.
Ledger& ledger();
size_t pinned_held();
// Launches seen while recording: grid, block, dynamic shared memory, stream, and for the last
// kernel its registers, static shared memory, local memory and occupancy with the binding limit.
nlohmann::json report(const cudaDeviceProp& prop);

}  // namespace tilelab::probe
