// The emulator's source rewriter (contract in rewrite.hpp). It works on characters, not on a full
// C++ parse: a first pass marks which characters are code (not comment, literal or preprocessor
// line), and the two constructs are then matched on code characters only, with brackets balanced.
#include "rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <set>
#include <string>
#include <vector>

namespace tlemu_rewrite {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// What each character of the source is.
enum class Kind : char { Code, Comment, Literal, Directive };

std::vector<Kind> classify(const std::string& s) {
  const size_t n = s.size();
  std::vector<Kind> k(n, Kind::Code);
  size_t i = 0;
  bool line_start = true;  // only whitespace since the last newline
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // a preprocessor line, continued by backslash-newline
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
          k[i] = k[i + 1] = Kind::Directive;
          i += 2;
          continue;
        }
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {  // a block comment may leave the line
          size_t e = s.find("*/", i + 2);
          e = e == std::string::npos ? n : e + 2;
          for (; i < e; ++i) k[i] = Kind::Directive;
          continue;
        }
        k[i++] = Kind::Directive;
      }
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') k[i++] = Kind::Comment;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      for (; i < e; ++i) k[i] = Kind::Comment;
      continue;
    }
    if (c == '"') {
      // Raw string: the identifier right before the quote is R, LR, uR, UR or u8R.
      size_t b = i;
      while (b > 0 && is_ident(s[b - 1])) --b;
      const std::string prefix = s.substr(b, i - b);
      if (prefix == "R" || prefix == "LR" || prefix == "uR" || prefix == "UR" || prefix == "u8R") {
        const size_t open = s.find('(', i);
        const std::string delim = open == std::string::npos ? "" : s.substr(i + 1, open - i - 1);
        size_t e = open == std::string::npos ? n : s.find(")" + delim + "\"", open);
        e = e == std::string::npos ? n : e + delim.size() + 2;
        for (; i < e; ++i) k[i] = Kind::Literal;
        continue;
      }
      k[i++] = Kind::Literal;
      while (i < n && s[i] != '"' && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n) k[i++] = Kind::Literal;
        k[i++] = Kind::Literal;
      }
      if (i < n) k[i++] = Kind::Literal;
      continue;
    }
    if (c == '\'') {
      // A digit separator (1'000) follows a digit or letter of a number; a character literal
      // follows anything else, or one of the prefixes L, u, U, u8.
      size_t b = i;
      while (b > 0 && is_ident(s[b - 1])) --b;
      const std::string prefix = s.substr(b, i - b);
      const bool literal = prefix.empty() || prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8";
      if (literal) {
        k[i++] = Kind::Literal;
        while (i < n && s[i] != '\'' && s[i] != '\n') {
          if (s[i] == '\\' && i + 1 < n) k[i++] = Kind::Literal;
          k[i++] = Kind::Literal;
        }
        if (i < n) k[i++] = Kind::Literal;
        continue;
      }
    }
    ++i;
  }
  return k;
}

class Rewriter {
 public:
  Rewriter(const std::string& s) : s_(s), k_(classify(s)) {}

