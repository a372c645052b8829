#include "sim/expr/ast.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/check.h"

namespace warpcheck::sim::expr {

absl::string_view TypeName(Type type) { return type == Type::kInt ? "int" : "bool"; }

namespace {

// The op table: one row per ExprKind, in enum order (checked by the test
// OpInfoTableIsInKindOrder and by GetOpInfo).
constexpr OpInfo kOpTable[] = {
    {ExprKind::kIntConst, "int_const", "", OpForm::kLeaf, 0, 7},
    {ExprKind::kBoolConst, "bool_const", "", OpForm::kLeaf, 0, 7},
    {ExprKind::kVar, "var", "", OpForm::kLeaf, 0, 7},
    {ExprKind::kNeg, "neg", "-", OpForm::kPrefix, 1, 6},
    {ExprKind::kNot, "not", "!", OpForm::kPrefix, 1, 6},
    {ExprKind::kAdd, "add", "+", OpForm::kInfix, 2, 4},
    {ExprKind::kSub, "sub", "-", OpForm::kInfix, 2, 4},
    {ExprKind::kMul, "mul", "*", OpForm::kInfix, 2, 5},
    {ExprKind::kFloorDiv, "floor_div", "//", OpForm::kInfix, 2, 5},
    {ExprKind::kMod, "mod", "%", OpForm::kInfix, 2, 5},
    {ExprKind::kMin, "min", "min", OpForm::kCall, 2, 7},
    {ExprKind::kMax, "max", "max", OpForm::kCall, 2, 7},
    {ExprKind::kCdiv, "cdiv", "cdiv", OpForm::kCall, 2, 7},
    {ExprKind::kEq, "eq", "==", OpForm::kInfix, 2, 3},
    {ExprKind::kNe, "ne", "!=", OpForm::kInfix, 2, 3},
    {ExprKind::kLt, "lt", "<", OpForm::kInfix, 2, 3},
    {ExprKind::kLe, "le", "<=", OpForm::kInfix, 2, 3},
    {ExprKind::kGt, "gt", ">", OpForm::kInfix, 2, 3},
    {ExprKind::kGe, "ge", ">=", OpForm::kInfix, 2, 3},
    {ExprKind::kAnd, "and", "&&", OpForm::kInfix, 2, 2},
    {ExprKind::kOr, "or", "||", OpForm::kInfix, 2, 1},
    {ExprKind::kSelect, "select", "select", OpForm::kCall, 3, 7},
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == kNumExprKinds);

std::string Describe(const OpInfo& info) {
  if (info.form == OpForm::kCall) return absl::StrCat("function '", info.spelling, "'");
  return absl::StrCat("operator '", info.spelling, "'");
}

}  // namespace

const OpInfo& GetOpInfo(ExprKind kind) {
  const OpInfo& info = kOpTable[static_cast<int>(kind)];
  WARPCHECK_CHECK(info.kind == kind) << "op table out of order";
  return info;
}

ExprPtr Expr::IntConst(int64_t value, SourceLoc loc) {
  auto* e = new Expr(ExprKind::kIntConst, Type::kInt, loc);
  e->value_ = value;
  return ExprPtr(e);
}

ExprPtr Expr::BoolConst(bool value, SourceLoc loc) {
  auto* e = new Expr(ExprKind::kBoolConst, Type::kBool, loc);
  e->value_ = value ? 1 : 0;
  return ExprPtr(e);
}

ExprPtr Expr::Var(std::string name, Type type, SourceLoc loc) {
  WARPCHECK_CHECK(!name.empty()) << "a variable needs a name";
  auto* e = new Expr(ExprKind::kVar, type, loc);
  e->name_ = std::move(name);
  return ExprPtr(e);
}

absl::StatusOr<ExprPtr> Expr::Make(ExprKind kind, std::vector<ExprPtr> operands,
                                   SourceLoc loc) {
  const OpInfo& info = GetOpInfo(kind);
  if (info.form == OpForm::kLeaf) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expr::Make cannot build a leaf (", info.name, ")"));
  }
  if (static_cast<int>(operands.size()) != info.arity) {
    return absl::InvalidArgumentError(absl::StrCat(Describe(info), " takes ", info.arity,
                                                   " operand(s), got ", operands.size()));
  }
  for (const ExprPtr& op : operands) {
    if (op == nullptr) return absl::InvalidArgumentError("null operand");
  }
  auto types = [&] {
    std::string s;
    for (size_t i = 0; i < operands.size(); ++i) {
      absl::StrAppend(&s, i == 0 ? "" : (i + 1 == operands.size() ? " and " : ", "),
                      TypeName(operands[i]->type()));
    }
    return s;
  };
  Type result = Type::kInt;
  switch (kind) {
    case ExprKind::kNeg:
      if (operands[0]->type() != Type::kInt) {
        return absl::InvalidArgumentError(
            absl::StrCat("unary '-' needs an int operand, got ", types()));
      }
      break;
    case ExprKind::kNot:
      if (operands[0]->type() != Type::kBool) {
        return absl::InvalidArgumentError(
            absl::StrCat("'!' needs a bool operand, got ", types()));
      }
      result = Type::kBool;
      break;
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax:
    case ExprKind::kCdiv:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kGt:
    case ExprKind::kGe:
      if (operands[0]->type() != Type::kInt || operands[1]->type() != Type::kInt) {
        return absl::InvalidArgumentError(
            absl::StrCat(Describe(info), " needs int operands, got ", types()));
      }
      result = info.precedence == 3 ? Type::kBool : Type::kInt;
      break;
    case ExprKind::kEq:
    case ExprKind::kNe:
      if (operands[0]->type() != operands[1]->type()) {
        return absl::InvalidArgumentError(
            absl::StrCat(Describe(info), " needs operands of one type, got ", types()));
      }
      result = Type::kBool;
      break;
    case ExprKind::kAnd:
    case ExprKind::kOr:
      if (operands[0]->type() != Type::kBool || operands[1]->type() != Type::kBool) {
        return absl::InvalidArgumentError(
            absl::StrCat(Describe(info), " needs bool operands, got ", types()));
      }
      result = Type::kBool;
      break;
    case ExprKind::kSelect:
      if (operands[0]->type() != Type::kBool) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the condition of select must be bool, got ", TypeName(operands[0]->type())));
      }
      if (operands[1]->type() != operands[2]->type()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the branches of select must have one type, got ",
            TypeName(operands[1]->type()), " and ", TypeName(operands[2]->type())));
      }
      result = operands[1]->type();
      break;
    default:
      return absl::InternalError("unhandled expression kind");
  }
  auto* e = new Expr(kind, result, loc);
  e->operands_ = std::move(operands);
  return ExprPtr(e);
}

