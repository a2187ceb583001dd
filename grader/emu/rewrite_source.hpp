// The rewriter's reading of a source file, shared by its parts (rewrite.cpp and rewrite_*.cpp): which
// characters are code (not comment, literal or preprocessor line), and the questions its parts ask
// of code characters -- words, brackets, statements, directives, the bodies of device functions.
// Nothing here decides what to rewrite or to refuse; a part that does is a struct deriving from
// SourceView, made from the view it reads (`Part{src}`).
#pragma once
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "rewrite.hpp"

namespace tlemu_rewrite::source {

inline bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// What each character of the source is.
enum class Kind : char { Code, Comment, Literal, Directive };

// The source as the rewriter reads it (rewrite_source.cpp): without a UTF-8 byte-order mark, and
// with LF line ends.
std::string normalized(const std::string& source);

// The kind of each character of s (rewrite_source.cpp).
std::vector<Kind> classify(const std::string& s);

// The source and its characters' kinds (both outlive the view), and what can be read from them.
class SourceView {
 public:
  SourceView(const std::string& s, const std::vector<Kind>& k) : s_(s), k_(k) {}

 protected:
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
  // The identifier ending at i (inclusive), or "".
  std::string word_ending(size_t i) const {
    size_t b = i + 1;
    while (b > 0 && code(b - 1) && is_ident(s_[b - 1])) --b;
    return s_.substr(b, i + 1 - b);
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
  const std::vector<Kind>& k_;
};

}  // namespace tlemu_rewrite::source