  std::string run(const std::string& path) {
    check_no_inline_asm();
    check_host_constexpr_calls();
    struct Edit {
      size_t begin, end;
      std::string text;
    };
    std::vector<Edit> edits;
    size_t covered = 0;  // edits do not overlap: nothing before this is matched again
    const std::vector<MemCall> mem = device_mem_calls();
    size_t next_mem = 0;
    // Loop unrolling as nvcc does it (the builds that count accesses define the macros, tilelab_emu.h;
    // the others leave them empty): `#pragma unroll [n]` says what it says, and a `for` without one
    // gets nvcc's default, which unrolls a small loop whose trip count is known when compiling.
    const std::vector<std::pair<size_t, size_t>> pragmas = unroll_pragmas();
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
    for (size_t i = 0; i < s_.size(); ++i) {
      if (next_pragma < pragmas.size() && pragmas[next_pragma].first == i) {
        const auto [b, e] = pragmas[next_pragma++];
        edits.push_back({b, e, unroll_macro(b, e)});
        covered = e;
        pragma_end = e;
        i = e - 1;
        continue;
      }
      if (i < covered || !code(i)) continue;
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
        edits.push_back({mem[next_mem].begin, mem[next_mem].end, mem[next_mem].text});
        covered = mem[next_mem].end;
        i = covered - 1;
      } else if (s_.compare(i, 3, "<<<") == 0 && code(i + 1) && code(i + 2)) {
        Edit e;
        e.text = launch(i, e.begin, e.end);
        if (e.begin < covered) fail(i, "a kernel launch overlaps an earlier construct");
        edits.push_back(e);
        covered = e.end;
        i = e.end - 1;
      } else if (const size_t n = device_variable(i)) {
        // A __device__, __constant__ or __managed__ variable: placed in device memory's own pages,
        // which host code cannot reach (tilelab_emu.h, TLEMU_DEVICE_VAR).
        edits.push_back({i, i + n, "TLEMU_DEVICE_VAR"});
        covered = i + n;
        i = covered - 1;
      } else if (s_.compare(i, 10, "__shared__") == 0 && (i == 0 || !is_ident(s_[i - 1])) &&
                 (i + 10 >= s_.size() || !is_ident(s_[i + 10]))) {
        Edit e;
        e.text = shared(i, e.begin, e.end);
        if (e.begin < covered) fail(i, "a __shared__ declaration overlaps an earlier construct");
        edits.push_back(e);
        covered = e.end;
        i = e.end - 1;
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
  bool code(size_t i) const { return i < s_.size() && k_[i] == Kind::Code; }
  bool space(size_t i) const { return std::isspace(static_cast<unsigned char>(s_[i])) != 0; }

  int line_of(size_t pos) const {
    int line = 1;
    for (size_t i = 0; i < pos && i < s_.size(); ++i) line += s_[i] == '\n';
    return line;
  }
  [[noreturn]] void fail(size_t pos, const std::string& what) const {
    throw RewriteError("line " + std::to_string(line_of(pos)) + ": " + what);
  }
  static std::string escape(const std::string& t) {
    std::string o;
    for (char c : t) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  }
  int newlines(size_t b, size_t e) const {
    int n = 0;
    for (size_t i = b; i < e; ++i) n += s_[i] == '\n';
    return n;
  }
  // The code of [b, e) on one line: comments dropped, whitespace runs collapsed, ends trimmed.
  std::string flat(size_t b, size_t e) const {
    std::string o;
    for (size_t i = b; i < e; ++i) {
      if (k_[i] == Kind::Comment || k_[i] == Kind::Directive) continue;
      const char c = s_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!o.empty() && o.back() != ' ') o += ' ';
      } else {
        o += c;
      }
    }
    while (!o.empty() && o.back() == ' ') o.pop_back();
    return o;
  }
  // Skips whitespace and comments forward (returns the first other position).
  size_t skip_fwd(size_t i) const {
    while (i < s_.size() && (space(i) || k_[i] == Kind::Comment)) ++i;
    return i;
  }
  // Skips whitespace and comments backward from i (inclusive); returns the position of the first
  // other character, or npos.
  size_t skip_back(size_t i) const {
    while (i != std::string::npos && (space(i) || k_[i] == Kind::Comment)) i = i == 0 ? std::string::npos : i - 1;
    return i;
  }
  // Position of the bracket closing the one at `open`, counting only code characters.
  size_t match_fwd(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < s_.size(); ++i) {
      if (!code(i)) continue;
      const char c = s_[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) return i;
      }
    }
    fail(open, "unbalanced brackets");
  }

  // ---- calls nvcc refuses: a plain constexpr (host) function called from device code ----
  // g++ compiles every function for the host, so a __global__ or __device__ function may call a
  // constexpr function that has no __device__; nvcc refuses the call ("calling a constexpr __host__
  // function from a __global__ function is not allowed", unless --expt-relaxed-constexpr, which the
  // kit does not pass). Found by reading the source: the constexpr functions declared without
  // __device__, then their calls in the bodies of __global__ and __device__-only functions outside
  // constant expressions (a statement with constexpr, static_assert, __shared__ or case).
  bool word_at(size_t i, const char* w) const {
    const size_t n = std::char_traits<char>::length(w);
    return code(i) && s_.compare(i, n, w) == 0 && (i == 0 || !is_ident(s_[i - 1])) &&
           (i + n >= s_.size() || !is_ident(s_[i + n]));
  }
  // The start of the declaration or statement holding position p: after the previous ; { } or
  // preprocessor line, at brace/paren depth 0 relative to p.
  size_t statement_start(size_t p) const {
    int depth = 0;
    for (size_t i = p; i-- > 0;) {
      if (k_[i] == Kind::Directive) return i + 1;
      if (!code(i)) continue;
      const char c = s_[i];
      if (c == ')' || c == ']') ++depth;
      if ((c == '(' || c == '[') && depth > 0) --depth;
      if (depth == 0 && (c == ';' || c == '{' || c == '}')) return i + 1;
    }
    return 0;
  }
  bool has_word(size_t b, size_t e, const char* w) const {
    for (size_t i = b; i < e; ++i)
      if (word_at(i, w)) return true;
    return false;
  }
  std::string ident_before(size_t p) const {  // the identifier ending right before p (spaces skipped)
    size_t j = skip_back(p - 1);
    if (j == std::string::npos || !is_ident(s_[j])) return "";
    size_t b = j;
    while (b > 0 && is_ident(s_[b - 1])) --b;
    return s_.substr(b, j + 1 - b);
  }
  // ---- __device__, __constant__ and __managed__ variables: device memory ----
  // The length of the qualifier at i when it declares a variable that may be given the section of
  // device memory (TLEMU_DEVICE_VAR), else 0. A variable, not a function: the declaration reaches
  // `;`, `=`, `[`, `{` or `,` before any `(` (the parentheses of __align__, alignas, __attribute__
  // and decltype skipped). Left as plain host variables (the qualifier an empty macro), which the
  // race build still checks kernels' accesses to: a const or constexpr one (read-only data, which
  // g++ would put in a read-only section: two kinds of variable in one section are an error), an
  // extern declaration, a typedef, and __shared__ (rewritten as shared memory).
  size_t device_variable(size_t i) const {
    size_t n = 0;
    for (const char* w : {"__device__", "__constant__", "__managed__"})
      if (word_at(i, w)) n = std::char_traits<char>::length(w);
    if (n == 0) return 0;
    const size_t before = i == 0 ? std::string::npos : skip_back(i - 1);
    if (before != std::string::npos && s_[before] == ']') return 0;  // a __device__ lambda: `[] __device__ {`
    const size_t start = statement_start(i);
    for (size_t j = i + n; j < s_.size(); ++j) {
      if (!code(j)) continue;
      const char c = s_[j];
      if (is_ident(c) && (j == 0 || !is_ident(s_[j - 1]))) {
        size_t e = j;
        while (e < s_.size() && is_ident(s_[e])) ++e;
        const std::string w = s_.substr(j, e - j);
        if (w == "__align__" || w == "alignas" || w == "__attribute__" || w == "decltype") {
          const size_t open = skip_fwd(e);
          if (open >= s_.size() || s_[open] != '(') return 0;
          j = match_fwd(open);
          continue;
        }
        j = e - 1;
        continue;
      }
      if (c == '(') return 0;  // a function (or a pointer to one: left to the race build)
      if (c == ';' || c == '=' || c == '[' || c == '{' || c == ',') {
        for (const char* w : {"const", "constexpr", "extern", "typedef", "__shared__", "using", "operator"})
          if (has_word(start, j, w)) return 0;
        return n;
      }
    }
    return 0;
  }

  // The __global__ and __device__ functions with a body: the qualifier's position, the name, the
  // body's braces, and whether it is __host__ __device__.
  struct DeviceFunction {
    size_t at;
    bool global, host;
    std::string name;
    size_t open, close;
  };
  std::vector<DeviceFunction> device_functions() const {
    std::vector<DeviceFunction> out;
    for (size_t i = 0; i < s_.size(); ++i) {
      const bool global = word_at(i, "__global__");
      if (!global && !word_at(i, "__device__")) continue;
      // The function this qualifies: its parameter list, then a body before any ; or =.
      size_t j = i;
      while (j < s_.size() && !(code(j) && (s_[j] == '(' || s_[j] == ';' || s_[j] == '=' || s_[j] == '{'))) ++j;
      if (j >= s_.size() || s_[j] != '(') continue;
      if (ident_before(j) == "__launch_bounds__") {
        j = match_fwd(j) + 1;
        while (j < s_.size() && !(code(j) && (s_[j] == '(' || s_[j] == ';' || s_[j] == '{'))) ++j;
        if (j >= s_.size() || s_[j] != '(') continue;
      }
      const std::string fn = ident_before(j);
      const bool host = !global && has_word(statement_start(i), j, "__host__");
      size_t k = match_fwd(j) + 1;
      while (k < s_.size() && !(code(k) && (s_[k] == '{' || s_[k] == ';'))) ++k;
      if (k >= s_.size() || s_[k] != '{') continue;
      out.push_back({i, global, host, fn, k, match_fwd(k)});
    }
    return out;
  }

  // ---- memcpy, memset and memmove in device code: the emulator's, whose accesses are seen ----
  // In the body of a __global__ or __device__ function (a lambda in it included), a call of
  // memcpy, memset or memmove -- plain, std::, ::, ::std:: or __builtin_ -- names
  // ::tlemu::device_memcpy (memset, memmove) instead (tilelab_emu.h): g++ would call libc, whose
  // loads and stores no build sees. Returns the replacements, [begin, end) and the new name.
  struct MemCall {
    size_t begin, end;
    std::string text;
  };
  std::vector<MemCall> device_mem_calls() const {
    std::vector<MemCall> out;
    for (const DeviceFunction& f : device_functions()) {
      for (size_t c = f.open + 1; c < f.close; ++c) {
        if (!code(c) || !is_ident(s_[c]) || is_ident(s_[c - 1])) continue;
        size_t e = c;
        while (e < f.close && is_ident(s_[e])) ++e;
        std::string id = s_.substr(c, e - c);
        const size_t at = c;
        c = e - 1;
        if (id.rfind("__builtin_", 0) == 0) id = id.substr(10);
        if (id != "memcpy" && id != "memset" && id != "memmove") continue;
        const size_t open = skip_fwd(e);
        if (open >= f.close || s_[open] != '(') continue;  // not a call
        // A qualifier before it: ::, std::, ::std:: (a member .memcpy( or ->memcpy( is left alone).
        size_t begin = at;
        size_t p = skip_back(at - 1);
        if (p != std::string::npos && (s_[p] == '.' || (s_[p] == '>' && p > 0 && s_[p - 1] == '-'))) continue;
        if (p != std::string::npos && p > 0 && s_[p] == ':' && s_[p - 1] == ':') {
          begin = p - 1;
          const size_t q = p > 1 ? skip_back(p - 2) : std::string::npos;
          if (q != std::string::npos && q >= 2 && s_.compare(q - 2, 3, "std") == 0 &&
              (q < 3 || !is_ident(s_[q - 3]))) {
            begin = q - 2;
            const size_t r = q > 2 ? skip_back(q - 3) : std::string::npos;
            if (r != std::string::npos && r > 0 && s_[r] == ':' && s_[r - 1] == ':') begin = r - 1;
          } else if (q != std::string::npos && (is_ident(s_[q]) || s_[q] == '>')) {
            continue;  // another namespace's or class's memcpy
          }
        }
        out.push_back({begin, e, "::tlemu::device_" + id + std::string(size_t(newlines(begin, e)), '\n')});
      }
    }
    // In source order, once each (a __device__ lambda's body lies in its kernel's too).
    std::sort(out.begin(), out.end(), [](const MemCall& a, const MemCall& b) { return a.begin < b.begin; });
    out.erase(std::unique(out.begin(), out.end(), [](const MemCall& a, const MemCall& b) { return a.begin == b.begin; }),
              out.end());
    return out;
  }

  // Inline assembly (asm, __asm, __asm__) is refused on its line where a kernel runs it: in the body
  // of a __global__ or __device__ function (a lambda in it included) and in a #define, whose macro
  // device code may use. The builds that count and check accesses never see its loads (issue #39,
  // known-bad redteam2-count-inline-asm), and a GPU's PTX cannot run here. Host code's asm (a file's
  // .init section, a raw system call: the confinement's known-bad cases) is left to the allow-list,
  // the machine-code scan and the sandbox.
  void check_no_inline_asm() const {
    std::vector<std::pair<size_t, size_t>> bodies;
    for (const DeviceFunction& f : device_functions()) bodies.push_back({f.open, f.close});
    for (size_t i = 0; i < s_.size(); ++i) {
      if (k_[i] != Kind::Code && k_[i] != Kind::Directive) continue;
      if (!is_ident(s_[i]) || (i > 0 && is_ident(s_[i - 1]))) continue;
      size_t e = i;
      while (e < s_.size() && is_ident(s_[e])) ++e;
      const std::string word = s_.substr(i, e - i);
      const size_t at = i;
      i = e - 1;
      if (word != "asm" && word != "__asm" && word != "__asm__") continue;
      bool refused = false;
      if (k_[at] == Kind::Directive) {  // a #define's body (not an #include's <asm/...> path)
        size_t d = at;
        while (d > 0 && k_[d - 1] == Kind::Directive && (s_[d - 1] != '\n' || (d > 1 && s_[d - 2] == '\\'))) --d;
        while (d < at && (s_[d] == ' ' || s_[d] == '\t')) ++d;
        if (d < at && s_[d] == '#') ++d;
        while (d < at && (s_[d] == ' ' || s_[d] == '\t')) ++d;
        refused = s_.compare(d, 6, "define") == 0;
      } else {
        for (const auto& [open, close] : bodies) refused = refused || (at > open && at < close);
      }
      if (refused) fail(at, "inline assembly cannot run on the emulator (`" + word + "` in device code)");
    }
  }

  void check_host_constexpr_calls() const {
    std::set<std::string> host;  // constexpr functions without __device__
    for (size_t i = 0; i < s_.size(); ++i) {
      if (!word_at(i, "constexpr")) continue;
      size_t j = i + 9;
      while (j < s_.size() && !(code(j) && (s_[j] == '(' || s_[j] == '=' || s_[j] == ';' || s_[j] == '{'))) ++j;
      if (j >= s_.size() || s_[j] != '(') continue;  // a variable
      const std::string name = ident_before(j);
      const size_t b = statement_start(i);
      if (name.empty() || name == "operator" || name == "constexpr" || has_word(b, j, "__device__") ||
          has_word(b, j, "__global__"))
        continue;  // not a function (if constexpr), or one nvcc compiles for the device
      host.insert(name);
    }
    if (host.empty()) return;
    for (const DeviceFunction& f : device_functions()) {
      if (f.host) continue;  // __host__ __device__: nvcc only warns
      const bool global = f.global;
      const std::string& fn = f.name;
      const size_t k = f.open, end = f.close;
      for (size_t c = k + 1; c < end; ++c) {
        if (!code(c) || !is_ident(s_[c]) || is_ident(s_[c - 1])) continue;
        size_t e = c;
        while (e < end && is_ident(s_[e])) ++e;
        const std::string id = s_.substr(c, e - c);
        const size_t open = skip_fwd(e);
        const size_t prev = skip_back(c - 1);
        if (!host.count(id) || open >= end || s_[open] != '(' ||
            (prev != std::string::npos && (s_[prev] == '.' || (s_[prev] == '>' && prev > 0 && s_[prev - 1] == '-')))) {
          c = e;
          continue;
        }
        const size_t st = statement_start(c);
        if (has_word(st, c, "constexpr") || has_word(st, c, "static_assert") || has_word(st, c, "__shared__") ||
            has_word(st, c, "case")) {
          c = e;
          continue;
        }
        fail(c, "calling a constexpr __host__ function (\"" + id + "\") from a " +
                    (global ? "__global__" : "__device__") + " function (\"" + fn +
                    "\") is not allowed: nvcc refuses it; declare " + id +
                    " __host__ __device__ constexpr (an emulator check: g++ alone would accept it)");
      }
    }
  }

  // The kernel expression ending right before `<<<` at p: [::]name[<...>][::name[<...>]]...
  size_t kernel_start(size_t p) const {
    size_t j = skip_back(p - 1);
    size_t start = std::string::npos;
    while (j != std::string::npos) {
      if (s_[j] == '>') {  // template arguments, balanced
        int depth = 0;
        size_t i = j;
        for (;; --i) {
          if (code(i)) {
            if (s_[i] == '>' || s_[i] == ')') ++depth;
            if (s_[i] == '<' || s_[i] == '(') --depth;
            if (depth == 0) break;
          }
          if (i == 0) fail(p, "cannot find the start of the kernel's template arguments");
        }
        j = skip_back(i - 1);
      }
      if (j == std::string::npos || !is_ident(s_[j])) fail(p, "cannot find the kernel name before <<<");
      while (j > 0 && is_ident(s_[j - 1])) --j;
      start = j;
      if (j < 2) break;
      const size_t c = skip_back(j - 1);
      if (c == std::string::npos || c < 1 || s_[c] != ':' || s_[c - 1] != ':') break;
      start = c - 1;  // a qualified name, or a leading ::
      const size_t q = c < 2 ? std::string::npos : skip_back(c - 2);
      if (q == std::string::npos || !(is_ident(s_[q]) || s_[q] == '>')) break;
      j = q;
    }
    return start;
  }

  std::string launch(size_t p, size_t& begin, size_t& end) {
    begin = kernel_start(p);
    const std::string kernel = flat(begin, p);
    // The configuration: up to four expressions, up to the `>>>` at depth 0.
    std::vector<std::string> cfg;
    size_t piece = p + 3, close = std::string::npos;
    int depth = 0;
    for (size_t i = p + 3; i < s_.size(); ++i) {
      if (!code(i)) continue;
      const char c = s_[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0) fail(p, "unbalanced brackets in the launch configuration");
      if (depth == 0 && c == ',') {
        cfg.push_back(flat(piece, i));
        piece = i + 1;
      }
      if (depth == 0 && s_.compare(i, 3, ">>>") == 0) {
        cfg.push_back(flat(piece, i));
        close = i;
        break;
      }
    }
    if (close == std::string::npos) fail(p, "<<< without a matching >>>");
    if (cfg.size() < 2 || cfg.size() > 4) fail(p, "a launch configuration takes 2 to 4 values: <<<grid, block[, shared bytes[, stream]]>>>");
    for (const auto& c : cfg)
      if (c.empty()) fail(p, "an empty value in the launch configuration");
    if (cfg.size() < 3) cfg.push_back("0");
    if (cfg.size() < 4) cfg.push_back("nullptr");
    const size_t open = skip_fwd(close + 3);
    if (open >= s_.size() || s_[open] != '(') fail(p, "expected the kernel's arguments in ( ) after >>>");
    const size_t rpar = match_fwd(open);
    end = rpar + 1;
    const std::string args = s_.substr(open + 1, rpar - open - 1);
    const bool no_args = flat(open + 1, rpar).empty();
    // First the call itself, unevaluated, on the student's line: arguments that do not fit the
    // kernel are reported as g++ reports any call ("too few arguments to function 'void k(float*,
    // int)'"), not from inside the emulator's launch template, which then does not instantiate the
    // call (its lambda is SFINAE-constrained to calls that compile).
    const std::string call = kernel + "(" + (no_args ? std::string() : flat(open + 1, rpar)) + ")";
    std::string o = "((void)sizeof((" + call + ", 0)), ::tlemu::launch({__FILE__, __LINE__, \"" + escape(kernel) +
                    "\"}, " + cfg[0] + ", " + cfg[1] + ", " + cfg[2] + ", " + cfg[3] +
                    ", [&](auto&&... tlemu_a) -> decltype(" + kernel + "(tlemu_a...), void()) { " + kernel +
                    "(tlemu_a...); }";
    if (!no_args) o += ", " + args;
    o += "))";
    o.append(size_t(newlines(begin, open + 1) + newlines(rpar, end)), '\n');
    return o;
  }

  std::string shared(size_t p, size_t& begin, size_t& end) {
    // The declaration runs from the code after the previous ; { } (or a label's :) to the next ;.
    size_t b = p;
    while (b > 0) {
      const size_t i = b - 1;
      if (code(i) && (s_[i] == ';' || s_[i] == '{' || s_[i] == '}' ||
                      (s_[i] == ':' && !(i > 0 && s_[i - 1] == ':') && !(i + 1 < s_.size() && s_[i + 1] == ':'))))
        break;
      if (k_[i] == Kind::Directive) break;
      b = i;
    }
    begin = skip_fwd(b);
    size_t semi = std::string::npos;
    int depth = 0;
    for (size_t i = p; i < s_.size(); ++i) {
      if (!code(i)) continue;
      const char c = s_[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && c == ';') {
        semi = i;
        break;
      }
      if (depth < 0) break;
    }
    if (semi == std::string::npos) fail(p, "a __shared__ declaration without its closing ;");
    end = semi + 1;
    const std::string decl = flat(begin, semi);

    // Drop the storage and alignment specifiers; remember `extern` (dynamic shared memory).
    std::string rest;
    bool dynamic = false;
    for (size_t i = 0; i < decl.size();) {
      if (is_ident(decl[i]) && (i == 0 || !is_ident(decl[i - 1]))) {
        size_t j = i;
        while (j < decl.size() && is_ident(decl[j])) ++j;
        const std::string word = decl.substr(i, j - i);
        if (word == "__shared__" || word == "static" || word == "__device__") {
          i = j;
          continue;
        }
        if (word == "extern") {
          dynamic = true;
          i = j;
          continue;
        }
        if (word == "__align__" || word == "alignas") {  // the runtime aligns every variable to 32
          size_t k = j;
          while (k < decl.size() && decl[k] == ' ') ++k;
          if (k < decl.size() && decl[k] == '(') {
            int d = 0;
            for (; k < decl.size(); ++k) {
              if (decl[k] == '(') ++d;
              if (decl[k] == ')' && --d == 0) break;
            }
            i = k + 1;
            continue;
          }
        }
        rest += word;
        i = j;
        continue;
      }
      rest += decl[i++];
    }
    {  // removing words leaves runs of spaces
      std::string t;
      for (char c : rest)
        if (!(c == ' ' && (t.empty() || t.back() == ' '))) t += c;
      rest = t;
    }
    // Declarators, split at top-level commas.
    std::vector<std::string> parts;
    {
      int d = 0;
      std::string cur;
      for (char c : rest) {
        if (c == '(' || c == '[' || c == '{' || c == '<') ++d;
        if (c == ')' || c == ']' || c == '}' || c == '>') --d;
        if (c == ',' && d == 0) {
          parts.push_back(cur);
          cur.clear();
        } else {
          cur += c;
        }
      }
      parts.push_back(cur);
    }
    auto trim = [](std::string t) {
      while (!t.empty() && t.front() == ' ') t.erase(t.begin());
      while (!t.empty() && t.back() == ' ') t.pop_back();
      return t;
    };
    // Splits "T *name[A][B]" into the text before the name, the name and the array bounds.
    auto split = [&](const std::string& t, std::string& before, std::string& name, std::string& dims) {
      size_t br = std::string::npos;
      int d = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '<' || t[i] == '(') ++d;
        if (t[i] == '>' || t[i] == ')') --d;
        if (t[i] == '[' && d == 0) {
          br = i;
          break;
        }
      }
      std::string head = trim(t.substr(0, br));
      dims = br == std::string::npos ? "" : trim(t.substr(br));
      if (head.find('=') != std::string::npos) fail(p, "a __shared__ variable cannot have an initializer");
      size_t n = head.size();
      while (n > 0 && is_ident(head[n - 1])) --n;
      name = head.substr(n);
      before = trim(head.substr(0, n));
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
        fail(p, "cannot read the __shared__ declaration: " + decl);
    };
    std::string type, name, dims;
    split(parts[0], type, name, dims);
    if (type.empty()) fail(p, "a __shared__ declaration without a type: " + decl);
    std::string base = type;  // without the first declarator's * and &
    while (!base.empty() && (base.back() == '*' || base.back() == '&' || base.back() == ' ')) base.pop_back();

    std::string o;
    for (size_t k = 0; k < parts.size(); ++k) {
      std::string t = type, nm = name, dm = dims;
      if (k > 0) {
        std::string stars;
        split(parts[k], stars, nm, dm);
        t = base + (stars.empty() ? "" : " " + stars);
      }
      if (!o.empty()) o += ' ';
      if (dynamic) {
        if (dm.empty() || dm.find_first_not_of("[ ]") != std::string::npos)
          fail(p, "extern __shared__ takes an array of unknown size, e.g. extern __shared__ float " + nm + "[];");
        o += "static " + t + " (&" + nm + ")[] = ::tlemu::dynamic_shared<" + t + "[]>(\"" + nm +
             "\", __FILE__, __LINE__);";
      } else if (dm.empty()) {
        o += "static " + t + "& " + nm + " = ::tlemu::shared_var<" + t + ">(\"" + nm + "\", __FILE__, __LINE__" +
             read_flag(t, nm, dm, end) + ");";
      } else {
        // Each bound first in a static_assert of its own, so that a bound that is not a constant
        // (`int TILE_WIDTH = 16;`) is reported as nvcc reports it: on the student's line, naming
        // the variable, not from inside the emulator's shared_var<> template.
        for (const std::string& bound : bounds(dm))
          o += "static_assert((" + bound + ") > 0, \"the size of __shared__ array " + nm +
               " must be a constant expression greater than zero\"); ";
        o += "static " + t + " (&" + nm + ")" + dm + " = ::tlemu::shared_var<" + t + dm + ">(\"" + nm +
             "\", __FILE__, __LINE__" + read_flag(t, nm, dm, end) + ");";
      }
    }
    o.append(size_t(newlines(begin, end)), '\n');
    return o;
  }

  // ---- a __shared__ variable the kernel never reads (issue #40, item 2) ----
  // nvcc allocates no shared memory for a __shared__ variable that is never loaded: one only
  // declared, or only assigned to, is deleted with its stores (LLVM's GlobalOpt on an internal
  // addrspace(3) global), so the compiled kernel's attributes say 0 bytes and stages that require
  // shared memory refuse it. The emulator reports the same (static_shared_bytes counts read
  // variables only: runtime/core.cpp), from this reading of the source: after its declaration, to the
  // end of the block that declares it (the file, for one at namespace scope), every use of the name is
  // `name = ...` or `name[..]...[..] = ...` (a plain assignment, not `==` or a compound one). Anything
  // else counts as a read: any other use (an operand, `&name`, a call's argument, `+=`, `++`), a
  // volatile type (nvcc keeps volatile stores), the name in any preprocessor directive (a macro may
  // read it), or a `##` anywhere in one (a pasted name cannot be found). A `.name` or `->name` is a
  // member of something else. Returns the argument that marks the variable unread, or "".
  //
  // GlobalOpt also folds a variable stored only one constant (its initializer is undef, so every load
  // may read that constant) and then deletes it: `__shared__ float one; if (tx == 0) one = 1.0f;
  // __syncthreads(); P[i] = v * one;` reports 0 bytes on a GPU (redteam2-count-*). Measured with nvcc
  // 13.0 (-arch=sm_90, --resource-usage), stores then reads: a scalar stored 1.0f once, twice, -1.0f,
  // int 3, unconditionally, or read before its store: 0 bytes; a scalar stored 1.0f and 2.0f, stored a
  // loaded value, `c++`, `atomicAdd(&c, 1)`, its address taken, or volatile: kept; arrays indexed by
  // constants only (`t[0] = 1.0f` in t[1], t[2], t[64], `t[3][4]` in t[16][16], `t[0] = 1.0f; t[1] =
  // 2.0f`): 0 bytes (split into scalars, each folded); an index that is not a constant (`tile[ty][tx] =
  // 0.0f` then read; `t[threadIdx.x] = 1.0f` in t[2]): kept. So a variable of a built-in arithmetic
  // type also counts as unread (folds) when every use is of one element (the scalar, or an array
  // element named by integer literals, one per bound), each element's every store is a statement
  // `name... = C;` of one numeric literal C (its text without spaces, a leading `-` allowed: the same
  // text each time; a store after `;`, `{`, `}`, `else`, `do` or the `)` of `if`/`for`/`while`) and
  // every other use a plain rvalue: an operand of an arithmetic, comparison or logical operator, an
  // index, an initializer. Anything the reading cannot settle counts as a read (the emulator must never
  // refuse more than a GPU): `&name`, `++`, a compound assignment, a call's whole argument (a reference
  // parameter may write it), a `?:` branch, `return name`, a reference's initializer, `(name)`, a
  // constant written two ways (`1.0f` and `1.f`, or `one *= 1.0f`, which nvcc still folds).
  std::string read_flag(const std::string& type, const std::string& nm, const std::string& dims,
                        size_t from) const {
    return read_anywhere(type, nm, from) && !folds_to_constants(type, nm, dims, from) ? "" : ", false";
  }
  bool named_at(const std::string& nm, size_t i) const {
    return s_.compare(i, nm.size(), nm) == 0 && (i == 0 || !is_ident(s_[i - 1])) &&
           (i + nm.size() >= s_.size() || !is_ident(s_[i + nm.size()]));
  }
  bool in_directive(const std::string& nm) const {
    for (size_t i = 0; i < s_.size(); ++i)
      if (k_[i] == Kind::Directive && (named_at(nm, i) || s_.compare(i, 2, "##") == 0)) return true;
    return false;
  }
  // The end of the block that declares a variable at `from`: the `}` of the innermost `{` still open.
  size_t scope_end(size_t from) const {
    for (size_t i = from, depth = 0; i-- > 0;) {
      if (!code(i)) continue;
      if (s_[i] == '}') ++depth;
      if (s_[i] == '{' && depth-- == 0) return match_fwd(i);
    }
    return s_.size();
  }
  // `.name` or `->name`: a member of something else.
  bool member_at(size_t i) const {
    const size_t before = i == 0 ? std::string::npos : skip_back(i - 1);
    return before != std::string::npos &&
           (s_[before] == '.' || (s_[before] == '>' && before > 0 && s_[before - 1] == '-'));
  }
  bool read_anywhere(const std::string& type, const std::string& nm, size_t from) const {
    if (type.find("volatile") != std::string::npos) return true;
    if (in_directive(nm)) return true;
    const size_t to = scope_end(from);
    for (size_t i = from; i < to; ++i) {
      if (!code(i) || !named_at(nm, i)) continue;
      if (member_at(i)) {
        i += nm.size() - 1;
        continue;
      }
      size_t j = skip_fwd(i + nm.size());
      while (j < s_.size() && code(j) && s_[j] == '[') j = skip_fwd(match_fwd(j) + 1);
      if (!(j + 1 < s_.size() && code(j) && s_[j] == '=' && s_[j + 1] != '=')) return true;
      i = j;
    }
    return false;
  }
  // The identifier ending at i (inclusive), or "".
  std::string word_ending(size_t i) const {
    size_t b = i + 1;
    while (b > 0 && code(b - 1) && is_ident(s_[b - 1])) --b;
    return s_.substr(b, i + 1 - b);
  }
  // A store `name... = C;` may start a statement: after `;`, `{`, `}`, `else`, `do`, or the `)` of an
  // `if`, `for` or `while` header.
  bool statement_starts_after(size_t before) const {
    if (before == std::string::npos) return true;
    if (!code(before)) return false;
    const char c = s_[before];
    if (c == ';' || c == '{' || c == '}') return true;
    if (is_ident(c)) {
      const std::string w = word_ending(before);
      return w == "else" || w == "do";
    }
    if (c != ')') return false;
    int depth = 0;
    for (size_t i = before + 1; i-- > 0;) {
      if (!code(i)) continue;
      if (s_[i] == ')' || s_[i] == ']' || s_[i] == '}') ++depth;
      if ((s_[i] == '(' || s_[i] == '[' || s_[i] == '{') && --depth == 0) {
        if (s_[i] != '(' || i == 0) return false;
        const size_t w = skip_back(i - 1);
        if (w == std::string::npos || !code(w) || !is_ident(s_[w])) return false;
        const std::string kw = word_ending(w);
        return kw == "if" || kw == "for" || kw == "while";
      }
    }
    return false;
  }
  // The numeric literal (a leading `-` allowed) at i, its text without spaces, and the position after it.
  bool numeric_literal(size_t i, std::string& text, size_t& after) const {
    text.clear();
    if (i < s_.size() && code(i) && s_[i] == '-') {
      text = "-";
      i = skip_fwd(i + 1);
    }
    const auto digit = [&](size_t k) {
      return k < s_.size() && code(k) && std::isdigit(static_cast<unsigned char>(s_[k]));
    };
    if (!(digit(i) || (i < s_.size() && code(i) && s_[i] == '.' && digit(i + 1)))) return false;
    for (; i < s_.size() && code(i); ++i) {
      const char c = s_[i];
      const char p = text.empty() ? 0 : text.back();
      if (is_ident(c) || c == '.' || c == '\'' ||
          ((c == '+' || c == '-') && (p == 'e' || p == 'E' || p == 'p' || p == 'P')))
        text += c;
      else
        break;
    }
    after = i;
    return true;
  }
  // A use of the variable, not stored, whose value only is taken: what comes before it (at `before`)
  // and after it (at `after`, past its subscripts) allows no write and no reference.
  bool plain_rvalue(size_t before, size_t after) const {
    if (before == std::string::npos || !code(before) || after + 1 >= s_.size() || !code(after)) return false;
    const char b = s_[before], b0 = before > 0 ? s_[before - 1] : 0;
    const char a = s_[after], a1 = s_[after + 1], a2 = after + 2 < s_.size() ? s_[after + 2] : 0;
    bool ok_before = false;
    switch (b) {
      case '&': ok_before = b0 == '&'; break;                          // `&&`, not `&name`
      case '+': case '-': ok_before = b0 != b; break;                  // not `++`, `--`
      case '*': case '/': case '%': case '<': case '>': case '!': case '~': case '^': case '|': case '[':
        ok_before = true;
        break;
      case '(': case ',': ok_before = !(a == ')' || a == ','); break;  // not a call's whole argument
      case '=': {  // an initializer or assigned value: not of a reference (`float& r = name`)
        ok_before = true;
        for (size_t k = before; k-- > 0;) {
          if (!code(k)) continue;
          const char c = s_[k];
          if (c == ';' || c == '{' || c == '}') break;
          if (c == '&' && !(k > 0 && s_[k - 1] == '&') && s_[k + 1] != '&') ok_before = false;
        }
        break;
      }
      default: break;
    }
    if (!ok_before) return false;
    switch (a) {
      case ';': case ')': case ',': case ']': case '?': case ':': return true;
      case '+': case '-': return !(a1 == a || a1 == '=' || (a == '-' && a1 == '>'));
      case '&': case '|': return a1 == a || a1 != '=';
      case '*': case '/': case '%': case '^': return a1 != '=';
      case '!': return a1 == '=';
      case '=': return a1 == '=';
      case '<': case '>': return !(a1 == a && a2 == '=');
      default: return false;
    }
  }
  bool folds_to_constants(const std::string& type, const std::string& nm, const std::string& dims,
                          size_t from) const {
    static const std::set<std::string> arithmetic{"float", "double", "int", "unsigned", "signed",
                                                  "short", "long", "char", "bool"};
    {
      std::istringstream words(type);
      std::string w;
      bool any = false;
      while (words >> w) {
        if (!arithmetic.count(w)) return false;  // a pointer, a reference, a class, a template's T
        any = true;
      }
      if (!any || in_directive(nm)) return false;
    }
    const size_t rank = bounds(dims).size();
    std::vector<std::pair<std::string, std::string>> stored;  // element → its constant
    const size_t to = scope_end(from);
    for (size_t i = from; i < to; ++i) {
      if (!code(i) || !named_at(nm, i)) continue;
      if (member_at(i)) {
        i += nm.size() - 1;
        continue;
      }
      std::string element;
      size_t n = 0;
      size_t j = skip_fwd(i + nm.size());
      while (j < s_.size() && code(j) && s_[j] == '[') {
        const size_t c = match_fwd(j);
        const std::string index = flat(j + 1, c);
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos ||
            (index.size() > 1 && index[0] == '0'))
          return false;  // not a decimal literal: which element is not known
        element += "[" + index + "]";
        ++n;
        j = skip_fwd(c + 1);
      }
      if (n != rank) return false;
      const size_t before = i == 0 ? std::string::npos : skip_back(i - 1);
      if (j + 1 < s_.size() && code(j) && s_[j] == '=' && s_[j + 1] != '=') {
        std::string constant;
        size_t after = 0;
        if (!statement_starts_after(before) || !numeric_literal(skip_fwd(j + 1), constant, after)) return false;
        after = skip_fwd(after);
        if (!(after < s_.size() && code(after) && s_[after] == ';')) return false;
        const auto same = std::find_if(stored.begin(), stored.end(), [&](const auto& e) { return e.first == element; });
        if (same == stored.end())
          stored.push_back({element, constant});
        else if (same->second != constant)
          return false;
        i = after;
        continue;
      }
      if (!plain_rvalue(before, j)) return false;
      i = j - 1;
    }
    return true;
  }

  // The text of the directive at [b, e) on one line: continuations joined, comments dropped.
  std::string directive_text(size_t b, size_t e) const {
    std::string t;
    for (size_t j = b; j < e; ++j) {
      if (s_[j] == '\\' && j + 1 < e && s_[j + 1] == '\n') {
        ++j;
        t += ' ';
      } else if (s_[j] == '/' && j + 1 < e && s_[j + 1] == '*') {
        const size_t c = s_.find("*/", j + 2);
        j = c == std::string::npos || c + 1 >= e ? e - 1 : c + 1;
        t += ' ';
      } else if (s_[j] == '/' && j + 1 < e && s_[j + 1] == '/') {
        break;
      } else {
        t += s_[j] == '\n' ? ' ' : s_[j];
      }
    }
    return t;
  }
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

  // The bounds of "[A][B]": {"A", "B"} (brackets inside a bound balanced).
  static std::vector<std::string> bounds(const std::string& dims) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : dims) {
      if (c == '[' && depth++ == 0) {
        cur.clear();
        continue;
      }
      if (c == ']' && --depth == 0) {
        out.push_back(cur);
        continue;
      }
      if (depth > 0) cur += c;
    }
    return out;
  }

  const std::string& s_;
  std::vector<Kind> k_;
};

}  // namespace

