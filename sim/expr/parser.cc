#include "sim/expr/parser.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_limit.h"
#include "sim/expr/lexer.h"

namespace warpcheck::sim::expr {

namespace {

constexpr absl::string_view kReserved[] = {"param", "let", "in",   "true",  "false",
                                           "min",   "max", "cdiv", "select"};

constexpr absl::string_view kFunctions = "min, max, cdiv, select";

std::string LocText(SourceLoc loc) { return absl::StrCat(loc.line, ":", loc.col); }

// What the parser knows about a declared name.
struct NameInfo {
  Type type;
  SourceLoc loc;
  std::string what;   // "parameter", "let-binding", "input", "out", ...
  std::string input;  // the first input it depends on; empty if none
};

class Parser {
 public:
  Parser(absl::string_view source_name, absl::string_view text, const Dialect* dialect)
      : source_name_(source_name), tokens_(Lex(text)), dialect_(dialect) {
    if (dialect_ != nullptr) {
      for (const auto& [name, type] : dialect_->inputs) {
        names_[name] = NameInfo{type, SourceLoc{}, "input", name};
      }
    }
  }

  void DeclareForExpr(const std::string& name, Type type) {
    names_[name] = NameInfo{type, SourceLoc{}, "name", ""};
  }

  absl::StatusOr<Program> ParseProgram() {
    std::vector<Stmt> stmts;
    while (Cur().kind != TokenKind::kEof) {
      RETURN_IF_ERROR(CheckLexError());
      const Token& t = Cur();
      if (t.kind == TokenKind::kIdent) {
        if (t.text == "param") {
          ASSIGN_OR_RETURN(Stmt s, ParseParam());
          stmts.push_back(std::move(s));
          continue;
        }
        if (t.text == "let") {
          ASSIGN_OR_RETURN(Stmt s, ParseLet());
          stmts.push_back(std::move(s));
          continue;
        }
        if (const ClauseSpec* spec = FindClause(t.text); spec != nullptr) {
          ASSIGN_OR_RETURN(Stmt s, ParseClause(*spec));
          stmts.push_back(std::move(s));
          continue;
        }
      }
      return ErrorAt(t.loc, absl::StrCat("expected a statement (", StatementWords(),
                                         "), got ", Describe(t)));
    }
    return Program(std::string(source_name_),
                   dialect_ != nullptr ? dialect_->inputs
                                       : std::vector<std::pair<std::string, Type>>{},
                   std::move(stmts));
  }

  absl::StatusOr<ExprPtr> ParseStandaloneExpr() {
    ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    RETURN_IF_ERROR(CheckLexError());
    if (Cur().kind != TokenKind::kEof) {
      return ErrorAt(Cur().loc, absl::StrCat("unexpected ", Describe(Cur()),
                                             " after the expression"));
    }
    return e;
  }

 private:
  // ---- tokens ----
  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Peek(int ahead) const {
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Is(TokenKind kind) const { return Cur().kind == kind; }

  absl::Status ErrorAt(SourceLoc loc, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name_, ":", loc.line, ":", loc.col, ": ", what));
  }

  absl::Status CheckLexError() const {
    if (Cur().kind == TokenKind::kError) return ErrorAt(Cur().loc, Cur().error);
    return absl::OkStatus();
  }

  // Position just after the previous token (for "expected ';'" at a line's end).
  SourceLoc AfterPrevious() const {
    if (pos_ == 0) return Cur().loc;
    const Token& prev = tokens_[pos_ - 1];
    return SourceLoc{prev.loc.line, prev.loc.col + static_cast<int>(prev.text.size())};
  }

  absl::Status Expect(TokenKind kind, absl::string_view what) {
    RETURN_IF_ERROR(CheckLexError());
    if (!Is(kind)) {
      return ErrorAt(Cur().loc,
                     absl::StrCat("expected ", what, ", got ", Describe(Cur())));
    }
    Advance();
    return absl::OkStatus();
  }

