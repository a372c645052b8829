// Bank costs of the shared-memory planners' candidate accesses (private to sim/plan).
//
// Both shared-memory planners (planner.cc's bank search, matrix.cc's stmatrix/ldmatrix
// search) price thousands of offset bases per conversion, and each basis costs one
// warp-wide access per side. A plain access is determined by the offsets of the lane
// bits (lane l accesses the XOR of the offsets of its set bits, times the element size:
// LaneRequestCost); a matrix access by the offsets of its row and select bits. A swizzle
// move often leaves one side's offsets as they were, so each side keeps a BankCostMemo
// keyed by what determines its cost.
//
// Both accesses are linear over F2 (offsets are XORs of images, the byte address a shift
// of the offset), and that gives the bank model a closed form. The lanes that take part,
// {l : l & z == 0}, are a subspace; a lane group is a coset of the group's low lane bits,
// so its keys (the words, or the aligned slots of wide accesses) are a coset of one
// subspace K of keys, and a translate only permutes the banks. Every bank K reaches then
// holds |K ∩ ker(bank)| = 2^(rank K - rank bank(K)) distinct keys: that is the group's
// wavefronts, the same for every group that takes part. Misaligned wide accesses (no
// planner makes one) and other lane masks go through the bank model itself.
#ifndef WARPCHECK_SIM_PLAN_LANE_COST_H_
#define WARPCHECK_SIM_PLAN_LANE_COST_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/bank/bank_model.h"
#include "sim/plan/f2_span.h"

