// The planner's laws, checked by running what it emits on the simulator:
//
//   * every plan it returns converts every element: the `once` harness (convert, store in
//     the destination layout) and the round-trip harness give back the input bit for
//     bit, on random data and on distinct tags, for every strategy that accepts the pair;
//   * the cost model's shared-memory wavefronts and bank conflicts are exactly what the
//     simulator counts for the emitted code;
//   * the bank search never makes a plan worse than the unswizzled base order;
//   * inputs outside the planner's scope are InvalidArgument with the reason.
//
// The pairs are a deterministic sample of Triton's own test pairs
// (corpus/plan/triton_costs.tsv, from shared/data/convert-layout-pairs.jsonl).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/machine/launch.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/matrix.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/plan/program.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"
#include "tests/testing/sanitized.h"

namespace warpcheck::sim::plan {
namespace {

struct Pair {
  int line;
  std::string src, dst;
  std::vector<int64_t> shape;
  std::string dtype;
  int warps;
};

std::vector<Pair> SamplePairs(int every) {
  auto t = base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) + "/corpus/plan/triton_costs.tsv");
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<Pair> out;
  if (!t.ok()) return out;
  int row = 0;
  for (const auto& c : t->rows) {
    if (t->Cell(c, "status") != "ok" || (row++ % every) != 0) continue;
    Pair p;
    (void)absl::SimpleAtoi(t->Cell(c, "line"), &p.line);
    p.src = t->Cell(c, "src");
    p.dst = t->Cell(c, "dst");
    for (absl::string_view s : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
      int64_t v = 0;
      (void)absl::SimpleAtoi(s, &v);
      p.shape.push_back(v);
    }
    p.dtype = t->Cell(c, "dtype");
    (void)absl::SimpleAtoi(t->Cell(c, "num_warps"), &p.warps);
    out.push_back(p);
  }
  return out;
}

// The pair's problem (a dtype the corpus should not have is a test failure; a pair
// outside the planner's scope is the error MakeProblem gives).
absl::StatusOr<ConversionProblem> ProblemOf(const Pair& pair) {
  auto dtype = ParseDType(pair.dtype);
  EXPECT_TRUE(dtype.ok()) << "line " << pair.line << ": " << dtype.status();
  if (!dtype.ok()) return dtype.status();
  return MakeProblem(pair.src, pair.dst, pair.shape, *dtype, pair.warps);
}

// Runs a harness; "" when every run is ok, else what failed.
std::string RunHarness(const ConversionProblem& problem, const std::string& ptx, uint32_t iters,
                std::map<std::string, uint64_t>* counters = nullptr) {
  auto module = ptx::ParseModule(ptx, "<emitted>");
  if (!module.ok()) return std::string(module.status().message());
  for (auto fill : {BufferParam::RANDOM, BufferParam::IOTA}) {
    LaunchSpec spec = ptx::HarnessLaunchSpec(problem, "<emitted>", fill, 7, iters);
    auto run = machine::RunLaunchSpecOnModule(spec, *module, ".", machine::RunOptions{});
    if (!run.ok()) return std::string(run.status().message());
    if (!run->report.ok()) {
      std::string why = run->report.DebugString();
      return why.substr(0, 600);
    }
    if (counters && fill == BufferParam::RANDOM) {
      counters->clear();
      for (const auto& [k, v] : run->report.counters()) (*counters)[k] = v;
    }
  }
  return "";
}