  absl::Status ExpectSemicolon(absl::string_view after) {
    RETURN_IF_ERROR(CheckLexError());
    if (Is(TokenKind::kSemicolon)) {
      Advance();
      return absl::OkStatus();
    }
    std::string hint;
    if (Is(TokenKind::kAssign)) hint = " (equality is '==')";
    if (Cur().kind == TokenKind::kLess || Cur().kind == TokenKind::kLessEq ||
        Cur().kind == TokenKind::kGreater || Cur().kind == TokenKind::kGreaterEq ||
        Cur().kind == TokenKind::kEqEq || Cur().kind == TokenKind::kNotEq) {
      return ErrorAt(Cur().loc,
                     "comparisons do not chain: write 'a < b && b < c' instead of "
                     "'a < b < c'");
    }
    // A missing ';' at the end of a line is reported where it belongs.
    SourceLoc at = Cur().loc.line != AfterPrevious().line ? AfterPrevious() : Cur().loc;
    return ErrorAt(
        at, absl::StrCat("expected ';' after ", after, ", got ", Describe(Cur()), hint));
  }

  // ---- names ----
  const ClauseSpec* FindClause(absl::string_view word) const {
    if (dialect_ == nullptr) return nullptr;
    for (const ClauseSpec& c : dialect_->clauses) {
      if (c.keyword == word) return &c;
    }
    return nullptr;
  }

  std::string StatementWords() const {
    std::vector<std::string> words = {"param", "let"};
    if (dialect_ != nullptr) {
      for (const ClauseSpec& c : dialect_->clauses) words.push_back(c.keyword);
    }
    return absl::StrJoin(words, ", ");
  }

  bool Reserved(absl::string_view word) const {
    return IsReservedWord(word) || FindClause(word) != nullptr;
  }

  // Reads a NAME token that is about to be declared.
  absl::StatusOr<std::pair<std::string, SourceLoc>> DeclName(absl::string_view what,
                                                             bool must_be_new) {
    RETURN_IF_ERROR(CheckLexError());
    const Token& t = Cur();
    if (t.kind != TokenKind::kIdent) {
      return ErrorAt(t.loc, absl::StrCat("expected ", what, ", got ", Describe(t)));
    }
    if (Reserved(t.text)) {
      return ErrorAt(
          t.loc, absl::StrCat("'", t.text, "' is a reserved word and cannot be a name"));
    }
    if (must_be_new) {
      auto it = names_.find(t.text);
      if (it != names_.end()) {
        if (!it->second.loc.known()) {
          return ErrorAt(t.loc, absl::StrCat("'", t.text, "' is already defined (as ",
                                             it->second.what, ")"));
        }
        return ErrorAt(
            t.loc, absl::StrCat("'", t.text, "' is already defined (", it->second.what,
                                " at ", LocText(it->second.loc), ")"));
      }
    }
    Advance();
    return std::make_pair(std::string(t.text), t.loc);
  }

  // The first input `e` depends on, and the variable through which it does.
  std::pair<std::string, const Expr*> InputDependence(const Expr& e) const {
    if (e.kind() == ExprKind::kVar) {
      auto it = names_.find(e.name());
      if (it != names_.end() && !it->second.input.empty()) {
        return {it->second.input, &e};
      }
      return {"", nullptr};
    }
    for (const ExprPtr& op : e.operands()) {
      auto r = InputDependence(*op);
      if (r.second != nullptr) return r;
    }
    return {"", nullptr};
  }

  // ---- statements ----
  absl::StatusOr<int64_t> ParseSignedInt(absl::string_view what) {
    RETURN_IF_ERROR(CheckLexError());
    bool neg = false;
    if (Is(TokenKind::kMinus)) {
      neg = true;
      Advance();
      RETURN_IF_ERROR(CheckLexError());
    }
    if (!Is(TokenKind::kInt)) {
      return ErrorAt(Cur().loc, absl::StrCat("expected an integer (", what, "), got ",
                                             Describe(Cur())));
    }
    int64_t v = Advance().int_value;
    return neg ? -v : v;
  }

