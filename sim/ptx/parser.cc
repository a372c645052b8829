#include "sim/ptx/parser.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/base/bits.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_limit.h"
#include "sim/ptx/lexer.h"

namespace warpcheck::sim::ptx {

namespace {

constexpr const char* kSpecialNames[] = {
    "%tid.x",       "%tid.y",       "%tid.z",       "%ntid.x",      "%ntid.y",
    "%ntid.z",      "%ctaid.x",     "%ctaid.y",     "%ctaid.z",     "%nctaid.x",
    "%nctaid.y",    "%nctaid.z",    "%laneid",      "%warpid",      "%nwarpid",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%clock",       "%clock64",     "%globaltimer"};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file)
      : toks_(std::move(tokens)), file_(std::move(file)) {}

  absl::StatusOr<Module> Run() {
    Module m;
    m.file = file_;
    while (Peek().kind != TokenKind::kEof) {
      RETURN_IF_ERROR(TopLevel(m));
    }
    return m;
  }

 private:
  // ---- token helpers
  // -------------------------------------------------------------------
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  const Token& Take() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  absl::Status ErrorAt(const Token& t, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_.empty() ? "<ptx>" : file_, ":",
                                                   t.line, ":", t.column, ": ", what));
  }
  absl::Status ErrorAt(SourceLoc loc, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        file_.empty() ? "<ptx>" : file_, ":", loc.line, ":", loc.column, ": ", what));
  }
  absl::Status Unexpected(const Token& t, absl::string_view wanted) const {
    if (t.kind == TokenKind::kError) return ErrorAt(t, t.error);
    return ErrorAt(t, absl::StrCat("expected ", wanted, ", found ", Describe(t)));
  }
  absl::Status Expect(char punct) {
    if (!Peek().Is(punct))
      return Unexpected(Peek(), absl::StrCat("'", std::string(1, punct), "'"));
    Take();
    return absl::OkStatus();
  }
  static SourceLoc Loc(const Token& t) { return SourceLoc{t.line, t.column}; }
  bool PeekDirective(const char* name) const {
    return Peek().kind == TokenKind::kDirective && Peek().text == name;
  }
  absl::StatusOr<int64_t> ExpectInt() {
    bool neg = false;
    if (Peek().Is('-')) {
      Take();
      neg = true;
    }
    if (Peek().kind != TokenKind::kInt) return Unexpected(Peek(), "an integer");
    int64_t v = static_cast<int64_t>(Take().bits);
    return neg ? -v : v;
  }
  // Skips the rest of the current line (for .loc / .file, which are line-oriented).
  void SkipLine(int line) {
    while (Peek().kind != TokenKind::kEof && Peek().line == line) Take();
  }
  // Skips a balanced { ... } block (debug sections).
  absl::Status SkipBlock() {
    RETURN_IF_ERROR(Expect('{'));
    int depth = 1;
    while (depth > 0) {
      const Token& t = Take();
      if (t.kind == TokenKind::kEof) return ErrorAt(t, "unterminated .section block");
      if (t.kind == TokenKind::kError) return ErrorAt(t, t.error);
      if (t.Is('{')) ++depth;
      if (t.Is('}')) --depth;
    }
    return absl::OkStatus();
  }

  // ---- module level
  // ---------------------------------------------------------------------
  absl::Status TopLevel(Module& m) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kError) return ErrorAt(t, t.error);
    if (t.kind != TokenKind::kDirective) return Unexpected(t, "a directive");
    const absl::string_view d = t.text;
    if (d == ".version") {
      Take();
      const Token& v = Take();
      if (v.kind != TokenKind::kF64 && v.kind != TokenKind::kInt) {
        return Unexpected(v, "a version number");
      }
      m.version = std::string(v.text);
      return absl::OkStatus();
    }
    if (d == ".target") {
      Take();
      std::vector<std::string> parts;
      while (true) {
        const Token& v = Take();
        if (v.kind != TokenKind::kIdent) return Unexpected(v, "a target name");
        parts.emplace_back(v.text);
        if (!Peek().Is(',')) break;
        Take();
      }
      m.target = absl::StrJoin(parts, ", ");
      return absl::OkStatus();
    }
    if (d == ".address_size") {
      Take();
      ASSIGN_OR_RETURN(int64_t v, ExpectInt());
      if (v != 64) return ErrorAt(t, "only .address_size 64 is supported");
      m.address_size = 64;
      return absl::OkStatus();
    }
    if (d == ".file" || d == ".loc") {
      Take();
      SkipLine(t.line);
      return absl::OkStatus();
    }
    if (d == ".section") {
      Take();
      if (Peek().kind != TokenKind::kDirective && Peek().kind != TokenKind::kIdent) {
        return Unexpected(Peek(), "a section name");
      }
      Take();
      return SkipBlock();
    }
    if (d == ".pragma") return SkipPragma();
    // Linkage, then .entry / .func / a variable.
    bool visible = false, is_extern = false;
    while (PeekDirective(".visible") || PeekDirective(".extern") ||
           PeekDirective(".weak") || PeekDirective(".common")) {
      const Token& w = Take();
      if (w.text == ".visible") visible = true;
      if (w.text == ".extern") is_extern = true;
      if (w.text == ".weak" || w.text == ".common") {
        return ErrorAt(
            w, absl::StrCat("linkage ", w.text, " is not supported in the PTX subset"));
      }
    }
    if (PeekDirective(".entry")) {
      if (is_extern) return ErrorAt(Peek(), ".extern .entry is not supported");
      Kernel k;
      k.is_visible = visible;
      RETURN_IF_ERROR(ParseEntry(k, m));
      m.kernels.push_back(std::move(k));
      return absl::OkStatus();
    }
    if (PeekDirective(".func")) {
      return ErrorAt(Peek(),
                     "device functions (.func) are not supported in the PTX subset");
    }
    if (PeekDirective(".shared") || PeekDirective(".global") || PeekDirective(".const")) {
      ASSIGN_OR_RETURN(Variable v, ParseVariable(is_extern, visible));
      for (const Variable& o : m.variables) {
        if (o.name == v.name)
          return ErrorAt(v.loc, absl::StrCat("'", v.name, "' redeclared"));
      }
      m.variables.push_back(std::move(v));
      return absl::OkStatus();
    }
    return ErrorAt(Peek(), absl::StrCat("directive '", Peek().text,
                                        "' is not supported in the PTX subset"));
  }

  absl::Status SkipPragma() {
    Take();
    while (Peek().kind == TokenKind::kString || Peek().Is(',')) Take();
    return Expect(';');
  }

  // [.extern] [.visible] .shared|.global|.const|.local [.align N] .type name[[N]]... [=
  // init];
  absl::StatusOr<Variable> ParseVariable(bool is_extern, bool visible) {
    Variable v;
    v.loc = Loc(Peek());
    v.is_extern = is_extern;
    v.is_visible = visible;
    const Token& sp = Take();
    if (sp.text == ".shared" || sp.text == ".shared::cta")
      v.space = Space::kShared;
    else if (sp.text == ".global")
      v.space = Space::kGlobal;
    else if (sp.text == ".const")
      v.space = Space::kConst;
    else if (sp.text == ".local")
      v.space = Space::kLocal;
    else
      return Unexpected(sp, "a state space");
    bool have_type = false;
    while (Peek().kind == TokenKind::kDirective) {
      const Token& w = Take();
      if (w.text == ".align") {
        ASSIGN_OR_RETURN(int64_t a, ExpectInt());
        if (!base::IsPowerOf2(a))
          return ErrorAt(w, ".align must be a power of two");
        v.align = static_cast<int>(a);
        continue;
      }
      std::optional<Type> ty = ParseType(w.text.substr(1));
      if (!ty.has_value() || *ty == Type::kPred || have_type) {
        return ErrorAt(
            w, absl::StrCat("'", w.text, "' is not supported in a variable declaration"));
      }
      v.type = *ty;
      have_type = true;
    }
    if (!have_type) return Unexpected(Peek(), "a variable type");
    if (Peek().kind != TokenKind::kIdent) return Unexpected(Peek(), "a variable name");
    v.name = std::string(Take().text);
    if (Peek().Is('[')) {
      v.count = 1;
      bool unsized = false;
      while (Peek().Is('[')) {
        const Token& open = Take();
        if (Peek().Is(']')) {
          if (!is_extern) return ErrorAt(open, "an unsized array must be .extern");
          unsized = true;
          Take();
          continue;
        }
        ASSIGN_OR_RETURN(int64_t n, ExpectInt());
        if (n <= 0) return ErrorAt(open, "array size must be positive");
        v.count *= n;
        RETURN_IF_ERROR(Expect(']'));
      }
      if (unsized) v.count = 0;
    }
    if (is_extern && !(v.space == Space::kShared && v.count == 0)) {
      return ErrorAt(
          v.loc, "only `.extern .shared NAME[]` (dynamic shared memory) is supported");
    }
    if (Peek().Is('=')) {
      const Token& eq = Take();
      if (v.space == Space::kShared || v.space == Space::kLocal) {
        return ErrorAt(eq, "shared and local variables cannot have initialisers");
      }
      RETURN_IF_ERROR(ParseInit(v));
      int64_t n = v.count < 0 ? 1 : v.count;
      if (static_cast<int64_t>(v.init.size()) > n) {
        return ErrorAt(eq, absl::StrCat("initialiser has ", v.init.size(), " values for ",
                                        n, " elements"));
      }
    }
    RETURN_IF_ERROR(Expect(';'));
    return v;
  }

  absl::Status ParseInit(Variable& v) {
    if (Peek().Is('{')) {
      Take();
      if (!Peek().Is('}')) {
        while (true) {
          RETURN_IF_ERROR(ParseInit(v));
          if (!Peek().Is(',')) break;
          Take();
        }
      }
      return Expect('}');
    }
    bool neg = false;
    if (Peek().Is('-')) {
      Take();
      neg = true;
    }
    const Token& t = Take();
    if (t.kind == TokenKind::kInt) {
      uint64_t b = t.bits;
      if (v.type == Type::kF32 || v.type == Type::kF64) {
        double d = neg ? -static_cast<double>(b) : static_cast<double>(b);
        b = FloatBits(d, v.type);
      } else if (neg) {
        b = ~b + 1;
      }
      v.init.push_back(b);
      return absl::OkStatus();
    }
    if (t.kind == TokenKind::kF32 || t.kind == TokenKind::kF64) {
      double d;
      if (t.kind == TokenKind::kF32) {
        float f;
        uint32_t b32 = static_cast<uint32_t>(t.bits);
        std::memcpy(&f, &b32, 4);
        d = f;
      } else {
        std::memcpy(&d, &t.bits, 8);
      }
      if (neg) d = -d;
      if (v.type != Type::kF32 && v.type != Type::kF64) {
        return ErrorAt(t, "float initialisers need an .f32 or .f64 variable");
      }
      v.init.push_back(FloatBits(d, v.type));
      return absl::OkStatus();
    }
    return Unexpected(t, "an initialiser value");
  }

  static uint64_t FloatBits(double d, Type t) {
    if (t == Type::kF64) {
      uint64_t b;
      std::memcpy(&b, &d, 8);
      return b;
    }
    float f = static_cast<float>(d);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;  // f16/bf16 initialisers are written as integers in practice
  }

  // .entry NAME ( params ) [perf directives] { body }
  absl::Status ParseEntry(Kernel& k, const Module& m) {
    const Token& e = Take();
    k.loc = Loc(e);
    if (Peek().kind != TokenKind::kIdent) return Unexpected(Peek(), "a kernel name");
    k.name = std::string(Take().text);
    for (const Kernel& o : m.kernels) {
      if (o.name == k.name)
        return ErrorAt(k.loc, absl::StrCat("kernel '", k.name, "' redeclared"));
    }
    if (Peek().Is('(')) {
      Take();
      if (!Peek().Is(')')) {
        while (true) {
          ASSIGN_OR_RETURN(Param p, ParseParam());
          for (const Param& o : k.params) {
            if (o.name == p.name)
              return ErrorAt(p.loc, absl::StrCat("parameter '", p.name, "' redeclared"));
          }
          k.params.push_back(std::move(p));
          if (!Peek().Is(',')) break;
          Take();
        }
      }
      RETURN_IF_ERROR(Expect(')'));
    }
    while (Peek().kind == TokenKind::kDirective) {
      const Token& d = Take();
      if (d.text == ".reqntid" || d.text == ".maxntid") {
        std::vector<int>& dims = d.text == ".reqntid" ? k.reqntid : k.maxntid;
        while (true) {
          ASSIGN_OR_RETURN(int64_t n, ExpectInt());
          if (n <= 0 || n > 1024) return ErrorAt(d, "thread count must be in [1, 1024]");
          dims.push_back(static_cast<int>(n));
          if (!Peek().Is(',')) break;
          Take();
        }
        if (dims.size() > 3) return ErrorAt(d, "at most three dimensions");
      } else if (d.text == ".minnctapersm") {
        ASSIGN_OR_RETURN(int64_t n, ExpectInt());
        k.minnctapersm = static_cast<int>(n);
      } else if (d.text == ".maxnreg") {
        ASSIGN_OR_RETURN(int64_t n, ExpectInt());
        k.maxnreg = static_cast<int>(n);
      } else {
        return ErrorAt(d, absl::StrCat("kernel directive '", d.text,
                                       "' is not supported in the PTX subset"));
      }
    }
    if (Peek().Is(';'))
      return ErrorAt(Peek(), "kernel declarations without a body are not supported");
    RETURN_IF_ERROR(Expect('{'));
    kernel_ = &k;
    module_ = &m;
    scopes_.clear();
    scopes_.emplace_back();
    label_refs_.clear();
    symbol_refs_.clear();
    labels_.clear();
    locals_.clear();
    RETURN_IF_ERROR(ParseBody(k));
    // Labels and symbols are checked once the whole body is known.
    for (const auto& [name, loc] : label_refs_) {
      if (!labels_.contains(name)) {
        return ErrorAt(loc, absl::StrCat("unknown label '", name, "'"));
      }
    }
    for (const auto& [name, loc] : symbol_refs_) {
      if (!IsKnownSymbol(name, k, m)) {
        return ErrorAt(loc, absl::StrCat("unknown symbol '", name, "'"));
      }
    }
    kernel_ = nullptr;
    return absl::OkStatus();
  }

  bool IsKnownSymbol(const std::string& name, const Kernel& k, const Module& m) const {
    for (const Param& p : k.params) {
      if (p.name == name) return true;
    }
    for (const Variable& v : m.variables) {
      if (v.name == name) return true;
    }
    return locals_.contains(name);
  }

  absl::StatusOr<Param> ParseParam() {
    Param p;
    p.loc = Loc(Peek());
    if (!PeekDirective(".param")) return Unexpected(Peek(), "'.param'");
    Take();
    bool have_type = false;
    while (Peek().kind == TokenKind::kDirective) {
      const Token& w = Take();
      if (w.text == ".align") {
        ASSIGN_OR_RETURN(int64_t a, ExpectInt());
        if (!base::IsPowerOf2(a))
          return ErrorAt(w, ".align must be a power of two");
        p.align = static_cast<int>(a);
      } else if (w.text == ".ptr") {
        p.is_ptr = true;
      } else if (w.text == ".global" || w.text == ".shared" || w.text == ".const" ||
                 w.text == ".local") {
        if (!p.is_ptr)
          return ErrorAt(w, "a state space on a parameter needs .ptr before it");
        p.ptr_space = w.text == ".global"   ? Space::kGlobal
                      : w.text == ".shared" ? Space::kShared
                      : w.text == ".const"  ? Space::kConst
                                            : Space::kLocal;
      } else {
        std::optional<Type> ty = ParseType(w.text.substr(1));
        if (!ty.has_value() || *ty == Type::kPred || have_type) {
          return ErrorAt(
              w,
              absl::StrCat("'", w.text, "' is not supported in a parameter declaration"));
        }
        p.type = *ty;
        have_type = true;
      }
    }
    if (!have_type) return Unexpected(Peek(), "a parameter type");
    if (Peek().kind != TokenKind::kIdent) return Unexpected(Peek(), "a parameter name");
    p.name = std::string(Take().text);
    if (Peek().Is('[')) {
      Take();
      ASSIGN_OR_RETURN(int64_t n, ExpectInt());
      if (n <= 0) return ErrorAt(Peek(), "array size must be positive");
      p.count = n;
      RETURN_IF_ERROR(Expect(']'));
    }
    return p;
  }

  // ---- kernel body
  // ----------------------------------------------------------------------
  absl::Status ParseBody(Kernel& k) {
    // At most one statement per ';', label or brace ahead (the body's statements are
    // large; growing the vector by doubling moved each several times).
    size_t bound = 0;
    for (size_t i = pos_; i < toks_.size(); ++i) {
      bound += toks_[i].Is(';') || toks_[i].Is(':') || toks_[i].Is('{') || toks_[i].Is('}');
    }
    k.body.reserve(k.body.size() + bound);
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kEof)
        return ErrorAt(t, "unterminated kernel body: missing '}'");
      if (t.kind == TokenKind::kError) return ErrorAt(t, t.error);
      if (t.Is('}')) {
        Take();
        if (scopes_.size() == 1) return absl::OkStatus();
        scopes_.pop_back();
        Statement s;
        s.kind = Statement::Kind::kScopeEnd;
        s.loc = Loc(t);
        k.body.push_back(std::move(s));
        continue;
      }
      RETURN_IF_ERROR(CountStatement(t));
      if (t.Is('{')) {
        if (scopes_.size() > static_cast<size_t>(kMaxPtxScopeDepth)) {
          return ErrorAt(t, absl::StrCat("blocks nest more than ", kMaxPtxScopeDepth,
                                         " deep, the most a PTX kernel may have"));
        }
        Statement s;
        s.kind = Statement::Kind::kScopeBegin;
        s.loc = Loc(t);
        Take();
        scopes_.emplace_back();
        k.body.push_back(std::move(s));
        continue;
      }
      if (t.kind == TokenKind::kDirective) {
        if (t.text == ".loc" || t.text == ".file") {
          Take();
          SkipLine(t.line);
          continue;
        }
        if (t.text == ".pragma") {
          RETURN_IF_ERROR(SkipPragma());
          continue;
        }
        if (t.text == ".reg") {
          RETURN_IF_ERROR(ParseRegDecl(k));
          continue;
        }
        if (t.text == ".local" || t.text == ".shared") {
          Statement s;
          s.kind = Statement::Kind::kVariable;
          s.loc = Loc(t);
          ASSIGN_OR_RETURN(s.var, ParseVariable(false, false));
          if (locals_.contains(s.var.name)) {
            return ErrorAt(s.loc, absl::StrCat("'", s.var.name, "' redeclared"));
          }
          locals_.insert(s.var.name);
          k.body.push_back(std::move(s));
          continue;
        }
        return ErrorAt(
            t, absl::StrCat("directive '", t.text,
                            "' is not supported inside a kernel in the PTX subset"));
      }
      if (t.kind == TokenKind::kIdent && Peek(1).Is(':')) {
        Statement s;
        s.kind = Statement::Kind::kLabel;
        s.loc = Loc(t);
        s.label = std::string(t.text);
        if (!labels_.insert(s.label).second) {
          return ErrorAt(t, absl::StrCat("label '", s.label, "' redefined"));
        }
        Take();
        Take();
        k.body.push_back(std::move(s));
        continue;
      }
      if (t.Is('@') || t.kind == TokenKind::kIdent) {
        Statement& s = k.body.emplace_back();  // in place: statements are large
        s.kind = Statement::Kind::kInstruction;
        s.loc = Loc(t);
        RETURN_IF_ERROR(ParseInstruction(s.insn));
        continue;
      }
      return Unexpected(t, "an instruction, label or declaration");
    }
  }

  absl::Status ParseRegDecl(Kernel& k) {
    const Token& reg = Take();
    Statement s;
    s.kind = Statement::Kind::kRegDecl;
    s.loc = Loc(reg);
    if (Peek().kind != TokenKind::kDirective)
      return Unexpected(Peek(), "a register type");
    const Token& ty_tok = Take();
    std::optional<Type> ty = ParseType(ty_tok.text.substr(1));
    if (!ty.has_value() || *ty == Type::kB128) {
      return ErrorAt(ty_tok, absl::StrCat("register type '", ty_tok.text,
                                          "' is not supported in the PTX subset"));
    }
    while (true) {
      const Token& name = Take();
      if (name.kind != TokenKind::kIdent) return Unexpected(name, "a register name");
      RegDecl d;
      d.type = *ty;
      d.name = std::string(name.text);
      if (Peek().Is('<')) {
        Take();
        ASSIGN_OR_RETURN(int64_t n, ExpectInt());
        if (n <= 0 || n > (1 << 20)) return ErrorAt(name, "register range out of bounds");
        d.count = static_cast<int>(n);
        RETURN_IF_ERROR(Expect('>'));
        scopes_.back().reserve(scopes_.back().size() + d.count);
        k.registers.reserve(k.registers.size() + d.count);
        for (int i = 0; i < d.count; ++i) {
          RETURN_IF_ERROR(Declare(k, absl::StrCat(d.name, i), *ty, name));
        }
      } else {
        RETURN_IF_ERROR(Declare(k, d.name, *ty, name));
      }
      s.regs.push_back(std::move(d));
      if (!Peek().Is(',')) break;
      Take();
    }
    RETURN_IF_ERROR(Expect(';'));
    k.body.push_back(std::move(s));
    return absl::OkStatus();
  }

  // Every statement of a body counts against kMaxPtxStatements (at its first token).
  absl::Status CountStatement(const Token& at) {
    if (++statements_ <= kMaxPtxStatements) return absl::OkStatus();
    return ErrorAt(at, absl::StrCat("more than ", kMaxPtxStatements,
                                    " statements, the most a PTX module may have"));
  }

  absl::Status Declare(Kernel& k, std::string name, Type ty, const Token& at) {
    if (k.registers.size() >= kMaxPtxRegisters) {
      return ErrorAt(at, absl::StrCat("more than ", kMaxPtxRegisters,
                                      " registers declared, the most a PTX kernel may have"));
    }
    const int id = static_cast<int>(k.registers.size());
    if (!scopes_.back().try_emplace(name, id).second) {
      return ErrorAt(at,
                     absl::StrCat("register '", name, "' redeclared in the same scope"));
    }
    k.registers.push_back(Register{std::move(name), ty, static_cast<int>(scopes_.size()) - 1});
    return absl::OkStatus();
  }

  int Lookup(absl::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return -1;
  }

  absl::Status ParseInstruction(Instruction& in) {
    if (Peek().Is('@')) {
      Take();
      Operand g;
      g.loc = Loc(Peek());
      if (Peek().Is('!')) {
        Take();
        g.negated = true;
      }
      const Token& p = Take();
      if (p.kind != TokenKind::kIdent) return Unexpected(p, "a predicate register");
      g.name = std::string(p.text);
      g.reg = Lookup(p.text);
      if (g.reg < 0)
        return ErrorAt(p, absl::StrCat("undeclared register '", p.text, "'"));
      if (kernel_->registers[g.reg].type != Type::kPred) {
        return ErrorAt(p, absl::StrCat("guard '", p.text, "' is not a .pred register"));
      }
      in.guard = std::move(g);
    }
    const Token& op = Take();
    if (op.kind != TokenKind::kIdent) return Unexpected(op, "an instruction");
    in.loc = Loc(op);
    in.opcode_text = std::string(op.text);
    absl::StatusOr<ParsedOpcode> parsed = ParseOpcode(op.text);
    if (!parsed.ok()) return ErrorAt(op, parsed.status().message());
    in.op = parsed->op;
    in.mods = std::move(parsed->mods);
    if (!Peek().Is(';')) {
      in.operands.reserve(4);  // most instructions have 2-4 (operands are large)
      while (true) {
        ASSIGN_OR_RETURN(Operand o, ParseOperand());
        in.operands.push_back(std::move(o));
        if (!Peek().Is(',')) break;
        Take();
      }
    }
    RETURN_IF_ERROR(Expect(';'));
    RETURN_IF_ERROR(CheckShapes(in, op));
    // Record label and symbol references for the end-of-body check.
    for (size_t i = 0; i < in.operands.size(); ++i) {
      Operand& o = in.operands[i];
      if (o.kind == OperandKind::kSymbol) {
        if (IsLabelOperand(in.op, i)) {
          label_refs_.emplace_back(o.name, o.loc);
        } else {
          symbol_refs_.emplace_back(o.name, o.loc);
        }
      } else if (o.kind == OperandKind::kAddress && !o.base_is_reg && !o.name.empty()) {
        symbol_refs_.emplace_back(o.name, o.loc);
      }
    }
    return absl::OkStatus();
  }

  // The shape letters of one form of an op's operands ("d,s,s" -> "dss"); at most 16
  // (no op has more operands). Ensures: the letter count.
  static int FormLetters(absl::string_view form, char letters[16]) {
    int n = 0;
    for (absl::string_view piece : absl::StrSplit(form, ',', absl::SkipEmpty())) {
      if (n < 16) letters[n] = piece[0];
      ++n;
    }
    return n;
  }

  // The shape letters of each form of `op`'s operands ("d,s,s|d,s" -> "dss", "ds"; at
  // most 16 kept, as FormLetters), split once per opcode and thread.
  struct Form {
    char letters[16];
    int n;
  };
  static const std::vector<Form>& FormsOf(Opcode op) {
    thread_local absl::flat_hash_map<int, std::vector<Form>> cache;
    auto [it, fresh] = cache.try_emplace(static_cast<int>(op));
    if (fresh) {
      for (absl::string_view form : absl::StrSplit(Desc(op).operands, '|')) {
        Form f;
        f.n = FormLetters(form, f.letters);
        it->second.push_back(f);
      }
    }
    return it->second;
  }

  static bool IsLabelOperand(Opcode op, size_t index) {
    for (const Form& f : FormsOf(op)) {
      if (index < static_cast<size_t>(std::min(f.n, 16)) && f.letters[index] == 'l') return true;
    }
    return false;
  }

  // Whether operand `o` fits the shape letter `c` (see op_table.h).
  static bool Fits(const Operand& o, char c) {
    bool plain_reg = o.kind == OperandKind::kReg && !o.negated;
    switch (c) {
      case 'd':
      case 'p':
        return plain_reg || o.kind == OperandKind::kSink;
      case 'P':
      case 'D':
        if (o.kind == OperandKind::kPair) {
          for (const Operand& e : o.elems) {
            if (!(e.kind == OperandKind::kSink ||
                  (e.kind == OperandKind::kReg && !e.negated))) {
              return false;
            }
          }
          return true;
        }
        return plain_reg || o.kind == OperandKind::kSink;
      case 's':
        return plain_reg || o.kind == OperandKind::kImm || o.kind == OperandKind::kSymbol;
      case 'S':
        return plain_reg || o.kind == OperandKind::kImm ||
               o.kind == OperandKind::kSymbol || o.kind == OperandKind::kSpecial ||
               o.kind == OperandKind::kVector;
      case 'q':
        return o.kind == OperandKind::kReg;
      case 'V':
        return plain_reg || o.kind == OperandKind::kVector ||
               o.kind == OperandKind::kSink || o.kind == OperandKind::kImm;
      case 'a':
        return o.kind == OperandKind::kAddress;
      case 'l':
        return o.kind == OperandKind::kSymbol;
      case 'i':
        return o.kind == OperandKind::kImm && o.imm_kind == ImmKind::kInt;
    }
    return false;
  }

  absl::Status CheckShapes(const Instruction& in, const Token& op) const {
    const char* forms = Desc(in.op).operands;
    for (const Form& f : FormsOf(in.op)) {
      const int n = f.n;
      if (n > 16 || static_cast<size_t>(n) != in.operands.size()) continue;
      for (int i = 0; i < n; ++i) {
        if (!Fits(in.operands[i], f.letters[i])) {
          return ErrorAt(in.operands[i].loc, absl::StrCat("operand ", i + 1, " of '",
                                                          in.opcode_text,
                                                          "' has the wrong kind"));
        }
      }
      return absl::OkStatus();
    }
    std::vector<std::string> counts;
    for (absl::string_view form : absl::StrSplit(forms, '|')) {
      char letters[16];
      counts.push_back(absl::StrCat(FormLetters(form, letters)));
    }
    return ErrorAt(
        op, absl::StrCat("'", in.opcode_text, "' takes ", absl::StrJoin(counts, " or "),
                         " operands, found ", in.operands.size()));
  }

  absl::StatusOr<Operand> ParseImmediate(bool neg) {
    const Token& t = Take();
    Operand o;
    o.kind = OperandKind::kImm;
    o.loc = Loc(t);
    if (t.kind == TokenKind::kInt) {
      o.imm_kind = ImmKind::kInt;
      o.bits = neg ? ~t.bits + 1 : t.bits;
      o.hex = t.hex;
      return o;
    }
    if (t.kind == TokenKind::kF32) {
      o.imm_kind = ImmKind::kF32;
      o.bits = neg ? t.bits ^ 0x80000000u : t.bits;
      return o;
    }
    if (t.kind == TokenKind::kF64) {
      o.imm_kind = ImmKind::kF64;
      o.bits = neg ? t.bits ^ 0x8000000000000000ull : t.bits;
      return o;
    }
    return Unexpected(t, "a number");
  }

  // A register, `_`, a special register or a symbol (when allow_symbol).
  absl::StatusOr<Operand> ParseNamed(const Token& t) {
    Operand o;
    o.loc = Loc(t);
    if (t.text == "_") {
      o.kind = OperandKind::kSink;
      return o;
    }
    if (t.text[0] == '%') {
      int id = Lookup(t.text);
      if (id >= 0) {
        o.kind = OperandKind::kReg;
        o.name = std::string(t.text);
        o.reg = id;
        return o;
      }
      if (std::optional<SpecialReg> sr = ParseSpecialReg(t.text); sr.has_value()) {
        o.kind = OperandKind::kSpecial;
        o.special = *sr;
        o.name = std::string(t.text);
        return o;
      }
      return ErrorAt(t, absl::StrCat("undeclared register '", t.text, "'"));
    }
    o.kind = OperandKind::kSymbol;
    o.name = std::string(t.text);
    return o;
  }

  absl::StatusOr<Operand> ParseOperand() {
    const Token& t = Peek();
    if (t.kind == TokenKind::kError) return ErrorAt(t, t.error);
    if (t.Is('{')) {
      Operand v;
      v.kind = OperandKind::kVector;
      v.loc = Loc(Take());
      while (true) {
        const Token& e = Peek();
        if (e.Is('-')) {
          Take();
          ASSIGN_OR_RETURN(Operand imm, ParseImmediate(true));
          v.elems.push_back(std::move(imm));
        } else if (e.kind == TokenKind::kInt || e.kind == TokenKind::kF32 ||
                   e.kind == TokenKind::kF64) {
          ASSIGN_OR_RETURN(Operand imm, ParseImmediate(false));
          v.elems.push_back(std::move(imm));
        } else if (e.kind == TokenKind::kIdent) {
          Take();
          ASSIGN_OR_RETURN(Operand r, ParseNamed(e));
          if (r.kind != OperandKind::kReg && r.kind != OperandKind::kSink) {
            return ErrorAt(e, "vector elements must be registers, '_' or immediates");
          }
          v.elems.push_back(std::move(r));
        } else {
          return Unexpected(e, "a vector element");
        }
        if (!Peek().Is(',')) break;
        Take();
      }
      RETURN_IF_ERROR(Expect('}'));
      if (v.elems.size() != 1 && v.elems.size() != 2 && v.elems.size() != 4 &&
          v.elems.size() != 8) {
        return ErrorAt(v.loc, "a vector has 1, 2, 4 or 8 elements");
      }
      return v;
    }
    if (t.Is('[')) {
      Operand a;
      a.kind = OperandKind::kAddress;
      a.loc = Loc(Take());
      const Token& b = Peek();
      if (b.kind == TokenKind::kIdent) {
        Take();
        ASSIGN_OR_RETURN(Operand base, ParseNamed(b));
        if (base.kind == OperandKind::kReg) {
          if (kernel_->registers[base.reg].type == Type::kPred) {
            return ErrorAt(b, "an address register cannot be a predicate");
          }
          a.base_is_reg = true;
          a.reg = base.reg;
          a.name = base.name;
        } else if (base.kind == OperandKind::kSymbol) {
          a.name = base.name;
        } else {
          return ErrorAt(b, "an address base must be a register or a symbol");
        }
        if (Peek().Is('+')) {
          Take();
          ASSIGN_OR_RETURN(a.offset, ExpectInt());
          a.zero_offset_written = a.offset == 0;
        } else if (Peek().Is('-')) {
          Take();
          ASSIGN_OR_RETURN(int64_t off, ExpectInt());
          a.offset = -off;
          a.zero_offset_written = a.offset == 0;
        }
      } else {
        ASSIGN_OR_RETURN(a.offset, ExpectInt());
      }
      RETURN_IF_ERROR(Expect(']'));
      return a;
    }
    if (t.Is('!')) {
      Take();
      const Token& r = Take();
      if (r.kind != TokenKind::kIdent) return Unexpected(r, "a predicate register");
      ASSIGN_OR_RETURN(Operand o, ParseNamed(r));
      if (o.kind != OperandKind::kReg || kernel_->registers[o.reg].type != Type::kPred) {
        return ErrorAt(r, "'!' applies to predicate registers only");
      }
      o.negated = true;
      o.loc = Loc(t);
      return o;
    }
    if (t.Is('-')) {
      Take();
      return ParseImmediate(true);
    }
    if (t.kind == TokenKind::kInt || t.kind == TokenKind::kF32 ||
        t.kind == TokenKind::kF64) {
      return ParseImmediate(false);
    }
    if (t.kind == TokenKind::kIdent) {
      Take();
      ASSIGN_OR_RETURN(Operand o, ParseNamed(t));
      if (Peek().Is('|')) {
        Take();
        const Token& second = Take();
        if (second.kind != TokenKind::kIdent)
          return Unexpected(second, "a predicate register");
        ASSIGN_OR_RETURN(Operand q, ParseNamed(second));
        Operand pair;
        pair.kind = OperandKind::kPair;
        pair.loc = o.loc;
        pair.elems.push_back(std::move(o));
        pair.elems.push_back(std::move(q));
        return pair;
      }
      return o;
    }
    return Unexpected(t, "an operand");
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string file_;
  Kernel* kernel_ = nullptr;
  const Module* module_ = nullptr;
  size_t statements_ = 0;  // CountStatement
  std::vector<absl::flat_hash_map<std::string, int>> scopes_;
  std::vector<std::pair<std::string, SourceLoc>> label_refs_;
  std::vector<std::pair<std::string, SourceLoc>> symbol_refs_;
  absl::flat_hash_set<std::string> labels_;
  absl::flat_hash_set<std::string> locals_;
};

