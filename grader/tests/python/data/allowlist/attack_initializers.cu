// Static initializers: a call before main, a destructor registered to run after it, and an indirect
// call. Judged like any other code (the worker is confined from its first instruction): they pass.
#include <cuda_runtime.h>
#include <cstdio>
struct Evil { int x; ~Evil(); };
Evil::~Evil() { puts("after main, in the grader"); }
static Evil evil;
static int before = puts("before main, in the grader");
static int answer() { return 42; }
static int (*volatile fp)() = answer;
static int indirect = fp();
void launch_matmul(const float*, const float*, float* P, int) { P[0] = float(before + indirect + evil.x); }
