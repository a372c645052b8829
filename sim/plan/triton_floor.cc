#include "sim/plan/triton_floor.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/triton_smem.h"

namespace warpcheck::sim::plan {
namespace {

// Source hardware positions as bit masks: registers [0, r), lanes [r, r + l), warps after.
struct SourcePositions {
  explicit SourcePositions(const FlatLayout& s)
      : r(s.reg_bits()), l(s.lane_bits()), w(s.warp_bits()) {
    for (uint32_t v : s.reg) span.Add(v);
    for (uint32_t v : s.lane) span.Add(v);
    for (uint32_t v : s.warp) span.Add(v);
  }
  // The position holding element e (free bits 0); all ones when no thread holds it.
  uint32_t Of(uint32_t e) const { return span.Solve(e).value_or(~0u); }
  uint32_t LaneMask() const { return ((1u << l) - 1) << r; }
  uint32_t WarpMask() const { return ((1u << w) - 1) << (r + l); }
  uint32_t Lane(int j) const { return 1u << (r + j); }
  uint32_t Warp(int k) const { return 1u << (r + l + k); }
  F2Span span;
  int r, l, w;
};

// Whether C = S^-1 ∘ D can be quotiented by one hardware dim: the destination's bits of
// that dim map to the same source bits, and no other destination bit reaches them.
bool Quotients(const SourcePositions& sp, const std::vector<uint32_t>& dim_bases,
               const std::vector<uint32_t>& src_bases,
               uint32_t (SourcePositions::*unit)(int) const, uint32_t dim_mask,
               const std::vector<std::vector<uint32_t>>& other_dims) {
  if (dim_bases.size() != src_bases.size()) return false;
  for (size_t k = 0; k < dim_bases.size(); ++k) {
    // A bit both layouts broadcast is a fixed point (both hold copies there).
    if (dim_bases[k] == 0 && src_bases[k] == 0) continue;
    if (sp.Of(dim_bases[k]) != (sp.*unit)(static_cast<int>(k))) return false;
  }
  for (const auto* bases : {&other_dims[0], &other_dims[1]}) {
    for (uint32_t e : *bases) if (sp.Of(e) & dim_mask) return false;
  }
  return true;
}

}  // namespace

int MixedTranspositions(const ConversionProblem& p) {
  // The factorisation pads the register and lane bits of both sides and pairs broadcast
  // positions, so that S^-1 ∘ D is a permutation of (register, lane) bits; each mixed
  // transposition is one register -> lane step of it and one lane -> register step. With
  // broadcasts, one direction can show fewer: the larger count is the permutation's.
  auto count = [](const FlatLayout& from, const FlatLayout& to) {
    F2Span span;
    for (uint32_t v : to.reg) span.Add(v);
    for (uint32_t v : to.lane) span.Add(v);
    const uint32_t lane_mask = ((1u << to.lane_bits()) - 1) << to.reg_bits();
    int m = 0;
    for (uint32_t v : from.reg) {
      if (v == 0) continue;  // broadcast registers are dropped first
      auto pos = span.Solve(v);
      if (!pos || (*pos & lane_mask) != 0) ++m;
    }
    return m;
  };
  return std::max(count(p.src, p.dst), count(p.dst, p.src));
}

Strategy TritonStrategy(const ConversionProblem& p) {
  SourcePositions sp(p.src);
  if (!Quotients(sp, p.dst.warp, p.src.warp, &SourcePositions::Warp, sp.WarpMask(),
                 {p.dst.reg, p.dst.lane})) {
    return Strategy::kSmem;
  }
  if (!Quotients(sp, p.dst.lane, p.src.lane, &SourcePositions::Lane, sp.LaneMask(),
                 {p.dst.reg, p.dst.warp})) {
    return MixedTranspositions(p) < 2 ? Strategy::kShuffle : Strategy::kSmem;
  }
  return Strategy::kRegisters;
}

int PickNotWorseThanTriton(Strategy triton, const std::vector<ConversionPlan>& all) {
  auto better = [](const ConversionPlan& a, const ConversionPlan& b) {
    return RanksBefore(a.cost, b.cost);
  };
  auto wavefronts = [](const ConversionPlan& c) {
    return c.cost.wavefronts_store + c.cost.wavefronts_load;
  };
  // Triton's shared-memory path uses stmatrix/ldmatrix wherever its instruction tiles
  // fit: where ours fit, the reference is our best plan that uses them.
  auto uses_matrix = [](const ConversionPlan& c) {
    for (const Op& op : c.program.ops) {
      if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) return true;
    }
    return false;
  };
  bool matrix = false;
  for (const ConversionPlan& c : all) matrix = matrix || (c.strategy == triton && uses_matrix(c));
  int ref = -1;
  for (int i = 0; i < static_cast<int>(all.size()); ++i) {
    if (all[i].strategy != triton || (matrix && !uses_matrix(all[i]))) continue;
    if (ref < 0 || better(all[i], all[ref])) ref = i;
  }
  int best = -1;
  for (int i = 0; i < static_cast<int>(all.size()); ++i) {
    const ConversionPlan& c = all[i];
    if (ref >= 0 && (c.cost.warp_instructions > all[ref].cost.warp_instructions ||
                     wavefronts(c) > wavefronts(all[ref]))) {
      continue;
    }
    if (best < 0 || better(c, all[best])) best = i;
  }
  return best;
}

