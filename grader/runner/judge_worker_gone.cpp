#include "judge_worker_gone.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "judge_result.hpp"

namespace tilelab::judge {

namespace {

namespace pf = schema::progress;

// A run of the emulator that passed its time limit, told from the progress it reported
// (grader/emu/progress.hpp; issue #26, item 2). Hung: nothing finished (no thread, no barrier, no
// block) in the last quarter of the limit (at least 1 s) -- an endless loop; the hint stays the
// fixed `timeout` one, and the grader stops the stage's other checks. Slow: the kernel was still
// finishing threads, barriers and blocks -- said with how far it got, at what pace, and, where its
// phases outnumber those the product needs, by how much; hint_code `too-slow`, and the grader runs
// the stage's other checks. The verdict is `timeout` either way (the page is written by the process
// that runs the code under test: it words the verdict, never changes it).
int timed_out(ResultWriter& r, const WorkerGone& g, double timeout, const Shape& s, int tile) {
  const std::string limit = "the run did not finish within " + std::to_string(int(timeout)) + " s";
  const tlemu::Progress& p = g.progress;
  if (p.magic != tlemu::kProgressMagic || !p.attached || p.launches == 0) {
    set_hint(r, hints::kTimeout);
    return finish(r, kTimeout, limit);
  }
  const double stalled = double(g.at_ns - p.last_progress_ns) * 1e-9;
  const double ran = std::max(1e-3, double(g.at_ns - p.launch_start_ns) * 1e-9);
  const auto text = [](const char* c, size_t n) { return std::string(c, strnlen(c, n)); };
  const std::string kernel = text(p.kernel, sizeof p.kernel);
  const std::string blocks = std::to_string(p.blocks_done) + " of its " + std::to_string(p.blocks_total) + " blocks";
  const bool hung = stalled > std::max(1.0, 0.25 * timeout);
  char buf[512];
  if (hung) {
    std::snprintf(buf, sizeof buf,
                  ": the kernel hung -- for the last %.0f s no thread finished and no __syncthreads() was "
                  "passed (%s had finished %s, and %llu threads of the next)",
                  stalled, kernel.c_str(), blocks.c_str(), (unsigned long long)p.threads_done);
    set_hint(r, hints::kTimeout);
    r.at(rf::progress).set(pf::hung, true).set(pf::blocks_done, p.blocks_done).set(pf::blocks_total, p.blocks_total);
    return finish(r, kTimeout, limit + buf);
  }
  const double pace = double(p.blocks_done) / ran;  // blocks per second
  std::string why = limit + ": the kernel was not hung but too slow for the emulator -- " + kernel + " had finished " +
                    blocks + " in " + std::to_string(int(ran + 0.5)) + " s";
  if (pace > 0 && p.blocks_total > p.blocks_done) {
    std::snprintf(buf, sizeof buf, " (about %.0f s for the whole launch at that pace)", double(p.blocks_total) / pace);
    why += buf;
  }
  const uint64_t phases = p.phases_per_block ? p.phases_per_block : p.phases;
  const int64_t needed = tile > 0 ? (s.K + tile - 1) / tile : 0;
  std::string hint = "The emulator runs every thread on the CPU, so a kernel that does far more work than the "
                     "product needs runs out of time here although a GPU runs it fast.";
  if (needed > 0 && tile <= 32 && phases > uint64_t(2 * needed) && p.phase_line > 0) {
    std::snprintf(buf, sizeof buf, "; each block runs %llu phases (the __syncthreads() at line %lld is passed %llu "
                  "times) where ceil(K/%d) = %lld are needed (K = %lld)",
                  (unsigned long long)phases, (long long)p.phase_line, (unsigned long long)phases, tile,
                  (long long)needed, (long long)s.K);
    why += buf;
    std::snprintf(buf, sizeof buf, " %llu phases where ceil(K/%d) = %lld are needed: the phase loop's bound must come "
                  "from K, the length of each dot product, alone (not J, L or max(J, K, L)). The extra phases "
                  "load zeros, so P is right, but they are wasted work on a GPU too.",
                  (unsigned long long)phases, tile, (long long)needed);
    hint += buf;
  }
  r.set(rf::hint_code, hints::kTooSlow.code);
  r.set(rf::hint, hint);
  r.at(rf::progress).set(pf::hung, false).set(pf::blocks_done, p.blocks_done).set(pf::blocks_total, p.blocks_total)
      .set(pf::phases_per_block, phases).set(pf::phases_needed, needed).set(pf::seconds, ran);
  return finish(r, kTimeout, why);
}

}  // namespace

int worker_gone(ResultWriter& r, const WorkerGone& g, double timeout, const Shape& s, int tile) {
  switch (g.kind) {
    case WorkerGone::kTimeout:
      return timed_out(r, g, timeout, s, tile);
    case WorkerGone::kCrashed:
      set_hint(r, g_host_function ? hints::kCrash : hints::kCrashKernel);
      return finish(r, kError, std::string("the program crashed (") + g.what() + ") during the run");
    case WorkerGone::kExited:
      set_hint(r, hints::kExitedEarly);
      return finish(r, kError, "the program exited (code " + std::to_string(g.exit_code) + ") before it reported a result");
    case WorkerGone::kSandboxed:
      set_hint(r, hints::kSandbox);
      return finish(r, kError, std::string("the sandbox stopped the program at a system call grading does not allow (") +
                                   g.what() + ")");
    case WorkerGone::kGarbled:
      break;
  }
  set_hint(r, hints::kGarbledChannel);
  return finish(r, kError, "the run's channel to the grader was garbled");
}

}  // namespace tilelab::judge