  absl::StatusOr<Stmt> ParseParam() {
    Stmt s;
    s.kind = StmtKind::kParam;
    s.loc = Advance().loc;  // 'param'
    ASSIGN_OR_RETURN(auto name, DeclName("a parameter name after 'param'", true));
    s.name = name.first;
    s.name_loc = name.second;
    RETURN_IF_ERROR(CheckLexError());
    if (!(Is(TokenKind::kIdent) && Cur().text == "in")) {
      return ErrorAt(Cur().loc, absl::StrCat("expected 'in' after parameter '", s.name,
                                             "' (e.g. param ", s.name,
                                             " in 1..64;), got ", Describe(Cur())));
    }
    Advance();
    SourceLoc lo_loc = Cur().loc;
    ASSIGN_OR_RETURN(s.lo, ParseSignedInt("the lower bound of the range"));
    RETURN_IF_ERROR(Expect(TokenKind::kDotDot, "'..' between the bounds of the range"));
    ASSIGN_OR_RETURN(s.hi, ParseSignedInt("the upper bound of the range"));
    if (s.lo > s.hi) {
      return ErrorAt(
          lo_loc, absl::StrCat("empty range ", s.lo, "..", s.hi, " for parameter '",
                               s.name, "' (the lower bound must not exceed the upper)"));
    }
    RETURN_IF_ERROR(ExpectSemicolon("the parameter's range"));
    s.binds = true;
    names_[s.name] = NameInfo{Type::kInt, s.name_loc, "parameter", ""};
    return s;
  }

  absl::StatusOr<Stmt> ParseLet() {
    Stmt s;
    s.kind = StmtKind::kLet;
    s.loc = Advance().loc;  // 'let'
    ASSIGN_OR_RETURN(auto name, DeclName("a name after 'let'", true));
    s.name = name.first;
    s.name_loc = name.second;
    RETURN_IF_ERROR(
        Expect(TokenKind::kAssign, absl::StrCat("'=' after 'let ", s.name, "'")));
    ASSIGN_OR_RETURN(s.value, ParseExpr());
    RETURN_IF_ERROR(ExpectSemicolon(absl::StrCat("the value of '", s.name, "'")));
    s.binds = true;
    auto dep = InputDependence(*s.value);
    s.depends_on_input = dep.second != nullptr;
    names_[s.name] = NameInfo{s.value->type(), s.name_loc, "let-binding", dep.first};
    return s;
  }

  absl::StatusOr<Stmt> ParseClause(const ClauseSpec& spec) {
    Stmt s;
    s.kind = StmtKind::kClause;
    s.form = spec.form;
    s.keyword = spec.keyword;
    s.loc = Advance().loc;  // keyword
    std::string subject = spec.keyword;
    if (spec.form == ClauseForm::kNamed) {
      ASSIGN_OR_RETURN(
          auto name,
          DeclName(absl::StrCat("a name after '", spec.keyword, "'"), spec.binds));
      s.name = name.first;
      s.name_loc = name.second;
      subject = absl::StrCat(spec.keyword, " ", s.name);
      std::string key = absl::StrCat(spec.keyword, " ", s.name);
      auto [it, inserted] = clause_seen_.emplace(key, s.loc);
      if (!inserted) {
        return ErrorAt(s.name_loc, absl::StrCat("'", key, "' is already given at ",
                                                LocText(it->second)));
      }
      RETURN_IF_ERROR(
          Expect(TokenKind::kAssign, absl::StrCat("'=' after '", subject, "'")));
    } else {
      if (spec.at_most_once) {
        auto [it, inserted] = clause_seen_.emplace(spec.keyword, s.loc);
        if (!inserted) {
          return ErrorAt(s.loc, absl::StrCat("'", spec.keyword,
                                             "' may be given only once (first at ",
                                             LocText(it->second), ")"));
        }
      }
      if (spec.form == ClauseForm::kAssign) {
        RETURN_IF_ERROR(
            Expect(TokenKind::kAssign, absl::StrCat("'=' after '", spec.keyword, "'")));
      }
    }
    RETURN_IF_ERROR(CheckLexError());
    SourceLoc expr_loc = Cur().loc;
    ASSIGN_OR_RETURN(s.value, ParseExpr());
    RETURN_IF_ERROR(ExpectSemicolon(absl::StrCat("'", subject, "'")));
    if (s.value->type() != spec.type) {
      return ErrorAt(expr_loc,
                     absl::StrCat("'", subject, "' needs ",
                                  spec.type == Type::kInt ? "an int" : "a bool",
                                  " expression, got ", TypeName(s.value->type())));
    }
    auto dep = InputDependence(*s.value);
    s.depends_on_input = dep.second != nullptr;
    if (spec.scope == Scope::kParams && dep.second != nullptr) {
      const Expr& var = *dep.second;
      std::string why =
          var.name() == dep.first
              ? absl::StrCat("the input '", dep.first, "'")
              : absl::StrCat("'", var.name(), "', which depends on the input '",
                             dep.first, "'");
      return ErrorAt(var.loc(), absl::StrCat("'", subject,
                                             "' may use only parameters and values "
                                             "computed from them, not ",
                                             why));
    }
    if (spec.form == ClauseForm::kNamed && spec.binds) {
      s.binds = true;
      names_[s.name] = NameInfo{s.value->type(), s.name_loc, spec.keyword, dep.first};
    }
    return s;
  }

