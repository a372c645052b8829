// Proof time of the swizzle2d built-ins over their full parameter ranges (verify/), and
// every corpus problem (corpus/swizzle/*.textproto) under each engine.
//
//   build/tests/bench/swizzle_prove_benchmark --benchmark_out=prove.json
//   (add --benchmark_out_format=json for JSON;
//    --benchmark_filter=Corpus for the corpus alone, =-Corpus for the built-ins alone)
//
// Built-ins: gemm over every grid up to 2^16 x 2^16 tiles, every swizzle_offset 1..7 and
// both directions (goal: under 1 s); dist over rank_size 1..64 with every comm_npu_split
// dividing it, both directions, comm_data_split 1..4 for direction 0. The slow ones run
// once (->Iterations(1)). Counters: configs (enumerated parameter combinations), queries
// (Z3 calls), solver_ms (time inside Z3), and verdict (0 holds, 1 violated,
// 2 inconclusive). The Debian benchmark library warns that it was built as DEBUG; that is
// harmless (STYLE.md, Benchmark 1.7.1 details).
//
// Corpus: BM_Corpus/<file>/<engine> for every problem file and engine symbolic and
// enumerated, each run once, through verify::CheckSwizzle (so exactly what `warpcheck
// swizzle2d prove --engine=E --spec=FILE` does), over the file's own box. Counters:
//   verdict        0 holds, 1 violated, 2 inconclusive, 3 error (the label has the text)
//   decided        1 when the engine reached holds or violated
//   covered        the share of the box's admitted parameter points the engine's result
//                  speaks for: 1 when decided (every point proved, or a counterexample
//                  that settles the box); when inconclusive, the share it established
//                  before giving up — the enumeration's points checked (all held) over
//                  the total, and 0 for the proof, which reports no partial result yet
//   points         admitted parameter points in the box (counted by enumeration)
//   checked        parameter points the enumeration checked (stops at the smallest
//                  counterexample), or configurations the proof ran
//   queries, solver_ms   the proof's Z3 calls and time
//
// Scaled: BM_CorpusScaled/<file>/symbolic for every spec file, the same proof with every
// parameter that a non-rank `grid` extent depends on widened 16x (lo..hi becomes
// lo..lo + 16·(hi - lo + 1) - 1; the rest as declared), the "16x larger per dimension"
// box of issue 15. Run each case under its own wall-clock cap, e.g.
//   timeout 60 swizzle_prove_benchmark --benchmark_filter='^BM_CorpusScaled/gemm_d1/'
// Counters as above, plus `coverage` (sub-boxes reported: proven/enumerated/open).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "sim/swizzle/problem.h"
#include "sim/swizzle/sweep.h"
#include "verify/swizzle_check.h"
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

// ---- the corpus, per engine ----

namespace sw = ::warpcheck::sim::swizzle;

double Size(const std::optional<ParamRange>& r) {
  return r ? static_cast<double>(r->size()) : 1.0;
}

