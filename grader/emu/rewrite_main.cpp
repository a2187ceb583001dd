// tilelab-emu-rewrite SOURCE OUTPUT: writes SOURCE with its CUDA launches and __shared__
// declarations rewritten for the CPU emulator (rewrite.hpp). Exit 0 on success; 1 with a message
// "SOURCE:LINE: ..." on a construct it cannot rewrite (the build then fails with that message).
#include <fstream>
#include <iostream>
#include <sstream>

#include "rewrite.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tilelab-emu-rewrite SOURCE OUTPUT\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 1;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string out;
  try {
    out = tlemu_rewrite::rewrite(buf.str(), argv[1]);
  } catch (const tlemu_rewrite::RewriteError& e) {
    std::cerr << argv[1] << ":" << e.what() << " (tilelab CPU emulator rewriter)\n";
    return 1;
  }
  // Written only when it changes, so an unchanged student file does not recompile anything.
  std::ifstream old(argv[2], std::ios::binary);
  std::stringstream prev;
  if (old) prev << old.rdbuf();
  if (!old || prev.str() != out) {
    std::ofstream o(argv[2], std::ios::binary | std::ios::trunc);
    o << out;
    if (!o) {
      std::cerr << argv[2] << ": cannot write\n";
      return 1;
    }
  }
  return 0;
}
