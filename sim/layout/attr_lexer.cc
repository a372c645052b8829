#include "sim/layout/attr_lexer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::layout::attr {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// MLIR bare-id characters after the first: letter | digit | [_$.]
bool IsIdentChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_' || c == '$' || c == '.';
}

}  // namespace

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kError:
      return absl::StrCat("unexpected character '", token.text, "'");
    default:
      return absl::StrCat("'", token.text, "'");
  }
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

Token Lexer::Peek() {
  size_t saved = pos_;
  Token t = Next();
  pos_ = saved;
  return t;
}

Token Lexer::Next() {
  SkipSpaceAndComments();
  Token t;
  t.offset = pos_;
  if (pos_ >= text_.size()) {
    t.kind = TokenKind::kEof;
    t.text = text_.substr(text_.size(), 0);
    return t;
  }
  const size_t start = pos_;
  const char c = text_[pos_];
  auto single = [&](TokenKind kind) {
    ++pos_;
    t.kind = kind;
    t.text = text_.substr(start, 1);
    return t;
  };
  switch (c) {
    case '<':
      return single(TokenKind::kLess);
    case '>':
      return single(TokenKind::kGreater);
    case '{':
      return single(TokenKind::kLBrace);
    case '}':
      return single(TokenKind::kRBrace);
    case '[':
      return single(TokenKind::kLSquare);
    case ']':
      return single(TokenKind::kRSquare);
    case '(':
      return single(TokenKind::kLParen);
    case ')':
      return single(TokenKind::kRParen);
    case '=':
      return single(TokenKind::kEqual);
    case ',':
      return single(TokenKind::kComma);
    case ':':
      return single(TokenKind::kColon);
    case '+':
      return single(TokenKind::kPlus);
    default:
      break;
  }
  if (c == '#') {
    ++pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    t.kind = pos_ - start > 1 ? TokenKind::kHashIdent : TokenKind::kError;
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  if (IsLetter(c) || c == '_') {
    ++pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    t.kind = TokenKind::kIdent;
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  if (c == '"') {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {
      ++pos_;
      t.kind = TokenKind::kString;
    } else {
      t.kind = TokenKind::kError;  // unterminated string
    }
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  if (IsDigit(c) || (c == '-' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
    if (c == '-') ++pos_;
    t.kind = TokenKind::kInteger;
    if (text_[pos_] == '0' && pos_ + 2 < text_.size() && text_[pos_ + 1] == 'x' &&
        IsHexDigit(text_[pos_ + 2])) {
      pos_ += 2;
      while (pos_ < text_.size() && IsHexDigit(text_[pos_])) ++pos_;
    } else {
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
      if (pos_ + 1 < text_.size() && text_[pos_] == '.' && IsDigit(text_[pos_ + 1])) {
        t.kind = TokenKind::kFloat;
        ++pos_;
        while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        size_t q = pos_ + 1;
        if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
        if (q < text_.size() && IsDigit(text_[q])) {
          t.kind = TokenKind::kFloat;
          pos_ = q;
          while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
        }
      }
    }
    t.text = text_.substr(start, pos_ - start);
    return t;
  }
  // One (possibly multi-byte UTF-8) character that is not part of the grammar.
  ++pos_;
  while (pos_ < text_.size() &&
         (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80) {
    ++pos_;
  }
  t.kind = TokenKind::kError;
  t.text = text_.substr(start, pos_ - start);
  return t;
}

Positions::Positions(absl::string_view text, const SourceLocation& where)
    : size_(text.size()), where_(where) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string Positions::At(size_t offset) const {
  if (offset > size_) offset = size_;
  // Number of line starts at or before offset = lines passed.
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const size_t lines_passed = it - line_starts_.begin();
  const size_t line_start = lines_passed == 0 ? 0 : line_starts_[lines_passed - 1];
  const int line = where_.line + static_cast<int>(lines_passed);
  int column = static_cast<int>(offset - line_start) + 1;
  if (lines_passed == 0) column += where_.column - 1;
  return absl::StrCat(where_.source, ":", line, ":", column);
}

std::string TextPosition(absl::string_view text, size_t offset,
                         const SourceLocation& where) {
  return Positions(text, where).At(offset);
}

}  // namespace warpcheck::sim::layout::attr