void ClearOperand(Operand& o) {
  o.loc = SourceLoc{};
  for (Operand& e : o.elems) ClearOperand(e);
}

}  // namespace

const char* SpecialRegName(SpecialReg r) { return kSpecialNames[int(r)]; }

std::optional<SpecialReg> ParseSpecialReg(absl::string_view name) {
  for (int i = 0; i < int(sizeof(kSpecialNames) / sizeof(kSpecialNames[0])); ++i) {
    if (name == kSpecialNames[i]) return SpecialReg(i);
  }
  return std::nullopt;
}

int SpecialRegBits(SpecialReg r) {
  return (r == SpecialReg::kClock64 || r == SpecialReg::kGlobaltimer) ? 64 : 32;
}

absl::StatusOr<Module> ParseModule(absl::string_view text, const std::string& file_name) {
  RETURN_IF_ERROR(base::CheckTextSize(text, file_name.empty() ? "<ptx>" : file_name,
                                      kMaxPtxBytes, "a PTX module"));
  Parser p(Lex(text, kMaxPtxTokens), file_name);
  return p.Run();
}

absl::StatusOr<Module> ParseModuleFile(const std::string& path) {
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok())
    return absl::NotFoundError(absl::StrCat(path, ": cannot open PTX file"));
  return ParseModule(*text, path);
}

void ClearLocations(Module* module) {
  for (Variable& v : module->variables) v.loc = SourceLoc{};
  for (Kernel& k : module->kernels) {
    k.loc = SourceLoc{};
    for (Param& p : k.params) p.loc = SourceLoc{};
    for (Statement& s : k.body) {
      s.loc = SourceLoc{};
      s.var.loc = SourceLoc{};
      s.insn.loc = SourceLoc{};
      if (s.insn.guard.has_value()) ClearOperand(*s.insn.guard);
      for (Operand& o : s.insn.operands) ClearOperand(o);
    }
  }
}

}  // namespace warpcheck::sim::ptx
