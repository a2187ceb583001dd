// Kernel launches in the rewritten file (rewrite_parts.hpp): `k<<<g, b[, s[, st]]>>>(args)` becomes
// a call of ::tlemu::launch (rewrite.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct Launches : SourceView {
  Launches(const SourceView& src, const std::vector<std::string>* kernels) : SourceView(src), kernels_(kernels) {}
  // The __global__ functions of the file, where the text read is not the file (a macro's
  // replacement list: launch_in_macro); else this text's own.
  const std::vector<std::string>* kernels_;

  // The kernel expression ending right before `<<<` at p: [::]name[<...>][::name[<...>]]..., each
  // operand with any subscripts (kernels[i]) and joined by member access (cfg.kernel, this->kernel);
  // or one in parentheses, whatever it holds: (k), (*fp), ((kernel_t)p).
  size_t kernel_start(size_t p) const {
    size_t j = skip_back(p - 1), start = std::string::npos;
    if (j != std::string::npos && s_[j] == ')') return match_back(j);
    for (;;) {
      while (j != std::string::npos && s_[j] == ']') {  // subscripts, balanced
        const size_t open = match_back(j);
        j = open == 0 ? std::string::npos : skip_back(open - 1);
      }
      start = name_start(j, p);
      const size_t m = start == 0 ? std::string::npos : skip_back(start - 1);
      if (m != std::string::npos && s_[m] == '.' && m > 0) {
        j = skip_back(m - 1);
      } else if (m != std::string::npos && s_[m] == '>' && m > 1 && s_[m - 1] == '-') {
        j = skip_back(m - 2);
      } else {
        return start;
      }
    }
  }
  // The bracket opening the `]` at close, counting only code characters.
  size_t match_back(size_t close) const {
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
      if (!code(i)) continue;
      if (s_[i] == ']' || s_[i] == ')' || s_[i] == '}') ++depth;
      if ((s_[i] == '[' || s_[i] == '(' || s_[i] == '{') && --depth == 0) return i;
    }
    fail(close, "unbalanced brackets before <<<");
  }
  // The start of the qualified name ending at j: [::]name[<...>][::name[<...>]]...
  size_t name_start(size_t j, size_t p) const {
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
    if (start == std::string::npos) fail(p, "cannot find the kernel name before <<<");
    return start;
  }

  // Whether the kernel expression names a variable: its last name (template arguments and
  // qualifiers dropped) is no __global__ function of a file that defines some, or it subscripts or
  // reaches a member (kernels[i], cfg.kernel). (A fragment of the rewriter's tests that defines no
  // kernel keeps the lambda for a plain name.)
  bool names_variable(const std::string& kernel) const {
    std::string name = kernel;
    // (k) is k; any other parenthesized expression ((*fp), a cast) is a value.
    while (name.size() > 2 && name.front() == '(' && name.back() == ')') name = name.substr(1, name.size() - 2);
    if (name.find_first_of("()*&") != std::string::npos) return true;
    if (!name.empty() && name.back() == '>')  // the last name's template arguments, balanced
      for (size_t i = name.size(), depth = 0; i-- > 0;) {
        if (name[i] == '>') ++depth;
        if (name[i] == '<' && --depth == 0) {
          name.erase(i);
          break;
        }
      }
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (const size_t q = name.rfind("::"); q != std::string::npos) name.erase(0, q + 2);
    if (name.find_first_of(".[") != std::string::npos || name.find("->") != std::string::npos) return true;
    std::vector<std::string> own;
    if (!kernels_)
      for (const DeviceFunction& f : device_functions())
        if (f.global) own.push_back(f.name);
    const std::vector<std::string>& kernels = kernels_ ? *kernels_ : own;
    return !kernels.empty() && std::find(kernels.begin(), kernels.end(), name) == kernels.end();
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
    // A kernel named by a variable (a function pointer) is handed over by value, read once at the
    // launch as CUDA reads it; a lambda's reference to it was read by every thread, from the host's
    // memory (the race build's kernel-accessed-host). A __global__ function's name, which may name
    // an overload set or a template whose arguments the call deduces, is called through the lambda.
    const std::string callee = names_variable(kernel) ? kernel
                               : "[&](auto&&... tlemu_a) -> decltype(" + kernel + "(tlemu_a...), void()) { " + kernel +
                                     "(tlemu_a...); }";
    std::string o = "((void)sizeof((" + call + ", 0)), ::tlemu::launch({__FILE__, __LINE__, \"" + escape(kernel) +
                    "\"}, " + cfg[0] + ", " + cfg[1] + ", " + cfg[2] + ", " + cfg[3] + ", " + callee;
    if (!no_args) o += ", " + args;
    o += "))";
    o.append(size_t(newlines(begin, open + 1) + newlines(rpar, end)), '\n');
    return o;
  }
};

}  // namespace

std::string launch(const SourceView& src, size_t p, size_t& begin, size_t& end) {
  return Launches{src, nullptr}.launch(p, begin, end);
}

std::string launch_in_macro(const std::string& replacement, const std::vector<std::string>& params,
                            const std::vector<std::string>& kernels) {
  const std::vector<source::Kind> kinds = source::classify(replacement);
  const SourceView view(replacement, kinds);
  Launches launches{view, &kernels};
  std::string out;
  size_t at = 0;
  for (size_t i = 0; i + 2 < replacement.size(); ++i) {
    if (i < at || kinds[i] != source::Kind::Code || replacement.compare(i, 3, "<<<") != 0) continue;
    size_t begin = 0, end = 0;
    std::string text = launches.launch(i, begin, end);
    // A kernel named by a parameter is named in messages by the argument (#k), not by "k".
    const std::string name = replacement.substr(begin, i - begin);
    std::string bare = name;
    while (!bare.empty() && std::isspace(static_cast<unsigned char>(bare.back()))) bare.pop_back();
    if (std::find(params.begin(), params.end(), bare) != params.end()) {
      const std::string quoted = "__LINE__, \"" + bare + "\"}";
      if (const size_t q = text.find(quoted); q != std::string::npos) text.replace(q, quoted.size(), "__LINE__, #" + bare + "}");
    }
    out.append(replacement, at, begin - at);
    out += text;
    at = end;
    i = end - 1;
  }
  out.append(replacement, at, std::string::npos);
  return out;
}

}  // namespace tlemu_rewrite::parts
