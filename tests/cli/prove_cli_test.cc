// `warpcheck prove conversion` as users run it: exit codes 0/10/5/2, the JSON contract of
// CLI.md ({"proof": {"verdict", "queries", "solver_ms", "counterexample"}}), and a
// counterexample written with --cex-out that the simulator then runs and fails.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/exit_code.h"

namespace warpcheck::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunCli;
using testing::TempPath;

const std::string kCorpus = std::string(WARPCHECK_SOURCE_DIR) + "/corpus/triton/";
const std::string kKernel = "cvt2d_l0133_64x64_f16_w4";  // shuffles, 4 warps

// A copy of a corpus kernel and its spec in a temp folder (the test then edits the PTX).
std::string CopyKernel(const std::string& name) {
  fs::path dir = TempPath("prove_cli_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / (kKernel + ".ptx")) << ReadAll(kCorpus + kKernel + ".ptx");
  std::ofstream(dir / "spec.textproto") << ReadAll(kCorpus + kKernel + ".textproto");
  return (dir / "spec.textproto").string();
}

TEST(ProveCli, CorpusKernelHolds) {
  auto r = RunCli({"prove", "conversion", kCorpus + kKernel + ".textproto", "--format=json"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.report.proof().verdict(), ProofReport::holds);
  EXPECT_THAT(r.out, HasSubstr("\"proof\""));
  EXPECT_THAT(r.out, HasSubstr("\"verdict\":\"holds\""));
  EXPECT_THAT(r.out, HasSubstr("\"queries\":1"));
  EXPECT_THAT(r.out, HasSubstr("solver_ms"));
  EXPECT_EQ(r.report.proof().elements(), 4096u);
  EXPECT_EQ(r.report.proof().threads(), 128u);
  EXPECT_EQ(r.report.proof().assumptions_size(), 2);
}

TEST(ProveCli, ViolationWritesACounterexampleTheSimulatorFails) {
  std::string spec = CopyKernel("selp");
  std::string ptx_path = (fs::path(spec).parent_path() / (kKernel + ".ptx")).string();
  std::string ptx = ReadAll(ptx_path);
  // Swap the operands of the first selp: a wrong select.
  size_t sel = ptx.find("selp.b32");
  ASSERT_NE(sel, std::string::npos);
  size_t eol = ptx.find(';', sel);
  std::string line = ptx.substr(sel, eol - sel);  // selp.b32 d, a, b, p
  std::vector<std::string> parts;
  for (size_t p = 0, q; (q = line.find(',', p)) != std::string::npos || p < line.size();) {
    q = q == std::string::npos ? line.size() : q;
    parts.push_back(line.substr(p, q - p));
    p = q + 1;
    if (q == line.size()) break;
  }
  ASSERT_EQ(parts.size(), 4u) << line;
  std::string swapped = absl::StrCat(parts[0], ",", parts[2], ",", parts[1], ",", parts[3]);
  ptx.replace(sel, line.size(), swapped);
  std::ofstream(ptx_path) << ptx;

  std::string cex = (fs::path(spec).parent_path() / "cex.textproto").string();
  // The kernel's own layouts (corpus/triton/manifest.tsv) put the story in layout terms.
  const std::string src =
      "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
      "warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>, kWidth = 2}>";
  const std::string dst =
      "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
      "warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>, kWidth = 1}>";
  auto r = RunCli({"prove", "conversion", spec, "--shape=64x64", "--src=" + src, "--dst=" + dst,
                   "--dtype=f16", "--num-warps=4", "--cex-out=" + cex});
  ASSERT_EQ(r.code, kExitViolated) << r.out << r.err;
  const ConversionCounterexample& c = r.report.proof().counterexample();
  EXPECT_GE(c.thread(), 0);
  EXPECT_EQ(c.lane(), static_cast<uint32_t>(c.thread()) % 32);
  EXPECT_EQ(c.warp(), static_cast<uint32_t>(c.thread()) / 32);
  EXPECT_THAT(c.coords(), HasSubstr("("));
  EXPECT_THAT(r.out, HasSubstr("proof: violated"));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("thread ", c.thread(), " register ")));
  EXPECT_THAT(c.text(), HasSubstr(absl::StrCat("In the src layout element ", c.coords(), " is thread ")));
  EXPECT_EQ(c.cex_spec(), cex);
  ASSERT_TRUE(fs::exists(cex));
  // The counterexample is real: the simulator runs it and the expectation fails.
  auto sim = RunCli({"sim", "run", cex});
  EXPECT_EQ(sim.code, kExitViolated) << sim.out << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("FAILS"));
}

TEST(ProveCli, BoundIsInconclusive) {
  auto r = RunCli({"prove", "conversion", kCorpus + kKernel + ".textproto", "--max-steps=10"});
  EXPECT_EQ(r.code, kExitInconclusive) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("proof: inconclusive"));
  EXPECT_THAT(r.out, HasSubstr("bound hit"));
}

TEST(ProveCli, InputErrors) {
  auto missing = RunCli({"prove", "conversion", "/nonexistent/spec.textproto"});
  EXPECT_EQ(missing.code, kExitInputError);
  auto usage = RunCli({"prove", "conversion"});
  EXPECT_EQ(usage.code, kExitUsage);
  // Layout flags are checked: a shape the layouts cannot take is an input error.
  auto bad = RunCli({"prove", "conversion", kCorpus + kKernel + ".textproto",
                     "--src=#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
                     "warpsPerCTA = [4, 1], order = [0, 1]}>",
                     "--dst=#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], "
                     "warpsPerCTA = [1, 4], order = [1, 0]}>",
                     "--shape=3x5", "--dtype=f16"});
  EXPECT_EQ(bad.code, kExitInputError) << bad.err;
  auto help = RunCli({"prove", "conversion", "--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("race-free"));
}

}  // namespace
}  // namespace warpcheck::cli
