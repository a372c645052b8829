// In-process CLI tests (Bloaty's RunBloaty idea): the real dispatcher, checked through
// the returned Report proto and exit code rather than stdout text where possible.
#include "tools/warpcheck/cli.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"

namespace warpcheck::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using testing::Result;
using testing::RunCli;
using testing::TempPath;

const char kMmaV2[] =
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
    "instrShape = [16, 8]}>";

TEST(CliTest, VersionAndHelp) {
  Result v = RunCli({"--version"});
  EXPECT_EQ(v.code, kExitOk);
  EXPECT_THAT(v.out, StartsWith("warpcheck "));
  Result h = RunCli({"help"});
  EXPECT_EQ(h.code, kExitOk);
  EXPECT_THAT(h.out, HasSubstr("layout show"));
  EXPECT_THAT(h.out, HasSubstr("corpus check"));
  Result hc = RunCli({"help", "layout", "show"});
  EXPECT_EQ(hc.code, kExitOk);
  EXPECT_THAT(hc.out, HasSubstr("--shape"));
  Result flag_help = RunCli({"layout", "show", "--help"});
  EXPECT_EQ(flag_help.code, kExitOk);
  EXPECT_EQ(flag_help.out, hc.out);
}

TEST(CliTest, UsageErrorsExitOne) {
  EXPECT_EQ(RunCli({}).code, kExitUsage);
  Result unknown = RunCli({"frobnicate"});
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_THAT(unknown.err, StartsWith("warpcheck: error: unknown command"));
  EXPECT_EQ(RunCli({"layout", "show", kMmaV2, "--shape=16x8", "--bogus=1"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"layout", "show", "--shape=16x8"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"layout", "show", kMmaV2}).code, kExitUsage);
  EXPECT_EQ(RunCli({"layout", "show", kMmaV2, "--shape=16x8", "--format=xml"}).code, kExitUsage);
}

