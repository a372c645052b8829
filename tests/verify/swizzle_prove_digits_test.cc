// The digit chain of the output chain's link 2 (SwizzleProveOptions::digit_chain;
// verify/swizzle_prove_digits.cc; verify/README.md, "Thirteenth pass"): R on [0, n)
// recognised as digit maps (x = q * t + r, R = A(q) * t + B(r), rotations (v + off) % m)
// with the extent identities proved by evaluation over the parameters they read and each
// rotation by the lemma; a failing identity is a violation only when the enumeration
// sweep finds one in the spec.
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

// The corpus map with one line replaced (the whole line).
SwizzleSpec WithLine(const std::string& name, const std::string& old_line,
                     const std::string& new_line) {
  const std::string text = CorpusText(name);
  EXPECT_TRUE(absl::StrContains(text, old_line)) << old_line;
  return Parse(absl::StrCat(name, " (", new_line, ")"),
               absl::StrReplaceAll(text, {{old_line, new_line}}));
}

bool HasNote(const SwizzleProof& p, const std::string& text) {
  for (const std::string& n : p.notes) {
    if (absl::StrContains(n, text)) return true;
  }
  return false;
}

// The benchmark's 16x box of the multi-node maps (BM_CorpusScaled): every parameter a
// row or col extent reads widened 16x, rank and group_size_m as declared.
SpecSweep Multinode16x() {
  SpecSweep box;
  box.ranges = {{"m_per_rank", {1, 64}},
                {"block_m", {1, 64}},
                {"nnodes", {2, 33}},
                {"local_world_size", {1, 32}},
                {"num_pid_n", {1, 48}}};
  return box;
}

// A violation is the spec's own: the enumeration sweep at the counterexample's
// parameter point finds the same one.
void ExpectRechecked(const SwizzleSpec& spec, const SwizzleProof& p) {
  ASSERT_EQ(p.verdict, Verdict::kViolated) << p.ToString();
  ASSERT_TRUE(p.counterexample.has_value());
  SpecSweep at;
  for (const auto& v : p.counterexample->params) at.ranges.push_back({v.name, {v.value, v.value}});
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(spec, at));
  EXPECT_EQ(e.verdict, Verdict::kViolated);
  EXPECT_EQ(e.counterexample, p.counterexample);
}

// tdist_ag_gemm_multinode at the 16x box: holds through the digit chain (segments of
// pid_ms_per_rank, then the rank's digits in radix local_world_size, two rotation
// lemmas), within a budget under which R proved as written decides nothing.
TEST(SwizzleProveDigitsTest, DigitChainDecidesTheMultinodeRotationAt16x) {
  const SwizzleSpec spec =
      Parse("tdist_ag_gemm_multinode", CorpusText("tdist_ag_gemm_multinode"));
  SwizzleProveOptions o;
  o.total_rlimit = 1'500'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof with, ProveSpec(spec, Multinode16x(), o));
  EXPECT_EQ(with.verdict, Verdict::kHolds) << with.ToString();
  EXPECT_TRUE(HasNote(with, "digit chain (row = R(x) on [0, cdiv(")) << with.ToString();
  EXPECT_TRUE(HasNote(with, "== nnodes * local_world_size * cdiv(m_per_rank, block_m)"))
      << with.ToString();
  EXPECT_TRUE(HasNote(with, "rotation (v + rank // local_world_size) % nnodes"))
      << with.ToString();
  EXPECT_TRUE(HasNote(with, "rotation (v + rank) % local_world_size")) << with.ToString();
  o.digit_chain = false;
  ASSERT_OK_AND_ASSIGN(SwizzleProof without, ProveSpec(spec, Multinode16x(), o));
  EXPECT_NE(without.verdict, Verdict::kHolds) << without.ToString();
}

