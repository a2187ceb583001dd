// Code addresses to source lines: addr2line on this executable (internal.hpp, symbolize()).
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cinttypes>

#include "internal.hpp"

namespace tlemu {

std::map<const void*, std::pair<std::string, int>> symbolize(const std::set<const void*>& pcs) {
  std::map<const void*, std::pair<std::string, int>> out;
  if (pcs.empty()) return out;
  Dl_info info{};
  if (!::dladdr(*pcs.begin(), &info) || !info.dli_fbase) return out;
  const auto* ehdr = static_cast<const Elf64_Ehdr*>(info.dli_fbase);
  const bool pie = ehdr->e_type == ET_DYN;
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return out;
  exe[n] = 0;
  std::string cmd = "addr2line -i -a -e '" + std::string(exe) + "'";
  std::vector<const void*> order(pcs.begin(), pcs.end());
  for (const void* pc : order) {
    // A return address: the call (the access) is the instruction before it.
    const uintptr_t a = reinterpret_cast<uintptr_t>(pc) - 1 - (pie ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0);
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%" PRIxPTR, a);
    cmd += buf;
  }
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[8192];
  size_t k = 0;
  bool want = false;  // the first location after an address line is the innermost (inlined) frame
  while (std::fgets(line, sizeof line, p)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.rfind("0x", 0) == 0) {
      want = true;
      continue;
    }
    if (!want || k >= order.size()) continue;
    want = false;
    const size_t d = l.find(" (discriminator");
    if (d != std::string::npos) l.resize(d);
    const size_t c = l.rfind(':');
    int ln = 0;
    if (c != std::string::npos) ln = std::atoi(l.c_str() + c + 1);
    out[order[k++]] = {c == std::string::npos ? l : l.substr(0, c), ln};
  }
  ::pclose(p);
  return out;
}

}  // namespace tlemu
