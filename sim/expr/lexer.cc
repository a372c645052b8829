#include "sim/expr/lexer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace warpcheck::sim::expr {

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kIdent:
      return absl::StrCat("identifier '", token.text, "'");
    case TokenKind::kInt:
      return absl::StrCat("integer ", token.text);
    default:
      return absl::StrCat("'", token.text, "'");
  }
}

namespace {

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

class LexerImpl {
 public:
  explicit LexerImpl(absl::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    while (true) {
      SkipSpaceAndComments();
      Token t = Next();
      out.push_back(t);
      if (t.kind == TokenKind::kEof) break;
      if (t.kind == TokenKind::kError) {
        Token eof;
        eof.loc = Loc();
        out.push_back(eof);
        break;
      }
    }
    return out;
  }

 private:
  SourceLoc Loc() const {
    return SourceLoc{line_, static_cast<int>(pos_ - line_start_) + 1};
  }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  Token Make(TokenKind kind, size_t len) {
    Token t;
    t.kind = kind;
    t.loc = Loc();
    t.text = text_.substr(pos_, len);
    pos_ += len;
    return t;
  }

  Token Error(size_t len, std::string why) {
    Token t = Make(TokenKind::kError, len);
    t.error = std::move(why);
    return t;
  }

  Token Next() {
    if (pos_ >= text_.size()) {
      Token t;
      t.loc = Loc();
      return t;
    }
    char c = text_[pos_];
    if (IsIdentStart(c)) {
      size_t n = 1;
      while (IsIdentChar(Peek(n))) ++n;
      return Make(TokenKind::kIdent, n);
    }
    if (absl::ascii_isdigit(c)) {
      size_t n = 1;
      while (absl::ascii_isdigit(Peek(n))) ++n;
      if (IsIdentChar(Peek(n))) {
        size_t m = n;
        while (IsIdentChar(Peek(m))) ++m;
        return Error(m, absl::StrCat("malformed number '", text_.substr(pos_, m),
                                     "': a name cannot start with a digit"));
      }
      // Accumulate with overflow detection.
      int64_t v = 0;
      for (size_t i = 0; i < n; ++i) {
        int d = text_[pos_ + i] - '0';
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v)) {
          return Error(n,
                       absl::StrCat("integer literal ", text_.substr(pos_, n),
                                    " does not fit in int64 (max 9223372036854775807)"));
        }
      }
      Token t = Make(TokenKind::kInt, n);
      t.int_value = v;
      return t;
    }
    char d = Peek(1);
    switch (c) {
      case '(':
        return Make(TokenKind::kLParen, 1);
      case ')':
        return Make(TokenKind::kRParen, 1);
      case ',':
        return Make(TokenKind::kComma, 1);
      case ';':
        return Make(TokenKind::kSemicolon, 1);
      case '+':
        return Make(TokenKind::kPlus, 1);
      case '-':
        return Make(TokenKind::kMinus, 1);
      case '*':
        return Make(TokenKind::kStar, 1);
      case '%':
        return Make(TokenKind::kPercent, 1);
      case '=':
        return d == '=' ? Make(TokenKind::kEqEq, 2) : Make(TokenKind::kAssign, 1);
      case '!':
        return d == '=' ? Make(TokenKind::kNotEq, 2) : Make(TokenKind::kBang, 1);
      case '<':
        return d == '=' ? Make(TokenKind::kLessEq, 2) : Make(TokenKind::kLess, 1);
      case '>':
        return d == '=' ? Make(TokenKind::kGreaterEq, 2) : Make(TokenKind::kGreater, 1);
      case '.':
        if (d == '.') return Make(TokenKind::kDotDot, 2);
        return Error(1, "'.' is not an operator; ranges are written LO..HI");
      case '/':
        if (d == '/') return Make(TokenKind::kSlashSlash, 2);
        return Error(1,
                     "'/' is not an operator; integer division is '//' (floor division)");
      case '&':
        if (d == '&') return Make(TokenKind::kAndAnd, 2);
        return Error(1,
                     "'&' is not an operator; logical and is '&&' (there are no "
                     "bit operations: write x % 2^k for x & (2^k - 1))");
      case '|':
        if (d == '|') return Make(TokenKind::kOrOr, 2);
        return Error(1, "'|' is not an operator; logical or is '||'");
      default:
        break;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t n = 1;
      while (pos_ + n < text_.size() &&
             (static_cast<unsigned char>(Peek(n)) & 0xC0) == 0x80) {
        ++n;
      }
      return Error(n, absl::StrCat("unexpected character '", text_.substr(pos_, n),
                                   "' (only ASCII is allowed outside comments)"));
    }
    return Error(1, absl::StrCat("unexpected character '", text_.substr(pos_, 1), "'"));
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

std::vector<Token> Lex(absl::string_view text) { return LexerImpl(text).Run(); }

}  // namespace warpcheck::sim::expr
