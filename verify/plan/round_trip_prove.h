// ProveRoundTrip: both directions of the round trip `convert emit --harness=roundtrip`
// runs (sim/ptx PlanRoundTrip), and that their composition is the identity on elements.
//
// The harness loops over one body: the forward plan (problem: src -> dst, buffer 0) and
// then the backward plan (problem.Reversed(): dst -> src, buffer 1, or buffer 0 when two
// buffers do not fit), composed by sim/plan's Compose and simplified by Simplify. The
// proof is
//
//   forward, backward   ProvePlan of each direction (plan_prove.h: every obligation);
//   roundtrip.chain     the backward plan reads the forward plan's words: its source view
//                       is the forward destination view and its destination view the
//                       forward source view, its problem the reversed one;
//   roundtrip.identity  Compose(forward, backward) leaves every source word byte holding
//                       the element it held: forward's `delivers` says each destination
//                       word holds the destination layout's element, backward's says each
//                       source word then holds the source layout's — tags compose, so the
//                       body is the identity on elements. Where the simplified body
//                       (what codegen prints) has no shared memory, it is proven directly
//                       too: ProvePlan of the body as a src -> src plan;
//   roundtrip.buffers   the loop repeats the body: every two shared accesses of one
//   buffer
//                       that may conflict (a store and a load, or stores of the two
//                       directions), in one iteration or in consecutive ones, have a
//                       barrier between them in the body's op order. bar.warp.sync counts
//                       for a buffer only one direction uses whose own proof showed it
//                       warp-local (barrier.scope); store pairs of one direction need
//                       none (store.injective: one writer per byte, the same every
//                       iteration).
//
// The last two are checked on the op lists and the direction proofs, not by Z3 (except
// the register-only body). A mixed simplified body (shared memory and selects that
// Simplify moved across the directions' boundary) is not proven as printed; the detail
// of roundtrip.identity says so.
#ifndef WARPCHECK_VERIFY_PLAN_ROUND_TRIP_PROVE_H_
#define WARPCHECK_VERIFY_PLAN_ROUND_TRIP_PROVE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/plan_proof.pb.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "verify/plan/plan_prove.h"

namespace warpcheck::verify::plan {

struct RoundTripProof {
  Verdict verdict = Verdict::kInconclusive;
  PlanProof forward, backward;
  // roundtrip.chain, roundtrip.identity, roundtrip.buffers.
  std::vector<ObligationResult> composition;
  std::string reason;  // inconclusive or violated: which part, and why
};

// Requires: `forward` planned for `problem`, `backward` for problem.Reversed() (as
// PlanRoundTrip does), possibly altered.
// Ensures: kHolds when both directions and the three composition obligations hold;
//          kViolated when one is violated; else kInconclusive. Errors of ProvePlan
//          (InvalidArgument, Unimplemented, Internal) are returned, naming the direction.
absl::StatusOr<RoundTripProof> ProveRoundTrip(const sim::plan::ConversionProblem& problem,
                                              const sim::plan::ConversionPlan& forward,
                                              const sim::plan::ConversionPlan& backward,
                                              const PlanProveOptions& options);

warpcheck::PlanRoundTripReport ToProto(const RoundTripProof& proof,
                                       const sim::plan::ConversionProblem& problem,
                                       const sim::plan::ConversionPlan& forward,
                                       const sim::plan::ConversionPlan& backward);

}  // namespace warpcheck::verify::plan

#endif  // WARPCHECK_VERIFY_PLAN_ROUND_TRIP_PROVE_H_
