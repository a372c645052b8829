// verify/fuzz: the pair generator, shrinking, the pipeline check and the campaign.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/file.h"
#include "sim/base/bits.h"
#include "sim/machine/launch.h"
#include "sim/machine/program.h"
#include "sim/plan/planner.h"
#include "sim/ptx/codegen.h"
#include "verify/fuzz/campaign.h"
#include "verify/fuzz/conversion_check.h"
#include "verify/fuzz/pair_gen.h"

namespace warpcheck::verify::fuzz {
namespace {

constexpr char kBlockedRows[] =
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>";
constexpr char kBlockedCols[] =
    "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>";

FuzzPair Transpose() {
  return *PairFromText(kBlockedRows, kBlockedCols, {64, 64}, "f16", 4);
}

TEST(GeneratePair, IsAFunctionOfSeedAndIndex) {
  for (int64_t i = 0; i < 200; ++i) {
    EXPECT_EQ(GeneratePair(7, i).CommandLine(), GeneratePair(7, i).CommandLine());
  }
  int differ = 0;
  for (int64_t i = 0; i < 50; ++i) {
    differ += GeneratePair(7, i).CommandLine() != GeneratePair(8, i).CommandLine();
  }
  EXPECT_GE(differ, 45);
}

// The generator's contract: power-of-two shapes of at most 2^14 elements, 1-16 warps,
// every strategy used, and most pairs inside the planner's scope (what is not is
// counted by the campaign, but a generator that mostly misses tests nothing).
TEST(GeneratePair, MostlyInScopeAndCoversEveryStrategy) {
  std::map<std::string, int> used, in_scope;
  std::set<int> ranks, warps;
  const int n = 1500;
  for (int64_t i = 0; i < n; ++i) {
    FuzzPair p = GeneratePair(1, i);
    int64_t elements = 1;
    for (int64_t s : p.shape) {
      ASSERT_TRUE(sim::base::IsPowerOf2(s)) << p.CommandLine();
      elements *= s;
    }
    ASSERT_LE(elements, 1 << 14) << p.CommandLine();
    ranks.insert(static_cast<int>(p.shape.size()));
    warps.insert(p.num_warps);
    ++used[p.strategy];
    auto problem = p.Problem();
    if (problem.ok()) {
      ++in_scope[p.strategy];
      EXPECT_EQ(problem->num_warps, p.num_warps) << p.CommandLine();
    }
  }
  EXPECT_EQ(used.size(), GeneratorStrategies().size());
  EXPECT_EQ(ranks, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(warps, (std::set<int>{1, 2, 4, 8, 16}));
  int total = 0;
  for (const auto& [s, k] : in_scope) {
    EXPECT_GE(k * 10, used[s] * 7) << s << ": " << k << " of " << used[s] << " in scope";
    total += k;
  }
  EXPECT_GE(total * 10, n * 8);
}

TEST(ShrinkSteps, EveryStepIsStrictlySmaller) {
  for (int64_t i = 0; i < 400; ++i) {
    FuzzPair p = GeneratePair(3, i);
    for (const FuzzPair& q : ShrinkSteps(p)) {
      EXPECT_LT(Complexity(q), Complexity(p)) << p.CommandLine() << "\n -> " << q.CommandLine();
    }
  }
}

// A planted failure ("fails" while there are >= 2 warps, a dimension of >= 8 and 16-bit
// data) shrinks to its local minimum: exactly 2 warps, that dimension 8, the other 1,
// both sides the default blocked layout.
TEST(Shrink, ReachesTheMinimalPairOfAPlantedFailure) {
  auto fails = [](const FuzzPair& q) {
    if (!q.Problem().ok()) return false;
    const int64_t big = *std::max_element(q.shape.begin(), q.shape.end());
    return q.num_warps >= 2 && big >= 8 && sim::plan::DTypeBits(q.dtype) == 16;
  };
  FuzzPair p = *PairFromText(kBlockedRows, kBlockedCols, {64, 64}, "bf16", 4);
  ASSERT_TRUE(fails(p));
  ShrinkResult r = Shrink(p, fails, 1000);
  EXPECT_FALSE(r.bounded);
  EXPECT_EQ(r.pair.num_warps, 2);
  std::vector<int64_t> shape = r.pair.shape;
  std::sort(shape.begin(), shape.end());
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(r.pair.SrcText(), r.pair.DstText()) << r.pair.CommandLine();
  EXPECT_TRUE(fails(r.pair));
  for (const FuzzPair& q : ShrinkSteps(r.pair)) EXPECT_FALSE(fails(q)) << q.CommandLine();
}

TEST(Shrink, StopsAtTheCheckBound) {
  int calls = 0;
  ShrinkResult r = Shrink(Transpose(), [&](const FuzzPair&) { return ++calls, false; }, 2);
  EXPECT_TRUE(r.bounded);
  EXPECT_EQ(r.checks, 2);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(r.steps, 0);
}

TEST(CheckPair, ARealTransposeHoldsEverywhere) {
  PairOutcome o = CheckPair(Transpose(), CheckOptions{});
  EXPECT_EQ(o.verdict, PairVerdict::kOk) << o.stage << ": " << o.detail;
  EXPECT_TRUE(o.proved);
}

// CheckPair's stage times: the stages it ran took time, the proof (not run) none.
TEST(CheckPair, TimesTheStagesItRuns) {
  CheckOptions options;
  options.prove_ptx = false;
  PairOutcome o = CheckPair(Transpose(), options);
  ASSERT_EQ(o.verdict, PairVerdict::kOk) << o.stage << ": " << o.detail;
  EXPECT_GT(o.seconds.problem, 0);
  EXPECT_GT(o.seconds.plan, 0);
  EXPECT_GT(o.seconds.emit, 0);
  EXPECT_GT(o.seconds.simulate, 0);
  EXPECT_EQ(o.seconds.prove, 0);
  options.prove_ptx = true;
  o = CheckPair(Transpose(), options);
  ASSERT_EQ(o.verdict, PairVerdict::kOk) << o.stage << ": " << o.detail;
  EXPECT_GT(o.seconds.prove, 0);
}

TEST(CheckPair, ASharedEncodingIsOutOfScope) {
  auto p = PairFromText("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
                        kBlockedCols, {64, 64}, "f16", 4);
  ASSERT_TRUE(p.ok()) << p.status();
  PairOutcome o = CheckPair(*p, CheckOptions{});
  EXPECT_EQ(o.verdict, PairVerdict::kOutOfScope);
  EXPECT_EQ(o.stage, "problem");
  EXPECT_NE(o.detail.find("shared-memory encoding"), std::string::npos) << o.detail;
}

// The check fails a wrong program: the forward conversion with two destination words
// swapped is caught by the check harness's `mid` (the forward conversion alone, as the
// once harness runs it) on both fills and by the proof, and FirstFailure names the step.
// The round trip looped twice applies the swap twice and gets `out` right: an involution
// is invisible to it, which is why the check stores `mid` too. Looped once (the random
// fill), the round trip is wrong as well.
TEST(CheckConversion, CatchesAWrongProgram) {
  auto problem = Transpose().Problem();
  ASSERT_TRUE(problem.ok());
  auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
  ASSERT_TRUE(trip.ok());
  ASSERT_GE(trip->forward.program.outputs.size(), 2u);
  std::swap(trip->forward.program.outputs[0], trip->forward.program.outputs[1]);
  bool inconclusive = false;
  ConvertCheckReport r = CheckConversion(*problem, *trip, sim::plan::ToProto(*problem, trip->forward),
                                         CheckOptions{}, &inconclusive);
  EXPECT_FALSE(r.ok());
  const ConvertCheckReport::Run* first = FirstFailure(r);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->fill(), "check/random");
  EXPECT_EQ(r.proof(), "violated");
  std::set<std::string> seen;
  for (const auto& run : r.runs()) {
    seen.insert(run.fill());
    if (run.fill() == "check/random") {
      EXPECT_TRUE(absl::StrContains(run.detail(), "buffers_equal(in, mid)")) << run.detail();
      EXPECT_TRUE(absl::StrContains(run.detail(), "buffers_equal(in, out)")) << run.detail();
    }
    if (run.fill() == "check/iota") {
      EXPECT_TRUE(absl::StrContains(run.detail(), "buffers_equal(in, mid)")) << run.detail();
      EXPECT_FALSE(absl::StrContains(run.detail(), "buffers_equal(in, out)")) << run.detail();
    }
    if (run.fill() == "check/proof") EXPECT_FALSE(run.ok());
  }
  EXPECT_EQ(seen, (std::set<std::string>{"check/random", "check/iota", "check/proof"}));
}

// Without the round trip (`fuzz layouts --one-way`) the check is the once harness's: the
// same wrong forward program fails its random run first, its tags' run and its proof.
TEST(CheckConversion, OneWayCatchesAWrongProgram) {
  auto problem = Transpose().Problem();
  ASSERT_TRUE(problem.ok());
  auto forward = sim::plan::PlanConversion(*problem, sim::plan::PlanOptions{});
  ASSERT_TRUE(forward.ok());
  const sim::ptx::RoundTrip good{*forward, {}};
  CheckOptions options;
  options.roundtrip = false;
  bool inconclusive = false;
  const Plan plan = sim::plan::ToProto(*problem, good.forward);
  ConvertCheckReport ok = CheckConversion(*problem, good, plan, options, &inconclusive);
  EXPECT_TRUE(ok.ok()) << (FirstFailure(ok) ? FirstFailure(ok)->detail() : "");
  std::set<std::string> ran;
  for (const auto& run : ok.runs()) ran.insert(run.fill());
  EXPECT_EQ(ran, (std::set<std::string>{"once/random", "once/iota", "once/proof"}));
  sim::ptx::RoundTrip bad = good;
  ASSERT_GE(bad.forward.program.outputs.size(), 2u);
  std::swap(bad.forward.program.outputs[0], bad.forward.program.outputs[1]);
  ConvertCheckReport r = CheckConversion(*problem, bad, plan, options, &inconclusive);
  EXPECT_FALSE(r.ok());
  ASSERT_NE(FirstFailure(r), nullptr);
  EXPECT_EQ(FirstFailure(r)->fill(), "once/random");
  for (const auto& run : r.runs()) EXPECT_FALSE(run.ok()) << run.fill();
  EXPECT_EQ(r.proof(), "violated");
}

// --prove=plan proves the round trip, not only each direction (verify/plan
// ProveRoundTrip): both directions moved into one shared buffer without a barrier between
// the forward loads and the backward stores still hold one by one, but the loop body
// races; "roundtrip/plan-proof" refutes it (roundtrip.buffers).
TEST(CheckConversion, ProvePlansCatchesARoundTripThatRacesOnOneBuffer) {
  auto pair = PairFromText(kBlockedRows, kBlockedCols, {64, 64}, "i32", 4);
  ASSERT_TRUE(pair.ok()) << pair.status();
  auto problem = pair->Problem();
  ASSERT_TRUE(problem.ok());
  auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
  ASSERT_TRUE(trip.ok());
  ASSERT_GT(trip->backward.program.smem_bytes, 0);
  ASSERT_NE(trip->backward.program.ops[0].kind, sim::plan::OpKind::kBarSync);
  CheckOptions options;
  options.prove_ptx = false;
  options.prove_plans = true;
  bool inconclusive = false;
  const Plan plan = sim::plan::ToProto(*problem, trip->forward);
  ConvertCheckReport good =
      CheckConversion(*problem, *trip, plan, options, &inconclusive);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.plan_proof(), "holds");
  for (auto& v : trip->backward.program.setup) v.buffer = 0;
  ConvertCheckReport r = CheckConversion(*problem, *trip, plan, options, &inconclusive);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.plan_proof(), "violated");
  int seen = 0;
  for (const auto& run : r.runs()) {
    if (run.fill() == "forward/plan-proof" || run.fill() == "backward/plan-proof") {
      EXPECT_TRUE(run.ok()) << run.fill() << ": " << run.detail();
      ++seen;
    }
    if (run.fill() == "roundtrip/plan-proof") {
      EXPECT_FALSE(run.ok());
      EXPECT_NE(run.detail().find("roundtrip.buffers violated"), std::string::npos)
          << run.detail();
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3);
}

// The simulator runs look for shared-memory races on one fill when the distinct tags are
// distinct, on both when they repeat (CheckConversion): the round trip of
// ProvePlansCatchesARoundTripThatRacesOnOneBuffer, both directions in buffer 0, races
// in the loop body. i32 (4 096 distinct tags): found on the tags' run only, and on the
// random run once that is the only fill; i8 (tags repeat mod 256): found on both.
TEST(CheckConversion, LooksForRacesOnTheDistinctTagsRun) {
  auto check = [](const char* dtype, bool iota) {
    auto pair = PairFromText(kBlockedRows, kBlockedCols, {64, 64}, dtype, 4);
    EXPECT_TRUE(pair.ok()) << pair.status();
    auto problem = pair->Problem();
    EXPECT_TRUE(problem.ok()) << problem.status();
    auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
    EXPECT_TRUE(trip.ok()) << trip.status();
    EXPECT_GT(trip->backward.program.smem_bytes, 0) << dtype;
    EXPECT_NE(trip->backward.program.ops[0].kind, sim::plan::OpKind::kBarSync) << dtype;
    for (auto& v : trip->backward.program.setup) v.buffer = 0;
    CheckOptions options;
    options.prove_ptx = false;
    options.iota = iota;
    bool inconclusive = false;
    ConvertCheckReport r = CheckConversion(
        *problem, *trip, sim::plan::ToProto(*problem, trip->forward), options, &inconclusive);
    EXPECT_FALSE(r.ok()) << dtype;
    std::set<std::string> raced;
    for (const auto& run : r.runs()) {
      if (absl::StrContains(run.detail(), "shared_race")) raced.insert(run.fill());
    }
    return raced;
  };
  EXPECT_EQ(check("i32", true), (std::set<std::string>{"check/iota"}));
  EXPECT_EQ(check("i32", false), (std::set<std::string>{"check/random"}));
  EXPECT_EQ(check("i8", true), (std::set<std::string>{"check/random", "check/iota"}));
}

// The check harness measured below its loop (CheckLoopPc) costs exactly the shared-memory
// requests the once harness costs: the same forward conversion from the same loaded words,
// and nothing else before the loop touches shared memory. On the campaign's first pairs
// (every strategy, every planner), each of the six figures agrees; the whole check kernel
// costs more wherever the round trip uses shared memory (so the bound is what keeps the
// figures the forward conversion's). Both kernels hold on random data.
TEST(CheckHarness, MeasuredBelowItsLoopIsTheOnceHarness) {
  const char* kFigures[] = {"smem_requests.store",  "smem_requests.load",
                            "smem_wavefronts.store", "smem_wavefronts.load",
                            "bank_conflicts.store",  "bank_conflicts.load"};
  auto counters = [](const sim::plan::ConversionProblem& problem, const sim::ptx::Module& m,
                     sim::ptx::Harness h, uint32_t below_pc) {
    auto program = sim::machine::Decode(m, m.kernels[0]);
    EXPECT_TRUE(program.ok()) << program.status();
    sim::machine::RunOptions ro;
    ro.count_banks_below_pc = below_pc;
    auto run = sim::machine::RunLaunchSpecOnProgram(
        sim::ptx::HarnessLaunchSpec(problem, "<emitted>", BufferParam::RANDOM, 3, 1, h),
        *program, ".", ro);
    EXPECT_TRUE(run.ok()) << run.status();
    EXPECT_TRUE(run->report.ok()) << FailureText(run->report);
    return run->report.counters();
  };
  int checked = 0, smem = 0, more = 0;
  for (int64_t i = 0; i < 120; ++i) {
    auto problem = GeneratePair(1, i).Problem();
    if (!problem.ok()) continue;
    auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
    if (!trip.ok()) continue;
    using sim::ptx::Harness;
    const sim::ptx::Module once =
        sim::ptx::EmitHarnessModule(*problem, trip->forward, &trip->backward, Harness::kOnce);
    const sim::ptx::Module check =
        sim::ptx::EmitHarnessModule(*problem, trip->forward, &trip->backward, Harness::kCheck);
    EXPECT_FALSE(sim::ptx::CheckLoopPc(once.kernels[0]).has_value());
    const std::optional<uint32_t> loop = sim::ptx::CheckLoopPc(check.kernels[0]);
    ASSERT_TRUE(loop.has_value()) << i;
    const auto a = counters(*problem, once, Harness::kOnce, UINT32_MAX);
    const auto b = counters(*problem, check, Harness::kCheck, *loop);
    const auto whole = counters(*problem, check, Harness::kCheck, UINT32_MAX);
    for (const char* f : kFigures) EXPECT_EQ(a.at(f), b.at(f)) << "pair " << i << " " << f;
    smem += a.at("smem_requests.store") > 0;
    more += whole.at("smem_requests.store") + whole.at("smem_requests.load") >
            b.at("smem_requests.store") + b.at("smem_requests.load");
    ++checked;
  }
  EXPECT_GE(checked, 100);
  EXPECT_GE(smem, 30);
  EXPECT_GE(more, 30);
}

// Triton's own round-trip kernel for a corpus pair (corpus/triton, line 1 of the jsonl):
// run and proven right; without its barriers the run fails (a race, or wrong data).
TEST(CheckTritonKernel, TritonsKernelHoldsAndADroppedBarrierFails) {
  auto pair = PairFromText(
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], "
      "order = [0, 1]}>",
      "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>",
      {64, 64}, "f16", 4);
  ASSERT_TRUE(pair.ok()) << pair.status();
  auto ptx = sim::base::ReadFile(std::string(WARPCHECK_SOURCE_DIR) +
                                 "/corpus/triton/cvt2d_l0001_64x64_f16_w4.ptx");
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  PairOutcome o = CheckTritonKernel(*pair, *ptx, "l0001.ptx", 2048, CheckOptions{});
  EXPECT_EQ(o.verdict, PairVerdict::kOk) << o.stage << ": " << o.detail;
  EXPECT_TRUE(o.proved);

