#include "confine.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

// The kernel's interface, declared here rather than taken from <linux/landlock.h>: older
// distributions' headers (Debian 11) lack it or its later rights, while the running kernel, not the
// build machine, decides what is available (landlock_abi()).
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

namespace tilelab::confine {
namespace {

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct PathBeneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr uint32_t kCreateVersion = 1u << 0;  // LANDLOCK_CREATE_RULESET_VERSION
constexpr int kRulePathBeneath = 1;

enum : uint64_t {
  kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3,
  kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7,
  kMakeReg = 1ull << 8, kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
  kMakeSym = 1ull << 12,
  kRefer = 1ull << 13,     // ABI 2
  kTruncate = 1ull << 14,  // ABI 3
  kIoctlDev = 1ull << 15,  // ABI 5
};
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr uint64_t kNetBindTcp = 1, kNetConnectTcp = 2;                // ABI 4
constexpr uint64_t kScopeAbstractUnix = 1, kScopeSignal = 2;           // ABI 6

uint64_t fs_rights(int abi) {
  uint64_t r = (kMakeSym << 1) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) r |= kRefer;
  if (abi >= 3) r |= kTruncate;
  if (abi >= 5) r |= kIoctlDev;
  return r;
}

bool add(int ruleset, const std::string& path, uint64_t rights, std::string& why) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES;  // nothing there to allow
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;
  PathBeneath pb{rights, fd};
  const long r = ::syscall(__NR_landlock_add_rule, ruleset, kRulePathBeneath, &pb, 0);
  const int err = errno;
  ::close(fd);
  if (r != 0 && rights != 0) {
    why = "Landlock refused a rule for " + path + ": " + std::strerror(err);
    return false;
  }
  return true;
}

}  // namespace

bool drop_capabilities() {
  // The bounding set can only be lowered with CAP_SETPCAP (root); an unprivileged process holds no
  // capability, and no_new_privs keeps it from gaining any through exec.
  if (::geteuid() == 0)
    for (int cap = 0; cap < 64; ++cap)
      if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 && ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return false;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct {
    uint32_t version;
    int pid;
  } header{0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
  struct {
    uint32_t effective, permitted, inheritable;
  } data[2] = {};
  return ::syscall(SYS_capset, &header, data) == 0;
}

int landlock_abi() {
  const long v = ::syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateVersion);
  return v > 0 ? int(v) : 0;
}

Policy worker_policy(const std::string& executable, long self_pid) {
  Policy p;
  // The system: the loader, libc, libstdc++, the CUDA driver and runtime libraries (also where
  // LD_LIBRARY_PATH points), their configuration. Nothing of a user's, a build tree's or the kit's.
  p.read_exec = {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt"};
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::string s = ld;
    for (size_t a = 0; a <= s.size();) {
      size_t b = s.find(':', a);
      if (b == std::string::npos) b = s.size();
      if (b > a && s[a] == '/') p.read_exec.push_back(s.substr(a, b - a));
      a = b + 1;
    }
  }
  p.read_exec.push_back(executable);
  p.read = {"/etc", "/sys", "/proc/driver", "/proc/sys", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
            "/proc/filesystems", "/proc/version"};
  // The GPU's device nodes and the harmless ones by name -- not all of /dev: not /dev/shm's files, a
  // terminal, the consoles or the kernel log (the red team's dev-shm-plant, tty-inject,
  // dev-console) -- and its own /proc entry (the CUDA runtime names its threads by writing
  // task/<tid>/comm), not the judge's or CTest's command line or environment.
  p.read_write = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/nvidia-caps",
                  "/proc/" + std::to_string(self_pid)};
  if (DIR* d = ::opendir("/dev")) {
    while (const dirent* e = ::readdir(d))
      if (std::strncmp(e->d_name, "nvidia", 6) == 0) p.read_write.push_back(std::string("/dev/") + e->d_name);
    ::closedir(d);
  }
  return p;
}

int restrict(const Policy& policy, std::string& why) {
  const int abi = landlock_abi();
  if (abi <= 0) {
    why = "this kernel has no Landlock (Linux 5.13 or later, with landlock among its LSMs)";
    return 0;
  }
  const uint64_t all = fs_rights(abi);
  RulesetAttr attr{all, 0, 0};
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4 && policy.deny_network) attr.handled_access_net = kNetBindTcp | kNetConnectTcp, attr_size = 2 * sizeof(uint64_t);
  if (abi >= 6) {
    attr.scoped = (policy.deny_network ? kScopeAbstractUnix : 0) | (policy.deny_signals_out ? kScopeSignal : 0);
    attr_size = sizeof attr;
  }
  const int ruleset = int(::syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) {
    why = std::string("Landlock refused the ruleset: ") + std::strerror(errno);
    return 0;
  }
  const uint64_t read = kReadFile | kReadDir;
  const uint64_t write = all & ~kExecute;
  const uint64_t device = kReadFile | kReadDir | kWriteFile | (all & (kTruncate | kIoctlDev));
  bool ok = true;
  for (const auto& d : policy.read) ok = ok && add(ruleset, d, read, why);
  for (const auto& d : policy.read_exec) ok = ok && add(ruleset, d, read | kExecute, why);
  for (const auto& d : policy.write) ok = ok && add(ruleset, d, write, why);
  for (const auto& d : policy.read_write) ok = ok && add(ruleset, d, device, why);
  if (ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    why = std::string("no_new_privs: ") + std::strerror(errno);
    ok = false;
  }
  if (ok && ::syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
    why = std::string("Landlock refused to restrict: ") + std::strerror(errno);
    ok = false;
  }
  ::close(ruleset);
  return ok ? abi : 0;
}

}  // namespace tilelab::confine
