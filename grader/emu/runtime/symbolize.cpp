// Code addresses to source lines: addr2line on this executable (internal.hpp, symbolize()). A
// worker runs confined from its first instruction (grader/runner/sandbox.hpp) and starts no
// program, so the judge gives it a helper that runs addr2line for it (grader/runner/addr2line.hpp);
// a process that has none (the trace tool, which grades nothing) runs addr2line itself.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "../../runner/addr2line.hpp"
#include "internal.hpp"

namespace tlemu {
namespace {

// The judge's helper's pipes once adopted; kNone: none was given (a worker: no lines named);
// kSelf: not a worker, run addr2line here.
constexpr int kSelf = -1, kNone = -2;
int g_request = kSelf, g_reply = kSelf;

std::string lines_for(const std::vector<uint64_t>& offsets) {
  if (g_request == kNone) return "";
  if (g_request >= 0) return tilelab::addr2line::ask(g_request, g_reply, offsets);
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  exe[n] = 0;
  return tilelab::addr2line::run(exe, offsets);
}

}  // namespace

void start_symbolizer() {
  namespace a2l = tilelab::addr2line;
  const bool given = ::fcntl(a2l::kRequestFd, F_GETFD) >= 0 && ::fcntl(a2l::kReplyFd, F_GETFD) >= 0;
  g_request = given ? a2l::kRequestFd : kNone;
  g_reply = given ? a2l::kReplyFd : kNone;
}

std::map<const void*, std::pair<std::string, int>> symbolize(const std::set<const void*>& pcs, bool return_addresses) {
  std::map<const void*, std::pair<std::string, int>> out;
  if (pcs.empty()) return out;
  // Only addresses in this executable (where the runtime and the student's code are linked):
  // addr2line reads it, not the shared libraries.
  Dl_info self{};
  if (!::dladdr(reinterpret_cast<const void*>(&start_symbolizer), &self) || !self.dli_fbase) return out;
  const bool pie = static_cast<const Elf64_Ehdr*>(self.dli_fbase)->e_type == ET_DYN;
  std::vector<const void*> order;
  std::vector<uint64_t> offsets;
  for (const void* pc : pcs) {  // a return address: the call (the access) is the instruction before it
    Dl_info info{};
    if (!::dladdr(pc, &info) || info.dli_fbase != self.dli_fbase) continue;
    order.push_back(pc);
    offsets.push_back(reinterpret_cast<uintptr_t>(pc) - (return_addresses ? 1 : 0) -
                      (pie ? reinterpret_cast<uintptr_t>(self.dli_fbase) : 0));
  }
  if (order.empty()) return out;
  const std::string text = lines_for(offsets);
  size_t k = 0, at = 0;
  bool want = false;  // the first location after an address line is the innermost (inlined) frame
  while (at < text.size()) {
    size_t e = text.find('\n', at);
    if (e == std::string::npos) e = text.size();
    std::string l = text.substr(at, e - at);
    at = e + 1;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.rfind("0x", 0) == 0) {
      want = true;
      continue;
    }
    if (!want || k >= order.size()) continue;
    const size_t d = l.find(" (discriminator");
    if (d != std::string::npos) l.resize(d);
    const size_t c = l.rfind(':');
    // A frame inlined from the emulator's headers (tlemu::device_memcpy of a kernel's memcpy, an
    // atomic) is named by its caller's line, the next frame, where there is one.
    const size_t slash = l.rfind('/', c);
    const bool last = at >= text.size() || text.compare(at, 2, "0x") == 0;
    if (!last && l.compare(slash == std::string::npos ? 0 : slash + 1, 11, "tilelab_emu") == 0) continue;
    want = false;
    int ln = 0;
    if (c != std::string::npos) ln = std::atoi(l.c_str() + c + 1);
    out[order[k++]] = {c == std::string::npos ? l : l.substr(0, c), ln};
  }
  return out;
}

}  // namespace tlemu