TEST(PlannerTest, EveryStrategyConvertsEveryElementAndTheCostModelCountsWhatRuns) {
  int planned = 0, out_of_scope = 0;
  std::map<Strategy, int> by_strategy;
  for (const Pair& pair : SamplePairs(11)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) {
      ++out_of_scope;
      EXPECT_EQ(problem.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    for (Strategy s : {Strategy::kAuto, Strategy::kRegisters, Strategy::kShuffle,
                       Strategy::kSmem}) {
      PlanOptions o;
      o.strategy = s;
      auto plan = PlanConversion(*problem, o);
      if (!plan.ok()) {
        EXPECT_NE(s, Strategy::kAuto) << "line " << pair.line << ": " << plan.status();
        EXPECT_NE(s, Strategy::kSmem) << "line " << pair.line << ": " << plan.status();
        continue;
      }
      ++planned;
      ++by_strategy[plan->strategy];
      std::map<std::string, uint64_t> c;
      std::string why =
          RunHarness(*problem, ptx::EmitHarness(*problem, *plan, nullptr, ptx::Harness::kOnce), 1, &c);
      EXPECT_EQ(why, "") << "line " << pair.line << " strategy " << StrategyName(s);
      if (!why.empty()) continue;
      EXPECT_EQ(c["smem_wavefronts.store"], plan->cost.wavefronts_store) << "line " << pair.line;
      EXPECT_EQ(c["smem_wavefronts.load"], plan->cost.wavefronts_load) << "line " << pair.line;
      EXPECT_EQ(c["bank_conflicts.store"], plan->cost.conflicts_store) << "line " << pair.line;
      EXPECT_EQ(c["bank_conflicts.load"], plan->cost.conflicts_load) << "line " << pair.line;
      EXPECT_EQ(c["shfl"], static_cast<uint64_t>(plan->cost.shfl)) << "line " << pair.line;
      auto trip = ptx::PlanRoundTrip(*problem, o);
      // A forced strategy may fit one direction only (shuffles need both directions to
      // pack alike); auto and smem always have a round trip.
      if (!trip.ok() && s != Strategy::kAuto && s != Strategy::kSmem) continue;
      ASSERT_TRUE(trip.ok()) << "line " << pair.line << ": " << trip.status();
      EXPECT_EQ(RunHarness(*problem,
                    ptx::EmitHarness(*problem, trip->forward, &trip->backward,
                                     ptx::Harness::kRoundTrip),
                    3),
                "")
          << "line " << pair.line << " strategy " << StrategyName(s) << " round trip";
    }
  }
  // The sample exercises every mechanism.
  EXPECT_GT(planned, 200);
  EXPECT_GT(by_strategy[Strategy::kRegisters], 5);
  EXPECT_GT(by_strategy[Strategy::kShuffle], 5);
  EXPECT_GT(by_strategy[Strategy::kSmem], 50);
  EXPECT_LT(out_of_scope, 20);
}

// The harness header and its global accesses, as the H200 needs them
// (corpus/plan/README.md, "What made v6's slow pairs slow"): a `.maxnreg` that still lets
// the CTA launch (255 was too many for 16 warps: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), and
// The candidate lines (`convert plan`'s "candidates:") are written from the figures the
// search kept, only when asked: one line per candidate, naming its strategy and view and
// the instructions and time of the cost model (or, for one skipped for its bound, "not
// priced" and the bound), the chosen plan's among them; ToProto carries the same lines.
TEST(PlannerTest, CandidateLinesNameEveryPricedCandidate) {
  int checked = 0;
  for (const Pair& pair : SamplePairs(37)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) continue;
    auto plan = PlanConversion(*problem, PlanOptions{});
    ASSERT_TRUE(plan.ok()) << "line " << pair.line << ": " << plan.status();
    const std::vector<std::string> lines = CandidateLines(*plan);
    ASSERT_EQ(lines.size(), plan->candidates.size());
    ASSERT_FALSE(lines.empty());
    const warpcheck::Plan proto = ToProto(*problem, *plan);
    ASSERT_EQ(proto.candidates_size(), static_cast<int>(lines.size()));
    const std::string chosen = absl::StrFormat(
        ": %d warp instructions, %.1f ns", plan->cost.warp_instructions, plan->cost.ns);
    bool found = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(proto.candidates(static_cast<int>(i)), lines[i]);
      const std::string& name = StrategyName(plan->candidates[i].strategy);
      EXPECT_EQ(lines[i].rfind(name, 0), 0u) << lines[i];
      // 16-bit views are named (unpacked / packed<bit>), 32-bit ones are not.
      const bool named = problem->element_bits < 32;
      EXPECT_EQ(lines[i].substr(name.size(), 1) == "/", named) << lines[i];
      found = found || (plan->candidates[i].strategy == plan->strategy &&
                        lines[i].find(chosen) != std::string::npos);
    }
    EXPECT_TRUE(found) << "line " << pair.line << ": the chosen plan is not a candidate";
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// The two sides' vectors share the low offset bits, so where the layouts share no
// register direction one side's accesses are scalar. A 64x64 f16 transpose at 4 warps
// (rows of 8 in registers against columns of 8): unpacked, a thread holds 32 words; a
// side's v4 accesses make 8 of them, scalar ones 32. The bound is (8 + 32 + 1 barrier) x
// 4 warps = 164, which the plain search reaches, both ways; bounding each side on its own
// (both at v4: (8 + 8 + 1) x 4 = 68) left it 96 below, and the plain candidate was
// searched wherever another plan cost fewer than 164.
TEST(PlannerTest, SmemBoundCountsTheOffsetBitsBothVectorsShare) {
  auto problem = MakeProblem(
      "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>",
      "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
      "order = [0, 1]}>",
      {64, 64}, *ParseDType("f16"), 4);
  ASSERT_TRUE(problem.ok()) << problem.status();
  int checked = 0;
  for (const ConversionProblem& p : {*problem, problem->Reversed()}) {
    for (const auto& views : CandidateViews(p, PlanOptions{})) {
      if (views.first.pk() != 0 || views.second.pk() != 0) continue;
      PlanOptions plain;
      plain.strategy = Strategy::kSmem;
      plain.no_matrix = true;
      plain.views = views;
      auto plan = PlanConversion(p, plain);
      ASSERT_TRUE(plan.ok()) << plan.status();
      auto bound = SmemBound(p, views.first, views.second, PlanOptions{}, false);
      ASSERT_TRUE(bound.has_value());
      EXPECT_EQ(bound->warp_instructions, 164);
      EXPECT_EQ(plan->cost.warp_instructions, 164);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

// SmemBound and ShuffleBound are lower bounds: no plan of a shared-memory candidate
// (plain or matrix accesses, with or without a barrier before the stores) or of a
// shuffle candidate has fewer warp instructions, fewer wavefronts or a lower score than
// its bound. And skipping the candidates whose
// bound shows they cannot be chosen leaves every plan as pricing them all does, in one
// direction (PlanConversion over every word view) and in a round trip (PlanRoundTrip),
// while skipping some (else the bound would be useless); `price_all` also has the matrix
// planner search every side-kind candidate without stopping at its bound (SideBound),
// so a bound above some candidate's figures shows here as a changed plan.
TEST(PlannerTest, SmemBoundIsALowerBoundAndSkippingChangesNoPlan) {
  int bounded = 0, skipped = 0, pairs = 0;
  for (const Pair& pair : SamplePairs(7)) {
    auto problem = MakeProblem(pair.src, pair.dst, pair.shape, *ParseDType(pair.dtype),
                               pair.warps);
    if (!problem.ok()) continue;
    ++pairs;
    for (const bool before_store : {false, true}) {
      PlanOptions o;
      o.barrier_before_store = before_store;
      for (const auto& views : CandidateViews(*problem, o)) {
        auto check = [&](const Cost& cost, bool matrix) {
          auto b = SmemBound(*problem, views.first, views.second, o, matrix);
          ASSERT_TRUE(b.has_value() || matrix) << "line " << pair.line;
          if (!b) return;
          ++bounded;
          EXPECT_LE(b->warp_instructions, cost.warp_instructions) << "line " << pair.line;
          EXPECT_LE(b->wavefronts, cost.wavefronts_store + cost.wavefronts_load)
              << "line " << pair.line;
          EXPECT_LE(b->score, cost.score) << "line " << pair.line;
        };
        PlanOptions plain = o;
        plain.strategy = Strategy::kSmem;
        plain.no_matrix = true;
        plain.views = views;
        if (auto plan = PlanConversion(*problem, plain); plan.ok()) check(plan->cost, false);
        PlanOptions shuffle = o;
        shuffle.strategy = Strategy::kShuffle;
        shuffle.views = views;
        if (auto plan = PlanConversion(*problem, shuffle); plan.ok()) {
          auto b = ShuffleBound(*problem, views.first, views.second);
          ASSERT_TRUE(b.has_value()) << "line " << pair.line;
          ++bounded;
          EXPECT_LE(b->warp_instructions, plan->cost.warp_instructions) << "line " << pair.line;
          EXPECT_EQ(b->wavefronts, 0);
          EXPECT_LE(b->score, plan->cost.score) << "line " << pair.line;
        }
        SmemStage stage;
        if (auto m = PlanMatrixSmem(*problem, views.first, views.second, o, &stage); m.ok()) {
          Program prog = m->program;
          Simplify(prog);
          check(EstimateCost(*problem, prog, m->wavefronts_store, m->wavefronts_load,
                             m->min_store, m->min_load, m->cta_barrier),
                true);
        }
      }
    }
    PlanOptions all;
    all.price_all = true;
    auto fast = PlanConversion(*problem, PlanOptions{});
    auto full = PlanConversion(*problem, all);
    ASSERT_EQ(fast.ok(), full.ok()) << "line " << pair.line;
    if (fast.ok()) {
      EXPECT_EQ(ProgramToString(fast->program), ProgramToString(full->program))
          << "line " << pair.line;
      EXPECT_EQ(fast->cost.score, full->cost.score) << "line " << pair.line;
      EXPECT_EQ(fast->src_view, full->src_view) << "line " << pair.line;
      // What was priced was priced the same (a skipped candidate may be one that would
      // have had no plan, so the lists need not have the same length).
      const std::vector<std::string> full_lines = CandidateLines(*full);
      const std::vector<std::string> fast_lines = CandidateLines(*fast);
      for (size_t i = 0; i < fast_lines.size(); ++i) {
        if (!fast->candidates[i].priced) {
          ++skipped;
          EXPECT_TRUE(absl::StrContains(fast_lines[i], ": not priced, lower bound "))
              << fast_lines[i];
          continue;
        }
        EXPECT_NE(std::find(full_lines.begin(), full_lines.end(), fast_lines[i]),
                  full_lines.end())
            << "line " << pair.line << ": " << fast_lines[i];
      }
    }
    auto trip = ptx::PlanRoundTrip(*problem, PlanOptions{});
    auto trip_all = ptx::PlanRoundTrip(*problem, all);
    ASSERT_EQ(trip.ok(), trip_all.ok()) << "line " << pair.line;
    if (trip.ok()) {
      EXPECT_EQ(ptx::EmitHarness(*problem, trip->forward, &trip->backward,
                                 ptx::Harness::kRoundTrip),
                ptx::EmitHarness(*problem, trip_all->forward, &trip_all->backward,
                                 ptx::Harness::kRoundTrip))
          << "line " << pair.line;
    }
  }
  EXPECT_GT(pairs, 100);
  EXPECT_GT(bounded, 200);
  EXPECT_GT(skipped, 20);
}

// ShuffleBound counts the words a shuffle plan must write, not only the words it must
// shuffle in: every destination word that is not the thread's own source word (never,
// when the lane maps differ) is written by an op of its own. A one-warp 128x128 i8 slice
// of lane-broadcast rows into rows (a fuzz pair) has 512 unpacked words a thread; its
// unpacked shuffle plan (3 072 warp instructions, most of the pair's 22 ms of planning)
// is no longer priced against the 176-instruction shared-memory plan, and the plan is
// the one pricing every candidate gives.
TEST(PlannerTest, ShuffleBoundCountsTheWordsAPlanWrites) {
  auto problem = MakeProblem(
      "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1, 8], "
      "threadsPerWarp = [4, 2, 4], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]}>}>",
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      {128, 128}, DType::kI8, 1);
  ASSERT_TRUE(problem.ok()) << problem.status();
  auto fast = PlanConversion(*problem, PlanOptions{});
  PlanOptions all;
  all.price_all = true;
  auto full = PlanConversion(*problem, all);
  ASSERT_TRUE(fast.ok() && full.ok());
  EXPECT_EQ(fast->strategy, Strategy::kSmem);
  EXPECT_EQ(ProgramToString(fast->program), ProgramToString(full->program));
  int unpriced_shuffles = 0;
  for (size_t i = 0; i < fast->candidates.size(); ++i) {
    const std::string line = CandidateLines(*fast)[i];
    if (absl::StartsWith(line, "shuffle/unpacked")) {
      EXPECT_FALSE(fast->candidates[i].priced) << line;
      EXPECT_TRUE(absl::StrContains(line, "lower bound 512 warp instructions")) << line;
      ++unpriced_shuffles;
    }
  }
  EXPECT_EQ(unpriced_shuffles, 1);
  // The bound is below the plan it stands for: 512 words to write, 3 072 instructions.
  PlanOptions shuffle;
  shuffle.strategy = Strategy::kShuffle;
  for (const auto& views : CandidateViews(*problem, shuffle)) {
    shuffle.views = views;
    auto plan = PlanConversion(*problem, shuffle);
    auto b = ShuffleBound(*problem, views.first, views.second);
    if (!plan.ok() || !b) continue;
    EXPECT_LE(b->warp_instructions, plan->cost.warp_instructions);
    EXPECT_LE(b->score, plan->cost.score);
  }
}

// The shuffle planner builds its direct schemes by increasing floor (a lower bound on a
// scheme's key from the shuffle matrix alone) and skips those whose floor ranks after the
// best: the plan must be the one building every scheme in order gives (price_all), on
// every word view of every corpus pair that shuffles, in both directions. A floor above
// some scheme's key would change a plan here. l0397 and l0437 (in-warp 64x64 f16, the
// pairs whose schemes are built by the dozen) are in the sample.
//
// Every pair of the table in the main build; in the sanitizer job's -O0 build
// (WARPCHECK_SANITIZED, tools/sanitize.sh) every fourth and the two regression lines, 397
// and 437: the whole table took 64 s there, half of plan_test's time, rerunning the same
// code on more pairs.
// Plans `problem` both ways in every word view through the shuffle planner twice: with
// its floor skipping schemes, and building every scheme (price_all). Expects the same
// program and stage (`what` names the pair); returns the views that have a shuffle plan.
int ExpectShuffleFloorKeepsPlans(const ConversionProblem& problem, const std::string& what) {
  int compared = 0;
  for (const ConversionProblem& p : {problem, problem.Reversed()}) {
    for (const auto& views : CandidateViews(p, PlanOptions{})) {
      PlanOptions fast;
      fast.strategy = Strategy::kShuffle;
      fast.views = views;
      PlanOptions full = fast;
      full.price_all = true;
      auto a = PlanConversion(p, fast);
      auto b = PlanConversion(p, full);
      EXPECT_EQ(a.ok(), b.ok()) << what;
      if (!a.ok() || !b.ok()) continue;
      ++compared;
      EXPECT_EQ(ProgramToString(a->program), ProgramToString(b->program)) << what;
      EXPECT_EQ(a->stage.SerializeAsString(), b->stage.SerializeAsString()) << what;
    }
  }
  return compared;
}

constexpr int kShuffleFloorStride = warpcheck::testing::kSanitized ? 4 : 1;
TEST(PlannerTest, ShuffleFloorSkipsSchemesWithoutChangingThePlan) {
  int compared = 0, index = 0;
  bool saw_397 = false, saw_437 = false;
  for (const Pair& pair : SamplePairs(1)) {
    if (index++ % kShuffleFloorStride != 0 && pair.line != 397 && pair.line != 437) continue;
    auto problem = MakeProblem(pair.src, pair.dst, pair.shape, *ParseDType(pair.dtype),
                               pair.warps);
    if (!problem.ok()) continue;
    const int n = ExpectShuffleFloorKeepsPlans(*problem, absl::StrCat("line ", pair.line));
    compared += n;
    saw_397 = saw_397 || (n > 0 && pair.line == 397);
    saw_437 = saw_437 || (n > 0 && pair.line == 437);
  }
  EXPECT_GT(compared, 100 / kShuffleFloorStride);
  EXPECT_TRUE(saw_397 && saw_437);
}

// Fuzz pair 115 of seed 1 (a slice with eight broadcast lanes to a blocked layout, one
// warp, 128x16 i32): 127 direct schemes (64 ways through the broadcast copies, each with
// and without all-shfl.idx), every one with the floor (384, 128) while the best scheme's
// key is 768 (256 rounds: a sender is asked for several words; 448 selps in its first-
// round trees), so every scheme was built until the limit stopped it (21 ms to plan the
// round trip). The floor now counts the rounds a sender is asked for and the selps of one
// group's trees; it must still be a floor: the plans equal those of building every scheme.
TEST(PlannerTest, ShuffleFloorCountsRoundsAndTreesOfBroadcastSenders) {
  auto problem = MakeProblem(
      "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1, 4], "
      "threadsPerWarp = [1, 8, 4], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]}>}>",
      "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      {128, 16}, DType::kI32, 1);
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_GE(ExpectShuffleFloorKeepsPlans(*problem, "fuzz pair 115 of seed 1"), 2);
}

// A round trip's two directions share the plain bank search's climbs (SearchMemo::Climb,
// through `reversed`) where neither layout has copies that stores skip: each direction's
// plain shared-memory plan must be the one its own search, unshared, finds.
TEST(PlannerTest, ClimbsSharedBetweenDirectionsEndWhereTheirOwnSearchWould) {
  int compared = 0, reused = 0;
  for (const Pair& pair : SamplePairs(3)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) continue;
    const ConversionProblem reversed = problem->Reversed();
    SearchMemo forward, backward, alone;  // `alone`: the backward direction's, unshared
    forward.reversed = &backward;
    backward.reversed = &forward;
    for (const auto& views : CandidateViews(*problem, PlanOptions{})) {
      PlanOptions o;
      o.strategy = Strategy::kSmem;
      o.no_matrix = true;
      o.views = views;
      o.memo = &forward;
      PlanOptions ob = o;
      ob.views = std::make_pair(views.second, views.first);
      ob.memo = &backward;
      PlanOptions own = ob;
      own.memo = nullptr;
      PlanOptions counted = ob;
      counted.memo = &alone;
      auto f = PlanConversion(*problem, o);
      auto b = PlanConversion(reversed, ob);
      auto solo = PlanConversion(reversed, own);
      (void)PlanConversion(reversed, counted);
      ASSERT_EQ(b.ok(), solo.ok()) << "line " << pair.line;
      if (!f.ok() || !b.ok()) continue;
      ++compared;
      EXPECT_EQ(ProgramToString(b->program), ProgramToString(solo->program))
          << "line " << pair.line;
      EXPECT_EQ(b->stage.SerializeAsString(), solo->stage.SerializeAsString())
          << "line " << pair.line;
    }
    // A climb taken from the other direction is not recorded again.
    reused += backward.climbs.size() < alone.climbs.size();
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(reused, 10);
}

// loads and stores through one base issued in ascending address order.
TEST(PlannerTest, HarnessRegisterBoundLaunchesAndGlobalAccessesAreInAddressOrder) {
  std::map<int, int> warps_seen;
  int ordered_runs = 0;
  for (const Pair& pair : SamplePairs(7)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) continue;
    auto trip = ptx::PlanRoundTrip(*problem, PlanOptions{});
    ASSERT_TRUE(trip.ok()) << "line " << pair.line << ": " << trip.status();
    const std::string text =
        ptx::EmitHarness(*problem, trip->forward, &trip->backward, ptx::Harness::kRoundTrip);
    auto module = ptx::ParseModule(text, "<emitted>");
    ASSERT_TRUE(module.ok()) << module.status();
    ASSERT_EQ(module->kernels.size(), 1u);
    const auto& k = module->kernels[0];
    ASSERT_FALSE(k.reqntid.empty());
    ++warps_seen[pair.warps];
    EXPECT_GT(k.maxnreg, 0) << "line " << pair.line;
    EXPECT_LE(k.maxnreg, 255) << "line " << pair.line;
    EXPECT_LE(int64_t{k.maxnreg} * k.reqntid[0], 65536) << "line " << pair.line;
    EXPECT_EQ(k.maxnreg % 8 == 0 || k.maxnreg == 255, true) << "line " << pair.line;
    // Per base register, the immediates of consecutive global accesses of one kind
    // (ld or st) never descend (a broadcast register loads its copies twice). Narrow
    // elements packed into one word (`ld.global.u8/u16`) are
    // loaded word by word (words in the order of their first element), so they are left
    // out of the loads' check.
    std::map<std::string, int64_t> last;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      const bool ld = absl::StrContains(line, "ld.global"), st = absl::StrContains(line, "st.global");
      if ((!ld && !st) || absl::StrContains(line, "ld.global.u")) continue;
      size_t open = line.find('['), close = line.find(']');
      if (open == absl::string_view::npos || close == absl::string_view::npos) continue;
      absl::string_view addr = line.substr(open + 1, close - open - 1);
      std::vector<std::string> parts = absl::StrSplit(addr, '+');
      int64_t imm = 0;
      if (parts.size() == 2) {
        ASSERT_TRUE(absl::SimpleAtoi(parts[1], &imm)) << line;
      }
      const std::string key = absl::StrCat(ld ? "ld " : "st ", parts[0]);
      auto it = last.find(key);
      if (it != last.end()) {
        EXPECT_LE(it->second, imm) << "line " << pair.line << ": " << line;
        ++ordered_runs;
      }
      last[key] = imm;
    }
  }
  EXPECT_GE(warps_seen[1], 5);
  EXPECT_GE(warps_seen[4], 5);
  EXPECT_GE(warps_seen[16], 1);
  EXPECT_GT(ordered_runs, 500);
}

// A round trip that moves nothing is a copy: every stored register is one a load wrote
// (no bfi/shr/prmt repacking around 16-bit elements, which made the one-warp noop
// harnesses up to 1.43x slower than Triton's on the H200), one store per load.
TEST(PlannerTest, RoundTripThatMovesNothingStoresWhatItLoaded) {
  auto problem = MakeProblem(
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      "#ttg.blocked<{sizePerThread = [32, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      {64, 64}, DType::kF16, 1);
  ASSERT_TRUE(problem.ok()) << problem.status();
  int copies = 0;
  std::vector<ConversionProblem> problems = {*problem};
  for (const Pair& pair : SamplePairs(3)) {
    auto p = MakeProblem(pair.src, pair.dst, pair.shape, *ParseDType(pair.dtype), pair.warps);
    if (p.ok()) problems.push_back(*std::move(p));
  }
  for (const ConversionProblem& p : problems) {
    auto trip = ptx::PlanRoundTrip(p, PlanOptions{});
    ASSERT_TRUE(trip.ok()) << trip.status();
    const std::string text =
        ptx::EmitHarness(p, trip->forward, &trip->backward, ptx::Harness::kRoundTrip);
    if (absl::StrContains(text, "$L_loop")) continue;
    ++copies;
    std::set<std::string> loaded;
    int loads = 0, stores = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      const bool ld = absl::StrContains(line, "ld.global"), st = absl::StrContains(line, "st.global");
      if (!ld && !st) {
        // No other instruction reads a loaded register: the data goes straight to a store.
        for (absl::string_view tok : absl::StrSplit(line, absl::ByAnyChar("\t {}, ;[]+"),
                                                     absl::SkipEmpty())) {
          EXPECT_FALSE(loaded.count(std::string(tok)))
              << p.src_attr << " -> " << p.dst_attr << ": " << line;
        }
        continue;
      }
      // The data operand: before the address for loads, after it for stores.
      const size_t open = line.find('['), close = line.find(']');
      ASSERT_NE(open, absl::string_view::npos) << line;
      absl::string_view data = ld ? line.substr(0, open) : line.substr(close + 1);
      data = data.substr(data.find_first_of("{%"));
      for (absl::string_view reg : absl::StrSplit(data, absl::ByAnyChar("{}, ;"), absl::SkipEmpty())) {
        if (ld) {
          loaded.insert(std::string(reg));
        } else {
          EXPECT_TRUE(loaded.count(std::string(reg))) << "stores a register no load wrote: " << line;
        }
      }
      (ld ? loads : stores) += 1;
    }
    EXPECT_GT(loads, 0);
    EXPECT_LE(stores, loads) << p.src_attr;
  }
  EXPECT_GE(copies, 2);
}

TEST(PlannerTest, BankSearchNeverWorseThanTheBaseOrderAndRemovesConflicts) {
  int improved = 0;
  for (const Pair& pair : SamplePairs(5)) {
    auto problem = MakeProblem(pair.src, pair.dst, pair.shape, *ParseDType(pair.dtype),
                               pair.warps);
    if (!problem.ok()) continue;
    // Plain accesses on both sides: no_swizzle leaves out the matrix candidates, which
    // have their own search (matrix_test.cc) and, as the Triton floor's reference
    // (triton_floor.h), may make the search keep a plan with fewer instructions but
    // more predicted time than the unswizzled plain one.
    PlanOptions base;
    base.strategy = Strategy::kSmem;
    base.no_swizzle = true;
    base.no_matrix = true;
    PlanOptions searched = base;
    searched.no_swizzle = false;
    auto a = PlanConversion(*problem, base);
    auto b = PlanConversion(*problem, searched);
    ASSERT_TRUE(a.ok() && b.ok()) << pair.line;
    EXPECT_LE(b->cost.ns, a->cost.ns + 1e-9) << "line " << pair.line;
    if (b->cost.conflicts_store + b->cost.conflicts_load <
        a->cost.conflicts_store + a->cost.conflicts_load) {
      ++improved;
    }
  }
  // Triton's test pairs mostly have conflict-free base orders; the forced test below
  // covers a conflicting one.
  EXPECT_GE(improved, 0);
}

TEST(PlannerTest, ForcedNarrowVectorsHaveTheConflictsTheSimulatorCounts) {
  // A transpose through shared memory with 4-byte accesses and no swizzle: every column
  // access hits one bank.
  const std::string src =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>";
  const std::string dst =
      "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
      "order = [0, 1]}>";
  auto problem = MakeProblem(src, dst, {64, 64}, DType::kF32, 4);
  ASSERT_TRUE(problem.ok()) << problem.status();
  PlanOptions o;
  o.strategy = Strategy::kSmem;
  o.no_swizzle = true;
  o.max_vector_bytes = 4;
  auto plan = PlanConversion(*problem, o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_GT(plan->cost.conflicts_store + plan->cost.conflicts_load, 0);
  std::map<std::string, uint64_t> c;
  ASSERT_EQ(RunHarness(*problem, ptx::EmitHarness(*problem, *plan, nullptr, ptx::Harness::kOnce), 1, &c),
            "");
  EXPECT_EQ(c["bank_conflicts.store"] + c["bank_conflicts.load"],
            static_cast<uint64_t>(plan->cost.conflicts_store + plan->cost.conflicts_load));
  o.no_swizzle = false;
  auto searched = PlanConversion(*problem, o);
  ASSERT_TRUE(searched.ok());
  EXPECT_EQ(searched->cost.conflicts_store + searched->cost.conflicts_load, 0);
}

TEST(PlannerTest, InputsOutsideTheScopeSayWhy) {
  const std::string blocked =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>";
  auto shared = MakeProblem(
      blocked, "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
      {64, 64}, DType::kF16, 4);
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.status().message().find("shared-memory encoding"), std::string::npos)
      << shared.status();
  auto ctas = MakeProblem(
      "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32]], "
      "block = [[0]]}>",
      "#ttg.linear<{register = [[32]], lane = [[1], [2], [4], [8], [16]], warp = [[0]], "
      "block = [[0]]}>",
      {64}, DType::kF32, 2);
  ASSERT_FALSE(ctas.ok());
  EXPECT_EQ(ctas.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ctas.status().message().find("CTA"), std::string::npos) << ctas.status();
  auto rank = MakeProblem(blocked, blocked, {64}, DType::kF16, 4);
  EXPECT_FALSE(rank.ok());
  auto warps = MakeProblem(blocked, blocked, {64, 64}, DType::kF16, 8);
  ASSERT_FALSE(warps.ok());
  EXPECT_NE(warps.status().message().find("8 warps"), std::string::npos) << warps.status();
  auto huge = MakeProblem(blocked, blocked, {4096, 4096}, DType::kF16, 4);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("2^20"), std::string::npos);
  EXPECT_FALSE(ParseDType("f12").ok());
  // A strategy that cannot do the pair says which and why.
  auto transpose = MakeProblem(
      blocked,
      "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
      "order = [0, 1]}>",
      {64, 64}, DType::kF16, 4);
  ASSERT_TRUE(transpose.ok());
  PlanOptions o;
  o.strategy = Strategy::kRegisters;
  auto r = PlanConversion(*transpose, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("registers"), std::string::npos) << r.status();
}

// One jsonl line of corpus/plan/triton_costs.tsv as a problem.
// The round-trip harness of `trip` at two iterations on random data and distinct tags;
// "" when every run is ok (RunHarness).
std::string RunRoundTrip(const ConversionProblem& problem, const ptx::RoundTrip& trip) {
  return RunHarness(problem,
                    ptx::EmitHarness(problem, trip.forward, &trip.backward,
                                     ptx::Harness::kRoundTrip),
                    2);
}

ConversionProblem LineProblem(int line) {
  for (const Pair& pair : SamplePairs(1)) {
    if (pair.line != line) continue;
    auto dtype = ParseDType(pair.dtype);
    EXPECT_TRUE(dtype.ok());
    auto problem = MakeProblem(pair.src, pair.dst, pair.shape, *dtype, pair.warps);
    EXPECT_TRUE(problem.ok()) << problem.status();
    if (problem.ok()) return *problem;
  }
  ADD_FAILURE() << "line " << line << " is not an ok row of triton_costs.tsv";
  return ConversionProblem{};
}

// l0672 (32x32 f16, one warp, blocked [2, 16] -> [1, 32] threads): both layouts broadcast
// a lane bit (source lane 3; destination lanes 3 and 4). The particular solution of the
// shuffle matrix reads destination lane bit 3 across source lane bit 3 as well as the
// word's offset 16, so each word went to two shfl.idx (64 a conversion, 1.44x Triton's
// time on the H200); read through source lane 3's copies instead, every word has the
// one offset 16: a butterfly per two words and two selects (Triton's own lowering), and
// the way back needs no shuffle at all (every element a source lane wants is in the
// thread: the destination repeats it on lanes 3 and 4). Ranked by op count, as before,
// the 64 shfl.idx (64 ops) won over 32 shuffles and 64 selects (96 ops).
TEST(PlannerTest, ShuffleReadsThroughBroadcastCopiesSoAWordHasOneLaneOffset) {
  const ConversionProblem problem = LineProblem(672);
  auto forward = PlanConversion(problem, PlanOptions{});
  ASSERT_TRUE(forward.ok()) << forward.status();
  EXPECT_EQ(forward->strategy, Strategy::kShuffle);
  const OpCounts c = CountOps(forward->program);
  EXPECT_EQ(c.shfl, 32) << ProgramToString(forward->program);
  EXPECT_EQ(c.selp, 64);
  for (const Op& op : forward->program.ops) {
    if (op.kind == OpKind::kShflIdx) ADD_FAILURE() << "shfl.idx left";
    if (op.kind == OpKind::kShflBfly) {
      EXPECT_EQ(op.imm, 16u);
    }
  }
  auto backward = PlanConversion(problem.Reversed(), PlanOptions{});
  ASSERT_TRUE(backward.ok()) << backward.status();
  EXPECT_EQ(CountOps(backward->program).shfl, 0) << ProgramToString(backward->program);
  std::map<std::string, uint64_t> counters;
  EXPECT_EQ(RunHarness(problem, ptx::EmitHarness(problem, *forward, nullptr, ptx::Harness::kOnce),
                       1, &counters),
            "");
  EXPECT_EQ(counters["shfl"], 32u);
  EXPECT_EQ(RunHarness(problem.Reversed(),
                       ptx::EmitHarness(problem.Reversed(), *backward, nullptr,
                                        ptx::Harness::kOnce),
                       1),
            "");
}

// l0523 (256x256 f16, 16 warps, mma v3 [8, 2] -> [2, 8]): the whole tensor in shared
// memory is 128 KiB, so both directions shared one buffer and one CTA fit an SM (1.34x
// Triton's time, whose scratch is 32 KiB). With a budget the transfer runs in rounds
// over offset bits only registers reach (ChunkSharedRounds), each round a store, a
// barrier and a load, a barrier between rounds; the wavefronts stay those of the plan.
// The simulator runs the round trip and counts its barriers per round trip (iters 2
// minus iters 1).
TEST(PlannerTest, LargeSharedBufferRunsInRoundsWithinTheBudget) {
  const ConversionProblem problem = LineProblem(523);
  PlanOptions unbounded;
  unbounded.max_scratch_bytes = 0;
  auto whole = ptx::PlanRoundTrip(problem, unbounded);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->forward.program.smem_bytes, 131072);
  EXPECT_EQ(whole->forward.stage.smem().rounds(), 0);
  for (int64_t budget : {65536, 32768, 16384}) {
    PlanOptions o;
    o.max_scratch_bytes = budget;
    auto trip = ptx::PlanRoundTrip(problem, o);
    ASSERT_TRUE(trip.ok()) << trip.status();
    // Two offset bits only registers reach (rows 128 and the like both sides keep in
    // registers, at or above the 128-byte line): at most four rounds of 32 KiB.
    const int64_t bytes = std::max<int64_t>(budget, 32768);
    const int64_t rounds = 131072 / bytes;
    for (bool fwd : {true, false}) {
      const ConversionPlan& plan = fwd ? trip->forward : trip->backward;
      const ConversionPlan& one = fwd ? whole->forward : whole->backward;
      EXPECT_EQ(plan.strategy, Strategy::kSmem);
      EXPECT_EQ(plan.program.smem_bytes, bytes) << "budget " << budget;
      EXPECT_EQ(plan.stage.smem().rounds(), rounds) << "budget " << budget;
      EXPECT_EQ(CountOps(plan.program).bar, 2 * rounds - 1) << "budget " << budget;
      EXPECT_EQ(plan.cost.wavefronts_store, one.cost.wavefronts_store);
      EXPECT_EQ(plan.cost.wavefronts_load, one.cost.wavefronts_load);
    }
    const std::string ptx = ptx::EmitHarness(problem, trip->forward, &trip->backward,
                                             ptx::Harness::kRoundTrip);
    std::map<std::string, uint64_t> one, two;
    ASSERT_EQ(RunHarness(problem, ptx, 1, &one), "") << "budget " << budget;
    ASSERT_EQ(RunHarness(problem, ptx, 2, &two), "") << "budget " << budget;
    EXPECT_EQ(two["barriers"] - one["barriers"], static_cast<uint64_t>(2 * (2 * rounds - 1)))
        << "budget " << budget;
    EXPECT_EQ(two["smem_wavefronts.store"] - one["smem_wavefronts.store"] +
                  two["smem_wavefronts.load"] - one["smem_wavefronts.load"],
              static_cast<uint64_t>(whole->forward.cost.wavefronts_store +
                                    whole->forward.cost.wavefronts_load +
                                    whole->backward.cost.wavefronts_store +
                                    whole->backward.cost.wavefronts_load));
  }
  // The default budget is 32 KiB; a plan that fits is left alone.
  auto trip = ptx::PlanRoundTrip(problem, PlanOptions{});
  ASSERT_TRUE(trip.ok());
  EXPECT_EQ(trip->forward.program.smem_bytes, 32768);
  Program small = whole->forward.program;
  EXPECT_EQ(ChunkSharedRounds(small, 131072), 1);
  EXPECT_EQ(ProgramToString(small), ProgramToString(whole->forward.program));
  // UnchunkSharedRounds undoes the rounds into one round of the same ops.
  Program chunked = trip->forward.program;
  EXPECT_EQ(UnchunkSharedRounds(chunked), 4);
  EXPECT_EQ(chunked.smem_bytes, 131072);
  EXPECT_EQ(CountOps(chunked).bar, 1);
  // (the unbounded round trip shares one buffer, so its forward waits before storing)
  EXPECT_EQ(CountOps(chunked).st_shared, CountOps(whole->forward.program).st_shared);
  EXPECT_EQ(CountOps(chunked).ld_shared, CountOps(whole->forward.program).ld_shared);
}

// The split law over a whole small domain: every constant, every reach mask, every
// thread part inside the mask.
TEST(ProgramTest, AddressSplitAddsWhatTheThreadPartCannotReach) {
  for (uint32_t reach = 0; reach < 64; ++reach) {
    for (uint32_t c = 0; c < 64; ++c) {
      const AddressSplit a = SplitAddressConstant(c, reach);
      EXPECT_EQ(a.xor_bits & ~reach, 0u);
      for (uint32_t t = 0; t < 64; ++t) {
        if ((t & ~reach) != 0) continue;
        ASSERT_EQ(t ^ c, (t ^ a.xor_bits) + a.add) << "reach " << reach << " c " << c << " t " << t;
      }
    }
  }
}

// Every shared address's setup value keeps only the constant bits its thread part can
// reach (the rest is the immediate), so a harness holds one register per distinct
// reachable constant. Regression: line 354 (64x128 f16, 4 warps) held 114 address
// registers across the round trip's loop on top of 256 data words (the planner split the
// constant at the thread part's highest bit); ptxas spilled 332 bytes a thread and the
// kernel ran 1.107x Triton's time on the H200. Now 12; the kernels compute the same
// addresses (the simulator's run below, and every corpus kernel proven by
// corpus/plan/compare_with_triton).
TEST(PlannerTest, AddressSetupsKeepOnlyTheConstantBitsTheThreadPartReaches) {
  auto address_setups = [](const Program& p) {
    int n = 0;
    for (const SetupValue& v : p.setup) {
      if (v.kind != SetupValue::Kind::kSmemAddr) continue;
      ++n;
      uint32_t reach = 0;
      for (uint32_t c : v.coeff) reach |= c;
      EXPECT_EQ(v.constant & ~reach, 0u) << ProgramToString(p);
    }
    return n;
  };
  for (const Pair& pair : SamplePairs(13)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) continue;
    auto trip = ptx::PlanRoundTrip(*problem, PlanOptions{});
    ASSERT_TRUE(trip.ok()) << "line " << pair.line << ": " << trip.status();
    address_setups(trip->forward.program);
    address_setups(trip->backward.program);
  }
  const ConversionProblem problem = LineProblem(354);
  auto trip = ptx::PlanRoundTrip(problem, PlanOptions{});
  ASSERT_TRUE(trip.ok()) << trip.status();
  EXPECT_LE(address_setups(trip->forward.program) + address_setups(trip->backward.program), 12);
  EXPECT_EQ(RunRoundTrip(problem, *trip), "");
}

