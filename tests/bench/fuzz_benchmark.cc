// `fuzz layouts` speed (issue: >= 5000 pairs/s on one core for plan + emit + simulate).
// The pairs are the campaign's own (seed 1), so the mix is what a CI run sees.
//
//   BM_GeneratePair        pair generation alone
//   BM_CheckPairNoProof    one pair through the whole check without Z3: plan both
//                          directions, emit the check harness (the conversion alone, then
//                          the round trip), decode, simulate it on random data and distinct
//                          tags (2 runs, race detection on the tags'), cost model
//   BM_CheckPairOneWay     `fuzz layouts --one-way`: the conversion alone (plan one
//                          direction, the once harness, both fills, cost model)
//   BM_CheckPairOnceOnly   one way, random data only; /iterations:N: fixed counts for
//                          callgrind
// Counter pes/s: pairs per second of plan + emit + simulate alone (the stages' own
// clocks, StageSeconds), the figure the issue sets (>= 5000 on one core).
//   BM_PlanEmitSimulate/0, /1   that figure as Google Benchmark times it: plan, emit and
//                          simulate the first 2 000 pairs' problems, built beforehand,
//                          by default (/0) and one way (/1)
//   BM_CheckPairProof      the full check with the Z3 proof of both kernels
//   BM_ShrinkSteps         the shrink candidates of one pair
// Counter pairs/s: the rate over the iterations.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "verify/fuzz/campaign.h"
#include "verify/fuzz/conversion_check.h"
#include "verify/fuzz/pair_gen.h"

namespace warpcheck::verify::fuzz {
namespace {

void Rate(benchmark::State& state) {
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

void BM_GeneratePair(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(GeneratePair(1, i++));
  Rate(state);
}
BENCHMARK(BM_GeneratePair);

void CheckLoop(benchmark::State& state, const CheckOptions& options) {
  int64_t i = 0;
  double pes = 0;  // seconds in plan, emit and simulate
  for (auto _ : state) {
    PairOutcome o = CheckPair(GeneratePair(1, i++), options);
    if (o.verdict == PairVerdict::kFailed) {
      state.SkipWithError("a campaign pair failed");
      break;
    }
    pes += o.seconds.plan + o.seconds.emit + o.seconds.simulate;
  }
  Rate(state);
  if (pes > 0) state.counters["pes/s"] = static_cast<double>(state.iterations()) / pes;
}

void BM_CheckPairNoProof(benchmark::State& state) {
  CheckOptions o;
  o.prove_ptx = false;
  CheckLoop(state, o);
}
BENCHMARK(BM_CheckPairNoProof);

void BM_CheckPairOnceOnly(benchmark::State& state) {
  CheckOptions o;
  o.prove_ptx = false;
  o.roundtrip = false;
  o.iota = false;
  CheckLoop(state, o);
}
BENCHMARK(BM_CheckPairOnceOnly);

void BM_CheckPairOneWay(benchmark::State& state) {
  CheckOptions o;
  o.prove_ptx = false;
  o.roundtrip = false;
  CheckLoop(state, o);
}
BENCHMARK(BM_CheckPairOneWay);
BENCHMARK(BM_CheckPairOneWay)->Iterations(100);
BENCHMARK(BM_CheckPairOneWay)->Iterations(200);
// Fixed iteration counts for callgrind (instruction counts do not depend on the load):
// (Ir of iterations:200 - Ir of iterations:100) / 100 is the mean cost of pairs 100..199.
BENCHMARK(BM_CheckPairOnceOnly)->Iterations(100);
BENCHMARK(BM_CheckPairOnceOnly)->Iterations(200);
BENCHMARK(BM_CheckPairNoProof)->Iterations(100);
BENCHMARK(BM_CheckPairNoProof)->Iterations(200);

void BM_CheckPairProof(benchmark::State& state) { CheckLoop(state, CheckOptions{}); }
BENCHMARK(BM_CheckPairProof);

// Plan + emit + simulate alone, as Google Benchmark times it: the problems of the
// campaign's first 2 000 pairs (seed 1; those in scope) are built before the timed loop,
// which plans (PlanForCheck and the plan's proto, as CheckPair does), emits and
// simulates them in turn (CheckConversion without proofs: both fills, the cost-model
// comparison). Arg 0: the default check (round trip), 1: one way.
const std::vector<sim::plan::ConversionProblem>& CampaignProblems() {
  static const auto* problems = [] {
    auto* out = new std::vector<sim::plan::ConversionProblem>;
    for (int64_t i = 0; i < 2000; ++i) {
      if (auto p = GeneratePair(1, i).Problem(); p.ok()) out->push_back(*std::move(p));
    }
    return out;
  }();
  return *problems;
}

void BM_PlanEmitSimulate(benchmark::State& state) {
  const std::vector<sim::plan::ConversionProblem>& problems = CampaignProblems();
  CheckOptions o;
  o.prove_ptx = false;
  o.roundtrip = state.range(0) == 0;
  size_t i = 0;
  for (auto _ : state) {
    const sim::plan::ConversionProblem& p = problems[i++ % problems.size()];
    auto trip = PlanForCheck(p, sim::plan::PlanOptions{}, o);
    if (!trip.ok()) continue;  // out of the planner's scope: counted as the campaign does
    const Plan plan = sim::plan::ToProto(p, trip->forward);
    bool inconclusive = false;
    if (!CheckConversion(p, *trip, plan, o, &inconclusive).ok()) {
      state.SkipWithError("a campaign pair failed");
      break;
    }
  }
  Rate(state);
}
BENCHMARK(BM_PlanEmitSimulate)->Arg(0)->Arg(1);

void BM_ShrinkSteps(benchmark::State& state) {
  int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ShrinkSteps(GeneratePair(1, i++)));
  Rate(state);
}
BENCHMARK(BM_ShrinkSteps);

}  // namespace
}  // namespace warpcheck::verify::fuzz
