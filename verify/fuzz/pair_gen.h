// Random layout-conversion pairs for `warpcheck fuzz layouts`, and their shrinking.
//
// A campaign is a sequence of pairs that nobody wrote: pair number `index` of campaign
// `seed` is a pure function of the two (its own SplitMix64 stream), so a failure is
// replayed by its index alone, `--shard=i/n` takes the indices i, i+n, ... and the
// shards of one seed together are exactly the unsharded campaign.
//
// What is generated. Pairs are built as `sim/layout` Encoding values, printed in
// Triton's canonical attribute syntax, so every pair is one `convert check` command a
// person can paste. Each pair comes from one *strategy*, weighted toward what real
// kernels convert (shared/data/convert-layout-pairs.jsonl: slices and blocked layouts,
// mma accumulators and dot operands, 64..256-element vectors and 16..256-wide tiles,
// f16/i32/i8 data, four warps), with a share of adversarial ones:
//
//   blocked      blocked <-> blocked, rank 1-3 (transposes, vector-width changes)
//   mma          nvidia_mma v2 (rank 2 and 3) or v3 <-> blocked
//   dot_op       blocked or mma -> dot_op of an mma v2 parent, any kWidth
//   slice        slice of a blocked or mma parent <-> blocked or another slice
//   linear       linear layouts with random bases (bit permutations, XOR mixing,
//                broadcast zeros) <-> blocked or linear
//   adversarial  tiny shapes (<= 16 elements), layouts whose tile exceeds the tensor
//                (broadcast registers, lanes and warps), large sizePerThread, 64-bit
//                elements, 1 and 16 warps
//
// Shapes are powers of two (Triton's rule) with at most 2^14 elements; element types
// are 8, 16, 32 and 64 bits; 1-16 warps. A generated pair is *meant* to be in scope,
// but validity is decided by sim/plan's MakeProblem and planner, not here: what they
// reject is counted as out of scope, never a failure.
//
// Shrinking. `ShrinkSteps` lists pairs one step simpler than a pair — fewer warps, a
// halved dimension, a simpler encoding (dot_op -> its mma parent, mma v3 -> v2, any
// side -> the default blocked layout), smaller sizePerThread, the default order,
// 32-bit elements — each strictly smaller by `Complexity`, so `Shrink`'s greedy descent
// ends. The failure predicate decides which steps keep the failure.
#ifndef WARPCHECK_VERIFY_FUZZ_PAIR_GEN_H_
#define WARPCHECK_VERIFY_FUZZ_PAIR_GEN_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/layout/encoding.h"
#include "sim/plan/problem.h"

namespace warpcheck::verify::fuzz {

// One conversion pair as data: what `convert check --src --dst --shape --dtype
// --num-warps` takes.
struct FuzzPair {
  sim::layout::EncodingPtr src, dst;  // distributed encodings
  std::vector<int64_t> shape;
  sim::plan::DType dtype = sim::plan::DType::kF16;
  int num_warps = 4;
  std::string strategy;  // the generator strategy it came from

  std::string SrcText() const;    // Triton's canonical attribute text
  std::string DstText() const;
  std::string ShapeText() const;  // "64x64"
  // The `warpcheck convert check` arguments that reproduce the pair, shell-quoted.
  std::string CommandLine() const;
  // sim/plan's problem (InvalidArgument when the pair is out of the planner's scope;
  // with planner_scope false, only when it is not a conversion of one CTA at all).
  absl::StatusOr<sim::plan::ConversionProblem> Problem(bool planner_scope = true) const;
};

// A pair from `convert check`'s flag values (a saved corpus case); InvalidArgument
// "<what>: ..." when an attribute does not parse or the type is unknown.
absl::StatusOr<FuzzPair> PairFromText(absl::string_view src, absl::string_view dst,
                                      const std::vector<int64_t>& shape,
                                      absl::string_view dtype, int num_warps);

// The strategy names, in the order their weights are declared.
const std::vector<std::string>& GeneratorStrategies();

// Pair number `index` of campaign `seed`. Deterministic: equal arguments, equal pairs.
FuzzPair GeneratePair(uint64_t seed, int64_t index);

// (warps, elements, encoding complexity, element-type complexity): compared
// lexicographically; every shrink step is strictly smaller.
std::array<int64_t, 4> Complexity(const FuzzPair& p);

// Pairs one step simpler than `p`, the most simplifying first (see the essay). Ensures:
// Complexity(q) < Complexity(p) for each q; some may be out of scope.
std::vector<FuzzPair> ShrinkSteps(const FuzzPair& p);

struct ShrinkResult {
  FuzzPair pair;     // the smallest pair found that still fails
  int steps = 0;     // accepted steps
  int checks = 0;    // predicate calls
  bool bounded = false;  // stopped by max_checks, not at a local minimum
};

// Greedy descent: repeatedly takes the first ShrinkSteps candidate for which
// `still_fails` holds. Requires: still_fails(failing) (not re-checked).
ShrinkResult Shrink(const FuzzPair& failing,
                    const std::function<bool(const FuzzPair&)>& still_fails,
                    int max_checks);

}  // namespace warpcheck::verify::fuzz

#endif  // WARPCHECK_VERIFY_FUZZ_PAIR_GEN_H_
