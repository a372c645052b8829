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
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
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
    std::ifstream f(std::string(WARPCHECK_SOURCE_DIR) + "/corpus/plan/triton_costs.tsv");
    std::string line;
    std::getline(f, line);
    std::vector<std::string> h = absl::StrSplit(line, '\t');
    auto col = [&](const char* n) {
      for (size_t i = 0; i < h.size(); ++i) if (h[i] == n) return i;
      return size_t{0};
    };
    while (std::getline(f, line)) {
      std::vector<std::string> c = absl::StrSplit(line, '\t');
      const std::string& dt = c[col("dtype")];
      if (c[col("status")] != "ok" || c[col("shape")] != "64x64" || c[col("num_warps")] != "4" ||
          (dt != "f16" && dt != "bf16" && dt != "i16")) {
        continue;
      }
      auto p = MakeProblem(c[col("src")], c[col("dst")], {64, 64}, *ParseDType(dt), 4);
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
