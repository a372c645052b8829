// The Triton floor: the search never picks a plan that costs more than what Triton does.
//
// Our search objective (planner.h, Cost::score) weighs instructions against shared-memory
// wavefronts and shuffles. That trades one for the other: a shuffle plan of 650
// instructions and no wavefronts can beat, by score, a shared-memory plan of 70
// instructions and 256 wavefronts. Triton does not trade: it decides the mechanism from
// the layouts alone (shared/spec/triton-convert-layout.md §1.3) and lowers it. When its
// decision is the shared-memory one, the shuffle plan above costs more instructions than
// Triton's kernel, and "cheaper by our score" is not "never worse than Triton".
//
// So the search first finds the candidate of the mechanism Triton would use (the
// *reference*: our own plan of that strategy, which models Triton's lowering of it with
// fewer or equal instructions and wavefronts), and then keeps, among the candidates that
// cost no more than the reference in warp instructions *and* wavefronts, the one with
// the best score. The reference itself always qualifies, so the result is never worse
// than it on either count.
//
// Triton's decision (minimalCvtLayout + the classifier), in terms of the flat bases:
//   * C = S^-1 ∘ D maps each destination hardware bit to the source hardware position
//     holding that element (free bits 0, as Triton's pseudo-inverse).
//   * warp is quotiented out when every destination warp bit maps to the same source warp
//     bit and nothing else reaches a warp bit; if not, the conversion goes through shared
//     memory;
//   * lane likewise; if not, warp shuffles when the factorisation has fewer than 2 mixed
//     (register <-> lane) transpositions, counted at 32 bits, else shared memory;
//   * register likewise; if not, a register permutation, else nothing to do.
#ifndef WARPCHECK_SIM_PLAN_TRITON_FLOOR_H_
#define WARPCHECK_SIM_PLAN_TRITON_FLOOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/plan/planner.h"
#include "sim/plan/problem.h"

namespace warpcheck::sim::plan {

// The mechanism Triton 3.6 picks for the conversion (kRegisters also for a no-op).
Strategy TritonStrategy(const ConversionProblem& p);

// Triton's mixed transpositions at 32 bits: source register bits (non-broadcast) whose
// element the destination holds in another lane (a lane component in S^-1 ∘ D).
int MixedTranspositions(const ConversionProblem& p);

// Requires: `all` are plans of a problem p, `triton` is TritonStrategy(p) (the caller
// has it: PlanConversion keeps it in its SearchMemo). Ensures: the index of the plan the
// search keeps — the best plan by RanksBefore (score, then fewer warp instructions, then
// more components) among the plans that cost no more than the reference in warp
// instructions and in wavefronts; over all plans when there is no reference. The
// reference is the best-scored plan of `triton`, among those with stmatrix/ldmatrix when
// one has them (Triton uses them wherever its instruction tiles fit). -1 when `all` is
// empty.
int PickNotWorseThanTriton(Strategy triton, const std::vector<ConversionPlan>& all);

// The round trip's word view (sim/ptx PlanRoundTrip plans both directions in each view
// and asks which to keep). The reference is the view whose plans both use Triton's
// mechanism (TritonStrategy of each direction) with the fewest warp instructions —
// Triton vectorises as widely as its layouts allow (largestVectorisation) — and the
// choice is the best total score (ties: fewer instructions, fewer wavefronts, fewer
// loop-carried words) among the views that cost no more than it on both counts; over all
// views when no view uses Triton's mechanism in both directions.
// Requires: `trips` non-empty, (forward, backward) plans of p and p.Reversed();
// `forward` = TritonStrategy(p), `backward` = TritonStrategy(p.Reversed()) (PlanRoundTrip
// has both before it plans a view).
size_t PickRoundTrip(
    Strategy forward, Strategy backward,
    const std::vector<std::pair<const ConversionPlan*, const ConversionPlan*>>& trips);

// A lower bound on the warp instructions per CTA of one round trip (p, then p.Reversed())
// of Triton's own kernel when both directions take its shared-memory mechanism: the
// shared stores, loads and barriers of TritonSharedMemoryLowering (triton_smem.h: nReps
// rounds, 2 nReps - 1 barriers a direction, warp or CTA ones) plus the CTA barrier the
// Membar pass puts before each conversion, times the warps. Triton's address, packing
// and loop instructions are not counted, so its kernel costs at least this (line 583 of
// corpus/plan/triton_costs.tsv: 128 here, 131 measured, the 3 being the loop).
// nullopt when either direction is not Triton's shared-memory mechanism (TritonStrategy)
// or the model declines it.
std::optional<int64_t> TritonSharedRoundTripFloor(const ConversionProblem& p);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_TRITON_FLOOR_H_
