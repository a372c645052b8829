// Corpus expectations of signal runs: the matcher on hand-built reports, and whole
// corpus files.
#include "sim/signal/expect.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Src(const std::string& rel) { return std::string(WARPCHECK_SOURCE_DIR) + "/" + rel; }

// A deadlock with rank1.cta0 blocked at wait#2 because of a missing notify.
SignalReport Deadlock() {
  SignalReport r;
  r.set_outcome(SignalReport::deadlock);
  SignalExplanation* e = r.mutable_explanation();
  e->set_cause(SignalExplanation::missing_notify);
  e->set_text("rank1.cta0 waits for a notify nobody sends");
  SignalBlocked* b = e->add_blocked();
  b->set_rank(1);
  b->set_cta(0);
  b->set_site("wait#2");
  return r;
}

SignalExpect DeadlockExpect() {
  SignalExpect x;
  x.set_outcome(DEADLOCK);
  x.set_cause("missing_notify");
  SignalBlockedExpect* b = x.add_blocked();
  b->set_rank(1);
  b->set_cta(0);
  b->set_site("wait#2");
  x.add_text_contains("nobody sends");
  return x;
}

TEST(SignalExpectTest, MatchingReportHasNoMismatches) {
  EXPECT_THAT(ExpectationMismatches(DeadlockExpect(), Deadlock(), std::nullopt), IsEmpty());
  ExpectCheck check = CheckExpectation(DeadlockExpect(), Deadlock(), std::nullopt);
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.detail, "");
}

TEST(SignalExpectTest, BlockedWithoutSiteMatchesAnySite) {
  SignalExpect x;
  x.add_blocked()->set_rank(1);
  EXPECT_THAT(ExpectationMismatches(x, Deadlock(), std::nullopt), IsEmpty());
}

TEST(SignalExpectTest, EveryMismatchInOrder) {
  SignalReport completes;
  completes.set_outcome(SignalReport::completes);
  completes.mutable_explanation()->set_text("all ranks finished");
  EXPECT_THAT(ExpectationMismatches(DeadlockExpect(), completes, /*expect_reproduced=*/true),
              ElementsAre("outcome completes, expected deadlock",
                          "cause (none), expected missing_notify",
                          "rank 1 cta 0 not blocked at wait#2",
                          "explanation lacks \"nobody sends\"",
                          "replay , expected reproduced"));
  SignalExpect x;
  x.set_cause("cycle");
  ExpectCheck check = CheckExpectation(x, Deadlock(), std::nullopt);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.detail,
            "cause missing_notify, expected cycle\n    rank1.cta0 waits for a notify nobody sends");
}

TEST(SignalExpectTest, ReplayExpectation) {
  SignalReport r = Deadlock();
  r.set_replay(SignalReport::reproduced);
  EXPECT_THAT(ExpectationMismatches(SignalExpect(), r, true), IsEmpty());
  EXPECT_THAT(ExpectationMismatches(SignalExpect(), r, false),
              ElementsAre("replay reproduced, expected not reproduced"));
  // No replay expectation: the replay field is not looked at.
  EXPECT_THAT(ExpectationMismatches(SignalExpect(), r, std::nullopt), IsEmpty());
}

TEST(SignalExpectTest, CorpusProgramHoldsItsExpectation) {
  ASSERT_OK_AND_ASSIGN(ExpectCheck check,
                       CheckCorpusFile(Src("corpus/signal/c01_overshoot_add_eq.textproto"),
                                       /*trace=*/false));
  EXPECT_TRUE(check.ok) << check.detail;
}

TEST(SignalExpectTest, CorpusTraceIsReplayedAndHoldsItsExpectation) {
  ASSERT_OK_AND_ASSIGN(
      ExpectCheck check,
      CheckCorpusFile(Src("corpus/signal/traces/c01_overshoot_add_eq_hang.textproto"),
                      /*trace=*/true));
  EXPECT_TRUE(check.ok) << check.detail;
}

TEST(SignalExpectTest, CorpusFileErrors) {
  EXPECT_THAT(CheckCorpusFile("/nonexistent/p.textproto", false),
              StatusIs(absl::StatusCode::kInvalidArgument, "/nonexistent/p.textproto"));
}

}  // namespace
}  // namespace warpcheck::sim::signal
