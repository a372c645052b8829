// The barrier and launch guards of the reduction (sim/signal/README.md, "Scale: barrier
// and launch guards") must not lose behaviour:
//   * on the corpus protocols and their mutations (the p* files) at 3 ranks, and at 2
//     ranks with 3 iterations (more barrier instances), exploring with and without them
//     gives the same outcome and the same distinct terminal states (the run without
//     them is the reduction reduction_test.cc checks against the unreduced exploration;
//     a program whose run without them needs more than kBound states is skipped);
//   * at 2 ranks and 3 iterations, where the unreduced exploration still finishes, the
//     same against no reduction at all;
//   * the barrier runners of each rank are found, and none when two could interleave;
//   * P02 (two calls) at 8 ranks completes reduced in a few thousand states (without the
//     guards: past 2,000,000).
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/signal/machine.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

constexpr int64_t kBound = 12000;

using testing::Build;
using testing::Protocols;
using testing::Sim;

Program Load(const std::string& file, int ranks, int64_t iterations) {
  return testing::LoadCorpus(file, ranks, iterations);
}

bool ExpectSame(const Program& p, RunOptions base, RunOptions other, const std::string& what) {
  return testing::ExpectSameExploration(p, base, other, what, kBound);
}

class SyncGuardTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SyncGuardTest, SameTerminalStatesWithAndWithoutAt3Ranks) {
  const Program p = Load(GetParam(), 3, -1);
  RunOptions without, with;
  without.sync_guards = false;
  if (!ExpectSame(p, without, with, absl::StrCat(GetParam(), " at 3 ranks")))
    GTEST_SKIP() << "without the guards: past " << kBound << " states";
}

TEST_P(SyncGuardTest, SameTerminalStatesWithAndWithoutAt2Ranks3Iterations) {
  const Program p = Load(GetParam(), 2, 3);
  RunOptions without, with;
  without.sync_guards = false;
  if (!ExpectSame(p, without, with, absl::StrCat(GetParam(), " at 2 ranks, 3 iterations")))
    GTEST_SKIP() << "without the guards: past " << kBound << " states";
}

TEST_P(SyncGuardTest, SameTerminalStatesAsUnreducedAt2Ranks3Iterations) {
  const Program p = Load(GetParam(), 2, 3);
  RunOptions unreduced, with;
  unreduced.reduce = false;
  if (!ExpectSame(p, unreduced, with, absl::StrCat(GetParam(), " unreduced, 2 ranks, 3 iterations")))
    GTEST_SKIP() << "unreduced: past " << kBound << " states";
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, SyncGuardTest, ::testing::ValuesIn(Protocols()),
                         TestName);

TEST(SyncGuardDetectTest, OneBarrierRunnerPerRank) {
  const Program p = Load("p02_allgather_push.textproto", 3, -1);
  ASSERT_OK_AND_ASSIGN(Machine m, Machine::Create(p));
  for (int r = 0; r < 3; ++r) {
    const std::vector<int>* runners = m.BarrierRunners(r);
    ASSERT_NE(runners, nullptr) << "rank " << r;
    ASSERT_EQ(runners->size(), 1u);
    EXPECT_EQ(m.info(runners->front()).name, absl::StrCat("rank", r, ".main"));
  }
}

TEST(SyncGuardDetectTest, CtasOfSuccessiveLaunchesAreSequentialRunners) {
  // P09 runs BARRIER_ALL in a kernel launched once per call (E = 2): rank r's runners
  // are the CTA of each launch that runs it, one after another.
  const Program p = Load("p09_allreduce_one_shot.textproto", 2, -1);
  ASSERT_OK_AND_ASSIGN(Machine m, Machine::Create(p));
  const std::vector<int>* runners = m.BarrierRunners(1);
  ASSERT_NE(runners, nullptr);
  ASSERT_EQ(runners->size(), 2u);
  EXPECT_NE(m.info((*runners)[0]).launch, m.info((*runners)[1]).launch);
  // Before any launch, the first runner's next arrival is instance 0 and the second's
  // comes after the first's one arrival: instance 1.
  const State s0 = m.Initial();
  EXPECT_EQ(m.BarrierBase(s0, (*runners)[0]), 0);
  EXPECT_EQ(m.BarrierBase(s0, (*runners)[1]), 1);
}

TEST(SyncGuardDetectTest, AStreamAndItsCtasAreSequentialRunners) {
  // P06 runs BARRIER_ALL in its stream (start_barrier) and in the kernel it launches
  // once per call (end_barrier): the stream waits in each LAUNCH until the CTA exits, so
  // the three arrive one after another.
  const Program p = Load("p06_ring_reduce_scatter.textproto", 2, -1);
  ASSERT_OK_AND_ASSIGN(Machine m, Machine::Create(p));
  const std::vector<int>* runners = m.BarrierRunners(0);
  ASSERT_NE(runners, nullptr);
  ASSERT_EQ(runners->size(), 3u);
  // Before anything runs, the stream's start_barrier is instance 0; the first call's
  // CTA arrives at 1, the second call's start_barrier is 2, its CTA arrives at 3.
  const State s0 = m.Initial();
  std::vector<int64_t> bases;
  for (int a : *runners) {
    if (m.info(a).kind == AgentKind::kCta) {
      EXPECT_EQ(m.StaticArrivals(a), 1) << m.info(a).name;
    }
    bases.push_back(m.BarrierBase(s0, a));
  }
  std::sort(bases.begin(), bases.end());
  EXPECT_EQ(bases, (std::vector<int64_t>{0, 1, 3}));
}

TEST(SyncGuardDetectTest, TwoBarrierAgentsOnARankIsNone) {
  // Two streams per rank both run BARRIER_ALL: the per-rank instance count is shared,
  // so no walk can number its barriers.
  Sim s = Build(R"pb(
    ranks: 2
    objects { name: "S" dtype: U64 size: "1" init: 0 }
    kernels { name: "k" grid: "1"
      body { kind: NOTIFY site: "nt" object: "S" rank: "(r + 1) % N" index: "0" value: "1"
             scope: INTRA_NODE } }
    streams { name: "a" body { kind: BARRIER_ALL site: "ba" } body { kind: LAUNCH site: "la" kernel: "k" } }
    streams { name: "b" body { kind: BARRIER_ALL site: "bb" } }
  )pb");
  ASSERT_NE(s.m, nullptr);
  EXPECT_EQ(s.m->BarrierRunners(0), nullptr);
  EXPECT_EQ(s.m->BarrierRunners(1), nullptr);
}

TEST(SyncGuardScaleTest, P02TwoCallsAt8RanksCompletes) {
  const Program p = Load("p02_allgather_push.textproto", 8, -1);
  ASSERT_EQ(p.iterations, 2);
  RunOptions o;
  o.max_states = 20000;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, o));
  EXPECT_FALSE(r.report.bound_hit()) << r.report.states() << " states";
  EXPECT_EQ(r.report.outcome(), SignalReport::completes) << r.report.explanation().text();
}

}  // namespace
}  // namespace warpcheck::sim::signal
