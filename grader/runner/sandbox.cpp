#include "sandbox.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

// Linux 5.12's mount_setattr, unknown to older kernel headers (Debian 11's are 5.10): the same
// number on every architecture since the tables were unified (5.1).
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

#include "tilelab/contract.hpp"
#include "wire.hpp"

// Raw BPF rather than libseccomp: the filter needs nothing but the kernel's headers, and the worker
// gains no shared library whose functions a submission could define in place of it (libc's are
// refused by the allow-list, grader/allowlist.toml).
#if defined(__x86_64__)
#define TILELAB_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TILELAB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the worker's sandbox knows x86_64 and aarch64"
#endif

namespace tilelab {
namespace {

struct Call {
  long nr;
  const char* name;
};

#define TL_ONE(n) {__NR_##n, #n}
#define TL_CALL(n) TL_ONE(n),
// Stopped outright. Opening a file to read is refused (below) rather than stopped, so that a
// library that looks for an optional file goes on without it.
constexpr Call kStopped[] = {
// programs and processes (threads are clone with CLONE_THREAD, allowed below)
    TL_CALL(execve) TL_CALL(execveat)
#ifdef __NR_fork
    TL_CALL(fork) TL_CALL(vfork)
#endif
// files: mounting and the kernel's file interfaces (creating, changing and removing files by path
// are kStoppedFiles, below)
    TL_CALL(open_by_handle_at) TL_CALL(name_to_handle_at) TL_CALL(chroot) TL_CALL(pivot_root) TL_CALL(mount) TL_CALL(umount2) TL_CALL(setxattr) TL_CALL(lsetxattr)
    TL_CALL(fsetxattr) TL_CALL(removexattr) TL_CALL(lremovexattr) TL_CALL(fremovexattr) TL_CALL(open_tree)
    TL_CALL(move_mount) TL_CALL(fsopen) TL_CALL(fsconfig) TL_CALL(fsmount) TL_CALL(fspick) TL_CALL(mount_setattr)
    TL_CALL(quotactl) TL_CALL(acct) TL_CALL(swapon) TL_CALL(swapoff) TL_CALL(fanotify_init)
// the network
    TL_CALL(socket) TL_CALL(socketpair) TL_CALL(connect) TL_CALL(bind) TL_CALL(listen) TL_CALL(accept)
    TL_CALL(accept4)
// other processes (signals to others are stopped below)
    TL_CALL(ptrace) TL_CALL(process_vm_readv) TL_CALL(process_vm_writev) TL_CALL(process_madvise)
    TL_CALL(pidfd_open) TL_CALL(pidfd_getfd) TL_CALL(pidfd_send_signal) TL_CALL(kcmp) TL_CALL(setpgid)
    TL_CALL(setsid) TL_CALL(tkill) TL_CALL(rt_sigqueueinfo)
// the kernel's privileged and bypass interfaces
    TL_CALL(bpf) TL_CALL(perf_event_open) TL_CALL(userfaultfd) TL_CALL(io_uring_setup) TL_CALL(io_uring_enter)
    TL_CALL(io_uring_register) TL_CALL(keyctl) TL_CALL(add_key) TL_CALL(request_key) TL_CALL(init_module)
    TL_CALL(finit_module) TL_CALL(delete_module) TL_CALL(kexec_load) TL_CALL(reboot) TL_CALL(unshare)
    TL_CALL(setns) TL_CALL(personality) TL_CALL(syslog) TL_CALL(setuid) TL_CALL(setgid) TL_CALL(setreuid)
    TL_CALL(setregid) TL_CALL(setresuid) TL_CALL(setresgid) TL_CALL(setfsuid) TL_CALL(setfsgid)
    TL_CALL(setgroups) TL_CALL(capset) TL_CALL(sethostname) TL_CALL(setdomainname) TL_CALL(settimeofday)
    TL_CALL(clock_settime) TL_CALL(adjtimex) TL_CALL(clock_adjtime) TL_CALL(vhangup)
#ifdef __NR_iopl
    TL_CALL(iopl) TL_CALL(ioperm) TL_CALL(modify_ldt) TL_CALL(kexec_file_load)
#endif
};
// Creating, renaming, removing and changing files by path. Stopped by kServe; kLaunch leaves them
// to Landlock, which judges the path (the CUDA driver's start-up makes a folder and links under
// /tmp, and stops where that is refused by a filter rather than by the file system).
constexpr Call kStoppedFiles[] = {
#ifdef __NR_open
    TL_CALL(creat) TL_CALL(unlink) TL_CALL(rename) TL_CALL(mkdir) TL_CALL(rmdir) TL_CALL(link)
    TL_CALL(symlink) TL_CALL(chmod) TL_CALL(chown) TL_CALL(lchown) TL_CALL(mknod) TL_CALL(utime) TL_CALL(utimes)
    TL_CALL(futimesat) TL_CALL(uselib)
#endif
    TL_CALL(unlinkat) TL_CALL(renameat) TL_CALL(renameat2) TL_CALL(mkdirat) TL_CALL(linkat) TL_CALL(symlinkat)
    TL_CALL(fchmodat) TL_CALL(fchownat) TL_CALL(truncate) TL_CALL(mknodat) TL_CALL(utimensat) TL_CALL(chdir)
    TL_CALL(fchdir)};
// Refused (an error, in both stages): objects that outlive the process and that any process of the
// same user can open -- System V and POSIX message queues, semaphores and shared memory (the red
// team's sysv-ipc-channel carried a note from one check to the next) -- and scheduling above the
// judge (real-time priority, a lower nice value: root's workers).
constexpr Call kRefused[] = {
    TL_CALL(shmget) TL_CALL(shmat) TL_CALL(shmctl) TL_CALL(shmdt) TL_CALL(msgget) TL_CALL(msgsnd) TL_CALL(msgrcv)
    TL_CALL(msgctl) TL_CALL(semget) TL_CALL(semop) TL_CALL(semctl) TL_CALL(semtimedop) TL_CALL(mq_open)
    TL_CALL(mq_unlink) TL_CALL(mq_timedsend) TL_CALL(mq_timedreceive) TL_CALL(mq_notify) TL_CALL(mq_getsetattr)
    TL_CALL(setpriority) TL_CALL(sched_setscheduler) TL_CALL(sched_setparam) TL_CALL(sched_setattr)};
// Allowed only towards this process: a signal (abort() raises one) and a new thread.
// Also the calls that change another process's limits or memory (0: itself). (Scheduling calls
// take a thread's id, which the CUDA runtime's own threads pass: left to Landlock's signal scope.)
constexpr Call kSelfOnly[] = {TL_CALL(kill) TL_CALL(tgkill) TL_CALL(rt_tgsigqueueinfo) TL_CALL(prlimit64)
                              TL_CALL(migrate_pages) TL_CALL(move_pages)};
constexpr Call kClone = TL_ONE(clone);
// Opening a file: refused (EACCES) to read, stopped to write, create or truncate. flags: which argument.
struct Open {
  Call call;
  int flags;
};
constexpr Open kOpens[] = {
#ifdef __NR_open
    {TL_ONE(open), 1},
#endif
    {TL_ONE(openat), 2}};
constexpr Call kOpenat2 = TL_ONE(openat2);  // its flags lie in memory the filter cannot read
#undef TL_CALL
#undef TL_ONE

bool is_network(long nr) {
  for (long n : {__NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4})
    if (n == nr) return true;
  return false;
}

const char* name_of(long nr) {
  for (const Call& c : kStopped)
    if (c.nr == nr) return c.name;
  for (const Call& c : kStoppedFiles)
    if (c.nr == nr) return c.name;
  for (const Call& c : kSelfOnly)
    if (c.nr == nr) return c.name;
  if (nr == kClone.nr) return kClone.name;
  for (const Open& o : kOpens)
    if (o.call.nr == nr) return o.call.name;
  return "a system call of another ABI";
}

// A stopped call: tell the judge which, then exit before it runs. Async-signal-safe: a fixed
// buffer and write(2) only.
void stopped(int, siginfo_t* info, void*) {
  const char* name = name_of(info->si_syscall);
  char json[128] = "{\"mats\":0,\"sandbox\":\"";
  std::strncat(json, name, 64);
  std::strcat(json, "\"}");
  const uint64_t bytes = std::strlen(json);
  char frame[1 + sizeof bytes + sizeof json];
  frame[0] = 'J';
  std::memcpy(frame + 1, &bytes, sizeof bytes);
  std::memcpy(frame + 1 + sizeof bytes, json, bytes);
  ssize_t ignored = ::write(wire::kWorkerOut, frame, 1 + sizeof bytes + bytes);
  (void)ignored;
  ::_exit(kError);
}

struct Program {
  std::vector<sock_filter> code;
  void op(uint16_t c, uint32_t k) { code.push_back(BPF_STMT(c, k)); }
  void jump(uint16_t c, uint32_t k, uint8_t t, uint8_t f) { code.push_back(BPF_JUMP(c, k, t, f)); }
  void load_nr() { op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)); }
  // The low 32 bits of argument i (a pid_t or the clone flags).
  void load_arg(int i) { op(BPF_LD | BPF_W | BPF_ABS, uint32_t(offsetof(seccomp_data, args) + 8 * i)); }
};

