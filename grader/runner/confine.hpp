// Confinement applied to a process before it runs code it must not trust (docs/integrity.md,
// "The boundary"): what files it may read, write and execute (Landlock), and no gaining privileges
// (no_new_privs). The judge applies it in the worker's process between fork and exec, so the
// submission's constructors, .init code, ifunc resolvers and TLS initialisers already run inside
// it; tilelab-confine (confine_main.cpp) applies the same to the compiler, assembler and linker of
// a submission. Everything a rule does not name is out of reach: the build tree (CMakeCache.txt,
// the hidden datasets), solutions/, the answer keys, other submissions' trees, home folders, /tmp.
//
// Landlock needs Linux 5.13 or later with the LSM enabled. Where it is missing, restrict()
// says so and changes nothing; the caller decides (the judge refuses to grade sealed without it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tilelab::confine {

// The Landlock ABI version the running kernel offers; 0 when it has none.
int landlock_abi();

struct Policy {
  std::vector<std::string> read;       // read files and list folders beneath
  std::vector<std::string> read_exec;  // the same, and execute files beneath (toolchains, libraries)
  std::vector<std::string> write;      // read, write, create and remove beneath (an output folder)
  std::vector<std::string> read_write; // read, write and ioctl existing files beneath (/dev, its own /proc entry), create nothing
  bool deny_network = true;            // no TCP bind/connect (ABI 4), no abstract sockets or signals outside (ABI 6)
  bool deny_signals_out = true;        // ABI 6's signal scope: no signal to a process outside the domain
};

// What a grading worker may reach: the system's libraries and configuration, its own /proc
// entry, the device nodes, and its own executable. `self_pid` is the pid the worker will have
// (the child's, before exec).
Policy worker_policy(const std::string& executable, long self_pid);

// Empties the capability bounding, permitted, effective, inheritable and ambient sets of the calling
// thread, so that neither it nor what it executes (uid 0 included) holds any. False when the kernel
// refuses.
bool drop_capabilities();

// Sets no_new_privs and restricts the calling thread (and every program it executes) to `policy`.
// Paths that do not exist are skipped. Returns the ABI applied (> 0), or 0 with `why` set when the
// kernel has no Landlock or a rule could not be added; nothing is restricted then.
int restrict(const Policy& policy, std::string& why);

}  // namespace tilelab::confine
