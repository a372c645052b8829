// Lane first (sim/signal/README.md, "Scale: a satisfied lane reads first") keeps the
// terminal states up to clocks: for every terminal state of the search without it, one
// with the same outcome, blocked agents and word values, racing whenever that one races.
// So the report's outcome, its distinct terminal states and each one's race flag ("some
// execution ending here raced") must not change:
//   * on every corpus file at its own rank count, and the p* protocols, their mutations
//     and the s02 counters at 2, 3 and 4 ranks, with and without the rule (a program
//     whose run without it needs more than kBound states is skipped);
//   * against the unreduced exploration: every corpus file at its own rank count, and
//     the p* programs at 2 ranks (also with one CTA per rank);
//   * on inline programs where a write to the lane's word disables the lane, or releases
//     less than the lane acquires now (relaxed, or from a clock that does not cover the
//     current release): there the rule must not apply, and a buggy one would lose the
//     hang or the race the unreduced search finds;
//   * P08c at 8 ranks completes in a few hundred states.
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sim/base/enum_name.h"
#include "sim/signal/driver.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

constexpr int64_t kBound = 12000;

using testing::LoadCorpus;

using testing::Compare;
using testing::ExpectSameExploration;

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class LaneFirstTest : public ::testing::TestWithParam<std::string> {};

void CompareWithAndWithout(const std::string& file, int ranks) {
  const Program p = LoadCorpus(file, ranks, -1);
  RunOptions without, with;
  without.lane_first = false;
  if (!ExpectSameExploration(p, without, with, absl::StrCat(file, " at ", ranks, " ranks"),
                            kBound, Compare::kUpToClocks))
    GTEST_SKIP() << "without lane first: past " << kBound << " states";
}

TEST_P(LaneFirstTest, SameWithAndWithoutAt2Ranks) { CompareWithAndWithout(GetParam(), 2); }
TEST_P(LaneFirstTest, SameWithAndWithoutAt3Ranks) { CompareWithAndWithout(GetParam(), 3); }
TEST_P(LaneFirstTest, SameWithAndWithoutAt4Ranks) { CompareWithAndWithout(GetParam(), 4); }

TEST_P(LaneFirstTest, SameAsUnreducedAt2Ranks) {
  bool compared = false;
  for (int64_t ctas : {int64_t{-1}, int64_t{1}}) {
    const Program p = LoadCorpus(GetParam(), 2, -1, ctas);
    RunOptions unreduced, with;
    unreduced.reduce = false;
    compared |= ExpectSameExploration(
        p, unreduced, with, absl::StrCat(GetParam(), " unreduced, 2 ranks, ctas ", ctas), kBound,
        Compare::kUpToClocks);
  }
  if (!compared) GTEST_SKIP() << "unreduced: past " << kBound << " states";
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, LaneFirstTest, ::testing::ValuesIn(testing::ProtocolsAndCounters()),
                         TestName);

class LaneFirstOwnRanksTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LaneFirstOwnRanksTest, SameWithAndWithout) {
  const Program p = LoadCorpus(GetParam(), 0, -1);
  RunOptions without, with;
  without.lane_first = false;
  if (!ExpectSameExploration(p, without, with, GetParam(), kBound, Compare::kUpToClocks))
    GTEST_SKIP() << "without lane first: past " << kBound << " states";
}

TEST_P(LaneFirstOwnRanksTest, SameAsUnreduced) {
  const Program p = LoadCorpus(GetParam(), 0, -1);
  RunOptions unreduced, with;
  unreduced.reduce = false;
  if (!ExpectSameExploration(p, unreduced, with, absl::StrCat(GetParam(), " unreduced"), kBound,
                             Compare::kUpToClocks))
    GTEST_SKIP() << "unreduced: past " << kBound << " states";
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, LaneFirstOwnRanksTest,
                         ::testing::ValuesIn(testing::CorpusFiles()), TestName);

