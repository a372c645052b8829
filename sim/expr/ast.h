// The warpcheck expression language: a small, typed language of int64 arithmetic,
// shared by tile-scheduling swizzles (sim/swizzle) and signal programs (sim/signal).
//
// Overview
// --------
// A *program* is a list of statements. Parameters are declared with an inclusive
// range, let-bindings name intermediate values, and *clauses* (whose keywords a client
// chooses through a Dialect, see parser.h) say what the program means to its client:
//
//     # gemm_swizzle2d, direction 1, with tile counts as parameters
//     param row_tiles in 1..64;
//     param col_tiles in 1..64;
//     param swizzle_offset in 1..7;
//     let s = swizzle_offset;
//     domain = row_tiles * col_tiles;      # a clause of the swizzle dialect
//     let g = iter // (s * row_tiles);     # `iter` is an input the dialect predeclares
//     let j = iter % (s * row_tiles);
//     let w = select(g < cdiv(col_tiles, s) - 1, s, col_tiles - s * g);
//     out col = g * s + j % w;             # another clause; it binds the name `col`
//
// Every expression has one of two types, int (int64) or bool, fixed when it is parsed:
// names are declared before they are used, so the parser knows every name's type and
// rejects `x + (y < 3)` at the `+`. Worked example: with g = 1, s = 7, col_tiles = 10,
// `select(g < cdiv(col_tiles, s) - 1, s, col_tiles - s * g)` is select(1 < 1, 7, 3) = 3.
//
// Semantics (exact; an SMT encoding must match them)
// ---------------------------------------------------
// * int is two's-complement int64. +, -, * and unary - report overflow as an evaluation
//   error (never wrap, never UB).
// * `a // b` is floor division and `a % b` the matching remainder (Python):
//   a == (a // b) * b + a % b, and a % b has the sign of b (or is 0). 7 // -2 == -4,
//   -7 % 2 == 1, 7 % -2 == -1. b == 0 is an evaluation error; INT64_MIN // -1 overflows.
//   (SMT-LIB's div/mod are Euclidean: they agree with ours whenever b > 0.)
// * `cdiv(a, b)` is the ceiling of a / b; for b > 0 it equals (a + b - 1) // b (Triton's
//   cdiv) without the intermediate overflow. b == 0 is an error.
// * `min`, `max`; comparisons `== != < <= > >=` (== and != also compare two bools);
//   `&&`, `||`, `!` on bools; `select(c, a, b)` is a if c else b (a, b of one type).
// * `&&`, `||` and `select` are lazy: an operand that is not needed is not evaluated, so
//   `select(b != 0, a // b, 0)` never divides by zero. An SMT encoder must therefore
//   treat the definedness conditions of division and overflow as guarded by the path
//   that reaches them.
//
// Why a language of our own
// -------------------------
// The swizzles we check are written in Python (Triton) and C++ (CATLASS, CUTLASS); we
// need one notation that a person can read next to the original, that an enumerator can
// run fast, and that the Z3 encoder in verify/ can walk node by node. Python itself
// would be unsafe to evaluate and hard to encode; SMT-LIB is encodable but unreadable.
// The language therefore has exactly the operators these kernels use (integer
// arithmetic with floor division, min/max, comparisons, select) and no loops, no
// functions and no bit operations (`x >> k` is written `x // 2^k`, `x & (2^k - 1)` is
// `x % 2^k`, both exact for x >= 0): every program is a straight-line DAG, which is
// what an SMT solver wants.
//
// The AST is public on purpose: verify/ encodes it without going through text. Nodes
// are immutable and shared (ExprPtr); an encoder should memoise by node address, since
// Program::InlineLets returns a DAG in which let-bound subexpressions are shared.
#ifndef WARPCHECK_SIM_EXPR_AST_H_
#define WARPCHECK_SIM_EXPR_AST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::expr {

enum class Type : uint8_t { kInt, kBool };

// Ensures: "int" or "bool".
absl::string_view TypeName(Type type);

