// CheckConversion: the whole check of one planned conversion, shared by
// `warpcheck convert check` and `warpcheck fuzz layouts`.
//
// A planned pair is checked three ways, the three executions of ARCHITECTURE.md:
//
//   run     the check harness (sim/ptx/codegen.h: the forward conversion alone, stored to
//           `mid`, then the round trip's loop, stored to `out`) on random data (one round
//           trip) and on distinct tags (IOTA; two round trips, and the run that looks for
//           shared-memory races), on the simulator; any fault, a wrong `mid` or a wrong
//           `out` fails (without the round trip: the once harness, same fills);
//   prove   the same PTX proven for every input by verify/ptx (Z3), and optionally both
//           plans over their F2 maps and their composition (the round trip's chain,
//           identity and buffer obligations) by verify/plan ProveRoundTrip;
//   model   the forward conversion's shared-memory counters (wavefronts, bank conflicts,
//           store and load: the random run's, costed before the loop) equal the cost
//           model's prediction in `plan`.
//
// One kernel, not the once and round-trip harnesses one after the other: it loads `in`
// once, is emitted and decoded once, and runs once per fill, and checks the same things
// (the forward conversion alone in `mid`, as the once harness did; the round trip, its
// loop and back edge in `out`). On the fuzz campaign it took a --prove=none pair from
// 6.06 M to 5.25 M instructions (verify/fuzz/README.md, "Rate pass 7").
//
// Each step is one `ConvertCheckReport::Run`, named by what it ran ("check/random",
// "check/iota", "check/proof", "forward/plan-proof", "roundtrip/plan-proof",
// "cost-model"), so a failure says where it failed; `FirstFailure` picks it out. Nothing
// here prints or touches files.
#ifndef WARPCHECK_VERIFY_FUZZ_CONVERSION_CHECK_H_
#define WARPCHECK_VERIFY_FUZZ_CONVERSION_CHECK_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "proto/plan.pb.h"
#include "proto/report.pb.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"
#include "verify/ptx/prove_conversion.h"

namespace warpcheck::verify::fuzz {

// Where one pair's check spent its wall-clock time, in seconds: building the problem
// from the pair, planning (both directions and the plan's proto), emitting the harness
// trees, simulating (decoding them and every launch), proving (the PTX and plan proofs).
// Stages a check does not run stay 0; the rest (the cost-model comparison, reports) is
// in none.
struct StageSeconds {
  double problem = 0, plan = 0, emit = 0, simulate = 0, prove = 0;
  StageSeconds& operator+=(const StageSeconds& o);
};
// Every stage with its report name (FuzzReport.check_ms_by_stage), in pipeline order.
inline constexpr std::array<std::pair<const char*, double StageSeconds::*>, 5> kStages = {{
    {"problem", &StageSeconds::problem},
    {"plan", &StageSeconds::plan},
    {"emit", &StageSeconds::emit},
    {"simulate", &StageSeconds::simulate},
    {"prove", &StageSeconds::prove},
}};
inline StageSeconds& StageSeconds::operator+=(const StageSeconds& o) {
  for (const auto& [name, field] : kStages) this->*field += o.*field;
  return *this;
}

// Wall-clock laps for StageSeconds.
class StageClock {
 public:
  // Ensures: the seconds since the last lap (or since construction).
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

struct CheckOptions {
  uint64_t seed = 1;         // the random input's seed
  bool roundtrip = true;     // the check harness (round trip too), not only the once one
  bool iota = true;          // also run on distinct tags
  bool prove_ptx = true;     // verify/ptx on each emitted kernel
  bool prove_plans = false;  // verify/plan on both plans and the round trip
};

// What a failed simulator run shows: its faults and failed expectations, "; "-joined.
std::string FailureText(const SimReport& report);

// An emitted `harness` kernel proven for every input (verify/ptx) with `iters` round trips
// (the once harness: 1) against its launch spec's expectations (the check harness: mid and
// out); element coordinates in the problem's shape.
absl::StatusOr<ptx::ConversionProof> ProveHarness(const sim::plan::ConversionProblem& problem,
                                                  const sim::ptx::Module& module,
                                                  uint32_t iters,
                                                  sim::ptx::Harness harness =
                                                      sim::ptx::Harness::kRoundTrip);

// The plans CheckConversion checks: both directions with one packing (PlanRoundTrip),
// or with options.roundtrip false the conversion alone as `convert plan` plans it
// (PlanConversion; the backward plan stays empty: the once harness does not read it).
// `convert check` and CheckPair (the fuzzer) plan through it, so a failure replays.
absl::StatusOr<sim::ptx::RoundTrip> PlanForCheck(const sim::plan::ConversionProblem& problem,
                                                 const sim::plan::PlanOptions& plan_options,
                                                 const CheckOptions& options);

// Runs the checks above on `trip` (plan: the forward plan's proto, for the model check).
// Ensures: result.ok() is false iff some run failed, a proof was violated or could not
// run, or the model disagreed; *inconclusive (not null) is set when a proof answered
// inconclusive or a plan is outside verify/plan's encoding. result.proof is "holds",
// "violated", "inconclusive", "error" or "not_run"; result.plan_proof is set only with
// prove_plans. result.measured holds the random run's counters, its shared-memory figures
// the forward conversion's.
// `seconds` (may be null): the time of its emit, simulate and prove stages is added.
ConvertCheckReport CheckConversion(const sim::plan::ConversionProblem& problem,
                                   const sim::ptx::RoundTrip& trip, const Plan& plan,
                                   const CheckOptions& options, bool* inconclusive,
                                   StageSeconds* seconds = nullptr);

// The first failed run of a report (nullptr when it is ok).
const ConvertCheckReport::Run* FirstFailure(const ConvertCheckReport& report);

}  // namespace warpcheck::verify::fuzz

#endif  // WARPCHECK_VERIFY_FUZZ_CONVERSION_CHECK_H_