  // ---- expressions ----
  // Every node the parser builds goes through here. Besides type-checking, it bounds the
  // height of the tree: a flat chain `0 + 1 + 1 + ...` is parsed by a loop but builds a
  // left-leaning tree as deep as it is long, and every later walk of it (printer,
  // evaluators, the Z3 encoder) recurses once per level. So the height, not only the
  // bracket nesting, is limited (kMaxHeight operators on one root-to-leaf path; a
  // let-bound name counts as a leaf, since its value is its own tree).
  absl::StatusOr<ExprPtr> Build(ExprKind kind, std::vector<ExprPtr> ops, SourceLoc loc) {
    int height = 0;
    for (const ExprPtr& op : ops) height = std::max(height, HeightOf(op.get()));
    ++height;
    if (height > kMaxHeight) {
      return ErrorAt(loc, absl::StrCat("expression nested too deeply: more than ",
                                       kMaxHeight,
                                       " operators on one path (a long operator chain "
                                       "counts too); split it with let-bindings"));
    }
    absl::StatusOr<ExprPtr> e = Expr::Make(kind, std::move(ops), loc);
    if (!e.ok()) return ErrorAt(loc, e.status().message());
    heights_[e->get()] = height;
    return e;
  }

  // Ensures: the height of a node built by Build (leaves: 0).
  int HeightOf(const Expr* e) const {
    auto it = heights_.find(e);
    return it == heights_.end() ? 0 : it->second;
  }

  absl::StatusOr<ExprPtr> ParseExpr() { return ParseOr(); }

