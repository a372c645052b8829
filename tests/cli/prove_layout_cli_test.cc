// `warpcheck prove layout` in-process: exit codes, the Report it builds, JSON field
// names, and input errors (tests/testing/cli_runner.h).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"

namespace warpcheck::cli {
namespace {

using ::testing::HasSubstr;
using testing::RunCli;

const char kMma[] =
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>";

TEST(ProveLayoutCliTest, HoldsSymbolicallyOverARange) {
  auto r = RunCli({"prove", "layout", kMma, "--shape=8..1024x64..1024",
                   "--property=bank-conflict-free", "--access=ldmatrix"});
  EXPECT_EQ(r.code, 0) << r.err;
  const LayoutProofReport& p = r.report.layout_proof();
  EXPECT_EQ(p.verdict(), LayoutProofReport::holds);
  EXPECT_EQ(p.property(), "bank-conflict-free");
  EXPECT_EQ(p.access(), "ldmatrix");
  EXPECT_EQ(p.points(), 8 * 5);
  ASSERT_EQ(p.coverage_size(), 1);
  EXPECT_EQ(p.coverage(0).mode(), "symbolic");
  EXPECT_GT(p.queries(), 0);
  EXPECT_THAT(r.out, HasSubstr("holds"));
}

TEST(ProveLayoutCliTest, ViolatedPrintsTheSmallestCounterexampleAndExits10) {
  auto r = RunCli({"prove", "layout", kMma, "--shape=16..128x16..128", "--vec=1..16",
                   "--max-phase=1..8", "--property=bank-conflict-free", "--access=v4",
                   "--element-bits=16", "--format=json"});
  EXPECT_EQ(r.code, 10) << r.err;
  const LayoutCounterexample& c = r.report.layout_proof().counterexample();
  EXPECT_FALSE(c.kind().empty());
  EXPECT_EQ(c.shape_size(), 2);
  EXPECT_THAT(r.out, HasSubstr("\"layout_proof\""));
  EXPECT_THAT(r.out, HasSubstr("\"verdict\":\"violated\""));
  EXPECT_THAT(r.out, HasSubstr("\"counterexample\""));
}

TEST(ProveLayoutCliTest, BijectiveByDefaultForEveryFamily) {
  for (const char* attr :
       {"#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = "
        "16}>",
        "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>"}) {
    auto r = RunCli({"prove", "layout", attr, "--shape=64x64"});
    EXPECT_EQ(r.code, 0) << attr << ": " << r.err;
    EXPECT_EQ(r.report.layout_proof().property(), "bijective");
  }
  auto sl = RunCli({"prove", "layout",
                    "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [0, 0]]}, "
                    "alignment = 16>",
                    "--shape=2x4", "--property=injective"});
  EXPECT_EQ(sl.code, 10) << sl.err;
  EXPECT_EQ(sl.report.layout_proof().counterexample().kind(), "duplicate");
}

// stmatrix writes the matrices ldmatrix reads (verify/layout/README.md): same verdicts.
TEST(ProveLayoutCliTest, StmatrixAgreesWithLdmatrix) {
  for (const char* attr :
       {kMma, "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
        "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>"}) {
    auto ld = RunCli({"prove", "layout", attr, "--shape=64x64",
                      "--property=bank-conflict-free", "--access=ldmatrix"});
    auto st = RunCli({"prove", "layout", attr, "--shape=64x64",
                      "--property=bank-conflict-free", "--access=stmatrix"});
    EXPECT_EQ(ld.code, st.code) << attr;
    EXPECT_EQ(st.report.layout_proof().access(), "stmatrix");
    EXPECT_EQ(ld.report.layout_proof().counterexample().text(),
              st.report.layout_proof().counterexample().text());
  }
  auto bad = RunCli({"prove", "layout",
                     "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>",
                     "--shape=64x64", "--property=bank-conflict-free", "--access=stmatrix"});
  EXPECT_EQ(bad.code, 10);
  EXPECT_EQ(bad.report.layout_proof().counterexample().kind(), "not_vectorizable");
  EXPECT_THAT(bad.report.layout_proof().counterexample().text(), HasSubstr("matrix row 1"));
}

TEST(ProveLayoutCliTest, TinyRlimitIsInconclusive) {
  auto r = RunCli({"prove", "layout", kMma, "--shape=16..32x16..32", "--vec=1..16",
                   "--property=bank-conflict-free", "--access=ldmatrix", "--rlimit=1"});
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_EQ(r.report.layout_proof().verdict(), LayoutProofReport::inconclusive);
}

TEST(ProveLayoutCliTest, InputErrorsExit2WithWhereAndWhy) {
  auto bad_attr = RunCli({"prove", "layout", "#ttg.swizzled_shared<{vec = 8", "--shape=64x64"});
  EXPECT_EQ(bad_attr.code, 2);
  EXPECT_THAT(bad_attr.err, HasSubstr("warpcheck: error: "));
  auto blocked = RunCli({"prove", "layout",
                         "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
                         "warpsPerCTA = [4, 1], order = [1, 0]}>",
                         "--shape=64x64"});
  EXPECT_EQ(blocked.code, 2);
  EXPECT_THAT(blocked.err, HasSubstr("shared encoding"));
  auto range = RunCli({"prove", "layout", kMma, "--shape=64x64", "--vec=3..16"});
  EXPECT_EQ(range.code, 2);
  EXPECT_THAT(range.err, HasSubstr("--vec: '3..16'"));
  auto shape = RunCli({"prove", "layout", kMma, "--shape=64x48"});
  EXPECT_EQ(shape.code, 2);
  auto wrong_param = RunCli({"prove", "layout",
                             "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = "
                             "false, elementBitWidth = 16}>",
                             "--shape=64x64", "--max-phase=1..8"});
  EXPECT_EQ(wrong_param.code, 2);
  EXPECT_THAT(wrong_param.err, HasSubstr("no parameter max-phase"));
}

TEST(ProveLayoutCliTest, UsageErrorsExit1) {
  EXPECT_EQ(RunCli({"prove", "layout", kMma}).code, 1);  // no --shape
  EXPECT_EQ(RunCli({"prove", "layout", kMma, "--shape=64x64",
                    "--property=bank-conflict-free"}).code, 1);  // no --access
  EXPECT_EQ(RunCli({"prove", "layout", kMma, "--shape=64x64", "--property=pretty"}).code, 1);
  EXPECT_EQ(RunCli({"prove", "layout", kMma, "--shape=64x64", "--access=v4"}).code, 1);
  EXPECT_EQ(RunCli({"prove", "layout", "--help"}).code, 0);
}

}  // namespace
}  // namespace warpcheck::cli
