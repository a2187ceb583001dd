// The context switch (runtime/context.hpp) as the scheduler uses it: contexts on stacks of their own,
// run round-robin and handing over directly to the next one, each keeping its locals (in callee-saved
// registers and on its stack) across every switch. Built twice: with the x86-64 switch
// (kit.emu.context) and with Boost.Context's, which other machines use (kit.emu.context-portable).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "context.hpp"

namespace context = tlemu::context;

namespace {
constexpr int kContexts = 7, kRounds = 500;
constexpr size_t kStack = 64 * 1024;

context::Handle g_main;
context::Handle g_contexts[kContexts];
int g_count = kContexts;  // contexts in a round
int g_running = -1;
std::vector<int> g_order;  // who ran, in order
struct Seen {
  double acc = 0;
  uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
  const char* local = nullptr;
  bool kept = true;  // every value was as expected after every switch
};
Seen g_seen[kContexts];

// The running context hands over to the next one, the last of a round to the main context.
__attribute__((noinline)) void hand_over() {
  const int me = g_running;
  const int to = me + 1 < g_count ? me + 1 : -1;
  g_running = to;
  context::swap(&g_contexts[me], to < 0 ? g_main : g_contexts[to]);
}

// Six integers and a double live across every switch (g++ keeps them in callee-saved registers or on
// this stack), and a local array on this stack.
void entry() {
  const int me = g_running;
  Seen& s = g_seen[me];
  volatile char frame[256];
  for (auto& c : frame) c = char(me);
  uint64_t a = me + 1, b = a * 3, c = b ^ 0x5555, d = c + a, e = d * 7, f = e - b;
  double acc = me;
  s.local = const_cast<const char*>(&frame[0]);
  for (int round = 0;; ++round) {
    g_order.push_back(me);
    hand_over();
    s.kept = s.kept && a == uint64_t(me + 1 + round) && b == a * 3 && c == (b ^ 0x5555) && d == c + a &&
             e == d * 7 && f == e - b && acc == double(me + round) && frame[0] == char(me) && frame[255] == char(me);
    ++a, b = a * 3, c = b ^ 0x5555, d = c + a, e = d * 7, f = e - b, acc += 1;
    s.a = a, s.b = b, s.c = c, s.d = d, s.e = e, s.f = f, s.acc = acc;
  }
}
}  // namespace

TEST_CASE("context: contexts run round-robin on their own stacks and keep their values") {
  std::vector<std::vector<char>> stacks(kContexts, std::vector<char>(kStack));
  for (int i = 0; i < kContexts; ++i) g_contexts[i] = context::make(stacks[size_t(i)].data() + kStack, kStack, entry);
  for (int round = 0; round < kRounds; ++round) {
    g_running = 0;
    context::swap(&g_main, g_contexts[0]);  // back when the last context of the round hands over
    CHECK(g_running == -1);
  }
  REQUIRE(g_order.size() == size_t(kContexts * kRounds));
  for (size_t i = 0; i < g_order.size(); ++i) CHECK(g_order[i] == int(i % kContexts));
  for (int i = 0; i < kContexts; ++i) {
    const Seen& s = g_seen[i];
    CHECK(s.kept);
    CHECK(s.a == uint64_t(i + kRounds));  // resumed kRounds - 1 times, each adding 1
    CHECK(s.acc == double(i + kRounds - 1));
    const char* lo = stacks[size_t(i)].data();
    CHECK((s.local >= lo && s.local < lo + kStack));  // its locals lie on its own stack
  }
}

TEST_CASE("context: a context made afresh on a used stack starts at its entry again") {
  // What the scheduler does for every block: the threads' stacks are reused, their contexts made anew.
  std::vector<char> stack(kStack);
  g_count = 1;
  for (int again = 0; again < 3; ++again) {
    g_seen[0] = Seen{};
    g_contexts[0] = context::make(stack.data() + kStack, kStack, entry);
    for (int round = 0; round < 2; ++round) {
      g_running = 0;
      context::swap(&g_main, g_contexts[0]);
    }
    CHECK(g_seen[0].kept);
    CHECK(g_seen[0].a == 2);  // one switch survived since its entry, whatever ran on the stack before
  }
  g_count = kContexts;
}
