// Evaluation semantics: floor division and modulo (Python), cdiv, overflow and division
// by zero as errors, lazy operators, and the compiled evaluator against the tree one.
#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/eval.h"
#include "sim/expr/parser.h"
#include "sim/expr/printer.h"
#include "tests/sim/expr/random_expr.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::expr {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

absl::StatusOr<int64_t> Eval(const std::string& text, Env env = {}) {
  std::vector<std::pair<std::string, Type>> names;
  for (const auto& [name, value] : env) names.push_back({name, Type::kInt});
  names.push_back({"p", Type::kBool});
  if (!env.contains("p")) env["p"] = 1;
  absl::StatusOr<ExprPtr> e = ParseExpr("<expr>", text, names);
  if (!e.ok()) return e.status();
  absl::StatusOr<int64_t> tree = Evaluate(**e, env);
  // The compiled evaluator must agree, message included.
  std::vector<std::string> slots;
  for (const auto& [name, value] : env) slots.push_back(name);
  std::vector<int64_t> frame;
  for (const std::string& s : slots) frame.push_back(env[s]);
  CompiledExpr c = CompiledExpr::Compile(
      *e,
      [&](const std::string& n) {
        for (size_t i = 0; i < slots.size(); ++i) {
          if (slots[i] == n) return static_cast<int>(i);
        }
        return -1;
      },
      "<expr>");
  absl::StatusOr<int64_t> compiled = c.Eval(frame.data());
  EXPECT_EQ(tree.ok(), compiled.ok()) << text;
  if (tree.ok() && compiled.ok()) {
    EXPECT_EQ(*tree, *compiled) << text;
  } else if (!tree.ok() && !compiled.ok()) {
    EXPECT_EQ(tree.status(), compiled.status()) << text;
  }
  return tree;
}

int64_t Value(const std::string& text, Env env = {}) {
  absl::StatusOr<int64_t> v = Eval(text, std::move(env));
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : -999999;
}

TEST(ExprEvalTest, FloorDivisionAndModuloArePython) {
  EXPECT_EQ(Value("7 // 2"), 3);
  EXPECT_EQ(Value("-7 // 2"), -4);
  EXPECT_EQ(Value("7 // -2"), -4);
  EXPECT_EQ(Value("-7 // -2"), 3);
  EXPECT_EQ(Value("-8 // 2"), -4);
  EXPECT_EQ(Value("7 % 2"), 1);
  EXPECT_EQ(Value("-7 % 2"), 1);
  EXPECT_EQ(Value("7 % -2"), -1);
  EXPECT_EQ(Value("-7 % -2"), -1);
  EXPECT_EQ(Value("-6 % 3"), 0);
  EXPECT_EQ(Value("0 % -5"), 0);
  // The law a == (a // b) * b + a % b, with the remainder's sign that of b.
  for (int64_t a = -20; a <= 20; ++a) {
    for (int64_t b = -7; b <= 7; ++b) {
      if (b == 0) continue;
      Env env{{"a", a}, {"b", b}};
      int64_t q = Value("a // b", env), r = Value("a % b", env);
      EXPECT_EQ(q * b + r, a) << a << ", " << b;
      EXPECT_TRUE(r == 0 || (r < 0) == (b < 0)) << a << ", " << b;
      EXPECT_LT(r < 0 ? -r : r, b < 0 ? -b : b);
    }
  }
}

TEST(ExprEvalTest, CeilingDivision) {
  EXPECT_EQ(Value("cdiv(7, 2)"), 4);
  EXPECT_EQ(Value("cdiv(6, 3)"), 2);
  EXPECT_EQ(Value("cdiv(0, 3)"), 0);
  EXPECT_EQ(Value("cdiv(-7, 2)"), -3);
  EXPECT_EQ(Value("cdiv(7, -2)"), -3);
  EXPECT_EQ(Value("cdiv(-7, -2)"), 4);
  for (int64_t a = -20; a <= 20; ++a) {
    for (int64_t b = 1; b <= 7; ++b) {
      Env env{{"a", a}, {"b", b}};
      EXPECT_EQ(Value("cdiv(a, b)", env), Value("(a + b - 1) // b", env))
          << a << ", " << b;
    }
  }
  // No intermediate overflow where (a + b - 1) would overflow.
  EXPECT_EQ(Value("cdiv(a, 2)", {{"a", kMax}}), kMax / 2 + 1);
}

