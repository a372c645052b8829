// Plan proofs (verify/plan/plan_prove.h):
//
//   * every plan the planner makes for a sample of Triton's test pairs (all three
//     strategies, 8-, 16-, 32- and 64-bit elements) is proven, obligation by obligation;
//   * corrupted plans are refuted: a shuffle's lane map, a select's choice, a swizzle bit
//     of the store addresses, a vector's alignment and width, a dropped broadcast
//     predicate, a wrong bank-conflict prediction. Each counterexample is checked here
//     independently of the prover: the corrupted plan, emitted as PTX and run on the
//     simulator, really fails (wrong data, a fault, or counters that differ from the
//     prediction);
//   * a spent rlimit is inconclusive, and a plan that does not fit its problem is an
//     error, not a verdict.
#include "verify/plan/plan_prove.h"
#include "verify/plan/round_trip_prove.h"

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/machine/launch.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"

namespace warpcheck::verify::plan {
namespace {

using sim::plan::ConversionPlan;
using sim::plan::ConversionProblem;
using sim::plan::OpKind;
using sim::plan::Strategy;

struct Pair {
  int line = 0;
  std::string src, dst, dtype;
  std::vector<int64_t> shape;
  int warps = 4;
};

// Every `every`-th in-scope row of corpus/plan/triton_costs.tsv (Triton's test pairs,
// shared/data/convert-layout-pairs.jsonl), starting at `offset`.
std::vector<Pair> SamplePairs(int every, int offset = 0) {
  auto t = sim::base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) +
                                  "/corpus/plan/triton_costs.tsv");
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<Pair> out;
  if (!t.ok()) return out;
  int row = 0;
  for (const auto& c : t->rows) {
    if (t->Cell(c, "status") != "ok" || (row++ % every) != offset) continue;
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

struct Planned {
  ConversionProblem problem;
  ConversionPlan plan;
};

std::optional<Planned> PlanPair(const Pair& pair, Strategy s, const std::string& dtype = "",
                                bool matrix = false) {
  auto dt = sim::plan::ParseDType(dtype.empty() ? pair.dtype : dtype);
  if (!dt.ok()) return std::nullopt;
  auto problem = sim::plan::MakeProblem(pair.src, pair.dst, pair.shape, *dt, pair.warps);
  if (!problem.ok()) return std::nullopt;
  sim::plan::PlanOptions o;
  o.no_matrix = !matrix;  // the plain smem tests want st/ld.shared on both sides
  o.strategy = s;
  auto plan = sim::plan::PlanConversion(*problem, o);
  if (!plan.ok()) return std::nullopt;
  return Planned{*std::move(problem), *std::move(plan)};
}

// The first sampled plan of strategy `s` that `want` accepts.
std::optional<Planned> FindPlan(Strategy s, const std::function<bool(const Planned&)>& want,
                                const std::string& dtype = "") {
  for (const Pair& pair : SamplePairs(3)) {
    auto p = PlanPair(pair, s, dtype);
    if (p && p->plan.strategy == s && want(*p)) return p;
  }
  return std::nullopt;
}

bool HasOp(const Planned& p, OpKind k) {
  for (const auto& op : p.plan.program.ops) if (op.kind == k) return true;
  return false;
}

bool HasMatrix(const Planned& p) {
  return HasOp(p, OpKind::kStMatrix) || HasOp(p, OpKind::kLdMatrix);
}

// Default plans (matrix stages allowed) of sampled 16-bit pairs with a stmatrix or
// ldmatrix stage that `want` accepts, at most `max` of them.
std::vector<Planned> MatrixPlans(size_t max, const std::function<bool(const Planned&)>& want) {
  std::vector<Planned> out;
  for (const Pair& pair : SamplePairs(5)) {
    if (out.size() >= max) break;
    if (pair.dtype != "f16" && pair.dtype != "bf16") continue;
    if (pair.shape.size() != 2 || pair.shape[0] * pair.shape[1] > 64 * 64) continue;
    auto p = PlanPair(pair, Strategy::kAuto, "", /*matrix=*/true);
    if (p && HasMatrix(*p) && want(*p)) out.push_back(*std::move(p));
  }
  return out;
}

// The first matrix op of kind k.
sim::plan::Op* FirstOp(Planned& p, OpKind k) {
  for (auto& op : p.plan.program.ops) if (op.kind == k) return &op;
  return nullptr;
}

// Runs the plan's `once` harness on the simulator: "" when it converts every element
// (random data and distinct tags), else what failed; `counters` from the random run.
std::string SimFailure(const Planned& p, std::map<std::string, uint64_t>* counters = nullptr) {
  const std::string ptx = sim::ptx::EmitHarness(p.problem, p.plan, nullptr, sim::ptx::Harness::kOnce);
  auto module = sim::ptx::ParseModule(ptx, "<emitted>");
  if (!module.ok()) return std::string(module.status().message());
  for (auto fill : {BufferParam::RANDOM, BufferParam::IOTA}) {
    LaunchSpec spec = sim::ptx::HarnessLaunchSpec(p.problem, "<emitted>", fill, 7, 1);
    auto run = sim::machine::RunLaunchSpecOnModule(spec, *module, ".", sim::machine::RunOptions{});
    if (!run.ok()) return std::string(run.status().message());
    if (!run->report.ok()) return run->report.DebugString().substr(0, 400);
    if (counters && fill == BufferParam::RANDOM) {
      for (const auto& [k, v] : run->report.counters()) (*counters)[k] = v;
    }
  }
  return "";
}

PlanProof Prove(const Planned& p) {
  auto proof = ProvePlan(p.problem, p.plan, PlanProveOptions{});
  EXPECT_TRUE(proof.ok()) << proof.status();
  return proof.ok() ? *proof : PlanProof{};
}

std::string Summary(const PlanProof& proof) {
  std::string s = VerdictName(proof.verdict);
  for (const auto& ob : proof.obligations) {
    s += " | " + ob.name + ": " + VerdictName(ob.verdict) + " " + ob.detail;
  }
  return s;
}

// Refuted with a counterexample of `obligation`, and the simulator agrees that the
// corrupted plan is wrong.
void ExpectRefuted(const Planned& bad, const std::string& obligation) {
  PlanProof proof = Prove(bad);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  ASSERT_TRUE(proof.counterexample.has_value());
  EXPECT_EQ(proof.counterexample->obligation, obligation) << proof.counterexample->text;
  EXPECT_FALSE(proof.counterexample->text.empty());
  ::testing::Test::RecordProperty("counterexample", proof.counterexample->text);
  EXPECT_NE(SimFailure(bad), "") << "the simulator runs the corrupted plan correctly: "
                                 << proof.counterexample->text;
}

// Every 61st corpus pair, planned with each strategy at one element type per shard (the
// pair's own, i8, f32, f64), each plan proven. Four shards rather than one test so that
// ctest runs them side by side (one test took 180-235 s of CI's ctest, at its end).
class RealPlansTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RealPlansTest, OfSampledPairsAreProven) {
  const std::string which = GetParam();
  std::map<Strategy, int> by_strategy;
  std::set<int> bits;
  int proven = 0;
  for (const Pair& pair : SamplePairs(61)) {
    const std::string dtype = which == "own" ? pair.dtype : which;
    // Known inconclusive (solver budget, not a verdict): line 366, a 64x128 slice of a
    // batched wgmma dot operand (in scope since rank-3 v3 parents, issue 10), at f64: its
    // store.once query on a source that broadcasts over 3 lane bits and 16K elements runs
    // out of budget. Its f16 round trip is proven (compare --prove), and so are its i8
    // and f32 plans here. Not proven here: its two proofs ran to the budget for 53 of
    // this shard's 72 s, and asserted nothing.
    if (pair.line == 366 && dtype == "f64") continue;
    // The plans of one pair, compared as plan_test compares plans (strategy, program,
    // stage): kAuto's plan is one of the forced strategies' (mostly smem's), and proving
    // the same plan again proves nothing new (the f32 shard took 18 s with the repeats,
    // 9 s without).
    std::set<std::string> seen;
    for (Strategy s : {Strategy::kAuto, Strategy::kRegisters, Strategy::kShuffle,
                       Strategy::kSmem}) {
      auto p = PlanPair(pair, s, dtype);
      if (!p) continue;
      const std::string key = absl::StrCat(sim::plan::StrategyName(p->plan.strategy), "\n",
                                           sim::plan::ProgramToString(p->plan.program), "\n",
                                           p->plan.stage.SerializeAsString());
      if (!seen.insert(key).second) continue;
      PlanProof proof = Prove(*p);
      EXPECT_EQ(proof.verdict, Verdict::kHolds)
          << "line " << pair.line << " " << dtype << " "
          << sim::plan::StrategyName(p->plan.strategy) << ": " << Summary(proof);
      if (proof.verdict != Verdict::kHolds) continue;
      ++proven;
      ++by_strategy[p->plan.strategy];
      bits.insert(p->problem.element_bits);
    }
  }
  RecordProperty("proven", proven);
  RecordProperty("registers", by_strategy[Strategy::kRegisters]);
  RecordProperty("shuffle", by_strategy[Strategy::kShuffle]);
  RecordProperty("smem", by_strategy[Strategy::kSmem]);
  EXPECT_GT(proven, 15);
  EXPECT_GT(by_strategy[Strategy::kRegisters], 0);
  EXPECT_GT(by_strategy[Strategy::kShuffle], 0);
  EXPECT_GT(by_strategy[Strategy::kSmem], 5);
  if (which == "own") {
    EXPECT_GE(bits.size(), 2u);  // the sample's own types: 16- and 32-bit at least
  } else {
    const int want = which == "i8" ? 8 : which == "f32" ? 32 : 64;
    EXPECT_EQ(bits, std::set<int>{want});
  }
}

INSTANTIATE_TEST_SUITE_P(PlanProveTest, RealPlansTest,
                         ::testing::Values("own", "i8", "f32", "f64"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

TEST(PlanProveTest, ObligationsOfAnSmemPlanAreNamedAndEachProven) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned&) { return true; });
  ASSERT_TRUE(p.has_value());
  PlanProof proof = Prove(*p);
  ASSERT_EQ(proof.verdict, Verdict::kHolds) << Summary(proof);
  std::vector<std::string> names;
  for (const auto& ob : proof.obligations) {
    names.push_back(ob.name);
    EXPECT_EQ(ob.verdict, Verdict::kHolds) << ob.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"vector.aligned", "store.injective", "store.once",
                                             "store.every", "delivers", "barrier.scope",
                                             "bank.store", "bank.load"}));
  EXPECT_GE(proof.queries, 6);
}

