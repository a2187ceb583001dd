// What crossed between host memory and device memory during one call of the code under test, on
// either backend: the GPU's launch probe (launch_probe.cpp) and the emulator's runtime
// (grader/emu/runtime/cuda_api.cpp) report every copy, set and pinned allocation to a Ledger, and
// the judge applies docs/integrity.md's rule ("The product is computed by a kernel") to the JSON it
// makes. "Device memory" is cudaMalloc memory and __device__/__constant__ symbols; "host memory" is
// everything else, pinned (cudaMallocHost) memory included.
//
// The rule the figures serve: launch_matmul receives device pointers, so a product the host
// computed must reach P through one of these routes (a copy or set into device memory, or pinned
// memory a kernel reads directly), and the host can only compute it from M and N copied back (or
// written by a kernel into pinned memory). matmul_host holds M and N itself: its uploads may carry
// their words and no others, and the P it returns must be words that came back from the device.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

namespace tilelab {

// kLaunchArgs: a launch's by-value kernel arguments, `bytes` of them: beyond kLaunchArgAllowance a
// launch (pointers, sizes, a small struct), and beyond kLaunchArgCallAllowance in all the launches of
// a call (many launches would otherwise each carry a free share), whichever is more, they count as
// bytes moved from host into device memory, none of them words of M_h or N_h.
constexpr size_t kLaunchArgAllowance = 256, kLaunchArgCallAllowance = 1024;

struct CopyEvent {
  enum Kind { kCopy, kMemset, kPinnedAlloc, kPinnedFree, kLaunchArgs } kind = kCopy;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  bool dst_device = false, src_device = false;  // kCopy: where each end lies
};

class Ledger {
 public:
  // A call of launch_matmul (no M), or of matmul_host with its inputs: then the words of M_h and
  // N_h, and of P_h as the call receives it (copying it in is wasteful, not a product: it holds
  // NaN), are what its uploads may carry, and the words copied back are kept to check P_h.
  void begin(size_t pinned_held, const std::vector<float>* M = nullptr, const std::vector<float>* N = nullptr,
             const std::vector<float>* P0 = nullptr) {
    *this = Ledger();
    active_ = true;
    pinned_now_ = pinned_peak_ = pinned_held;
    host_mode_ = M && N;
    if (host_mode_) {
      allowed_.reserve(M->size() + N->size());
      for (const auto* m : {M, N, P0})
        if (m)
          for (float f : *m) allowed_.push_back(bits(f));
      std::sort(allowed_.begin(), allowed_.end());
      allowed_.erase(std::unique(allowed_.begin(), allowed_.end()), allowed_.end());
    }
  }
  void end() { active_ = false; }
  bool active() const { return active_; }
  // Whether copies back must be complete when note() is called (matmul_host: P_h is checked
  // against their words; an asynchronous copy is waited for first).
  bool wants_content() const { return active_ && host_mode_; }

  void note(const CopyEvent& e) {
    if (!active_) return;
    switch (e.kind) {
      case CopyEvent::kMemset: ++memsets_; return;
      case CopyEvent::kPinnedAlloc:
        pinned_now_ += e.bytes;
        pinned_peak_ = std::max(pinned_peak_, pinned_now_);
        return;
      case CopyEvent::kPinnedFree: pinned_now_ -= std::min(pinned_now_, e.bytes); return;
      case CopyEvent::kLaunchArgs:
        args_total_ += e.bytes;
        if (e.bytes > kLaunchArgAllowance) args_over_ += e.bytes - kLaunchArgAllowance;
        return;
      case CopyEvent::kCopy: break;
    }
    if (e.dst_device && !e.src_device) {
      to_device_ += e.bytes;
      if (host_mode_ && e.src) foreign_ += foreign_words(static_cast<const char*>(e.src), e.bytes);
    } else if (!e.dst_device && e.src_device) {
      to_host_ += e.bytes;
      if (host_mode_ && e.dst) {
        const char* d = static_cast<const char*>(e.dst);
        for (size_t i = 0; i + 4 <= e.bytes; i += 4) back_.push_back(word_at(d + i));
      }
    }
  }

  // The figures of the call, for the judge. host_result: matmul_host's P_h, whose words must all
  // have come back from the device (`result_words_not_from_device`).
  nlohmann::json report(const std::vector<float>* host_result = nullptr) {
    const uint64_t args = std::max<uint64_t>(
        args_over_, args_total_ > kLaunchArgCallAllowance ? args_total_ - kLaunchArgCallAllowance : 0);
    nlohmann::json j = {{"to_device_bytes", to_device_ + args}, {"to_host_bytes", to_host_},
                        {"memsets", memsets_}, {"pinned_bytes", pinned_peak_},
                        {"kernel_argument_bytes", args}};
    if (host_mode_) {
      j["foreign_bytes_to_device"] = (foreign_ + (args + 3) / 4) * 4;
      if (host_result) {
        std::sort(back_.begin(), back_.end());
        uint64_t missing = 0;
        for (float f : *host_result) missing += !std::binary_search(back_.begin(), back_.end(), bits(f));
        j["result_words_not_from_device"] = missing;
      }
    }
    return j;
  }

 private:
  static uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  static uint32_t word_at(const char* p) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    return u;
  }
  // Uploaded words that are no word of M_h or N_h (a trailing partial word counts as one).
  uint64_t foreign_words(const char* s, size_t n) const {
    uint64_t k = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) k += !std::binary_search(allowed_.begin(), allowed_.end(), word_at(s + i));
    return k + (i < n);
  }

  bool active_ = false, host_mode_ = false;
  uint64_t to_device_ = 0, to_host_ = 0, memsets_ = 0, foreign_ = 0, args_total_ = 0, args_over_ = 0;
  size_t pinned_now_ = 0, pinned_peak_ = 0;
  std::vector<uint32_t> allowed_, back_;
};

}  // namespace tilelab
