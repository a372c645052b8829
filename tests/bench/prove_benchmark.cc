// Prover speed (issue: median proof <= 1 s and max <= 30 s per corpus kernel on one core).
//
//   BM_ProveCorpus        every corpus/triton kernel in turn (one per iteration): the mean
//                         proof time over the corpus; counter kernels/s
//   BM_Prove/<kernel>     one kernel per category (the first of each), for the spread
//   BM_PlanEmitProve      our planner's round-trip kernel for 4-warp 64x64 16-bit pairs:
//                         plan + emit + prove (what `convert check` adds per pair)
//
// Median and max per kernel over the whole corpus: `warpcheck convert compare ... --prove`
// and tools/oracle/mutation_gate.py print them (they time each proof separately).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/base/tsv.h"
#include "sim/launch/launch_spec.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"
#include "verify/ptx/prove_conversion.h"

namespace warpcheck::verify::ptx {
namespace {

namespace fs = std::filesystem;

struct Kernel {
  std::string name;
  LaunchSpec spec;
  sim::ptx::Module module;
};

const std::vector<Kernel>& Corpus() {
  static const auto* kernels = [] {
    auto* out = new std::vector<Kernel>;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(fs::path(WARPCHECK_SOURCE_DIR) / "corpus/triton")) {
      if (e.path().extension() == ".textproto") paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const fs::path& p : paths) {
      auto spec = sim::launch::LoadLaunchSpec(p.string());
      if (!spec.ok()) continue;
      auto module = sim::ptx::ParseModuleFile((p.parent_path() / spec->ptx_file()).string());
      if (!module.ok()) continue;
      out->push_back(Kernel{p.stem().string(), *spec, *std::move(module)});
    }
    return out;
  }();
  return *kernels;
}

void Check(benchmark::State& state, const absl::StatusOr<ConversionProof>& p) {
  if (!p.ok() || p->verdict != ProofVerdict::kHolds) {
    state.SkipWithError(p.ok() ? p->reason.c_str() : "input error");
  }
}

void BM_ProveCorpus(benchmark::State& state) {
  const auto& k = Corpus();
  size_t i = 0;
  for (auto _ : state) {
    const Kernel& x = k[i++ % k.size()];
    auto p = ProveLaunch(x.spec, x.module, {});
    Check(state, p);
    if (!p.ok()) break;
  }
  state.counters["kernels/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                   benchmark::Counter::kIsRate);
  state.counters["corpus"] = static_cast<double>(k.size());
}
BENCHMARK(BM_ProveCorpus)->Unit(benchmark::kMillisecond);

void BM_Prove(benchmark::State& state, size_t index) {
  const Kernel& x = Corpus()[index];
  for (auto _ : state) {
    auto p = ProveLaunch(x.spec, x.module, {});
    Check(state, p);
    if (p.ok()) {
      state.counters["threads"] = p->threads;
      state.counters["thread_steps"] = static_cast<double>(p->thread_steps);
    }
  }
}

void BM_PlanEmitProve(benchmark::State& state) {
  static const auto* problems = [] {
    auto* out = new std::vector<sim::plan::ConversionProblem>;
    auto t = sim::base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) +
                                    "/corpus/plan/triton_costs.tsv");
    if (!t.ok()) return out;
    for (const auto& c : t->rows) {
      const std::string& dt = t->Cell(c, "dtype");
      if (t->Cell(c, "status") != "ok" || t->Cell(c, "shape") != "64x64" ||
          t->Cell(c, "num_warps") != "4" || (dt != "f16" && dt != "bf16" && dt != "i16")) {
        continue;
      }
      auto p = sim::plan::MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), {64, 64},
                                      *sim::plan::ParseDType(dt), 4);
      if (p.ok()) out->push_back(*std::move(p));
    }
    return out;
  }();
  if (problems->empty()) {
    state.SkipWithError("no pairs");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    const auto& problem = (*problems)[i++ % problems->size()];
    auto trip = sim::ptx::PlanRoundTrip(problem, sim::plan::PlanOptions{});
    if (!trip.ok()) continue;
    std::string ptx = sim::ptx::EmitHarness(problem, trip->forward, &trip->backward,
                                            sim::ptx::Harness::kRoundTrip);
    auto module = sim::ptx::ParseModule(ptx, "<emitted>");
    LaunchSpec spec =
        sim::ptx::HarnessLaunchSpec(problem, "<emitted>", BufferParam::RANDOM, 1, 2);
    auto p = ProveLaunch(spec, *module, {});
    Check(state, p);
  }
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlanEmitProve)->Unit(benchmark::kMillisecond);

int Register() {
  std::map<std::string, size_t> first;  // category -> first kernel
  const auto& k = Corpus();
  for (size_t i = 0; i < k.size(); ++i) {
    std::string cat = k[i].name.substr(0, k[i].name.find('_'));
    first.emplace(cat, i);
  }
  for (const auto& [cat, i] : first) {
    benchmark::RegisterBenchmark(("BM_Prove/" + k[i].name).c_str(), BM_Prove, i)
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace
}  // namespace warpcheck::verify::ptx