TEST(PlanProveTest, ShuffleLaneMapMutationIsRefuted) {
  auto p = FindPlan(Strategy::kShuffle, [](const Planned& x) { return HasOp(x, OpKind::kShflBfly); });
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(Prove(*p).verdict, Verdict::kHolds);
  for (auto& op : p->plan.program.ops) {
    if (op.kind == OpKind::kShflBfly) {
      op.imm ^= op.imm == 1 ? 3 : 1;
      break;
    }
  }
  ExpectRefuted(*p, "delivers");
}

TEST(PlanProveTest, ShuffleIndexMapMutationIsRefuted) {
  auto p = FindPlan(Strategy::kShuffle, [](const Planned& x) { return HasOp(x, OpKind::kShflIdx); });
  if (!p) GTEST_SKIP() << "no sampled shuffle plan uses shfl.idx";
  auto& prog = p->plan.program;
  for (auto& op : prog.ops) {
    if (op.kind == OpKind::kShflIdx) {
      sim::plan::SetupValue v = prog.setup[op.addr];
      v.constant ^= 1;  // every receiver reads the neighbouring lane
      prog.setup.push_back(v);
      op.addr = static_cast<int>(prog.setup.size()) - 1;
      break;
    }
  }
  ExpectRefuted(*p, "delivers");
}