// Components (program.h): every interleaved plan of the sampled pairs, checked by
// brute force over every thread: accesses of different components share no byte (the
// coset argument), every load's component has stores, the order is {stores of q;
// bar.warp.sync; loads of q}, and SequenceSharedComponents / InterleaveSharedComponents
// are inverse (the prover proves the sequenced program, the kernel runs this one).
TEST(ProgramTest, InterleavedComponentsTouchDisjointBytesAndSequenceBack) {
  // The bytes one access op touches over every thread of `warps` warps.
  auto bytes = [](const Program& p, const Op& op, int warps) {
    const SetupValue& v = p.setup[op.addr];
    const int64_t access =
        op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix
            ? 16
            : int64_t{op.elem_bytes} *
                  static_cast<int64_t>(op.kind == OpKind::kStShared ? op.in.size()
                                                                     : op.out.size());
    std::set<int64_t> out;
    for (uint32_t tid = 0; tid < 32u * static_cast<uint32_t>(warps); ++tid) {
      uint32_t t = v.constant;
      for (size_t b = 0; b < v.coeff.size(); ++b) {
        if ((tid >> b) & 1) t ^= v.coeff[b];
      }
      const int64_t at = int64_t{v.element_bytes} * t + op.imm;
      for (int64_t k = 0; k < access; ++k) out.insert(at + k);
    }
    return out;
  };
  int interleaved = 0;
  for (const Pair& pair : SamplePairs(5)) {
    auto problem = ProblemOf(pair);
    if (!problem.ok()) continue;
    auto plan = PlanConversion(*problem, PlanOptions{});
    ASSERT_TRUE(plan.ok()) << "line " << pair.line << ": " << plan.status();
    const int components = plan->stage.has_smem() ? plan->stage.smem().components() : 0;
    if (components < 2) continue;
    ++interleaved;
    const Program& p = plan->program;
    EXPECT_EQ(InterleavedGroups(p), components) << ProgramToString(p);
    EXPECT_EQ(plan->cost.components, components);
    std::vector<uint32_t> keys;
    ASSERT_TRUE(SharedComponentKeys(p, &keys));
    // Order: a barrier closes each component's stores; its loads follow.
    std::vector<uint32_t> seen;
    bool in_loads = false;
    uint32_t current = 0;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const Op& op = p.ops[i];
      if (op.kind == OpKind::kBarWarp) {
        in_loads = true;
        continue;
      }
      ASSERT_NE(op.kind, OpKind::kBarSync) << "line " << pair.line;
      const bool store = op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix;
      if (store && (in_loads || seen.empty())) {
        current = keys[i];
        EXPECT_EQ(std::count(seen.begin(), seen.end(), current), 0) << "line " << pair.line;
        seen.push_back(current);
        in_loads = false;
      }
      EXPECT_EQ(keys[i], current) << "line " << pair.line << " op " << i;
    }
    EXPECT_EQ(static_cast<int>(seen.size()), components);
    // Disjoint bytes across components, by enumeration.
    std::map<int64_t, uint32_t> owner;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (p.ops[i].kind == OpKind::kBarWarp) continue;
      for (int64_t b : bytes(p, p.ops[i], pair.warps)) {
        auto [it, fresh] = owner.emplace(b, keys[i]);
        EXPECT_TRUE(fresh || it->second == keys[i])
            << "line " << pair.line << ": byte " << b << " in two components";
      }
    }
    // Sequencing undoes the interleave, and interleaving the sequenced program redoes it.
    Program one = p;
    EXPECT_EQ(SequenceSharedComponents(one), components);
    EXPECT_EQ(InterleavedGroups(one), 1);
    EXPECT_EQ(SharedComponents(one), components);
    Program again = one;
    EXPECT_EQ(InterleaveSharedComponents(again), components);
    EXPECT_EQ(ProgramToString(again), ProgramToString(p)) << "line " << pair.line;
  }
  EXPECT_GT(interleaved, 3);
}

