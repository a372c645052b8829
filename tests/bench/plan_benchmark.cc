// Planner speed (issue: plan + emit median <= 100 us per pair; plan + emit + simulate
// >= 5000 pairs/s on one core for 4-warp 64x64 16-bit pairs).
//
// The pairs are every 4-warp 64x64 f16/bf16/i16 pair of corpus/plan/triton_costs.tsv
// (Triton's own test pairs); each iteration takes the next pair, so the figure is the
// mean over the set. Counters: pairs/s (rate over the iterations).
//
//   BM_Plan              one direction, cheapest strategy (all candidates priced)
//   BM_PlanRoundTrip     both directions with one word packing (what `emit` plans)
//   BM_PlanEmit          + the round-trip PTX text
//   BM_PlanEmitSimulate  + parse and simulate the once harness (one CTA)
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/base/tsv.h"
#include "sim/machine/launch.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::plan {
namespace {

const std::vector<ConversionProblem>& Problems() {
  static const auto* problems = [] {
    auto* out = new std::vector<ConversionProblem>;
    auto t = base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) +
                               "/corpus/plan/triton_costs.tsv");
    if (!t.ok()) return out;
    for (const auto& c : t->rows) {
      const std::string& dt = t->Cell(c, "dtype");
      if (t->Cell(c, "status") != "ok" || t->Cell(c, "shape") != "64x64" ||
          t->Cell(c, "num_warps") != "4" || (dt != "f16" && dt != "bf16" && dt != "i16")) {
        continue;
      }
      auto p = MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), {64, 64}, *ParseDType(dt), 4);
      if (p.ok()) out->push_back(*std::move(p));
    }
    return out;
  }();
  return *problems;
}

void BM_Plan(benchmark::State& state) {
  const auto& ps = Problems();
  size_t i = 0;
  for (auto _ : state) {
    auto plan = PlanConversion(ps[i++ % ps.size()], PlanOptions{});
    benchmark::DoNotOptimize(plan);
  }
  state.counters["pairs"] = static_cast<double>(ps.size());
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Plan);

void BM_PlanRoundTrip(benchmark::State& state) {
  const auto& ps = Problems();
  size_t i = 0;
  for (auto _ : state) {
    auto trip = ptx::PlanRoundTrip(ps[i++ % ps.size()], PlanOptions{});
    benchmark::DoNotOptimize(trip);
  }
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanRoundTrip);

void BM_PlanEmit(benchmark::State& state) {
  const auto& ps = Problems();
  size_t i = 0;
  for (auto _ : state) {
    const ConversionProblem& p = ps[i++ % ps.size()];
    auto trip = ptx::PlanRoundTrip(p, PlanOptions{});
    std::string ptx = ptx::EmitHarness(p, trip->forward, &trip->backward,
                                       ptx::Harness::kRoundTrip);
    benchmark::DoNotOptimize(ptx);
  }
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanEmit);

void BM_PlanEmitSimulate(benchmark::State& state) {
  const auto& ps = Problems();
  size_t i = 0;
  for (auto _ : state) {
    const ConversionProblem& p = ps[i++ % ps.size()];
    auto plan = PlanConversion(p, PlanOptions{});
    std::string text = ptx::EmitHarness(p, *plan, nullptr, ptx::Harness::kOnce);
    auto module = ptx::ParseModule(text, "<emitted>");
    LaunchSpec spec = ptx::HarnessLaunchSpec(p, "<emitted>", BufferParam::RANDOM, 1, 1);
    machine::RunOptions ro;
    ro.detect_races = false;
    auto run = machine::RunLaunchSpecOnModule(spec, *module, ".", ro);
    if (!run.ok() || !run->report.ok()) state.SkipWithError("a pair did not convert");
  }
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanEmitSimulate);

}  // namespace
}  // namespace warpcheck::sim::plan