TEST(PlanProveTest, SelectChoiceMutationIsRefuted) {
  auto p = FindPlan(Strategy::kShuffle, [](const Planned& x) { return HasOp(x, OpKind::kSelp); });
  ASSERT_TRUE(p.has_value());
  for (auto& op : p->plan.program.ops) {
    if (op.kind == OpKind::kSelp) {
      std::swap(op.in[0], op.in[1]);
      break;
    }
  }
  ExpectRefuted(*p, "delivers");
}

TEST(PlanProveTest, SwizzleBitMutationIsRefuted) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned&) { return true; });
  ASSERT_TRUE(p.has_value());
  auto& prog = p->plan.program;
  // The store addresses of lane bit 0 get one more offset bit (a different XOR swizzle).
  for (auto& op : prog.ops) {
    if (op.kind != OpKind::kStShared) continue;
    sim::plan::SetupValue v = prog.setup[op.addr];
    v.coeff[0] ^= 1u << 3;
    prog.setup.push_back(v);
    op.addr = static_cast<int>(prog.setup.size()) - 1;
  }
  PlanProof proof = Prove(*p);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  EXPECT_NE(SimFailure(*p), "") << proof.counterexample->text;
}

TEST(PlanProveTest, VectorAlignmentMutationIsRefuted) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned& x) {
    for (const auto& op : x.plan.program.ops) {
      if (op.kind == OpKind::kLdShared && op.out.size() * op.elem_bytes >= 8) return true;
    }
    return false;
  });
  ASSERT_TRUE(p.has_value());
  for (auto& op : p->plan.program.ops) {
    if (op.kind == OpKind::kLdShared && op.out.size() * op.elem_bytes >= 8) {
      op.imm += 4;
      break;
    }
  }
  ExpectRefuted(*p, "vector.aligned");
}

TEST(PlanProveTest, VectorWidthMutationIsRefuted) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned& x) {
    for (const auto& op : x.plan.program.ops) {
      if (op.kind == OpKind::kStShared && op.in.size() == 4) return true;
    }
    return false;
  });
  ASSERT_TRUE(p.has_value());
  for (auto& op : p->plan.program.ops) {
    if (op.kind == OpKind::kStShared && op.in.size() == 4) {
      op.in.resize(2);  // st.v4 -> st.v2: half of the vector is never stored
      break;
    }
  }
  PlanProof proof = Prove(*p);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  EXPECT_EQ(proof.counterexample->obligation, "store.every") << proof.counterexample->text;
  EXPECT_NE(SimFailure(*p), "");
}