// Line 573 (64x64 f16, one warp): the plain and the stmatrix plans cost the same (33
// instructions, 128 wavefronts a conversion); the stmatrix one falls into eight
// components, the plain one two, so the tie goes to it. On the H200 the one-phase plain
// plan ran 1.077x Triton's time; this one 0.957x (corpus/plan/h200/timing_v14.tsv).
TEST(PlannerTest, TiesGoToThePlanWithMoreComponents) {
  const ConversionProblem problem = LineProblem(573);
  auto plan = PlanConversion(problem, PlanOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->stage.smem().components(), 8);
  EXPECT_EQ(CountOps(plan->program).stmatrix, 16);
  EXPECT_EQ(CountOps(plan->program).bar, 8);
  PlanOptions plain;
  plain.no_matrix = true;
  auto p2 = PlanConversion(problem, plain);
  ASSERT_TRUE(p2.ok()) << p2.status();
  EXPECT_EQ(p2->stage.smem().components(), 2);
  // Equal but for the barriers between components.
  EXPECT_EQ(plan->cost.warp_instructions - plan->cost.barriers,
            p2->cost.warp_instructions - p2->cost.barriers);
  EXPECT_LT(p2->cost.components, plan->cost.components);
  auto trip = ptx::PlanRoundTrip(problem, PlanOptions{});
  ASSERT_TRUE(trip.ok()) << trip.status();
  EXPECT_EQ(RunRoundTrip(problem, *trip), "");
}

