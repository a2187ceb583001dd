// The rewriter's first pass (rewrite_source.hpp): the source normalized, and the kind of every
// character of it.
#include "rewrite_source.hpp"

namespace tlemu_rewrite::source {

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

std::vector<Kind> classify(const std::string& s) {
  const size_t n = s.size();
  std::vector<Kind> k(n, Kind::Code);
  size_t i = 0;
  bool line_start = true;  // only whitespace since the last newline
  // A string or character literal from its opening quote at i, escapes included, to its closing
  // quote (or the end of the line, where a broken one stops).
  const auto quoted = [&](char quote) {
    k[i++] = Kind::Literal;
    while (i < n && s[i] != quote && s[i] != '\n') {
      if (s[i] == '\\' && i + 1 < n) k[i++] = Kind::Literal;
      k[i++] = Kind::Literal;
    }
    if (i < n) k[i++] = Kind::Literal;
  };
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
      quoted('"');
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
        quoted('\'');
        continue;
      }
    }
    ++i;
  }
  return k;
}

}  // namespace tlemu_rewrite::source
