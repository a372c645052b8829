// Plan proofs (verify/plan/plan_prove.h): how long ProvePlan takes per pair, and how many
// of Triton's test pairs it proves.
//
// The pairs are the rows of corpus/plan/triton_costs.tsv (Triton's own test pairs,
// shared/data/convert-layout-pairs.jsonl, 1 558 of them); each is planned with the
// default options (`convert plan`'s cheapest strategy) and the plan proven.
//
//   BM_ProvePlanSample   iteration i takes row 16·i mod 1558 (one plan + proof each)
//   BM_ProvePlanAllPairs every pair once (Iterations(1)); counters: pairs, in_scope
//                        (MakeProblem and PlanConversion accept it), proven, violated,
//                        inconclusive, errors, median_ms, max_ms (per pair: plan + proof)
//   BM_ProveRoundTripAllPairs  every pair once: sim/ptx PlanRoundTrip (what `convert emit
//                        --harness=roundtrip` runs) and ProveRoundTrip; counters: pairs,
//                        in_scope (PlanRoundTrip accepts it), forward_proven,
//                        backward_proven, proven (both directions and the composition
//                        hold), violated, inconclusive, errors, median_ms, max_ms
//
// Counters median_ms / max_ms are over the pairs of the run (wall clock per pair).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "sim/base/tsv.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "verify/plan/plan_prove.h"
#include "verify/plan/round_trip_prove.h"

namespace warpcheck::verify::plan {
namespace {

struct Row {
  int line = 0;
  std::string src, dst, dtype;
  std::vector<int64_t> shape;
  int warps = 0;
};

const std::vector<Row>& Rows() {
  static const auto* rows = [] {
    auto* out = new std::vector<Row>;
    auto t = sim::base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) +
                                    "/corpus/plan/triton_costs.tsv");
    if (!t.ok()) return out;
    for (const auto& c : t->rows) {
      Row r;
      (void)absl::SimpleAtoi(t->Cell(c, "line"), &r.line);
      r.src = t->Cell(c, "src");
      r.dst = t->Cell(c, "dst");
      r.dtype = t->Cell(c, "dtype");
      for (absl::string_view s : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
        int64_t v = 0;
        (void)absl::SimpleAtoi(s, &v);
        r.shape.push_back(v);
      }
      (void)absl::SimpleAtoi(t->Cell(c, "num_warps"), &r.warps);
      out->push_back(r);
    }
    return out;
  }();
  return *rows;
}

enum class Outcome { kOutOfScope, kHolds, kViolated, kInconclusive, kError };

Outcome ProveRow(const Row& r) {
  auto dtype = sim::plan::ParseDType(r.dtype);
  if (!dtype.ok()) return Outcome::kOutOfScope;
  auto problem = sim::plan::MakeProblem(r.src, r.dst, r.shape, *dtype, r.warps);
  if (!problem.ok()) return Outcome::kOutOfScope;
  auto plan = sim::plan::PlanConversion(*problem, sim::plan::PlanOptions{});
  if (!plan.ok()) return Outcome::kOutOfScope;
  auto proof = ProvePlan(*problem, *plan, PlanProveOptions{});
  if (!proof.ok()) {
    std::fprintf(stderr, "line %d: %s\n", r.line, std::string(proof.status().message()).c_str());
    return Outcome::kError;
  }
  switch (proof->verdict) {
    case Verdict::kHolds: return Outcome::kHolds;
    case Verdict::kViolated:
      std::fprintf(stderr, "line %d: violated: %s\n", r.line,
                   proof->counterexample ? proof->counterexample->text.c_str() : "");
      return Outcome::kViolated;
    case Verdict::kInconclusive:
      std::fprintf(stderr, "line %d: inconclusive: %s\n", r.line, proof->reason.c_str());
      return Outcome::kInconclusive;
  }
  return Outcome::kError;
}