TEST(PlanProveTest, DroppedBroadcastPredicateIsRefuted) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned& x) {
    for (const auto& op : x.plan.program.ops) {
      if (op.kind == OpKind::kStShared && op.pred >= 0) return true;
    }
    return false;
  });
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(Prove(*p).verdict, Verdict::kHolds);
  for (auto& op : p->plan.program.ops) {
    if (op.kind == OpKind::kStShared) op.pred = -1;
  }
  PlanProof proof = Prove(*p);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  ASSERT_EQ(proof.counterexample->obligation, "store.injective") << proof.counterexample->text;
  EXPECT_NE(proof.counterexample->other_thread, proof.counterexample->thread);
  // Two threads write one shared byte: the simulator reports the race (or the wavefronts
  // differ from the prediction, which counted one store per element).
  std::map<std::string, uint64_t> c;
  const std::string why = SimFailure(*p, &c);
  EXPECT_TRUE(!why.empty() || c["smem_wavefronts.store"] !=
                                  static_cast<uint64_t>(p->plan.cost.wavefronts_store))
      << why;
}

TEST(PlanProveTest, ForcedConflictsArePredictedExactlyAndAWrongPredictionIsRefuted) {
  const std::string src =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>";
  const std::string dst =
      "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
      "order = [0, 1]}>";
  auto problem = sim::plan::MakeProblem(src, dst, {64, 64}, sim::plan::DType::kF32, 4);
  ASSERT_TRUE(problem.ok());
  sim::plan::PlanOptions o;
  o.no_matrix = true;  // plain st/ld.shared on both sides, as the conflicts are forced
  o.strategy = Strategy::kSmem;
  o.no_swizzle = true;
  o.max_vector_bytes = 4;
  auto plan = sim::plan::PlanConversion(*problem, o);
  ASSERT_TRUE(plan.ok());
  Planned p{*problem, *plan};
  ASSERT_GT(p.plan.cost.conflicts_store + p.plan.cost.conflicts_load, 0);
  PlanProof proof = Prove(p);
  EXPECT_EQ(proof.verdict, Verdict::kHolds) << Summary(proof);
  // One conflict fewer predicted than the accesses cause.
  Planned wrong = p;
  if (wrong.plan.cost.conflicts_load > 0) {
    --wrong.plan.cost.conflicts_load;
  } else {
    --wrong.plan.cost.conflicts_store;
  }
  proof = Prove(wrong);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  EXPECT_TRUE(proof.counterexample->obligation == "bank.load" ||
              proof.counterexample->obligation == "bank.store");
  // The simulator counts what the unaltered prediction said, not the altered one.
  std::map<std::string, uint64_t> c;
  ASSERT_EQ(SimFailure(p, &c), "");
  EXPECT_EQ(c["bank_conflicts.load"], static_cast<uint64_t>(p.plan.cost.conflicts_load));
  EXPECT_NE(c["bank_conflicts.load"] + c["bank_conflicts.store"],
            static_cast<uint64_t>(wrong.plan.cost.conflicts_load + wrong.plan.cost.conflicts_store));
}

struct Tally {
  int holds = 0, violated = 0, unseen_copies = 0;
};

// Proves a (corrupted) plan and checks the verdict against the simulator: "holds" runs
// correctly with the predicted counters; "violated" shows wrong data, a fault or other
// counters — or the wrong word is a destination broadcast copy.
void Agree(const Planned& p, int line, Tally& tally) {
  PlanProveOptions o;
  o.stop_at_first_violation = false;
  auto proof = ProvePlan(p.problem, p.plan, o);
  ASSERT_TRUE(proof.ok()) << proof.status();
  std::map<std::string, uint64_t> c;
  const std::string why = SimFailure(p, &c);
  const bool counters_differ =
      c["smem_wavefronts.store"] != static_cast<uint64_t>(p.plan.cost.wavefronts_store) ||
      c["smem_wavefronts.load"] != static_cast<uint64_t>(p.plan.cost.wavefronts_load) ||
      c["bank_conflicts.store"] != static_cast<uint64_t>(p.plan.cost.conflicts_store) ||
      c["bank_conflicts.load"] != static_cast<uint64_t>(p.plan.cost.conflicts_load);
  if (proof->verdict == Verdict::kViolated) {
    ++tally.violated;
    // The once harness stores one copy of each element (the canonical one), so a wrong
    // *broadcast copy* in the destination is invisible to it; the prover still refutes
    // it (a consumer reads every copy).
    uint32_t free_regs = 0, free_tid = 0;
    p.problem.dst.FreeBits(&free_regs, &free_tid);
    const PlanCounterexample& cex = *proof->counterexample;
    const bool copy = cex.obligation == "delivers" &&
                      ((cex.thread & free_tid) != 0 || (cex.reg & free_regs) != 0);
    if (why.empty() && !counters_differ && copy) ++tally.unseen_copies;
    EXPECT_TRUE(!why.empty() || counters_differ || copy) << "line " << line << ": " << cex.text;
  }
  if (proof->verdict != Verdict::kHolds) return;
  ++tally.holds;
  EXPECT_EQ(why, "") << "line " << line << ": " << Summary(*proof);
  EXPECT_FALSE(counters_differ) << "line " << line;
}

