// The partial-order reduction of sim/signal/explore must not lose behaviour: on every
// corpus/signal program whose unreduced exploration finishes within the bound, the
// reduced and the unreduced exploration give the same outcome and the same set of
// distinct terminal states (outcome, blocked agents, final values).
//
// Programs whose unreduced run hits the bound are skipped (GTEST_SKIP, counted in the
// summary printed at the end). The bound is kUnreducedBound states, half the 200000 one
// might pick: at 200000 the programs that do not finish (C12 x2, P02 and P08b at 8 ranks,
// P05 wrong_tile_count, ...) cost about 60 s on one core by themselves; at 100000 the
// whole test takes about 45 s.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/base/enum_name.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

constexpr int64_t kUnreducedBound = 100000;

using testing::CorpusDir;
using testing::CorpusFiles;
using testing::TerminalKey;
using testing::Terminals;

std::string Render(const TerminalKey& k) {
  std::vector<std::string> v;
  for (const auto& [name, x] : std::get<2>(k)) v.push_back(absl::StrCat(name, "=", x));
  return absl::StrCat(std::get<0>(k), " blocked [", absl::StrJoin(std::get<1>(k), ", "),
                      "] values [", absl::StrJoin(v, ", "), "]");
}

// Skipped programs, reported once at the end.
struct Skips {
  std::mutex mu;
  std::vector<std::string> names;
  int checked = 0;
};
Skips& SkipLog() {
  static Skips* s = new Skips;
  return *s;
}

class SkipSummary : public ::testing::Environment {
 public:
  void TearDown() override {
    Skips& s = SkipLog();
    if (s.checked == 0 && s.names.empty()) return;
    std::printf("[ reduction ] %d corpus program(s) compared; %zu skipped (unreduced "
                "exploration hit the bound of %lld states): %s\n",
                s.checked, s.names.size(), static_cast<long long>(kUnreducedBound),
                absl::StrJoin(s.names, ", ").c_str());
  }
};
const auto* const kSkipSummary =
    ::testing::AddGlobalTestEnvironment(new SkipSummary);  // NOLINT

class ReductionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReductionTest, SameOutcomeAndTerminalStates) {
  const std::string path = CorpusDir() + "/" + GetParam();
  ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(path));

  RunOptions full;
  full.reduce = false;
  full.max_states = kUnreducedBound;
  ASSERT_OK_AND_ASSIGN(RunResult unreduced, RunProgram(p, full));
  if (unreduced.report.bound_hit()) {
    {
      std::lock_guard<std::mutex> l(SkipLog().mu);
      SkipLog().names.push_back(GetParam());
    }
    GTEST_SKIP() << GetParam() << ": the unreduced exploration hit the bound of "
                 << kUnreducedBound << " states";
  }

  RunOptions reduced_opt;
  reduced_opt.reduce = true;
  reduced_opt.max_states = kUnreducedBound;
  ASSERT_OK_AND_ASSIGN(RunResult reduced, RunProgram(p, reduced_opt));
  {
    std::lock_guard<std::mutex> l(SkipLog().mu);
    ++SkipLog().checked;
  }
  const SignalReport& u = unreduced.report;
  const SignalReport& r = reduced.report;
  EXPECT_FALSE(r.bound_hit()) << "the reduced run needs more states than the unreduced one";
  EXPECT_LE(r.states(), u.states());
  EXPECT_EQ(r.outcome(), u.outcome())
      << "reduced: " << r.explanation().text() << "\nunreduced: " << u.explanation().text();
  if (u.outcome() == SignalReport::static_error) return;  // nothing was scheduled

  // Distinct terminal states (at most 256 are kept: compare only when neither is full).
  if (u.terminals_size() >= 256 || r.terminals_size() >= 256) {
    std::printf("[ reduction ] %s: more than 256 distinct terminal states; compared the "
                "outcome only\n",
                GetParam().c_str());
    return;
  }
  const std::set<TerminalKey> ut = Terminals(u), rt = Terminals(r);
  std::vector<std::string> lost, extra;
  for (const TerminalKey& k : ut)
    if (!rt.count(k)) lost.push_back(Render(k));
  for (const TerminalKey& k : rt)
    if (!ut.count(k)) extra.push_back(Render(k));
  EXPECT_TRUE(lost.empty()) << "terminal states the reduced exploration lost:\n  "
                            << absl::StrJoin(lost, "\n  ");
  EXPECT_TRUE(extra.empty()) << "terminal states only the reduced exploration reached:\n  "
                             << absl::StrJoin(extra, "\n  ");
  // The aggregate counts agree on which kinds of terminal exist.
  for (const char* kind : {"completes", "deadlock", "race", "fault"}) {
    const int64_t uc = u.outcome_counts().count(kind) ? u.outcome_counts().at(kind) : 0;
    const int64_t rc = r.outcome_counts().count(kind) ? r.outcome_counts().at(kind) : 0;
    EXPECT_EQ(uc > 0, rc > 0) << kind << ": unreduced " << uc << ", reduced " << rc;
  }
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, ReductionTest, ::testing::ValuesIn(CorpusFiles()),
                         TestName);

TEST(ReductionScaleTest, CorpusIsPresent) { EXPECT_GT(CorpusFiles().size(), 50u); }

// The reduction is what makes the 8-rank protocols explorable at all.
void ExpectReducedCompletes(const std::string& file) {
  ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(CorpusDir() + "/" + file));
  ASSERT_EQ(p.ranks, 8);
  RunOptions o;  // reduce = true, the program's bound (default 2,000,000)
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, o));
  EXPECT_FALSE(r.report.bound_hit()) << r.report.states() << " states";
  EXPECT_EQ(r.report.outcome(), SignalReport::completes) << r.report.explanation().text();
  EXPECT_GT(r.report.states(), 0);
  std::printf("[ reduction ] %s: %lld states, %.3f s reduced\n", file.c_str(),
              static_cast<long long>(r.report.states()), r.report.seconds());
}

TEST(ReductionScaleTest, P08bTwoPhaseBarrier8RanksCompletesReduced) {
  ExpectReducedCompletes("p08b_barrier_two_phase_8ranks.textproto");
}

TEST(ReductionScaleTest, P02AllgatherPush8RanksCompletesReduced) {
  ExpectReducedCompletes("p02_allgather_push_8ranks.textproto");
}

}  // namespace
}  // namespace warpcheck::sim::signal