// The admitted parameter points of a problem's box (what a sweep would visit).
// Ensures: the count, or -1 when the box is too large to count.
double AdmittedPoints(const sw::Problem& p) {
  if (p.builtin) {
    const BuiltinSweep& s = p.builtin_sweep;
    const double rows = s.row_tiles ? Size(s.row_tiles) : Size(s.rows) * Size(s.tile_rows);
    const double cols = s.col_tiles ? Size(s.col_tiles) : Size(s.cols) * Size(s.tile_cols);
    double ranks = 1;
    if (sw::IsDist(s.fn)) {
      const ParamRange n = s.rank_size.value_or(ParamRange::Of(1));
      const ParamRange q = s.comm_npu_split.value_or(ParamRange::Of(1));
      ranks = 0;
      for (int64_t k = n.lo; k <= n.hi; ++k) {
        for (int64_t d = q.lo; d <= std::min(q.hi, k); ++d) ranks += (k % d == 0);
      }
    }
    return rows * cols * ranks * Size(s.swizzle_offset) * Size(s.swizzle_direction) *
           Size(s.comm_data_split);
  }
  const std::vector<const sim::expr::Stmt*>& params = p.spec->params();
  std::vector<ParamRange> ranges;
  double box = 1;
  for (const sim::expr::Stmt* s : params) {
    ParamRange r{s->lo, s->hi};
    for (const auto& [name, range] : p.spec_sweep.ranges) {
      if (name == s->name) r = range;
    }
    ranges.push_back(r);
    box *= static_cast<double>(r.size());
  }
  if (box > double(int64_t{1} << 24)) return -1;
  std::vector<int64_t> v;
  for (const ParamRange& r : ranges) v.push_back(r.lo);
  double admitted = 0;
  while (true) {
    if (p.spec->InstantiateUnchecked(v).ok()) ++admitted;
    size_t k = v.size();
    while (k-- > 0) {
      if (v[k] < ranges[k].hi) {
        ++v[k];
        break;
      }
      v[k] = ranges[k].lo;
    }
    if (k == static_cast<size_t>(-1)) return admitted;
  }
}

void RunCorpusCase(benchmark::State& state, const std::string& path, sw::Engine engine) {
  absl::StatusOr<sw::Problem> problem = sw::LoadProblemFile(path);
  if (!problem.ok()) {
    state.SkipWithError(std::string(problem.status().message()).c_str());
    return;
  }
  absl::StatusOr<SwizzleOutcome> outcome = absl::InternalError("not run");
  for (auto _ : state) outcome = CheckSwizzle(*problem, engine);
  const double points = AdmittedPoints(*problem);
  state.counters["points"] = points;
  if (!outcome.ok()) {
    // An input error (e.g. a box the proof cannot instantiate) is a result too.
    state.counters["verdict"] = 3;
    state.counters["decided"] = 0;
    state.counters["covered"] = 0;
    state.SetLabel(std::string(outcome.status().message()).substr(0, 160));
    return;
  }
  const SwizzleOutcome& o = *outcome;
  const bool decided = o.verdict != Verdict::kInconclusive;
  double covered = decided ? 1.0 : 0.0;
  if (!decided && engine == sw::Engine::kEnumerated && points > 0) {
    covered = static_cast<double>(o.param_points) / points;
  }
  state.counters["verdict"] = static_cast<double>(o.verdict);
  state.counters["decided"] = decided ? 1 : 0;
  state.counters["covered"] = covered;
  state.counters["checked"] = static_cast<double>(o.param_points);
  state.counters["queries"] = static_cast<double>(o.queries);
  state.counters["solver_ms"] = o.solver_ms;
  std::string label(sw::VerdictName(o.verdict));
  if (o.counterexample) absl::StrAppend(&label, ": ", o.counterexample->ToString());
  if (!o.reason.empty()) absl::StrAppend(&label, " (", o.reason, ")");
  state.SetLabel(label.substr(0, 160));
}

// The issue-15 box: the tile-extent parameters of a spec widened 16x.
sw::SpecSweep Scaled(const sw::Problem& p) {
  sw::SpecSweep out = p.spec_sweep;
  const sw::SwizzleSpec& spec = *p.spec;
  std::vector<std::string> tile_params;
  for (size_t k = 0; k < spec.grids().size(); ++k) {
    if (spec.coordinates()[k] == "rank") continue;
    for (const std::string& v : spec.program().FreeParams(*spec.grids()[k]->value)) {
      tile_params.push_back(v);
    }
  }
  for (const sim::expr::Stmt* s : spec.params()) {
    if (std::find(tile_params.begin(), tile_params.end(), s->name) == tile_params.end()) {
      continue;
    }
    ParamRange r{s->lo, s->hi};
    for (const auto& [name, range] : p.spec_sweep.ranges) {
      if (name == s->name) r = range;
    }
    const ParamRange wide{r.lo, r.lo + 16 * r.size() - 1};
    bool set = false;
    for (auto& [name, range] : out.ranges) {
      if (name == s->name) range = wide, set = true;
    }
    if (!set) out.ranges.push_back({s->name, wide});
  }
  return out;
}

