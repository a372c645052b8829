#include "tools/warpcheck/swizzle_report.h"

namespace warpcheck::cli {

namespace sw = ::warpcheck::sim::swizzle;

Swizzle2dReport::Verdict ToProto(sw::Verdict v) {
  switch (v) {
    case sw::Verdict::kHolds: return Swizzle2dReport::holds;
    case sw::Verdict::kViolated: return Swizzle2dReport::violated;
    case sw::Verdict::kInconclusive: return Swizzle2dReport::inconclusive;
  }
  return Swizzle2dReport::VERDICT_UNSET;
}

Swizzle2dReport::Checked ToProto(verify::CheckedBy c) {
  switch (c) {
    case verify::CheckedBy::kSymbolic: return Swizzle2dReport::symbolic;
    case verify::CheckedBy::kEnumerated: return Swizzle2dReport::enumerated;
  }
  return Swizzle2dReport::CHECKED_UNSET;
}

SwizzleCounterexample::Kind ToProto(sw::ViolationKind k) {
  switch (k) {
    case sw::ViolationKind::kDuplicate: return SwizzleCounterexample::duplicate;
    case sw::ViolationKind::kMissed: return SwizzleCounterexample::missed;
    case sw::ViolationKind::kOutOfRange: return SwizzleCounterexample::out_of_range;
    case sw::ViolationKind::kTailSize: return SwizzleCounterexample::tail_size;
    case sw::ViolationKind::kEvalError: return SwizzleCounterexample::eval_error;
  }
  return SwizzleCounterexample::KIND_UNSET;
}

void FillCounterexample(const sw::Counterexample& c, SwizzleCounterexample* out) {
  for (const auto& nv : c.params) (*out->mutable_params())[nv.name] = nv.value;
  out->set_kind(ToProto(c.kind));
  for (int64_t i : c.iter_ids) out->add_iter_ids(i);
  for (const auto& nv : c.tile) {
    if (nv.name == "row") out->mutable_tile()->set_row(nv.value);
    if (nv.name == "col") out->mutable_tile()->set_col(nv.value);
    if (nv.name == "rank") out->mutable_tile()->set_rank(nv.value);
  }
  out->set_text(c.ToString());
}

void FillSwizzleReport(const verify::SwizzleOutcome& o, Swizzle2dReport* out) {
  out->set_verdict(ToProto(o.verdict));
  out->set_checked(ToProto(o.checked));
  out->set_solver_ms(o.solver_ms);
  out->set_param_points(o.param_points);
  out->set_queries(o.queries);
  if (!o.reason.empty()) out->set_reason(o.reason);
  if (o.enumerated_verdict) out->set_enumerated_verdict(ToProto(*o.enumerated_verdict));
  if (o.symbolic_verdict) out->set_symbolic_verdict(ToProto(*o.symbolic_verdict));
  if (o.counterexample) FillCounterexample(*o.counterexample, out->mutable_counterexample());
}

}  // namespace warpcheck::cli