size_t PickRoundTrip(
    Strategy forward, Strategy backward,
    const std::vector<std::pair<const ConversionPlan*, const ConversionPlan*>>& trips) {
  auto instr = [](const std::pair<const ConversionPlan*, const ConversionPlan*>& t) {
    return t.first->cost.warp_instructions + t.second->cost.warp_instructions;
  };
  auto wavefronts = [](const std::pair<const ConversionPlan*, const ConversionPlan*>& t) {
    return t.first->cost.wavefronts_store + t.first->cost.wavefronts_load +
           t.second->cost.wavefronts_store + t.second->cost.wavefronts_load;
  };
  auto key = [&](const std::pair<const ConversionPlan*, const ConversionPlan*>& t) {
    return std::make_tuple(t.first->cost.score + t.second->cost.score, instr(t),
                           wavefronts(t), t.first->src_view.words());
  };
  std::optional<size_t> ref;
  for (size_t i = 0; i < trips.size(); ++i) {
    if (trips[i].first->strategy != forward || trips[i].second->strategy != backward) continue;
    if (!ref || std::make_tuple(instr(trips[i]), wavefronts(trips[i]), key(trips[i])) <
                    std::make_tuple(instr(trips[*ref]), wavefronts(trips[*ref]),
                                    key(trips[*ref]))) {
      ref = i;
    }
  }
  std::optional<size_t> best;
  for (size_t i = 0; i < trips.size(); ++i) {
    if (ref && (instr(trips[i]) > instr(trips[*ref]) ||
                wavefronts(trips[i]) > wavefronts(trips[*ref]))) {
      continue;
    }
    if (!best || key(trips[i]) < key(trips[*best])) best = i;
  }
  return *best;
}

std::optional<int64_t> TritonSharedRoundTripFloor(const ConversionProblem& p) {
  const ConversionProblem reversed = p.Reversed();
  if (TritonStrategy(p) != Strategy::kSmem || TritonStrategy(reversed) != Strategy::kSmem) {
    return std::nullopt;
  }
  int64_t per_warp = 0;
  for (const ConversionProblem* d : {&p, &reversed}) {
    const absl::StatusOr<TritonSmemLowering> l = TritonSharedMemoryLowering(*d);
    if (!l.ok()) return std::nullopt;
    per_warp += l->store_instructions + l->load_instructions + l->barriers + 1;
  }
  return per_warp * p.num_warps;
}

}  // namespace warpcheck::sim::plan
