// Mutation regression: representative one-line mutants of corpus/triton kernels (one or
// two per mutation kind of tools/oracle/mutate_ptx.py) must not pass on the simulator —
// each shows wrong output (`out != in`) or the expected fault. Eight of them were wrong
// or faulted on an H200 (tools/gpu/mutation_check.sh, results in
// corpus/triton/mutants/results_h200.tsv); for the wrong-output ones the simulator's `out`
// must also be the GPU's, bit for bit. Two ran fine on the GPU and are undefined
// behaviour the simulator reports (shfl membermask, dropped bar.warp.sync).
//
// Every case is a mutant of corpus/triton/mutants/manifest.tsv (same id, line, before and
// after text), so tools/gpu/mutation_check.sh reports what the GPU does with it; the
// property the mutation check asks for is "GPU wrong => simulator wrong or a fault".
// The original line is checked first, so a regenerated corpus that moved the line fails
// loudly instead of mutating something else.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/base/file.h"
#include "sim/machine/launch.h"
#include "sim/ptx/parser.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

std::string SourceDir() {
  const char* env = std::getenv("WARPCHECK_SOURCE_DIR");
  return env != nullptr ? env : WARPCHECK_SOURCE_DIR;
}

std::string CorpusDir() { return SourceDir() + "/corpus/triton"; }

// Whitespace-insensitive line comparison (the manifest writes tabs as spaces).
std::string Squash(absl::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// What the H200 did with the mutant (corpus/triton/mutants/results_h200.tsv).
enum class Gpu {
  kWrong,  // ran, out != in: the simulator must be wrong too, with the same `out` bytes
  kFault,  // CUDA error (misaligned / illegal address): the simulator must fault
  kOk,     // ran fine: undefined behaviour the simulator reports (it is stricter)
};

struct Mutant {
  const char* id;      // corpus/triton/mutants/manifest.tsv
  const char* kernel;  // corpus/triton/<kernel>.{ptx,textproto}
  int line;            // 1-based PTX line
  const char* before;  // the original line (whitespace-insensitive)
  const char* after;   // its replacement
  Gpu gpu;
  const char* fault;       // expected simulator fault kind, or "" for wrong output
  const char* out_sha256;  // kWrong: the GPU's (and simulator's) `out` buffer
};

const Mutant kMutants[] = {
    {"warplocal_l0536_32x32_f16_w1__shfl_lane_L150", "warplocal_l0536_32x32_f16_w1", 150,
     "shfl.sync.idx.b32 %r73, %r63, %r4, 31, -1;",
     "shfl.sync.idx.b32 %r73, %r63, %r6, 31, -1;", Gpu::kWrong, "",
     "88339196b590df68e53de42496f0cee8629d7f4dbec7edfd35470654cd82056e"},
    {"bug_l1554_16x8_f8e5m2_w1__selp_swap_L61", "bug_l1554_16x8_f8e5m2_w1", 61,
     "selp.b32 %r3, 21520, 30258, %p2;", "selp.b32 %r3, 30258, 21520, %p2;", Gpu::kWrong, "",
     "0e7368a68933f5eca4db6782989e271488235a0bed58d73d4291893a1a62835d"},
    {"cvt2d_l0049_64x64_f16_w4__smem_offset_L169", "cvt2d_l0049_64x64_f16_w4", 169,
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r88, %r89, %r90, %r91}, [%r8];",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r88, %r89, %r90, %r91}, [%r8+16];",
     Gpu::kWrong, "", "e7f6075d41a925f108e15c1ecfbb96f3405c44de267c02b50cb00abb8bb9b4a6"},
    {"cvt1d_l1316_64_i8_w4__smem_offset_L140", "cvt1d_l1316_64_i8_w4", 140,
     "ld.shared.v2.b8 {%rs1, %rs2}, [%r4];", "ld.shared.v2.b8 {%rs1, %rs2}, [%r4+1];",
     Gpu::kFault, "misaligned", ""},
    {"cvt2d_l0049_64x64_f16_w4__drop_bar_sync_L147", "cvt2d_l0049_64x64_f16_w4", 147,
     "bar.sync 0;", "// mutant: dropped: bar.sync 0;", Gpu::kWrong, "shared_race", ""},
    {"cvt2d_l0117_64x64_f16_w4__drop_bar_sync_L392", "cvt2d_l0117_64x64_f16_w4", 392,
     "bar.sync 0;", "// mutant: dropped: bar.sync 0;", Gpu::kWrong, "shared_race", ""},
    {"warplocal_l0536_32x32_f16_w1__prmt_selector_L132", "warplocal_l0536_32x32_f16_w1", 132,
     "prmt.b32 %r55, %r37, %r45, %r2;", "prmt.b32 %r55, %r37, %r45, 0x5410U;", Gpu::kWrong, "",
     "877c635cc684d391dec6b946acf6fc49457e5996fd980ed741c740e8910200f0"},
    {"warplocal_l0556_32x32_i8_w1__prmt_selector_L278", "warplocal_l0556_32x32_i8_w1", 278,
     "prmt.b32 %r56, %r55, %r52, 0x5410U;", "prmt.b32 %r56, %r55, %r52, 0x5510U;", Gpu::kWrong,
     "", "d096a4cc236e8c08ca61752c12844523ebb2e3cf38458f583207971478e7a96b"},
    // Fine on the H200, reported by the simulator (undefined behaviour per the PTX ISA):
    // a shfl.sync whose membermask leaves out an executing lane (all 80 shfl_mask mutants
    // gave out == in on the GPU), and a dropped bar.warp.sync between a warp's shared
    // store and its own loads (the converged warp happened to be ordered).
    {"lit_l1549_16x16_i32_w1__shfl_mask_L98", "lit_l1549_16x16_i32_w1", 98,
     "shfl.sync.idx.b32 %r37, %r29, %r5, 31, -1;",
     "shfl.sync.idx.b32 %r37, %r29, %r5, 31, 0x7fffffff;", Gpu::kOk, "non_member_lane", ""},
    {"warplocal_l0566_32x32_f16_w1__drop_bar_sync_L255", "warplocal_l0566_32x32_f16_w1", 255,
     "bar.warp.sync -1;", "// mutant: dropped: bar.warp.sync -1;", Gpu::kOk, "shared_race",
     ""},
};