TEST(ProgramTest, SimplifyRemovesSelectsThatUndoEachOtherAndFoldsPrmt) {
  Program p;
  for (int i = 0; i < 4; ++i) p.inputs.push_back(p.NewWord());
  SetupValue pred;
  pred.kind = SetupValue::Kind::kTidParity;
  pred.mask = 1;
  int s = p.AddSetup(pred);
  auto selp = [&](int a, int b) {
    Op op;
    op.kind = OpKind::kSelp;
    op.pred = s;
    op.in = {a, b};
    op.out = {p.NewWord()};
    p.ops.push_back(op);
    return op.out[0];
  };
  int x = selp(0, 1), y = selp(1, 0);
  int z = selp(x, y);  // p ? x : y = p ? 0 : 0
  Op prmt;
  prmt.kind = OpKind::kPrmt;
  prmt.in = {2, 3};
  prmt.imm = 0x5410;  // low half of w2, low half of w3
  prmt.out = {p.NewWord()};
  p.ops.push_back(prmt);
  Op back = prmt;
  back.in = {prmt.out[0], prmt.out[0]};
  back.imm = 0x3210;  // the whole word: identity
  back.out = {p.NewWord()};
  p.ops.push_back(back);
  p.outputs = {z, back.out[0]};
  Simplify(p);
  EXPECT_EQ(p.outputs[0], 0);
  ASSERT_EQ(p.ops.size(), 1u) << ProgramToString(p);
  EXPECT_EQ(p.ops[0].kind, OpKind::kPrmt);
  EXPECT_EQ(p.outputs[1], p.ops[0].out[0]);
}

