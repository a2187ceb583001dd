#include "gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>

namespace tilelab::judge {
namespace {

int open_lock_file(const std::string& path) {
  // O_RDONLY is enough for flock. Opened without O_CREAT where it is there already: in a sticky
  // world-writable folder (/var/tmp) the kernel refuses an O_CREAT open of a file another user made
  // (fs.protected_regular), even to root, and the batch's sandbox user and its root share the file.
  // Made here with O_EXCL where it is not, readable by all.
  for (int tries = 0; tries < 3; ++tries) {
    if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW); fd >= 0) return fd;
    if (errno != ENOENT) break;
    if (const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644); fd >= 0) {
      ::fchmod(fd, 0644);  // whatever the umask
      return fd;
    }
    if (errno != EEXIST) break;  // made by another judge meanwhile: open it as it is
  }
  throw std::system_error(errno, std::generic_category(), "the GPU's lock " + path);
}

void take(int fd, int how, const std::string& path) {
  while (::flock(fd, how) != 0)
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "flock " + path);
}

}  // namespace

GpuLock::GpuLock(const std::string& path) : path_(path) {
  gpu_ = open_lock_file(path);
  try {
    gate_ = open_lock_file(path + ".gate");
  } catch (...) {
    ::close(gpu_);
    throw;
  }
}

GpuLock::~GpuLock() {
  ::close(gate_);
  ::close(gpu_);
}

void GpuLock::share() {
  take(gate_, LOCK_EX, path_ + ".gate");
  take(gpu_, LOCK_SH, path_);
  take(gate_, LOCK_UN, path_ + ".gate");
}

double GpuLock::alone() {
  const auto t0 = std::chrono::steady_clock::now();
  take(gpu_, LOCK_UN, path_);
  take(gate_, LOCK_EX, path_ + ".gate");
  take(gpu_, LOCK_EX, path_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void GpuLock::share_again() {
  // Under the gate: no one waits on the GPU's file but the gate's holder, so the conversion (which
  // flock makes by letting go first) lets no one in between.
  take(gpu_, LOCK_SH, path_);
  take(gate_, LOCK_UN, path_ + ".gate");
}

}  // namespace tilelab::judge