// Regression: a plan made with barrier_before_store (PlanRoundTrip's shared-buffer and
// lone smem directions) starts with a barrier; the barrier that orders the stores before
// the loads is the one after the first store (the prover took the first barrier and
// refuted 4 of the corpus round trips). Dropping that one is still refuted.
TEST(PlanProveTest, BarrierBeforeStoreIsNotTheOrderingBarrier) {
  const std::string src =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>";
  const std::string dst =
      "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
      "order = [0, 1]}>";
  auto problem = sim::plan::MakeProblem(src, dst, {64, 64}, sim::plan::DType::kF32, 4);
  ASSERT_TRUE(problem.ok());
  sim::plan::PlanOptions o;
  o.strategy = Strategy::kSmem;
  o.barrier_before_store = true;
  auto plan = sim::plan::PlanConversion(*problem, o);
  ASSERT_TRUE(plan.ok());
  Planned p{*problem, *plan};
  auto& ops = p.plan.program.ops;
  ASSERT_EQ(ops[0].kind, OpKind::kBarSync) << sim::plan::ProgramToString(p.plan.program);
  PlanProof proof = Prove(p);
  EXPECT_EQ(proof.verdict, Verdict::kHolds) << Summary(proof);
  size_t second = 1;
  while (second < ops.size() && ops[second].kind != OpKind::kBarSync) ++second;
  ASSERT_LT(second, ops.size());
  ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(second));
  ExpectRefuted(p, "barrier.scope");
}

// Agreement with the simulator: random single corruptions of sampled plans. Whenever the
// prover says "holds", the corrupted plan, run on the simulator, converts every element
// and counts exactly the predicted wavefronts and conflicts; whenever it says
// "violated", the simulator sees wrong data, a fault, or other counts — or the wrong
// word is a destination broadcast copy, which the once harness does not store.
TEST(PlanProveTest, RandomCorruptionsThatProveAlsoRunCorrectly) {
  std::mt19937 rng(20261201);
  Tally tally;
  for (const Pair& pair : SamplePairs(41, 5)) {
    if (pair.shape.size() != 2 || pair.shape[0] * pair.shape[1] > 64 * 64) continue;
    for (Strategy s : {Strategy::kShuffle, Strategy::kSmem}) {
      auto base = PlanPair(pair, s);
      if (!base || base->plan.program.ops.empty()) continue;
      for (int trial = 0; trial < 4; ++trial) {
        Planned p = *base;
        auto& prog = p.plan.program;
        auto& op = prog.ops[rng() % prog.ops.size()];
        switch (op.kind) {
          case OpKind::kShflBfly: op.imm ^= 1u << (rng() % 5); break;
          case OpKind::kSelp: std::swap(op.in[0], op.in[1]); break;
          case OpKind::kStShared:
          case OpKind::kLdShared:
          case OpKind::kShflIdx: {
            sim::plan::SetupValue v = prog.setup[op.addr];
            if (rng() % 2 && !v.coeff.empty()) {
              v.coeff[rng() % v.coeff.size()] ^= 1u << (rng() % 4);
            } else {
              v.constant ^= 1u << (rng() % 4);
            }
            prog.setup.push_back(v);
            op.addr = static_cast<int>(prog.setup.size()) - 1;
            break;
          }
          default: continue;
        }
        Agree(p, pair.line, tally);
      }
    }
  }
  // Most corruptions break something; some (a select whose arms are equal where it
  // matters, an address bit a broadcast copy ignores) do not.
  EXPECT_GT(tally.violated, 10);
  RecordProperty("holds", tally.holds);
  RecordProperty("violated", tally.violated);
  RecordProperty("wrong_broadcast_copies_the_harness_cannot_see", tally.unseen_copies);
}

// The same agreement for matrix plans: random corruptions of the matrix ops' row
// addresses, immediates and .trans.
TEST(PlanProveTest, RandomMatrixCorruptionsAgreeWithTheSimulator) {
  std::mt19937 rng(20261202);
  Tally tally;
  for (const Planned& base : MatrixPlans(3, [](const Planned&) { return true; })) {
    for (int trial = 0; trial < 6; ++trial) {
      Planned p = base;
      auto& prog = p.plan.program;
      std::vector<sim::plan::Op*> matrix;
      for (auto& op : prog.ops) {
        if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) matrix.push_back(&op);
      }
      sim::plan::Op& op = *matrix[rng() % matrix.size()];
      switch (trial % 3) {
        case 0: op.trans = !op.trans; break;
        case 1: op.imm ^= 16u << (rng() % 4); break;
        default: {
          sim::plan::SetupValue v = prog.setup[op.addr];
          v.coeff[rng() % v.coeff.size()] ^= (16u / v.element_bytes) << (rng() % 3);
          prog.setup.push_back(v);
          op.addr = static_cast<int>(prog.setup.size()) - 1;
        }
      }
      Agree(p, 0, tally);
    }
  }
  EXPECT_GT(tally.violated, 6);
  RecordProperty("holds", tally.holds);
  RecordProperty("violated", tally.violated);
}

