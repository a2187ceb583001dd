// The runtime API's launch in the rewritten file (rewrite_parts.hpp): cudaLaunchKernel's kernel
// with its cast to void* taken off.
#include <algorithm>
#include <optional>
#include <string>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct LaunchApi : SourceView {
  // `(void*)`, `(const void *)`, `void const*` once spaces are dropped.
  static bool void_pointer(std::string t) {
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return t == "void*" || t == "constvoid*" || t == "voidconst*";
  }

  // cudaLaunchKernel((void*)kernel, ...) as CUDA's samples write it: nvcc's cudaLaunchKernel takes
  // the kernel as a const void* and finds its parameters in the fatbinary; the emulator's
  // (tilelab_emu_launch_api.h) must have the kernel's type to call it with the arguments `args`
  // points to. The cast -- C-style, reinterpret_cast or static_cast to (const) void* -- is removed,
  // so the kernel reaches it with its type; any other first argument is left as written.
  std::optional<Edit> cast(size_t i) const {
    if (!word_at(i, "cudaLaunchKernel") || member_at(i)) return std::nullopt;
    const size_t open = skip_fwd(i + 16);
    if (open >= s_.size() || s_[open] != '(') return std::nullopt;
    const size_t a = skip_fwd(open + 1);
    if (a >= s_.size()) return std::nullopt;
    if (s_[a] == '(') {
      const size_t close = match_fwd(a);
      if (void_pointer(flat(a + 1, close))) return Edit{a, close + 1, std::string(size_t(newlines(a, close + 1)), '\n')};
      return std::nullopt;
    }
    for (const char* w : {"reinterpret_cast", "static_cast"}) {
      if (!word_at(a, w)) continue;
      const size_t lt = skip_fwd(a + std::char_traits<char>::length(w));
      if (lt >= s_.size() || s_[lt] != '<') return std::nullopt;
      const size_t gt = s_.find('>', lt);
      if (gt == std::string::npos || !void_pointer(flat(lt + 1, gt))) return std::nullopt;
      const size_t paren = skip_fwd(gt + 1);
      if (paren >= s_.size() || s_[paren] != '(') return std::nullopt;
      return Edit{a, gt + 1, std::string(size_t(newlines(a, gt + 1)), '\n')};
    }
    return std::nullopt;
  }
};

}  // namespace

std::optional<Edit> launch_api_cast(const SourceView& src, size_t i) { return LaunchApi{src}.cast(i); }

}  // namespace tlemu_rewrite::parts
