// verify/swizzle_prove on specs at the ranges kernels run (tests/verify/specs/): the
// symbolic engine agrees with enumeration on the overlap and decides the large boxes.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "tests/testing/status_matchers.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify {
namespace {

using sim::swizzle::CheckResult;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;

SwizzleSpec Load(const std::string& file) {
  absl::StatusOr<SwizzleSpec> s =
      SwizzleSpec::Load(std::string(WARPCHECK_SOURCE_DIR) + "/tests/verify/specs/" + file);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

SpecSweep Box(std::vector<std::pair<std::string, ParamRange>> ranges) {
  SpecSweep s;
  s.ranges = std::move(ranges);
  return s;
}

// The symbolic engine and enumeration agree on a box both can decide.
void ExpectAgreement(const SwizzleSpec& spec, const SpecSweep& box,
                     const SwizzleProveOptions& options = {}) {
  ASSERT_OK_AND_ASSIGN(SwizzleProof proof, ProveSpec(spec, box, options));
  ASSERT_OK_AND_ASSIGN(CheckResult sweep, sim::swizzle::Sweep(spec, box));
  EXPECT_EQ(proof.verdict, sweep.verdict) << proof.ToString();
  if (sweep.verdict == Verdict::kViolated) {
    ASSERT_TRUE(proof.counterexample.has_value());
    EXPECT_EQ(proof.counterexample->ToString(), sweep.counterexample->ToString());
  }
}

TEST(SwizzleProveScaleTest, RankRotationWithPrefixSumsAgrees) {
  ExpectAgreement(Load("rank_rotation.swz"),
                  Box({{"nnodes", {1, 2}}, {"local_world", {1, 2}}, {"node", {0, 1}},
                       {"local_rank", {0, 1}}, {"seg_tiles", {1, 4}},
                       {"num_pid_n", {1, 4}}}));
}

TEST(SwizzleProveScaleTest, SerpentineAgrees) {
  ExpectAgreement(Load("serpentine.swz"),
                  Box({{"num_pid_m", {1, 6}}, {"num_pid_n", {1, 6}}}));
}

TEST(SwizzleProveScaleTest, GroupedMAgrees) {
  ExpectAgreement(Load("grouped_m.swz"), Box({{"num_pid_m", {1, 6}},
                                              {"num_pid_n", {1, 6}},
                                              {"group_size_m", {1, 2}}}));
}

// n in 1..256 with a `require` admitting the powers of two: n is enumerated over its
// nine admitted values instead of staying symbolic.
TEST(SwizzleProveScaleTest, MortonRequireRestrictedParameterIsEnumerated) {
  SwizzleSpec spec = Load("morton.swz");
  SpecSweep box = Box({{"n", {1, 8}}});
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.configs, 4);  // n = 1, 2, 4, 8
  EXPECT_TRUE(p.coverage.empty());
  ExpectAgreement(spec, box);
}

// A map with `skip` and an inverse: surjectivity is proved by f(inv(t)) == t, with no
// enumeration; a wrong inverse is no violation: injectivity falls back to the two-copy
// query and the note says where the inverse failed.
TEST(SwizzleProveScaleTest, InverseProvesSurjectivityWithSkip) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("skip_inv.swz", R"(
param R in 1..40;
param C in 1..40;
domain = R * (C + 1);
grid row = R;
grid col = C;
out row = iter // (C + 1);
out col = iter % (C + 1);
skip col >= C;
inverse iter = row * (C + 1) + col;
)"));
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_EQ(p.checked, CheckedBy::kSymbolic);
  EXPECT_THAT(p.queries, ::testing::Contains(::testing::Field(
                             &QueryRecord::name, ::testing::HasSubstr(".surjective"))));
  ASSERT_OK_AND_ASSIGN(SwizzleSpec wrong, SwizzleSpec::Parse("wrong_inv.swz", R"(
param R in 1..6;
param C in 1..6;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
inverse iter = row * C;
)"));
  ASSERT_OK_AND_ASSIGN(p, ProveSpec(wrong));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_THAT(p.notes, ::testing::Contains(::testing::HasSubstr(
                           "the inverse clause does not invert the map")));
}

// Out of reach: with a configuration budget of 3 the report lists what was proven and
// what is open, never a bare inconclusive.
TEST(SwizzleProveScaleTest, OutOfReachReportsSubRanges) {
  SwizzleSpec spec = Load("rank_rotation.swz");
  const SpecSweep box =
      Box({{"nnodes", {1, 2}}, {"local_world", {1, 1}}, {"node", {0, 1}},
           {"local_rank", {0, 0}}, {"seg_tiles", {1, 4}}, {"num_pid_n", {1, 4}}});
  SwizzleProveOptions o;
  o.max_configs = 3;
  // By default the box fits a narrow bit-vector encoding and is one all-symbolic
  // configuration, which the budget does not bite on.
  ASSERT_OK_AND_ASSIGN(SwizzleProof whole, ProveSpec(spec, box, o));
  EXPECT_EQ(whole.verdict, Verdict::kHolds) << whole.ToString();
  EXPECT_EQ(whole.configs, 1);
  // The integer encoding alone enumerates the small parameters and runs out of
  // configurations.
  o.encodings = {SwizzleProveOptions::Encoding::kInteger};
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, box, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive);
  EXPECT_THAT(p.reason, ::testing::HasSubstr(
                            "proven: nnodes=1, local_world=1, node=0, local_rank=0, "
                            "seg_tiles=1, num_pid_n=1..3"));
  EXPECT_THAT(p.reason, ::testing::HasSubstr("open: "));
  EXPECT_THAT(p.reason, ::testing::HasSubstr("max_configs = 3"));
  bool proven = false, open = false;
  for (const SubBox& b : p.coverage) {
    proven |= b.how == SubBox::How::kProven;
    open |= b.how == SubBox::How::kOpen;
  }
  EXPECT_TRUE(proven && open);
}