// A file saved on Windows: a UTF-8 byte-order mark (which g++ skips only at the very start of a
// file, and the rewritten file starts with #line) and CRLF line ends (a backslash-CR-LF continues a
// preprocessor line for g++, and must for the rewriter too). Neither changes a line number.
std::string normalized(const std::string& source) {
  std::string s = source.compare(0, 3, "\xEF\xBB\xBF") == 0 ? source.substr(3) : source;
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) o += s[i];
  return o;
}

std::string rewrite(const std::string& source, const std::string& path) {
  const std::string s = normalized(source);
  return Rewriter(s).run(path);
}

namespace {
// set_constant for one name: the source with its first definition replaced; `found` says whether
// there was one.
std::string set_one(const std::string& s, const std::string& name, const std::string& value, bool& found) {
  // One line at a time: `#define NAME ...` (the value runs to the end of the line; a continued
  // macro is not a tile width), or `[static] const[expr] int|unsigned|size_t|long NAME = ...;` on
  // one line. A line that starts inside a block comment is skipped.
  const std::regex define("^(\\s*#\\s*define\\s+" + name + ")(\\s+[^\\\\]*)?$");
  const std::regex constant("^(\\s*(?:static\\s+)?(?:constexpr|const)\\s+(?:static\\s+)?"
                            "(?:int|unsigned|unsigned int|size_t|long)\\s+" + name + "\\s*=\\s*)[^;]*(;.*)$");
  std::istringstream in(s);
  std::string line, out;
  bool in_comment = false;
  std::smatch m;
  found = false;
  while (std::getline(in, line)) {
    const bool commented = in_comment;
    for (size_t i = 0; i + 1 < line.size(); ++i) {  // block comments, roughly: enough to skip a commented-out define
      if (!in_comment && line.compare(i, 2, "//") == 0) break;
      if (!in_comment && line.compare(i, 2, "/*") == 0) in_comment = true, ++i;
      else if (in_comment && line.compare(i, 2, "*/") == 0) in_comment = false, ++i;
    }
    if (!found && !commented && std::regex_match(line, m, define)) {
      line = m[1].str() + " " + value, found = true;
    } else if (!found && !commented && std::regex_match(line, m, constant)) {
      line = m[1].str() + value + m[2].str(), found = true;
    }
    out += line + "\n";
  }
  return out;
}
}  // namespace

std::string set_constant(const std::string& source, const std::vector<std::string>& names, const std::string& value) {
  std::string s = normalized(source);
  bool any = false;
  for (const auto& name : names) {
    bool found = false;
    s = set_one(s, name, value, found);
    any = any || found;
  }
  if (!any) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "`#define " : " or `#define ") + n + " ...`";
    throw RewriteError("1: no " + list + " (nor a `const int` of that name) in the file: this build runs the "
                       "kernel with a tile width of " + value + " and needs the width as that named constant, "
                       "as the starter defines it");
  }
  return s;
}

}  // namespace tlemu_rewrite
