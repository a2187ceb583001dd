// What 02-tiled's w1024 check would cost on the CPU if the emulator ran a block's threads as loops
// between barriers instead of one context per thread (docs/performance.md, "Session 22: the barrier
// release"): the solution's kernel split by hand at its two __syncthreads() into regions, each run
// for thread 0, 1, ... 255 in turn (the order the emulator's contexts run them in today), the local
// that lives across the barriers (Pvalue) in a per-thread array. Each thread's multiply-adds keep
// their order, so P must equal, bit for bit, the product computed one thread at a time (checked).
// Build as the plain emulator build compiles a student's file: g++ -O2 -g (no FMA contraction).
//   g++ -O2 -g -o /tmp/as-loops tiled-02-as-loops.cpp && /tmp/as-loops 1024
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int kTile = 16;

// The kernel as the emulator runs it today, thread by thread (the reference for P's bits).
void one_thread_at_a_time(const float* M, const float* N, float* P, int W) {
  for (int row = 0; row < W; ++row)
    for (int col = 0; col < W; ++col) {
      float pvalue = 0;
      for (int ph = 0; ph < W / kTile; ++ph)
        for (int k = 0; k < kTile; ++k) pvalue += M[row * W + ph * kTile + k] * N[(ph * kTile + k) * W + col];
      P[row * W + col] = pvalue;
    }
}

// The same kernel, each block's threads as loops between its barriers.
__attribute__((noinline)) void block_as_loops(const float* M, const float* N, float* P, int W, int bx, int by) {
  static float Mds[kTile][kTile], Nds[kTile][kTile];
  float pvalue[kTile * kTile] = {};
  for (int ph = 0; ph < W / kTile; ++ph) {
    for (int ty = 0; ty < kTile; ++ty)  // region 1: the loads, up to the first __syncthreads()
      for (int tx = 0; tx < kTile; ++tx) {
        const int row = by * kTile + ty, col = bx * kTile + tx;
        Mds[ty][tx] = M[row * W + ph * kTile + tx];
        Nds[ty][tx] = N[(ph * kTile + ty) * W + col];
      }
    for (int ty = 0; ty < kTile; ++ty)  // region 2: the products, up to the second
      for (int tx = 0; tx < kTile; ++tx) {
        float v = pvalue[ty * kTile + tx];
        for (int k = 0; k < kTile; ++k) v += Mds[ty][k] * Nds[k][tx];
        pvalue[ty * kTile + tx] = v;
      }
  }
  for (int ty = 0; ty < kTile; ++ty)  // region 3: the store
    for (int tx = 0; tx < kTile; ++tx) P[(by * kTile + ty) * W + bx * kTile + tx] = pvalue[ty * kTile + tx];
}

int main(int argc, char** argv) {
  const int W = argc > 1 ? std::atoi(argv[1]) : 1024;
  std::vector<float> M(size_t(W) * W), N(M.size()), P(M.size()), ref(M.size());
  std::srand(1);
  for (auto& x : M) x = float(std::rand() % 17 - 8) / 8;
  for (auto& x : N) x = float(std::rand()) / RAND_MAX - 0.5f;
  const auto t0 = std::chrono::steady_clock::now();
  for (int by = 0; by < W / kTile; ++by)
    for (int bx = 0; bx < W / kTile; ++bx) block_as_loops(M.data(), N.data(), P.data(), W, bx, by);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  one_thread_at_a_time(M.data(), N.data(), ref.data(), W);
  const bool same = std::memcmp(P.data(), ref.data(), P.size() * sizeof(float)) == 0;
  std::printf("%d^3 as loops between barriers: %.2f s; P %s the thread-at-a-time product\n", W, s,
              same ? "bit for bit equals" : "DIFFERS from");
  return same ? 0 : 1;
}
