#include "sim/expr/eval.h"

#include <functional>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"
#include "sim/expr/printer.h"

namespace warpcheck::sim::expr {

namespace internal {

bool ApplyIntOp(ExprKind kind, int64_t a, int64_t b, int64_t* out) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  switch (kind) {
    case ExprKind::kNeg:
      if (a == kMin) return false;
      *out = -a;
      return true;
    case ExprKind::kAdd:
      return !__builtin_add_overflow(a, b, out);
    case ExprKind::kSub:
      return !__builtin_sub_overflow(a, b, out);
    case ExprKind::kMul:
      return !__builtin_mul_overflow(a, b, out);
    case ExprKind::kFloorDiv: {
      if (b == 0 || (a == kMin && b == -1)) return false;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      *out = q;
      return true;
    }
    case ExprKind::kMod: {
      if (b == 0) return false;
      if (b == -1) {  // a % -1 is 0, and INT64_MIN % -1 is UB in C++.
        *out = 0;
        return true;
      }
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      *out = r;
      return true;
    }
    case ExprKind::kCdiv: {
      if (b == 0 || (a == kMin && b == -1)) return false;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
      *out = q;
      return true;
    }
    case ExprKind::kMin:
      *out = a < b ? a : b;
      return true;
    case ExprKind::kMax:
      *out = a < b ? b : a;
      return true;
    case ExprKind::kEq:
      *out = a == b;
      return true;
    case ExprKind::kNe:
      *out = a != b;
      return true;
    case ExprKind::kLt:
      *out = a < b;
      return true;
    case ExprKind::kLe:
      *out = a <= b;
      return true;
    case ExprKind::kGt:
      *out = a > b;
      return true;
    case ExprKind::kGe:
      *out = a >= b;
      return true;
    default:
      WARPCHECK_CHECK(false) << "ApplyIntOp: not an int operator: "
                             << GetOpInfo(kind).name;
      return false;
  }
}

std::string DescribeIntOpError(const Expr& node, int64_t a, int64_t b,
                               absl::string_view source_name) {
  std::string where =
      absl::StrCat(source_name, ":", node.loc().line, ":", node.loc().col, ": ");
  const OpInfo& info = GetOpInfo(node.kind());
  if (node.kind() == ExprKind::kNeg) {
    return absl::StrCat(where, "integer overflow: ", Print(node), " negates ", a,
                        ", which does not fit in int64");
  }
  const Expr& rhs = node.operand(1);
  if (b == 0 && (node.kind() == ExprKind::kFloorDiv || node.kind() == ExprKind::kMod ||
                 node.kind() == ExprKind::kCdiv)) {
    std::string divisor = rhs.kind() == ExprKind::kIntConst
                              ? std::string()
                              : absl::StrCat(" with ", Print(rhs), " = 0");
    return absl::StrCat(
        where, node.kind() == ExprKind::kMod ? "modulo by zero: " : "division by zero: ",
        Print(node), divisor);
  }
  // Show the operand values unless the text already does (both are literals).
  std::string shown;
  if (node.operand(0).kind() != ExprKind::kIntConst ||
      rhs.kind() != ExprKind::kIntConst) {
    shown = info.form == OpForm::kCall
                ? absl::StrCat(" = ", info.spelling, "(", a, ", ", b, ")")
                : absl::StrCat(" = ", a, " ", info.spelling, " ", b);
  }
  return absl::StrCat(where, "integer overflow: ", Print(node), shown,
                      " does not fit in int64");
}

}  // namespace internal

namespace {

class TreeEvaluator {
 public:
  TreeEvaluator(const Env& env, absl::string_view source_name)
      : env_(env), source_name_(source_name) {}

