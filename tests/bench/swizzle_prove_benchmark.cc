// Proof time of the swizzle2d built-ins over their full parameter ranges (verify/).
//
//   build/tests/bench/swizzle_prove_benchmark --benchmark_out=prove.json
//   (add --benchmark_out_format=json for JSON)
//
// Ranges: gemm over every grid up to 2^16 x 2^16 tiles, every swizzle_offset 1..7 and
// both directions (goal: under 1 s); dist over rank_size 1..64 with every comm_npu_split
// dividing it, both directions, comm_data_split 1..4 for direction 0. The slow ones run
// once (->Iterations(1)). Counters: configs (enumerated parameter combinations), queries
// (Z3 calls), solver_ms (time inside Z3), and verdict (0 holds, 1 violated,
// 2 inconclusive). The Debian benchmark library warns that it was built as DEBUG; that is
// harmless (STYLE.md, Benchmark 1.7.1 details).
#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "benchmark/benchmark.h"
#include "sim/swizzle/sweep.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify {
namespace {

using sim::swizzle::Builtin;
using sim::swizzle::BuiltinSweep;
using sim::swizzle::ParamRange;

constexpr int64_t kMaxTiles = int64_t{1} << 16;

BuiltinSweep Gemm(Builtin fn) {
  BuiltinSweep s;
  s.fn = fn;
  s.row_tiles = ParamRange{1, kMaxTiles};
  s.col_tiles = ParamRange{1, kMaxTiles};
  s.swizzle_offset = ParamRange{1, 7};
  if (fn == Builtin::kGemm) s.swizzle_direction = ParamRange{0, 1};
  return s;
}

BuiltinSweep Dist(Builtin fn, int64_t max_ranks, int64_t direction_lo,
                  int64_t direction_hi) {
  BuiltinSweep s;
  s.fn = fn;
  s.row_tiles = ParamRange{1, kMaxTiles};
  s.col_tiles = ParamRange{1, kMaxTiles};
  s.rank_size = ParamRange{1, max_ranks};
  s.comm_npu_split = ParamRange{1, max_ranks};
  if (fn == Builtin::kDist) {
    s.swizzle_direction = ParamRange{direction_lo, direction_hi};
    if (direction_lo == 0) s.comm_data_split = ParamRange{1, 4};
  }
  return s;
}

void Run(benchmark::State& state, const BuiltinSweep& box) {
  SwizzleProveOptions options;
  options.keep_query_log = false;
  SwizzleProof last;
  for (auto _ : state) {
    absl::StatusOr<SwizzleProof> p = ProveBuiltin(box, options);
    if (!p.ok()) {
      state.SkipWithError(std::string(p.status().message()).c_str());
      return;
    }
    last = *std::move(p);
  }
  state.counters["configs"] = static_cast<double>(last.configs);
  state.counters["queries"] = static_cast<double>(last.num_queries);
  state.counters["solver_ms"] = last.solver_ms;
  state.counters["verdict"] = static_cast<double>(last.verdict);
  state.SetLabel(last.ToString().substr(0, 120));
}

void BM_ProveGemm(benchmark::State& state) { Run(state, Gemm(Builtin::kGemm)); }
BENCHMARK(BM_ProveGemm)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ProveGemmNz(benchmark::State& state) { Run(state, Gemm(Builtin::kGemmNz)); }
BENCHMARK(BM_ProveGemmNz)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ProveDistDirection1(benchmark::State& state) {
  Run(state, Dist(Builtin::kDist, state.range(0), 1, 1));
}
BENCHMARK(BM_ProveDistDirection1)
    ->Arg(8)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void BM_ProveDistDirection0(benchmark::State& state) {
  Run(state, Dist(Builtin::kDist, state.range(0), 0, 0));
}
BENCHMARK(BM_ProveDistDirection0)
    ->Arg(8)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// dist_swizzle2d_Nz is violated (its rank remap is not a permutation for p > 1): the time
// to find, shrink and minimise the counterexample.
void BM_RefuteDistNz(benchmark::State& state) {
  Run(state, Dist(Builtin::kDistNz, state.range(0), 1, 1));
}
BENCHMARK(BM_RefuteDistNz)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace warpcheck::verify
