// Parser of the expression language: valid programs, and malformed ones with the exact
// position and message of each error.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/ast.h"
#include "sim/expr/eval.h"
#include "sim/expr/parser.h"
#include "sim/expr/printer.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::expr {
namespace {

using ::testing::ElementsAre;

// A small dialect for these tests: one input, a binding clause, a once-only clause and a
// bare bool clause (the swizzle dialect has its own tests in tests/sim/swizzle).
const Dialect& TestDialect() {
  static const Dialect* d = new Dialect{
      {{"iter", Type::kInt}},
      {
          ClauseSpec{"out", ClauseForm::kNamed, Type::kInt, Scope::kInputs, true, true},
          ClauseSpec{"domain", ClauseForm::kAssign, Type::kInt, Scope::kParams, false,
                     true},
          ClauseSpec{"require", ClauseForm::kBare, Type::kBool, Scope::kParams, false,
                     false},
      }};
  return *d;
}

absl::StatusOr<Program> Parse(const std::string& text) {
  return ParseProgram("t.swz", text, TestDialect());
}

TEST(ExprParserTest, ParsesAProgram) {
  ASSERT_OK_AND_ASSIGN(Program p, Parse(R"(
# a comment line
param rows in 1..64;      # trailing comment
param lo in -4..4;
let half = rows // 2;
require half >= 1 || lo < 0;
domain = rows * 2;
let j = iter % rows;
out row = j;
out twice = row * 2 + half;
)"));
  ASSERT_EQ(p.statements().size(), 8u);
  EXPECT_EQ(p.source_name(), "t.swz");
  const Stmt& rows = p.statements()[0];
  EXPECT_EQ(rows.kind, StmtKind::kParam);
  EXPECT_EQ(rows.name, "rows");
  EXPECT_EQ(rows.lo, 1);
  EXPECT_EQ(rows.hi, 64);
  EXPECT_EQ(rows.loc, (SourceLoc{3, 1}));
  EXPECT_EQ(rows.name_loc, (SourceLoc{3, 7}));
  EXPECT_EQ(p.statements()[1].lo, -4);
  const Stmt& half = p.statements()[2];
  EXPECT_EQ(half.kind, StmtKind::kLet);
  EXPECT_EQ(half.value->kind(), ExprKind::kFloorDiv);
  EXPECT_EQ(half.value->loc(), (SourceLoc{5, 17}));  // the operator
  EXPECT_FALSE(half.depends_on_input);
  EXPECT_TRUE(p.statements()[5].depends_on_input);  // let j
  EXPECT_TRUE(p.statements()[7].depends_on_input);  // out twice, through row
  EXPECT_EQ(p.statements()[3].keyword, "require");
  EXPECT_EQ(p.statements()[3].form, ClauseForm::kBare);
  EXPECT_EQ(p.Clauses("out").size(), 2u);
  EXPECT_NE(p.FindBinding("row"), nullptr);
  EXPECT_EQ(p.FindBinding("iter"), nullptr);
  EXPECT_TRUE(p.IsInput("iter"));
}

TEST(ExprParserTest, TypesFollowDeclarations) {
  ASSERT_OK_AND_ASSIGN(Program p, Parse("param a in 0..3;\nlet b = a < 2;\n"
                                        "let c = select(b, a, 7);\nlet d = b == !b;\n"));
  EXPECT_EQ(p.FindBinding("b")->value->type(), Type::kBool);
  EXPECT_EQ(p.FindBinding("c")->value->type(), Type::kInt);
  EXPECT_EQ(p.FindBinding("d")->value->type(), Type::kBool);
}

TEST(ExprParserTest, PrecedenceAndAssociativity) {
  std::vector<std::pair<std::string, Type>> names = {
      {"a", Type::kInt}, {"b", Type::kInt}, {"c", Type::kInt}};
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpr("e", "a - b - c * a // b % c", names));
  // ((a - b) - (((c * a) // b) % c))
  EXPECT_EQ(e->kind(), ExprKind::kSub);
  EXPECT_EQ(e->operand(0).kind(), ExprKind::kSub);
  EXPECT_EQ(e->operand(1).kind(), ExprKind::kMod);
  EXPECT_EQ(e->operand(1).operand(0).kind(), ExprKind::kFloorDiv);
  ASSERT_OK_AND_ASSIGN(e, ParseExpr("e", "a < b || b < c && !(a == c)", names));
  EXPECT_EQ(e->kind(), ExprKind::kOr);
  EXPECT_EQ(e->operand(1).kind(), ExprKind::kAnd);
  EXPECT_EQ(e->operand(1).operand(1).kind(), ExprKind::kNot);
  ASSERT_OK_AND_ASSIGN(e, ParseExpr("e", "-a * -b", names));
  EXPECT_EQ(e->kind(), ExprKind::kMul);
  EXPECT_EQ(e->operand(0).kind(), ExprKind::kNeg);
}

TEST(ExprParserTest, FreeParamsAndInlineLets) {
  ASSERT_OK_AND_ASSIGN(Program p, Parse("param r in 1..8;\nparam c in 1..8;\n"
                                        "param unused in 0..1;\nlet w = c * 2;\n"
                                        "let j = iter % w;\nout row = j // r;\n"));
  const Stmt* row = p.FindBinding("row");
  ASSERT_NE(row, nullptr);
  EXPECT_THAT(FreeVariables(*row->value), ElementsAre("j", "r"));
  EXPECT_THAT(p.FreeParams(*row->value), ElementsAre("r", "c"));
  EXPECT_THAT(p.FreeInputs(*row->value), ElementsAre("iter"));
  ExprPtr closed = p.InlineLets(row->value);
  EXPECT_EQ(Print(*closed), "iter % (c * 2) // r");
  EXPECT_THAT(FreeVariables(*closed), ElementsAre("iter", "c", "r"));
}

TEST(ExprParserTest, ParseExprStandalone) {
  ASSERT_OK_AND_ASSIGN(ExprPtr e,
                       ParseExpr("x", "max(a, 3) + cdiv(a, 2)", {{"a", Type::kInt}}));
  EXPECT_EQ(e->type(), Type::kInt);
  EXPECT_THAT(ParseExpr("x", "a + 1 )", {{"a", Type::kInt}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "x:1:7: unexpected ')' after the expression"));
}

// Malformed programs: message and position, exactly.
struct BadCase {
  const char* text;
  const char* error;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.text; }

class ExprParserErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ExprParserErrorTest, ReportsExactPosition) {
  absl::StatusOr<Program> p = Parse(GetParam().text);
  ASSERT_FALSE(p.ok()) << "parsed: " << GetParam().text;
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ExprParserErrorTest,
    ::testing::Values(
        BadCase{
            "param x in 1..;",
            "t.swz:1:15: expected an integer (the upper bound of the range), got ';'"},
        BadCase{
            "param x in 5..1;",
            "t.swz:1:12: empty range 5..1 for parameter 'x' (the lower bound must not "
            "exceed the upper)"},
        BadCase{"param x 1..3;",
                "t.swz:1:9: expected 'in' after parameter 'x' (e.g. param x in 1..64;), "
                "got integer 1"},
        BadCase{"param a in 1..4;\nlet w = a / 2;",
                "t.swz:2:11: '/' is not an operator; integer division is '//' (floor "
                "division)"},
        BadCase{"let x = 1 < 2 < 3;",
                "t.swz:1:15: comparisons do not chain: write 'a < b && b < c' instead of "
                "'a < b < c'"},
        BadCase{"param a in 1..4;\nlet b = a + (a < 2);",
                "t.swz:2:11: operator '+' needs int operands, got int and bool"},
        BadCase{"let y = z + 1;", "t.swz:1:9: undefined name 'z'"},
        BadCase{"let a = 1\nlet b = 2;",
                "t.swz:1:10: expected ';' after the value of 'a', got identifier 'let'"},
        BadCase{"param n in 1..2;\nlet n = 3;",
                "t.swz:2:5: 'n' is already defined (parameter at 1:7)"},
        BadCase{"let iter = 3;", "t.swz:1:5: 'iter' is already defined (as input)"},
        BadCase{"let f = foo(1);",
                "t.swz:1:9: unknown function 'foo' (functions: min, max, cdiv, select)"},
        BadCase{"let m = min(1, 2, 3);", "t.swz:1:9: 'min' takes 2 arguments, got 3"},
        BadCase{"let s = select(true, 1, false);",
                "t.swz:1:9: the branches of select must have one type, got int and bool"},
        BadCase{"let s = select(1, 2, 3);",
                "t.swz:1:9: the condition of select must be bool, got int"},
        BadCase{"let p = (1 + 2;",
                "t.swz:1:15: expected ')' to close the '(' at 1:9, got ';'"},
        BadCase{"let q = 1 $ 2;", "t.swz:1:11: unexpected character '$'"},
        BadCase{"let big = 9223372036854775808;",
                "t.swz:1:11: integer literal 9223372036854775808 does not fit in int64 "
                "(max 9223372036854775807)"},
        BadCase{"domain = iter + 1;",
                "t.swz:1:10: 'domain' may use only parameters and values computed from "
                "them, not the input 'iter'"},
        BadCase{"let j = iter % 4;\ndomain = j;",
                "t.swz:2:10: 'domain' may use only parameters and values computed from "
                "them, not 'j', which depends on the input 'iter'"},
        BadCase{"require 1 + 2;",
                "t.swz:1:9: 'require' needs a bool expression, got int"},
        BadCase{"foo = 3;",
                "t.swz:1:1: expected a statement (param, let, out, domain, require), got "
                "identifier 'foo'"},
        BadCase{"let min = 3;",
                "t.swz:1:5: 'min' is a reserved word and cannot be a name"},
        BadCase{"let domain = 3;",
                "t.swz:1:5: 'domain' is a reserved word and cannot be a name"},
        BadCase{"require 1 = 1;",
                "t.swz:1:11: expected ';' after 'require', got '=' (equality is '==')"},
        BadCase{"domain = 1;\ndomain = 2;",
                "t.swz:2:1: 'domain' may be given only once (first at 1:1)"},
        BadCase{"out a = 1;\nout a = 2;",
                "t.swz:2:5: 'a' is already defined (out at 1:5)"},
        BadCase{"let n = !3;", "t.swz:1:9: '!' needs a bool operand, got int"},
        BadCase{"let n = -true;", "t.swz:1:9: unary '-' needs an int operand, got bool"},
        BadCase{"let x = 3y;",
                "t.swz:1:9: malformed number '3y': a name cannot start with a digit"},
        BadCase{
            "let a = true & false;",
            "t.swz:1:14: '&' is not an operator; logical and is '&&' (there are no bit "
            "operations: write x % 2^k for x & (2^k - 1))"},
        BadCase{"let a = max;", "t.swz:1:9: 'max' is a function; call it as max(a, b)"},
        BadCase{"param k in 0..3;\nlet a = k(2);",
                "t.swz:2:9: 'k' is not a function (functions: min, max, cdiv, select)"},
        BadCase{"let a = ;", "t.swz:1:9: expected an expression, got ';'"},
        BadCase{"let a = 1 +\n;", "t.swz:2:1: expected an expression, got ';'"},
        BadCase{"# header\n\n   let ok = 1;\n\tlet bad = ok && true;",
                "t.swz:4:15: operator '&&' needs bool operands, got int and bool"},
        BadCase{"let t = true < false;",
                "t.swz:1:14: operator '<' needs int operands, got bool and bool"},
        BadCase{"let e = 1 == true;",
                "t.swz:1:11: operator '==' needs operands of one type, got int and bool"},
        BadCase{"out = 3;", "t.swz:1:5: expected a name after 'out', got '='"},
        BadCase{"param x in 1 .. 3",
                "t.swz:1:18: expected ';' after the parameter's range, got end of input"},
        BadCase{
            "let a = min(1 2);",
            "t.swz:1:15: expected ',' or ')' in the arguments of 'min', got integer 2"},
        BadCase{"let a = 1..2;",
                "t.swz:1:10: expected ';' after the value of 'a', got '..'"},
        BadCase{"let é = 1;",
                "t.swz:1:5: unexpected character 'é' (only ASCII is allowed outside "
                "comments)"}));

TEST(ExprParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string text =
      "let a = " + std::string(500, '(') + "1" + std::string(500, ')') + ";";
  EXPECT_THAT(Parse(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "expression nested too deeply"));
}

// Issue 15: a flat chain `0 + 1 + 1 + ...` is parsed by a loop but builds a tree as high
// as the chain is long; the Z3 encoder (from ~8 000 terms) and the enumerator's variable
// collection (from ~16 000) then overflowed the stack. The height is bounded at parse
// time, with the position of the operator that crossed the bound.
std::string Chain(int terms) {
  std::string text = "let a = 0";
  for (int i = 1; i < terms; ++i) text += " + 1";
  return text + ";";
}

TEST(ExprParserTest, LongOperatorChainIsAnErrorWithAPosition) {
  // "let a = 0" then " + 1" per term: the k-th '+' is at column 4k + 7.
  const int k = kMaxExpressionHeight + 1;
  EXPECT_THAT(Parse(Chain(8000)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("t.swz:1:", 4 * k + 7,
                                    ": expression nested too deeply: more than ",
                                    kMaxExpressionHeight, " operators on one path")));
  EXPECT_THAT(Parse(Chain(200000)), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "expression nested too deeply"));
  // Other operators and mixed chains count the same way.
  std::string product = "let a = 1";
  for (int i = 0; i < kMaxExpressionHeight + 5; ++i) product += " * 1 - 0";
  EXPECT_THAT(Parse(product + ";"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "expression nested too deeply"));
}

TEST(ExprParserTest, ChainAtTheHeightLimitParsesAndEvaluates) {
  ASSERT_OK_AND_ASSIGN(Program p, Parse(Chain(kMaxExpressionHeight + 1)));
  ASSERT_EQ(p.statements().size(), 1u);
  ASSERT_OK_AND_ASSIGN(int64_t v, Evaluate(*p.statements()[0].value, {}));
  EXPECT_EQ(v, kMaxExpressionHeight);
}

TEST(ExprParserTest, LongComputationsSplitIntoLetsAreNotLimited) {
  std::string text = "let a0 = 0;";
  for (int i = 1; i <= 5000; ++i) absl::StrAppend(&text, " let a", i, " = a", i - 1, " + 1;");
  ASSERT_OK_AND_ASSIGN(Program p, Parse(text));
  EXPECT_EQ(p.statements().size(), 5001u);
}

TEST(ExprParserTest, DialectKeywordMustNotBeReserved) {
  Dialect d;
  d.clauses.push_back(ClauseSpec{"let", ClauseForm::kBare, Type::kBool, Scope::kParams});
  EXPECT_THAT(ParseProgram("x", "", d), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 "clashes with a reserved word"));
}

}  // namespace
}  // namespace warpcheck::sim::expr
