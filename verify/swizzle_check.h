// Deciding a swizzle problem: the one entry point that picks between enumeration
// (sim/swizzle/sweep.h) and the Z3 proof (swizzle_prove.h).
//
//     ASSIGN_OR_RETURN(sim::swizzle::Problem p, sim::swizzle::LoadProblemFile(path));
//     ASSIGN_OR_RETURN(SwizzleOutcome o, CheckSwizzle(p, Engine::kBoth));
//     // o.verdict, o.counterexample (the smallest), o.checked, o.enumerated_verdict
//
// Engines:
//   kEnumerated  the sweep, with an iteration budget of 2^31 (past it: kInconclusive,
//                the sweep's ResourceExhausted message as the reason);
//   kSymbolic    ProveBuiltin / ProveSpec;
//   kAuto        today the same as kSymbolic;
//   kBoth        the proof, then the sweep; they must agree. If one is inconclusive the
//                other's outcome is returned; a disagreement on the verdict or on the
//                smallest counterexample is a warpcheck bug and comes back as Internal.
//                `symbolic_verdict` and `enumerated_verdict` say what each engine
//                concluded (always both), the proof's queries and solver time are kept
//                whichever outcome is returned, and an inconclusive engine's reason is
//                kept in `reason` ("symbolic: ..." / "enumeration: ...").
//
// Vacuous truth is never a pass: before any engine runs, a box that admits no parameter
// point (a built-in whose splits divide none of its rank counts; a spec whose `require`
// clauses exclude every point of the box — by enumeration for boxes up to 2^20 points,
// else by one Z3 query) is InvalidArgument at the first `require`; when Z3 cannot tell
// (unknown), the outcome is kInconclusive.
#ifndef WARPCHECK_VERIFY_SWIZZLE_CHECK_H_
#define WARPCHECK_VERIFY_SWIZZLE_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/problem.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify {

using sim::swizzle::Engine;

struct SwizzleCheckOptions {
  // The Z3 resource limit per query (unset: SwizzleProveOptions' default).
  std::optional<uint64_t> rlimit;
  // A wall-clock limit per query in ms (unset: none). Not deterministic, so off unless
  // asked for; but Z3 4.8.12's nonlinear core can run minutes under its rlimit, and on
  // specs this is what keeps a proof within a time budget (verify/README.md): a query
  // that hits it is unknown, its configuration is split, and what stays undecided is
  // reported as open sub-boxes.
  std::optional<uint32_t> query_timeout_ms;
  // Specs: the total resource count of all queries (unset: none); past it the remaining
  // sub-boxes are open.
  std::optional<uint64_t> total_rlimit;
};

// What one check found (the CLI's Swizzle2dReport, typed).
struct SwizzleOutcome {
  Verdict verdict = Verdict::kInconclusive;
  // Set iff kViolated: the smallest counterexample.
  std::optional<sim::swizzle::Counterexample> counterexample;
  // kInconclusive: why (the query and Z3's reason, or the budget); may hold notes.
  std::string reason;
  CheckedBy checked = CheckedBy::kEnumerated;
  double solver_ms = 0;
  // Parameter points (enumerated) or configurations (symbolic) checked.
  int64_t param_points = 0;
  // Solver queries (symbolic; 0 when enumerated).
  int64_t queries = 0;
  // kBoth: what each engine concluded (both set).
  std::optional<Verdict> symbolic_verdict;
  std::optional<Verdict> enumerated_verdict;
};

// Decides `problem` with `engine` (see the table above).
// Requires: the problem's box is resolved (built-in defaults filled where wanted).
// Ensures: the outcome; InvalidArgument for invalid ranges or a spec that cannot be
//          instantiated; ResourceExhausted past the proof's limits; Internal for solver
//          errors and engine disagreements.
absl::StatusOr<SwizzleOutcome> CheckSwizzle(const sim::swizzle::Problem& problem,
                                            Engine engine,
                                            const SwizzleCheckOptions& options = {});

}  // namespace warpcheck::verify

#endif  // WARPCHECK_VERIFY_SWIZZLE_CHECK_H_