ExprPtr Expr::MustMake(ExprKind kind, std::vector<ExprPtr> operands, SourceLoc loc) {
  absl::StatusOr<ExprPtr> e = Make(kind, std::move(operands), loc);
  WARPCHECK_CHECK(e.ok()) << e.status().message();
  return *std::move(e);
}

int64_t Expr::int_value() const {
  WARPCHECK_CHECK(kind_ == ExprKind::kIntConst) << "not an int constant";
  return value_;
}

bool Expr::bool_value() const {
  WARPCHECK_CHECK(kind_ == ExprKind::kBoolConst) << "not a bool constant";
  return value_ != 0;
}

const std::string& Expr::name() const {
  WARPCHECK_CHECK(kind_ == ExprKind::kVar) << "not a variable";
  return name_;
}

bool Expr::Equals(const Expr& other) const {
  if (this == &other) return true;
  if (kind_ != other.kind_ || type_ != other.type_ || value_ != other.value_ ||
      name_ != other.name_ || operands_.size() != other.operands_.size()) {
    return false;
  }
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (!operands_[i]->Equals(*other.operands_[i])) return false;
  }
  return true;
}

namespace {

void CollectVars(const Expr& e, absl::flat_hash_set<const Expr*>& seen_nodes,
                 absl::flat_hash_set<std::string>& seen, std::vector<std::string>& out) {
  if (!seen_nodes.insert(&e).second) return;
  if (e.kind() == ExprKind::kVar) {
    if (seen.insert(e.name()).second) out.push_back(e.name());
    return;
  }
  for (const ExprPtr& op : e.operands()) CollectVars(*op, seen_nodes, seen, out);
}

}  // namespace

std::vector<std::string> FreeVariables(const Expr& e) {
  absl::flat_hash_set<const Expr*> seen_nodes;
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> out;
  CollectVars(e, seen_nodes, seen, out);
  return out;
}

// ---------------------------------------------------------------------------------------

