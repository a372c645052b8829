// The counter abstraction of sim/signal/explore (issue 14, item 8) must not change a
// verdict: on every corpus/signal program whose exploration without it finishes within
// kBound states, the exploration with it gives the same outcome, the same cause and the
// same set of distinct terminal states (outcome, blocked agents, final values). On the
// many-adders programs it is also compared with the unreduced exploration at small rank
// counts, and its state counts at 8 and 16 ranks are held.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/base/enum_name.h"
#include "sim/signal/driver.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

constexpr int64_t kBound = 100000;

using testing::CorpusDir;
using testing::CorpusFiles;
using testing::TerminalKey;
using testing::Terminals;

// Requires: a is the reference. Compares outcome, cause and terminal states.
void ExpectSameVerdict(const SignalReport& a, const SignalReport& b, const std::string& what) {
  EXPECT_EQ(b.outcome(), a.outcome()) << what << "\n" << b.explanation().text() << "\nvs\n"
                                      << a.explanation().text();
  EXPECT_EQ(b.explanation().cause(), a.explanation().cause()) << what;
  if (a.terminals_size() < 256 && b.terminals_size() < 256) {
    EXPECT_EQ(Terminals(b), Terminals(a)) << what;
  }
}

class CounterAbstractionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CounterAbstractionTest, SameVerdictWithAndWithout) {
  ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(CorpusDir() + "/" + GetParam()));
  RunOptions off;
  off.counters = false;
  off.max_states = kBound;
  ASSERT_OK_AND_ASSIGN(RunResult without, RunProgram(p, off));
  if (without.report.bound_hit())
    GTEST_SKIP() << GetParam() << ": the exploration without it hit " << kBound << " states";
  RunOptions on;
  on.max_states = kBound;
  ASSERT_OK_AND_ASSIGN(RunResult with, RunProgram(p, on));
  EXPECT_FALSE(with.report.bound_hit());
  EXPECT_LE(with.report.states(), without.report.states()) << GetParam();
  ExpectSameVerdict(without.report, with.report, GetParam());
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, CounterAbstractionTest,
                         ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param.substr(0, i.param.rfind('.'));
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(CounterAbstractionScaleTest, ManyAddersAgreeWithTheUnreducedExploration) {
  for (const char* file :
       {"s02_counter_many_adders.textproto", "s02_counter_many_adders__wait_eq_1.textproto"}) {
    for (int ranks : {2, 3}) {
      LoadOverrides o;
      o.ranks = ranks;
      ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(CorpusDir() + "/" + file, o));
      RunOptions full;
      full.reduce = false;
      ASSERT_OK_AND_ASSIGN(RunResult u, RunProgram(p, full));
      ASSERT_FALSE(u.report.bound_hit());
      ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, RunOptions{}));
      ExpectSameVerdict(u.report, r.report, absl::StrCat(file, " at ", ranks, " ranks"));
    }
  }
}

TEST(CounterAbstractionScaleTest, SixteenAddsAtEightRanksAndThirtyTwoAtSixteen) {
  for (auto [ranks, most] : {std::pair{8, 40}, std::pair{16, 80}}) {
    LoadOverrides o;
    o.ranks = ranks;
    ASSERT_OK_AND_ASSIGN(Program p,
                         LoadProgramFile(CorpusDir() + "/s02_counter_many_adders.textproto", o));
    ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, RunOptions{}));
    EXPECT_EQ(r.report.outcome(), SignalReport::completes);
    EXPECT_LE(r.report.states(), most) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace warpcheck::sim::signal
