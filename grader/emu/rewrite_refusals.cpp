// The rewriter's refusals (rewrite_parts.hpp): what nvcc refuses and g++ would compile.
#include <set>
#include <string>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct Refusals : SourceView {
  // Inline assembly (asm, __asm, __asm__) is refused on its line where a kernel runs it: in the body
  // of a __global__ or __device__ function (a lambda in it included) and in a #define, whose macro
  // device code may use. The builds that count and check accesses never see its loads (issue #39,
  // known-bad redteam2-count-inline-asm), and a GPU's PTX cannot run here. Host code's asm (file
  // scope, a host function) is refused by the allow-list scan after the confined build, from the
  // assembler's listing (grader/tilelab/run/listing.py), so that the build-time known-bad cases
  // (.incbin of a secret) still meet the confinement first; a source scan here would stop them.
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

  // ---- calls nvcc refuses: a plain constexpr (host) function called from device code ----
  // g++ compiles every function for the host, so a __global__ or __device__ function may call a
  // constexpr function that has no __device__; nvcc refuses the call ("calling a constexpr __host__
  // function from a __global__ function is not allowed", unless --expt-relaxed-constexpr, which the
  // kit does not pass). Found by reading the source: the constexpr functions declared without
  // __device__, then their calls in the bodies of __global__ and __device__-only functions outside
  // constant expressions (a statement with constexpr, static_assert, __shared__ or case). The
  // standard library's std::min and std::max are such functions too (CUDA's device min and max are
  // the unqualified ones), called as std::min( or ::std::min(.
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
    for (const DeviceFunction& f : device_functions()) {
      if (f.host) continue;  // __host__ __device__: nvcc only warns
      const char* kind = f.global ? "__global__" : "__device__";
      each_call(f, [&](size_t c, const std::string& id, size_t prev) {
        const bool std_min_max = (id == "min" || id == "max") && std_qualified(prev);
        if (!host.count(id) && !std_min_max) return;
        const size_t st = statement_start(c);
        if (has_word(st, c, "constexpr") || has_word(st, c, "static_assert") || has_word(st, c, "__shared__") ||
            has_word(st, c, "case"))
          return;
        if (std_min_max)
          fail(c, "calling a constexpr __host__ function (\"std::" + id + "\") from a " + kind + " function (\"" +
                      f.name + "\") is not allowed: nvcc refuses it; use CUDA's " + id + "(a, b) (or f" + id +
                      "f for floats) without std:: (an emulator check: g++ alone would accept it)");
        fail(c, "calling a constexpr __host__ function (\"" + id + "\") from a " + kind + " function (\"" + f.name +
                    "\") is not allowed: nvcc refuses it; declare " + id +
                    " __host__ __device__ constexpr (an emulator check: g++ alone would accept it)");
      });
    }
  }

  // Each call in f's body: at_call(position, name, the position of the code character before it)
  // for an identifier followed by `(` that is not a member's (after `.` or `->`).
  template <class AtCall>
  void each_call(const DeviceFunction& f, AtCall&& at_call) const {
    for (size_t c = f.open + 1; c < f.close; ++c) {
      if (!code(c) || !is_ident(s_[c]) || is_ident(s_[c - 1])) continue;
      size_t e = c;
      while (e < f.close && is_ident(s_[e])) ++e;
      const size_t open = skip_fwd(e), prev = skip_back(c - 1);
      const bool member = prev != std::string::npos &&
                          (s_[prev] == '.' || (s_[prev] == '>' && prev > 0 && s_[prev - 1] == '-'));
      if (open < f.close && s_[open] == '(' && !member) at_call(c, s_.substr(c, e - c), prev);
      c = e;
    }
  }

  // ---- calls nvcc refuses: a host library function called from device code ----
  // In device code CUDA provides, of the C library, memcpy, memset, printf, malloc, free and assert
  // (and the math functions; memmove too, as the rewriter reads it: rewrite_device_memory.cpp makes
  // all three copies the emulator's); a call of any other is "calling a __host__ function from a __global__
  // function is not allowed". g++ compiles them all, and they run in libc, which no emulator build
  // instruments: strncpy(d, s, 1) copied a byte of M past the count build unseen (red team 4,
  // redteam4-strncpy-loads: 07 at full performance credit), and could store into host memory past
  // the race build. These are the C library's functions that read or write memory given to them;
  // a __device__ function of the student's own by that name is the student's (not refused).
  void check_host_library_calls() const {
    static const std::set<std::string> kHostOnly = {
        "memcmp", "memchr", "memccpy", "mempcpy", "strlen", "strnlen", "strcpy", "strncpy", "stpcpy",
        "stpncpy", "strcat", "strncat", "strcmp", "strncmp", "strcoll", "strxfrm", "strchr", "strrchr", "strstr",
        "strspn", "strcspn", "strpbrk", "strtok", "strtok_r", "strdup", "strndup", "sprintf", "snprintf",
        "vsprintf", "vsnprintf", "sscanf", "vsscanf", "strtof", "strtod", "strtold", "strtol", "strtoul",
        "strtoll", "strtoull", "atoi", "atol", "atoll", "atof", "qsort", "bsearch", "fwrite", "fread", "fputs",
        "puts", "fprintf", "wmemcpy", "wmemmove", "wmemset", "wcslen", "wcscpy", "wcsncpy", "bcopy", "bzero",
        "explicit_bzero", "swab"};
    std::set<std::string> own;  // the student's __device__ functions
    for (const DeviceFunction& f : device_functions()) own.insert(f.name);
    for (const DeviceFunction& f : device_functions()) {
      if (f.host) continue;  // __host__ __device__: its host branches (#ifndef __CUDA_ARCH__) may call them
      each_call(f, [&](size_t c, const std::string& id, size_t) {
        if (kHostOnly.count(id) && !own.count(id))
          fail(c, "calling a __host__ function (\"" + id + "\") from a " + (f.global ? "__global__" : "__device__") +
                      " function (\"" + f.name + "\") is not allowed: nvcc refuses it (in device code CUDA's C "
                      "library is memcpy, memset, printf, malloc and free); load and store the elements "
                      "yourself (an emulator check: g++ alone would accept it)");
      });
    }
  }

  // Whether the name whose preceding code character is at prev is qualified as std:: (or ::std::).
  bool std_qualified(size_t prev) const {
    if (prev == std::string::npos || prev < 4 || s_[prev] != ':' || s_[prev - 1] != ':') return false;
    const size_t q = skip_back(prev - 2);
    return q != std::string::npos && q >= 2 && s_.compare(q - 2, 3, "std") == 0 && (q < 3 || !is_ident(s_[q - 3]));
  }
};

}  // namespace

void refuse_what_nvcc_refuses(const SourceView& src) {
  const Refusals r{src};
  r.check_no_inline_asm();
  r.check_host_constexpr_calls();
  r.check_host_library_calls();
}

}  // namespace tlemu_rewrite::parts
