// Bank costs of the shared-memory planners' candidate accesses (private to sim/plan).
//
// Both shared-memory planners (planner.cc's bank search, matrix.cc's stmatrix/ldmatrix
// search) price thousands of offset bases per conversion, and each basis costs one
// warp-wide access per side. A plain access is determined by the offsets of the lane
// bits (lane l accesses the XOR of the offsets of its set bits, times the element size:
// LaneRequestCost); a matrix access by the offsets of its row and select bits. A swizzle
// move often leaves one side's offsets as they were, so each side keeps a BankCostMemo
// keyed by what determines its cost.
#ifndef WARPCHECK_SIM_PLAN_LANE_COST_H_
#define WARPCHECK_SIM_PLAN_LANE_COST_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/bank/bank_model.h"

namespace warpcheck::sim::plan {

// Ensures: the bank model's cost of the warp-wide access in which lane l (in `mask`)
// accesses `bytes` at (XOR of lanes[j] over l's set bits j) * element_bytes.
inline bank::BankCost LaneRequestCost(const uint32_t lanes[5], uint32_t mask, uint32_t bytes,
                                      uint32_t element_bytes) {
  uint32_t offset[32], addr[32];
  offset[0] = 0;  // lane l's offset: lane l & (l - 1)'s and the image of l's lowest bit
  for (uint32_t lane = 1; lane < 32; ++lane) {
    offset[lane] = offset[lane & (lane - 1)] ^ lanes[std::countr_zero(lane)];
  }
  for (uint32_t lane = 0; lane < 32; ++lane) addr[lane] = offset[lane] * element_bytes;
  return bank::SharedRequestCost(addr, mask, bytes);
}

// Direct-mapped memo of one side's bank costs, keyed by five offsets and two tags that
// together determine the cost; a collision recomputes.
class BankCostMemo {
 public:
  // A search that prices few bases wants few entries (they are cleared per planner).
  explicit BankCostMemo(size_t entries = 256) : entries_(entries) {}

  // Ensures: compute(), from the memo when (key, a, b) was computed before.
  template <typename Compute>
  bank::BankCost Get(const uint32_t key[5], uint32_t a, uint32_t b, Compute compute) {
    uint64_t h = b * 0x9E3779B97F4A7C15ull ^ a * 0xC2B2AE3D27D4EB4Full;
    for (int j = 0; j < 5; ++j) h = (h ^ key[j]) * 0x100000001B3ull;
    Entry& e = entries_[(h >> 32) % entries_.size()];
    if (e.valid && e.a == a && e.b == b && std::equal(key, key + 5, e.key)) return e.cost;
    e.valid = true;
    e.a = a;
    e.b = b;
    std::copy(key, key + 5, e.key);
    e.cost = compute();
    return e.cost;
  }

 private:
  struct Entry {
    bool valid = false;
    uint32_t key[5] = {};
    uint32_t a = 0, b = 0;
    bank::BankCost cost;
  };
  std::vector<Entry> entries_;
};

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_LANE_COST_H_