  absl::StatusOr<int64_t> Eval(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::kIntConst:
        return e.int_value();
      case ExprKind::kBoolConst:
        return e.bool_value() ? 1 : 0;
      case ExprKind::kVar: {
        auto it = env_.find(e.name());
        if (it == env_.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat(source_name_, ":", e.loc().line, ":", e.loc().col,
                           ": unbound name '", e.name(), "'"));
        }
        return it->second;
      }
      case ExprKind::kNot: {
        ASSIGN_OR_RETURN(int64_t a, Eval(e.operand(0)));
        return a == 0 ? 1 : 0;
      }
      case ExprKind::kAnd: {
        ASSIGN_OR_RETURN(int64_t a, Eval(e.operand(0)));
        if (a == 0) return 0;
        return Eval(e.operand(1));
      }
      case ExprKind::kOr: {
        ASSIGN_OR_RETURN(int64_t a, Eval(e.operand(0)));
        if (a != 0) return 1;
        return Eval(e.operand(1));
      }
      case ExprKind::kSelect: {
        ASSIGN_OR_RETURN(int64_t c, Eval(e.operand(0)));
        return Eval(e.operand(c != 0 ? 1 : 2));
      }
      case ExprKind::kNeg: {
        ASSIGN_OR_RETURN(int64_t a, Eval(e.operand(0)));
        int64_t out;
        if (!internal::ApplyIntOp(e.kind(), a, 0, &out)) {
          return absl::InvalidArgumentError(
              internal::DescribeIntOpError(e, a, 0, source_name_));
        }
        return out;
      }
      default: {
        ASSIGN_OR_RETURN(int64_t a, Eval(e.operand(0)));
        ASSIGN_OR_RETURN(int64_t b, Eval(e.operand(1)));
        int64_t out;
        if (!internal::ApplyIntOp(e.kind(), a, b, &out)) {
          return absl::InvalidArgumentError(
              internal::DescribeIntOpError(e, a, b, source_name_));
        }
        return out;
      }
    }
  }

 private:
  const Env& env_;
  absl::string_view source_name_;
};

}  // namespace

absl::StatusOr<int64_t> Evaluate(const Expr& e, const Env& env,
                                 absl::string_view source_name) {
  return TreeEvaluator(env, source_name).Eval(e);
}

absl::StatusOr<std::vector<int64_t>> EvaluateStatements(const Program& p,
                                                        const Env& env) {
  Env scope;
  for (const auto& [name, type] : p.inputs()) {
    auto it = env.find(name);
    if (it == env.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(p.source_name(), ": no value for the input '", name, "'"));
    }
    scope[name] = it->second;
  }
  std::vector<int64_t> values;
  values.reserve(p.statements().size());
  for (const Stmt& s : p.statements()) {
    int64_t v;
    if (s.kind == StmtKind::kParam) {
      auto it = env.find(s.name);
      if (it == env.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(p.source_name(), ":", s.loc.line, ":", s.loc.col,
                         ": no value for parameter '", s.name, "'"));
      }
      v = it->second;
      if (v < s.lo || v > s.hi) {
        return absl::InvalidArgumentError(absl::StrCat(
            p.source_name(), ":", s.loc.line, ":", s.loc.col, ": parameter '", s.name,
            "' = ", v, " is outside its declared range ", s.lo, "..", s.hi));
      }
    } else {
      ASSIGN_OR_RETURN(v, Evaluate(*s.value, scope, p.source_name()));
    }
    if (s.binds) scope[s.name] = v;
    values.push_back(v);
  }
  return values;
}

// ---------------------------------------------------------------------------------------
// CompiledExpr

enum class CompiledExpr::Op : uint8_t {
  kConst,
  kLoad,
  kNot,
  kIntOp,        // node->kind() says which (kNeg pops one operand, the others two)
  kJumpIfFalse,  // pops the condition
  kJump,
};

CompiledExpr CompiledExpr::Compile(ExprPtr e,
                                   const std::function<int(const std::string&)>& slot_of,
                                   std::string source_name) {
  CompiledExpr c;
  c.root_ = std::move(e);
  c.source_name_ = std::move(source_name);
  c.Emit(*c.root_, slot_of);
  WARPCHECK_CHECK(c.depth_ == 1)
      << "compiled expression leaves " << c.depth_ << " values";
  return c;
}

void CompiledExpr::Emit(const Expr& e,
                        const std::function<int(const std::string&)>& slot_of) {
  auto push = [&](int n) {
    depth_ += n;
    if (depth_ > max_depth_) max_depth_ = depth_;
  };
  switch (e.kind()) {
    case ExprKind::kIntConst:
      code_.push_back({Op::kConst, 0, e.int_value(), &e});
      push(1);
      return;
    case ExprKind::kBoolConst:
      code_.push_back({Op::kConst, 0, e.bool_value() ? 1 : 0, &e});
      push(1);
      return;
    case ExprKind::kVar: {
      int slot = slot_of(e.name());
      WARPCHECK_CHECK(slot >= 0) << "no slot for '" << e.name() << "'";
      code_.push_back({Op::kLoad, slot, 0, &e});
      push(1);
      return;
    }
    case ExprKind::kNot:
      Emit(e.operand(0), slot_of);
      code_.push_back({Op::kNot, 0, 0, &e});
      return;
    case ExprKind::kSelect:
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      // select(c, a, b): c JF(else) a J(end) else: b end:
      // a && b = select(a, b, false);  a || b = select(a, true, b).
      Emit(e.operand(0), slot_of);
      size_t jf = code_.size();
      code_.push_back({Op::kJumpIfFalse, 0, 0, &e});
      push(-1);
      if (e.kind() == ExprKind::kOr) {
        code_.push_back({Op::kConst, 0, 1, &e});
        push(1);
      } else {
        Emit(e.operand(1), slot_of);
      }
      size_t j = code_.size();
      code_.push_back({Op::kJump, 0, 0, &e});
      push(-1);  // the else branch starts from the same depth
      code_[jf].arg = static_cast<int32_t>(code_.size());
      if (e.kind() == ExprKind::kAnd) {
        code_.push_back({Op::kConst, 0, 0, &e});
        push(1);
      } else {
        Emit(e.operand(e.kind() == ExprKind::kOr ? 1 : 2), slot_of);
      }
      code_[j].arg = static_cast<int32_t>(code_.size());
      return;
    }
    case ExprKind::kNeg:
      Emit(e.operand(0), slot_of);
      code_.push_back({Op::kIntOp, 0, 0, &e});
      return;
    default:
      Emit(e.operand(0), slot_of);
      Emit(e.operand(1), slot_of);
      code_.push_back({Op::kIntOp, 0, 0, &e});
      push(-1);
      return;
  }
}

