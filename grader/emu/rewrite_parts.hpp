// The rewriter's parts, each deciding one thing about the source it reads through a SourceView
// (rewrite_source.hpp); rewrite.cpp walks the file once, asks them, and emits their edits in order.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rewrite_source.hpp"

namespace tlemu_rewrite::parts {

using source::SourceView;

// A replacement of the source's [begin, end) by text (which keeps the newlines it replaces).
struct Edit {
  size_t begin, end;
  std::string text;
};

// What nvcc would refuse and g++ would compile: throws RewriteError naming the line
// (rewrite_refusals.cpp: inline assembly in device code, a constexpr host function called from it).
void refuse_what_nvcc_refuses(const SourceView& src);

// Device memory (rewrite_device_memory.cpp): the length of a __device__, __constant__ or
// __managed__ qualifier at i that declares a variable to place in device memory's pages (else 0),
// and the calls of memcpy, memset and memmove in device code, renamed to the emulator's.
size_t device_variable(const SourceView& src, size_t i);
std::vector<Edit> device_mem_calls(const SourceView& src);

// The launch whose `<<<` is at p (rewrite_launch.cpp): its replacement; [begin, end) is what it replaces.
std::string launch(const SourceView& src, size_t p, size_t& begin, size_t& end);
// A macro's replacement list with each launch in it replaced as above (the preprocessor then makes
// the call nvcc would); `params` the macro's parameters, `kernels` the file's __global__ functions.
std::string launch_in_macro(const std::string& replacement, const std::vector<std::string>& params,
                            const std::vector<std::string>& kernels);

// cudaLaunchKernel((void*)kernel, ...) at i (rewrite_launch_api.cpp): the cast to remove, so that
// the emulator's cudaLaunchKernel receives the kernel with its type; nothing for any other call.
std::optional<Edit> launch_api_cast(const SourceView& src, size_t i);

// The __shared__ declaration at p (rewrite_shared.cpp): its replacement; [begin, end) is what it replaces.
std::string shared(const SourceView& src, size_t p, size_t& begin, size_t& end);

// Loop unrolling (rewrite_unroll.cpp): the `#pragma unroll [n]` lines, [begin, end) each, and the
// macro one becomes.
std::vector<std::pair<size_t, size_t>> unroll_pragmas(const SourceView& src);
std::string unroll_macro(const SourceView& src, size_t b, size_t e);

// Threads as loops between barriers (rewrite_thread_loops.cpp): the rewritten file with a resumable
// copy of each kernel body it can express so, compiled where TLEMU_THREAD_LOOPS is defined.
std::string thread_loops(const std::string& rewritten);

}  // namespace tlemu_rewrite::parts
