// Loop unrolling in the rewritten file (rewrite_parts.hpp): `#pragma unroll [n]` as the macros
// tilelab_emu.h defines for the builds that count accesses.
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct Unrolling : SourceView {
  // The `#pragma unroll [n]` lines (a directive, possibly continued): [begin, end) of each, end at the
  // newline that closes it.
  std::vector<std::pair<size_t, size_t>> unroll_pragmas() const {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i < s_.size(); ++i) {
      if (k_[i] != Kind::Directive || (i > 0 && k_[i - 1] == Kind::Directive)) continue;
      size_t e = i;
      while (e < s_.size() && k_[e] == Kind::Directive) ++e;
      const std::string t = directive_text(i, e);
      std::istringstream words(t.substr(t.find('#') + 1));
      std::string w1, w2;
      words >> w1 >> w2;
      if (w1 == "pragma" && w2 == "unroll") out.push_back({i, e});
      i = e;
    }
    return out;
  }
  // The macro a `#pragma unroll [n]` at [b, e) becomes, with the lines it took.
  std::string unroll_macro(size_t b, size_t e) const {
    const std::string t = directive_text(b, e);
    std::string count = t.substr(t.find("unroll") + 6);
    count.erase(0, count.find_first_not_of(" \t"));
    count.erase(count.find_last_not_of(" \t") + 1);
    std::string o = count.empty() ? "TLEMU_UNROLL_ALL" : "TLEMU_UNROLL(" + count + ")";
    o.append(size_t(newlines(b, e)), '\n');
    return o;
  }
};

}  // namespace

std::vector<std::pair<size_t, size_t>> unroll_pragmas(const SourceView& src) { return Unrolling{src}.unroll_pragmas(); }

std::string unroll_macro(const SourceView& src, size_t b, size_t e) { return Unrolling{src}.unroll_macro(b, e); }

}  // namespace tlemu_rewrite::parts
