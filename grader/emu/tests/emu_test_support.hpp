// What the emulator's kernel tests (tests/wmma.cu, tests/ptx.cu: .cu files built as a student's file
// is, in every build) share: device buffers, the build that runs them, float bits, findings by kind,
// random inputs.
#pragma once
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime.hpp"

namespace emu_test {

// A cudaMalloc buffer of n values, filled from the host or not, read back with get().
template <class T>
struct Device {
    T* p = nullptr;
    size_t n;
    explicit Device(size_t count) : n(count) { REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess); }
    explicit Device(const std::vector<T>& h) : Device(h.size()) {
        REQUIRE(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    ~Device() { cudaFree(p); }
    std::vector<T> get() const {
        std::vector<T> h(n);
        REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }
};

// "emu", "emu-asan", "emu-race", "emu-count": cases only one build can check ask it.
inline std::string build() { return tlemu::backend_name(); }

inline uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// The findings of `kind` reported since the last take (the others are dropped with them).
inline std::vector<tlemu::Finding> findings_of(const std::string& kind) {
    std::vector<tlemu::Finding> out;
    for (auto& f : tlemu::take_findings())
        if (f.kind == kind) out.push_back(f);
    return out;
}

inline std::vector<float> random_floats(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = u(g);
    return v;
}

// Runs `bad` (kernels that end in a fatal finding: the asan build's) in a child process, whose
// sanitizer report goes nowhere; "kind:line" of the finding that ended it with status 2, else what
// went otherwise ("exit N", "no finding").
template <class F>
std::string fatal_finding(F bad) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        if (FILE* quiet = std::freopen("/dev/null", "w", stderr)) (void)quiet;  // the sanitizer's report
        tlemu::set_fatal_handler([&](const std::vector<tlemu::Finding>& all) {
            const std::string s = all.empty() ? "none" : all.back().kind + ":" + std::to_string(all.back().line);
            (void)!::write(fds[1], s.data(), s.size());
        });
        bad();
        ::_exit(0);
    }
    ::close(fds[1]);
    char buf[256] = {};
    const ssize_t got = ::read(fds[0], buf, sizeof buf - 1);
    ::close(fds[0]);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 2) return "exit " + std::to_string(status);
    return got > 0 ? std::string(buf) : "no finding";
}

}  // namespace emu_test
