// tilelab-emu-rewrite [--set NAME[,NAME...]=VALUE] SOURCE OUTPUT: writes SOURCE with its CUDA
// launches and __shared__ declarations rewritten for the CPU emulator (rewrite.hpp); --set first
// gives each of the constants NAME that the file defines the value VALUE (set_constant: the trace
// build's TILE_WIDTH 2). Exit 0 on success;
// 1 with a message "SOURCE:LINE: ..." on a construct it cannot rewrite (the build then fails with
// that message).
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "rewrite.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> set_names;
  std::string set_value;
  if (argc == 5 && std::string(argv[1]) == "--set" && std::string(argv[2]).find('=') != std::string::npos) {
    const std::string kv = argv[2];
    std::stringstream names(kv.substr(0, kv.find('=')));
    for (std::string n; std::getline(names, n, ',');) set_names.push_back(n);
    set_value = kv.substr(kv.find('=') + 1);
    argv += 2, argc -= 2;
  }
  if (argc != 3) {
    std::cerr << "usage: tilelab-emu-rewrite [--set NAME=VALUE] SOURCE OUTPUT\n";
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
    const std::string src = set_names.empty() ? buf.str() : tlemu_rewrite::set_constant(buf.str(), set_names, set_value);
    out = tlemu_rewrite::rewrite(src, argv[1]);
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
