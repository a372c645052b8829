// smt::ExprEncoder: the Z3 encoding of sim/expr agrees with the evaluator
// (sim/expr/eval.h) on values and on definedness — floor division and remainder for every
// sign, cdiv, lazy operators, overflow — both where the encoder uses Z3's native division
// (constant divisors) and where it introduces quotient/remainder variables.
#include "verify/smt/expr_encoder.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/eval.h"
#include "sim/expr/parser.h"
#include "sim/expr/printer.h"
#include "tests/sim/expr/random_expr.h"
#include "tests/testing/status_matchers.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::smt {
namespace {

using sim::expr::Env;
using sim::expr::ExprPtr;
using sim::expr::Type;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

SolverOptions Budget() {
  SolverOptions o;
  o.rlimit = 2'000'000;
  return o;
}

ExprPtr Parse(const std::string& text) {
  absl::StatusOr<ExprPtr> e = sim::expr::ParseExpr(
      "<test>", text,
      {{"a", Type::kInt}, {"b", Type::kInt}, {"c", Type::kInt}, {"p", Type::kBool}});
  EXPECT_TRUE(e.ok()) << e.status();
  return *e;
}

// How the names are bound: as constants (the encoder sees the values), or as variables
// with the whole int64 range, pinned by assertions (the encoder must handle any sign).
enum class Binding { kConstants, kVariables };

// Checks that the encoding of `e` at `env` has exactly the evaluator's value and
// definedness. Returns false (after reporting) on a disagreement. `cases`: the encoder's
// set_small_divisor_cases.
void ExpectAgrees(const ExprPtr& e, const Env& env, Binding binding, int cases = 0) {
  Context ctx;
  ExprEncoder enc(ctx);
  enc.set_small_divisor_cases(cases);
  std::vector<Term> pins;
  for (const auto& [name, value] : env) {
    if (name == "p") {
      enc.BindBool(name, ctx.Bool(value != 0));
    } else if (binding == Binding::kConstants) {
      enc.BindConst(name, value);
    } else {
      Term v = ctx.IntVar(name);
      enc.Bind(name, v, kMin, kMax);
      pins.push_back(v == value);
    }
  }
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded x, enc.Encode(e));
  absl::StatusOr<int64_t> want = sim::expr::Evaluate(*e, env);
  std::vector<Term> q = pins;
  q.insert(q.end(), enc.side_conditions().begin(), enc.side_conditions().end());
  const std::string what =
      absl::StrCat(sim::expr::Print(*e), " at a=", env.at("a"), " b=", env.at("b"),
                   " c=", env.at("c"), " p=", env.at("p"));
  if (!want.ok()) {
    q.push_back(x.Defined(ctx));
    SolverResult r = ctx.Check("defined", q, Budget());
    EXPECT_EQ(r.result, SatResult::kUnsat)
        << what << ": evaluator fails with " << want.status()
        << " but the encoding is defined";
    return;
  }
  q.push_back(!x.Defined(ctx) ||
              (e->type() == Type::kBool ? x.value != ctx.Bool(*want != 0)
                                        : x.value != ctx.Int(*want)));
  SolverResult r = ctx.Check("value", q, Budget());
  EXPECT_EQ(r.result, SatResult::kUnsat)
      << what << ": evaluator gives " << *want << "; encoding "
      << (r.result == SatResult::kSat ? r.model.ToString() : r.reason_unknown);
  // The range analysis must contain the value.
  if (e->type() == Type::kInt) {
    EXPECT_LE(x.range.lo, static_cast<__int128>(*want)) << what;
    EXPECT_GE(x.range.hi, static_cast<__int128>(*want)) << what;
  }
}

TEST(ExprEncoderTest, FloorDivisionModuloAndCdivForEverySign) {
  const ExprPtr ops[] = {Parse("a // b"), Parse("a % b"), Parse("cdiv(a, b)")};
  for (Binding binding : {Binding::kConstants, Binding::kVariables}) {
    for (int64_t a : {-7, -6, -1, 0, 1, 6, 7}) {
      for (int64_t b : {-3, -2, -1, 0, 1, 2, 3}) {
        for (const ExprPtr& e : ops) {
          ExpectAgrees(e, {{"a", a}, {"b", b}, {"c", 0}, {"p", 0}}, binding);
        }
      }
    }
  }
}