// Matrix stages: every matrix plan of sampled 16-bit pairs holds, and the simulator runs
// it correctly with exactly the wavefronts and conflicts the bank obligations priced.
// The matrix ops of a plan ("st.trans.x4", ...).
std::set<std::string> MatrixKinds(const Planned& p) {
  std::set<std::string> out;
  for (const auto& op : p.plan.program.ops) {
    if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) {
      out.insert(std::string(op.kind == OpKind::kStMatrix ? "st" : "ld") +
                 (op.trans ? ".trans" : "") + ".x" + std::to_string(op.in.size() + op.out.size()));
    }
  }
  return out;
}

TEST(PlanProveTest, MatrixPlansOfRealPairsAreProven) {
  std::set<std::string> seen;
  int proven = 0;
  // The first four matrix plans, then those with a matrix op not seen yet.
  std::set<std::string> taken;
  int count = 0;
  auto want = [&](const Planned& x) {
    bool fresh = false;
    for (const std::string& k : MatrixKinds(x)) fresh = taken.insert(k).second || fresh;
    return fresh || ++count <= 4;
  };
  for (const Planned& p : MatrixPlans(8, want)) {
    PlanProof proof = Prove(p);
    EXPECT_EQ(proof.verdict, Verdict::kHolds) << p.problem.src_attr << " -> "
                                              << p.problem.dst_attr << ": " << Summary(proof);
    if (proof.verdict != Verdict::kHolds) continue;
    ++proven;
    for (const std::string& k : MatrixKinds(p)) seen.insert(k);
    std::map<std::string, uint64_t> c;
    EXPECT_EQ(SimFailure(p, &c), "");
    EXPECT_EQ(c["smem_wavefronts.store"], static_cast<uint64_t>(p.plan.cost.wavefronts_store));
    EXPECT_EQ(c["smem_wavefronts.load"], static_cast<uint64_t>(p.plan.cost.wavefronts_load));
    EXPECT_EQ(c["bank_conflicts.store"], static_cast<uint64_t>(p.plan.cost.conflicts_store));
    EXPECT_EQ(c["bank_conflicts.load"], static_cast<uint64_t>(p.plan.cost.conflicts_load));
  }
  EXPECT_GE(proven, 4);
  RecordProperty("matrix_ops", absl::StrJoin(seen, " "));
  EXPECT_GE(seen.size(), 2u) << absl::StrJoin(seen, " ");
}

// An ldmatrix row address one 16-byte row off (lane bit 0's row moves by a row): the
// loads read other elements.
TEST(PlanProveTest, MatrixRowAddressMutationIsRefuted) {
  auto ps = MatrixPlans(1, [](const Planned& x) { return HasOp(x, OpKind::kLdMatrix); });
  ASSERT_FALSE(ps.empty());
  Planned p = ps[0];
  auto& prog = p.plan.program;
  sim::plan::Op* op = FirstOp(p, OpKind::kLdMatrix);
  sim::plan::SetupValue v = prog.setup[op->addr];
  v.coeff[0] ^= 16 / v.element_bytes;
  prog.setup.push_back(v);
  op->addr = static_cast<int>(prog.setup.size()) - 1;
  ExpectRefuted(p, "delivers");
}

// .trans flipped on one matrix op: the same rows, the bytes transposed.
TEST(PlanProveTest, MatrixTransMutationIsRefuted) {
  auto ps = MatrixPlans(1, [](const Planned&) { return true; });
  ASSERT_FALSE(ps.empty());
  Planned p = ps[0];
  for (auto& op : p.plan.program.ops) {
    if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) {
      op.trans = !op.trans;
      break;
    }
  }
  ExpectRefuted(p, "delivers");
}

// A stmatrix .x4 that stores only two of its matrices (.x2): half its elements are
// never stored.
TEST(PlanProveTest, DroppedMatrixIsRefuted) {
  auto ps = MatrixPlans(1, [](const Planned& x) {
    for (const auto& op : x.plan.program.ops) {
      if (op.kind == OpKind::kStMatrix && op.in.size() == 4) return true;
    }
    return false;
  });
  ASSERT_FALSE(ps.empty());
  Planned p = ps[0];
  for (auto& op : p.plan.program.ops) {
    if (op.kind == OpKind::kStMatrix && op.in.size() == 4) {
      op.in.resize(2);
      break;
    }
  }
  PlanProof proof = Prove(p);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  EXPECT_EQ(proof.counterexample->obligation, "store.every") << proof.counterexample->text;
  EXPECT_NE(proof.counterexample->text.find("never stored"), std::string::npos);
  EXPECT_NE(SimFailure(p), "");
}