// A program of shared-memory ops only takes Simplify's short path (no op to rewrite:
// only dead ops go); with one dead select added it takes the full pass, which must leave
// the same program.
TEST(ProgramTest, SimplifyWithoutSelectsOnlyRemovesDeadOpsAsTheFullPassDoes) {
  Program p;
  for (int i = 0; i < 2; ++i) p.inputs.push_back(p.NewWord());
  auto add = [&](OpKind kind, std::vector<int> in, int outs) {
    Op op;
    op.kind = kind;
    op.in.assign(in.begin(), in.end());
    for (int k = 0; k < outs; ++k) op.out.push_back(p.NewWord());
    p.ops.push_back(op);
    return op.out.empty() ? -1 : op.out[0];
  };
  add(OpKind::kStShared, {0, 1}, 0);
  add(OpKind::kBarSync, {}, 0);
  const int a = add(OpKind::kLdShared, {}, 1);
  add(OpKind::kLdShared, {}, 1);  // dead: nothing reads it
  const int c = add(OpKind::kLdShared, {}, 1);
  add(OpKind::kBarWarp, {}, 0);
  add(OpKind::kStShared, {c}, 0);  // a store is kept, and keeps the load it reads
  p.outputs = {a, 0};
  Program full = p;
  SetupValue pred;
  pred.kind = SetupValue::Kind::kTidParity;
  pred.mask = 1;
  Op selp;
  selp.kind = OpKind::kSelp;
  selp.pred = full.AddSetup(pred);
  selp.in = {0, 1};
  selp.out = {full.NewWord()};
  full.ops.push_back(selp);  // dead too
  Simplify(p);
  Simplify(full);
  ASSERT_EQ(p.ops.size(), 6u) << ProgramToString(p);
  ASSERT_EQ(p.ops.size(), full.ops.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    EXPECT_EQ(p.ops[i].kind, full.ops[i].kind) << i;
    EXPECT_EQ(p.ops[i].in, full.ops[i].in) << i;
    EXPECT_EQ(p.ops[i].out, full.ops[i].out) << i;
  }
  EXPECT_EQ(p.outputs, full.outputs);
  EXPECT_EQ(p.ops[2].out[0], a);
  EXPECT_EQ(p.ops[3].out[0], c);
}