// With small_divisor_cases, a divisor that is a variable is split into b == 1..3 (native
// division by each constant) and the fresh quotient for every other value: both paths,
// every sign, agree with the evaluator.
TEST(ExprEncoderTest, SmallDivisorCasesAgreeWithEvaluator) {
  const ExprPtr ops[] = {Parse("a // b"), Parse("a % b"), Parse("cdiv(a, b)"),
                         Parse("(a + c) // (b - c) + a % (c * b)")};
  for (int64_t a : {-7, -1, 0, 1, 6, 7}) {
    for (int64_t b : {-3, -1, 0, 1, 2, 3, 4, 5}) {
      for (const ExprPtr& e : ops) {
        ExpectAgrees(e, {{"a", a}, {"b", b}, {"c", 1}, {"p", 0}}, Binding::kVariables, 3);
      }
    }
  }
  sim::expr::testing::RandomExpr gen(977);
  for (int i = 0; i < 80 && !HasFailure(); ++i) {
    ExprPtr e = gen.Make(Type::kInt, 1 + i % 4);
    ExpectAgrees(e, {{"a", gen.Value()}, {"b", gen.Value()}, {"c", gen.Value()}, {"p", 0}},
                 Binding::kVariables, 3);
  }
}

// nonlinear_nodes: a divisor in 1..7 with cases for 1..8 leaves the encoding linear; the
// same division without cases, or a product of two variables, does not.
TEST(ExprEncoderTest, SmallDivisorCasesMakeTheDivisionLinear) {
  for (int cases : {0, 8}) {
    Context ctx;
    ExprEncoder enc(ctx);
    enc.set_small_divisor_cases(cases);
    enc.Bind("a", ctx.IntVar("a"), 0, 1000);
    enc.Bind("b", ctx.IntVar("b"), 1, 7);
    enc.BindConst("c", 3);
    ASSERT_OK(enc.Encode(Parse("a // b + a % b + a * c")).status());
    EXPECT_EQ(enc.nonlinear_nodes(), cases == 0 ? 2 : 0) << cases;
    ASSERT_OK(enc.Encode(Parse("a * b")).status());
    EXPECT_EQ(enc.nonlinear_nodes(), cases == 0 ? 3 : 1) << cases;
  }
}

// With small_quotient_cases(4), a non-negative dividend over a positive divisor whose
// values the divisor cases do not cover (here 17..40) is split into the quotients 0..3 and
// the fresh pair for a >= 4*b: both paths agree with the evaluator, and the division no
// longer counts as nonlinear.
TEST(ExprEncoderTest, SmallQuotientCasesAgreeWithEvaluator) {
  const ExprPtr ops[] = {Parse("a // b"), Parse("a % b"), Parse("cdiv(a, b)"),
                         Parse("a // (b + c) * 3 + a % (b + c)")};
  for (int64_t a : {0, 1, 16, 17, 39, 40, 79, 80, 100, 159, 160, 161, 500}) {
    for (int64_t b : {17, 20, 33, 40}) {
      for (const ExprPtr& e : ops) {
        Context ctx;
        ExprEncoder enc(ctx);
        enc.set_small_divisor_cases(16);
        enc.set_small_quotient_cases(4);
        const Term va = ctx.IntVar("a"), vb = ctx.IntVar("b");
        enc.Bind("a", va, 0, 1000);
        enc.Bind("b", vb, 17, 40);
        enc.BindConst("c", 1);
        ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded x, enc.Encode(e));
        absl::StatusOr<int64_t> want =
            sim::expr::Evaluate(*e, {{"a", a}, {"b", b}, {"c", 1}});
        ASSERT_OK(want.status());
        std::vector<Term> q = {va == a, vb == b};
        q.insert(q.end(), enc.side_conditions().begin(), enc.side_conditions().end());
        q.push_back(!x.Defined(ctx) || x.value != ctx.Int(*want));
        SolverResult r = ctx.Check("value", q, Budget());
        EXPECT_EQ(r.result, SatResult::kUnsat)
            << sim::expr::Print(*e) << " at a=" << a << " b=" << b << ": evaluator gives "
            << *want << "; encoding "
            << (r.result == SatResult::kSat ? r.model.ToString() : r.reason_unknown);
        EXPECT_EQ(enc.nonlinear_nodes(), 0) << sim::expr::Print(*e);
      }
    }
  }
}

