// corpus/swizzle/*.swz: every file parses, prints canonically and round-trips, and
// sweeping its declared parameter box gives the recorded verdict and smallest
// counterexample. A new file without an entry here fails CorpusIsComplete.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/parser.h"
#include "sim/expr/printer.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::swizzle {
namespace {

struct Expectation {
  const char* file;
  Verdict verdict;
  // The counterexample's ToString() when violated.
  const char* counterexample;
};

const Expectation kCorpus[] = {
    {"gemm_d1.swz", Verdict::kHolds, ""},
    {"gemm_d0.swz", Verdict::kHolds, ""},
    {"gemm_nz.swz", Verdict::kHolds, ""},
    {"dist_d1.swz", Verdict::kHolds, ""},
    {"dist_d0.swz", Verdict::kHolds, ""},
    {"dist_nz.swz", Verdict::kViolated,
     "duplicate at rows=1, cols=1, tile_rows=1, tile_cols=1, rank_size=2, "
     "comm_npu_split=2: iterations 0 and 1 both map to tile (row=0, col=0, rank=0)"},
    {"triton_grouped.swz", Verdict::kHolds, ""},
    {"triton_grouped_persistent.swz", Verdict::kHolds, ""},
    {"cutlass_identity.swz", Verdict::kHolds, ""},
    {"cutlass_identity_unguarded.swz", Verdict::kViolated,
     "out_of_range at m_tiles=1, n_tiles=3, swizzle_n=2: iteration 3 maps to (row=0, "
     "col=3), outside the box row < 1, col < 3"},
    {"tdist_ag_gemm.swz", Verdict::kHolds, ""},
    {"tdist_gemm_rs.swz", Verdict::kHolds, ""},
    {"buggy_gemm_d1_no_tail_fix.swz", Verdict::kViolated,
     "out_of_range at row_tiles=2, col_tiles=1, swizzle_offset=2: iteration 1 maps to "
     "(row=0, col=1), outside the box row < 2, col < 1"},
    // Real-world tile orders (issue 15); each file cites its source.
    {"morton_z_order.swz", Verdict::kHolds, ""},
    {"hilbert_curve.swz", Verdict::kHolds, ""},
    {"hilbert_curve_off_by_one.swz", Verdict::kViolated,
     "out_of_range at log_n=1: iteration 3 maps to (row=1, col=2), outside the box "
     "row < 2, col < 2"},
    {"stream_k.swz", Verdict::kHolds, ""},
    {"persistent_num_sms.swz", Verdict::kHolds, ""},
    {"serpentine.swz", Verdict::kHolds, ""},
    {"ck_m00_n0_m01_adapt.swz", Verdict::kHolds, ""},
    {"cutlass_sm90_raster.swz", Verdict::kHolds, ""},
    {"tdist_ag_gemm_multinode.swz", Verdict::kHolds, ""},
    {"tdist_ag_gemm_multinode_unaligned.swz", Verdict::kViolated,
     "out_of_range at m_per_rank=1, block_m=2, nnodes=2, local_world_size=1, rank=1, "
     "num_pid_n=1, group_size_m=1: iteration 0 maps to (row=1, col=0), outside the box "
     "row < 1, col < 1"},
};

std::string CorpusDir() { return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/swizzle"; }

void PrintTo(const Expectation& e, std::ostream* os) { *os << e.file; }

class SwizzleCorpusTest : public ::testing::TestWithParam<Expectation> {};

TEST_P(SwizzleCorpusTest, ParsesAndRoundTrips) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec,
                       SwizzleSpec::Load(CorpusDir() + "/" + GetParam().file));
  std::string printed = expr::Print(spec.program());
  ASSERT_OK_AND_ASSIGN(SwizzleSpec again, SwizzleSpec::Parse("printed", printed));
  EXPECT_EQ(expr::Print(again.program()), printed);
  EXPECT_GE(spec.params().size(), 1u);
}

TEST_P(SwizzleCorpusTest, SweepGivesTheRecordedVerdict) {
  const Expectation& e = GetParam();
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Load(CorpusDir() + "/" + e.file));
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(CheckResult r, Sweep(spec));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[corpus] %-32s %-9s %9lld parameter points %11lld iterations %.2f s\n",
              e.file, std::string(VerdictName(r.verdict)).c_str(),
              static_cast<long long>(r.param_points), static_cast<long long>(r.points),
              s);
  EXPECT_EQ(r.verdict, e.verdict)
      << (r.counterexample ? r.counterexample->ToString() : r.reason);
  if (e.verdict == Verdict::kViolated && r.counterexample.has_value()) {
    EXPECT_EQ(r.counterexample->ToString(), e.counterexample);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, SwizzleCorpusTest, ::testing::ValuesIn(kCorpus),
                         [](const ::testing::TestParamInfo<Expectation>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

TEST(SwizzleCorpusTest, CorpusIsComplete) {
  std::vector<std::string> on_disk, listed;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir())) {
    if (entry.path().extension() == ".swz") on_disk.push_back(entry.path().filename());
  }
  for (const Expectation& e : kCorpus) listed.push_back(e.file);
  std::sort(on_disk.begin(), on_disk.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(on_disk, listed);
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
