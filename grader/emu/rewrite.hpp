// The emulator's source rewriter: the two CUDA constructs g++ cannot compile through a header alone.
//
//   k<<<g, b[, s[, st]]>>>(args)   ->  ::tlemu::launch({__FILE__, __LINE__, "k"}, g, b, s, st,
//                                                      [&](auto&&... a) { k(a...); }, args)
//   __shared__ T v[A][B];          ->  static T (&v)[A][B] = ::tlemu::shared_var<T[A][B]>("v", ...);
//   extern __shared__ T v[];       ->  static T (&v)[] = ::tlemu::dynamic_shared<T[]>("v", ...);
//
// Comments, string and character literals (raw strings included) and preprocessor lines are left
// alone, but for a launch in a #define's replacement list, rewritten there. Every line keeps its number: a construct that spanned several lines is emitted on its
// first line, followed by the newlines it held, and the output starts with `#line 1 "<path>"`, so
// __FILE__, __LINE__ and compiler messages name the student's own file and line.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace tlemu_rewrite {

// Thrown for a construct the rewriter cannot handle, e.g. an unterminated `<<<`; the message
// names the line.
struct RewriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Returns the rewritten source; `path` is the name __FILE__ and the compiler should report.
std::string rewrite(const std::string& source, const std::string& path);

// The source with the value of each constant of `names` that it defines replaced by `value`, for a
// build that runs the student's kernel at another tile width (`tilelab trace`: TILE_WIDTH or
// BLOCK_WIDTH 2, the book's figures). A constant is the first `#define NAME value` line, or a
// `const`/`constexpr` integer `NAME = value;`, outside block comments; the line count is kept.
// Throws RewriteError when the file defines none of them (the message says what the trace needs).
std::string set_constant(const std::string& source, const std::vector<std::string>& names, const std::string& value);

}  // namespace tlemu_rewrite
