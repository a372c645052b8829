// corpus check's table (tools/warpcheck/corpus_command.h) and the typed swizzle report.
#include "tools/warpcheck/corpus_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/swizzle_report.h"

namespace warpcheck::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::Result;
using testing::RunCli;
using testing::TempPath;

std::string Write(const std::string& name, const std::string& text) {
  std::string path = TempPath(name) + ".textproto";
  std::ofstream(path) << text;
  return path;
}

TEST(CorpusCommandTest, TableIsKeyedByEveryCorpusMessage) {
  std::vector<std::string> keys;
  for (const CorpusKind& k : CorpusKinds()) {
    keys.push_back(k.proto_message);
    EXPECT_NE(k.check, nullptr) << k.proto_message;
  }
  EXPECT_THAT(keys, ElementsAre("warpcheck.LayoutCorpus", "warpcheck.SwizzleProblem",
                                "warpcheck.LaunchSpec", "warpcheck.ConversionCase",
                                "warpcheck.SignalProgram", "warpcheck.SignalTrace"));
}

TEST(CorpusCommandTest, UnknownHeaderGivesTheSameErrorAsBefore) {
  std::string path = Write("unknown_header",
                           "# proto-file: proto/layout.proto\n"
                           "# proto-message: warpcheck.Nope\ncases {}\n");
  Result r = RunCli({"corpus", "check", path});
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_EQ(r.err, "warpcheck: error: " + path +
                       ":1:1: a corpus file starts with '# proto-message: ' and one of "
                       "warpcheck.LayoutCorpus, warpcheck.SwizzleProblem, "
                       "warpcheck.LaunchSpec, warpcheck.ConversionCase, "
                       "warpcheck.SignalProgram, warpcheck.SignalTrace (found 'warpcheck.Nope')\n");
  EXPECT_EQ(r.report.corpus().files(), 0);
  EXPECT_THAT(r.out, HasSubstr("0 files, 0 cases"));
  std::remove(path.c_str());

  std::string bare = Write("no_header", "cases {}\n");
  absl::StatusOr<std::vector<CaseResult>> none = CheckCorpusFile(bare);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("warpcheck.SignalTrace (no header found)"));
  std::remove(bare.c_str());
}

TEST(CorpusCommandTest, MalformedSwizzleProblemHasAPositionAndNoProtobufLog) {
  std::string path = Write("malformed_swizzle",
                           "# proto-file: proto/swizzle.proto\n"
                           "# proto-message: warpcheck.SwizzleProblem\n"
                           "builtin: \"gemm\"\n"
                           "expect { verdict: holds }\n");
  ::testing::internal::CaptureStderr();
  Result r = RunCli({"corpus", "check", path});
  std::string process_stderr = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_THAT(r.err, StartsWith("warpcheck: error: " + path + ":4:"));
  EXPECT_THAT(process_stderr, Not(HasSubstr("libprotobuf")));
  std::remove(path.c_str());
}

TEST(CorpusCommandTest, SwizzleCaseIsOneCaseNamedByTheFile) {
  std::string path = Write("swizzle_case",
                           "# proto-message: warpcheck.SwizzleProblem\n"
                           "builtin: \"gemm\"\n"
                           "range { name: \"row_tiles\" lo: 1 hi: 4 }\n"
                           "range { name: \"col_tiles\" lo: 1 hi: 4 }\n"
                           "engine: \"enumerated\"\n"
                           "expect { verdict: \"violated\" }\n");
  absl::StatusOr<std::vector<CaseResult>> results = CheckCorpusFile(path);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].file(), path);
  EXPECT_EQ((*results)[0].name(), std::filesystem::path(path).stem().string());
  EXPECT_FALSE((*results)[0].ok());
  EXPECT_EQ((*results)[0].detail(), "expected violated, got holds (enumerated)");
  std::remove(path.c_str());
}

// The proto enums' names are the JSON: each must be the library's own name.
TEST(SwizzleReportTest, EnumNamesAreTheLibraryNames) {
  namespace sw = ::warpcheck::sim::swizzle;
  for (sw::Verdict v : {sw::Verdict::kHolds, sw::Verdict::kViolated, sw::Verdict::kInconclusive}) {
    EXPECT_EQ(Swizzle2dReport::Verdict_Name(ToProto(v)), sw::VerdictName(v));
  }
  for (verify::CheckedBy c : {verify::CheckedBy::kSymbolic, verify::CheckedBy::kEnumerated}) {
    EXPECT_EQ(Swizzle2dReport::Checked_Name(ToProto(c)), verify::CheckedByName(c));
  }
  for (sw::ViolationKind k :
       {sw::ViolationKind::kDuplicate, sw::ViolationKind::kMissed, sw::ViolationKind::kOutOfRange,
        sw::ViolationKind::kTailSize, sw::ViolationKind::kEvalError}) {
    EXPECT_EQ(SwizzleCounterexample::Kind_Name(ToProto(k)), sw::ViolationKindName(k));
  }
}

}  // namespace
}  // namespace warpcheck::cli
