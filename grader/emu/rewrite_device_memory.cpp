// Device memory in the rewritten file (rewrite_parts.hpp): device variables and device code's
// memcpy, memset and memmove.
#include <algorithm>
#include <string>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct DeviceMemory : SourceView {
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

  // ---- memcpy, memset and memmove in device code: the emulator's, whose accesses are seen ----
  // In the body of a __global__ or __device__ function (a lambda in it included), a call of
  // memcpy, memset or memmove -- plain, std::, ::, ::std:: or __builtin_ -- names
  // ::tlemu::device_memcpy (memset, memmove) instead (tilelab_emu.h): g++ would call libc, whose
  // loads and stores no build sees. Returns the replacements, [begin, end) and the new name.
  std::vector<Edit> device_mem_calls() const {
    std::vector<Edit> out;
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
    std::sort(out.begin(), out.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    out.erase(std::unique(out.begin(), out.end(), [](const Edit& a, const Edit& b) { return a.begin == b.begin; }),
              out.end());
    return out;
  }
};

}  // namespace

size_t device_variable(const SourceView& src, size_t i) { return DeviceMemory{src}.device_variable(i); }

std::vector<Edit> device_mem_calls(const SourceView& src) { return DeviceMemory{src}.device_mem_calls(); }

}  // namespace tlemu_rewrite::parts