TEST(CliTest, LayoutShowMmaV2Json) {
  Result r = RunCli({"layout", "show", kMmaV2, "--shape", "16x8", "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  // The JSON contract of shared/design/CLI.md, byte for byte for this layout.
  EXPECT_THAT(r.out,
              HasSubstr("{\"layout\":{\"in_dims\":[{\"name\":\"register\",\"bases\":[[0,1],"
                        "[8,0]]},{\"name\":\"lane\",\"bases\":[[0,2],[0,4],[1,0],[2,0],[4,0]]"
                        "},{\"name\":\"warp\",\"bases\":[]},{\"name\":\"block\",\"bases\":[]}],\"out_dims\":[{\"name\":"
                        "\"dim0\",\"size\":16},{\"name\":\"dim1\",\"size\":8}]}"));
  EXPECT_TRUE(r.report.layout_facts().injective());
  EXPECT_TRUE(r.report.layout_facts().surjective());
  EXPECT_EQ(r.report.layout_facts().attr(), kMmaV2);
}

TEST(CliTest, LayoutShowTextTableNamesLaneAndRegister) {
  Result r = RunCli({"layout", "show", kMmaV2, "--shape=16x8"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  // Element (9, 3) is held by lane 5, register 3 (linear_layout.h's worked example).
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> table;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line == "warp 0:") {
      in_table = true;
      continue;
    }
    if (in_table) table.push_back(line);
  }
  ASSERT_EQ(table.size(), 16u) << r.out;
  std::istringstream row9(table[9]);
  std::vector<std::string> cells;
  for (std::string c; row9 >> c;) cells.push_back(c);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[3], "T5:3");
}

TEST(CliTest, BroadcastWarpsReportedAsCopies) {
  // 4 warps on a 16x8 tensor covered by one warp's tile: warps 1..3 replicate warp 0.
  Result r = RunCli({"layout", "show",
                  "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, "
                  "2], instrShape = [16, 8]}>",
                  "--shape=16x8", "--num-warps=4"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("warp 3: same elements and positions as warp 0"));
  EXPECT_FALSE(r.report.layout_facts().injective());
  EXPECT_EQ(r.report.layout_facts().free_variable_masks().at("warp"), 3);
}

TEST(CliTest, SvgIsWritten) {
  std::string path = TempPath("layout.svg");
  Result r = RunCli({"layout", "show", kMmaV2, "--shape=16x8", "--svg", path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string svg = ss.str();
  EXPECT_THAT(svg, StartsWith("<svg"));
  EXPECT_THAT(svg, HasSubstr(">5:3</text>"));  // lane 5, register 3 somewhere
  // One centred label per cell; the title and the key are the only other texts.
  size_t labels = 0;
  for (size_t at = svg.find("text-anchor=\"middle\""); at != std::string::npos;
       at = svg.find("text-anchor=\"middle\"", at + 1)) {
    ++labels;
  }
  EXPECT_EQ(labels, 16u * 8u);
  std::remove(path.c_str());
}

TEST(CliTest, MalformedAttributeIsInputErrorWithPosition) {
  Result r = RunCli({"layout", "show", "#ttg.blocked<{sizePerThread = [1, 3]}>", "--shape=8x8"});
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_THAT(r.err, StartsWith("warpcheck: error: argument:1:"));
}

TEST(CliTest, BadShapeIsInputError) {
  Result r = RunCli({"layout", "show", kMmaV2, "--shape=16xx8"});
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_THAT(r.err, HasSubstr("--shape"));
  Result np2 = RunCli({"layout", "show", kMmaV2, "--shape=12x8"});
  EXPECT_EQ(np2.code, kExitInputError);
  Result warps = RunCli({"layout", "show", kMmaV2, "--shape=16x8", "--num-warps=3"});
  EXPECT_EQ(warps.code, kExitInputError);
}

TEST(CliTest, TtgirAliasesAndModuleAttributes) {
  std::string path = TempPath("module.ttgir");
  {
    std::ofstream f(path);
    f << "#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
         "warpsPerCTA = [4, 1], order = [1, 0]}>\n"
         "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
         "instrShape = [16, 8]}>\n"
         "module attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 4 : i32, "
         "ttg.target = \"cuda:90\", \"ttg.threads-per-warp\" = 32 : i32} {\n"
         "  tt.func public @k(%arg0: !tt.ptr<f16>) { tt.return }\n"
         "}\n";
  }
  Result r = RunCli({"layout", "show", "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>",
                  "--shape=32x32", "--ttgir", path, "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.report.layout_facts().attr(),
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, "
            "versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>");
  Result alias = RunCli({"layout", "show", "#blocked", "--shape=32x16", "--ttgir=" + path});
  EXPECT_EQ(alias.code, kExitOk) << alias.err;
  // The module says 4 warps; a flag overrides it and then disagrees with the attribute.
  Result clash = RunCli({"layout", "show", "#blocked", "--shape=32x16", "--ttgir=" + path,
                      "--num-warps=8"});
  EXPECT_EQ(clash.code, kExitInputError);
  EXPECT_THAT(clash.err, HasSubstr("warpsPerCTA"));
  Result missing = RunCli({"layout", "show", "#blocked", "--shape=32x16", "--ttgir=/no/such"});
  EXPECT_EQ(missing.code, kExitInputError);
  EXPECT_THAT(missing.err, HasSubstr("/no/such"));
  std::remove(path.c_str());
}

TEST(CliTest, CorpusCheckPassesAndFails) {
  std::string dir = TempPath("corpus");
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/ok.textproto");
    f << "# proto-file: proto/layout.proto\n# proto-message: warpcheck.LayoutCorpus\n"
         "cases { name: \"mma\" attr: \"" << "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
      << "\" shape: 16 shape: 8 expect { layout: \"{register: [[0, 1], [8, 0]], lane: "
         "[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp: [], block: []} -> {dim0: 16, "
         "dim1: 8}\" } }\n";
  }
  Result ok = RunCli({"corpus", "check", dir, "--format=json"});
  EXPECT_EQ(ok.code, kExitOk) << ok.out << ok.err;
  EXPECT_EQ(ok.report.corpus().cases(), 1);
  EXPECT_EQ(ok.report.corpus().passed(), 1);
  {
    // A wrong expectation must fail the check (exit 10), naming the case.
    std::ofstream f(dir + "/bad.textproto");
    f << "# proto-message: warpcheck.LayoutCorpus\n"
         "cases { name: \"wrong\" attr: \"#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
         "warpsPerCTA = [1, 1], instrShape = [16, 8]}>\" shape: 16 shape: 8 expect { layout: "
         "\"{register: [[8, 0], [0, 1]], lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
         "warp: [], block: []} -> {dim0: 16, dim1: 8}\" } }\n";
  }
  Result bad = RunCli({"corpus", "check", dir});
  EXPECT_EQ(bad.code, kExitViolated);
  EXPECT_THAT(bad.out, HasSubstr("FAIL"));
  EXPECT_THAT(bad.out, HasSubstr("wrong"));
  EXPECT_EQ(bad.report.corpus().failed(), 1);
  {
    std::ofstream f(dir + "/broken.textproto");
    f << "# proto-message: warpcheck.LayoutCorpus\ncases { name: \"x\" shape: \"nope\" }\n";
  }
  Result broken = RunCli({"corpus", "check", dir + "/broken.textproto"});
  EXPECT_EQ(broken.code, kExitInputError);
  EXPECT_THAT(broken.err, HasSubstr("broken.textproto:2:"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace warpcheck::cli

namespace warpcheck::cli {
namespace {

std::string Src(const std::string& rel) { return std::string(WARPCHECK_SOURCE_DIR) + "/" + rel; }

TEST(CliSwizzleTest, ShowMatchesTheDocumentedExample) {
  // shared/spec/swizzle2d.md: R = 3, C = 10, s = 7, direction 1; iterations 21..29 visit
  // columns 7..9 with rows going 2 -> 1 -> 0.
  Result r = RunCli({"swizzle2d", "show", "--fn=gemm", "--row-tiles=3", "--col-tiles=10",
                     "--swizzle-offset=7", "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const auto& points = r.report.swizzle2d().points();
  ASSERT_EQ(points.size(), 30);
  EXPECT_EQ(points[20].row(), 2);
  EXPECT_EQ(points[20].col(), 6);
  EXPECT_EQ(points[21].row(), 2);
  EXPECT_EQ(points[21].col(), 7);
  EXPECT_EQ(points[29].row(), 0);
  EXPECT_EQ(points[29].col(), 9);
  EXPECT_FALSE(points[0].has_rank());
  Result text = RunCli({"swizzle2d", "show", "--fn=gemm", "--row-tiles=3", "--col-tiles=10"});
  EXPECT_THAT(text.out, HasSubstr("row   0:  0  1  2  3  4  5  6 27 28 29"));
}

TEST(CliSwizzleTest, ProveHoldsViolatedAndBadInput) {
  Result holds = RunCli({"swizzle2d", "prove", "--fn=gemm", "--row-tiles=1..64",
                         "--col-tiles=1..64", "--engine=both", "--format=json"});
  EXPECT_EQ(holds.code, kExitOk) << holds.err;
  EXPECT_EQ(holds.report.swizzle2d().verdict(), Swizzle2dReport::holds);
  EXPECT_EQ(holds.report.swizzle2d().enumerated_verdict(), Swizzle2dReport::holds);

  std::string cex = TempPath("cex.textproto");
  Result bad = RunCli({"swizzle2d", "prove", "--fn=dist_nz", "--rank-size=1..8",
                       "--row-tiles=1..16", "--col-tiles=1..16", "--cex-out=" + cex});
  EXPECT_EQ(bad.code, kExitViolated) << bad.err;
  const auto& c = bad.report.swizzle2d().counterexample();
  EXPECT_EQ(c.kind(), SwizzleCounterexample::duplicate);
  EXPECT_EQ(c.params().at("rank_size"), 2);
  EXPECT_EQ(c.params().at("comm_npu_split"), 2);
  EXPECT_EQ(c.params().at("row_tiles"), 1);
  // The written case reproduces the violation through corpus check.
  Result replay = RunCli({"corpus", "check", cex});
  EXPECT_EQ(replay.code, kExitOk) << replay.out << replay.err;
  EXPECT_EQ(replay.report.corpus().passed(), 1);
  std::remove(cex.c_str());

  Result offset = RunCli({"swizzle2d", "prove", "--fn=gemm", "--swizzle-offset=0..7"});
  EXPECT_EQ(offset.code, kExitInputError);
  Result both = RunCli({"swizzle2d", "prove", "--fn=gemm", "--spec=x.swz"});
  EXPECT_EQ(both.code, kExitUsage);
}

TEST(CliSwizzleTest, UserSpecFromFile) {
  Result r = RunCli({"swizzle2d", "prove", "--spec=" + Src("corpus/swizzle/buggy_gemm_d1_no_tail_fix.swz"),
                     "--engine=enumerated", "--format=json"});
  EXPECT_EQ(r.code, kExitViolated) << r.err;
  EXPECT_EQ(r.report.swizzle2d().counterexample().kind(), SwizzleCounterexample::out_of_range);
  EXPECT_EQ(r.report.swizzle2d().counterexample().params().at("row_tiles"), 2);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

// Issue 15: a 32 KB file holding one flat chain `0 + 1 + 1 + ...` (8 000 terms) crashed
// the symbolic encoder (and, from ~16 000 terms, the enumerator) with a stack overflow.
// Now it is an input error at the operator that crosses the height limit.
TEST(CliSwizzleTest, LongOperatorChainIsAnInputErrorWithAPosition) {
  std::string chain = "0";
  for (int i = 1; i < 8000; ++i) chain += " + 1";
  std::string path = WriteTemp("chain.swz", "param n in 1..4;\ndomain = n;\ngrid row = n;\n"
                                            "grid col = 1;\nout row = iter + " +
                                                chain + " - 7999;\nout col = 0;\n");
  for (const char* engine : {"--engine=symbolic", "--engine=enumerated", "--engine=both"}) {
    Result r = RunCli({"swizzle2d", "prove", "--spec=" + path, engine});
    EXPECT_EQ(r.code, kExitInputError) << engine << r.out << r.err;
    // "out row = iter + 0" then " + 1" per term: the (limit+1)-th '+' after iter.
    EXPECT_THAT(r.err, HasSubstr(path + ":5:"));
    EXPECT_THAT(r.err, HasSubstr("expression nested too deeply"));
  }
  std::remove(path.c_str());
}

// A chain just under the limit is fine for both engines (the bound is low enough).
TEST(CliSwizzleTest, ChainAtTheHeightLimitIsProvedByBothEngines) {
  std::string chain = "iter";
  for (int i = 1; i < 490; ++i) chain += " + 1";
  std::string path = WriteTemp("chain_ok.swz", "param n in 1..4;\ndomain = n;\ngrid row = n;\n"
                                               "grid col = 1;\nout row = " +
                                                   chain + " - 489;\nout col = 0;\n");
  Result r = RunCli({"swizzle2d", "prove", "--spec=" + path, "--engine=both"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("holds (symbolic"));
  std::remove(path.c_str());
}

// Issue 15: --engine=both said "enumeration agrees" when the enumeration was inconclusive.
TEST(CliSwizzleTest, BothSaysWhatEachEngineConcluded) {
  // The identity over a parameter box too large to enumerate (the proof takes ms).
  std::string path = WriteTemp("identity.swz", R"(param n in 1..65536;
param m in 1..65536;
domain = n * m;
grid row = n * m;
grid col = 1;
out row = iter;
out col = 0;
)");
  Result r = RunCli({"swizzle2d", "prove", "--spec=" + path, "--engine=both"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(": holds (symbolic, "));
  EXPECT_THAT(r.out, HasSubstr("; enumeration: inconclusive)"));
  EXPECT_THAT(r.out, Not(HasSubstr("agrees")));
  EXPECT_THAT(r.out, HasSubstr("reason: enumeration: "));
  Result json = RunCli({"swizzle2d", "prove", "--spec=" + path, "--engine=both",
                        "--format=json"});
  EXPECT_EQ(json.report.swizzle2d().symbolic_verdict(), Swizzle2dReport::holds);
  EXPECT_EQ(json.report.swizzle2d().enumerated_verdict(), Swizzle2dReport::inconclusive);

  // Both decided: each verdict named.
  Result both = RunCli({"swizzle2d", "prove", "--fn=gemm", "--row-tiles=1..8",
                        "--col-tiles=1..8", "--engine=both"});
  EXPECT_EQ(both.code, kExitOk) << both.err;
  EXPECT_THAT(both.out, HasSubstr("; enumeration: holds)"));
  // The proof out of budget: the enumeration's verdict, and the proof's said too.
  Result tiny = RunCli({"swizzle2d", "prove", "--fn=gemm", "--row-tiles=1..8",
                        "--col-tiles=1..8", "--engine=both", "--rlimit=1"});
  EXPECT_EQ(tiny.code, kExitOk) << tiny.err;
  EXPECT_THAT(tiny.out, HasSubstr("holds (enumerated, "));
  EXPECT_THAT(tiny.out, HasSubstr("; symbolic: inconclusive, "));
  EXPECT_THAT(tiny.out, HasSubstr("reason: symbolic: "));
  std::remove(path.c_str());
}

// Issue 15: no admitted parameter point answered "holds (0 parameter points)", exit 0.
TEST(CliSwizzleTest, VacuousBoxesAreInputErrors) {
  std::string path = WriteTemp("require_false.swz", R"(param n in 1..4;
require false;
domain = n;
grid row = n;
grid col = 1;
out row = iter;
out col = 0;
)");
  for (const char* engine : {"--engine=symbolic", "--engine=enumerated", "--engine=both"}) {
    Result r = RunCli({"swizzle2d", "prove", "--spec=" + path, engine});
    EXPECT_EQ(r.code, kExitInputError) << engine << r.out;
    EXPECT_THAT(r.err, HasSubstr(path + ":2:1: no parameter point of the box (n=1..4)"));
    EXPECT_THAT(r.err, HasSubstr("would hold vacuously"));
  }
  for (const char* engine : {"--engine=symbolic", "--engine=enumerated"}) {
    Result r = RunCli({"swizzle2d", "prove", "--fn=dist", "--rank-size=3",
                       "--comm-npu-split=2", "--row-tiles=1..4", "--col-tiles=1..4", engine});
    EXPECT_EQ(r.code, kExitInputError) << engine << r.out;
    EXPECT_THAT(r.err, HasSubstr("no comm_npu_split in 2 divides a rank_size in 3"));
  }
  std::remove(path.c_str());
}

// Issue 15: stray positional arguments were ignored; a directory as --spec said
// "missing domain"; the help text described a default engine the code does not have.
TEST(CliSwizzleTest, ProveRejectsPositionalArgumentsAndDirectories) {
  const std::string spec = "--spec=" + Src("corpus/swizzle/gemm_d1.swz");
  Result extra = RunCli({"swizzle2d", "prove", spec, "extra.swz", "--engine=enumerated"});
  EXPECT_EQ(extra.code, kExitUsage);
  EXPECT_THAT(extra.err, HasSubstr("unexpected argument 'extra.swz'"));
  Result show = RunCli({"swizzle2d", "show", "--fn=gemm", "junk"});
  EXPECT_EQ(show.code, kExitUsage);
  EXPECT_THAT(show.err, HasSubstr("unexpected argument 'junk'"));

  Result dir = RunCli({"swizzle2d", "prove", "--spec=" + Src("corpus/swizzle")});
  EXPECT_EQ(dir.code, kExitInputError);
  EXPECT_THAT(dir.err, HasSubstr("is a directory"));
  EXPECT_THAT(dir.err, Not(HasSubstr("missing")));
  std::string textproto_dir = TempPath("problem_dir.textproto");
  std::filesystem::create_directories(textproto_dir);
  Result dir2 = RunCli({"swizzle2d", "prove", "--spec=" + textproto_dir});
  EXPECT_EQ(dir2.code, kExitInputError);
  EXPECT_THAT(dir2.err, HasSubstr("is a directory"));
  std::filesystem::remove(textproto_dir);

  Result help = RunCli({"swizzle2d", "prove", "--help"});
  EXPECT_THAT(help.out, HasSubstr("default: symbolic (the Z3 proof alone"));
  EXPECT_THAT(help.out, Not(HasSubstr("when the ranges are small enough")));
}

TEST(CliSimTest, RunsTritonKernelAndReportsInputErrors) {
  Result r = RunCli({"sim", "run", Src("corpus/triton/cvt1d_l0723_128_i32_w4.textproto"),
                     "--format=json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.report.sim().ok());
  EXPECT_GT(r.report.sim().counters().at("class.ldmatrix"), 0);
  ASSERT_EQ(r.report.sim().buffers_size(), 2);
  EXPECT_EQ(r.report.sim().buffers(0).sha256(), r.report.sim().buffers(1).sha256());

  std::string bad = TempPath("bad_launch.textproto");
  {
    std::ofstream f(bad);
    f << "# proto-message: warpcheck.LaunchSpec\nptx_file: \"nope.ptx\"\ngrid { x: 1 }\nblock { x: 32 }\n";
  }
  Result missing = RunCli({"sim", "run", bad});
  EXPECT_EQ(missing.code, kExitInputError);
  EXPECT_THAT(missing.err, HasSubstr("nope.ptx"));
  std::remove(bad.c_str());
}

// The triton spec above, with one edit, run from a temporary folder (the PTX by its
// absolute path).
std::string EditedTritonSpec(const std::string& name, const std::string& from,
                             const std::string& to) {
  std::ifstream in(Src("corpus/triton/cvt1d_l0723_128_i32_w4.textproto"));
  std::stringstream text;
  text << in.rdbuf();
  std::string spec = text.str();
  spec.replace(spec.find("ptx_file: \""), 11,
               "ptx_file: \"" + Src("corpus/triton/") );
  spec.replace(spec.find(from), from.size(), to);
  std::string path = TempPath(name);
  std::ofstream(path) << spec;
  return path;
}

TEST(CliSimTest, ExitCodesFollowTheReportAndTheStatus) {
  // 8 bytes of shared memory where the kernel stores 512: a fault, a finding (10).
  std::string failing = EditedTritonSpec("small_smem.textproto", "dynamic_shared_bytes: 512",
                                         "dynamic_shared_bytes: 8");
  Result violated = RunCli({"sim", "run", failing, "--format=json"});
  EXPECT_EQ(violated.code, kExitViolated) << violated.err;
  EXPECT_FALSE(violated.report.sim().ok());
  ASSERT_GT(violated.report.sim().faults_size(), 0);
  EXPECT_EQ(violated.report.sim().faults(0).kind(), "out_of_bounds");
  // A buffer past the 1 GiB limit is the user's input (ResourceExhausted: 2).
  std::string huge = EditedTritonSpec("huge.textproto", "size_bytes: 512 fill: IOTA",
                                      "size_bytes: 2147483648 fill: IOTA");
  Result too_big = RunCli({"sim", "run", huge});
  EXPECT_EQ(too_big.code, kExitInputError);
  EXPECT_THAT(too_big.err, HasSubstr("larger than 1073741824 bytes"));
  EXPECT_TRUE(too_big.out.empty());
  std::remove(failing.c_str());
  std::remove(huge.c_str());
}

}  // namespace
}  // namespace warpcheck::cli
