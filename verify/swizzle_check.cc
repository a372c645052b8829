#include "verify/swizzle_check.h"

#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/swizzle/sweep.h"

namespace warpcheck::verify {
namespace {

namespace sw = ::warpcheck::sim::swizzle;

// Enumeration refuses to go past this many iterations (the symbolic engine covers big
// ranges); past it the verdict is inconclusive.
constexpr int64_t kEnumerationPointBudget = int64_t{1} << 31;

absl::StatusOr<SwizzleOutcome> Enumerate(const sw::Problem& p) {
  sw::SweepOptions options;
  options.max_points = kEnumerationPointBudget;
  absl::StatusOr<sw::CheckResult> r =
      p.builtin ? sw::Sweep(p.builtin_sweep, options) : sw::Sweep(*p.spec, p.spec_sweep, options);
  SwizzleOutcome o;
  o.checked = CheckedBy::kEnumerated;
  if (!r.ok()) {
    if (r.status().code() == absl::StatusCode::kResourceExhausted) {
      o.verdict = Verdict::kInconclusive;
      o.reason = std::string(r.status().message());
      return o;
    }
    return r.status();
  }
  o.verdict = r->verdict;
  o.counterexample = r->counterexample;
  o.reason = r->reason;
  o.param_points = r->param_points;
  return o;
}

absl::StatusOr<SwizzleOutcome> ProveSymbolic(const sw::Problem& p,
                                             const SwizzleCheckOptions& check) {
  SwizzleProveOptions options;
  options.keep_query_log = false;
  if (check.rlimit) options.solver.rlimit = *check.rlimit;
  if (check.query_timeout_ms) options.solver.timeout_ms = *check.query_timeout_ms;
  if (check.total_rlimit) options.total_rlimit = *check.total_rlimit;
  ASSIGN_OR_RETURN(SwizzleProof proof, p.builtin ? ProveBuiltin(p.builtin_sweep, options)
                                                 : ProveSpec(*p.spec, p.spec_sweep, options));
  SwizzleOutcome o;
  o.verdict = proof.verdict;
  o.counterexample = std::move(proof.counterexample);
  o.reason = std::move(proof.reason);
  o.checked = proof.checked;
  o.solver_ms = proof.solver_ms;
  o.queries = proof.num_queries;
  o.param_points = proof.configs;
  return o;
}

}  // namespace

absl::StatusOr<SwizzleOutcome> CheckSwizzle(const sw::Problem& problem, Engine engine,
                                            const SwizzleCheckOptions& options) {
  if (engine == Engine::kEnumerated) return Enumerate(problem);
  ASSIGN_OR_RETURN(SwizzleOutcome symbolic, ProveSymbolic(problem, options));
  if (engine != Engine::kBoth) return symbolic;
  ASSIGN_OR_RETURN(SwizzleOutcome enumerated, Enumerate(problem));
  symbolic.enumerated_verdict = enumerated.verdict;
  if (symbolic.verdict == Verdict::kInconclusive) return enumerated;
  if (enumerated.verdict == Verdict::kInconclusive) return symbolic;
  if (symbolic.verdict != enumerated.verdict) {
    return absl::InternalError(absl::StrCat(
        problem.name, ": the engines disagree: symbolic says ",
        sw::VerdictName(symbolic.verdict), ", enumeration says ",
        sw::VerdictName(enumerated.verdict)));
  }
  if (symbolic.counterexample && enumerated.counterexample &&
      !(symbolic.counterexample->params == enumerated.counterexample->params)) {
    return absl::InternalError(absl::StrCat(
        problem.name, ": the engines disagree on the smallest counterexample: symbolic ",
        symbolic.counterexample->ToString(), "; enumeration ",
        enumerated.counterexample->ToString()));
  }
  return symbolic;
}

}  // namespace warpcheck::verify
