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
using testing::CorpusDir;
using testing::CorpusFiles;
using testing::Sim;
using testing::TerminalKey;
using testing::Terminals;

// The p* protocols and their mutations (not the fixed 8-rank copies).
std::vector<std::string> Protocols() {
  std::vector<std::string> out;
  for (const std::string& f : CorpusFiles())
    if (f[0] == 'p' && f.find("_8ranks") == std::string::npos) out.push_back(f);
  return out;
}

Program Load(const std::string& file, int ranks, int64_t iterations) {
  LoadOverrides o;
  o.ranks = ranks;
  o.iterations = iterations;
  absl::StatusOr<Program> p = LoadProgramFile(CorpusDir() + "/" + file, o);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : Program{};
}

// Runs `p` with `base` and with `other`; expects the same outcome and terminal states.
// Ensures: false (and nothing expected) when the `base` run hit the bound.
bool ExpectSame(const Program& p, RunOptions base, RunOptions other, const std::string& what) {
  base.max_states = other.max_states = kBound;
  base.symmetry = other.symmetry = false;
  absl::StatusOr<RunResult> b = RunProgram(p, base);
  EXPECT_TRUE(b.ok()) << b.status();
  if (!b.ok() || b->report.bound_hit()) return false;
  absl::StatusOr<RunResult> o = RunProgram(p, other);
  EXPECT_TRUE(o.ok()) << o.status();
  if (!o.ok()) return true;
  const SignalReport& u = b->report;
  const SignalReport& r = o->report;
  EXPECT_FALSE(r.bound_hit()) << what;
  EXPECT_LE(r.states(), u.states()) << what;
  EXPECT_EQ(r.outcome(), u.outcome()) << what << "\nbase: " << u.explanation().text()
                                      << "\nguarded: " << r.explanation().text();
  if (u.terminals_size() >= 256 || r.terminals_size() >= 256) return true;
  const std::set<TerminalKey> ut = Terminals(u), rt = Terminals(r);
  EXPECT_EQ(ut.size(), rt.size()) << what;
  EXPECT_TRUE(ut == rt) << what << ": the terminal states differ";
  for (const char* kind : {"completes", "deadlock", "race", "fault"}) {
    const int64_t uc = u.outcome_counts().count(kind) ? u.outcome_counts().at(kind) : 0;
    const int64_t rc = r.outcome_counts().count(kind) ? r.outcome_counts().at(kind) : 0;
    EXPECT_EQ(uc > 0, rc > 0) << what << ": " << kind << ": base " << uc << ", guarded " << rc;
  }
  std::printf("[ guards ] %s: %lld -> %lld states\n", what.c_str(),
              static_cast<long long>(u.states()), static_cast<long long>(r.states()));
  return true;
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
  // Before any launch, only the first could be numbered, and neither has started.
  const State s0 = m.Initial();
  EXPECT_FALSE(m.NumbersBarriers(s0, (*runners)[1]));
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
