// Simulator throughput on Triton 3.6 convert_layout kernels (tests/sim/machine/testdata):
// simulated thread-instructions per second (items_per_second).
//
//   build-sim/tests/bench/sim_benchmark [--benchmark_filter=Triton]
//
// BM_Triton runs the round-trip kernel with `iters` conversions (the PTX is parsed once;
// decoding, buffer set-up and the run are timed). BM_TritonNoRaces turns the race shadow
// off, to show its cost. BM_EndToEnd also reads and parses the spec and the PTX each
// time.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/launch.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::machine {
namespace {

// The source tree: $WARPCHECK_SOURCE_DIR, else three levels above this file.
std::string SourceDir() {
  if (const char* env = std::getenv("WARPCHECK_SOURCE_DIR")) return env;
  return std::filesystem::path(__FILE__)
      .parent_path()
      .parent_path()
      .parent_path()
      .string();
}
std::string Dir() { return SourceDir() + "/tests/sim/machine/testdata"; }

void RunTriton(benchmark::State& state, const std::string& name, bool races) {
  absl::StatusOr<LaunchSpec> spec = launch::LoadLaunchSpec(Dir() + "/" + name + ".textproto");
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  absl::StatusOr<ptx::Module> module =
      ptx::ParseModuleFile(Dir() + "/" + spec->ptx_file());
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  // param 3 is `iters`: even, so that the round trip still gives out == in.
  spec->mutable_param(2)->set_u32(static_cast<uint32_t>(state.range(0)));
  RunOptions options;
  options.detect_races = races;
  double instructions = 0;
  for (auto _ : state) {
    absl::StatusOr<LaunchResult> r =
        RunLaunchSpecOnModule(*spec, *module, Dir(), options);
    if (!r.ok() || !r->report.ok()) {
      state.SkipWithError("run failed");
      return;
    }
    instructions += r->report.counters().at("instructions");
  }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
  state.counters["thread_instr_per_run"] = instructions / state.iterations();
}

#define WARPCHECK_TRITON_BENCH(NAME)                                                \
  void BM_Triton_##NAME(benchmark::State& s) { RunTriton(s, #NAME, true); }         \
  BENCHMARK(BM_Triton_##NAME)->Arg(64);                                             \
  void BM_TritonNoRaces_##NAME(benchmark::State& s) { RunTriton(s, #NAME, false); } \
  BENCHMARK(BM_TritonNoRaces_##NAME)->Arg(64);

WARPCHECK_TRITON_BENCH(shuffle_i32)
WARPCHECK_TRITON_BENCH(shuffle_i8)
WARPCHECK_TRITON_BENCH(shuffle_f64)
WARPCHECK_TRITON_BENCH(smem_f32)
WARPCHECK_TRITON_BENCH(smem_i64)
WARPCHECK_TRITON_BENCH(mma_f16)
WARPCHECK_TRITON_BENCH(dot_b_trans_f16)
WARPCHECK_TRITON_BENCH(mma3_bf16)

// Every Triton corpus kernel (corpus/triton, when present) with `iters` round trips:
// the aggregate rate over a broad mix of conversions (shuffles, shared memory,
// ldmatrix/stmatrix, 8- to 64-bit types).
void BM_TritonCorpus(benchmark::State& state) {
  std::string dir = SourceDir() + "/corpus/triton";
  if (!std::filesystem::exists(dir)) {
    state.SkipWithError("no corpus/triton");
    return;
  }
  struct Case {
    LaunchSpec spec;
    ptx::Module module;
  };
  std::vector<Case> cases;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".textproto") continue;
    absl::StatusOr<LaunchSpec> spec = launch::LoadLaunchSpec(e.path().string());
    if (!spec.ok() || spec->param_size() < 3) continue;
    absl::StatusOr<ptx::Module> module =
        ptx::ParseModuleFile(dir + "/" + spec->ptx_file());
    if (!module.ok()) continue;
    spec->mutable_param(2)->set_u32(static_cast<uint32_t>(state.range(0)));
    cases.push_back({*std::move(spec), *std::move(module)});
  }
  double instructions = 0;
  for (auto _ : state) {
    for (const Case& c : cases) {
      absl::StatusOr<LaunchResult> r =
          RunLaunchSpecOnModule(c.spec, c.module, dir, RunOptions{});
      if (!r.ok() || !r->report.ok()) {
        state.SkipWithError("run failed");
        return;
      }
      instructions += r->report.counters().at("instructions");
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
  state.counters["kernels"] = double(cases.size());
}
BENCHMARK(BM_TritonCorpus)->Arg(16)->Unit(benchmark::kMillisecond);

void BM_EndToEnd(benchmark::State& state) {
  double instructions = 0;
  for (auto _ : state) {
    absl::StatusOr<SimReport> r =
        RunLaunchSpecFile(Dir() + "/mma_f16.textproto", RunOptions{});
    if (!r.ok()) {
      state.SkipWithError("run failed");
      return;
    }
    instructions += r->counters().at("instructions");
  }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
}
BENCHMARK(BM_EndToEnd);

}  // namespace
}  // namespace warpcheck::sim::machine