template <bool kExplain>
bool CompiledExpr::Run(const int64_t* frame, int64_t* value, std::string* error) const {
  constexpr int kInline = 64;
  int64_t inline_stack[kInline];
  std::unique_ptr<int64_t[]> heap;
  int64_t* stack = inline_stack;
  if (max_depth_ > kInline) {
    heap.reset(new int64_t[max_depth_]);
    stack = heap.get();
  }
  int sp = 0;
  const Insn* code = code_.data();
  const size_t n = code_.size();
  for (size_t pc = 0; pc < n;) {
    const Insn& in = code[pc];
    switch (in.op) {
      case Op::kConst:
        stack[sp++] = in.imm;
        ++pc;
        break;
      case Op::kLoad:
        stack[sp++] = frame[in.arg];
        ++pc;
        break;
      case Op::kNot:
        stack[sp - 1] = stack[sp - 1] == 0 ? 1 : 0;
        ++pc;
        break;
      case Op::kJumpIfFalse:
        pc = stack[--sp] == 0 ? static_cast<size_t>(in.arg) : pc + 1;
        break;
      case Op::kJump:
        pc = static_cast<size_t>(in.arg);
        break;
      case Op::kIntOp: {
        ExprKind kind = in.node->kind();
        int64_t a, b = 0;
        if (kind == ExprKind::kNeg) {
          a = stack[sp - 1];
        } else {
          b = stack[--sp];
          a = stack[sp - 1];
        }
        if (!internal::ApplyIntOp(kind, a, b, &stack[sp - 1])) {
          if constexpr (kExplain) {
            *error = internal::DescribeIntOpError(*in.node, a, b, source_name_);
          }
          return false;
        }
        ++pc;
        break;
      }
    }
  }
  *value = stack[0];
  return true;
}

bool CompiledExpr::TryEval(const int64_t* frame, int64_t* value) const {
  return Run<false>(frame, value, nullptr);
}

absl::StatusOr<int64_t> CompiledExpr::Eval(const int64_t* frame) const {
  int64_t value;
  std::string error;
  if (!Run<true>(frame, &value, &error)) return absl::InvalidArgumentError(error);
  return value;
}

// ---------------------------------------------------------------------------------------
// CompiledProgram

CompiledProgram CompiledProgram::Compile(const Program& p) {
  CompiledProgram c;
  auto add_slot = [&](const std::string& name) {
    int slot = static_cast<int>(c.slot_names_.size());
    c.slot_names_.push_back(name);
    c.slot_of_[name] = slot;
    return slot;
  };
  for (const auto& [name, type] : p.inputs()) add_slot(name);
  auto slot_of = [&c](const std::string& name) { return c.SlotOf(name); };
  for (const Stmt& s : p.statements()) {
    if (s.value != nullptr) {
      c.stmt_code_.push_back(std::make_unique<CompiledExpr>(
          CompiledExpr::Compile(s.value, slot_of, p.source_name())));
    } else {
      c.stmt_code_.push_back(nullptr);
    }
    c.stmt_slot_.push_back(s.binds ? add_slot(s.name) : -1);
  }
  return c;
}

int CompiledProgram::SlotOf(absl::string_view name) const {
  auto it = slot_of_.find(name);
  return it == slot_of_.end() ? -1 : it->second;
}

const CompiledExpr* CompiledProgram::StmtCode(int stmt_index) const {
  return stmt_code_[stmt_index].get();
}

}  // namespace warpcheck::sim::expr