TEST(F2SpanTest, SolveIsTheInverseOfApplyOnTheSpan) {
  std::vector<uint32_t> gens = {0b0011, 0b0110, 0b0101 /* = g0 ^ g1 */, 0b1000, 0};
  F2Span span(gens);
  EXPECT_EQ(span.rank(), 3);
  for (uint32_t x = 0; x < 16; ++x) {
    auto c = span.Solve(x);
    bool in_span = (x & 0b1000) ? true : true;
    (void)in_span;
    if (c) {
      EXPECT_EQ(ApplyBasis(gens, *c), x);
      EXPECT_EQ(*c & 0b10100, 0u) << "dependent generators are free (0)";
    }
  }
  EXPECT_FALSE(span.Solve(0b0001).has_value());
  EXPECT_TRUE(span.Contains(0b1101));
}

TEST(WordViewTest, UnitSlotRegRoundTrip) {
  WordView v;
  v.reg_bits = 5;
  v.pack = {3, 1};
  for (uint32_t r = 0; r < 32; ++r) {
    EXPECT_EQ(v.Reg(v.Unit(r), v.Slot(r)), r);
  }
  EXPECT_EQ(v.units(), 8);
  EXPECT_EQ(v.Slot(0b01000), 1u);
  EXPECT_EQ(v.Slot(0b00010), 2u);
}

