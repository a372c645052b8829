// Tokens of MLIR attribute text, as TTGIR layout attributes and module attributes use
// it (private to sim/layout).
//
//     #ttg.blocked<{sizePerThread = [1, 4 : i32], order = [1, 0]}>
//     ^hash-ident ^< ^{  ^ident     ^= ^[ ^int ^: ^ident        ^> (one token each)
//
// The lexer never fails: a character it does not understand becomes one kError token,
// which the parser reports. Every token records its byte offset in the text, and
// TextPosition turns an offset into "<source>:<line>:<column>" relative to a
// SourceLocation (the column of the first line counts from where.column).
#ifndef WARPCHECK_SIM_LAYOUT_ATTR_LEXER_H_
#define WARPCHECK_SIM_LAYOUT_ATTR_LEXER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/layout/encoding.h"

namespace warpcheck::sim::layout::attr {

enum class TokenKind {
  kEof,
  kHashIdent,  // #ttg.blocked, #blocked1 (text includes the '#')
  kIdent,      // sizePerThread, true, i32, ttg.target (letters, digits, _ $ .)
  kInteger,    // 42, -3, 0x1F (text includes a leading '-')
  kFloat,      // 1.5, 2e3 (never valid in a layout, lexed to report it well)
  kString,     // "ttg.num-warps" (text includes the quotes)
  kLess,       // <
  kGreater,    // >
  kLBrace,     // {
  kRBrace,     // }
  kLSquare,    // [
  kRSquare,    // ]
  kLParen,     // (
  kRParen,     // )
  kEqual,      // =
  kComma,      // ,
  kColon,      // :
  kPlus,       // +
  kError,      // anything else, including an unterminated string
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  absl::string_view text;
  size_t offset = 0;  // byte offset of text in the lexed string
  size_t end() const { return offset + text.size(); }
};

// Ensures: a short human name for error messages, e.g. "'>'" or "end of input".
std::string Describe(const Token& token);

class Lexer {
 public:
  // Lexes `text` starting at byte `start`.
  explicit Lexer(absl::string_view text, size_t start = 0) : text_(text), pos_(start) {}

  // Ensures: the next token (kEof, repeatedly, at the end); whitespace is skipped,
  //          and so are `// comments` up to the end of the line.
  Token Next();
  // Ensures: the token Next() would return, without consuming it.
  Token Peek();
  // Byte offset where the next token's leading whitespace begins.
  size_t offset() const { return pos_; }
  // Moves to byte offset `pos` (used after skipping text the parser does not lex).
  void Seek(size_t pos) { pos_ = pos; }
  absl::string_view text() const { return text_; }

 private:
  void SkipSpaceAndComments();
  absl::string_view text_;
  size_t pos_;
};

// Turns byte offsets of `text` into "<source>:<line>:<column>", where `text` starts at
// `where` (1-based line and column; columns count bytes, as MLIR's do; only the first
// line is shifted by where.column).
class Positions {
 public:
  Positions(absl::string_view text, const SourceLocation& where);
  // Requires: nothing (offsets past the end are clamped to the end).
  std::string At(size_t offset) const;

 private:
  size_t size_;
  SourceLocation where_;
  std::vector<size_t> line_starts_;  // offsets just after each '\n'
};

// Ensures: Positions(text, where).At(offset).
std::string TextPosition(absl::string_view text, size_t offset,
                         const SourceLocation& where);

}  // namespace warpcheck::sim::layout::attr

#endif  // WARPCHECK_SIM_LAYOUT_ATTR_LEXER_H_