void Report(benchmark::State& state, std::vector<double> ms, const int counts[5]) {
  std::sort(ms.begin(), ms.end());
  state.counters["median_ms"] = ms.empty() ? 0 : ms[ms.size() / 2];
  state.counters["max_ms"] = ms.empty() ? 0 : ms.back();
  state.counters["pairs"] = static_cast<double>(ms.size());
  state.counters["in_scope"] = ms.size() - counts[0];
  state.counters["proven"] = counts[1];
  state.counters["violated"] = counts[2];
  state.counters["inconclusive"] = counts[3];
  state.counters["errors"] = counts[4];
}

double TimeRow(const Row& r, int counts[5]) {
  const auto t0 = std::chrono::steady_clock::now();
  ++counts[static_cast<int>(ProveRow(r))];
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

void BM_ProvePlanSample(benchmark::State& state) {
  const auto& rows = Rows();
  std::vector<double> ms;
  int counts[5] = {};
  size_t i = 0;
  for (auto _ : state) {
    ms.push_back(TimeRow(rows[i % rows.size()], counts));
    i += 16;
  }
  Report(state, ms, counts);
}
BENCHMARK(BM_ProvePlanSample)->Unit(benchmark::kMillisecond);

void BM_ProvePlanAllPairs(benchmark::State& state) {
  std::vector<double> ms;
  int counts[5] = {};
  for (auto _ : state) {
    for (const Row& r : Rows()) ms.push_back(TimeRow(r, counts));
  }
  Report(state, ms, counts);
}
BENCHMARK(BM_ProvePlanAllPairs)->Iterations(1)->Unit(benchmark::kMillisecond);

struct TripCounts {
  int out_of_scope = 0, forward = 0, backward = 0, proven = 0, violated = 0,
      inconclusive = 0, errors = 0;
};

void ProveTrip(const Row& r, TripCounts& n) {
  auto dtype = sim::plan::ParseDType(r.dtype);
  if (!dtype.ok()) return void(++n.out_of_scope);
  auto problem = sim::plan::MakeProblem(r.src, r.dst, r.shape, *dtype, r.warps);
  if (!problem.ok()) return void(++n.out_of_scope);
  auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
  if (!trip.ok()) return void(++n.out_of_scope);
  auto proof = ProveRoundTrip(*problem, trip->forward, trip->backward, PlanProveOptions{});
  if (!proof.ok()) {
    std::fprintf(stderr, "line %d: round trip: %s\n", r.line,
                 std::string(proof.status().message()).c_str());
    return void(++n.errors);
  }
  n.forward += proof->forward.verdict == Verdict::kHolds;
  n.backward += proof->backward.verdict == Verdict::kHolds;
  switch (proof->verdict) {
    case Verdict::kHolds: ++n.proven; break;
    case Verdict::kViolated: ++n.violated; break;
    case Verdict::kInconclusive: ++n.inconclusive; break;
  }
  if (proof->verdict != Verdict::kHolds) {
    std::fprintf(stderr, "line %d: round trip %s: %s\n", r.line,
                 VerdictName(proof->verdict).c_str(), proof->reason.c_str());
  }
}

void BM_ProveRoundTripAllPairs(benchmark::State& state) {
  std::vector<double> ms;
  TripCounts n;
  for (auto _ : state) {
    for (const Row& r : Rows()) {
      const auto t0 = std::chrono::steady_clock::now();
      ProveTrip(r, n);
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  state.counters["median_ms"] = ms.empty() ? 0 : ms[ms.size() / 2];
  state.counters["max_ms"] = ms.empty() ? 0 : ms.back();
  state.counters["pairs"] = static_cast<double>(ms.size());
  state.counters["in_scope"] = ms.size() - n.out_of_scope;
  state.counters["forward_proven"] = n.forward;
  state.counters["backward_proven"] = n.backward;
  state.counters["proven"] = n.proven;
  state.counters["violated"] = n.violated;
  state.counters["inconclusive"] = n.inconclusive;
  state.counters["errors"] = n.errors;
}
BENCHMARK(BM_ProveRoundTripAllPairs)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace warpcheck::verify::plan
