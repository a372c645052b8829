#include "verify/swizzle_prove.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify {

absl::string_view CheckedByName(CheckedBy c) {
  switch (c) {
    case CheckedBy::kSymbolic:
      return "symbolic";
    case CheckedBy::kEnumerated:
      return "enumerated";
  }
  return "?";
}

absl::string_view SubBoxHowName(SubBox::How how) {
  switch (how) {
    case SubBox::How::kProven:
      return "proven";
    case SubBox::How::kEnumerated:
      return "enumerated";
    case SubBox::How::kOpen:
      return "open";
  }
  return "?";
}

std::string SubBox::ToString() const {
  std::vector<std::string> parts;
  for (const auto& [name, r] : ranges) parts.push_back(absl::StrCat(name, "=", r.ToString()));
  return absl::StrJoin(parts, ", ");
}

std::string SwizzleProof::ToString() const {
  std::string head =
      absl::StrCat(sim::swizzle::VerdictName(verdict), " (", CheckedByName(checked), ", ",
                   configs, " configurations, ", num_queries, " queries, ",
                   static_cast<int64_t>(solver_ms), " ms)");
  if (verdict == Verdict::kViolated && counterexample.has_value()) {
    absl::StrAppend(&head, ": ", counterexample->ToString(),
                    minimised ? "" : " [not minimised]");
  }
  if (verdict == Verdict::kInconclusive) absl::StrAppend(&head, ": ", reason);
  return head;
}

namespace internal {

absl::StatusOr<smt::SolverResult> QueryRunner::Run(
    smt::Context& ctx, const std::string& name, const std::vector<smt::Term>& assertions,
    uint64_t rlimit, bool bitblast, bool bitvector) {
  smt::SolverOptions o = options_.solver;
  if (rlimit > 0) o.rlimit = rlimit;
  if (options_.total_rlimit > 0) {
    // No query past the total budget (before, only a configuration's start was checked,
    // and one query could spend its whole rlimit past it: verify/README.md, "Eighth
    // pass"). At least 1: an rlimit of 0 is none.
    const uint64_t left = RemainingBudget(options_, proof_->rlimit_spent);
    o.rlimit = o.rlimit > 0 ? std::min(o.rlimit, left) : left;
  }
  if (bitblast) o.bitblast = true;
  if (bitvector) o.bitvector = true;
  smt::SolverResult r = ctx.Check(name, assertions, o);
  proof_->num_queries += 1;
  proof_->rlimit_spent += r.rlimit_used;
  proof_->solver_ms += r.ms;
  if (options_.keep_query_log) {
    proof_->queries.push_back(QueryRecord{r.query, r.result, r.ms, r.rlimit_used,
                                          r.reason_unknown, std::move(r.smt2)});
    r.smt2.clear();
  }
  if (r.result == smt::SatResult::kError) return r.error;
  return r;
}

void QueryRunner::Charge(const SwizzleProof& sub) { AddSubProofCounters(sub, proof_); }

void AddSubProofCounters(const SwizzleProof& sub, SwizzleProof* proof) {
  proof->solver_ms += sub.solver_ms;
  proof->num_queries += sub.num_queries;
  proof->configs += sub.configs;
  proof->rlimit_spent += sub.rlimit_spent;
  proof->queries.insert(proof->queries.end(), sub.queries.begin(), sub.queries.end());
}

uint64_t RemainingBudget(const SwizzleProveOptions& options, uint64_t spent) {
  if (options.total_rlimit == 0) return 0;
  return options.total_rlimit > spent ? options.total_rlimit - spent : 1;
}

std::string UnknownReason(const smt::SolverResult& r) {
  return absl::StrCat("query '", r.query, "' returned unknown (",
                      r.reason_unknown.empty() ? "no reason given" : r.reason_unknown,
                      ")");
}

int64_t SatMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::numeric_limits<int64_t>::max();
  return out;
}

absl::StatusOr<smt::Model> ShrinkTiles(
    smt::Context& ctx, QueryRunner& run, const std::string& name,
    const std::vector<smt::Term>& assertions, smt::Term tiles, smt::Model best,
    const std::function<int64_t(const smt::Model&)>& tiles_of) {
  int64_t hi = tiles_of(best);
  int64_t lo = 0;  // no witness with at most `lo` tiles
  for (int round = 0; round < 64 && hi - lo > 1; ++round) {
    const int64_t mid = lo + (hi - lo) / 2;
    std::vector<smt::Term> a = assertions;
    a.push_back(tiles <= mid);
    ASSIGN_OR_RETURN(smt::SolverResult r, run.Run(ctx, absl::StrCat(name, ".shrink"), a));
    if (r.result == smt::SatResult::kSat) {
      best = r.model;
      hi = std::min(mid, tiles_of(best));
    } else if (r.result == smt::SatResult::kUnsat) {
      lo = mid;
    } else {
      break;  // out of budget: keep what we have
    }
  }
  return best;
}

}  // namespace internal
}  // namespace warpcheck::verify