  std::string no_barriers;
  for (absl::string_view line : absl::StrSplit(*ptx, '\n')) {
    if (!absl::StrContains(line, "bar.sync")) absl::StrAppend(&no_barriers, line, "\n");
  }
  o = CheckTritonKernel(*pair, no_barriers, "l0001-nobar.ptx", 2048, CheckOptions{});
  EXPECT_EQ(o.verdict, PairVerdict::kFailed);
  EXPECT_EQ(o.stage, "triton/random") << o.detail;
}

TEST(RunCampaign, ShardsPartitionTheCampaignAndCountEveryPair) {
  CampaignOptions o;
  o.seed = 11;
  o.count = 12;
  o.seconds = 0;
  o.prove_share = 0;
  std::set<int64_t> seen;
  for (int i = 0; i < 3; ++i) {
    o.shard_index = i;
    o.shard_count = 3;
    o.on_pair = [&](int64_t index, const FuzzPair& p) {
      seen.insert(index);
      EXPECT_EQ(p.CommandLine(), GeneratePair(11, index).CommandLine());
    };
    CampaignResult r = RunCampaign(o);
    EXPECT_EQ(r.pairs, 12);
    EXPECT_EQ(r.ok + r.out_of_scope + r.inconclusive + r.failed, r.pairs);
    EXPECT_EQ(r.proved, 0);
    int64_t by_strategy = 0;
    for (const auto& [s, c] : r.by_strategy) by_strategy += c.pairs;
    EXPECT_EQ(by_strategy, 12);
    EXPECT_TRUE(r.failures.empty()) << r.failures[0].outcome.stage << ": "
                                    << r.failures[0].outcome.detail << "\n"
                                    << r.failures[0].minimal.CommandLine();
  }
  EXPECT_EQ(seen.size(), 36u);
  EXPECT_EQ(*seen.rbegin(), 35);
}

TEST(ProvenIndex, SampleShareIsRoughlyTheShareAndDeterministic) {
  int proven = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    proven += ProvenIndex(5, i, 0.25);
    EXPECT_EQ(ProvenIndex(5, i, 0.25), ProvenIndex(5, i, 0.25));
    EXPECT_TRUE(ProvenIndex(5, i, 1));
    EXPECT_FALSE(ProvenIndex(5, i, 0));
  }
  EXPECT_NEAR(proven, 1000, 120);
}

}  // namespace
}  // namespace warpcheck::verify::fuzz
