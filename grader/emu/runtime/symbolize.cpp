// Code addresses to source lines: addr2line on this executable (internal.hpp, symbolize()). A
// worker runs in a sandbox that starts no program (grader/runner/sandbox.hpp), so it forks a helper
// first (start_symbolizer()), outside the sandbox, that runs addr2line for it; a process that
// started none (the trace tool) runs addr2line itself.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "internal.hpp"

namespace tlemu {
namespace {

int g_request = -1, g_reply = -1;  // the helper's pipes, once started

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w <= 0) return false;
    c += w, n -= size_t(w);
  }
  return true;
}
bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r <= 0) return false;
    c += r, n -= size_t(r);
  }
  return true;
}

// addr2line's output for these offsets into this executable (-i: inlined frames, -a: each
// address before its lines).
std::string addr2line(const std::vector<uint64_t>& offsets) {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || offsets.empty()) return "";
  exe[n] = 0;
  std::string cmd = "addr2line -i -a -e '" + std::string(exe) + "'";
  for (uint64_t a : offsets) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%" PRIx64, a);
    cmd += buf;
  }
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[8192];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, k);
    ::pclose(p);
  }
  return out;
}

// The helper: a request is a count and that many offsets; the reply, addr2line's output with its length.
[[noreturn]] void serve(int in, int out) {
  for (;;) {
    uint32_t count = 0;
    if (!read_all(in, &count, sizeof count) || count > 4096) ::_exit(0);
    std::vector<uint64_t> offsets(count);
    if (!read_all(in, offsets.data(), count * sizeof(uint64_t))) ::_exit(0);
    const std::string text = addr2line(offsets);
    const uint64_t bytes = text.size();
    if (!write_all(out, &bytes, sizeof bytes) || !write_all(out, text.data(), text.size())) ::_exit(0);
  }
}

std::string lines_for(const std::vector<uint64_t>& offsets) {
  if (g_request < 0) return addr2line(offsets);
  const uint32_t count = uint32_t(std::min<size_t>(offsets.size(), 4096));
  uint64_t bytes = 0;
  std::string text;
  if (!write_all(g_request, &count, sizeof count) || !write_all(g_request, offsets.data(), count * sizeof(uint64_t)) ||
      !read_all(g_reply, &bytes, sizeof bytes) || bytes > (uint64_t(1) << 26))
    return "";
  text.resize(bytes);
  if (!read_all(g_reply, text.data(), bytes)) return "";
  return text;
}

}  // namespace

void start_symbolizer() {
  int request[2], reply[2];
  if (g_request >= 0 || ::pipe2(request, O_CLOEXEC) != 0) return;
  if (::pipe2(reply, O_CLOEXEC) != 0) return;
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // it ends with the worker (and with its process group)
    ::close(request[1]), ::close(reply[0]);
    serve(request[0], reply[1]);
  }
  ::close(request[0]), ::close(reply[1]);
  g_request = request[1], g_reply = reply[0];
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