// A matrix op's row address off by 8 bytes: vector.aligned names the row and the lane.
TEST(PlanProveTest, MisalignedMatrixRowIsRefuted) {
  auto ps = MatrixPlans(1, [](const Planned&) { return true; });
  ASSERT_FALSE(ps.empty());
  Planned p = ps[0];
  for (auto& op : p.plan.program.ops) {
    if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) {
      op.imm += 8;
      break;
    }
  }
  ExpectRefuted(p, "vector.aligned");
}

// stmatrix over source lanes that hold broadcast copies (as Triton lowers these pairs,
// corpus/plan lines 44 and 691): the copied rows write the same data at the same address
// and are not live stores; the plans prove and run.
Planned PlanAttrs(const std::string& src, const std::string& dst, std::vector<int64_t> shape,
                  sim::plan::DType dtype) {
  auto problem = sim::plan::MakeProblem(src, dst, shape, dtype, 4);
  EXPECT_TRUE(problem.ok()) << problem.status();
  auto plan = sim::plan::PlanConversion(*problem, sim::plan::PlanOptions{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return Planned{*std::move(problem), *std::move(plan)};
}

constexpr char kBlocked64x1[] =
    "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>";
constexpr char kMmaV3[] =
    "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = "
    "[16, 32, 16]}>";
constexpr char kSliceRows[] =
    "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
    "[1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>";
constexpr char kSliceCols[] =
    "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
    "[1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>";

TEST(PlanProveTest, MatrixStoresOfCopiedLanesAreProven) {
  for (const Planned& p : {PlanAttrs(kBlocked64x1, kMmaV3, {64, 1}, sim::plan::DType::kF16),
                           PlanAttrs(kSliceRows, kSliceCols, {64}, sim::plan::DType::kI32)}) {
    ASSERT_TRUE(HasOp(p, OpKind::kStMatrix)) << p.problem.src_attr;
    PlanProof proof = Prove(p);
    EXPECT_EQ(proof.verdict, Verdict::kHolds) << p.problem.src_attr << ": " << Summary(proof);
    EXPECT_EQ(SimFailure(p), "") << p.problem.src_attr;
  }
}

// The copied rows moved to another row's address: no longer copies, they overwrite it.
TEST(PlanProveTest, CopiedRowAtAnotherAddressIsRefuted) {
  Planned p = PlanAttrs(kSliceRows, kSliceCols, {64}, sim::plan::DType::kI32);
  auto& prog = p.plan.program;
  sim::plan::Op* op = FirstOp(p, OpKind::kStMatrix);
  ASSERT_NE(op, nullptr);
  sim::plan::SetupValue v = prog.setup[op->addr];
  ASSERT_EQ(v.coeff.at(2), 0u);  // row bit 2: the source's lane 4, a broadcast copy
  v.coeff[2] = 16 / v.element_bytes;
  prog.setup.push_back(v);
  op->addr = static_cast<int>(prog.setup.size()) - 1;
  PlanProof proof = Prove(p);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << Summary(proof);
  EXPECT_EQ(proof.counterexample->obligation, "store.injective")
      << proof.counterexample->text;
}

// Round trips (round_trip_prove.h), as `convert emit --harness=roundtrip` plans them.
struct Trip {
  ConversionProblem problem;
  sim::ptx::RoundTrip trip;
};

std::vector<Trip> SampleTrips(int every, const std::function<bool(const Trip&)>& want,
                              size_t max) {
  std::vector<Trip> out;
  for (const Pair& pair : SamplePairs(every)) {
    if (out.size() >= max) break;
    if (pair.shape.size() != 2 || pair.shape[0] * pair.shape[1] > 64 * 64) continue;
    auto dt = sim::plan::ParseDType(pair.dtype);
    if (!dt.ok()) continue;
    auto problem = sim::plan::MakeProblem(pair.src, pair.dst, pair.shape, *dt, pair.warps);
    if (!problem.ok()) continue;
    auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
    if (!trip.ok()) continue;
    Trip t{*std::move(problem), *std::move(trip)};
    if (want(t)) out.push_back(std::move(t));
  }
  return out;
}

RoundTripProof ProveTrip(const Trip& t) {
  auto proof = ProveRoundTrip(t.problem, t.trip.forward, t.trip.backward, PlanProveOptions{});
  EXPECT_TRUE(proof.ok()) << proof.status();
  return proof.ok() ? *proof : RoundTripProof{};
}

std::string TripSummary(const RoundTripProof& p) {
  std::string s = VerdictName(p.verdict) + " (" + p.reason + ")";
  for (const auto& ob : p.composition) s += " | " + ob.name + ": " + ob.detail;
  return s;
}

bool UsesSmem(const ConversionPlan& p) { return p.program.smem_bytes > 0; }

TEST(PlanProveTest, RoundTripsOfSampledPairsAreProvenBothWays) {
  int proven = 0, direct = 0, matrix = 0;
  for (const Trip& t : SampleTrips(41, [](const Trip&) { return true; }, 16)) {
    RoundTripProof proof = ProveTrip(t);
    EXPECT_EQ(proof.verdict, Verdict::kHolds) << t.problem.src_attr << " -> "
                                              << t.problem.dst_attr << ": " << TripSummary(proof);
    if (proof.verdict != Verdict::kHolds) continue;
    ++proven;
    EXPECT_EQ(proof.forward.verdict, Verdict::kHolds);
    EXPECT_EQ(proof.backward.verdict, Verdict::kHolds);
    ASSERT_EQ(proof.composition.size(), 3u);
    EXPECT_EQ(proof.composition[0].name, "roundtrip.chain");
    EXPECT_EQ(proof.composition[1].name, "roundtrip.identity");
    EXPECT_EQ(proof.composition[2].name, "roundtrip.buffers");
    if (proof.composition[1].detail.find("directly") != std::string::npos) ++direct;
    for (const ConversionPlan* p : {&t.trip.forward, &t.trip.backward}) {
      for (const auto& op : p->program.ops) {
        matrix += op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix;
      }
    }
  }
  EXPECT_GE(proven, 10);
  EXPECT_GE(direct, 1);  // register-only bodies, proven as printed
  RecordProperty("proven", proven);
  RecordProperty("register_bodies_proven_directly", direct);
  RecordProperty("matrix_ops", matrix);
}

// Both directions moved into one buffer (as PlanRoundTrip does for large tensors) but
// without the barrier before the backward stores: each direction still holds on its own,
// but the backward stores race with the forward loads of the same iteration.
TEST(PlanProveTest, RoundTripSharingABufferWithoutBarrierIsRefuted) {
  auto trips = SampleTrips(3, [](const Trip& t) {
    return UsesSmem(t.trip.forward) && UsesSmem(t.trip.backward) &&
           t.trip.backward.program.ops[0].kind != OpKind::kBarSync;
  }, 1);
  ASSERT_FALSE(trips.empty());
  Trip t = trips[0];
  for (auto& v : t.trip.backward.program.setup) v.buffer = 0;
  RoundTripProof proof = ProveTrip(t);
  EXPECT_EQ(proof.forward.verdict, Verdict::kHolds) << TripSummary(proof);
  EXPECT_EQ(proof.backward.verdict, Verdict::kHolds) << TripSummary(proof);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << TripSummary(proof);
  EXPECT_EQ(proof.composition[2].verdict, Verdict::kViolated);
  EXPECT_NE(proof.composition[2].detail.find("later in the same iteration"), std::string::npos)
      << proof.composition[2].detail;
  RecordProperty("counterexample", proof.composition[2].detail);
  // The same trip with its own buffers holds.
  EXPECT_EQ(ProveTrip(trips[0]).verdict, Verdict::kHolds);
}

// A backward plan with a wrong select: the round trip is refuted (backward delivers, and
// so the composition), the forward direction still holds.
TEST(PlanProveTest, RoundTripWithCorruptedBackwardIsRefuted) {
  auto trips = SampleTrips(3, [](const Trip& t) {
    for (const auto& op : t.trip.backward.program.ops) if (op.kind == OpKind::kSelp) return true;
    return false;
  }, 1);
  ASSERT_FALSE(trips.empty());
  Trip t = trips[0];
  for (auto& op : t.trip.backward.program.ops) {
    if (op.kind == OpKind::kSelp) {
      std::swap(op.in[0], op.in[1]);
      break;
    }
  }
  RoundTripProof proof = ProveTrip(t);
  ASSERT_EQ(proof.verdict, Verdict::kViolated) << TripSummary(proof);
  EXPECT_EQ(proof.forward.verdict, Verdict::kHolds);
  EXPECT_EQ(proof.backward.verdict, Verdict::kViolated);
  ASSERT_TRUE(proof.backward.counterexample.has_value());
  EXPECT_EQ(proof.backward.counterexample->obligation, "delivers");
  EXPECT_EQ(proof.composition[1].verdict, Verdict::kViolated);
}

TEST(PlanProveTest, SpentRlimitIsInconclusiveNeverAVerdict) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned&) { return true; });
  ASSERT_TRUE(p.has_value());
  PlanProveOptions o;
  o.solver.rlimit = 1;
  auto proof = ProvePlan(p->problem, p->plan, o);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->verdict, Verdict::kInconclusive) << Summary(*proof);
  EXPECT_NE(proof->reason.find("unknown"), std::string::npos) << proof->reason;
}

TEST(PlanProveTest, PlanThatDoesNotFitItsProblemIsInvalidArgument) {
  auto p = FindPlan(Strategy::kSmem, [](const Planned&) { return true; });
  ASSERT_TRUE(p.has_value());
  p->plan.program.outputs.pop_back();
  auto proof = ProvePlan(p->problem, p->plan, PlanProveOptions{});
  ASSERT_FALSE(proof.ok());
  EXPECT_EQ(proof.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(proof.status().message().find("output words"), std::string::npos);
}

}  // namespace
}  // namespace warpcheck::verify::plan
