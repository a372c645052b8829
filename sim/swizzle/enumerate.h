// Enumeration: the exact check of a swizzle at concrete parameters.
//
// The property (shared/spec/swizzle2d.md, "Properties to prove"): iter -> tile is a
// bijection from the domain onto the tile box (R x C for gemm, R x C x N for dist),
// every result is in range, and tail sizes are exact and positive. At one parameter
// point, enumeration decides it outright: run every iteration, mark its tile in a flat
// bitmap (one bit per tile, no hashing), and stop at the first event:
//
//     kind          event                                   iter_ids
//     out_of_range  a result outside the box                {i}
//     tail_size     a wrong or non-positive tail size       {i}
//     eval_error    a spec's evaluation failed (e.g. / 0)   {i}
//     duplicate     iteration i hits a marked tile          {first earlier i', i}
//     missed        after the last iteration, the first     {}
//                   unmarked tile in row-major order
//
// Events are reported in iteration order, so the counterexample at a point is the one
// with the smallest iteration id; sweep.h orders the points themselves.
//
// Throughput (tests/bench/swizzle_benchmark.cc, one core, CPU time): the built-ins run
// through inlined kernels (swizzle2d.h), about two 64-bit divisions and one bitmap
// probe per iteration: ~190 M iterations/s for gemm, ~75 M/s for dist. User specs run
// through the compiled evaluator (sim/expr/eval.h): ~10 M/s for the gemm transcription.
#ifndef WARPCHECK_SIM_SWIZZLE_ENUMERATE_H_
#define WARPCHECK_SIM_SWIZZLE_ENUMERATE_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {

// A verdict is data, not an error (STYLE.md).
enum class Verdict : uint8_t { kHolds, kViolated, kInconclusive };
// Ensures: "holds", "violated", "inconclusive".
absl::string_view VerdictName(Verdict v);

enum class ViolationKind : uint8_t {
  kDuplicate,
  kMissed,
  kOutOfRange,
  kTailSize,
  kEvalError
};
// Ensures: "duplicate", "missed", "out_of_range", "tail_size", "eval_error" (the CLI's
//          JSON "kind").
absl::string_view ViolationKindName(ViolationKind k);

struct Counterexample {
  std::vector<NamedValue> params;  // the parameter point, by flag / param name
  ViolationKind kind = ViolationKind::kDuplicate;
  std::vector<int64_t> iter_ids;  // see the table above
  std::vector<NamedValue> tile;   // {row, col[, rank]}: the colliding, missed or
                                  // out-of-range tile (coordinate names for specs)
  std::string detail;             // one sentence in domain terms

  // Ensures: e.g. "duplicate at row_tiles=2, col_tiles=1, swizzle_offset=2:
  //          iterations 0 and 1 both map to tile (row=0, col=0)".
  std::string ToString() const;
  friend bool operator==(const Counterexample&, const Counterexample&) = default;
};
std::ostream& operator<<(std::ostream& os, const Counterexample& c);

struct CheckResult {
  Verdict verdict = Verdict::kHolds;
  std::optional<Counterexample> counterexample;  // set iff kViolated
  int64_t param_points = 0;                      // parameter points checked
  int64_t points = 0;                            // iterations evaluated
  std::string reason;  // kInconclusive: why (e.g. the budget ran out)
};

// Limits of one check.
struct CheckOptions {
  // Largest tile box (bits of the bitmap); bigger boxes are ResourceExhausted.
  int64_t max_tiles = int64_t{1} << 32;
};

// Checks a built-in at one parameter point.
// Ensures: the verdict (kHolds or kViolated with the first event), or InvalidArgument
//          when the parameters are invalid, ResourceExhausted beyond the limits.
absl::StatusOr<CheckResult> CheckBuiltin(const Swizzle2dParams& params,
                                         const CheckOptions& options = {});

// Checks a spec at one parameter point (values in declaration order).
// Ensures: as CheckBuiltin; FailedPrecondition when a `require` excludes the point.
absl::StatusOr<CheckResult> CheckSpec(const SwizzleSpec& spec,
                                      absl::Span<const int64_t> values,
                                      const CheckOptions& options = {});
// The same for an instance (e.g. one built with InstantiateUnchecked).
absl::StatusOr<CheckResult> CheckSpecInstance(const SpecInstance& instance,
                                              const CheckOptions& options = {});

// Reusable scratch for sweeps: one bitmap, cleared per point, grown as needed.
class Enumerator {
 public:
  explicit Enumerator(CheckOptions options = {}) : options_(options) {}
  absl::StatusOr<CheckResult> Check(const Swizzle2dParams& params);
  absl::StatusOr<CheckResult> Check(const SpecInstance& instance);

 private:
  CheckOptions options_;
  std::vector<uint64_t> bitmap_;
};

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_ENUMERATE_H_
