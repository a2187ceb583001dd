// CHECK_THROWS_CONTAINING(expr, text, Exc): expr throws Exc, and its what() contains text -- what
// CHECK_THROWS_WITH_AS(expr, doctest::Contains(text), Exc) says, but doctest::Contains came with
// doctest 2.4.7 and Debian 11 has 2.4.0 (kit.portability.bullseye-root).
#pragma once
#include <doctest/doctest.h>

#include <string>

#define CHECK_THROWS_CONTAINING(expr, text, Exc)                                                   \
  do {                                                                                             \
    bool tl_thrown_ = false;                                                                       \
    try {                                                                                          \
      (void)(expr);                                                                                \
    } catch (const Exc& tl_e_) {                                                                   \
      tl_thrown_ = true;                                                                           \
      CHECK_MESSAGE(std::string(tl_e_.what()).find(text) != std::string::npos, "what(): " << tl_e_.what()); \
    }                                                                                              \
    CHECK_MESSAGE(tl_thrown_, #expr " did not throw " #Exc);                                       \
  } while (0)