// Development aid: SPEC=file.swz PARAMS=a=1..8,b=2 [RLIMIT= TMO= MAXC= RELAX=1 ENC=int,bv TABLES=0 BVBITS=16 FC=0
// MAXENUM= TOTAL= COUNTING=0 PLACEMENT=0 OUTPUT_CHAIN=0 DIGITS=0 CONTIGUITY=0 FLATTEN=0 COORDS=0 SYM=a,b] runs one proof and prints the slow queries (skipped without SPEC; ENC is the encoding
// portfolio in order, `int`, `bv` or both).
TEST(SwizzleProveScaleTest, Explore) {
  const char* file = std::getenv("SPEC");
  if (file == nullptr) GTEST_SKIP();
  SwizzleSpec spec = Load(file);
  SpecSweep ranges;
  if (const char* p = std::getenv("PARAMS"); p != nullptr) {
    std::string text = p;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t comma = text.find(',', pos);
      if (comma == std::string::npos) comma = text.size();
      std::string item = text.substr(pos, comma - pos);
      size_t eq = item.find('=');
      absl::StatusOr<ParamRange> r = ParamRange::Parse(item.substr(eq + 1));
      ranges.ranges.push_back({item.substr(0, eq), *r});
      pos = comma + 1;
    }
  }
  SwizzleProveOptions o;
  if (const char* r = std::getenv("RLIMIT"); r != nullptr) o.solver.rlimit = std::atoll(r);
  if (const char* r = std::getenv("SPLIT"); r != nullptr) o.split_rlimit = std::atoll(r);
  if (const char* r = std::getenv("MAXC"); r != nullptr) o.max_configs = std::atoll(r);
  if (const char* r = std::getenv("TMO"); r != nullptr) o.solver.timeout_ms = std::atoll(r);
  o.relax_upper_bounds = std::getenv("RELAX") != nullptr;
  o.reduce_specs = std::getenv("NORED") == nullptr;
  if (const char* r = std::getenv("QC"); r != nullptr) o.small_quotient_cases = std::atoi(r);
  if (const char* r = std::getenv("FC"); r != nullptr) o.small_factor_cases = std::atoi(r);
  if (const char* r = std::getenv("GROUPCASES"); r != nullptr) o.digit_group_cases = std::atoi(r) != 0;
  if (const char* r = std::getenv("PLACEMENT"); r != nullptr) o.placement_chain = std::atoi(r) != 0;
  if (const char* r = std::getenv("OUTPUT_CHAIN"); r != nullptr) o.output_chain = std::atoi(r) != 0;
  if (const char* r = std::getenv("DIGITS"); r != nullptr) o.digit_chain = std::atoi(r) != 0;
  if (const char* r = std::getenv("CONTIGUITY"); r != nullptr) o.contiguity_chain = std::atoi(r) != 0;
  if (const char* r = std::getenv("FLATTEN"); r != nullptr) o.flatten_divisions = std::atoi(r) != 0;
  if (const char* r = std::getenv("COORDS"); r != nullptr)
    o.output_chain_coordinates = std::atoi(r) != 0;
  if (const char* r = std::getenv("RESIDUES"); r != nullptr) o.digit_residues = std::atoi(r) != 0;
  if (const char* r = std::getenv("CUBE"); r != nullptr) o.cube_divisors_up_to = std::atoll(r);
  if (const char* r = std::getenv("TABLES"); r != nullptr) o.table_lemma_values = std::atoi(r);
  if (const char* r = std::getenv("BVBITS"); r != nullptr) o.bitvector_first_bits = std::atoi(r);
  if (const char* r = std::getenv("MAXENUM"); r != nullptr) o.max_enumerated_points = std::atoll(r);
  if (const char* r = std::getenv("TOTAL"); r != nullptr) o.total_rlimit = std::atoll(r);
  if (const char* r = std::getenv("COUNTING"); r != nullptr) o.surjective_by_counting = std::atoi(r) != 0;
  if (const char* r = std::getenv("SYM"); r != nullptr) {
    o.symbolic_params = absl::StrSplit(r, ',');
  }
  if (const char* r = std::getenv("ENC"); r != nullptr) {
    o.encodings.clear();
    for (absl::string_view e : absl::StrSplit(r, ',')) {
      o.encodings.push_back(e == "bv" ? SwizzleProveOptions::Encoding::kBitVector
                                      : SwizzleProveOptions::Encoding::kInteger);
    }
  }
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, ranges, o));
  for (const QueryRecord& q : p.queries) {
    if (std::getenv("ALLQ") != nullptr || q.ms > 20 || q.result != smt::SatResult::kUnsat)
      std::cout << q.name << " " << smt::SatResultName(q.result) << " " << q.ms << " ms "
                << q.rlimit_used << " " << q.reason_unknown << "\n";
  }
  std::cout << p.ToString() << "\n";
  for (const std::string& n : p.notes) std::cout << "note: " << n << "\n";
}

}  // namespace
}  // namespace warpcheck::verify
