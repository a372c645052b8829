// Tokens of the expression language (private to sim/expr; parser.h is the interface).
//
//     let w = select(g < G - 1, s, C - s * g);   # comment to the end of the line
//     ^kw ^id ^=     ^( ^id ^< ...             ^;
//
// The lexer never fails: a character it cannot use becomes one kError token carrying
// the reason ("'/' is not an operator; floor division is '//'"), which the parser
// reports when it reaches it, so errors come out in source order.
#ifndef WARPCHECK_SIM_EXPR_LEXER_H_
#define WARPCHECK_SIM_EXPR_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/expr/ast.h"

namespace warpcheck::sim::expr {

enum class TokenKind : uint8_t {
  kEof,
  kIdent,       // [A-Za-z_][A-Za-z0-9_]* (keywords are identifiers to the lexer)
  kInt,         // decimal digits; value in int_value (fits in int64)
  kLParen,      // (
  kRParen,      // )
  kComma,       // ,
  kSemicolon,   // ;
  kAssign,      // =
  kDotDot,      // ..
  kPlus,        // +
  kMinus,       // -
  kStar,        // *
  kSlashSlash,  // //
  kPercent,     // %
  kEqEq,        // ==
  kNotEq,       // !=
  kLess,        // <
  kLessEq,      // <=
  kGreater,     // >
  kGreaterEq,   // >=
  kAndAnd,      // &&
  kOrOr,        // ||
  kBang,        // !
  kError,       // text = the offending characters, error = why
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  absl::string_view text;
  SourceLoc loc;
  int64_t int_value = 0;  // kInt
  std::string error;      // kError
};

// Ensures: a short human name for messages: "'+'", "identifier 'w'", "end of input".
std::string Describe(const Token& token);

// Ensures: every token of `text`, ending with exactly one kEof; lexing stops after the
//          first kError (which is then followed by kEof). `#` starts a comment.
std::vector<Token> Lex(absl::string_view text);

}  // namespace warpcheck::sim::expr

#endif  // WARPCHECK_SIM_EXPR_LEXER_H_
