// Whether the product was computed by kernels, from what one call moved between host and device
// memory (the launch report's host_traffic, host_traffic.hpp): the judge's rules of
// docs/integrity.md, "The product is computed by a kernel".
#pragma once
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tilelab/contract.hpp"  // Hint
#include "tilelab/dataset.hpp"   // Shape

namespace tilelab::judge {

// launch_matmul: uploads (copies into device buffers and symbols; 8 bytes a memset, which sets a
// value of the host's choosing), and copies back, each within the allowance; pinned host memory
// held during the call counts in both directions, as a kernel reads and writes it directly.
// Empty when within; else the message.
std::string host_traffic_problem(const nlohmann::json& launch, const Shape& s);

// matmul_host: at least one launch; its uploads carry words of M_h and N_h (others within the
// allowance, 8 bytes a memset); every word of P_h came back from device memory by a copy.
// Returns the hint and the verdict's message ("" when within the rules).
std::pair<Hint, std::string> host_function_problem(const nlohmann::json& launch, const Shape& s);

}  // namespace tilelab::judge
