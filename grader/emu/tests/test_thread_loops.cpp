// The rewriter's resumable copy of a kernel body (grader/emu/rewrite_thread_loops.cpp, issue 45):
// which kernels get one, what it holds, and that the lines after it keep their numbers.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "rewrite.hpp"

namespace {
std::string rw(const std::string& s) { return tlemu_rewrite::rewrite(s, "k.cu"); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool looped(const std::string& body) {
  return has(rw("__global__ void k(const float* M, float* P, int W) {\n" + body + "\n}\n"), "loops_offered");
}

// The book's tiled kernel (02-tiled), one statement a line.
const std::string kTiled =
    "__global__ void k(const float* M, const float* N, float* P, int W) {\n"  // 1
    "  __shared__ float Mds[16][16];\n"                                        // 2
    "  __shared__ float Nds[16][16];\n"                                        // 3
    "  int tx = threadIdx.x, ty = threadIdx.y;\n"                              // 4
    "  const int T = 16;\n"                                                    // 5
    "  float Pvalue = 0;\n"                                                    // 6
    "  for (int ph = 0; ph < W / T; ++ph) {\n"                                 // 7
    "    Mds[ty][tx] = M[ty * W + ph * T + tx];\n"                             // 8
    "    Nds[ty][tx] = N[(ph * T + ty) * W + tx];\n"                           // 9
    "    __syncthreads();\n"                                                   // 10
    "    for (int k = 0; k < T; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];\n"     // 11
    "    __syncthreads();\n"                                                   // 12
    "  }\n"                                                                    // 13
    "  if (tx >= W) return;\n"                                                 // 14
    "  P[ty * W + tx] = Pvalue;\n"                                             // 15
    "}\n"                                                                      // 16
    "int after_the_kernel;\n";                                                 // 17
}  // namespace

TEST_CASE("thread loops: a tiled kernel gets a resumable copy, compiled only where TLEMU_THREAD_LOOPS is defined") {
  const std::string out = rw(kTiled);
  CHECK(has(out, "\n#if defined(TLEMU_THREAD_LOOPS)\nif (::tlemu::loops_offered()) {"));
  // The locals of the scopes that hold a barrier live in the frame; the constant stays a constant.
  CHECK(has(out, "struct tlemu_frame { int tlemu_pc; int tx; int ty; float Pvalue; int ph; };"));
  CHECK(has(out, "static constexpr const int T = 16;"));
  CHECK(has(out, "tx = ( threadIdx.x);ty = ( threadIdx.y);"));
  CHECK(has(out, "for (ph = ( 0); ph < W / T; ++ph)"));
  CHECK(has(out, "for (int k = 0; k < T; ++k)"));  // a scope without a barrier keeps its declaration
  // Each barrier: the arrival recorded on its own line, the step ends, the next resumes after it.
  CHECK(has(out, "{ tlemu_f.tlemu_pc = 2; tlemu_f.tx = tx; tlemu_f.ty = ty; tlemu_f.Pvalue = Pvalue; tlemu_f.ph = ph; "
                 "::tlemu::loop_arrive(__FILE__, __LINE__); return false; tlemu_resume_2:; }"));
  CHECK(has(out, "case 1: goto tlemu_resume_1; case 2: goto tlemu_resume_2;"));
  CHECK(has(out, "if (tx >= W) return true;"));
  // The copy starts after the __shared__ declarations (the body's statics, shared with it) on line 3,
  // and the body's own text continues on line 3 after it.
  CHECK(has(out, "#line 3 \"k.cu\"\n\n  tx = "));
  CHECK(has(out, "#endif\n#line 3 \"k.cu\"\n\n  int tx = threadIdx.x"));
  // Line 10 of the copy is the first barrier's (__LINE__ names it in findings).
  const size_t copy = out.find("#line 3 \"k.cu\"\n");
  size_t at = copy;
  for (int line = 3; line <= 10; ++line) at = out.find('\n', at) + 1;  // past "#line", then lines 3..9
  CHECK(out.compare(at, 30, "    { tlemu_f.tlemu_pc = 1; tl") == 0);
}

TEST_CASE("thread loops: kernels the copy cannot express keep the contexts alone") {
  const std::string loop = "for (int ph = 0; ph < W; ++ph) {\n  P[0] = M[ph];\n  __syncthreads();\n}";
  CHECK(looped("  float v = 0;\n" + loop));
  CHECK_FALSE(looped("  P[0] = M[0];"));                                 // no barrier: nothing to gain
  CHECK_FALSE(looped("  float v;\n  v = 0;\n" + loop));                  // no initializer: the stack's value today
  CHECK_FALSE(looped("  auto v = M[0];\n" + loop));                      // a type it does not name
  CHECK_FALSE(looped("  Acc v = M[0];\n" + loop));
  CHECK_FALSE(looped("  float v = M[0];\n  float* p = &v;\n" + loop));  // an address of a frame's local
  CHECK_FALSE(looped("  if (W > 0) __syncthreads();"));                  // not a statement of a block
  CHECK_FALSE(looped("  float v = __shfl_down_sync(0xffffffffu, M[0], 1);\n" + loop));  // a warp operation
  CHECK_FALSE(looped("  int n = __syncthreads_count(W > 0);\n" + loop));
  CHECK_FALSE(looped("  for (int i = 0; i < W; ++i) P[i] = 0;\n  int i = 0;\n" + loop));  // named before
  CHECK_FALSE(looped("  auto f = [&](int i) { return M[i]; };\n" + loop));               // a lambda
  CHECK_FALSE(looped("  for (int i = 0; i < W; ++i)\n    if (i) { __syncthreads(); }"));  // an unbraced body
  // A device function (or macro) that holds a barrier, called from the kernel.
  CHECK_FALSE(has(rw("__device__ void sync() { __syncthreads(); }\n"
                     "__global__ void k(float* P) {\n  P[0] = 1;\n  sync();\n  __syncthreads();\n}\n"),
                  "loops_offered"));
  CHECK_FALSE(has(rw("#define SYNC __syncthreads()\n"
                     "__global__ void k(float* P) {\n  P[0] = 1;\n  SYNC;\n  __syncthreads();\n}\n"),
                  "loops_offered"));
  // Divergence is the runtime's to judge, as with the contexts: a barrier inside an if, a return.
  CHECK(looped("  if (threadIdx.x < 8) {\n    __syncthreads();\n  }\n  if (W > 1) return;\n  __syncthreads();"));
}
