// Tokens of PTX text (private to sim/ptx; parser.h is the interface).
//
//     @!%p1 ld.global.v4.b32 { %r1, %r2 }, [ %rd3 + -16 ];   // comment
//     ^@^!^id ^ident         ^{ ^id ^, ...  ^[ ^id ^+ ^- ^int ^] ^;
//
// Identifiers keep their dots and `::` (`ld.global.L1::evict_last.v4.b32`, `%tid.x`,
// `$L__BB0_2`), so an opcode is one token. A word that starts with a dot is a directive
// (`.reg`, `.b32`, `.align`). The lexer never fails: a character it cannot use becomes a
// kError token, which the parser reports at its position.
#ifndef WARPCHECK_SIM_PTX_LEXER_H_
#define WARPCHECK_SIM_PTX_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace warpcheck::sim::ptx {

enum class TokenKind : uint8_t {
  kEof,
  kIdent,      // [A-Za-z_$%][A-Za-z0-9_$]* with `.x` and `::x` continuations
  kDirective,  // .name (also .shared::cta)
  kInt,        // 123, 0x1F, 0x3340U, 017 (octal), 0b101; value in `bits`
  kF32,        // 0f3F800000; bits
  kF64,        // 0d3FF0000000000000, or a decimal literal with '.' or exponent; bits
  kString,     // "..." (text without quotes)
  kPunct,      // one of { } [ ] ( ) , ; : @ ! + - | < > =
  kError,      // text = the offending characters, error = why
};

// `text` points into the lexed text (Lex's argument), which must outlive the tokens:
// lexing copies no characters.
struct Token {
  TokenKind kind = TokenKind::kEof;
  absl::string_view text;
  int line = 0;
  int column = 0;
  uint64_t bits = 0;
  bool hex = false;  // kInt written in hex
  std::string error;
  bool Is(char punct) const {
    return kind == TokenKind::kPunct && text.size() == 1 && text[0] == punct;
  }
};

// Ensures: a short name for messages: "'{'", "identifier 'mov.u32'", "end of input".
std::string Describe(const Token& token);

// Ensures: every token of `text`, ending with exactly one kEof; a kError token is
// followed by kEof. Past `max_tokens` tokens the next one is a kError token ("more than
// N tokens"), so a hostile text costs at most max_tokens tokens of memory.
std::vector<Token> Lex(absl::string_view text, size_t max_tokens = SIZE_MAX);

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_LEXER_H_
