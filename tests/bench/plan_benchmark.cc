// Planner speed (issue: plan + emit median <= 100 us per pair; plan + emit + simulate
// >= 5000 pairs/s on one core for 4-warp 64x64 16-bit pairs). The fuzzer runs
// plan -> emit -> simulate on thousands of pairs a minute.
//
// Pair sets (the benchmark argument):
//   /0  every 4-warp 64x64 f16/bf16/i16 pair of corpus/plan/triton_costs.tsv (Triton's
//       own test pairs, 100): the target's set
//   /1  every pair of that table the planner takes (the jsonl mix: all shapes, dtypes
//       and warp counts)
// Each iteration takes the next pair, so a rate is the mean over the set.
//
//   BM_Plan              one direction, cheapest strategy (all candidates priced)
//   BM_PlanRoundTrip     both directions with one word packing (what `emit` plans)
//   BM_PlanEmit          + the round-trip PTX text (`convert emit`); counter median_us:
//                        the median over the pairs of each pair's mean thread CPU time
//                        [target 1] (/iterations:N: fixed counts for callgrind)
//   BM_PlanEmitSimulate  plan one direction, emit the once harness's tree and simulate
//                        it (one CTA, no race detection); counter pairs/s  [target 2]
//                        (/iterations:N: fixed counts for callgrind, see below)
//   BM_Parse             parse the once harness's PTX only (stage figure)
//   BM_Simulate          decode and run a parsed once harness only (stage figure)
#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "sim/base/tsv.h"
#include "sim/machine/launch.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::plan {
namespace {

std::vector<ConversionProblem> ReadPairs(bool target_set) {
  std::vector<ConversionProblem> out;
  auto t = base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) +
                             "/corpus/plan/triton_costs.tsv");
  if (!t.ok()) return out;
  for (const auto& c : t->rows) {
    if (t->Cell(c, "status") != "ok") continue;
    const std::string& dt = t->Cell(c, "dtype");
    if (target_set && (t->Cell(c, "shape") != "64x64" || t->Cell(c, "num_warps") != "4" ||
                       (dt != "f16" && dt != "bf16" && dt != "i16"))) {
      continue;
    }
    auto dtype = ParseDType(dt);
    std::vector<int64_t> shape;
    bool shape_ok = true;
    for (absl::string_view e : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
      int64_t v = 0;
      shape_ok = shape_ok && absl::SimpleAtoi(e, &v) && v > 0;
      shape.push_back(v);
    }
    int warps = 0;
    if (!dtype.ok() || !shape_ok || !absl::SimpleAtoi(t->Cell(c, "num_warps"), &warps)) continue;
    auto p = MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), shape, *dtype, warps);
    if (!p.ok() || !ptx::PlanRoundTrip(*p, PlanOptions{}).ok()) continue;
    out.push_back(*std::move(p));
  }
  return out;
}

const std::vector<ConversionProblem>& Pairs(int64_t set) {
  if (set == 0) {
    static const auto* target = new std::vector<ConversionProblem>(ReadPairs(true));
    return *target;
  }
  static const auto* mix = new std::vector<ConversionProblem>(ReadPairs(false));
  return *mix;
}