// The file's text, or "" when it cannot be read (the test then fails on its content).
std::string ReadText(const std::string& path) { return base::ReadFile(path).value_or(""); }

std::string Describe(const SimReport& r) {
  std::string s = r.ok() ? "ok\n" : "not ok\n";
  for (const auto& f : r.faults())
    s += f.kind() + " line " + std::to_string(f.line()) + ": " + f.text() + "\n";
  for (const auto& e : r.expectations())
    s += e.name() + (e.ok() ? " ok" : " FAILED " + e.detail()) + "\n";
  return s;
}

// Runs the corpus kernel with `line` replaced by `replacement` (or unchanged when
// `line` is 0); `original` receives the line's old text.
absl::StatusOr<SimReport> RunMutated(const std::string& kernel, int line,
                                     const std::string& replacement, std::string* original) {
  const std::string ptx_path = CorpusDir() + "/" + kernel + ".ptx";
  std::string text = ReadText(ptx_path);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (line > 0) {
    if (line > static_cast<int>(lines.size()))
      return absl::OutOfRangeError(ptx_path + " is shorter than the mutated line");
    *original = lines[line - 1];
    lines[line - 1] = replacement;
  }
  auto module = ptx::ParseModule(absl::StrJoin(lines, "\n"), ptx_path);
  if (!module.ok()) return module.status();
  auto spec = launch::LoadLaunchSpec(CorpusDir() + "/" + kernel + ".textproto");
  if (!spec.ok()) return spec.status();
  auto result = RunLaunchSpecOnModule(*spec, *module, CorpusDir(), RunOptions{});
  if (!result.ok()) return result.status();
  return result->report;
}

bool ExpectationsHold(const SimReport& r) {
  if (r.expectations_size() == 0) return false;
  for (const auto& e : r.expectations())
    if (!e.ok()) return false;
  return true;
}

class MachineMutationTest : public ::testing::TestWithParam<Mutant> {};

TEST_P(MachineMutationTest, SimulatorRejectsMutant) {
  const Mutant& m = GetParam();
  if (!std::filesystem::exists(CorpusDir() + "/" + m.kernel + ".ptx"))
    GTEST_SKIP() << "no corpus/triton/" << m.kernel << ".ptx";

  // The unmutated kernel round-trips (so a failure below is the mutation's doing).
  std::string unused;
  ASSERT_OK_AND_ASSIGN(SimReport base, RunMutated(m.kernel, 0, "", &unused));
  ASSERT_TRUE(base.ok() && ExpectationsHold(base)) << Describe(base);

  std::string original;
  ASSERT_OK_AND_ASSIGN(SimReport r, RunMutated(m.kernel, m.line, m.after, &original));
  ASSERT_EQ(Squash(original), Squash(m.before))
      << m.kernel << ".ptx line " << m.line << " changed; regenerate the mutant";
  EXPECT_FALSE(r.ok()) << Describe(r);
  const std::string fault = m.fault;
  // A mutant the GPU faulted on or ran fine must give a simulator fault (not just output).
  ASSERT_TRUE(m.gpu == Gpu::kWrong || !fault.empty()) << "bad table entry";
  if (fault.empty()) {
    // Wrong output, no fault: the round trip no longer returns its input, and the wrong
    // bytes are the GPU's, bit for bit.
    EXPECT_EQ(r.faults_size(), 0) << Describe(r);
    EXPECT_FALSE(ExpectationsHold(r)) << Describe(r);
    std::string out_sha;
    for (const auto& b : r.buffers())
      if (b.name() == "out") out_sha = b.sha256();
    EXPECT_EQ(out_sha, m.out_sha256) << "`out` differs from the H200's";
  } else {
    bool found = false;
    for (const auto& f : r.faults()) found = found || f.kind() == fault;
    EXPECT_TRUE(found) << "expected a " << fault << " fault\n" << Describe(r);
    for (const auto& f : r.faults()) {
      if (f.kind() == fault) {
        EXPECT_GT(f.line(), 0);
      }
    }
  }
}

// The manifest lists every mutant above with the same line and texts (so the GPU side of
// tools/gpu/mutation_check.sh runs exactly these).
TEST(MachineMutationManifestTest, CasesAreInTheManifest) {
  const std::string path = CorpusDir() + "/mutants/manifest.tsv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  std::string text = ReadText(path);
  for (const Mutant& m : kMutants) {
    SCOPED_TRACE(m.id);
    bool found = false;
    for (absl::string_view row : absl::StrSplit(text, '\n')) {
      std::vector<std::string> cols = absl::StrSplit(row, '\t');
      if (cols.size() < 8 || cols[0] != m.id) continue;
      found = true;
      EXPECT_EQ(cols[1], m.kernel);
      EXPECT_EQ(cols[5], std::to_string(m.line));
      EXPECT_EQ(Squash(cols[6]), Squash(m.before));
      EXPECT_EQ(Squash(cols[7]), Squash(m.after));
    }
    EXPECT_TRUE(found);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MachineMutationTest, ::testing::ValuesIn(kMutants),
                         [](const ::testing::TestParamInfo<Mutant>& info) {
                           std::string name = info.param.id;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace warpcheck::sim::machine