// Unit and Reg take a shift for views without a pack or with it in the lowest bits, and
// gather and scatter bit by bit otherwise: every kind of pack gives the units the bit
// loop defines (the register bits outside the pack, in order; bits at or above reg_bits
// ignored), and Reg puts them back.
TEST(WordViewTest, UnitIsTheRegisterBitsOutsideThePackForEveryPack) {
  const std::vector<std::vector<int>> packs = {{}, {0}, {0, 1}, {1, 0}, {1}, {2, 0}, {3, 1}};
  for (const auto& pack : packs) {
    for (int reg_bits = 0; reg_bits <= 6; ++reg_bits) {
      if (!pack.empty() && *std::max_element(pack.begin(), pack.end()) >= reg_bits) continue;
      WordView v;
      v.reg_bits = reg_bits;
      v.pack.assign(pack.begin(), pack.end());
      for (uint32_t r = 0; r < (2u << reg_bits); ++r) {
        uint32_t unit = 0;
        int k = 0;
        for (int i = 0; i < reg_bits; ++i) {
          if (std::find(pack.begin(), pack.end(), i) != pack.end()) continue;
          unit |= ((r >> i) & 1) << k++;
        }
        ASSERT_EQ(v.Unit(r), unit) << "pack size " << pack.size() << " reg_bits " << reg_bits;
        const uint32_t in_regs = r & ((1u << reg_bits) - 1);
        ASSERT_EQ(v.Reg(unit, v.Slot(r)), in_regs);
        ASSERT_EQ(v.Reg(unit | (1u << k), v.Slot(r)), in_regs);  // a unit bit too many
      }
    }
  }
}

}  // namespace
}  // namespace warpcheck::sim::plan
