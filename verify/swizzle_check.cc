#include "verify/swizzle_check.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "sim/swizzle/sweep.h"
#include "verify/smt/expr_encoder.h"
#include "verify/smt/smt.h"

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

// Boxes up to this many parameter points are searched for an admitted point by
// enumeration; larger ones by one Z3 query.
constexpr int64_t kAdmitEnumerationLimit = int64_t{1} << 20;

// Is some point of the spec's box admitted by every `require`? (Z3, for large boxes.)
// Ensures: true / false, nullopt with *why when Z3 answers unknown.
absl::StatusOr<std::optional<bool>> SpecBoxAdmitsAPointSymbolic(
    const sw::SwizzleSpec& spec, const sw::SpecSweep& sweep,
    const SwizzleCheckOptions& check, std::string* why) {
  smt::Context ctx;
  smt::ExprEncoder enc(ctx);
  std::vector<smt::Term> assertions;
  for (const sim::expr::Stmt* p : spec.params()) {
    sw::ParamRange r{p->lo, p->hi};
    for (const auto& [name, range] : sweep.ranges) {
      if (name == p->name) r = range;
    }
    smt::Term v = ctx.IntVar(p->name);
    enc.Bind(p->name, v, r.lo, r.hi);
    assertions.push_back(v >= r.lo);
    assertions.push_back(v <= r.hi);
  }
  for (const sim::expr::Stmt* c : spec.program().Clauses("require")) {
    ASSIGN_OR_RETURN(smt::ExprEncoder::Encoded e,
                     enc.Encode(spec.program().InlineLets(c->value)));
    assertions.push_back(e.Defined(ctx) && e.value);
  }
  for (const smt::Term& t : enc.side_conditions()) assertions.push_back(t);
  RETURN_IF_ERROR(ctx.status());
  smt::SolverOptions solver = SwizzleProveOptions{}.solver;
  if (check.rlimit) solver.rlimit = *check.rlimit;
  smt::SolverResult r = ctx.Check("spec.admits_a_point", assertions, solver);
  switch (r.result) {
    case smt::SatResult::kSat: return true;
    case smt::SatResult::kUnsat: return false;
    case smt::SatResult::kUnknown:
      *why = absl::StrCat(
          "could not decide whether any parameter point satisfies the require clauses "
          "(query spec.admits_a_point: ",
          r.reason_unknown,
          "); a proof over a box that admits no point would hold vacuously");
      return std::optional<bool>();
    case smt::SatResult::kError: return r.error;
  }
  return absl::InternalError("unreachable");
}

// Ensures: OK when the problem's box admits a point; InvalidArgument when it admits none
//          (vacuous truth); OK with *inconclusive set when that cannot be decided.
absl::Status RequireAdmittedPoint(const sw::Problem& p, const SwizzleCheckOptions& check,
                                  std::optional<std::string>* inconclusive) {
  if (p.builtin) return sw::RequireValidPoint(p.builtin_sweep);
  ASSIGN_OR_RETURN(std::optional<bool> admits,
                   sw::SpecBoxAdmitsAPoint(*p.spec, p.spec_sweep, kAdmitEnumerationLimit));
  if (!admits) {
    std::string why;
    ASSIGN_OR_RETURN(admits, SpecBoxAdmitsAPointSymbolic(*p.spec, p.spec_sweep, check, &why));
    if (!admits) {
      *inconclusive = why;
      return absl::OkStatus();
    }
  }
  if (!*admits) return sw::VacuousSpecBoxError(*p.spec, p.spec_sweep);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SwizzleOutcome> CheckSwizzle(const sw::Problem& problem, Engine engine,
                                            const SwizzleCheckOptions& options) {
  if (engine == Engine::kEnumerated) return Enumerate(problem);
  std::optional<std::string> undecided;
  RETURN_IF_ERROR(RequireAdmittedPoint(problem, options, &undecided));
  if (undecided) {
    SwizzleOutcome o;
    o.verdict = Verdict::kInconclusive;
    o.checked = CheckedBy::kSymbolic;
    o.reason = *undecided;
    return o;
  }
  ASSIGN_OR_RETURN(SwizzleOutcome symbolic, ProveSymbolic(problem, options));
  if (engine != Engine::kBoth) return symbolic;
  ASSIGN_OR_RETURN(SwizzleOutcome enumerated, Enumerate(problem));
  symbolic.symbolic_verdict = enumerated.symbolic_verdict = symbolic.verdict;
  symbolic.enumerated_verdict = enumerated.enumerated_verdict = enumerated.verdict;
  if (symbolic.verdict == Verdict::kInconclusive) {
    // The enumeration's outcome, with the proof's effort and reason alongside.
    enumerated.queries = symbolic.queries;
    enumerated.solver_ms = symbolic.solver_ms;
    std::vector<std::string> reasons;
    if (!enumerated.reason.empty()) reasons.push_back("enumeration: " + enumerated.reason);
    if (!symbolic.reason.empty()) reasons.push_back("symbolic: " + symbolic.reason);
    enumerated.reason = absl::StrJoin(reasons, "; ");
    return enumerated;
  }
  if (enumerated.verdict == Verdict::kInconclusive) {
    if (!enumerated.reason.empty()) {
      symbolic.reason = symbolic.reason.empty()
                            ? "enumeration: " + enumerated.reason
                            : absl::StrCat(symbolic.reason, "; enumeration: ",
                                           enumerated.reason);
    }
    return symbolic;
  }
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