// A position in the source text: 1-based line and column (columns count bytes).
// {0, 0} means "built through the API, not parsed".
struct SourceLoc {
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

// Every node kind. The operands of each kind, in order:
enum class ExprKind : uint8_t {
  kIntConst,   // leaf; int_value()
  kBoolConst,  // leaf; bool_value()
  kVar,        // leaf; name(), and type() is the declared type of that name
  kNeg,        // -a            int -> int
  kNot,        // !a            bool -> bool
  kAdd,        // a + b         int, int -> int
  kSub,        // a - b
  kMul,        // a * b
  kFloorDiv,   // a // b        floor division
  kMod,        // a % b         remainder with the sign of b
  kMin,        // min(a, b)
  kMax,        // max(a, b)
  kCdiv,       // cdiv(a, b)    ceiling division
  kEq,         // a == b        int, int -> bool, or bool, bool -> bool
  kNe,         // a != b
  kLt,         // a < b         int, int -> bool
  kLe,         // a <= b
  kGt,         // a > b
  kGe,         // a >= b
  kAnd,        // a && b        bool, bool -> bool (lazy)
  kOr,         // a || b        (lazy)
  kSelect,     // select(c, a, b)  bool, T, T -> T (lazy)
};
inline constexpr int kNumExprKinds = static_cast<int>(ExprKind::kSelect) + 1;

// How a kind is written. Precedence: 1 `||`, 2 `&&`, 3 comparisons (which do not
// chain), 4 `+ -`, 5 `* // %`, 6 prefix `- !`, 7 leaves, calls and parentheses. All
// binary operators are left-associative.
enum class OpForm : uint8_t { kLeaf, kPrefix, kInfix, kCall };
struct OpInfo {
  ExprKind kind;
  const char* name;      // stable identifier: "add", "floor_div", "select", ...
  const char* spelling;  // "+", "//", "select" (calls), "" (leaves)
  OpForm form;
  int arity;
  int precedence;
};

// Ensures: the row of the (data) table describing `kind`.
const OpInfo& GetOpInfo(ExprKind kind);

class Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// An immutable, typed expression node.
class Expr {
 public:
  // Ensures: a leaf of type int / bool.
  [[nodiscard]] static ExprPtr IntConst(int64_t value, SourceLoc loc = {});
  [[nodiscard]] static ExprPtr BoolConst(bool value, SourceLoc loc = {});
  // Requires: `name` is non-empty.
  [[nodiscard]] static ExprPtr Var(std::string name, Type type, SourceLoc loc = {});

  // Builds an operator node (every kind except the three leaves), checking arity and
  // operand types. Fails with InvalidArgument, e.g. "operator '+' needs int operands,
  // got int and bool" (no position: the parser adds it).
  [[nodiscard]] static absl::StatusOr<ExprPtr> Make(ExprKind kind,
                                                    std::vector<ExprPtr> operands,
                                                    SourceLoc loc = {});
  // Make() for trusted internal construction. Requires: the operands type-check.
  [[nodiscard]] static ExprPtr MustMake(ExprKind kind, std::vector<ExprPtr> operands,
                                        SourceLoc loc = {});

  ExprKind kind() const { return kind_; }
  Type type() const { return type_; }
  // For operators, the position of the operator token or function name.
  SourceLoc loc() const { return loc_; }
  // Requires: kind() == kIntConst.
  int64_t int_value() const;
  // Requires: kind() == kBoolConst.
  bool bool_value() const;
  // Requires: kind() == kVar.
  const std::string& name() const;
  // The operands, in the order listed in ExprKind (empty for leaves).
  const std::vector<ExprPtr>& operands() const { return operands_; }
  const Expr& operand(int i) const { return *operands_[i]; }
  int num_operands() const { return static_cast<int>(operands_.size()); }

  // Structural equality (ignores source positions).
  bool Equals(const Expr& other) const;

