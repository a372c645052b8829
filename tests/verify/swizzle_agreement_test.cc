// The two engines agree: on small boxes, the Z3 verdict (verify/swizzle_prove.h) equals
// the enumeration verdict (sim/swizzle/sweep.h) for every built-in and every corpus
// swizzle — including the deliberately buggy ones — and when a property is violated, the
// counterexample the prover reports after minimisation is exactly the sweep's smallest.
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "tests/testing/status_matchers.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify {
namespace {

using sim::swizzle::Builtin;
using sim::swizzle::BuiltinSweep;
using sim::swizzle::CheckResult;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;

void ExpectSameVerdict(const SwizzleProof& proof, const CheckResult& sweep) {
  EXPECT_EQ(proof.verdict, sweep.verdict) << proof.ToString();
  EXPECT_EQ(proof.counterexample, sweep.counterexample) << proof.ToString();
  if (proof.verdict == Verdict::kViolated) {
    EXPECT_TRUE(proof.minimised);
  }
}

// ---------------------------------------------------------------------------------------
// Built-ins, R, C <= 8.

struct BuiltinCase {
  std::string name;
  BuiltinSweep box;
};

std::vector<BuiltinCase> BuiltinCases() {
  std::vector<BuiltinCase> out;
  for (Builtin fn : {Builtin::kGemm, Builtin::kGemmNz}) {
    BuiltinSweep s;
    s.fn = fn;
    s.row_tiles = ParamRange{1, 8};
    s.col_tiles = ParamRange{1, 8};
    s.swizzle_offset = ParamRange{1, 7};
    if (fn == Builtin::kGemm) s.swizzle_direction = ParamRange{0, 1};
    out.push_back({std::string(sim::swizzle::BuiltinName(fn)), s});
  }
  for (Builtin fn : {Builtin::kDist, Builtin::kDistNz}) {
    BuiltinSweep s;
    s.fn = fn;
    s.row_tiles = ParamRange{1, 8};
    s.col_tiles = ParamRange{1, 8};
    s.rank_size = ParamRange{1, 6};
    s.comm_npu_split = ParamRange{1, 6};
    if (fn == Builtin::kDist) {
      s.swizzle_direction = ParamRange{0, 1};
      s.comm_data_split = ParamRange{1, 3};
    }
    out.push_back({std::string(sim::swizzle::BuiltinName(fn)), s});
  }
  // Shapes with partial tiles.
  for (Builtin fn : {Builtin::kGemm, Builtin::kDist, Builtin::kDistNz}) {
    BuiltinSweep s;
    s.fn = fn;
    s.rows = ParamRange{1, 9};
    s.cols = ParamRange{1, 7};
    s.tile_rows = ParamRange{1, 3};
    s.tile_cols = ParamRange{2, 3};
    if (fn == Builtin::kGemm) {
      s.swizzle_offset = ParamRange{2, 5};
    } else {
      s.rank_size = ParamRange{1, 4};
      s.comm_npu_split = ParamRange{1, 4};
    }
    out.push_back({absl::StrCat(sim::swizzle::BuiltinName(fn), "_shapes"), s});
  }
  return out;
}

class BuiltinAgreementTest : public ::testing::TestWithParam<BuiltinCase> {};

TEST_P(BuiltinAgreementTest, ProofEqualsEnumeration) {
  const BuiltinSweep& box = GetParam().box;
  ASSERT_OK_AND_ASSIGN(SwizzleProof proof, ProveBuiltin(box));
  ASSERT_OK_AND_ASSIGN(CheckResult sweep, sim::swizzle::Sweep(box));
  ExpectSameVerdict(proof, sweep);
}

INSTANTIATE_TEST_SUITE_P(Builtins, BuiltinAgreementTest,
                         ::testing::ValuesIn(BuiltinCases()),
                         [](const auto& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------
// Every corpus swizzle, on a box small enough for a unit test. Files that are not listed
// fail the test, so a new corpus file gets a box here.

struct SpecCase {
  std::string file;
  std::vector<std::pair<std::string, ParamRange>> ranges;
  std::vector<std::string> symbolic;  // empty: the default rule
};

std::vector<SpecCase> SpecCases() {
  const ParamRange r16{1, 6};
  return {
      {"buggy_gemm_d1_no_tail_fix.swz", {{"row_tiles", r16}, {"col_tiles", r16}}, {}},
      {"ck_m00_n0_m01_adapt.swz", {{"m0", r16}, {"n0", {1, 4}}, {"m01", {1, 4}}}, {}},
      {"cutlass_identity.swz", {{"m_tiles", r16}, {"n_tiles", {1, 8}}}, {}},
      {"cutlass_identity_unguarded.swz", {{"m_tiles", r16}, {"n_tiles", {1, 8}}}, {}},
      {"dist_d0.swz",
       {{"rows", {1, 3}},
        {"cols", {1, 2}},
        {"tile_rows", {1, 2}},
        {"tile_cols", {1, 1}},
        {"rank_size", {1, 3}},
        {"comm_npu_split", {1, 3}},
        {"comm_data_split", {1, 2}}},
       {}},
      {"dist_d1.swz",
       {{"rows", {1, 3}},
        {"cols", {1, 2}},
        {"tile_rows", {1, 2}},
        {"tile_cols", {1, 1}},
        {"rank_size", {1, 4}},
        {"comm_npu_split", {1, 4}}},
       {}},
      {"dist_nz.swz",
       {{"rows", {1, 3}},
        {"cols", {1, 3}},
        {"tile_rows", {1, 2}},
        {"tile_cols", {1, 1}},
        {"rank_size", {1, 4}},
        {"comm_npu_split", {1, 4}}},
       {}},
      {"gemm_d0.swz", {{"row_tiles", r16}, {"col_tiles", r16}}, {}},
      {"gemm_d1.swz", {{"row_tiles", r16}, {"col_tiles", r16}}, {}},
      {"gemm_nz.swz",
       {{"rows", {1, 5}}, {"cols", {1, 5}}, {"tile_rows", {1, 2}}, {"tile_cols", {1, 2}}},
       {}},
      {"tdist_ag_gemm.swz",
       {{"m_per_rank", {1, 3}},
        {"block_m", {1, 2}},
        {"num_ranks", {1, 2}},
        {"rank", {0, 1}},
        {"num_pid_n", {1, 2}},
        {"group_size_m", {1, 2}}},
       {}},
      {"tdist_gemm_rs.swz",
       {{"m_per_rank", {1, 3}},
        {"block_m", {1, 2}},
        {"world_size", {1, 2}},
        {"rank", {0, 1}},
        {"num_pid_n", {1, 2}},
        {"group_size_m", {1, 2}}},
       {}},
      {"triton_grouped.swz",
       {{"num_pid_m", r16}, {"num_pid_n", r16}, {"group_size_m", {1, 3}}},
       {}},
      {"triton_grouped_persistent.swz",
       {{"num_pid_m", r16}, {"num_pid_n", r16}, {"group_size_m", {1, 3}}},
       {}},
      // The real-world orders of issue 15 (the proof is slow on the full declared boxes;
      // tests/bench/swizzle_prove_benchmark measures those).
      {"morton_z_order.swz", {{"log_n", {0, 2}}}, {}},
      {"hilbert_curve.swz", {{"log_n", {0, 2}}}, {}},
      {"hilbert_curve_off_by_one.swz", {{"log_n", {0, 3}}}, {}},
      {"stream_k.swz",
       {{"m_tiles", {1, 2}}, {"n_tiles", {1, 2}}, {"iters_per_tile", {1, 2}}, {"ctas", {1, 3}}},
       {}},
      {"persistent_num_sms.swz",
       {{"num_pid_m", {1, 3}},
        {"num_pid_n", {1, 2}},
        {"group_size_m", {1, 2}},
        {"num_sms", {1, 3}}},
       {}},
      {"serpentine.swz", {{"row_tiles", r16}, {"col_tiles", r16}}, {}},
      {"cutlass_sm90_raster.swz", {{"m_tiles", {1, 3}}, {"n_tiles", {1, 3}}}, {}},
      {"tdist_ag_gemm_multinode.swz",
       {{"m_per_rank", {1, 2}},
        {"block_m", {1, 2}},
        {"nnodes", {2, 2}},
        {"local_world_size", {1, 2}},
        {"rank", {0, 3}},
        {"num_pid_n", {1, 1}},
        {"group_size_m", {1, 2}}},
       {}},
      {"tdist_ag_gemm_multinode_unaligned.swz",
       {{"m_per_rank", {1, 2}},
        {"block_m", {1, 2}},
        {"nnodes", {2, 2}},
        {"local_world_size", {1, 2}},
        {"rank", {0, 3}},
        {"num_pid_n", {1, 2}},
        {"group_size_m", {1, 2}}},
       {}},
  };
}

class SpecAgreementTest : public ::testing::TestWithParam<SpecCase> {};

TEST_P(SpecAgreementTest, ProofEqualsEnumeration) {
  const SpecCase& c = GetParam();
  ASSERT_OK_AND_ASSIGN(
      SwizzleSpec spec,
      SwizzleSpec::Load(std::string(WARPCHECK_SOURCE_DIR) + "/corpus/swizzle/" + c.file));
  SpecSweep ranges;
  ranges.ranges = c.ranges;
  SwizzleProveOptions options;
  options.symbolic_params = c.symbolic;
  ASSERT_OK_AND_ASSIGN(SwizzleProof proof, ProveSpec(spec, ranges, options));
  ASSERT_OK_AND_ASSIGN(CheckResult sweep, sim::swizzle::Sweep(spec, ranges));
  ExpectSameVerdict(proof, sweep);
}

std::string CaseName(const ::testing::TestParamInfo<SpecCase>& info) {
  std::string n = info.param.file.substr(0, info.param.file.find('.'));
  for (char& ch : n) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Corpus, SpecAgreementTest, ::testing::ValuesIn(SpecCases()),
                         CaseName);

TEST(SpecAgreementTest, EveryCorpusFileHasACase) {
  std::vector<std::string> listed;
  for (const SpecCase& c : SpecCases()) listed.push_back(c.file);
  for (const auto& entry : std::filesystem::directory_iterator(
           std::string(WARPCHECK_SOURCE_DIR) + "/corpus/swizzle")) {
    if (entry.path().extension() != ".swz") continue;
    EXPECT_THAT(listed, ::testing::Contains(entry.path().filename().string()))
        << "add a box for " << entry.path() << " to SpecCases()";
  }
}

// ---------------------------------------------------------------------------------------
// Minimisation from a large box: Z3 finds some witness among 90000 grids; shrinking and
// the sweep bring it down to the smallest, the same one a full sweep reports.

TEST(MinimisationTest, BuggyGemmOverManyGrids) {
  ASSERT_OK_AND_ASSIGN(
      SwizzleSpec spec,
      SwizzleSpec::Load(std::string(WARPCHECK_SOURCE_DIR) +
                        "/corpus/swizzle/buggy_gemm_d1_no_tail_fix.swz"));
  SpecSweep ranges;
  ranges.ranges = {{"row_tiles", {1, 300}}, {"col_tiles", {1, 300}}};
  ASSERT_OK_AND_ASSIGN(SwizzleProof proof, ProveSpec(spec, ranges));
  ASSERT_OK_AND_ASSIGN(CheckResult sweep, sim::swizzle::Sweep(spec, ranges));
  ExpectSameVerdict(proof, sweep);
  EXPECT_EQ(
      proof.counterexample->ToString(),
      "out_of_range at row_tiles=2, col_tiles=1, swizzle_offset=2: iteration 1 maps "
      "to (row=0, col=1), outside the box row < 2, col < 1");
}

}  // namespace
}  // namespace warpcheck::verify