// Residues (SetDigits with residues): a = g*S + j with the caller's digits g, j; `a % c`
// for c != S is (g*(S % c) + j) % c with the product as cases over S % c. At every a, S
// and c (either sign) the value is the evaluator's, and with factor cases on nothing is
// nonlinear; with the obligations the cases are the encoder's own (S % c within its
// range).
TEST(ExprEncoderTest, DigitResiduesAgreeWithEvaluator) {
  const ExprPtr e = Parse("a % c + a // b");
  for (bool obligations : {false, true}) {
    for (int64_t a : {0, 1, 5, 13, 29, 47, 96}) {
      for (int64_t b : {3, 7, 12}) {
        for (int64_t c : {-5, -2, 1, 2, 5, 7}) {
          Context ctx;
          ExprEncoder enc(ctx);
          enc.set_small_divisor_cases(8);
          enc.set_small_factor_cases(16);  // S % c in -6..6
          enc.set_case_obligations(obligations);
          const Term va = ctx.IntVar("a"), vb = ctx.IntVar("b"), vc = ctx.IntVar("c");
          const Term g = ctx.IntVar("g"), j = ctx.IntVar("j");
          enc.Bind("b", vb, 1, 12);
          enc.Bind("c", vc, -5, 7);
          enc.Bind("a", va, 0, 100);
          ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded bs, enc.Encode(Parse("b")));
          enc.SetDigits(va, bs.value, bs.range, g, j, /*residues=*/true);
          ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded x, enc.Encode(e));
          absl::StatusOr<int64_t> want =
              sim::expr::Evaluate(*e, {{"a", a}, {"b", b}, {"c", c}});
          ASSERT_OK(want.status());
          std::vector<Term> q = {va == a, vb == b, vc == c, va == g * vb + j, g >= 0, j >= 0,
                                 j < vb};
          q.insert(q.end(), enc.side_conditions().begin(), enc.side_conditions().end());
          q.insert(q.end(), enc.obligations().begin(), enc.obligations().end());
          q.push_back(!x.Defined(ctx) || x.value != ctx.Int(*want));
          SolverResult r = ctx.Check("value", q, Budget());
          EXPECT_EQ(r.result, SatResult::kUnsat)
              << "a=" << a << " b=" << b << " c=" << c << " obligations=" << obligations
              << ": evaluator gives " << *want << "; encoding "
              << (r.result == SatResult::kSat ? r.model.ToString() : r.reason_unknown);
          if (c == 5 && b == 7 && a == 13) {
            // The value is read through the digits: with g, j free it is not a % c.
            std::vector<Term> free = {va == a, vb == b, vc == c, j >= 0, j < vb};
            free.insert(free.end(), enc.side_conditions().begin(),
                        enc.side_conditions().end());
            free.insert(free.end(), enc.obligations().begin(), enc.obligations().end());
            free.push_back(x.value != ctx.Int(*want));
            EXPECT_EQ(ctx.Check("free", free, Budget()).result, SatResult::kSat);
          }
        }
      }
    }
  }
}

TEST(ExprEncoderTest, DivisionByZeroIsUndefinedOnlyWhereEvaluated) {
  const Env env = {{"a", 5}, {"b", 0}, {"c", 0}, {"p", 0}};
  for (Binding binding : {Binding::kConstants, Binding::kVariables}) {
    ExpectAgrees(Parse("a // b"), env, binding);                     // undefined
    ExpectAgrees(Parse("select(b != 0, a // b, 0)"), env, binding);  // defined: lazy
    ExpectAgrees(Parse("b != 0 && a % b == 1"), env, binding);       // defined
    ExpectAgrees(Parse("b == 0 || cdiv(a, b) == 1"), env, binding);  // defined
    ExpectAgrees(Parse("b == 0 && cdiv(a, b) == 1"), env, binding);  // undefined
  }
}

