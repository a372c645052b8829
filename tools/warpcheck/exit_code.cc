#include "tools/warpcheck/exit_code.h"

namespace warpcheck::cli {

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kPermissionDenied:
    // A status (not a result) of ResourceExhausted means the input asks past a fixed
    // limit (a buffer over 1 GiB, a swizzle box past the prover's range): the user's
    // input. A bound hit while running is a result (an inconclusive verdict), not this.
    case absl::StatusCode::kResourceExhausted:
      return kExitInputError;
    case absl::StatusCode::kDeadlineExceeded:
      return kExitInconclusive;
    default:
      return kExitInternal;
  }
}

namespace {

int ForSignal(const SignalReport& r) {
  // A replay answers "reproduced" or where it diverged: either is a finding about the
  // recorded hang, never a clean pass.
  if (r.replay() != SignalReport::REPLAY_UNSET) return kExitViolated;
  switch (r.outcome()) {
    case SignalReport::completes:
    case SignalReport::ok:  // `signal lint` without an error (an error is static_error)
      return kExitOk;
    case SignalReport::inconclusive:
      return kExitInconclusive;
    default:
      return kExitViolated;
  }
}

int ForSwizzle(const Swizzle2dReport& r) {
  if (!r.has_verdict()) return kExitOk;  // show
  switch (r.verdict()) {
    case Swizzle2dReport::holds: return kExitOk;
    case Swizzle2dReport::violated: return kExitViolated;
    case Swizzle2dReport::inconclusive: return kExitInconclusive;
    default: return kExitInternal;  // VERDICT_UNSET or an unknown value: our bug
  }
}

int ForPlanProof(const PlanProofReport& r) {
  switch (r.verdict()) {
    case PlanProofObligation::holds: return kExitOk;
    case PlanProofObligation::violated: return kExitViolated;
    case PlanProofObligation::inconclusive: return kExitInconclusive;
    default: return kExitInternal;
  }
}

}  // namespace

static int ForProof(const ProofReport& r) {
  switch (r.verdict()) {
    case ProofReport::holds: return kExitOk;
    case ProofReport::violated: return kExitViolated;
    case ProofReport::inconclusive: return kExitInconclusive;
    default: return kExitInternal;
  }
}

int ExitCodeFor(const Report& report) {
  if (report.has_proof()) return ForProof(report.proof());
  if (report.has_plan_proof()) return ForPlanProof(report.plan_proof());
  if (report.has_plan_round_trip()) {
    PlanProofReport r;
    r.set_verdict(report.plan_round_trip().verdict());
    return ForPlanProof(r);
  }
  if (report.has_signal()) return ForSignal(report.signal());
  if (report.has_swizzle2d()) return ForSwizzle(report.swizzle2d());
  if (report.has_layout_proof()) {
    switch (report.layout_proof().verdict()) {
      case LayoutProofReport::holds: return kExitOk;
      case LayoutProofReport::violated: return kExitViolated;
      case LayoutProofReport::inconclusive: return kExitInconclusive;
      default: return kExitInternal;
    }
  }
  if (report.has_sim()) return report.sim().ok() ? kExitOk : kExitViolated;
  if (report.has_corpus()) return report.corpus().failed() > 0 ? kExitViolated : kExitOk;
  return kExitOk;  // layout show: a layout was printed
}

}  // namespace warpcheck::cli
