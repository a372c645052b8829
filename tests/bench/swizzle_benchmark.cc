// Enumeration throughput of the swizzle checker (sim/swizzle/enumerate.h): built-in
// kernels, a user spec through the compiled evaluator, and a whole sweep.
// items_per_second = iterations checked per second, single core.
#include <cstdint>

#include "benchmark/benchmark.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {
namespace {

// corpus/swizzle/gemm_d1.swz, inlined so the benchmark needs no files.
constexpr char kGemmD1[] = R"(
param row_tiles in 1..4096;
param col_tiles in 1..4096;
param swizzle_offset in 1..7;
let R = row_tiles;
let C = col_tiles;
let s = swizzle_offset;
domain = R * C;
grid row = R;
grid col = C;
let G = cdiv(C, s);
let g = iter // (s * R);
let j = iter % (s * R);
let w = select(g < G - 1, s, C - s * g);
let r = j // w;
out row = select(g % 2 == 1, R - 1 - r, r);
out col = g * s + j % w;
)";

void BM_GemmBuiltin(benchmark::State& state) {
  Enumerator e;
  Swizzle2dParams p{.fn = Builtin::kGemm,
                    .shape = Shape2d::FromTileCounts(state.range(0), state.range(1)),
                    .direction = state.range(2)};
  int64_t points = 0;
  for (auto _ : state) {
    auto r = e.Check(p);
    if (!r.ok() || r->verdict != Verdict::kHolds) state.SkipWithError("check failed");
    points += r->points;
  }
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_GemmBuiltin)->Args({1000, 1000, 1})->Args({1000, 1000, 0})->Args({7, 9, 1});

void BM_DistBuiltin(benchmark::State& state) {
  Enumerator e;
  Swizzle2dParams p{.fn = Builtin::kDist,
                    .shape = Shape2d::FromTileCounts(300, 300),
                    .direction = state.range(0),
                    .rank_size = 8,
                    .comm_npu_split = 2,
                    .comm_data_split = 3};
  int64_t points = 0;
  for (auto _ : state) {
    auto r = e.Check(p);
    if (!r.ok() || r->verdict != Verdict::kHolds) state.SkipWithError("check failed");
    points += r->points;
  }
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_DistBuiltin)->Arg(1)->Arg(0);

void BM_GemmSpec(benchmark::State& state) {
  auto spec = SwizzleSpec::Parse("gemm_d1.swz", kGemmD1);
  if (!spec.ok()) {
    state.SkipWithError("parse failed");
    return;
  }
  auto inst = spec->Instantiate({300, 300, 7});
  Enumerator e;
  int64_t points = 0;
  for (auto _ : state) {
    auto r = e.Check(*inst);
    if (!r.ok() || r->verdict != Verdict::kHolds) state.SkipWithError("check failed");
    points += r->points;
  }
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_GemmSpec);

void BM_GemmSweep12x12(benchmark::State& state) {
  BuiltinSweep s{.fn = Builtin::kGemm,
                 .row_tiles = ParamRange{1, 12},
                 .col_tiles = ParamRange{1, 12},
                 .swizzle_offset = ParamRange{1, 7},
                 .swizzle_direction = ParamRange{0, 1}};
  int64_t points = 0;
  for (auto _ : state) {
    auto r = Sweep(s);
    if (!r.ok() || r->verdict != Verdict::kHolds) state.SkipWithError("sweep failed");
    points += r->points;
  }
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_GemmSweep12x12);

}  // namespace
}  // namespace warpcheck::sim::swizzle