namespace warpcheck::sim::plan {

// kClearLanes[j]: the lanes (bits of a 32-bit lane mask) whose lane bit j is clear.
inline constexpr uint32_t kClearLanes[5] = {0x55555555u, 0x33333333u, 0x0f0f0f0fu,
                                            0x00ff00ffu, 0x0000ffffu};

// Ensures: the lanes l with (l & free_tid) == 0, as a lane mask: those that take part in
// an access from which the thread bits `free_tid` (copies) are masked out.
inline uint32_t ActiveLanes(uint32_t free_tid) {
  // (Unrolled without branches: the bank searches ask for it on every memo miss.)
  uint32_t mask = ~0u;
  mask &= kClearLanes[0] | ((free_tid & 1u) - 1u);
  mask &= kClearLanes[1] | (((free_tid >> 1) & 1u) - 1u);
  mask &= kClearLanes[2] | (((free_tid >> 2) & 1u) - 1u);
  mask &= kClearLanes[3] | (((free_tid >> 3) & 1u) - 1u);
  mask &= kClearLanes[4] | (((free_tid >> 4) & 1u) - 1u);
  return mask;
}

// Ensures: the lane groups of a warp-wide access of `bytes` a lane (32 lanes up to 4
// bytes, 16 for 8, 8 for 16) that hold a lane of `mask`: the access's least wavefronts
// (BankCost::minimum), each such group being at least one.
inline uint32_t ActiveGroups(uint32_t mask, uint32_t bytes) {
  const int lanes = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  const uint32_t group = lanes == 32 ? ~0u : (1u << lanes) - 1;
  uint32_t groups = 0;
  for (int g = 0; g < 32; g += lanes) groups += ((mask >> g) & group) != 0;
  return groups;
}

// Ensures: 2^(rank of keys[0..n) - rank of (keys[k] & bank_mask)): the distinct keys of
// the span of `keys` in each bank the span reaches.
// Requires: n <= 5; bank_mask = 2^b - 1 (the bank bits are the low bits of a key).
//
// One elimination gives both ranks: each key, reduced by the rows before it
// (F2Independent), is 0 or a new row, and the rows' lowest bits (pivots) are distinct, so
// their count is the rank of the keys. A row whose pivot is a bank bit has a bank part;
// these bank parts are independent (in a combination, the least such pivot is set in its
// row alone: a row has no bit below its pivot) and span the banks of the keys (a row
// whose pivot is above the bank bits has no bank bit set), so their count is the rank of
// the banks, and the difference is the rows with their pivot above the bank bits.
inline uint32_t DistinctPerBank(const uint32_t* keys, int n, uint32_t bank_mask) {
  F2Independent rows;
  int above = 0;
  for (int i = 0; i < n; ++i) above += rows.AddPivot(keys[i]) > bank_mask;
  return 1u << above;
}

// The closed form of LaneRequestCost (the essay above), or nullopt where it does not
// apply: `mask` not of the form {l : l & z == 0}, an element size or access size the
// bank model does not take, or a misaligned wide access.
inline std::optional<bank::BankCost> LinearLaneRequestCost(const uint32_t lanes[5],
                                                           uint32_t mask, uint32_t bytes,
                                                           uint32_t element_bytes) {
  if (!SingleBit(element_bytes) || !SingleBit(bytes) || bytes > 16) {
    return std::nullopt;
  }
  // z: the lane bits no lane of the mask has (lane 1 << j is in the mask unless bit j
  // is in z).
  const uint32_t absent = ~mask;
  const uint32_t z = ((absent >> 1) & 1u) | ((absent >> 2) & 1u) << 1 |
                     ((absent >> 4) & 1u) << 2 | ((absent >> 8) & 1u) << 3 |
                     ((absent >> 16) & 1u) << 4;
  if (mask != ActiveLanes(z)) return std::nullopt;
  const int group_bits = bytes <= 4 ? 5 : bytes == 8 ? 4 : 3;  // lanes per group
  const int slot_shift = bytes <= 4 ? 2 : std::countr_zero(bytes);  // address -> key
  const uint32_t shift = static_cast<uint32_t>(std::countr_zero(element_bytes));
  // keys: the offsets of the group's lane bits that take part; any: of every such bit.
  uint32_t keys[5], any = 0;
  int n = 0;
  for (int j = 0; j < 5; ++j) {
    if ((z >> j) & 1) continue;
    const uint32_t address = lanes[j] << shift;
    any |= address;
    if (j < group_bits) keys[n++] = address >> slot_shift;
  }
  if (bytes > 4 && (any & (bytes - 1)) != 0) return std::nullopt;
  uint32_t groups = 1;  // the lane groups that take part: 2^(high lane bits not in z)
  for (int j = group_bits; j < 5; ++j) groups <<= ((z >> j) & 1) ^ 1;
  bank::BankCost cost;
  cost.minimum = groups;
  cost.wavefronts = groups * DistinctPerBank(keys, n, 31u >> (slot_shift - 2));
  return cost;
}

// Ensures: the bank model's cost of the warp-wide access in which lane l (in `mask`)
// accesses `bytes` at (XOR of lanes[j] over l's set bits j) * element_bytes.
inline bank::BankCost LaneRequestCost(const uint32_t lanes[5], uint32_t mask, uint32_t bytes,
                                      uint32_t element_bytes) {
  if (auto c = LinearLaneRequestCost(lanes, mask, bytes, element_bytes)) return *c;
  uint32_t offset[32], addr[32];
  offset[0] = 0;  // lane l's offset: lane l & (l - 1)'s and the image of l's lowest bit
  for (uint32_t lane = 1; lane < 32; ++lane) {
    offset[lane] = offset[lane & (lane - 1)] ^ lanes[std::countr_zero(lane)];
  }
  for (uint32_t lane = 0; lane < 32; ++lane) addr[lane] = offset[lane] * element_bytes;
  return bank::SharedRequestCost(addr, mask, bytes);
}

// Ensures: the bank model's cost of the `1 << sels` 8x8 matrices (ldmatrix/stmatrix) of
// which matrix i reads row r at (XOR of rows[k] over r's set bits k, and of sel[k] over
// i's set bits k) * element_bytes. Requires: sels <= 2.
inline bank::BankCost MatrixRowsCost(const uint32_t rows[3], const uint32_t sel[2], int sels,
                                     uint32_t element_bytes) {
  const int x = 1 << sels;
  uint32_t any = 0;  // every row address is an XOR of these
  for (int k = 0; k < 3; ++k) any |= rows[k] * element_bytes;
  for (int k = 0; k < sels; ++k) any |= sel[k] * element_bytes;
  if ((any & 15) == 0 && SingleBit(element_bytes)) {
    // Aligned: each matrix's row slots are a coset of the span of the rows' slots.
    uint32_t keys[3];
    for (int k = 0; k < 3; ++k) keys[k] = (rows[k] * element_bytes) >> 4;
    bank::BankCost cost;
    cost.minimum = static_cast<uint32_t>(x);
    cost.wavefronts = static_cast<uint32_t>(x) * DistinctPerBank(keys, 3, 7);
    return cost;
  }
  uint32_t addr[32] = {};
  for (int i = 0; i < x; ++i) {
    const uint32_t s = (i & 1 ? sel[0] : 0) ^ (i & 2 ? sel[1] : 0);
    for (uint32_t r = 0; r < 8; ++r) {
      const uint32_t row = (r & 1 ? rows[0] : 0) ^ (r & 2 ? rows[1] : 0) ^ (r & 4 ? rows[2] : 0);
      addr[8 * i + r] = (row ^ s) * element_bytes;
    }
  }
  return bank::MatrixRequestCost(addr, x);
}

// Direct-mapped memo of one side's bank costs, keyed by five offsets and two tags that
// together determine the cost; a collision recomputes. `Entries` entries, in the object
// and not cleared when it is made (a planner makes one per side and candidate, and most
// are used for a few bases): a bit per entry says which hold a cost.
template <size_t Entries = 256>
class BankCostMemo {
  static_assert(Entries % 64 == 0);

 public:
  // Ensures: compute(), from the memo when (key, a, b) was computed before.
  template <typename Compute>
  bank::BankCost Get(const uint32_t key[5], uint32_t a, uint32_t b, Compute compute) {
    uint64_t h = b * 0x9E3779B97F4A7C15ull ^ a * 0xC2B2AE3D27D4EB4Full;
    for (int j = 0; j < 5; ++j) h = (h ^ key[j]) * 0x100000001B3ull;
    const size_t i = (h >> 32) % Entries;
    Entry& e = entries_[i];
    const uint64_t bit = uint64_t{1} << (i % 64);
    if ((valid_[i / 64] & bit) && e.a == a && e.b == b && std::equal(key, key + 5, e.key)) {
      return bank::BankCost{e.wavefronts, e.minimum};
    }
    valid_[i / 64] |= bit;
    e.a = a;
    e.b = b;
    std::copy(key, key + 5, e.key);
    const bank::BankCost cost = compute();
    e.wavefronts = cost.wavefronts;
    e.minimum = cost.minimum;
    return cost;
  }

 private:
  // Trivial (left uninitialised until `valid_` says otherwise).
  struct Entry {
    uint32_t key[5];
    uint32_t a, b;
    uint32_t wavefronts, minimum;
  };
  Entry entries_[Entries];
  uint64_t valid_[Entries / 64] = {};
};

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_LANE_COST_H_