TEST(ExprEncoderTest, OverflowIsUndefined) {
  for (Binding binding : {Binding::kConstants, Binding::kVariables}) {
    ExpectAgrees(Parse("a * b"),
                 {{"a", int64_t{1} << 32}, {"b", int64_t{1} << 31}, {"c", 0}, {"p", 0}},
                 binding);  // 2^63: overflow
    ExpectAgrees(Parse("a * b"),
                 {{"a", int64_t{1} << 32}, {"b", int64_t{1} << 30}, {"c", 0}, {"p", 0}},
                 binding);  // 2^62: fine
    ExpectAgrees(Parse("a // b"), {{"a", kMin}, {"b", -1}, {"c", 0}, {"p", 0}}, binding);
    ExpectAgrees(Parse("a % b"), {{"a", kMin}, {"b", -1}, {"c", 0}, {"p", 0}}, binding);
    ExpectAgrees(Parse("-a"), {{"a", kMin}, {"b", 0}, {"c", 0}, {"p", 0}}, binding);
    ExpectAgrees(Parse("a + b - c"), {{"a", kMax}, {"b", 1}, {"c", 5}, {"p", 0}},
                 binding);
  }
}

TEST(ExprEncoderTest, KnownPositiveDivisorNeedsNoCaseSplit) {
  // With b in 1..100 the encoder knows the sign: no zero check, only the b > 0 branch.
  Context ctx;
  ExprEncoder enc(ctx);
  enc.Bind("a", ctx.IntVar("a"), 0, 1000);
  enc.Bind("b", ctx.IntVar("b"), 1, 100);
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded x, enc.Encode(Parse("a // b")));
  EXPECT_FALSE(x.defined.has_value());
  EXPECT_EQ(x.range.lo, 0);
  EXPECT_EQ(x.range.hi, 1000);
  // Definitional constraint plus the implied 0 <= q <= a.
  EXPECT_EQ(enc.side_conditions().size(), 2u);
  // A constant divisor is native: no side conditions at all.
  ExprEncoder enc2(ctx);
  enc2.Bind("a", ctx.IntVar("a"), 0, 1000);
  enc2.BindConst("b", 7);
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded y, enc2.Encode(Parse("a // b + a % b")));
  EXPECT_TRUE(enc2.side_conditions().empty());
  EXPECT_FALSE(y.defined.has_value());
}

TEST(ExprEncoderTest, ForkSharesParameterTerms) {
  // The shared subterm b // c is encoded once; a // c (which reads the rebound a) twice.
  Context ctx;
  ExprEncoder base(ctx);
  base.Bind("b", ctx.IntVar("b"), 1, 100);
  base.Bind("c", ctx.IntVar("c"), 1, 100);
  ExprPtr shared = Parse("b // c");
  ASSERT_OK(base.Encode(shared).status());
  const size_t after_base = base.side_conditions().size();
  ExprPtr e =
      sim::expr::Expr::MustMake(sim::expr::ExprKind::kAdd, {shared, Parse("a // c")});
  ExprEncoder one = base.Fork();
  one.Bind("a", ctx.IntVar("a1"), 0, 100);
  ASSERT_OK(one.Encode(e).status());
  ExprEncoder two = base.Fork();
  two.Bind("a", ctx.IntVar("a2"), 0, 100);
  ASSERT_OK(two.Encode(e).status());
  EXPECT_EQ(base.side_conditions().size(),
            after_base + 2 * 2);  // shared list, +2 per a // c
}

TEST(ExprEncoderTest, UnboundNameIsAnError) {
  Context ctx;
  ExprEncoder enc(ctx);
  EXPECT_THAT(enc.Encode(Parse("a + 1")),
              StatusIs(absl::StatusCode::kInvalidArgument, "unbound name 'a'"));
}

// Property test: random well-typed expressions (the generator of the evaluator's own
// tests, with extreme values so errors are exercised) agree with Evaluate.
TEST(ExprEncoderTest, AgreesWithEvaluatorOnRandomExpressions) {
  sim::expr::testing::RandomExpr gen(4242);
  int errors = 0;
  for (int i = 0; i < 400; ++i) {
    ExprPtr e = gen.Make(i % 3 == 0 ? Type::kBool : Type::kInt, 1 + i % 5);
    Env env{{"a", gen.Value()}, {"b", gen.Value()}, {"c", gen.Value()}, {"p", i % 2}};
    errors += !sim::expr::Evaluate(*e, env).ok();
    ExpectAgrees(e, env, i % 2 == 0 ? Binding::kConstants : Binding::kVariables);
    if (HasFailure()) break;
  }
  EXPECT_GT(errors, 20);  // the error paths (division by zero, overflow) are exercised
}

