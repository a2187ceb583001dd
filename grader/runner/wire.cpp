#include "wire.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tilelab::wire {
namespace {

constexpr char kHead = 'J', kMatrix = 'M';
constexpr uint64_t kMaxHead = uint64_t(16) << 20;

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

bool frame(int fd, char type, const void* data, uint64_t bytes) {
  return write_all(fd, &type, 1) && write_all(fd, &bytes, sizeof bytes) && write_all(fd, data, bytes);
}

// Reads exactly n bytes before the deadline.
Read read_all(int fd, void* p, size_t n, Deadline deadline) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Read::kTimeout;
    pollfd pf{fd, POLLIN, 0};
    const int ready = ::poll(&pf, 1, int(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Read::kEof;
    c += r;
    n -= size_t(r);
  }
  return Read::kOk;
}

}  // namespace

bool send(int fd, const nlohmann::json& head, const std::vector<const std::vector<float>*>& mats) {
  nlohmann::json h = head;
  h["mats"] = mats.size();
  const std::string text = h.dump();
  if (!frame(fd, kHead, text.data(), text.size())) return false;
  for (const auto* m : mats)
    if (!frame(fd, kMatrix, m->data(), m->size() * sizeof(float))) return false;
  return true;
}

Read receive(int fd, Message& out, Deadline deadline, size_t max_floats) {
  out = {};
  // A frame's type and length; once a message has begun, a closed channel is a message cut short.
  char type = 0;
  uint64_t len = 0;
  auto header = [&](bool begun) {
    Read r = read_all(fd, &type, 1, deadline);
    if (r != Read::kOk) return begun && r == Read::kEof ? Read::kGarbage : r;
    r = read_all(fd, &len, sizeof len, deadline);
    return r == Read::kEof ? Read::kGarbage : r;
  };
  auto body = [&](void* p) {
    const Read r = read_all(fd, p, len, deadline);
    return r == Read::kEof ? Read::kGarbage : r;
  };
  Read r = header(false);
  if (r != Read::kOk) return r;
  if (type != kHead || len > kMaxHead) return Read::kGarbage;
  std::string text(len, '\0');
  if ((r = body(text.data())) != Read::kOk) return r;
  try {
    out.head = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return Read::kGarbage;
  }
  if (!out.head.is_object()) return Read::kGarbage;
  const auto n = out.head.value("mats", nlohmann::json(0));
  if (!n.is_number_unsigned() || n.get<uint64_t>() > 8) return Read::kGarbage;
  for (uint64_t i = 0; i < n.get<uint64_t>(); ++i) {
    if ((r = header(true)) != Read::kOk) return r;
    if (type != kMatrix || len % sizeof(float) || len / sizeof(float) > max_floats) return Read::kGarbage;
    std::vector<float> m(len / sizeof(float));
    if ((r = body(m.data())) != Read::kOk) return r;
    out.mats.push_back(std::move(m));
  }
  return Read::kOk;
}

}  // namespace tilelab::wire
