// `warpcheck prove plan` through the CLI: verdicts, exit codes, the JSON report, and
// errors for bad input (tests/testing/cli_runner.h runs the real dispatcher).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/exit_code.h"

namespace warpcheck::cli {
namespace {

using testing::RunCli;
using testing::TempPath;

const char kSrc[] =
    "--src=#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = "
    "[4, 1], order = [1, 0]}>";
const char kDst[] =
    "--dst=#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = "
    "[1, 4], order = [0, 1]}>";

TEST(ProvePlanCliTest, SmemPlanHoldsWithEveryObligationInTheJson) {
  auto r = RunCli({"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix",
                   "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  const PlanProofReport& p = r.report.plan_proof();
  EXPECT_EQ(p.verdict(), PlanProofObligation::holds);
  EXPECT_EQ(p.strategy(), "smem");
  EXPECT_GE(p.queries(), 6);
  EXPECT_EQ(p.obligations_size(), 8);
  for (const auto& o : p.obligations()) EXPECT_EQ(o.verdict(), PlanProofObligation::holds) << o.name();
  for (const char* field : {"\"plan_proof\"", "\"verdict\":\"holds\"", "\"obligations\"",
                            "\"name\":\"delivers\"", "\"name\":\"bank.load\"", "\"solver_ms\""}) {
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r.out;
  }
}

TEST(ProvePlanCliTest, EachStrategyIsProvenAndTheTextNamesTheObligations) {
  // Same lanes and warps on both sides: registers, shuffle and smem all apply.
  const std::string src =
      "--src=#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = "
      "[4, 1], order = [1, 0]}>";
  const std::string dst =
      "--dst=#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = "
      "[4, 1], order = [1, 0]}>";
  for (const char* s : {"--strategy=shuffle", "--strategy=smem", "--strategy=auto"}) {
    auto r = RunCli({"prove", "plan", src, dst, "--shape=64x64", "--dtype=i8", s});
    EXPECT_EQ(r.code, kExitOk) << s << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("verdict: holds"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("delivers"), std::string::npos) << r.out;
  }
}

TEST(ProvePlanCliTest, SpentRlimitIsInconclusiveExitFive) {
  auto r = RunCli({"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix", "--rlimit=1"});
  EXPECT_EQ(r.code, kExitInconclusive) << r.out << r.err;
  EXPECT_EQ(r.report.plan_proof().verdict(), PlanProofObligation::inconclusive);
  EXPECT_NE(r.out.find("inconclusive"), std::string::npos) << r.out;
}

TEST(ProvePlanCliTest, SmtDumpDirGetsOneFilePerQuery) {
  const std::string dir = TempPath("prove_plan_smt");
  std::filesystem::create_directories(dir);
  auto r = RunCli({"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix",
                   "--smt-dump-dir=" + dir});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".smt2");
  }
  EXPECT_EQ(files, r.report.plan_proof().queries());
  std::filesystem::remove_all(dir);
}

TEST(ProvePlanCliTest, ViolatedReportExitsTen) {
  // The CLI plans with the planner, whose plans hold; a violated report (what a corrupted
  // plan gives, tests/verify/plan_prove_test.cc) maps to 10 through the one table.
  Report report;
  report.mutable_plan_proof()->set_verdict(PlanProofObligation::violated);
  EXPECT_EQ(ExitCodeFor(report), kExitViolated);
  report.mutable_plan_proof()->set_verdict(PlanProofObligation::holds);
  EXPECT_EQ(ExitCodeFor(report), kExitOk);
}

TEST(ProvePlanCliTest, BadInputIsAnErrorNotAVerdict) {
  struct Case {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"prove", "plan", kSrc, kDst, "--shape=64x64"}, kExitUsage, "--dtype is required"},
      {{"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f17"}, kExitInputError, "f17"},
      {{"prove", "plan", kSrc, kDst, "--shape=64xx", "--dtype=f16"}, kExitInputError, "--shape"},
      {{"prove", "plan", "--src=#ttg.blocked<{", kDst, "--shape=64x64", "--dtype=f16"},
       kExitInputError, ""},
      {{"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix", "--rlimit=-3"},
       kExitUsage, "--rlimit"},
      {{"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix", "--strategy=magic"},
       kExitUsage, "--strategy"},
      {{"prove", "plan", kSrc, kDst, "--shape=64x64", "--dtype=f16", "--no-matrix", "--strategy=registers"},
       kExitInputError, "registers"},
  };
  for (const Case& c : cases) {
    auto r = RunCli(c.args);
    EXPECT_EQ(r.code, c.code) << r.err;
    EXPECT_NE(r.err.find("warpcheck: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(r.report.has_plan_proof());
  }
}

TEST(ProvePlanCliTest, HelpListsTheCommand) {
  auto r = RunCli({"help"});
  EXPECT_NE(r.out.find("prove plan"), std::string::npos);
  auto h = RunCli({"prove", "plan", "--help"});
  EXPECT_EQ(h.code, kExitOk);
  EXPECT_NE(h.out.find("--rlimit"), std::string::npos);
}

// An mma accumulator -> mma accumulator (other warps) f16 conversion: the default plan
// stores with stmatrix and loads with ldmatrix; the prover encodes both.
const char kMmaSrc[] =
    "--src=#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 4], "
    "instrShape = [16, 8]}>";
const char kMmaDst[] =
    "--dst=#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
    "instrShape = [16, 8]}>";

TEST(ProvePlanCliTest, MatrixPlanHolds) {
  auto plan = RunCli({"convert", "emit", kMmaSrc, kMmaDst, "--shape=16x16", "--dtype=f16",
                      "--harness=once", "-o", TempPath("prove_plan_matrix.ptx")});
  ASSERT_EQ(plan.code, kExitOk) << plan.err;
  std::ifstream in(TempPath("prove_plan_matrix.ptx"));
  const std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(ptx.find("stmatrix.sync.aligned"), std::string::npos);
  EXPECT_NE(ptx.find("ldmatrix.sync.aligned"), std::string::npos);
  auto r = RunCli({"prove", "plan", kMmaSrc, kMmaDst, "--shape=16x16", "--dtype=f16",
                   "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_EQ(r.report.plan_proof().verdict(), PlanProofObligation::holds);
  EXPECT_EQ(r.report.plan_proof().obligations_size(), 8);
}

TEST(ProvePlanCliTest, RoundTripProvesBothDirectionsAndTheComposition) {
  auto r = RunCli({"prove", "plan", kMmaSrc, kMmaDst, "--shape=16x16", "--dtype=f16",
                   "--round-trip", "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  const PlanRoundTripReport& t = r.report.plan_round_trip();
  EXPECT_EQ(t.verdict(), PlanProofObligation::holds);
  EXPECT_EQ(t.forward().verdict(), PlanProofObligation::holds);
  EXPECT_EQ(t.backward().verdict(), PlanProofObligation::holds);
  EXPECT_EQ(t.backward().src(), t.forward().dst());
  ASSERT_EQ(t.composition_size(), 3);
  for (const auto& o : t.composition()) {
    EXPECT_EQ(o.verdict(), PlanProofObligation::holds) << o.name() << ": " << o.detail();
  }
  auto text = RunCli({"prove", "plan", kMmaSrc, kMmaDst, "--shape=16x16", "--dtype=f16",
                      "--round-trip"});
  EXPECT_EQ(text.code, kExitOk);
  for (const char* s : {"round trip: holds", "forward plan:", "backward plan:",
                        "roundtrip.identity", "roundtrip.buffers"}) {
    EXPECT_NE(text.out.find(s), std::string::npos) << s << "\n" << text.out;
  }
  auto bad = RunCli({"prove", "plan", kMmaSrc, kMmaDst, "--shape=16x16", "--dtype=f16",
                     "--round-trip", "--smt-dump-dir=" + TempPath("x")});
  EXPECT_EQ(bad.code, kExitUsage) << bad.err;
}

}  // namespace
}  // namespace warpcheck::cli
