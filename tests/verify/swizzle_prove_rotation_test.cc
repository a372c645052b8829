// The output-side chain of the swizzle prover (SwizzleProveOptions::output_chain;
// verify/swizzle_prove_rotation.cc; verify/README.md, "Twelfth pass"): a map whose out
// coordinate is R(P) over a placement P is proved as the placement and R on [0, extent),
// each a spec of its own; anything but `holds` on a link falls back to the direct proof.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "tests/testing/status_matchers.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify {
namespace {

using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;
using ::testing::HasSubstr;

std::string CorpusText(const std::string& name) {
  std::ifstream in(absl::StrCat(WARPCHECK_SOURCE_DIR, "/corpus/swizzle/", name, ".swz"));
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

SwizzleSpec Parse(const std::string& name, const std::string& text) {
  absl::StatusOr<SwizzleSpec> s = SwizzleSpec::Parse(name, text);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

// The corpus map with its `out row` clause replaced (the whole line).
SwizzleSpec WithRow(const std::string& name, const std::string& old_row,
                    const std::string& new_row) {
  const std::string text = CorpusText(name);
  EXPECT_TRUE(absl::StrContains(text, old_row)) << old_row;
  return Parse(absl::StrCat(name, " (", new_row, ")"),
               absl::StrReplaceAll(text, {{old_row, new_row}}));
}

bool HasNote(const SwizzleProof& p, const std::string& text) {
  for (const std::string& n : p.notes) {
    if (absl::StrContains(n, text)) return true;
  }
  return false;
}

// The benchmark's 16x box (BM_CorpusScaled): the tile-extent parameters widened 16x.
SpecSweep Scaled16(const std::string& ranks) {
  SpecSweep box;
  box.ranges = {{"m_per_rank", {1, 128}},
                {"block_m", {1, 64}},
                {ranks, {1, 64}},
                {"num_pid_n", {1, 64}}};
  return box;
}

// Both rank rotations of Triton-distributed hold at 16x through the chain — the
// placement is the grouped order over num_pid_m (abstracted to its hull by the reduced
// spec) and R the rotation lemma over the hulls of num_pid_m and the offset — well inside
// a budget under which the direct proof decides nothing.
TEST(SwizzleProveRotationTest, OutputChainDecidesTheRankRotationsAt16x) {
  for (const auto& [name, ranks] :
       {std::pair<std::string, std::string>{"tdist_ag_gemm", "num_ranks"},
        {"tdist_gemm_rs", "world_size"}}) {
    SCOPED_TRACE(name);
    const SwizzleSpec spec = Parse(name, CorpusText(name));
    SwizzleProveOptions o;
    o.total_rlimit = 1'500'000;
    ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, Scaled16(ranks), o));
    EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
    EXPECT_TRUE(HasNote(with, "output chain: row = R(pid_m)")) << with.ToString();
    EXPECT_TRUE(HasNote(with, "rotation lemma: row = (pid_m + off) % n"))
        << with.ToString();
    bool lemma = false;
    for (const QueryRecord& q : with.queries) {
      lemma |= absl::StrContains(q.name, "rotation_offset=") &&
               absl::StrContains(q.name, ".injective") &&
               q.result == smt::SatResult::kUnsat;
    }
    EXPECT_TRUE(lemma) << "the rotation lemma's injective query";
    o.output_chain = false;
    ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, Scaled16(ranks), o));
    EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
  }
}