 private:
  Expr(ExprKind kind, Type type, SourceLoc loc) : kind_(kind), type_(type), loc_(loc) {}
  ExprKind kind_;
  Type type_;
  SourceLoc loc_;
  int64_t value_ = 0;
  std::string name_;
  std::vector<ExprPtr> operands_;
};

// Ensures: the names of the kVar leaves of `e`, each once, in order of first occurrence
// (left to right, depth first).
std::vector<std::string> FreeVariables(const Expr& e);

// Canonical text (printer.cc); see printer.h.
std::ostream& operator<<(std::ostream& os, const Expr& e);

// ---------------------------------------------------------------------------------------
// Programs.

enum class StmtKind : uint8_t {
  kParam,   // param NAME in LO..HI;
  kLet,     // let NAME = EXPR;
  kClause,  // a dialect clause, in one of the three forms below
};

// How a clause is written (the dialect fixes the form per keyword).
enum class ClauseForm : uint8_t {
  kNamed,   // KEYWORD NAME = EXPR;   e.g. out row = j // w;
  kAssign,  // KEYWORD = EXPR;        e.g. domain = R * C;
  kBare,    // KEYWORD EXPR;          e.g. require rank_size % comm_npu_split == 0;
};

struct Stmt {
  StmtKind kind = StmtKind::kLet;
  ClauseForm form = ClauseForm::kNamed;  // kClause only
  std::string keyword;                   // kClause only: "out", "grid", ...
  std::string name;                      // kParam, kLet, kNamed clauses
  ExprPtr value;                         // kLet and kClause
  int64_t lo = 0;                        // kParam: inclusive range
  int64_t hi = 0;
  bool binds = false;  // true when `name` is visible to later statements (param, let,
                       // and clauses whose dialect entry says so, e.g. `out`)
  bool depends_on_input = false;  // value (transitively) uses a dialect input
  SourceLoc loc;                  // first token of the statement
  SourceLoc name_loc;             // the name, when there is one
};

// A parsed (or API-built) program: statements in source order, every name declared
// before use, every expression type-checked. Immutable.
class Program {
 public:
  // `inputs` are the names the dialect predeclares (e.g. {"iter", kInt}).
  // Requires: the statements satisfy the invariants above (parser.cc guarantees them;
  //           API users should print and re-parse, or call Validate()).
  Program(std::string source_name, std::vector<std::pair<std::string, Type>> inputs,
          std::vector<Stmt> statements);

  const std::string& source_name() const { return source_name_; }
  const std::vector<std::pair<std::string, Type>>& inputs() const { return inputs_; }
  const std::vector<Stmt>& statements() const { return statements_; }

  // Ensures: the kParam statements, in order.
  std::vector<const Stmt*> Params() const;
  // Ensures: the clauses with this keyword, in order.
  std::vector<const Stmt*> Clauses(absl::string_view keyword) const;
  // Ensures: the statement that binds `name` (param, let or binding clause), or nullptr
  //          (also for inputs).
  const Stmt* FindBinding(absl::string_view name) const;
  bool IsInput(absl::string_view name) const;

  // Ensures: the parameters `e` depends on, directly or through let-bindings and binding
  //          clauses, each once, in declaration order. This is the "free parameter" list
  //          a solver must quantify over (together with any inputs, see FreeInputs).
  std::vector<std::string> FreeParams(const Expr& e) const;
  // Ensures: the inputs `e` depends on, likewise.
  std::vector<std::string> FreeInputs(const Expr& e) const;

  // Ensures: `e` with every let-bound (and clause-bound) name replaced by its definition,
  //          recursively, so the result mentions only params and inputs. Shared
  //          subterms stay shared (the result is a DAG; memoise by address).
  [[nodiscard]] ExprPtr InlineLets(const ExprPtr& e) const;

 private:
  std::string source_name_;
  std::vector<std::pair<std::string, Type>> inputs_;
  std::vector<Stmt> statements_;
  absl::flat_hash_map<std::string, int> binding_index_;  // name -> statement index
};

}  // namespace warpcheck::sim::expr

#endif  // WARPCHECK_SIM_EXPR_AST_H_
