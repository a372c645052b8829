// `warpcheck fuzz layouts` and the ConversionCase corpus kind it writes.
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"

namespace warpcheck::cli::testing {
namespace {

TEST(FuzzLayouts, JsonSummaryHasTheDocumentedFields) {
  Result r = RunCli({"fuzz", "layouts", "--count=24", "--seed=3", "--prove=sample",
                     "--prove-share=0.5", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const FuzzReport& f = r.report.fuzz();
  EXPECT_EQ(f.pairs(), 24);
  EXPECT_EQ(f.seed(), 3u);
  EXPECT_EQ(f.failures(), 0);
  EXPECT_GT(f.pairs_per_second(), 0);
  EXPECT_EQ(f.ok() + f.out_of_scope() + f.inconclusive() + f.failed_pairs(), 24);
  EXPECT_GT(f.proved(), 0);
  EXPECT_LT(f.proved(), 24);
  EXPECT_FALSE(f.by_strategy().empty());
  for (const char* key : {"\"fuzz\"", "\"pairs\":24", "\"pairs_per_second\"", "\"seed\"",
                          "\"by_strategy\"", "\"check_ms_by_stage\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
  // The pipeline's time by stage: every stage ran (half the pairs proven), and together
  // they are within the pipeline's own time.
  double sum = 0;
  for (const char* stage : {"problem", "plan", "emit", "simulate", "prove"}) {
    ASSERT_TRUE(f.check_ms_by_stage().contains(stage)) << stage << "\n" << r.out;
    EXPECT_GT(f.check_ms_by_stage().at(stage), 0) << stage;
    sum += f.check_ms_by_stage().at(stage);
  }
  EXPECT_EQ(f.check_ms_by_stage_size(), 5);
  EXPECT_LE(sum, f.check_ms_mean() * (1 + 1e-9));
}

// --one-way checks each pair's conversion alone (planned as `convert plan` plans it, the
// once harness on both fills, proven, the cost model compared): the same pairs as the
// default round-trip check, every one of them passing here too, and the report says
// which check ran.
TEST(FuzzLayouts, OneWayChecksTheConversionAlone) {
  Result one = RunCli({"fuzz", "layouts", "--count=24", "--seed=3", "--prove=all", "--one-way",
                       "--format=json"});
  Result both = RunCli({"fuzz", "layouts", "--count=24", "--seed=3", "--prove=none",
                        "--format=json"});
  ASSERT_EQ(one.code, 0) << one.out << one.err;
  ASSERT_EQ(both.code, 0) << both.out << both.err;
  const FuzzReport& f = one.report.fuzz();
  EXPECT_EQ(f.check(), "one-way");
  EXPECT_EQ(both.report.fuzz().check(), "round-trip");
  EXPECT_EQ(f.pairs(), 24);
  EXPECT_EQ(f.failures(), 0);
  EXPECT_EQ(f.ok() + f.out_of_scope() + f.inconclusive(), 24);
  EXPECT_EQ(f.out_of_scope(), both.report.fuzz().out_of_scope());
  EXPECT_EQ(f.proved(), 24 - f.out_of_scope());
  Result text = RunCli({"fuzz", "layouts", "--count=4", "--prove=none", "--one-way"});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("check one-way"), std::string::npos) << text.out;
}

TEST(FuzzLayouts, SameSeedSameCampaign) {
  Result a = RunCli({"fuzz", "layouts", "--count=20", "--seed=9", "--prove=none", "--format=json"});
  Result b = RunCli({"fuzz", "layouts", "--count=20", "--seed=9", "--prove=none", "--format=json"});
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.report.fuzz().ok(), b.report.fuzz().ok());
  EXPECT_EQ(a.report.fuzz().out_of_scope(), b.report.fuzz().out_of_scope());
  ASSERT_EQ(a.report.fuzz().by_strategy_size(), b.report.fuzz().by_strategy_size());
  for (const auto& [name, c] : a.report.fuzz().by_strategy()) {
    EXPECT_EQ(c.pairs(), b.report.fuzz().by_strategy().at(name).pairs()) << name;
  }
}

TEST(FuzzLayouts, BadFlagsAreUsageErrors) {
  for (std::vector<std::string> args : {
           std::vector<std::string>{"fuzz", "layouts", "--shard=3/2"},
           {"fuzz", "layouts", "--shard=x"},
           {"fuzz", "layouts", "--prove=maybe"},
           {"fuzz", "layouts", "--seconds=0"},
           {"fuzz", "layouts", "--seconds=-1", "--count=1"},
           {"fuzz", "layouts", "--prove-share=0.5"},
           {"fuzz", "layouts", "--against=clang"},
           {"fuzz", "layouts", "--one-way", "--against=triton"},
           {"fuzz", "layouts", "--against=triton", "--triton-timeout=0"},
           {"fuzz", "layouts", "extra"},
       }) {
    Result r = RunCli(args);
    EXPECT_EQ(r.code, 1) << args.back() << "\n" << r.err;
    EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err;
  }
}

TEST(FuzzLayouts, CorpusOutThatIsAFileIsAnInputError) {
  const std::string file = TempPath("fuzz_corpus_file");
  std::ofstream(file) << "x";
  Result r = RunCli({"fuzz", "layouts", "--count=1", "--corpus-out=" + file + "/sub"});
  EXPECT_EQ(r.code, 2) << r.err;
  std::filesystem::remove(file);
}

constexpr char kCase[] = R"(# proto-file: proto/fuzz.proto
# proto-message: warpcheck.ConversionCase
name: "transpose"
src: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
dst: "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
shape: 32
shape: 64
dtype: "i8"
num_warps: 4
)";

std::string WriteCase(const std::string& name, const std::string& expect) {
  const std::string path = TempPath(name) + ".textproto";
  std::ofstream(path) << kCase << expect;
  return path;
}

TEST(ConversionCase, ReplaysWithItsExpectedVerdict) {
  const std::string ok = WriteCase("case_ok", "expect { verdict: \"ok\" }\n");
  Result r = RunCli({"corpus", "check", ok});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 passed"), std::string::npos) << r.out;

  const std::string wrong = WriteCase("case_wrong", "expect { verdict: \"failed\" stage: \"once/iota\" }\n");
  r = RunCli({"corpus", "check", wrong});
  EXPECT_EQ(r.code, 10) << r.out << r.err;
  EXPECT_NE(r.out.find("expected failed at once/iota, got ok"), std::string::npos) << r.out;

  const std::string bad = WriteCase("case_bad", "expect { verdict: \"maybe\" }\n");
  r = RunCli({"corpus", "check", bad});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("expect.verdict must be"), std::string::npos) << r.err;
  for (const auto& p : {ok, wrong, bad}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace warpcheck::cli::testing
