// tilelab-confine: runs one program confined (confine.hpp: Landlock and no_new_privs), so that
// what it reads, writes and executes is limited to the paths named here. The build puts it in front
// of every compile, assemble and link of a submission's code (grader/cmake/TilelabConfine.cmake):
// the preprocessor's #include, the assembler's .incbin and the linker then open only the student's
// own file, the kit's public headers, the toolchain and the objects the link needs, never the
// grading seed in CMakeCache.txt, solutions/, the answer keys, the hidden datasets or another
// submission's tree (docs/integrity.md, "No build reads a secret").
//
//   tilelab-confine [--read P]... [--read-exec P]... [--write P]... [--device P]... [--tmpdir D]
//                   [--require] -- PROGRAM ARGS...
//
// --write folders are made when missing and possible (a rule needs an existing path); --tmpdir D is a --write
// folder that also becomes TMPDIR, so the compilers' temporary files stay in the build tree.
// Where the kernel has no Landlock: with --require (a sealed grade) it says why and exits 125
// without running PROGRAM; without it, it runs PROGRAM unconfined after one note on stderr.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "confine.hpp"

namespace {

// What the exit status says when PROGRAM never ran (as env(1) and timeout(1) do: 125 for the
// launcher's own failure, 126 for a program that cannot be executed, 127 for one not found).
constexpr int kConfineFailed = 125;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilelab-confine: run a program where it can read, write and execute only the paths named"};
  tilelab::confine::Policy policy;
  std::string tmpdir;
  bool require = false;
  std::vector<std::string> command;
  app.add_option("--read", policy.read, "a file or folder it may read (folders: everything beneath)");
  app.add_option("--read-exec", policy.read_exec, "a file or folder it may read and execute (a toolchain)");
  app.add_option("--write", policy.write, "a folder it may read and write beneath (made when missing)");
  app.add_option("--device", policy.read_write, "a device node (or folder of them) it may read, write and ioctl");
  app.add_option("--tmpdir", tmpdir, "a --write folder that is also its TMPDIR");
  app.add_flag("--require", require, "refuse to run PROGRAM unconfined (no Landlock here): a sealed grade");
  // The program's command line is everything after the first `--`, taken as it is (CLI11 would
  // read a compiler's own options, -o or -c, as its own).
  int split = 1;
  while (split < argc && std::strcmp(argv[split], "--") != 0) ++split;
  for (int i = split + 1; i < argc; ++i) command.emplace_back(argv[i]);
  try {
    app.parse(split, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kConfineFailed;
  }
  if (command.empty()) {
    std::fprintf(stderr, "tilelab-confine: no program to run (give it after --)\n%s", app.help().c_str());
    return kConfineFailed;
  }
  if (!tmpdir.empty()) policy.write.push_back(tmpdir);
  // A folder that cannot be made (a cache folder under another user's home) gets no rule: what then
  // writes there is refused, with the program's own message.
  for (const auto& w : policy.write) {
    std::error_code ec;
    std::filesystem::create_directories(w, ec);
  }
  if (!tmpdir.empty()) ::setenv("TMPDIR", tmpdir.c_str(), 1);

  std::string why;
  if (tilelab::confine::restrict(policy, why) <= 0) {
    if (require) {
      std::fprintf(stderr,
                   "tilelab-confine: cannot confine %s: %s. A sealed build (a grading seed is set) compiles "
                   "and links submissions only where they cannot read the seed, the solutions or the hidden "
                   "datasets: grade on a kernel with Landlock (Linux 5.13+, landlock in its LSMs), or "
                   "configure without a grading seed.\n",
                   command[0].c_str(), why.c_str());
      return kConfineFailed;
    }
    std::fprintf(stderr, "tilelab-confine: note: %s runs unconfined (%s)\n", command[0].c_str(), why.c_str());
  }
  std::vector<char*> args;
  for (auto& a : command) args.push_back(a.data());
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  const int err = errno;
  std::fprintf(stderr, "tilelab-confine: cannot run %s: %s\n", command[0].c_str(), std::strerror(err));
  return err == ENOENT ? 127 : 126;
}
