// The emulator's source rewriter (contract in rewrite.hpp). It works on characters, not on a full
// C++ parse: a first pass marks which characters are code (not comment, literal or preprocessor
// line: rewrite_source.hpp), and the constructs are then matched on code characters only, with
// brackets balanced. This file walks the source once, in order, asks the parts (rewrite_parts.hpp)
// what each construct becomes, and emits their edits; each part decides one thing: refusals
// (rewrite_refusals.cpp), device memory (rewrite_device_memory.cpp), launches (rewrite_launch.cpp,
// and cudaLaunchKernel's kernel: rewrite_launch_api.cpp), __shared__ declarations
// (rewrite_shared.cpp) and loop unrolling (rewrite_unroll.cpp).
#include "rewrite.hpp"

#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite {
namespace {

using namespace source;

// The source's kinds, held before the view that reads them is made.
struct Classified {
  std::vector<Kind> kinds;
};

class Rewriter : Classified, SourceView {
 public:
  explicit Rewriter(const std::string& s) : Classified{classify(s)}, SourceView(s, kinds) {}

  std::string run(const std::string& path) {
    parts::refuse_what_nvcc_refuses(*this);
    std::vector<parts::Edit> edits;
    size_t covered = 0;  // edits do not overlap: nothing before this is matched again
    const std::vector<parts::Edit> mem = parts::device_mem_calls(*this);
    size_t next_mem = 0;
    // Loop unrolling as nvcc does it (the builds that count accesses define the macros, tilelab_emu.h;
    // the others leave them empty): `#pragma unroll [n]` says what it says, and a `for` without one
    // gets nvcc's default, which unrolls a small loop whose trip count is known when compiling.
    const std::vector<std::pair<size_t, size_t>> pragmas = parts::unroll_pragmas(*this);
    // Only device code's loops mimic nvcc's unrolling: a host loop (a CPU reference in matmul_host)
    // given `GCC unroll 128` at each level of a nest blew a race-build compile up to 20 GB.
    std::vector<std::pair<size_t, size_t>> device_bodies;
    for (const DeviceFunction& f : device_functions()) device_bodies.push_back({f.open, f.close});
    auto in_device = [&](size_t at) {
      for (const auto& [open, close] : device_bodies)
        if (at > open && at < close) return true;
      return false;
    };
    size_t next_pragma = 0;
    size_t pragma_end = std::string::npos;  // the end of the last #pragma unroll, until a for takes it
    size_t i = 0;
    // An edit that replaces a construct: the walk resumes after it.
    auto take = [&](parts::Edit e) {
      covered = e.end;
      i = e.end - 1;
      edits.push_back(std::move(e));
    };
    for (; i < s_.size(); ++i) {
      if (next_pragma < pragmas.size() && pragmas[next_pragma].first == i) {
        const auto [b, e] = pragmas[next_pragma++];
        take({b, e, parts::unroll_macro(*this, b, e)});
        pragma_end = e;
        continue;
      }
      if (i < covered) continue;
      if (k_[i] == Kind::Directive && (i == 0 || k_[i - 1] != Kind::Directive)) {
        if (auto e = launches_in_define(i)) take(std::move(*e));
        continue;
      }
      if (!code(i)) continue;
      if (s_.compare(i, 3, "for") == 0 && (i == 0 || !is_ident(s_[i - 1])) &&
          (i + 3 >= s_.size() || !is_ident(s_[i + 3]))) {
        // After a #pragma unroll with nothing but whitespace and comments between: that one applies.
        const size_t before = i == 0 ? std::string::npos : skip_back(i - 1);
        const bool has_pragma = pragma_end != std::string::npos && (before == std::string::npos || before < pragma_end);
        pragma_end = std::string::npos;
        if (!has_pragma && in_device(i)) edits.push_back({i, i, "TLEMU_UNROLL_DEFAULT "});
        continue;
      }
      while (next_mem < mem.size() && mem[next_mem].begin < i) ++next_mem;
      if (next_mem < mem.size() && mem[next_mem].begin == i) {
        take(mem[next_mem]);
      } else if (s_.compare(i, 3, "<<<") == 0 && code(i + 1) && code(i + 2)) {
        parts::Edit e;
        e.text = parts::launch(*this, i, e.begin, e.end);
        if (e.begin < covered) fail(i, "a kernel launch overlaps an earlier construct");
        take(std::move(e));
      } else if (auto cast = parts::launch_api_cast(*this, i)) {
        take(std::move(*cast));
      } else if (const size_t n = parts::device_variable(*this, i)) {
        // A __device__, __constant__ or __managed__ variable: placed in device memory's own pages,
        // which host code cannot reach (tilelab_emu.h, TLEMU_DEVICE_VAR).
        take({i, i + n, "TLEMU_DEVICE_VAR"});
      } else if (s_.compare(i, 10, "__shared__") == 0 && (i == 0 || !is_ident(s_[i - 1])) &&
                 (i + 10 >= s_.size() || !is_ident(s_[i + 10]))) {
        parts::Edit e;
        e.text = parts::shared(*this, i, e.begin, e.end);
        if (e.begin < covered) fail(i, "a __shared__ declaration overlaps an earlier construct");
        take(std::move(e));
      }
    }
    std::string out = "#line 1 \"" + escape(path) + "\"\n";
    size_t at = 0;
    for (const auto& e : edits) {
      out.append(s_, at, e.begin - at);
      out += e.text;
      at = e.end;
    }
    out.append(s_, at, std::string::npos);
    return out;
  }

 private:
  // A `#define` whose replacement list launches a kernel (`#define LAUNCH(k, ...) k<<<g, b>>>(...)`):
  // the directive again with each launch rewritten, on one line, then the newlines of its
  // continuations, so every line keeps its number.
  std::optional<parts::Edit> launches_in_define(size_t b) const {
    size_t e = b;
    while (e < s_.size() && k_[e] == Kind::Directive) ++e;
    const std::string text = directive_text(b, e);
    static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?)");
    std::smatch m;
    if (text.find("<<<") == std::string::npos || !std::regex_search(text, m, define)) return std::nullopt;
    std::vector<std::string> params;
    std::stringstream list(m[3].str());
    for (std::string p; std::getline(list, p, ',');) {
      p.erase(0, p.find_first_not_of(" \t"));
      p.erase(p.find_last_not_of(" \t") + 1);
      params.push_back(p);
    }
    std::vector<std::string> kernels;
    for (const DeviceFunction& f : device_functions())
      if (f.global) kernels.push_back(f.name);
    std::string replacement;
    try {
      replacement = parts::launch_in_macro(text.substr(size_t(m.length(0))), params, kernels);
    } catch (const RewriteError& err) {  // its line is the directive's
      const std::string what = err.what();
      fail(b, "in the macro " + m[1].str() + ": " + what.substr(what.find(": ") + 2));
    }
    if (replacement == text.substr(size_t(m.length(0)))) return std::nullopt;  // `<<<` only in a literal
    return parts::Edit{b, e, m.str(0) + replacement + std::string(size_t(newlines(b, e)), '\n')};
  }
};

}  // namespace

std::string rewrite(const std::string& source, const std::string& path) {
  const std::string s = source::normalized(source);
  std::string rewritten = Rewriter(s).run(path);
  // The resumable copies are an optimisation of the plain build (TLEMU_THREAD_LOOPS): a kernel the
  // pass cannot read keeps the contexts, never a refusal of the file.
  try {
    return parts::thread_loops(rewritten);
  } catch (const std::exception&) {
    return rewritten;
  }
}

}  // namespace tlemu_rewrite