void Rate(benchmark::State& state, size_t pairs) {
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

void BM_Plan(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    auto plan = PlanConversion(ps[i++ % ps.size()], PlanOptions{});
    benchmark::DoNotOptimize(plan);
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_Plan)->Arg(0)->Arg(1);

void BM_PlanRoundTrip(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    auto trip = ptx::PlanRoundTrip(ps[i++ % ps.size()], PlanOptions{});
    benchmark::DoNotOptimize(trip);
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_PlanRoundTrip)->Arg(0)->Arg(1);

// This thread's CPU time (the machine is shared; wall time would count other jobs).
double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

void BM_PlanEmit(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  std::vector<double> total_us(ps.size(), 0.0);
  std::vector<int64_t> runs(ps.size(), 0);
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % ps.size();
    const double start = ThreadCpuMicros();
    auto trip = ptx::PlanRoundTrip(ps[k], PlanOptions{});
    std::string ptx = ptx::EmitHarness(ps[k], trip->forward, &trip->backward,
                                       ptx::Harness::kRoundTrip);
    benchmark::DoNotOptimize(ptx);
    total_us[k] += ThreadCpuMicros() - start;
    ++runs[k];
  }
  std::vector<double> mean_us;
  for (size_t k = 0; k < ps.size(); ++k) {
    if (runs[k] > 0) mean_us.push_back(total_us[k] / static_cast<double>(runs[k]));
  }
  if (!mean_us.empty()) {
    std::nth_element(mean_us.begin(), mean_us.begin() + mean_us.size() / 2, mean_us.end());
    state.counters["median_us"] = mean_us[mean_us.size() / 2];
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_PlanEmit)->Arg(0)->Arg(1);
// Fixed iteration counts for callgrind, as BM_PlanEmitSimulate's below.
BENCHMARK(BM_PlanEmit)->Arg(0)->Iterations(120);
BENCHMARK(BM_PlanEmit)->Arg(0)->Iterations(240);

// The once harness of pair p, its launch spec and options (one CTA, random input).
std::string OnceText(const ConversionProblem& p, const ConversionPlan& plan) {
  return ptx::EmitHarness(p, plan, nullptr, ptx::Harness::kOnce);
}
absl::Status Simulate(const ConversionProblem& p, const ptx::Module& module) {
  LaunchSpec spec = ptx::HarnessLaunchSpec(p, "<emitted>", BufferParam::RANDOM, 1, 1);
  machine::RunOptions ro;
  ro.detect_races = false;
  ro.hash_buffers = false;  // the verdict is all this needs (as the fuzzer)
  auto run = machine::RunLaunchSpecOnModule(spec, module, ".", ro);
  if (!run.ok()) return run.status();
  if (!run->report.ok()) return absl::InternalError("the pair did not convert");
  return absl::OkStatus();
}

void BM_PlanEmitSimulate(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const ConversionProblem& p = ps[i++ % ps.size()];
    auto plan = PlanConversion(p, PlanOptions{});
    const ptx::Module module = ptx::EmitHarnessModule(p, *plan, nullptr, ptx::Harness::kOnce);
    if (!Simulate(p, module).ok()) {
      state.SkipWithError("a pair did not convert");
      break;
    }
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_PlanEmitSimulate)->Arg(0)->Arg(1);
// Fixed iteration counts for callgrind, whose instruction counts do not depend on the
// machine's load: (Ir of iterations:240 - Ir of iterations:120) / 120 is the mean cost of
// one pair of set 0 (each run pays the same one-off setup).
BENCHMARK(BM_PlanEmitSimulate)->Arg(0)->Iterations(120);
BENCHMARK(BM_PlanEmitSimulate)->Arg(0)->Iterations(240);

// The once harnesses of a pair set, emitted once.
const std::vector<std::string>& OnceTexts(int64_t set) {
  static auto* texts = new std::vector<std::string>[2];
  if (texts[set].empty()) {
    for (const auto& p : Pairs(set)) {
      texts[set].push_back(OnceText(p, *PlanConversion(p, PlanOptions{})));
    }
  }
  return texts[set];
}

void BM_Parse(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  const std::vector<std::string>& texts = OnceTexts(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    auto module = ptx::ParseModule(texts[i++ % texts.size()], "<emitted>");
    benchmark::DoNotOptimize(module);
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_Parse)->Arg(0)->Arg(1);

void BM_Simulate(benchmark::State& state) {
  const auto& ps = Pairs(state.range(0));
  std::vector<ptx::Module> modules;
  for (const std::string& text : OnceTexts(state.range(0))) {
    modules.push_back(*ptx::ParseModule(text, "<emitted>"));
  }
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % ps.size();
    if (!Simulate(ps[k], modules[k]).ok()) {
      state.SkipWithError("a pair did not convert");
      break;
    }
  }
  Rate(state, ps.size());
}
BENCHMARK(BM_Simulate)->Arg(0)->Arg(1);

}  // namespace
}  // namespace warpcheck::sim::plan