constexpr uint32_t kTrap = SECCOMP_RET_TRAP, kAllow = SECCOMP_RET_ALLOW;

// The filter of one stage. kServe stops a call (kTrap: the handler above names it); kLaunch, which
// runs before the worker has a handler or a channel, refuses it with an error instead, so that a
// library's start-up that tries something optional goes on without it and nothing is killed
// unexplained. `exec_path`: kLaunch's one allowed execve, recognised by the address of its path
// argument (a page the judge mapped at a random place just before; the program it executes has no
// way to know that address).
std::vector<sock_filter> filter(Stage stage, uint32_t self, const void* exec_path, bool tool = false, bool trap = false) {
  const bool launch = stage == Stage::kLaunch;
  // What kLaunch answers a refused call: the error, or (the probe) SIGSYS naming the call.
  auto refuse = [trap](int err) { return trap ? kTrap : SECCOMP_RET_ERRNO | uint32_t(err); };
  // EACCES as Landlock answers, ENOENT for a connection as where nobody listens: the CUDA driver's
  // start-up tries to make a folder and links in /tmp and to reach an MPS daemon, and goes on
  // without them after these answers, not after EPERM or ECONNREFUSED (measured on an H200).
  const uint32_t stop = launch ? refuse(EACCES) : kTrap;
  Program p;
  p.op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, TILELAB_AUDIT_ARCH, 1, 0);
  p.op(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  p.load_nr();
#if defined(__x86_64__)
  p.jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // the x32 ABI's numbers
  p.op(BPF_RET | BPF_K, launch ? uint32_t(SECCOMP_RET_KILL_PROCESS) : kTrap);
#endif
  if (launch) {  // execve: only the worker's own, once
    const uint64_t a = reinterpret_cast<uintptr_t>(exec_path);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(__NR_execve), 0, 6);
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(a), 0, 3);
    p.op(BPF_LD | BPF_W | BPF_ABS, uint32_t(offsetof(seccomp_data, args) + 4));
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(a >> 32), 0, 1);
    p.op(BPF_RET | BPF_K, kAllow);
    p.op(BPF_RET | BPF_K, stop);
  }
  if (launch && !tool) {
    // Local sockets only: the CUDA driver's start-up makes an AF_UNIX socket and binds one under
    // /tmp (which Landlock refuses), and fails where a filter refuses the socket (measured on an
    // H200). No other family (TCP, UDP, netlink, raw) is allowed.
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(__NR_socket), 0, 4);
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
    p.op(BPF_RET | BPF_K, kAllow);
    p.op(BPF_RET | BPF_K, refuse(EACCES));
    p.load_nr();
    // ...but it may connect to none: Landlock does not judge connecting to a named socket, and any
    // daemon the user may reach listens on one (D-Bus, X11, an SSH agent: the red team's
    // unix-path-daemon). The driver goes on without an MPS daemon, as where none runs.
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(__NR_connect), 0, 1);
    p.op(BPF_RET | BPF_K, refuse(ENOENT));
  }
  for (const Call& c : kStopped) {
    if (launch && is_network(c.nr) && (tool || c.nr != __NR_socket)) continue;  // above
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(c.nr), 0, 1);
    p.op(BPF_RET | BPF_K, stop);
  }
  for (const Call& c : kRefused) {
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(c.nr), 0, 1);
    p.op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
  }
  // ioctl: no keystrokes pushed into a terminal (TIOCSTI) and no console control (TIOCLINUX).
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(__NR_ioctl), 0, 5);
  p.load_arg(1);
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0);
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1);
  p.op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
  p.load_nr();
  for (const Call& c : kStoppedFiles) {
    if (launch) break;
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(c.nr), 0, 1);
    p.op(BPF_RET | BPF_K, stop);
  }
  // kServe: no file opens at all (read: refused; write: stopped). kLaunch leaves files to Landlock
  // (confine.hpp), which judges by path: the CUDA runtime opens its device nodes read-write and
  // names its threads by writing /proc/self/task/<tid>/comm (O_WRONLY | O_CREAT | O_TRUNC), and
  // fails to start where either is refused.
  constexpr uint32_t kWrites = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;  // O_TMPFILE needs a write mode
  for (const Open& o : kOpens) {
    if (launch) break;
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(o.call.nr), 0, 4);
    p.load_arg(o.flags);
    p.jump(BPF_JMP | BPF_JSET | BPF_K, kWrites, 0, 1);
    p.op(BPF_RET | BPF_K, kTrap);
    p.op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES);
  }
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(kOpenat2.nr), 0, 1);  // its flags lie in memory: glibc falls back to openat
  p.op(BPF_RET | BPF_K, launch ? refuse(ENOSYS) : SECCOMP_RET_ERRNO | EACCES);
  // clone3 passes its flags in memory the filter cannot read: "not implemented" makes glibc fall
  // back to clone, whose flags it can.
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(__NR_clone3), 0, 1);
  p.op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(kClone.nr), 0, 4);
  p.load_arg(0);
  p.jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
  p.op(BPF_RET | BPF_K, kAllow);
  p.op(BPF_RET | BPF_K, stop);
  for (const Call& c : kSelfOnly) {
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(c.nr), 0, 5);
    p.load_arg(0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, self, 2, 0);
    p.jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);  // kill(0, sig): this process group, the worker's own; pid 0: itself
    p.op(BPF_RET | BPF_K, stop);
    p.op(BPF_RET | BPF_K, kAllow);
    p.load_nr();
  }
  p.op(BPF_RET | BPF_K, kAllow);
  return p.code;
}

}  // namespace

void enter_launch_filter(const void* exec_path, bool tool_attached, bool trap_refused) {
  std::vector<sock_filter> code = filter(Stage::kLaunch, uint32_t(::getpid()), exec_path, tool_attached, trap_refused);
  sock_fprog prog{static_cast<unsigned short>(code.size()), code.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    throw std::runtime_error(std::string("the kernel refused the launch filter: ") + std::strerror(errno));
}

void enter_sandbox() {
  std::vector<sock_filter> code = filter(Stage::kServe, uint32_t(::getpid()), nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = stopped;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  const rlimit no_core{0, 0};  // a crash writes no core file into the tree
  if (::sigaction(SIGSYS, &sa, nullptr) != 0 || ::setrlimit(RLIMIT_CORE, &no_core) != 0)
    throw std::runtime_error("cannot prepare the sandbox");
  sock_fprog prog{static_cast<unsigned short>(code.size()), code.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
    throw std::runtime_error(std::string("the kernel refused the sandbox's seccomp filter: ") + std::strerror(errno));
}

}  // namespace tilelab
