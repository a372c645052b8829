// Memory of the signal exploration (issue 14, item 5): write histories are shared between
// states (History), the search's memory is estimated and reported (memory_bytes,
// state_bytes, search_depth), and --max-memory ends a search that reaches it
// inconclusive (exit 5) with the figure.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/signal/machine.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/exit_code.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::HasSubstr;
using cli::testing::RunCli;

const std::string kLongLoop =
    std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal/s01_long_loop_ping_pong.textproto";

HistEntry Entry(int64_t after) {
  HistEntry h;
  h.after = after;
  return h;
}

TEST(HistoryTest, CopiesShareTheirPastAndDivergeAfter) {
  History a;
  EXPECT_TRUE(a.empty());
  a.push_back(Entry(1));
  a.push_back(Entry(2));
  History b = a;  // a state copy
  b.push_back(Entry(3));
  b.back().lost = true;  // a step amends what it just wrote
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(a[1].after, 2);
  EXPECT_FALSE(a.back().lost);
  EXPECT_TRUE(b.back().lost);
  // Amending a shared entry copies it: the other history keeps the original.
  History c = a;
  c.back().operand = 7;
  EXPECT_EQ(a.back().operand, 0);
  EXPECT_EQ(c.back().operand, 7);
  std::vector<int64_t> seen;
  for (const HistEntry& h : b) seen.push_back(h.after);
  EXPECT_THAT(seen, ::testing::ElementsAre(1, 2, 3));  // oldest first
}

TEST(SignalMemoryTest, LongLoopStatesStaySmall) {
  cli::testing::Result r = RunCli({"signal", "run", kLongLoop, "--format=json"});
  ASSERT_EQ(r.code, cli::kExitOk) << r.err;
  const SignalReport& s = r.report.signal();
  EXPECT_EQ(s.outcome(), SignalReport::completes);
  EXPECT_GT(s.search_depth(), 8000);
  // With every word's 2000-entry history copied per state this was about 127 KB a state
  // (1.0 GB resident); shared, a state costs its own agents and words.
  EXPECT_GT(s.state_bytes(), 0);
  EXPECT_LT(s.state_bytes(), 8 * 1024);
  EXPECT_LT(s.memory_bytes(), int64_t{64} << 20);
  EXPECT_THAT(r.out, HasSubstr("\"memory_bytes\""));
}

TEST(SignalMemoryTest, SmallBudgetEndsInconclusiveWithTheFigure) {
  cli::testing::Result r = RunCli({"signal", "run", kLongLoop, "--max-memory=4M"});
  EXPECT_EQ(r.code, cli::kExitInconclusive) << r.out << r.err;
  const SignalReport& s = r.report.signal();
  EXPECT_EQ(s.outcome(), SignalReport::inconclusive);
  EXPECT_TRUE(s.bound_hit());
  EXPECT_GE(s.memory_bytes(), int64_t{4} << 20);
  EXPECT_GT(s.search_depth(), 0);
  EXPECT_THAT(s.explanation().text(), HasSubstr("memory budget of 4.0 MiB reached after"));
  EXPECT_THAT(s.explanation().text(), HasSubstr("raise --max-memory"));
  EXPECT_THAT(r.out, HasSubstr("memory budget of 4.0 MiB"));
}

TEST(SignalMemoryTest, MaxMemoryFlagSyntax) {
  for (const char* bad : {"--max-memory=0", "--max-memory=abc", "--max-memory=12X",
                          "--max-memory=-5M"}) {
    cli::testing::Result r = RunCli({"signal", "run", kLongLoop, bad});
    EXPECT_EQ(r.code, cli::kExitUsage) << bad;
    EXPECT_THAT(r.err, HasSubstr("--max-memory=")) << bad;
  }
  EXPECT_EQ(RunCli({"signal", "run", kLongLoop, "--max-memory=1G"}).code, cli::kExitOk);
  EXPECT_EQ(RunCli({"signal", "run", kLongLoop, "--max-memory=3000000"}).code,
            cli::kExitInconclusive);
}

}  // namespace
}  // namespace warpcheck::sim::signal
