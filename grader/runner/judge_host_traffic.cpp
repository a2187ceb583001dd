#include "judge_host_traffic.hpp"

#include <algorithm>

#include "host_traffic.hpp"  // kLaunchArgAllowance

namespace tilelab::judge {
namespace {

// docs/integrity.md, "The product is computed by a kernel": what one call moved between host and
// device memory (host_traffic.hpp, reported by either backend) may be a small table or a few values,
// never a product or the inputs to compute one on the host. The allowance is an eighth of P, at
// least 256 bytes (a __constant__ table of 64 floats, a few values copied back to print) and at most
// 4 KiB: below an eighth of P the host carries or computes at most an eighth of the product, which
// the kernels must then complete. Below 256 bytes of P (Width 8) the floor could carry it all, so
// copies back have a floor of one word instead (host_return_allowance): a host that cannot read M
// and N back cannot compute the product it would upload.
int64_t host_allowance(const Shape& s) { return std::clamp<int64_t>(s.J * s.L * 4 / 8, 256, 4096); }
int64_t host_return_allowance(const Shape& s) { return std::clamp<int64_t>(s.J * s.L * 4 / 8, 4, 4096); }
int64_t bytes_of(const nlohmann::json& t, const char* key) { return t.value(key, int64_t(0)); }

}  // namespace

std::string host_traffic_problem(const nlohmann::json& launch, const Shape& s) {
  if (!launch.contains("host_traffic")) return "";
  const nlohmann::json& t = launch["host_traffic"];
  const int64_t pinned = bytes_of(t, "pinned_bytes"), allowance = host_allowance(s),
                back = host_return_allowance(s), args = bytes_of(t, "kernel_argument_bytes");
  const int64_t in = bytes_of(t, "to_device_bytes") + 8 * bytes_of(t, "memsets") + pinned,
                out = bytes_of(t, "to_host_bytes") + pinned;
  if (in <= allowance && out <= back) return "";
  return "launch_matmul moved " + std::to_string(in) + " bytes from host memory into device memory" +
         (args ? " (" + std::to_string(args) + " in kernel arguments beyond " + std::to_string(kLaunchArgAllowance) +
                     " bytes a launch or " + std::to_string(kLaunchArgCallAllowance) + " a call)"
               : "") +
         " and " + std::to_string(out) + " bytes from device memory back to the host" +
         (pinned ? " (" + std::to_string(pinned) + " of each: pinned host memory, which kernels read and write directly)" : "") +
         "; a call may move at most " + std::to_string(allowance) + " bytes in and " + std::to_string(back) +
         " back: the product must be computed by kernels, not on the host";
}

std::pair<Hint, std::string> host_function_problem(const nlohmann::json& launch, const Shape& s) {
  if (launch.value("launches", int64_t(0)) <= 0) return {hints::kHostNoKernel, "matmul_host launched no kernel"};
  if (!launch.contains("host_traffic")) return {hints::kHostNoKernel, ""};
  const nlohmann::json& t = launch["host_traffic"];
  const int64_t foreign = bytes_of(t, "foreign_bytes_to_device") + 8 * bytes_of(t, "memsets");
  // The volume: M_h, N_h (and P_h as received) once each, plus the allowance. Words of M_h and N_h
  // in an order of the host's choosing would otherwise encode any product (a bit a word).
  const int64_t uploaded = bytes_of(t, "to_device_bytes") + 8 * bytes_of(t, "memsets"),
                inputs = (s.J * s.K + s.K * s.L + s.J * s.L) * 4;
  if (uploaded > inputs + host_allowance(s))
    return {hints::kHostComputedProduct,
            "matmul_host moved " + std::to_string(uploaded) + " bytes into device memory" +
                (bytes_of(t, "kernel_argument_bytes")
                     ? " (" + std::to_string(bytes_of(t, "kernel_argument_bytes")) + " in kernel arguments beyond " +
                           std::to_string(kLaunchArgAllowance) + " bytes a launch or " +
                           std::to_string(kLaunchArgCallAllowance) + " a call)"
                     : std::string()) +
                ", more than M_h, N_h and P_h once each and " +
                std::to_string(host_allowance(s)) + " bytes besides (" + std::to_string(inputs + host_allowance(s)) +
                ")"};
  if (foreign > host_allowance(s))
    return {hints::kHostComputedProduct, "matmul_host copied " + std::to_string(foreign) +
                                             " bytes to the device that are not M_h's or N_h's, more than the " +
                                             std::to_string(host_allowance(s)) + " a call may"};
  if (const int64_t missing = bytes_of(t, "result_words_not_from_device"); missing > 0)
    return {hints::kHostComputedProduct, std::to_string(missing) +
                                             " elements of matmul_host's P_h were not copied back from device memory"};
  return {hints::kHostNoKernel, ""};
}

}  // namespace tilelab::judge
