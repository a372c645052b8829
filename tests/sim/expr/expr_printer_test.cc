// Printer: canonical text, minimal parentheses, and the round trip
// Print(Parse(Print(e))) == Print(e) with the re-parsed tree equal to the original.
#include <limits>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/ast.h"
#include "sim/expr/parser.h"
#include "sim/expr/printer.h"
#include "tests/sim/expr/random_expr.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::expr {
namespace {

std::string Canonical(const std::string& text) {
  absl::StatusOr<ExprPtr> e = ParseExpr("p", text, testing::RandomExprNames());
  if (!e.ok()) return std::string(e.status().message());
  return Print(**e);
}

TEST(ExprPrinterTest, CanonicalText) {
  EXPECT_EQ(Canonical("(a+b)*c-(d-e)"), "p:1:10: undefined name 'd'");
  EXPECT_EQ(Canonical("(a+b)*c-(b-a)"), "(a + b) * c - (b - a)");
  EXPECT_EQ(Canonical("((a - b) - c)"), "a - b - c");
  EXPECT_EQ(Canonical("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(Canonical("a // (b * c)"), "a // (b * c)");
  EXPECT_EQ(Canonical("(a // b) * c"), "a // b * c");
  EXPECT_EQ(Canonical("- -a"), "-(-a)");
  EXPECT_EQ(Canonical("-(a)"), "-a");
  EXPECT_EQ(Canonical("-(a + 1)"), "-(a + 1)");
  EXPECT_EQ(Canonical("a * -b"), "a * -b");
  EXPECT_EQ(Canonical("a - -5"), "a - -5");
  EXPECT_EQ(Canonical("!(a < b)"), "!(a < b)");
  EXPECT_EQ(Canonical("!!p"), "!(!p)");
  EXPECT_EQ(Canonical("(a < b) == p"), "(a < b) == p");
  EXPECT_EQ(Canonical("p == (a < b)"), "p == (a < b)");
  EXPECT_EQ(Canonical("a<b&&b<c||p"), "a < b && b < c || p");
  EXPECT_EQ(Canonical("a < b && (b < c || p)"), "a < b && (b < c || p)");
  EXPECT_EQ(Canonical("(p || p) || p"), "p || p || p");
  EXPECT_EQ(Canonical("p || (p || p)"), "p || (p || p)");
  EXPECT_EQ(Canonical("select(a<b,min(a,b),cdiv(a,(3)))"),
            "select(a < b, min(a, b), cdiv(a, 3))");
  EXPECT_EQ(Canonical("max((a + b), -c) % 7"), "max(a + b, -c) % 7");
  EXPECT_EQ(Canonical("true && !false"), "true && !false");
}

TEST(ExprPrinterTest, NegativeAndExtremeConstants) {
  EXPECT_EQ(Print(*Expr::IntConst(-5)), "-5");
  EXPECT_EQ(Print(*Expr::IntConst(std::numeric_limits<int64_t>::min())),
            "-9223372036854775807 - 1");
  ExprPtr a = Expr::Var("a", Type::kInt);
  // API-built trees with negative constants still print text that re-parses to the
  // same text.
  for (ExprPtr e :
       {Expr::MustMake(ExprKind::kNeg, {Expr::IntConst(-5)}),
        Expr::MustMake(ExprKind::kMul,
                       {a, Expr::IntConst(std::numeric_limits<int64_t>::min())}),
        Expr::MustMake(ExprKind::kSub, {a, Expr::IntConst(-3)})}) {
    std::string text = Print(*e);
    ASSERT_OK_AND_ASSIGN(ExprPtr back, ParseExpr("p", text, testing::RandomExprNames()));
    EXPECT_EQ(Print(*back), text);
  }
  EXPECT_EQ(Print(*Expr::MustMake(ExprKind::kNeg, {Expr::IntConst(-5)})), "-(-5)");
  EXPECT_EQ(
      Print(*Expr::MustMake(ExprKind::kMul,
                            {a, Expr::IntConst(std::numeric_limits<int64_t>::min())})),
      "a * (-9223372036854775807 - 1)");
}

TEST(ExprPrinterTest, RandomRoundTrip) {
  testing::RandomExpr gen(12345);
  for (int i = 0; i < 3000; ++i) {
    ExprPtr e = gen.Make(i % 2 == 0 ? Type::kInt : Type::kBool, 1 + i % 6);
    std::string text = Print(*e);
    ASSERT_OK_AND_ASSIGN(ExprPtr back, ParseExpr("p", text, testing::RandomExprNames()));
    EXPECT_TRUE(back->Equals(*e)) << text << " re-parsed as " << Print(*back);
    EXPECT_EQ(Print(*back), text);
  }
}

TEST(ExprPrinterTest, ProgramRoundTrip) {
  Dialect d{
      {{"iter", Type::kInt}},
      {ClauseSpec{"out", ClauseForm::kNamed, Type::kInt, Scope::kInputs, true, true},
       ClauseSpec{"domain", ClauseForm::kAssign, Type::kInt, Scope::kParams, false, true},
       ClauseSpec{"require", ClauseForm::kBare, Type::kBool, Scope::kParams}}};
  const char* text = R"(# comments are dropped
param  rows in 1..64 ;
param lo in -4..-1;
require rows%2==0;
let   half = (rows // 2);
domain=half*2;
out row = select(iter < half, iter, (iter - half));
)";
  ASSERT_OK_AND_ASSIGN(Program p, ParseProgram("p.swz", text, d));
  const std::string expected =
      "param rows in 1..64;\n"
      "param lo in -4..-1;\n"
      "require rows % 2 == 0;\n"
      "let half = rows // 2;\n"
      "domain = half * 2;\n"
      "out row = select(iter < half, iter, iter - half);\n";
  EXPECT_EQ(Print(p), expected);
  ASSERT_OK_AND_ASSIGN(Program again, ParseProgram("p.swz", Print(p), d));
  EXPECT_EQ(Print(again), expected);
  for (size_t i = 0; i < p.statements().size(); ++i) {
    const Stmt& a = p.statements()[i];
    const Stmt& b = again.statements()[i];
    if (a.value != nullptr) {
      EXPECT_TRUE(a.value->Equals(*b.value)) << Print(a);
    }
  }
}

TEST(ExprPrinterTest, StreamOperator) {
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpr("p", "a+1", testing::RandomExprNames()));
  std::ostringstream os;
  os << *e;
  EXPECT_EQ(os.str(), "a + 1");
}

}  // namespace
}  // namespace warpcheck::sim::expr