// Without `require m_per_rank % block_m == 0` the extent identity fails; the sweep
// pinned at its first failing point finds the violation, minimised to the corpus file's
// expected counterexample — the same as the enumeration's smallest on the declared box.
TEST(SwizzleProveDigitsTest, DigitChainRefutesTheUnalignedRotationAt16x) {
  const SwizzleSpec spec = Parse("tdist_ag_gemm_multinode_unaligned",
                                 CorpusText("tdist_ag_gemm_multinode_unaligned"));
  SwizzleProveOptions o;
  o.total_rlimit = 1'500'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, Multinode16x(), o));
  ExpectRechecked(spec, p);
  EXPECT_TRUE(p.minimised) << p.ToString();
  EXPECT_TRUE(HasNote(p, "fails at m_per_rank=1, block_m=2, nnodes=2, local_world_size=1"))
      << p.ToString();
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult declared, sim::swizzle::Sweep(spec));
  EXPECT_EQ(p.counterexample, declared.counterexample) << p.ToString();
  EXPECT_EQ(p.counterexample->ToString(),
            "out_of_range at m_per_rank=1, block_m=2, nnodes=2, local_world_size=1, rank=1, "
            "num_pid_n=1, group_size_m=1: iteration 0 maps to (row=1, col=0), outside the "
            "box row < 1, col < 1");
}

// Broken variants are never `holds`: the local rotation by the wrong modulus (nnodes: the
// digit's extent identity nnodes == local_world_size fails, and the sweep pinned there
// refutes the map), the node digit scaled by the wrong radix and the local digit taken
// in the wrong radix (their product and remainder radices differ: not digit maps, R is
// proved as written). At 16x the first two are violated with a counterexample the sweep
// re-checks, the third violated so or inconclusive; on the declared box each gives the
// enumeration's smallest counterexample, and the corpus map holds.
TEST(SwizzleProveDigitsTest, DigitChainDoesNotProveBrokenRotations) {
  const std::string local =
      "let swizzle_m_local_rank = (m_local_rank + rank) % local_world_size;";
  const std::string radix =
      "let swizzle_m_rank = swizzle_m_node_id * local_world_size + swizzle_m_local_rank;";
  const std::string name = "tdist_ag_gemm_multinode";
  const SwizzleSpec wrong_modulus =
      WithLine(name, local, "let swizzle_m_local_rank = (m_local_rank + rank) % nnodes;");
  const SwizzleSpec wrong_radix = WithLine(
      name, radix, "let swizzle_m_rank = swizzle_m_node_id * nnodes + swizzle_m_local_rank;");
  const SwizzleSpec wrong_remainder =
      WithLine(name, "let m_local_rank = m_rank % local_world_size;",
               "let m_local_rank = m_rank % nnodes;");
  for (const SwizzleSpec* spec : {&wrong_modulus, &wrong_radix, &wrong_remainder}) {
    SCOPED_TRACE(spec->source_name());
    SwizzleProveOptions o;
    o.total_rlimit = 1'500'000;
    ASSERT_OK_AND_ASSIGN(SwizzleProof wide, ProveSpec(*spec, Multinode16x(), o));
    EXPECT_NE(wide.verdict, Verdict::kHolds) << wide.ToString();
    if (spec == &wrong_modulus) {
      EXPECT_TRUE(HasNote(wide, "the fact nnodes == local_world_size fails")) << wide.ToString();
    } else {
      EXPECT_FALSE(HasNote(wide, "digit chain")) << wide.ToString();
    }
    if (spec != &wrong_remainder || wide.verdict == Verdict::kViolated) {
      ExpectRechecked(*spec, wide);
    }
    ASSERT_OK_AND_ASSIGN(SwizzleProof declared, ProveSpec(*spec, {}));
    ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(*spec));
    EXPECT_EQ(e.verdict, Verdict::kViolated);
    EXPECT_EQ(declared.verdict, e.verdict) << declared.ToString();
    EXPECT_EQ(declared.counterexample, e.counterexample) << declared.ToString();
  }
  ASSERT_OK_AND_ASSIGN(SwizzleProof good, ProveSpec(Parse(name, CorpusText(name)), {}));
  EXPECT_EQ(good.verdict, Verdict::kHolds) << good.ToString();
}

