#include "isolation.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace tilelab::isolation {
namespace {

int g_fd = -1;  // the child's write end

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= size_t(w);
  }
  return true;
}

}  // namespace

bool in_child() { return g_fd >= 0; }

void send(char type, const void* data, size_t bytes) {
  if (g_fd < 0) return;
  const uint64_t len = bytes;
  write_all(g_fd, &type, 1) && write_all(g_fd, &len, sizeof len) && write_all(g_fd, data, bytes);
}

ChildReport run_isolated(const std::function<int()>& body, double timeout_s) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group, so the parent can end everything it starts
    ::close(fds[0]);
    g_fd = fds[1];
    int code = body();
    std::fflush(nullptr);
    ::_exit(code);
  }
  ::setpgid(pid, pid);  // also here, so there is no window before the child's own call
  ::close(fds[1]);

  ChildReport rep;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 1e9);
  std::string buf;
  char chunk[1 << 16];
  int status = 0;
  bool reaped = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      rep.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, int(std::min<long long>(left, 200)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      // Nothing to read: if the child has exited (a descendant may still hold the pipe open),
      // stop waiting for an EOF that may never come.
      if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
      if (reaped && !(::poll(&p, 1, 0) > 0)) break;
      continue;
    }
    if (ready < 0) continue;
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child (and everything holding the pipe) is done writing
    buf.append(chunk, size_t(n));
  }
  ::close(fds[0]);
  ::kill(-pid, SIGKILL);  // the child if it hangs, and anything it left behind
  if (!reaped) ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) rep.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !rep.timed_out) rep.signal = WTERMSIG(status);

  // Frames: type (1 byte), length (8 bytes), payload. A truncated last frame is dropped.
  size_t at = 0;
  while (at + 9 <= buf.size()) {
    const char type = buf[at];
    uint64_t len;
    std::memcpy(&len, buf.data() + at + 1, sizeof len);
    if (at + 9 + len > buf.size()) break;
    const char* payload = buf.data() + at + 9;
    if (type == kResult) {
      try {
        rep.result = nlohmann::json::parse(payload, payload + len);
        rep.has_result = true;
      } catch (const nlohmann::json::exception&) {
      }
    } else {
      std::vector<float> m(len / sizeof(float));
      std::memcpy(m.data(), payload, m.size() * sizeof(float));
      rep.matrices[type] = std::move(m);
    }
    at += 9 + len;
  }
  return rep;
}

}  // namespace tilelab::isolation
