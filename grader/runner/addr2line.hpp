// Code addresses of a worker to its source lines, by binutils' addr2line on the worker's
// executable. A worker cannot start a program (its sandbox: sandbox.hpp), so the judge starts one
// helper per worker (worker_client.cpp) that runs addr2line for it, and hands the worker the two
// ends of its pipes on kRequestFd and kReplyFd; the emulator's runtime (grader/emu/runtime/
// symbolize.cpp) asks it there. A request is a count and that many offsets into the executable;
// the reply, addr2line's output (-i: inlined frames, -a: each address before its lines) with its
// length. The helper is the judge's code: the worker sends it numbers, never a command.
#pragma once
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tilelab::addr2line {

inline constexpr int kRequestFd = 6;  // the worker writes requests here
inline constexpr int kReplyFd = 7;    // and reads the replies here
inline constexpr uint32_t kMaxOffsets = 4096;

inline bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w <= 0) return false;
    c += w, n -= size_t(w);
  }
  return true;
}
inline bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r <= 0) return false;
    c += r, n -= size_t(r);
  }
  return true;
}

// addr2line's output for these offsets into `exe` ("" when it cannot run).
inline std::string run(const std::string& exe, const std::vector<uint64_t>& offsets) {
  if (exe.empty() || offsets.empty() || exe.find('\'') != std::string::npos) return "";
  std::string cmd = "addr2line -i -a -e '" + exe + "'";
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

// The helper's loop: answers requests on `in` with replies on `out` until either closes.
[[noreturn]] inline void serve(int in, int out, const std::string& exe) {
  for (;;) {
    uint32_t count = 0;
    if (!read_all(in, &count, sizeof count) || count > kMaxOffsets) ::_exit(0);
    std::vector<uint64_t> offsets(count);
    if (!read_all(in, offsets.data(), count * sizeof(uint64_t))) ::_exit(0);
    const std::string text = run(exe, offsets);
    const uint64_t bytes = text.size();
    if (!write_all(out, &bytes, sizeof bytes) || !write_all(out, text.data(), text.size())) ::_exit(0);
  }
}

// The client's side: one request and its reply ("" when the helper is gone).
inline std::string ask(int request, int reply, const std::vector<uint64_t>& offsets) {
  const uint32_t count = uint32_t(offsets.size() < kMaxOffsets ? offsets.size() : kMaxOffsets);
  uint64_t bytes = 0;
  std::string text;
  if (!write_all(request, &count, sizeof count) || !write_all(request, offsets.data(), count * sizeof(uint64_t)) ||
      !read_all(reply, &bytes, sizeof bytes) || bytes > (uint64_t(1) << 26))
    return "";
  text.resize(bytes);
  if (!read_all(reply, text.data(), bytes)) return "";
  return text;
}

}  // namespace tilelab::addr2line