TEST(ExprEvalTest, DivisionByZeroIsAnError) {
  EXPECT_THAT(Eval("a // (b - b)", {{"a", 1}, {"b", 5}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "<expr>:1:3: division by zero: a // (b - b) with b - b = 0"));
  EXPECT_THAT(Eval("a % 0", {{"a", 1}}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  "<expr>:1:3: modulo by zero: a % 0"));
  EXPECT_THAT(Eval("1 + cdiv(a, b)", {{"a", 1}, {"b", 0}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "<expr>:1:5: division by zero: cdiv(a, b) with b = 0"));
}

TEST(ExprEvalTest, OverflowIsAnError) {
  EXPECT_THAT(Eval("9223372036854775807 + 1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "<expr>:1:21: integer overflow: 9223372036854775807 + 1 does not "
                       "fit in int64"));
  EXPECT_THAT(
      Eval("a * 2", {{"a", int64_t{1} << 62}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "<expr>:1:3: integer overflow: a * 2 = 4611686018427387904 * 2 does "
               "not fit in int64"));
  EXPECT_THAT(Eval("a - 1", {{"a", kMin}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "integer overflow: a - 1"));
  EXPECT_THAT(Eval("-a", {{"a", kMin}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "<expr>:1:1: integer overflow: -a negates -9223372036854775808"));
  EXPECT_THAT(Eval("a // -1", {{"a", kMin}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "integer overflow: a // -1"));
  EXPECT_THAT(Eval("cdiv(a, -1)", {{"a", kMin}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "integer overflow"));
  EXPECT_EQ(Value("a % -1", {{"a", kMin}}), 0);  // defined, unlike C++'s INT64_MIN % -1
  EXPECT_EQ(Value("a + b", {{"a", kMax}, {"b", kMin}}), -1);
  EXPECT_EQ(Value("min(a, b) + max(a, b)", {{"a", kMax}, {"b", kMin}}), -1);
}

TEST(ExprEvalTest, ComparisonsAndLogic) {
  EXPECT_EQ(Value("1 < 2"), 1);
  EXPECT_EQ(Value("2 <= 2"), 1);
  EXPECT_EQ(Value("3 > 4"), 0);
  EXPECT_EQ(Value("-1 >= -1"), 1);
  EXPECT_EQ(Value("3 == 3 && 4 != 4"), 0);
  EXPECT_EQ(Value("!(1 > 2) || false"), 1);
  EXPECT_EQ(Value("true == (1 < 2)"), 1);
  EXPECT_EQ(Value("select(p, 10, 20)", {{"p", 0}}), 20);
  EXPECT_EQ(Value("select(2 > 1, 10, 20)"), 10);
}

TEST(ExprEvalTest, LazyOperatorsSkipUnneededErrors) {
  Env zero{{"a", 7}, {"b", 0}};
  EXPECT_EQ(Value("select(b != 0, a // b, -1)", zero), -1);
  EXPECT_EQ(Value("b != 0 && a // b > 1", zero), 0);
  EXPECT_EQ(Value("b == 0 || a % b > 1", zero), 1);
  EXPECT_THAT(Eval("select(b == 0, a // b, -1)", zero),
              StatusIs(absl::StatusCode::kInvalidArgument, "division by zero"));
}

TEST(ExprEvalTest, UnboundNameIsAnError) {
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpr("x", "a + 1", {{"a", Type::kInt}}));
  EXPECT_THAT(Evaluate(*e, {}, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, "x:1:1: unbound name 'a'"));
}

TEST(ExprEvalTest, EvaluateStatements) {
  Dialect d{
      {{"iter", Type::kInt}},
      {ClauseSpec{"out", ClauseForm::kNamed, Type::kInt, Scope::kInputs, true, true}}};
  ASSERT_OK_AND_ASSIGN(Program p, ParseProgram("s.swz",
                                               "param n in 1..8;\nlet w = n * 2;\n"
                                               "out x = iter % w;\nout y = x // 0;\n",
                                               d));
  EXPECT_THAT(EvaluateStatements(p, {{"n", 3}, {"iter", 8}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "s.swz:4:11: division by zero: x // 0"));
  EXPECT_THAT(
      EvaluateStatements(p, {{"n", 9}, {"iter", 0}}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "s.swz:1:1: parameter 'n' = 9 is outside its declared range 1..8"));
  EXPECT_THAT(
      EvaluateStatements(p, {{"n", 3}}),
      StatusIs(absl::StatusCode::kInvalidArgument, "no value for the input 'iter'"));
  ASSERT_OK_AND_ASSIGN(Program q, ParseProgram("s.swz",
                                               "param n in 1..8;\nlet w = n * 2;\n"
                                               "out x = iter % w;\n",
                                               d));
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> v,
                       EvaluateStatements(q, {{"n", 3}, {"iter", 8}}));
  EXPECT_THAT(v, ::testing::ElementsAre(3, 6, 2));
}

TEST(ExprEvalTest, CompiledProgramSlots) {
  Dialect d{
      {{"iter", Type::kInt}},
      {ClauseSpec{"out", ClauseForm::kNamed, Type::kInt, Scope::kInputs, true, true},
       ClauseSpec{"domain", ClauseForm::kAssign, Type::kInt, Scope::kParams, false,
                  true}}};
  ASSERT_OK_AND_ASSIGN(Program p, ParseProgram("s.swz",
                                               "param n in 1..8;\ndomain = n * n;\n"
                                               "let w = n + 1;\nout x = iter * w;\n",
                                               d));
  CompiledProgram c = CompiledProgram::Compile(p);
  EXPECT_EQ(c.num_slots(), 4);  // iter, n, w, x
  EXPECT_EQ(c.SlotOf("iter"), 0);
  EXPECT_EQ(c.StmtSlot(0), c.SlotOf("n"));
  EXPECT_EQ(c.StmtSlot(1), -1);  // domain binds nothing
  EXPECT_EQ(c.StmtCode(0), nullptr);
  std::vector<int64_t> frame(c.num_slots());
  frame[c.SlotOf("n")] = 3;
  frame[c.SlotOf("iter")] = 5;
  ASSERT_OK_AND_ASSIGN(frame[c.SlotOf("w")], c.StmtCode(2)->Eval(frame.data()));
  ASSERT_OK_AND_ASSIGN(int64_t x, c.StmtCode(3)->Eval(frame.data()));
  EXPECT_EQ(x, 20);
  ASSERT_OK_AND_ASSIGN(int64_t dom, c.StmtCode(1)->Eval(frame.data()));
  EXPECT_EQ(dom, 9);
}

// The compiled evaluator agrees with the tree evaluator on random expressions and
// random values, including extreme ones (so errors are exercised too).
TEST(ExprEvalTest, CompiledAgreesWithTreeOnRandomExpressions) {
  testing::RandomExpr gen(777);
  int errors = 0;
  for (int i = 0; i < 4000; ++i) {
    ExprPtr e = gen.Make(i % 3 == 0 ? Type::kBool : Type::kInt, 1 + i % 7);
    Env env{{"a", gen.Value()}, {"b", gen.Value()}, {"c", gen.Value()}, {"p", i % 2}};
    absl::StatusOr<int64_t> tree = Evaluate(*e, env);
    std::vector<int64_t> frame = {env["a"], env["b"], env["c"], env["p"]};
    CompiledExpr c = CompiledExpr::Compile(
        e,
        [](const std::string& n) {
          return n == "a" ? 0 : n == "b" ? 1 : n == "c" ? 2 : 3;
        },
        "<expr>");
    absl::StatusOr<int64_t> compiled = c.Eval(frame.data());
    ASSERT_EQ(tree.ok(), compiled.ok()) << Print(*e);
    if (tree.ok()) {
      EXPECT_EQ(*tree, *compiled) << Print(*e);
      int64_t fast;
      EXPECT_TRUE(c.TryEval(frame.data(), &fast));
      EXPECT_EQ(fast, *tree);
    } else {
      ++errors;
      EXPECT_EQ(tree.status(), compiled.status());
    }
  }
  EXPECT_GT(errors, 100);  // the generator does reach the error paths
}

}  // namespace
}  // namespace warpcheck::sim::expr
