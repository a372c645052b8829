#include "sim/ptx/lexer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace warpcheck::sim::ptx {

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kIdent:
      return absl::StrCat("identifier '", token.text, "'");
    case TokenKind::kDirective:
      return absl::StrCat("directive '", token.text, "'");
    case TokenKind::kInt:
    case TokenKind::kF32:
    case TokenKind::kF64:
      return absl::StrCat("number ", token.text);
    case TokenKind::kString:
      return absl::StrCat("string \"", token.text, "\"");
    default:
      return absl::StrCat("'", token.text, "'");
  }
}

namespace {

bool IsIdentStart(char c) {
  return absl::ascii_isalpha(c) || c == '_' || c == '$' || c == '%';
}
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '$'; }

class LexerImpl {
 public:
  LexerImpl(absl::string_view text, size_t max_tokens)
      : text_(text), max_tokens_(max_tokens) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    out.reserve(text_.size() / 2 + 16);  // emitted PTX: about one token per 3 bytes
    while (true) {
      if (!SkipSpaceAndComments(out)) break;
      if (out.size() >= max_tokens_ && pos_ < text_.size()) {
        Token t;
        t.kind = TokenKind::kError;
        t.line = line_;
        t.column = Column();
        t.text = text_.substr(pos_, 1);
        t.error = absl::StrCat("more than ", max_tokens_,
                               " tokens, the most a PTX module may have");
        out.push_back(std::move(t));
        break;
      }
      Token t = Next();
      bool stop = t.kind == TokenKind::kEof || t.kind == TokenKind::kError;
      out.push_back(std::move(t));
      if (stop) break;
    }
    if (out.empty() || out.back().kind != TokenKind::kEof) {
      Token eof;
      eof.line = line_;
      eof.column = Column();
      out.push_back(eof);
    }
    return out;
  }

 private:
  int Column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  // Returns false after pushing an error token (unterminated comment).
  bool SkipSpaceAndComments(std::vector<Token>& out) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Peek(1) == '*') {
        Token err = Make(TokenKind::kError, text_.substr(pos_, 2));
        pos_ += 2;
        bool closed = false;
        while (pos_ < text_.size()) {
          if (text_[pos_] == '*' && Peek(1) == '/') {
            pos_ += 2;
            closed = true;
            break;
          }
          if (text_[pos_] == '\n') {
            ++line_;
            line_start_ = pos_ + 1;
          }
          ++pos_;
        }
        if (!closed) {
          err.error = "unterminated /* comment";
          out.push_back(err);
          return false;
        }
      } else {
        break;
      }
    }
    return true;
  }

  Token Make(TokenKind kind, absl::string_view text) const {
    Token t;
    t.kind = kind;
    t.text = text;
    t.line = line_;
    t.column = Column();
    return t;
  }

  Token Error(size_t len, std::string why) {
    Token t = Make(TokenKind::kError, text_.substr(pos_, len));
    t.error = std::move(why);
    pos_ += len;
    return t;
  }

  // Reads [A-Za-z0-9_$]* with `.word` and `::word` continuations.
  void ReadWordTail(bool allow_dots) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (IsIdentChar(c)) {
        ++pos_;
      } else if (allow_dots && c == '.' && IsIdentChar(Peek(1))) {
        ++pos_;
      } else if (c == ':' && Peek(1) == ':' && IsIdentChar(Peek(2))) {
        pos_ += 2;
      } else {
        break;
      }
    }
  }

  Token Next() {
    if (pos_ >= text_.size()) return Make(TokenKind::kEof, "");
    char c = text_[pos_];
    size_t start = pos_;
    if (c == '.' && (absl::ascii_isalpha(Peek(1)) || Peek(1) == '_')) {
      Token t = Make(TokenKind::kDirective, "");
      ++pos_;
      ReadWordTail(/*allow_dots=*/false);
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    if (IsIdentStart(c)) {
      Token t = Make(TokenKind::kIdent, "");
      ++pos_;
      ReadWordTail(/*allow_dots=*/true);
      t.text = text_.substr(start, pos_ - start);
      if (t.text == "%" || t.text == "$") {
        t.kind = TokenKind::kError;
        t.error = absl::StrCat("'", t.text, "' must be followed by a name");
      }
      return t;
    }
    if (absl::ascii_isdigit(c)) return Number();
    if (c == '"') {
      Token t = Make(TokenKind::kString, "");
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') ++pos_;
      if (Peek() != '"') {
        pos_ = start;
        return Error(1, "unterminated string");
      }
      t.text = text_.substr(start + 1, pos_ - start - 1);
      ++pos_;
      return t;
    }
    if (std::strchr("{}[](),;:@!+-|<>=", c) != nullptr) {
      Token t = Make(TokenKind::kPunct, text_.substr(pos_, 1));
      ++pos_;
      return t;
    }
    return Error(1, absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  Token Number() {
    size_t start = pos_;
    Token t = Make(TokenKind::kInt, "");
    char c1 = Peek(1);
    auto hex_digits = [&](size_t from) {
      size_t p = from;
      while (p < text_.size() && absl::ascii_isxdigit(text_[p])) ++p;
      return p;
    };
    if (Peek() == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      size_t end = hex_digits(pos_ + 2);
      size_t want = (c1 == 'f' || c1 == 'F') ? 8 : 16;
      if (end - (pos_ + 2) != want || (end < text_.size() && IsIdentChar(text_[end]))) {
        return Error(end - pos_ + (end < text_.size() && IsIdentChar(text_[end]) ? 1 : 0),
                     absl::StrCat("a ", want == 8 ? "0f" : "0d",
                                  " float literal needs exactly ", want, " hex digits"));
      }
      t.kind = want == 8 ? TokenKind::kF32 : TokenKind::kF64;
      t.bits =
          std::strtoull(std::string(text_.substr(pos_ + 2, want)).c_str(), nullptr, 16);
      pos_ = end;
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    if (Peek() == '0' && (c1 == 'x' || c1 == 'X')) {
      size_t end = hex_digits(pos_ + 2);
      if (end == pos_ + 2) return Error(2, "hex literal without digits");
      std::string digits(text_.substr(pos_ + 2, end - pos_ - 2));
      if (digits.size() > 16)
        return Error(end - pos_, "integer literal does not fit in 64 bits");
      t.bits = std::strtoull(digits.c_str(), nullptr, 16);
      t.hex = true;
      pos_ = end;
      if (Peek() == 'U') ++pos_;
      if (IsIdentChar(Peek())) return Error(1, "bad character after integer literal");
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    if (Peek() == '0' && (c1 == 'b' || c1 == 'B')) {
      size_t p = pos_ + 2;
      uint64_t v = 0;
      while (p < text_.size() && (text_[p] == '0' || text_[p] == '1'))
        v = v * 2 + (text_[p++] - '0');
      if (p == pos_ + 2) return Error(2, "binary literal without digits");
      t.bits = v;
      pos_ = p;
      if (Peek() == 'U') ++pos_;
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    size_t p = pos_;
    while (p < text_.size() && absl::ascii_isdigit(text_[p])) ++p;
    bool is_float = false;
    if (p < text_.size() && text_[p] == '.' && p + 1 < text_.size() &&
        absl::ascii_isdigit(text_[p + 1])) {
      is_float = true;
      ++p;
      while (p < text_.size() && absl::ascii_isdigit(text_[p])) ++p;
    }
    if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
      if (q < text_.size() && absl::ascii_isdigit(text_[q])) {
        is_float = true;
        p = q;
        while (p < text_.size() && absl::ascii_isdigit(text_[p])) ++p;
      }
    }
    std::string lit(text_.substr(pos_, p - pos_));
    if (is_float) {
      double d = std::strtod(lit.c_str(), nullptr);
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      t.kind = TokenKind::kF64;
      t.bits = bits;
      t.text = text_.substr(pos_, p - pos_);
      pos_ = p;
      return t;
    }
    bool octal = lit.size() > 1 && lit[0] == '0';
    if (octal) {
      for (char ch : lit) {
        if (ch > '7') return Error(lit.size(), "bad digit in octal literal");
      }
    }
    errno = 0;
    t.bits = std::strtoull(lit.c_str(), nullptr, octal ? 8 : 10);
    if (errno == ERANGE)
      return Error(lit.size(), "integer literal does not fit in 64 bits");
    pos_ = p;
    if (Peek() == 'U') ++pos_;
    if (IsIdentChar(Peek())) return Error(1, "bad character after integer literal");
    t.text = text_.substr(start, pos_ - start);
    return t;
  }

  absl::string_view text_;
  size_t max_tokens_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

std::vector<Token> Lex(absl::string_view text, size_t max_tokens) {
  return LexerImpl(text, max_tokens).Run();
}

}  // namespace warpcheck::sim::ptx
