// Parsing the expression language: concrete syntax, dialects, errors.
//
// Grammar (EBNF; `#` starts a comment to the end of the line)
// ----------------------------------------------------------
//
//     program  = { stmt } ;
//     stmt     = "param" NAME "in" int ".." int ";"       (* inclusive range, lo <= hi *)
//              | "let" NAME "=" expr ";"
//              | KEYWORD NAME "=" expr ";"                (* a kNamed dialect clause *)
//              | KEYWORD "=" expr ";"                     (* a kAssign dialect clause *)
//              | KEYWORD expr ";"                         (* a kBare dialect clause *)
//     int      = [ "-" ] DIGITS ;
//     expr     = and { "||" and } ;
//     and      = cmp { "&&" cmp } ;
//     cmp      = sum [ ( "==" | "!=" | "<" | "<=" | ">" | ">=" ) sum ] ;  (* no chains *)
//     sum      = term { ( "+" | "-" ) term } ;
//     term     = unary { ( "*" | "//" | "%" ) unary } ;
//     unary    = ( "-" | "!" ) unary | primary ;
//     primary  = DIGITS | "true" | "false" | NAME
//              | ( "min" | "max" | "cdiv" ) "(" expr "," expr ")"
//              | "select" "(" expr "," expr "," expr ")"
//              | "(" expr ")" ;
//     NAME     = [A-Za-z_][A-Za-z0-9_]* , not a reserved word ;
//
// Reserved words: param let in true false min max cdiv select, and the dialect's
// clause keywords. Binary operators are left-associative; `a < b < c` is an error
// (write `a < b && b < c`). A literal is at most 9223372036854775807.
//
// Names and scopes
// ----------------
// Every name is declared before it is used and only once: parameters, let-bindings,
// the dialect's inputs (predeclared, e.g. `iter`), and the names of binding clauses
// (e.g. `out row = ...;` makes `row` usable below). A let's type is its expression's.
// A value *depends on an input* when it mentions an input or a name that does. Clauses
// of kParams scope (e.g. `domain`, `grid`, `require`) must not depend on an input.
//
// Errors
// ------
// Every error is InvalidArgument with the message "<source>:<line>:<col>: <what>",
// pointing at the offending token (for a type error, the operator or function name),
// e.g. "gemm.swz:7:15: operator '+' needs int operands, got int and bool". Parsing stops
// at the first error.
//
// Limits: brackets, function calls and prefix operators nest at most 200 deep, and one
// expression's tree is at most kMaxExpressionHeight operators high. The second limit
// counts flat operator chains (`0 + 1 + 1 + ...` is a left-leaning tree as high as it is
// long), which every later tree walk — printer, evaluators, the Z3 encoder — would
// otherwise follow recursively until the stack overflows. A let-bound name is a leaf of
// the expression that uses it, so a long computation split into lets is not limited.
// Past either limit: "expression nested too deeply" at the operator that crossed it.
// A program (or a standalone expression) is at most kMaxProgramBytes of text (real
// specs are a few KB; the parser holds every token); past that the error points at the
// first byte over (sim/base/text_limit.h).
#ifndef WARPCHECK_SIM_EXPR_PARSER_H_
#define WARPCHECK_SIM_EXPR_PARSER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/expr/ast.h"

namespace warpcheck::sim::expr {

// The most operators on one root-to-leaf path of a parsed expression (see "Limits").
inline constexpr int kMaxExpressionHeight = 500;

// The most text ParseProgram and ParseExpr read (see "Limits").
inline constexpr size_t kMaxProgramBytes = size_t{1} << 20;

// Which names a clause may use.
enum class Scope : uint8_t {
  kParams,  // parameters and values that depend only on parameters
  kInputs,  // anything declared before it, including inputs
};

// One clause keyword of a dialect.
struct ClauseSpec {
  std::string keyword;
  ClauseForm form = ClauseForm::kNamed;
  Type type = Type::kInt;  // the type its expression must have
  Scope scope = Scope::kInputs;
  bool binds = false;         // kNamed only: the name becomes usable below
  bool at_most_once = false;  // kAssign/kBare: at most one such clause; kNamed: each name
                              // at most once per keyword (always enforced for kNamed)
};

// What a client adds to the core language: predeclared inputs and clause keywords.
struct Dialect {
  std::vector<std::pair<std::string, Type>> inputs;
  std::vector<ClauseSpec> clauses;
};

// Ensures: the program, or InvalidArgument "<source_name>:<line>:<col>: <what>".
absl::StatusOr<Program> ParseProgram(absl::string_view source_name,
                                     absl::string_view text, const Dialect& dialect);

// Parses one expression over the given names (each with its type).
// Ensures: the typed expression, or InvalidArgument as above.
absl::StatusOr<ExprPtr> ParseExpr(absl::string_view source_name, absl::string_view text,
                                  const std::vector<std::pair<std::string, Type>>& names);

// Ensures: true for the core language's reserved words.
bool IsReservedWord(absl::string_view word);

}  // namespace warpcheck::sim::expr

#endif  // WARPCHECK_SIM_EXPR_PARSER_H_