// Rank 0 waits S >= 1 (acquire, sys), syncs its threads and loads D (after the sync, so
// the wait orders the load). Rank 1 stores D, syncs, releases S := 1, then
// writes T := 1 (`t_sem`). Rank 2 waits T == 1 (`wait_sem`) and then writes S :=
// `value` (`s_sem`), so its write can only come after rank 1's: while rank 0's lane is
// ready on S = 1, rank 2's write is a future write of another agent to the lane's word.
std::string LateWriter(int value, const char* s_sem, const char* t_sem, const char* wait_sem) {
  return absl::StrCat(R"pb(
    ranks: 3
    objects { name: "S" dtype: U64 size: "1" init: 0 }
    objects { name: "T" dtype: U64 size: "1" init: 0 }
    objects { name: "D" dtype: F32 size: "1" init: 0 }
    kernels { name: "k" grid: "1"
      body { kind: IF cond: "r == 0"
        body { kind: WAIT_UNTIL site: "w" object: "S" rank: "0" index: "0" cmp: GE
               value: "1" scope: SYS sem: ACQUIRE }
        body { kind: SYNCTHREADS site: "sync" }
        body { kind: LOAD site: "ld" object: "D" rank: "0" index: "0" } }
      body { kind: IF cond: "r == 1"
        body { kind: STORE site: "st" object: "D" rank: "0" index: "0" tag: "7" }
        body { kind: SYNCTHREADS site: "st_sync" }
        body { kind: ST_SIGNAL site: "s1" object: "S" rank: "0" index: "0" value: "1"
               sem: RELEASE scope: SYS by: THREAD0 }
        body { kind: ST_SIGNAL site: "t1" object: "T" rank: "2" index: "0" value: "1"
               sem: )pb",
                      t_sem, R"pb( scope: SYS by: THREAD0 } }
      body { kind: IF cond: "r == 2"
        body { kind: WAIT_UNTIL site: "wt" object: "T" rank: "2" index: "0" cmp: EQ
               value: "1" scope: SYS sem: )pb",
                      wait_sem, R"pb( }
        body { kind: ST_SIGNAL site: "s2" object: "S" rank: "0" index: "0" value: ")pb",
                      value, R"pb(" sem: )pb", s_sem, R"pb( scope: SYS by: THREAD0 } } }
  )pb");
}

struct LateCase {
  int value;
  const char* s_sem;
  const char* t_sem;
  const char* wait_sem;
  SignalReport::Outcome outcome;  // of the unreduced search
  const char* what;
};

TEST(LaneFirstInlineTest, LateWritersAgainstUnreduced) {
  const LateCase cases[] = {
      // S := 0 after the 1: the lane can miss the 1 and hang; a write that disables the
      // lane is never dominated.
      {0, "RELEASE", "RELEASE", "ACQUIRE", SignalReport::nondeterministic, "reset to 0"},
      // S := 2 relaxed: reading it acquires nothing, so the load races; reading the 1
      // first does not. Not dominated (not a release).
      {2, "RELAXED", "RELEASE", "ACQUIRE", SignalReport::race, "relaxed 2"},
      // S := 2 released by rank 2, which read T relaxed: its clock does not cover rank
      // 1's store, so the load races. Not dominated (the clock floor does not cover).
      {2, "RELEASE", "RELEASE", "RELAXED", SignalReport::race, "release 2, no cover"},
      // S := 2 released by rank 2 after an acquire of T released after S := 1: its
      // clock covers rank 1's release, so reading the 2 orders the load as reading the 1
      // does. Dominated once rank 2 has passed its wait.
      {2, "RELEASE", "RELEASE", "ACQUIRE", SignalReport::completes, "release 2, covering"},
  };
  for (const LateCase& c : cases) {
    testing::Sim s = testing::Build(LateWriter(c.value, c.s_sem, c.t_sem, c.wait_sem));
    ASSERT_NE(s.p, nullptr);
    RunOptions unreduced, with, without;
    unreduced.reduce = false;
    without.lane_first = false;
    unreduced.symmetry = false;
    ASSERT_OK_AND_ASSIGN(RunResult u, RunProgram(*s.p, unreduced));
    EXPECT_EQ(u.report.outcome(), c.outcome) << c.what << ": " << u.report.explanation().text();
    EXPECT_TRUE(ExpectSameExploration(*s.p, unreduced, with, c.what, kBound,
                                      Compare::kUpToClocks))
        << c.what;
    EXPECT_TRUE(
        ExpectSameExploration(*s.p, without, with, c.what, kBound, Compare::kUpToClocks))
        << c.what;
  }
}

TEST(LaneFirstScaleTest, P08cAt8RanksCompletes) {
  const Program p = LoadCorpus("p08c_barrier_one_phase.textproto", 8, -1);
  RunOptions o;
  o.max_states = 2000;
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, o));
  EXPECT_FALSE(r.report.bound_hit()) << r.report.states() << " states";
  EXPECT_EQ(r.report.outcome(), SignalReport::completes) << r.report.explanation().text();
  // Without the rule the same search is cut off (393,117 states at 4 ranks already).
  RunOptions off = o;
  off.lane_first = false;
  ASSERT_OK_AND_ASSIGN(RunResult r0, RunProgram(p, off));
  EXPECT_TRUE(r0.report.bound_hit()) << r0.report.states() << " states";
}

}  // namespace
}  // namespace warpcheck::sim::signal
