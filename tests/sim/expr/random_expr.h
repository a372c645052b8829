// Random well-typed expressions over a fixed set of variables, for property tests
// (printer round trip, tree evaluator vs compiled evaluator).
#ifndef WARPCHECK_TESTS_SIM_EXPR_RANDOM_EXPR_H_
#define WARPCHECK_TESTS_SIM_EXPR_RANDOM_EXPR_H_

#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sim/expr/ast.h"

namespace warpcheck::sim::expr::testing {

// Int variables a, b, c and bool variable p.
inline std::vector<std::pair<std::string, Type>> RandomExprNames() {
  return {{"a", Type::kInt}, {"b", Type::kInt}, {"c", Type::kInt}, {"p", Type::kBool}};
}

class RandomExpr {
 public:
  explicit RandomExpr(uint32_t seed) : rng_(seed) {}

  ExprPtr Make(Type type, int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf(type);
    if (type == Type::kInt) {
      static constexpr ExprKind kInt[] = {
          ExprKind::kNeg,      ExprKind::kAdd,   ExprKind::kSub, ExprKind::kMul,
          ExprKind::kFloorDiv, ExprKind::kMod,   ExprKind::kMin, ExprKind::kMax,
          ExprKind::kCdiv,     ExprKind::kSelect};
      ExprKind k = kInt[Pick(std::size(kInt))];
      if (k == ExprKind::kNeg) return Expr::MustMake(k, {Make(Type::kInt, depth - 1)});
      if (k == ExprKind::kSelect) {
        return Expr::MustMake(k,
                              {Make(Type::kBool, depth - 1), Make(Type::kInt, depth - 1),
                               Make(Type::kInt, depth - 1)});
      }
      return Expr::MustMake(k,
                            {Make(Type::kInt, depth - 1), Make(Type::kInt, depth - 1)});
    }
    static constexpr ExprKind kBool[] = {
        ExprKind::kNot, ExprKind::kEq, ExprKind::kNe,  ExprKind::kLt, ExprKind::kLe,
        ExprKind::kGt,  ExprKind::kGe, ExprKind::kAnd, ExprKind::kOr, ExprKind::kSelect};
    ExprKind k = kBool[Pick(std::size(kBool))];
    switch (k) {
      case ExprKind::kNot:
        return Expr::MustMake(k, {Make(Type::kBool, depth - 1)});
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return Expr::MustMake(
            k, {Make(Type::kBool, depth - 1), Make(Type::kBool, depth - 1)});
      case ExprKind::kSelect:
        return Expr::MustMake(k,
                              {Make(Type::kBool, depth - 1), Make(Type::kBool, depth - 1),
                               Make(Type::kBool, depth - 1)});
      case ExprKind::kEq:
      case ExprKind::kNe:
        if (Pick(3) == 0) {
          return Expr::MustMake(
              k, {Make(Type::kBool, depth - 1), Make(Type::kBool, depth - 1)});
        }
        [[fallthrough]];
      default:
        return Expr::MustMake(k,
                              {Make(Type::kInt, depth - 1), Make(Type::kInt, depth - 1)});
    }
  }

  int64_t Value() {
    switch (Pick(6)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<int64_t>::max() - static_cast<int64_t>(Pick(3));
      case 2:
        return std::numeric_limits<int64_t>::min() + static_cast<int64_t>(Pick(3));
      default:
        return static_cast<int64_t>(Pick(41)) - 20;
    }
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  ExprPtr Leaf(Type type) {
    if (type == Type::kBool) {
      if (Pick(3) == 0) return Expr::BoolConst(Pick(2) == 0);
      return Expr::Var("p", Type::kBool);
    }
    if (Pick(2) == 0) {
      static const char* kNames[] = {"a", "b", "c"};
      return Expr::Var(kNames[Pick(3)], Type::kInt);
    }
    return Expr::IntConst(static_cast<int64_t>(Pick(13)));  // the parser never makes < 0
  }

  std::mt19937 rng_;
};

}  // namespace warpcheck::sim::expr::testing

#endif  // WARPCHECK_TESTS_SIM_EXPR_RANDOM_EXPR_H_
