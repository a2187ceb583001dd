// set_constant (rewrite.hpp): a constant of the student's file given another value, for the trace
// build's tile width. Line by line, on the first definition of each name; no rewriting.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "rewrite_source.hpp"

namespace tlemu_rewrite {

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
  std::string s = source::normalized(source);
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