// The chain proves nothing it should not. A modulus that is not the row extent (so the
// rotation lemma does not apply and R is proved as written), an offset that reads the
// placement (the same), and an offset that reads the iteration (no chain: R would read
// more than P) are refuted, on the declared box, with the enumeration sweep's smallest
// counterexample; the corpus map holds, as the sweep says.
TEST(SwizzleProveRotationTest, OutputChainKeepsBrokenRotationsRefuted) {
  const std::string row =
      "out row = (pid_m + rank % num_ranks * pid_ms_per_rank) % num_pid_m;";
  const SwizzleSpec good = Parse("tdist_ag_gemm", CorpusText("tdist_ag_gemm"));
  const SwizzleSpec wrong_modulus = WithRow(
      "tdist_ag_gemm", row,
      "out row = (pid_m + rank % num_ranks * pid_ms_per_rank) % max(num_pid_m - 1, 1);");
  const SwizzleSpec offset_reads_p =
      WithRow("tdist_ag_gemm", row, "out row = (pid_m + pid_m // 2) % num_pid_m;");
  const SwizzleSpec offset_reads_iter =
      WithRow("tdist_ag_gemm", row, "out row = (pid_m + group_id) % num_pid_m;");
  for (const SwizzleSpec* spec :
       {&good, &wrong_modulus, &offset_reads_p, &offset_reads_iter}) {
    SCOPED_TRACE(spec->source_name());
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(*spec, {}));
    ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(*spec));
    EXPECT_EQ(p.verdict, e.verdict) << p.ToString();
    EXPECT_EQ(p.counterexample, e.counterexample) << p.ToString();
    if (spec == &good) {
      EXPECT_EQ(p.verdict, Verdict::kHolds);
      EXPECT_TRUE(HasNote(p, "output chain: row = R(pid_m)")) << p.ToString();
      continue;
    }
    EXPECT_EQ(e.verdict, Verdict::kViolated);
    EXPECT_FALSE(HasNote(p, "rotation lemma")) << p.ToString();
    if (spec == &offset_reads_iter) {
      EXPECT_FALSE(HasNote(p, "output chain")) << p.ToString();
    } else {
      EXPECT_TRUE(HasNote(p, "R on [0, num_pid_m) is violated")) << p.ToString();
    }
  }
}

// A wrong rotation over the 16x box: never `holds`. The modulus num_pid_m - 1 makes R
// collide (0 and num_pid_m - 1); the chain ends on R, and the proof is violated with a
// counterexample the sweep re-checks on the spec, or inconclusive.
TEST(SwizzleProveRotationTest, OutputChainDoesNotProveAWrongRotationAt16x) {
  const SwizzleSpec spec =
      WithRow("tdist_gemm_rs", "out row = (pid_m + pid_m_offset) % num_pid_m;",
              "out row = (pid_m + pid_m_offset) % max(num_pid_m - 1, 1);");
  SwizzleProveOptions o;
  o.total_rlimit = 3'000'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, Scaled16("world_size"), o));
  EXPECT_NE(p.verdict, Verdict::kHolds) << p.ToString();
  if (p.verdict == Verdict::kViolated) {
    ASSERT_TRUE(p.counterexample.has_value());
    SpecSweep at;
    for (const auto& v : p.counterexample->params)
      at.ranges.push_back({v.name, {v.value, v.value}});
    ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(spec, at));
    EXPECT_EQ(e.verdict, Verdict::kViolated);
    EXPECT_EQ(e.counterexample, p.counterexample);
  }
}

// Onto is the placement's to prove: with one iteration short (a missed tile) the
// rotation still holds on [0, num_pid_m), the placement does not, so the chain ends there
// and the direct proof refutes the map with the sweep's smallest counterexample.
TEST(SwizzleProveRotationTest, OutputChainNeedsThePlacementOnto) {
  const std::string domain = "domain = num_pid_m * num_pid_n;";
  const std::string text = CorpusText("tdist_ag_gemm");
  ASSERT_TRUE(absl::StrContains(text, domain));
  const SwizzleSpec short_domain =
      Parse("tdist_ag_gemm (one short)",
            absl::StrReplaceAll(text, {{domain,
                                        "domain = num_pid_m * num_pid_n - "
                                        "select(num_pid_m * num_pid_n >= 4, 1, 0);"}}));
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(short_domain, {}));
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(short_domain));
  EXPECT_EQ(e.verdict, Verdict::kViolated);
  EXPECT_EQ(p.verdict, e.verdict) << p.ToString();
  EXPECT_EQ(p.counterexample, e.counterexample) << p.ToString();
  EXPECT_TRUE(HasNote(p, "ended: the placement (row = pid_m) is violated"))
      << p.ToString();
}

// The chain applies only where the out coordinate reads the iteration through one let:
// the grouped order itself (row = first_pid_m + tile_id % group_size reads tile_id and
// first_pid_m, per-iteration both) has no output chain, and neither has a map with
// `skip` (the surjectivity route belongs to the spec as written).
TEST(SwizzleProveRotationTest, OutputChainNeedsOneLetUnderTheCoordinate) {
  for (const std::string name : {"triton_grouped_persistent", "persistent_num_sms"}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(Parse(name, CorpusText(name)), {}));
    EXPECT_EQ(p.verdict, Verdict::kHolds);
    EXPECT_FALSE(HasNote(p, "output chain")) << p.ToString();
  }
}

}  // namespace
}  // namespace warpcheck::verify