Program::Program(std::string source_name,
                 std::vector<std::pair<std::string, Type>> inputs,
                 std::vector<Stmt> statements)
    : source_name_(std::move(source_name)),
      inputs_(std::move(inputs)),
      statements_(std::move(statements)) {
  for (int i = 0; i < static_cast<int>(statements_.size()); ++i) {
    const Stmt& s = statements_[i];
    if (s.binds) {
      WARPCHECK_CHECK(binding_index_.emplace(s.name, i).second)
          << "name bound twice: " << s.name;
    }
    WARPCHECK_CHECK(s.kind == StmtKind::kParam || s.value != nullptr)
        << "statement without a value";
  }
}

std::vector<const Stmt*> Program::Params() const {
  std::vector<const Stmt*> out;
  for (const Stmt& s : statements_) {
    if (s.kind == StmtKind::kParam) out.push_back(&s);
  }
  return out;
}

std::vector<const Stmt*> Program::Clauses(absl::string_view keyword) const {
  std::vector<const Stmt*> out;
  for (const Stmt& s : statements_) {
    if (s.kind == StmtKind::kClause && s.keyword == keyword) out.push_back(&s);
  }
  return out;
}

const Stmt* Program::FindBinding(absl::string_view name) const {
  auto it = binding_index_.find(name);
  return it == binding_index_.end() ? nullptr : &statements_[it->second];
}

bool Program::IsInput(absl::string_view name) const {
  for (const auto& [n, t] : inputs_) {
    if (n == name) return true;
  }
  return false;
}

namespace {

// Marks every param / input that `e` reaches through bindings.
void Reach(const Program& p, const Expr& e, absl::flat_hash_set<const Expr*>& seen_nodes,
           absl::flat_hash_set<std::string>& reached) {
  if (!seen_nodes.insert(&e).second) return;
  if (e.kind() == ExprKind::kVar) {
    if (!reached.insert(e.name()).second) return;
    const Stmt* s = p.FindBinding(e.name());
    if (s != nullptr && s->value != nullptr) Reach(p, *s->value, seen_nodes, reached);
    return;
  }
  for (const ExprPtr& op : e.operands()) Reach(p, *op, seen_nodes, reached);
}

}  // namespace

std::vector<std::string> Program::FreeParams(const Expr& e) const {
  absl::flat_hash_set<const Expr*> seen_nodes;
  absl::flat_hash_set<std::string> reached;
  Reach(*this, e, seen_nodes, reached);
  std::vector<std::string> out;
  for (const Stmt& s : statements_) {
    if (s.kind == StmtKind::kParam && reached.contains(s.name)) out.push_back(s.name);
  }
  return out;
}

std::vector<std::string> Program::FreeInputs(const Expr& e) const {
  absl::flat_hash_set<const Expr*> seen_nodes;
  absl::flat_hash_set<std::string> reached;
  Reach(*this, e, seen_nodes, reached);
  std::vector<std::string> out;
  for (const auto& [name, type] : inputs_) {
    if (reached.contains(name)) out.push_back(name);
  }
  return out;
}

namespace {

class Inliner {
 public:
  explicit Inliner(const Program& p) : p_(p) {}

  ExprPtr Run(const ExprPtr& e) {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    ExprPtr out;
    if (e->kind() == ExprKind::kVar) {
      const Stmt* s = p_.FindBinding(e->name());
      if (s != nullptr && s->kind != StmtKind::kParam) {
        out = InlineName(e->name(), s);
      } else {
        out = e;
      }
    } else if (e->operands().empty()) {
      out = e;
    } else {
      std::vector<ExprPtr> ops;
      bool changed = false;
      for (const ExprPtr& op : e->operands()) {
        ops.push_back(Run(op));
        changed |= ops.back() != op;
      }
      out = changed ? Expr::MustMake(e->kind(), std::move(ops), e->loc()) : e;
    }
    memo_.emplace(e.get(), out);
    return out;
  }

 private:
  ExprPtr InlineName(const std::string& name, const Stmt* s) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    ExprPtr out = Run(s->value);
    by_name_.emplace(name, out);
    return out;
  }

  const Program& p_;
  absl::flat_hash_map<const Expr*, ExprPtr> memo_;
  absl::flat_hash_map<std::string, ExprPtr> by_name_;
};

}  // namespace

ExprPtr Program::InlineLets(const ExprPtr& e) const { return Inliner(*this).Run(e); }

}  // namespace warpcheck::sim::expr
