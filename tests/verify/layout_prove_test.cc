// verify/layout: the symbolic encodings against sim/layout (the closed-form swizzle term
// equals the LinearLayout on every point of a box), verdicts against the enumeration
// oracle on every point, known-bad layouts with counterexamples that really collide or
// conflict (re-checked with sim/bank here), minimality, ranges, budgets and errors.
#include "verify/layout/layout_prove.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/bank/bank_model.h"
#include "tests/testing/status_matchers.h"
#include "verify/layout/encode_internal.h"
#include "verify/layout/oracle_internal.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::layout {
namespace {

using ::testing::HasSubstr;

sim::layout::EncodingPtr Parse(const std::string& text) {
  auto e = sim::layout::ParseEncoding(text, sim::layout::SourceLocation{});
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : nullptr;
}

const char kSwizzled[] =
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>";
const char kRotating[] =
    "#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>";

Family MustFamily(const std::string& attr, std::vector<Range> shape,
                  std::vector<Param> overrides, Property p) {
  auto f = MakeFamily(Parse(attr), shape, overrides, p);
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

// Every point of a family, first parameter slowest.
std::vector<std::vector<int64_t>> AllPoints(const Family& f) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (const Param& p : f.params) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out) {
      for (int64_t v : p.range.Values()) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out = next;
  }
  return out;
}

std::vector<Param> SinglePoint(const Family& f, const std::vector<int64_t>& v) {
  std::vector<Param> out = f.params;
  for (size_t k = 0; k < v.size(); ++k) out[k].range = {v[k], v[k]};
  return out;
}

// The closed-form swizzle term is sim/layout's LinearLayout, offset by offset, on every
// point of a box (one query per point: "some offset maps elsewhere" must be unsat).
TEST(LayoutEncodeTest, SwizzledClosedFormEqualsLinearLayoutOnEveryPoint) {
  for (const char* attr : {kSwizzled, kRotating,
                           "#ttg.swizzled_shared<{vec = 2, perPhase = 4, maxPhase = 2, "
                           "order = [0, 1]}>"}) {
    const Family f = MustFamily(attr, {{4, 16}, {8, 16}},
                                {{"vec", {1, 8}}, {"per-phase", {1, 2}}, {"max-phase", {1, 8}}},
                                Property::kBijective);
    ASSERT_TRUE(SwizzledClosedFormApplies(f));
    int checked = 0;
    for (const std::vector<int64_t>& v : AllPoints(f)) {
      ASSERT_OK_AND_ASSIGN(Instance in, Instantiate(f, v));
      smt::Context ctx;
      Family point = f;
      point.params = SinglePoint(f, v);
      const MapTerms sym = EncodeSwizzledFamily(ctx, point);
      const MapTerms ref = EncodeInstance(ctx, in);
      const smt::Term o = ctx.BvVar("o", kWidth);
      const std::vector<smt::Term> a = sym.forward(o), b = ref.forward(o);
      smt::Term differ = a[0] != b[0] || a[1] != b[1];
      smt::SolverOptions qfbv;
      qfbv.bitvector = true;
      smt::SolverResult r = ctx.Check(
          "equal", {smt::BvUlt(o, ctx.Bv(in.layout.TotalInDimSize(), kWidth)), differ},
          qfbv);
      ASSERT_EQ(r.result, smt::SatResult::kUnsat) << attr << " at point " << in.layout.ToString();
      ++checked;
    }
    EXPECT_EQ(checked, 3 * 2 * 4 * 2 * 4);
  }
}

// The law: for every point of a box, the proof's verdict is the enumeration oracle's
// (sim/layout + sim/bank), and on the whole box the symbolic and enumerated engines
// agree, counterexample included.
void ExpectAgreesWithOracle(const Family& f, Property p, Access a) {
  int64_t violated = 0, admitted = 0;
  for (const std::vector<int64_t>& v : AllPoints(f)) {
    absl::StatusOr<Instance> in = Instantiate(f, v);
    if (!in.ok()) continue;
    if (p == Property::kBankConflictFree && !AccessAdmits(*in, a).ok()) continue;
    ++admitted;
    const bool oracle_ok = !CheckInstance(*in, p, a).has_value();
    Family point = f;
    point.params = SinglePoint(f, v);
    ASSERT_OK_AND_ASSIGN(Proof proof, Prove(point, p, a, ProveOptions{}));
    EXPECT_EQ(proof.verdict, oracle_ok ? Verdict::kHolds : Verdict::kViolated)
        << in->layout.ToString();
    violated += oracle_ok ? 0 : 1;
  }
  EXPECT_GT(admitted, 0);
  ProveOptions enumerated;
  enumerated.symbolic = false;
  ASSERT_OK_AND_ASSIGN(Proof sym, Prove(f, p, a, ProveOptions{}));
  ASSERT_OK_AND_ASSIGN(Proof en, Prove(f, p, a, enumerated));
  EXPECT_EQ(sym.verdict, violated > 0 ? Verdict::kViolated : Verdict::kHolds);
  EXPECT_EQ(en.verdict, sym.verdict);
  if (sym.counterexample && en.counterexample) {
    EXPECT_EQ(sym.counterexample->params, en.counterexample->params);
    EXPECT_EQ(sym.counterexample->text, en.counterexample->text);
  }
}

