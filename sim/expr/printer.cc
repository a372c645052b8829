#include "sim/expr/printer.h"

#include <cstdint>
#include <limits>
#include <ostream>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::expr {

namespace {

// The precedence the printed text of `e` has (7 = atom).
int PrintedPrecedence(const Expr& e) {
  if (e.kind() == ExprKind::kIntConst && e.int_value() < 0) {
    // "-5" reads as a prefix minus; INT64_MIN is printed as a subtraction.
    return e.int_value() == std::numeric_limits<int64_t>::min() ? 4 : 6;
  }
  return GetOpInfo(e.kind()).precedence;
}

void PrintTo(const Expr& e, std::string& out);

void PrintOperand(const Expr& e, int min_precedence, std::string& out) {
  if (PrintedPrecedence(e) < min_precedence) {
    out += '(';
    PrintTo(e, out);
    out += ')';
  } else {
    PrintTo(e, out);
  }
}

void PrintTo(const Expr& e, std::string& out) {
  const OpInfo& info = GetOpInfo(e.kind());
  switch (info.form) {
    case OpForm::kLeaf:
      if (e.kind() == ExprKind::kIntConst) {
        if (e.int_value() == std::numeric_limits<int64_t>::min()) {
          out += "-9223372036854775807 - 1";
        } else {
          absl::StrAppend(&out, e.int_value());
        }
      } else if (e.kind() == ExprKind::kBoolConst) {
        out += e.bool_value() ? "true" : "false";
      } else {
        out += e.name();
      }
      return;
    case OpForm::kPrefix:
      out += info.spelling;
      // A prefixed operand of a prefix operator gets parentheses: -(-x), !(!b).
      PrintOperand(e.operand(0), 7, out);
      return;
    case OpForm::kInfix: {
      int p = info.precedence;
      // Left-associative: the left operand may have the same precedence, the right
      // one must bind tighter. Comparisons do not chain, so both sides bind tighter.
      PrintOperand(e.operand(0), p == 3 ? p + 1 : p, out);
      absl::StrAppend(&out, " ", info.spelling, " ");
      PrintOperand(e.operand(1), p + 1, out);
      return;
    }
    case OpForm::kCall:
      out += info.spelling;
      out += '(';
      for (int i = 0; i < e.num_operands(); ++i) {
        if (i > 0) out += ", ";
        PrintTo(e.operand(i), out);
      }
      out += ')';
      return;
  }
}

}  // namespace

std::string Print(const Expr& e) {
  std::string out;
  PrintTo(e, out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << Print(e); }

std::string Print(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kParam:
      return absl::StrCat("param ", s.name, " in ", s.lo, "..", s.hi, ";");
    case StmtKind::kLet:
      return absl::StrCat("let ", s.name, " = ", Print(*s.value), ";");
    case StmtKind::kClause:
      switch (s.form) {
        case ClauseForm::kNamed:
          return absl::StrCat(s.keyword, " ", s.name, " = ", Print(*s.value), ";");
        case ClauseForm::kAssign:
          return absl::StrCat(s.keyword, " = ", Print(*s.value), ";");
        case ClauseForm::kBare:
          return absl::StrCat(s.keyword, " ", Print(*s.value), ";");
      }
  }
  return "";
}

std::string Print(const Program& p) {
  std::string out;
  for (const Stmt& s : p.statements()) absl::StrAppend(&out, Print(s), "\n");
  return out;
}

}  // namespace warpcheck::sim::expr
