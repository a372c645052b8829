// Sweeps: enumeration over boxes of parameter points, smallest point first.
//
// A sweep checks every valid parameter point of a box (one inclusive range per
// parameter) with enumerate.h and stops at the first violation. The points are visited
// in the spec's order — fewest tiles, then fewest ranks — so the first violation found
// is the smallest counterexample:
//
//     built-ins: (R·C, N, R, C, rows, tile_rows, cols, tile_cols, swizzle_offset,
//                 swizzle_direction, comm_npu_split, comm_data_split), ascending
//     specs:     (tiles, ranks, then the parameters in declaration order), ascending,
//                where tiles and ranks come from the `grid` extents (spec.h)
//
// Points outside a function's domain are not part of the box: a (rank_size,
// comm_npu_split) pair where the split does not divide the ranks, or a spec point a
// `require` excludes. Ranges that leave the valid values (swizzle_offset 0..7) are
// InvalidArgument, as is a range for a parameter the function does not take.
//
// Budgets are deterministic: when the iterations of the next point would exceed
// max_points, the sweep stops with kInconclusive and says which point was next
// (the CLI's exit 5); every point checked before it was checked completely.
//
// Example: the deliberately buggy gemm (corpus/swizzle/buggy_gemm_d1_no_tail_fix.swz)
// swept over row_tiles, col_tiles in 1..12 and swizzle_offset in 1..7 fails first at
// row_tiles=2, col_tiles=1, swizzle_offset=2: iteration 1 maps to (row=0, col=1).
#ifndef WARPCHECK_SIM_SWIZZLE_SWEEP_H_
#define WARPCHECK_SIM_SWIZZLE_SWEEP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {

// An inclusive range lo..hi.
struct ParamRange {
  int64_t lo = 0;
  int64_t hi = 0;
  [[nodiscard]] static ParamRange Of(int64_t v) { return {v, v}; }
  // Ensures: the range written "A..B" or "A" (the CLI's syntax), else InvalidArgument.
  static absl::StatusOr<ParamRange> Parse(absl::string_view text);
  int64_t size() const { return hi - lo + 1; }
  std::string ToString() const;
  friend bool operator==(const ParamRange&, const ParamRange&) = default;
};

// A box of built-in parameter points. Unset ranges take the API default (offset 7,
// direction 1, one rank, splits 1). The grid is given either by tile counts
// (row_tiles, col_tiles) or by shapes (rows, cols, tile_rows, tile_cols; tile shapes
// default to 1), not both.
struct BuiltinSweep {
  Builtin fn = Builtin::kGemm;
  std::optional<ParamRange> row_tiles = {};
  std::optional<ParamRange> col_tiles = {};
  std::optional<ParamRange> rows = {};
  std::optional<ParamRange> cols = {};
  std::optional<ParamRange> tile_rows = {};
  std::optional<ParamRange> tile_cols = {};
  std::optional<ParamRange> swizzle_offset = {};
  std::optional<ParamRange> swizzle_direction = {};
  std::optional<ParamRange> rank_size = {};
  std::optional<ParamRange> comm_npu_split = {};
  std::optional<ParamRange> comm_data_split = {};
};

// Overrides of a spec's declared parameter ranges, by name.
struct SpecSweep {
  std::vector<std::pair<std::string, ParamRange>> ranges;
};

struct SweepOptions {
  // Iteration budget; past it the verdict is kInconclusive.
  int64_t max_points = int64_t{1} << 36;
  // Largest number of parameter points a box may have (ResourceExhausted beyond).
  int64_t max_param_points = int64_t{1} << 24;
  CheckOptions check;
};

// Ensures: kHolds (every point of the box holds), kViolated with the smallest
//          counterexample, or kInconclusive when the budget ran out; errors for
//          invalid ranges (InvalidArgument) or boxes past the limits (ResourceExhausted).
absl::StatusOr<CheckResult> Sweep(const BuiltinSweep& sweep,
                                  const SweepOptions& options = {});
absl::StatusOr<CheckResult> Sweep(const SwizzleSpec& spec, const SpecSweep& sweep = {},
                                  const SweepOptions& options = {});

// Vacuous truth. A box in which no parameter point is valid — a built-in whose
// comm_npu_split range divides no rank_size in its range, a spec whose `require` clauses
// exclude every point — would "hold (0 parameter points)" for any map at all. That is an
// input error, never a pass: both sweeps refuse such a box, and verify/swizzle_check.h
// asks the same before a proof.
//
// Ensures: OK when some point of the box is valid (or a range is malformed: the sweep
//          and the proof report that themselves); else InvalidArgument "swizzle2d sweep
//          of F: no parameter point is valid: ...".
absl::Status RequireValidPoint(const BuiltinSweep& sweep);
// Ensures: true when some point of the box satisfies every `require` clause, false when
//          none does, nullopt when the box has more than `max_points` points (not
//          enumerated; verify/ asks Z3); InvalidArgument for an unknown parameter name or
//          an empty range, or a point the spec cannot be instantiated at.
absl::StatusOr<std::optional<bool>> SpecBoxAdmitsAPoint(const SwizzleSpec& spec,
                                                        const SpecSweep& sweep,
                                                        int64_t max_points);
// Ensures: the iterations (`domain`) summed over the points of the box that satisfy
//          every `require`, counted by instantiating each point and stopping once the sum
//          passes `limit`: nullopt then, or when the box has more than `max_param_points`
//          points; InvalidArgument as SpecBoxAdmitsAPoint. (How big a sweep would be,
//          before running it: verify/ uses it to skip sweeps past its budget.)
absl::StatusOr<std::optional<int64_t>> SpecBoxIterations(const SwizzleSpec& spec,
                                                         const SpecSweep& sweep, int64_t limit,
                                                         int64_t max_param_points);
// Ensures: the InvalidArgument for a spec box that admits no point: "<file>:<line>:<col>:
//          no parameter point of the box (name=A..B, ...) satisfies the require clauses,
//          so ... would hold vacuously", at the first `require`.
absl::Status VacuousSpecBoxError(const SwizzleSpec& spec, const SpecSweep& sweep);

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_SWEEP_H_
