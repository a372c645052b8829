// Every hang the tool records must replay as reproduced (issue 14 item 4): for every
// corpus/signal program whose run reports a trail to a deadlock (outcome deadlock,
// nondeterministic, or inconclusive with a deadlock found), the trail is written as a
// SignalTrace exactly as `signal run --trail-out` writes it (text format), read back,
// and replayed; the replay must say `reproduced`, and its hang must be the recorded one.
//
// Programs whose run reports no hang (completes, race, static_error, fault) are skipped
// with GTEST_SKIP, so each corpus file is one ctest here whatever it expects.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/base/enum_name.h"
#include "sim/signal/driver.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

using testing::CorpusDir;
using testing::CorpusFiles;

class RecordReplayTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordReplayTest, RecordedHangReplaysAsReproduced) {
  const std::string path = CorpusDir() + "/" + GetParam();
  ASSERT_OK_AND_ASSIGN(Program p, LoadProgramFile(path));
  ASSERT_OK_AND_ASSIGN(RunResult run, RunProgram(p, {}));
  bool hang = false;
  for (const SignalAgentSnapshot& a : run.trace.snapshot().agents())
    hang |= a.state() == WAITING || a.state() == NOT_STARTED;
  const SignalReport::Outcome o = run.report.outcome();
  if (!run.has_trace || !hang ||
      (o != SignalReport::deadlock && o != SignalReport::nondeterministic &&
       o != SignalReport::inconclusive))
    GTEST_SKIP() << "no hang recorded (outcome " << base::EnumName(o) << ")";

  // Through the text format, as --trail-out writes it and `signal replay` reads it.
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(run.trace, &text));
  SignalTrace trace;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  ASSERT_OK_AND_ASSIGN(Program q, CompileProgram(trace.program(), path, {}));
  ASSERT_OK_AND_ASSIGN(RunResult rep, Replay(q, trace, path, {}));
  EXPECT_EQ(rep.report.replay(), SignalReport::reproduced)
      << base::EnumName(rep.report.replay()) << ": " << rep.report.divergence() << "\n"
      << rep.report.explanation().text();
  EXPECT_EQ(rep.report.outcome(), SignalReport::deadlock);
  // The replayed hang is the recorded one: the same blocked agents at the same sites.
  std::vector<std::string> want, got;
  for (const SignalBlocked& b : run.report.explanation().blocked())
    want.push_back(absl::StrCat(b.rank(), ".", b.cta(), ".", b.kernel(), b.stream(), "@", b.site()));
  for (const SignalBlocked& b : rep.report.explanation().blocked())
    got.push_back(absl::StrCat(b.rank(), ".", b.cta(), ".", b.kernel(), b.stream(), "@", b.site()));
  EXPECT_EQ(got, want);
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(CorpusSignal, RecordReplayTest, ::testing::ValuesIn(CorpusFiles()),
                         TestName);

TEST(RecordReplayCorpusTest, CorpusIsPresent) { EXPECT_GT(CorpusFiles().size(), 50u); }

}  // namespace
}  // namespace warpcheck::sim::signal