// The bit-vector encoding (width sized from the ranges) agrees with the evaluator, value
// and definedness, on random expressions whose variables range over -20..20 (symbolic,
// pinned by assertions, so the solver works on the encoded circuits): every division
// path (shift/mask, unsigned, signed with floor fix-up, cdiv) is exercised.
TEST(ExprEncoderTest, BitVectorEncodingAgreesWithEvaluator) {
  sim::expr::testing::RandomExpr gen(777);
  std::mt19937 rng(99);
  int checked = 0, undefined = 0;
  SolverOptions qfbv = Budget();
  qfbv.bitvector = true;
  for (int i = 0; i < 160 && !HasFailure(); ++i) {
    ExprPtr e = gen.Make(i % 4 == 0 ? Type::kBool : Type::kInt, 1 + i % 4);
    Env env{{"p", i % 2}};
    for (const char* n : {"a", "b", "c"}) env[n] = static_cast<int64_t>(rng() % 41) - 20;
    // Size the width with an integer encoding of the same expression.
    Context sizing;
    ExprEncoder probe(sizing);
    for (const char* n : {"a", "b", "c"}) probe.Bind(n, sizing.IntVar(n), -20, 20);
    probe.BindBool("p", sizing.BoolVar("p"));
    ASSERT_OK(probe.Encode(e).status());
    const int width = probe.RequiredWidth() + 1;
    if (width > 64) continue;  // needs more than a machine word: not a bit-vector case
    Context ctx;
    ExprEncoder enc(ctx, width);
    std::vector<Term> q;
    for (const char* n : {"a", "b", "c"}) {
      Term v = ctx.BvVar(n, width);
      enc.Bind(n, v, -20, 20);
      q.push_back(v == env.at(n));
    }
    enc.BindBool("p", ctx.Bool(env.at("p") != 0));
    ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded x, enc.Encode(e));
    EXPECT_TRUE(enc.side_conditions().empty());
    absl::StatusOr<int64_t> want = sim::expr::Evaluate(*e, env);
    const std::string what = absl::StrCat(sim::expr::Print(*e), " at a=", env.at("a"),
                                          " b=", env.at("b"), " c=", env.at("c"),
                                          " p=", env.at("p"), " in ", width, " bits");
    if (!want.ok()) {
      ++undefined;
      q.push_back(x.Defined(ctx));
    } else {
      q.push_back(!x.Defined(ctx) ||
                  (e->type() == Type::kBool ? x.value != ctx.Bool(*want != 0)
                                            : x.value != enc.Num(*want)));
    }
    SolverResult r = ctx.Check("bv", q, qfbv);
    EXPECT_EQ(r.result, SatResult::kUnsat)
        << what << ": evaluator " << (want.ok() ? absl::StrCat(*want) : "fails")
        << "; encoding " << (r.result == SatResult::kSat ? r.model.ToString() : "?");
    ++checked;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(undefined, 5);  // division by zero is exercised
}

TEST(ExprEncoderTest, BitVectorDivisionByAPowerOfTwoIsAShiftAndAMask) {
  Context ctx;
  ExprEncoder enc(ctx, 12);
  enc.Bind("a", ctx.BvVar("a", 12), 0, 1000);
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded q, enc.Encode(Parse("a // 8")));
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded r, enc.Encode(Parse("a % 8")));
  ASSERT_OK_AND_ASSIGN(ExprEncoder::Encoded d, enc.Encode(Parse("a // 7")));
  EXPECT_THAT(q.value.ToString(), ::testing::HasSubstr("bvlshr"));
  EXPECT_THAT(r.value.ToString(), ::testing::HasSubstr("bvand"));
  EXPECT_THAT(d.value.ToString(), ::testing::HasSubstr("bvudiv"));
  EXPECT_FALSE(q.defined.has_value());
  EXPECT_EQ(q.range.hi, 125);
}

TEST(ExprEncoderTest, BitVectorEncodingRefusesToWrap) {
  Context ctx;
  ExprEncoder enc(ctx, 8);
  enc.Bind("a", ctx.BvVar("a", 8), 0, 100);
  EXPECT_OK(enc.Encode(Parse("a + 27")).status());  // 127 fits in 8 signed bits
  EXPECT_THAT(enc.Encode(Parse("a * 2")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "needs 9 bits"));
  EXPECT_THAT(enc.Encode(Parse("a + 300 - 300")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "needs 10 bits"));
  EXPECT_EQ(enc.RequiredWidth(), 10);
}

}  // namespace
}  // namespace warpcheck::verify::smt
