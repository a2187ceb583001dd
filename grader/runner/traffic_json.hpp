// The count build's figures as JSON: how the worker hands them to the judge.
#pragma once
#include <nlohmann/json.hpp>

#include "traffic_counts.hpp"

namespace tlemu {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrafficCounts, launches, blocks, sampled_blocks, threads_per_block, shared_bytes_per_block, barriers_per_block, global_loads, global_stores, global_load_sectors, global_store_sectors, global_bytes_requested, global_load_bytes, sampled_global_load_bytes, global_wavefronts, l2_sectors, shared_loads, shared_stores, shared_wavefronts, tensor_fmas, tensor_insts, tensor_fmas_unstored, staging_phases_per_block, exposed_phases_per_block, fragment_registers, heaviest_launch)
}  // namespace tlemu