TEST(LayoutProveLawTest, SwizzledBankVerdictsEqualEnumeration) {
  for (Access a : {Access::kV4, Access::kLdmatrix}) {
    ExpectAgreesWithOracle(
        MustFamily(kSwizzled, {{8, 16}, {8, 32}},
                   {{"vec", {1, 8}}, {"per-phase", {1, 2}}, {"max-phase", {1, 8}},
                    {"element-bits", {16, 32}}},
                   Property::kBankConflictFree),
        Property::kBankConflictFree, a);
  }
}

TEST(LayoutProveLawTest, RotatingBankVerdictsEqualEnumeration) {
  ExpectAgreesWithOracle(
      MustFamily(kRotating, {{8, 32}, {16, 64}},
                 {{"vec", {4, 8}}, {"per-phase", {1, 2}}, {"max-phase", {1, 8}}},
                 Property::kBankConflictFree),
      Property::kBankConflictFree, Access::kLdmatrix);
}

TEST(LayoutProveLawTest, NvmmaVerdictsEqualEnumeration) {
  const char* attr =
      "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
      "elementBitWidth = 16}>";
  for (Property p : {Property::kBijective, Property::kBankConflictFree}) {
    ExpectAgreesWithOracle(
        MustFamily(attr, {{8, 16}, {16, 64}},
                   {{"swizzle-bytes", {0, 128}}, {"element-bits", {8, 16}}}, p),
        p, Access::kLdmatrix);
  }
}

TEST(LayoutProveLawTest, PaddedVerdictsEqualEnumeration) {
  for (const char* pad : {"[64:+8]", "[64:+4]", "[64:+16]", "[32:+8, 512:+8]"}) {
    const std::string attr =
        absl::StrCat("#ttg.padded_shared<", pad, " {order = [1, 0], shape = [64, 64]}>");
    ExpectAgreesWithOracle(
        MustFamily(attr, {{16, 64}, {64, 64}}, {{"element-bits", {16, 16}}},
                   Property::kBankConflictFree),
        Property::kBankConflictFree, Access::kLdmatrix);
  }
}

// Triton's standard fp16 MMA operand swizzle is ldmatrix-conflict-free for every tile
// shape in range: one symbolic query set.
TEST(LayoutProveTest, Fp16MmaSwizzleIsConflictFreeSymbolically) {
  const Family f = MustFamily(kSwizzled, {{8, 4096}, {64, 4096}}, {},
                              Property::kBankConflictFree);
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kBankConflictFree, Access::kLdmatrix,
                                      ProveOptions{}));
  EXPECT_EQ(p.verdict, Verdict::kHolds);
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].mode, "symbolic");
  EXPECT_EQ(p.coverage[0].points, 10 * 7);
}

// The identity layout (no swizzle) conflicts under ldmatrix: rows 16 bytes * 64 apart
// land on the same banks. The counterexample is re-checked with sim/bank here.
TEST(LayoutProveTest, UnswizzledLdmatrixConflictsWithARealCounterexample) {
  const Family f = MustFamily(
      "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
      {{64, 64}, {64, 64}}, {}, Property::kBankConflictFree);
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kBankConflictFree, Access::kLdmatrix,
                                      ProveOptions{}));
  ASSERT_EQ(p.verdict, Verdict::kViolated);
  ASSERT_TRUE(p.counterexample.has_value());
  const Counterexample& c = *p.counterexample;
  EXPECT_EQ(c.kind, "bank_conflict");
  EXPECT_EQ(c.request, 0);
  EXPECT_EQ(c.lanes, (std::vector<int32_t>{0, 1}));
  ASSERT_EQ(c.addresses.size(), 2u);
  EXPECT_EQ(c.addresses[0], 0);
  EXPECT_EQ(c.addresses[1], 128);  // row 1 of a 64-element f16 row
  uint32_t rows[32] = {};
  for (int r = 0; r < 8; ++r) rows[r] = static_cast<uint32_t>(r * 128);
  EXPECT_EQ(sim::bank::MatrixRequestCost(rows, 1).wavefronts, c.wavefronts);
  EXPECT_EQ(c.wavefronts, 8);
}

