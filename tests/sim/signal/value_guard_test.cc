// The grid-barrier and value guards of the reduction (sim/signal/README.md, "Scale:
// grid barriers and writes that cannot satisfy a wait") must not lose behaviour:
//   * on the corpus protocols, their mutations and the s02 counters at 2, 3 and 4 ranks,
//     exploring with and without them gives the same outcome, the same distinct
//     terminal states, and a deadlock (race, fault, completion) found by both or neither
//     (the run without them is the reduction sync_guard_test.cc and reduction_test.cc
//     check; a program whose run without them needs more than kBound states is skipped);
//   * at 2 ranks (and with one CTA per rank), where the unreduced exploration finishes,
//     the same against no reduction at all;
//   * on inline programs where a third agent can, or only seemingly can, satisfy the
//     wait, against no reduction;
//   * P09 and P05 at 8 ranks complete in a few thousand states.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

constexpr int64_t kBound = 12000;

using testing::ExpectSameExploration;
using testing::LoadCorpus;

class ValueGuardTest : public ::testing::TestWithParam<std::string> {};

void CompareWithAndWithout(const std::string& file, int ranks) {
  const Program p = LoadCorpus(file, ranks, -1);
  RunOptions without, with;
  without.value_guards = false;
  if (!ExpectSameExploration(p, without, with, absl::StrCat(file, " at ", ranks, " ranks"),
                             kBound))
    GTEST_SKIP() << "without the value guards: past " << kBound << " states";
}

TEST_P(ValueGuardTest, SameWithAndWithoutAt2Ranks) { CompareWithAndWithout(GetParam(), 2); }
TEST_P(ValueGuardTest, SameWithAndWithoutAt3Ranks) { CompareWithAndWithout(GetParam(), 3); }
TEST_P(ValueGuardTest, SameWithAndWithoutAt4Ranks) { CompareWithAndWithout(GetParam(), 4); }

TEST_P(ValueGuardTest, SameAsUnreducedAt2Ranks) {
  bool compared = false;
  for (int64_t ctas : {int64_t{-1}, int64_t{1}}) {
    const Program p = LoadCorpus(GetParam(), 2, -1, ctas);
    RunOptions unreduced, with;
    unreduced.reduce = false;
    compared |= ExpectSameExploration(
        p, unreduced, with, absl::StrCat(GetParam(), " unreduced, 2 ranks, ctas ", ctas), kBound);
  }
  if (!compared) GTEST_SKIP() << "unreduced: past " << kBound << " states";
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, ValueGuardTest, ::testing::ValuesIn(testing::ProtocolsAndCounters()),
                         TestName);

// Rank 0 waits for S == 1 and then loads D; rank 1 stores D and releases S := 1; rank 2
// writes S := `third` (after a wait on T that rank 1 sets, so its write is guarded too).
// With third = 1 rank 2 can satisfy the wait without ordering rank 1's store (a race);
// with third = 2 it can only hide rank 1's 1 (a hang when it lands first and rank 0 polls
// after it). Either way the reduced exploration must find what the unreduced one finds.
std::string ThirdWriter(int third) {
  return absl::StrCat(R"pb(
    ranks: 3
    objects { name: "S" dtype: U64 size: "1" init: 0 }
    objects { name: "T" dtype: U64 size: "1" init: 0 }
    objects { name: "D" dtype: F32 size: "1" init: 0 }
    kernels { name: "k" grid: "1"
      body { kind: IF cond: "r == 0"
        body { kind: WAIT site: "w" object: "S" rank: "0" index: "0" value: "1"
               scope: SYS sem: ACQUIRE }
        body { kind: LOAD site: "ld" object: "D" rank: "0" index: "0" expect: "7" } }
      body { kind: IF cond: "r == 1"
        body { kind: STORE site: "st" object: "D" rank: "0" index: "0" tag: "7" }
        body { kind: ST_SIGNAL site: "t1" object: "T" rank: "2" index: "0" value: "1"
               sem: RELAXED scope: SYS by: THREAD0 }
        body { kind: ST_SIGNAL site: "s1" object: "S" rank: "0" index: "0" value: "1"
               sem: RELEASE scope: SYS by: THREAD0 } }
      body { kind: IF cond: "r == 2"
        body { kind: WAIT site: "wt" object: "T" rank: "2" index: "0" value: "1"
               scope: SYS sem: ACQUIRE }
        body { kind: ST_SIGNAL site: "s2" object: "S" rank: "0" index: "0" value: ")pb",
                      third, R"pb(" sem: RELAXED scope: SYS by: THREAD0 } } }
  )pb");
}

TEST(ValueGuardInlineTest, ThirdWriterAgainstUnreduced) {
  for (int third : {0, 1, 2}) {
    testing::Sim s = testing::Build(ThirdWriter(third));
    ASSERT_NE(s.p, nullptr);
    RunOptions unreduced, with;
    unreduced.reduce = false;
    EXPECT_TRUE(ExpectSameExploration(*s.p, unreduced, with,
                                      absl::StrCat("third writer sets ", third), kBound));
  }
}

TEST(ValueGuardScaleTest, P09And05At8RanksComplete) {
  for (const char* file : {"p09_allreduce_one_shot.textproto", "p05_gemm_reduce_scatter.textproto"}) {
    const Program p = LoadCorpus(file, 8, -1);
    RunOptions o;
    o.max_states = 20000;
    ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, o));
    EXPECT_FALSE(r.report.bound_hit()) << file << ": " << r.report.states() << " states";
    EXPECT_EQ(r.report.outcome(), SignalReport::completes) << file << ": "
                                                           << r.report.explanation().text();
  }
}

}  // namespace
}  // namespace warpcheck::sim::signal