constexpr uint64_t kScaledTotalRlimit = 10'000'000;
double Volume(const SubBox& b) {
  double v = 1;
  for (const auto& [name, r] : b.ranges) v *= static_cast<double>(r.size());
  return v;
}
void RunScaledCase(benchmark::State& state, const std::string& path) {
  absl::StatusOr<sw::Problem> problem = sw::LoadProblemFile(path);
  if (!problem.ok() || !problem->spec.has_value()) {
    state.SkipWithError(problem.ok() ? "not a spec" : std::string(problem.status().message()).c_str());
    return;
  }
  const sw::SpecSweep box = Scaled(*problem);
  SwizzleProveOptions options;
  options.keep_query_log = false;
  // A deterministic budget in place of a wall clock, so that a proof out of reach ends
  // with its coverage (proven / enumerated / open sub-boxes) instead of being killed.
  options.total_rlimit = kScaledTotalRlimit;
  absl::StatusOr<SwizzleProof> proof = absl::InternalError("not run");
  for (auto _ : state) proof = ProveSpec(*problem->spec, box, options);
  if (!proof.ok()) {
    state.counters["verdict"] = 3;
    state.SetLabel(std::string(proof.status().message()).substr(0, 160));
    return;
  }
  std::vector<std::string> ranges;
  for (const auto& [name, r] : box.ranges) ranges.push_back(absl::StrCat(name, "=", r.ToString()));
  state.counters["verdict"] = static_cast<double>(proof->verdict);
  state.counters["decided"] = proof->verdict != Verdict::kInconclusive;
  state.counters["configs"] = static_cast<double>(proof->configs);
  state.counters["queries"] = static_cast<double>(proof->num_queries);
  state.counters["solver_ms"] = proof->solver_ms;
  state.counters["coverage"] = static_cast<double>(proof->coverage.size());
  // The engine share: the fraction of the box's parameter points in proven, enumerated
  // and open sub-boxes (the whole box is proven when the coverage list is empty).
  double share[3] = {proof->coverage.empty() && proof->verdict == Verdict::kHolds ? 1.0 : 0.0,
                     0, 0};
  double total = 0;
  for (const SubBox& b : proof->coverage) total += Volume(b);
  for (const SubBox& b : proof->coverage) share[static_cast<int>(b.how)] += Volume(b) / total;
  state.counters["proven"] = share[0];
  state.counters["enumerated"] = share[1];
  state.counters["open"] = share[2];
  state.SetLabel(absl::StrCat(absl::StrJoin(ranges, ","), ": ", proof->ToString()).substr(0, 600));
}

// One benchmark per corpus problem file and engine, registered before main runs.
int RegisterCorpus() {
  const std::filesystem::path dir =
      std::filesystem::path(WARPCHECK_SOURCE_DIR) / "corpus" / "swizzle";
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".textproto") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    const std::string stem = std::filesystem::path(f).stem().string();
    for (sw::Engine engine : {sw::Engine::kSymbolic, sw::Engine::kEnumerated}) {
      const char* name = engine == sw::Engine::kSymbolic ? "symbolic" : "enumerated";
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Corpus/", stem, "/", name).c_str(),
          [f, engine](benchmark::State& state) { RunCorpusCase(state, f, engine); })
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    }
  }
  for (const std::string& f : files) {
    absl::StatusOr<sw::Problem> p = sw::LoadProblemFile(f);
    if (!p.ok() || !p->spec.has_value()) continue;
    const std::string stem = std::filesystem::path(f).stem().string();
    benchmark::RegisterBenchmark(absl::StrCat("BM_CorpusScaled/", stem, "/symbolic").c_str(),
                                 [f](benchmark::State& state) { RunScaledCase(state, f); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
  return static_cast<int>(files.size());
}

const int kCorpusFiles = RegisterCorpus();

}  // namespace
}  // namespace warpcheck::verify