// A segment-wise rotation whose quotient digit is the identity: its extent is n // s,
// and the identity n == (n // s) * s is proved by evaluation (here through the domain k *
// s). With the rotation's modulus one too large the digit's extent identity s + 1 == s
// fails everywhere, and the sweep finds the violation (s = 1, rank = 1: row 1 of 1).
TEST(SwizzleProveDigitsTest, DigitChainTakesAnIdentityDigit) {
  const std::string text =
      "param k in 1..64;\nparam s in 1..64;\nparam rank in 0..7;\nparam c in 1..3;\n"
      "domain = k * s * c;\ngrid row = k * s;\ngrid col = c;\n"
      "let pid = iter // c;\nout col = iter % c;\n"
      "let seg = pid // s;\nlet within = pid - seg * s;\n"
      "out row = seg * s + (within + rank) % MODULUS;\n";
  const SwizzleSpec good =
      Parse("segments", absl::StrReplaceAll(text, {{"MODULUS", "s"}}));
  const SwizzleSpec bad =
      Parse("segments (s + 1)", absl::StrReplaceAll(text, {{"MODULUS", "(s + 1)"}}));
  SwizzleProveOptions o;
  o.total_rlimit = 1'500'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(good, {}, o));
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_TRUE(HasNote(p, "k * s == k * s // s * s")) << p.ToString();
  ASSERT_OK_AND_ASSIGN(SwizzleProof q, ProveSpec(bad, {}, o));
  ExpectRechecked(bad, q);
  EXPECT_TRUE(HasNote(q, "the fact s + 1 == s fails at s=1")) << q.ToString();
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e,
                       sim::swizzle::Sweep(bad, {{{"k", {1, 4}}, {"s", {1, 4}}}}));
  ASSERT_EQ(e.verdict, Verdict::kViolated);
  EXPECT_EQ(q.counterexample, e.counterexample) << q.ToString();
}

// A failing fact is not a violation: at rank 0 the extent is one more than k * s, so
// n == (n // s) * s fails there, but R is then the identity, a bijection of any [0, n).
// The sweeps at the failing points find nothing, the chain is left open and R is proved
// as written: holds, as the enumeration says.
TEST(SwizzleProveDigitsTest, DigitChainFailingFactIsNoViolation) {
  const SwizzleSpec spec = Parse(
      "segments (one more at rank 0)",
      "param k in 1..4;\nparam s in 1..4;\nparam rank in 0..3;\nparam c in 1..2;\n"
      "let n = k * s + select(rank == 0, 1, 0);\n"
      "domain = n * c;\ngrid row = n;\ngrid col = c;\n"
      "let pid = iter // c;\nout col = iter % c;\n"
      "let seg = pid // s;\nlet within = pid - seg * s;\n"
      "out row = seg * s + (within + rank) % s;\n");
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}));
  ASSERT_OK_AND_ASSIGN(sim::swizzle::CheckResult e, sim::swizzle::Sweep(spec));
  EXPECT_EQ(e.verdict, Verdict::kHolds);
  EXPECT_EQ(p.verdict, Verdict::kHolds) << p.ToString();
  EXPECT_TRUE(HasNote(p, "fails at k=1, s=2, rank=0")) << p.ToString();
  EXPECT_TRUE(HasNote(p, "is not violated there; R is proved as written")) << p.ToString();
}

// A fact whose box is too large to scan leaves the chain open (a note), never a proof
// by itself: R is then proved as written under what the budget has left (here the
// segment-wise rotation over k up to 2^20 and s up to 64: 2^26 points for n == (n // s) * s).
TEST(SwizzleProveDigitsTest, DigitChainNeedsTheFactsScanned) {
  const SwizzleSpec spec = Parse(
      "segments (wide)",
      "param k in 1..1048576;\nparam s in 1..64;\nparam rank in 0..7;\n"
      "domain = k * s;\ngrid row = k * s;\n"
      "let pid = iter % (k * s);\n"
      "let seg = pid // s;\nlet within = pid - seg * s;\n"
      "out row = seg * s + (within + rank) % s;\n");
  SwizzleProveOptions o;
  o.total_rlimit = 500'000;
  ASSERT_OK_AND_ASSIGN(SwizzleProof p, ProveSpec(spec, {}, o));
  EXPECT_NE(p.verdict, Verdict::kViolated) << p.ToString();
  EXPECT_TRUE(HasNote(p, "is not scanned: 67108864 parameter points")) << p.ToString();
  EXPECT_FALSE(HasNote(p, "), proved: ")) << p.ToString();
}

}  // namespace
}  // namespace warpcheck::verify