  absl::StatusOr<ExprPtr> ParseOr() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseAnd());
    while (Is(TokenKind::kOrOr)) {
      SourceLoc loc = Advance().loc;
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseAnd());
      ASSIGN_OR_RETURN(lhs, Build(ExprKind::kOr, {lhs, rhs}, loc));
    }
    return lhs;
  }

  absl::StatusOr<ExprPtr> ParseAnd() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseCmp());
    while (Is(TokenKind::kAndAnd)) {
      SourceLoc loc = Advance().loc;
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseCmp());
      ASSIGN_OR_RETURN(lhs, Build(ExprKind::kAnd, {lhs, rhs}, loc));
    }
    return lhs;
  }

  static bool CmpKind(TokenKind t, ExprKind* kind) {
    switch (t) {
      case TokenKind::kEqEq:
        *kind = ExprKind::kEq;
        return true;
      case TokenKind::kNotEq:
        *kind = ExprKind::kNe;
        return true;
      case TokenKind::kLess:
        *kind = ExprKind::kLt;
        return true;
      case TokenKind::kLessEq:
        *kind = ExprKind::kLe;
        return true;
      case TokenKind::kGreater:
        *kind = ExprKind::kGt;
        return true;
      case TokenKind::kGreaterEq:
        *kind = ExprKind::kGe;
        return true;
      default:
        return false;
    }
  }

  absl::StatusOr<ExprPtr> ParseCmp() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseSum());
    ExprKind kind;
    if (!CmpKind(Cur().kind, &kind)) return lhs;
    SourceLoc loc = Advance().loc;
    ASSIGN_OR_RETURN(ExprPtr rhs, ParseSum());
    ExprKind again;
    if (CmpKind(Cur().kind, &again)) {
      return ErrorAt(Cur().loc,
                     "comparisons do not chain: write 'a < b && b < c' instead of "
                     "'a < b < c'");
    }
    return Build(kind, {lhs, rhs}, loc);
  }

  absl::StatusOr<ExprPtr> ParseSum() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseTerm());
    while (Is(TokenKind::kPlus) || Is(TokenKind::kMinus)) {
      ExprKind kind = Is(TokenKind::kPlus) ? ExprKind::kAdd : ExprKind::kSub;
      SourceLoc loc = Advance().loc;
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseTerm());
      ASSIGN_OR_RETURN(lhs, Build(kind, {lhs, rhs}, loc));
    }
    return lhs;
  }

  absl::StatusOr<ExprPtr> ParseTerm() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseUnary());
    while (Is(TokenKind::kStar) || Is(TokenKind::kSlashSlash) ||
           Is(TokenKind::kPercent)) {
      ExprKind kind = Is(TokenKind::kStar)         ? ExprKind::kMul
                      : Is(TokenKind::kSlashSlash) ? ExprKind::kFloorDiv
                                                   : ExprKind::kMod;
      SourceLoc loc = Advance().loc;
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseUnary());
      ASSIGN_OR_RETURN(lhs, Build(kind, {lhs, rhs}, loc));
    }
    return lhs;
  }

  absl::StatusOr<ExprPtr> ParseUnary() {
    RETURN_IF_ERROR(CheckLexError());
    if (Is(TokenKind::kMinus) || Is(TokenKind::kBang)) {
      ExprKind kind = Is(TokenKind::kMinus) ? ExprKind::kNeg : ExprKind::kNot;
      SourceLoc loc = Advance().loc;
      if (++depth_ > kMaxDepth) return ErrorAt(loc, "expression nested too deeply");
      ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
      --depth_;
      return Build(kind, {operand}, loc);
    }
    return ParsePrimary();
  }

  absl::StatusOr<ExprPtr> ParsePrimary() {
    RETURN_IF_ERROR(CheckLexError());
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kInt:
        Advance();
        return Expr::IntConst(t.int_value, t.loc);
      case TokenKind::kLParen: {
        SourceLoc open = Advance().loc;
        if (++depth_ > kMaxDepth) return ErrorAt(open, "expression nested too deeply");
        ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        --depth_;
        RETURN_IF_ERROR(CheckLexError());
        if (!Is(TokenKind::kRParen)) {
          return ErrorAt(Cur().loc,
                         absl::StrCat("expected ')' to close the '(' at ", LocText(open),
                                      ", got ", Describe(Cur())));
        }
        Advance();
        return e;
      }
      case TokenKind::kIdent:
        return ParseName();
      default:
        return ErrorAt(t.loc, absl::StrCat("expected an expression, got ", Describe(t)));
    }
  }

  absl::StatusOr<ExprPtr> ParseName() {
    const Token t = Advance();
    if (t.text == "true") return Expr::BoolConst(true, t.loc);
    if (t.text == "false") return Expr::BoolConst(false, t.loc);
    ExprKind fn;
    int arity = 2;
    if (t.text == "min") {
      fn = ExprKind::kMin;
    } else if (t.text == "max") {
      fn = ExprKind::kMax;
    } else if (t.text == "cdiv") {
      fn = ExprKind::kCdiv;
    } else if (t.text == "select") {
      fn = ExprKind::kSelect;
      arity = 3;
    } else {
      if (Reserved(t.text)) {
        return ErrorAt(t.loc,
                       absl::StrCat("'", t.text, "' is a reserved word, not a value"));
      }
      auto it = names_.find(t.text);
      if (Is(TokenKind::kLParen)) {
        if (it != names_.end()) {
          return ErrorAt(
              t.loc, absl::StrCat("'", t.text,
                                  "' is not a function (functions: ", kFunctions, ")"));
        }
        return ErrorAt(t.loc, absl::StrCat("unknown function '", t.text,
                                           "' (functions: ", kFunctions, ")"));
      }
      if (it == names_.end()) {
        return ErrorAt(t.loc, absl::StrCat("undefined name '", t.text, "'"));
      }
      return Expr::Var(std::string(t.text), it->second.type, t.loc);
    }
    RETURN_IF_ERROR(CheckLexError());
    if (!Is(TokenKind::kLParen)) {
      return ErrorAt(t.loc, absl::StrCat("'", t.text, "' is a function; call it as ",
                                         t.text, arity == 3 ? "(c, a, b)" : "(a, b)"));
    }
    SourceLoc open = Advance().loc;
    if (++depth_ > kMaxDepth) return ErrorAt(open, "expression nested too deeply");
    std::vector<ExprPtr> args;
    if (!Is(TokenKind::kRParen)) {
      while (true) {
        ASSIGN_OR_RETURN(ExprPtr a, ParseExpr());
        args.push_back(std::move(a));
        RETURN_IF_ERROR(CheckLexError());
        if (Is(TokenKind::kComma)) {
          Advance();
          continue;
        }
        if (Is(TokenKind::kRParen)) break;
        return ErrorAt(Cur().loc,
                       absl::StrCat("expected ',' or ')' in the arguments of '", t.text,
                                    "', got ", Describe(Cur())));
      }
    }
    Advance();  // ')'
    --depth_;
    if (static_cast<int>(args.size()) != arity) {
      return ErrorAt(t.loc, absl::StrCat("'", t.text, "' takes ", arity,
                                         " arguments, got ", args.size()));
    }
    return Build(fn, std::move(args), t.loc);
  }

  static constexpr int kMaxDepth = 200;
  // The most operators on one path of an expression tree (see Build).
  static constexpr int kMaxHeight = kMaxExpressionHeight;

  absl::string_view source_name_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  const Dialect* dialect_;
  absl::flat_hash_map<std::string, NameInfo> names_;
  absl::flat_hash_map<std::string, SourceLoc> clause_seen_;
  int depth_ = 0;
  // Heights of the nodes built so far (they stay alive in the statements parsed).
  absl::flat_hash_map<const Expr*, int> heights_;
};

}  // namespace

bool IsReservedWord(absl::string_view word) {
  for (absl::string_view r : kReserved) {
    if (r == word) return true;
  }
  return false;
}

absl::StatusOr<Program> ParseProgram(absl::string_view source_name,
                                     absl::string_view text, const Dialect& dialect) {
  RETURN_IF_ERROR(base::CheckTextSize(text, source_name, kMaxProgramBytes, "a program"));
  for (const ClauseSpec& c : dialect.clauses) {
    if (IsReservedWord(c.keyword)) {
      return absl::InvalidArgumentError(
          absl::StrCat("dialect keyword '", c.keyword, "' clashes with a reserved word"));
    }
  }
  return Parser(source_name, text, &dialect).ParseProgram();
}

absl::StatusOr<ExprPtr> ParseExpr(
    absl::string_view source_name, absl::string_view text,
    const std::vector<std::pair<std::string, Type>>& names) {
  RETURN_IF_ERROR(base::CheckTextSize(text, source_name, kMaxProgramBytes, "an expression"));
  Parser p(source_name, text, nullptr);
  for (const auto& [name, type] : names) p.DeclareForExpr(name, type);
  return p.ParseStandaloneExpr();
}

}  // namespace warpcheck::sim::expr
