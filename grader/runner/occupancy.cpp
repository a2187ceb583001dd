// sm_90's occupancy rules (occupancy.hpp).
#include "occupancy.hpp"

#include <algorithm>
#include <cmath>

namespace tilelab {

std::map<std::string, int64_t> occupancy_limits(double registers, double threads, double shared_bytes, const ModelGpu& g) {
  const double warps = std::ceil(threads / 32);
  const double per_warp = std::ceil(registers * 32 / g.register_alloc_per_warp) * g.register_alloc_per_warp;
  const double per_block = std::ceil(shared_bytes / g.shared_alloc) * g.shared_alloc + g.shared_reserved;
  const auto blocks = int64_t(g.max_blocks_per_sm);
  return {{"threads", warps > 0 ? int64_t(g.max_threads_per_sm / (warps * 32)) : 0},
          {"registers", per_warp > 0 && warps > 0 ? int64_t(g.registers_per_sm / (per_warp * warps)) : blocks},
          {"shared_memory", shared_bytes > 0 ? int64_t(g.shared_per_sm / per_block) : blocks},
          {"blocks", blocks}};
}

Occupancy occupancy(double registers, double threads, double shared_bytes, const ModelGpu& g) {
  Occupancy o;
  if (!(threads > 0)) return o;
  o.limits = occupancy_limits(registers, threads, shared_bytes, g);
  static const char* const order[] = {"threads", "blocks", "shared_memory", "registers"};
  const auto least = std::min_element(std::begin(order), std::end(order),
                                      [&](const char* a, const char* b) { return o.limits.at(a) < o.limits.at(b); });
  o.blocks_per_sm = o.limits.at(*least);
  o.binding_limit = *least;
  return o;
}

}  // namespace tilelab
