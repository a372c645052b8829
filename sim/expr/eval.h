// Concrete evaluation of expressions and programs.
//
// Two evaluators with one semantics (ast.h, "Semantics"):
//
// * Evaluate(expr, env) walks the tree with a name -> value map. It is the reference:
//   short, obviously faithful, and used for one-off evaluations.
// * CompiledExpr turns an expression into postfix code over numbered slots (a frame
//   of int64 values) with jumps for the lazy operators. It is what enumeration runs
//   millions of times; a randomized test checks it against Evaluate.
//
// Values: ints are int64; bools are 0 (false) and 1 (true) in both evaluators.
//
// Errors are values, never crashes: division or modulo by zero and int64 overflow
// return InvalidArgument "<source>:<line>:<col>: <what>" pointing at the operator, e.g.
//
//     spec.swz:9:14: division by zero: j // w with w = 0
//     <expr>:1:3: integer overflow: a * b = 4611686018427387904 * 2 does not fit in int64
//
// An unbound name is InvalidArgument too ("unbound name 'x'").
#ifndef WARPCHECK_SIM_EXPR_EVAL_H_
#define WARPCHECK_SIM_EXPR_EVAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/expr/ast.h"

namespace warpcheck::sim::expr {

// Name -> value (bools as 0/1).
using Env = absl::flat_hash_map<std::string, int64_t>;

// Ensures: the value of `e` under `env`, or an evaluation error (see above).
absl::StatusOr<int64_t> Evaluate(const Expr& e, const Env& env,
                                 absl::string_view source_name = "<expr>");

// Runs a program's statements in order.
// Requires: `env` binds every input of `p` and every parameter.
// Ensures: one value per statement (a param's value for kParam), or InvalidArgument if
//          a parameter is outside its declared range or an evaluation fails.
absl::StatusOr<std::vector<int64_t>> EvaluateStatements(const Program& p, const Env& env);

// An expression compiled to postfix code over a frame of slots.
class CompiledExpr {
 public:
  // Requires: slot_of(name) >= 0 for every variable of `e`.
  static CompiledExpr Compile(ExprPtr e,
                              const std::function<int(const std::string&)>& slot_of,
                              std::string source_name);

  // Ensures: true and *value = the value of the expression with variable v read from
  //          frame[slot_of(v)]; false on an evaluation error (call Eval for the message).
  bool TryEval(const int64_t* frame, int64_t* value) const;
  // Ensures: the value, or the evaluation error with its message.
  absl::StatusOr<int64_t> Eval(const int64_t* frame) const;

  const Expr& expr() const { return *root_; }

 private:
  enum class Op : uint8_t;
  struct Insn {
    Op op;
    int32_t arg = 0;             // slot, or jump target
    int64_t imm = 0;             // constant
    const Expr* node = nullptr;  // for error messages
  };
  template <bool kExplain>
  bool Run(const int64_t* frame, int64_t* value, std::string* error) const;
  void Emit(const Expr& e, const std::function<int(const std::string&)>& slot_of);

  ExprPtr root_;
  std::string source_name_;
  std::vector<Insn> code_;
  int max_depth_ = 0;
  int depth_ = 0;  // during compilation
};

// Every statement of a program compiled, with one frame slot per name: the inputs
// first, in dialect order, then each binding statement in program order.
class CompiledProgram {
 public:
  static CompiledProgram Compile(const Program& p);

  int num_slots() const { return static_cast<int>(slot_names_.size()); }
  // Ensures: the slot of `name`, or -1.
  int SlotOf(absl::string_view name) const;
  const std::string& SlotName(int slot) const { return slot_names_[slot]; }
  // Ensures: the slot the statement binds, or -1 (non-binding clauses).
  int StmtSlot(int stmt_index) const { return stmt_slot_[stmt_index]; }
  // Ensures: the statement's compiled value; nullptr for parameters.
  const CompiledExpr* StmtCode(int stmt_index) const;

 private:
  std::vector<std::string> slot_names_;
  absl::flat_hash_map<std::string, int> slot_of_;
  std::vector<int> stmt_slot_;
  std::vector<std::unique_ptr<CompiledExpr>> stmt_code_;
};

namespace internal {

// The arithmetic of one operator (shared by both evaluators).
// Requires: `kind` is one of kNeg (b ignored), kAdd..kCdiv, or a comparison.
// Ensures: true and *out, or false when the result is undefined (division by zero,
//          overflow).
bool ApplyIntOp(ExprKind kind, int64_t a, int64_t b, int64_t* out);
// Ensures: "<source>:<line>:<col>: <what>" for an ApplyIntOp failure at `node`.
std::string DescribeIntOpError(const Expr& node, int64_t a, int64_t b,
                               absl::string_view source_name);

}  // namespace internal

}  // namespace warpcheck::sim::expr

#endif  // WARPCHECK_SIM_EXPR_EVAL_H_
