// Whether a timing stands for the kernels' own work (docs/integrity.md): the rules that withhold
// performance credit, each reading only what the judge saw or computed itself.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "judge_result.hpp"  // ResultWriter
#include "judge_session.hpp"  // TimingStats, Audit

namespace tilelab::judge {

// One implementation's timing; without times (the emulator) only its calls and launches.
nlohmann::json stats_json(const TimingStats& t, const Shape& s, double peak_gflops);

// A timing that does not stand for the kernels' own work earns nothing. Each rule reads what the
// judge saw or computed itself, so the worker cannot talk its way past it, and grades sharing the
// GPU cannot trip or hide it:
//  - timed calls that launched fewer kernels than there were calls (some did none of the product:
//    e.g. code that launches only the first time it sees a set of pointers);
//  - a timed call whose P, checked after the fact, is wrong for the inputs of its own it was given
//    (a result cached from an earlier call, or work left for a later one);
//  - a speed above the device's peak for the stage's precision (FP32 cores, or TF32 tensor cores);
//  - a reported time far below what the judge's own clock saw each call take (a patched timer);
//  - on the emulator's count build, kernels that loaded less of M and N than any product needs
//    (the product was computed elsewhere; zero traffic would otherwise model as near-peak speed);
//  - on the count build, kernels that did not do the same work on every call it counted, or whose
//    sampled blocks loaded less than the grid as a whole (uneven_work).
std::string implausible_timing(ResultWriter& r, const nlohmann::json& mine, const TimingStats& t, const Audit& audit,
                               const Shape& s, double peak_gflops, const char* peak_name);

// Global loads of M and N per multiply-add of the product, from a model's counts: the 4-byte floats
// the lanes asked for (global_load_bytes / 4) over J*K*L. Untiled 2; tiles of width T, 2/T.
double loads_per_fma(const nlohmann::json& model, const Shape& s);

// What shared memory is for (docs/integrity.md): where the count build counted the kernels' loads,
// they must fall as the stage's tiles promise (stage.toml max_global_loads_per_fma). Returns the
// verdict's message, or "" when they do (or nothing was counted).
// Two ways to miss the limit, told apart (issue #40, item 6): the operands do not go through tiles
// (no shared memory read, or loads cut by less than half: a tile of width T makes 2/T, so at most 1
// means tiles at least 2 wide of both M and N) -- `no-shared-memory`; or they do, and the tiles are
// too narrow -- `tiles-too-small`, naming the width the limit needs: the book's tiled kernel loads
// 2/T per multiply-add, so T >= 2/limit, rounded up to a power of two (the widths a block of T x T
// threads and the stages' width_multiple allow; 16 for limit 1.5 x 2/16).
std::string untiled_loads(ResultWriter& r, const TimingStats& t, const StageSpec& spec, const Shape& s);

}  // namespace tilelab::judge