// Over a box, the counterexample is the smallest violating point: every point before it
// (first parameter slowest) holds by enumeration.
TEST(LayoutProveTest, CounterexampleIsTheSmallestPoint) {
  const Family f = MustFamily(
      kSwizzled, {{16, 128}, {16, 128}},
      {{"vec", {1, 16}}, {"per-phase", {1, 8}}, {"max-phase", {1, 8}}},
      Property::kBankConflictFree);
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kBankConflictFree, Access::kLdmatrix,
                                      ProveOptions{}));
  ASSERT_EQ(p.verdict, Verdict::kViolated);
  std::vector<int64_t> cex;
  for (const auto& [name, v] : p.counterexample->params) cex.push_back(v);
  for (const std::vector<int64_t>& v : AllPoints(f)) {
    ASSERT_OK_AND_ASSIGN(Instance in, Instantiate(f, v));
    const bool violated =
        AccessAdmits(in, Access::kLdmatrix).ok() &&
        CheckInstance(in, Property::kBankConflictFree, Access::kLdmatrix).has_value();
    if (v == cex) {
      EXPECT_TRUE(violated);
      break;
    }
    EXPECT_FALSE(violated) << "a smaller point violates: " << in.layout.ToString();
  }
}

TEST(LayoutProveTest, SharedLinearWithAZeroBasisIsNotInjective) {
  const Family f = MustFamily(
      "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [0, 0]]}, alignment = 16>",
      {{2, 2}, {4, 4}}, {}, Property::kInjective);
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kInjective, Access::kNone, ProveOptions{}));
  ASSERT_EQ(p.verdict, Verdict::kViolated);
  EXPECT_EQ(p.counterexample->kind, "duplicate");
  EXPECT_EQ(p.counterexample->offsets, (std::vector<int64_t>{0, 8}));
  ASSERT_OK_AND_ASSIGN(Proof s, Prove(f, Property::kSurjective, Access::kNone, ProveOptions{}));
  EXPECT_EQ(s.verdict, Verdict::kHolds);
}

TEST(LayoutProveTest, TinyRlimitIsInconclusiveNeverAGuess) {
  const Family f = MustFamily(kSwizzled, {{16, 32}, {16, 32}},
                              {{"vec", {1, 16}}, {"max-phase", {1, 8}}},
                              Property::kBankConflictFree);
  ProveOptions o;
  o.rlimit = 1;
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kBankConflictFree, Access::kLdmatrix, o));
  EXPECT_EQ(p.verdict, Verdict::kInconclusive);
  EXPECT_FALSE(p.counterexample.has_value());
  bool open = false;
  for (const Coverage& c : p.coverage) open |= c.mode == "open";
  EXPECT_TRUE(open);
}

TEST(LayoutProveTest, NotAdmittedPointsAreCountedNotJudged) {
  // f16 ldmatrix needs 8 columns and 8 rows: dim0 = 4 is rejected, the rest proven.
  const Family f = MustFamily(kSwizzled, {{4, 16}, {64, 64}}, {}, Property::kBankConflictFree);
  ASSERT_OK_AND_ASSIGN(Proof p, Prove(f, Property::kBankConflictFree, Access::kLdmatrix,
                                      ProveOptions{}));
  EXPECT_EQ(p.verdict, Verdict::kHolds);
  EXPECT_EQ(p.points, 3);
  EXPECT_EQ(p.admitted, 2);
  ASSERT_GE(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].mode, "not_admitted");
  EXPECT_THAT(p.coverage[0].note, HasSubstr("8 rows"));
}

TEST(LayoutProveTest, Errors) {
  EXPECT_THAT(ParseRange("--vec", "3..16", 1024).status().message(), HasSubstr("power of two"));
  EXPECT_THAT(ParseRange("--vec", "16..4", 1024).status().message(), HasSubstr("empty"));
  EXPECT_THAT(ParseRange("--vec", "x", 1024).status().message(), HasSubstr("not an integer"));
  auto blocked = MakeFamily(Parse("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
                                  "[8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"),
                            {{64, 64}, {64, 64}}, {}, Property::kBijective);
  EXPECT_THAT(blocked.status().message(), HasSubstr("shared encoding"));
  auto nvmma_vec = MakeFamily(
      Parse("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
            "elementBitWidth = 16}>"),
      {{64, 64}, {64, 64}}, {{"vec", {1, 8}}}, Property::kBijective);
  EXPECT_THAT(nvmma_vec.status().message(), HasSubstr("no parameter vec"));
  // shared_linear's shape is its own: any other shape admits no point.
  const Family sl = MustFamily(
      "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}, alignment = 16>",
      {{8, 8}, {4, 4}}, {}, Property::kBijective);
  EXPECT_EQ(Prove(sl, Property::kBijective, Access::kNone, ProveOptions{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace warpcheck::verify::layout
