#include "sim/ptx/codegen.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "sim/base/check.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/triton_floor.h"
#include "sim/ptx/printer.h"

namespace warpcheck::sim::ptx {

namespace {

using plan::ConversionPlan;
using plan::ConversionProblem;
using plan::FlatLayout;
using plan::Op;
using plan::OpKind;
using plan::Program;
using plan::SetupValue;
using plan::WordView;

// A register of the harness: %pN, %rN or %rdN (declared as %p<..>, %r<..>, %rd<..>).
struct Reg {
  enum class Class : uint8_t { kNone, kPred, kB32, kB64 };
  Class cls = Class::kNone;
  int n = 0;
  bool valid() const { return cls != Class::kNone; }
  // A number per register (the writer's record keeps registers so): n and the class.
  int Code() const { return n * 4 + static_cast<int>(cls); }
  friend auto operator<=>(const Reg&, const Reg&) = default;
};

constexpr absl::string_view kRegPrefix[] = {"", "%p", "%r", "%rd"};

// The registers of one vector operand (at most four: 16 bytes of 32-bit words).
using Regs = absl::InlinedVector<Reg, 4>;

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// WriteDecimal's digits of u >= 1000 (out of line: few numbers are that long).
[[gnu::noinline]] char* WriteLongDecimal(char* p, uint64_t u) {
  char digits[20];
  char* d = digits + sizeof(digits);
  while (u >= 100) {
    d -= 2;
    std::memcpy(d, kDigitPairs + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) {
    d -= 2;
    std::memcpy(d, kDigitPairs + 2 * u, 2);
  } else {
    *--d = static_cast<char>('0' + u);
  }
  while (d < digits + sizeof(digits)) *p++ = *d++;
  return p;
}

// Writes `v` in decimal at p, two digits at a time (register numbers and immediates are
// most of the text; the short ones, nearly all, are written inline without a call).
// Ensures: the end of the digits (at most 20 characters and a sign).
inline char* WriteDecimal(char* p, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  if (u < 10) {
    *p++ = static_cast<char>('0' + u);
    return p;
  }
  if (u < 100) {
    std::memcpy(p, kDigitPairs + 2 * u, 2);
    return p + 2;
  }
  if (u < 1000) {
    *p++ = static_cast<char>('0' + u / 100);
    std::memcpy(p, kDigitPairs + 2 * (u % 100), 2);
    return p + 2;
  }
  return WriteLongDecimal(p, u);
}

// Writes `s` at p. Ensures: the end. The texts are short (opcodes, register prefixes,
// symbols) and a memcpy call of a variable size costs more than copying them, so the
// copies here are of fixed sizes the compiler inlines: two overlapping ones cover 4 to
// 16 bytes (first and last 4 or 8), longer texts go 8 bytes at a time.
char* WriteText(char* p, absl::string_view s) {
  const char* d = s.data();
  const size_t n = s.size();
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) std::memcpy(p + i, d + i, 8);
    std::memcpy(p + n - 8, d + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(p, d, 4);
    std::memcpy(p + n - 4, d + n - 4, 4);
  } else {
    for (size_t i = 0; i < n; ++i) p[i] = d[i];
  }
  return p + n;
}

// A register's name (`%rd12`) at p, from its code (Reg::Code). Ensures: the end.
char* FormatRegName(char* p, int code) {
  return WriteDecimal(WriteText(p, kRegPrefix[code & 3]), code >> 2);
}

// Register names by code, formatted once per thread: each entry is 8 bytes, the name's
// up to 7 characters and their count in the last byte, so a name is written as one
// 8-byte copy (register names are most of a harness's text; its prefix and digits cost
// ~40 instructions a name). Codes past the table's (names of 8 characters, %rd10000 on)
// are formatted. A RegNames reads the thread's table: it stays valid until the thread
// makes another one that grows the table (the writers make one at a time).
class RegNames {
 public:
  // Ensures: the thread's table holds every code below `codes` that fits.
  explicit RegNames(int codes) {
    thread_local std::vector<uint64_t> table;
    const size_t want = static_cast<size_t>(std::min(codes, kMaxCodes));
    if (table.size() < want) {
      size_t code = table.size();
      table.resize(std::max(want, 2 * table.size()));
      for (; code < table.size(); ++code) {
        char text[24];
        const size_t n = static_cast<size_t>(FormatRegName(text, static_cast<int>(code)) - text);
        static_assert(std::endian::native == std::endian::little);
        uint64_t entry = uint64_t{n} << 56;
        std::memcpy(&entry, text, n);  // the text in the low bytes, the count on top
        table[code] = entry;
      }
    }
    table_ = table.data();
    size_ = static_cast<int>(table.size());
  }
  // Ensures: the end. Requires: 8 bytes of room at p.
  char* Write(char* p, int code) const {
    if (code >= size_) return FormatRegName(p, code);
    const uint64_t entry = table_[code];
    std::memcpy(p, &entry, 8);
    return p + (entry >> 56);
  }

 private:
  static constexpr int kMaxCodes = 4 * 10000;  // %rd9999: 7 characters
  const uint64_t* table_;
  int size_;
};

// An opcode spelling the writer uses: its text and ParseOpcode of it, made once per thread
// and handed out by pointer (ParseOpcode returns its Modifiers by value in a StatusOr;
// the tree copies them from here). The spellings are this file's own, a small set.
struct Spelling {
  std::string text;
  ParsedOpcode parsed;
};
const Spelling* SpellByMap(absl::string_view opcode) {
  thread_local absl::node_hash_map<std::string, Spelling> cache;
  auto it = cache.find(opcode);
  if (it == cache.end()) {
    auto parsed = ParseOpcode(opcode);
    // The spellings are this file's own; a typo would show in every test.
    WARPCHECK_CHECK(parsed.ok()) << parsed.status();
    it = cache.emplace(std::string(opcode), Spelling{std::string(opcode), *std::move(parsed)})
             .first;
  }
  return &it->second;
}

// SpellByMap behind a direct-mapped cache of plain pointers: the parametrised spellings
// (`st.shared.v4.b32`, one per shared access) were hashed and looked up in the map at
// ~200 instructions each. The slot is picked from the first and last 8 bytes and the
// length, and the spelling's text is compared, so a collision only costs a map lookup.
const Spelling* Spell(absl::string_view opcode) {
  const size_t n = opcode.size();
  uint64_t head = n, tail = 0;
  if (n >= 8) {
    std::memcpy(&tail, opcode.data() + n - 8, 8);
    uint64_t first;
    std::memcpy(&first, opcode.data(), 8);
    head ^= first;
  } else {
    for (char c : opcode) tail = tail << 8 | static_cast<unsigned char>(c);
  }
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15u;
  thread_local const Spelling* slots[64];
  const Spelling*& slot = slots[((head * kMul) ^ tail) * kMul >> 58];
  if (slot == nullptr || slot->text != opcode) slot = SpellByMap(opcode);
  return slot;
}

// An opcode spelled from parts (`st.shared` `.v4` `.b32`) on the stack, as a StrCat would
// have made it (a heap string for every spelling over 15 characters).
class OpcodeText {
 public:
  OpcodeText& operator<<(absl::string_view s) {
    WARPCHECK_CHECK(n_ + s.size() <= sizeof(buf_));
    n_ = static_cast<size_t>(WriteText(buf_ + n_, s) - buf_);
    return *this;
  }
  OpcodeText& operator<<(int64_t v) {
    WARPCHECK_CHECK(n_ + 20 <= sizeof(buf_));
    n_ = static_cast<size_t>(WriteDecimal(buf_ + n_, v) - buf_);
    return *this;
  }
  operator absl::string_view() const { return absl::string_view(buf_, n_); }

 private:
  char buf_[64];
  size_t n_ = 0;
};

// An opcode where the writer is called: a string literal, looked up by its address (a
// literal keeps its text for the program's life; hashing the text of every instruction
// was a tenth of emitting), or a spelling built from parts, looked up by its text.
class Opc {
 public:
  template <size_t N>
  Opc(const char (&literal)[N]) {  // NOLINT: implicit, call sites pass literals
    // A direct-mapped cache of plain pointers in front of the map (which has a
    // thread_local constructor to check on every use, and a hash): most instructions hit.
    struct Slot {
      const char* literal;
      const Spelling* spelling;
    };
    thread_local Slot cache[64];
    Slot& slot = cache[(reinterpret_cast<uintptr_t>(literal) >> 2) % 64];
    if (slot.literal != literal) slot = Slot{literal, ByAddress(literal, N - 1)};
    spelling_ = slot.spelling;
  }
  Opc(const OpcodeText& text) : spelling_(Spell(text)) {}   // NOLINT: implicit
  Opc(const Spelling* spelling) : spelling_(spelling) {}     // NOLINT: implicit
  Opc(const std::string& text) : spelling_(Spell(text)) {}  // NOLINT: implicit
  const Spelling* spelling() const { return spelling_; }

 private:
  static const Spelling* ByAddress(const char* literal, size_t size) {
    thread_local absl::flat_hash_map<const char*, const Spelling*> by_address;
    const Spelling*& s = by_address[literal];
    if (s == nullptr) s = Spell(absl::string_view(literal, size));
    return s;
  }
  const Spelling* spelling_;
};

// An operand as the writer records it (Operand, ~112 bytes with a name string, is made
// only for the tree). Registers are codes (Reg::Code): their indices in
// Kernel::registers are known only once every register is.
struct Arg {
  enum class Kind : uint8_t {
    kReg,      // regs[0]
    kImm,      // value
    kSpecial,  // special
    kSymbol,   // symbol
    kVector,   // {regs[0], ..., regs[count-1]}
    kAddress,  // [regs[0]] or [regs[0]+value]; `+0` written when write_zero
    kParam,    // [symbol]
  };
  // No default member initialisers, so that a record's unused operand slots stay
  // uninitialised (Writer::Recorded); the Writer's factories make each one from `Arg{}`,
  // all zero: a register operand %p0.
  Kind kind;
  uint8_t count;
  bool write_zero;
  SpecialReg special;
  int32_t regs[4];
  int64_t value;
  const char* symbol;
};

// Records the harness kernel's body instruction by instruction; from the record it makes
// the tree (ast.h) as the parser would have read it from the printed text (opcodes
// resolved by ParseOpcode, register operands resolved to Kernel::registers), or that
// text itself, without the tree (EmitHarness; ptx_printer_test checks on every corpus
// pair that it is PrintModule of the tree).
class Writer {
 public:
  // `instructions`: a guess of the body's length.
  explicit Writer(size_t instructions) { insns_.reserve(instructions); }

  Reg NewReg() { return Reg{Reg::Class::kB32, nr_++}; }
  Reg NewPred() { return Reg{Reg::Class::kPred, np_++}; }
  Reg NewWide() { return Reg{Reg::Class::kB64, nd_++}; }

  static Arg R(Reg r) {
    Arg a{};
    a.regs[0] = r.Code();
    return a;
  }
  static Arg Imm(int64_t v) {
    Arg a{};
    a.kind = Arg::Kind::kImm;
    a.value = v;
    return a;
  }
  static Arg Symbol(const char* name) {
    Arg a{};
    a.kind = Arg::Kind::kSymbol;
    a.symbol = name;
    return a;
  }
  static Arg Special(SpecialReg s) {
    Arg a{};
    a.kind = Arg::Kind::kSpecial;
    a.special = s;
    return a;
  }
  // `[base+offset]`; a zero offset is written when write_zero (`[base+0]`).
  static Arg Addr(Reg base, int64_t offset, bool write_zero) {
    Arg a = R(base);
    a.kind = Arg::Kind::kAddress;
    a.value = offset;
    a.write_zero = write_zero && offset == 0;
    return a;
  }
  static Arg ParamAddr(const char* param) {
    Arg a{};
    a.kind = Arg::Kind::kParam;
    a.symbol = param;
    return a;
  }
  // `{a, b, ...}` (at most four); one register alone is written bare unless `braces`.
  static Arg Vec(absl::Span<const Reg> regs, bool braces = false) {
    if (regs.size() == 1 && !braces) return R(regs[0]);
    WARPCHECK_CHECK(!regs.empty() && regs.size() <= 4) << regs.size() << " registers";
    Arg a{};
    a.kind = Arg::Kind::kVector;
    a.count = static_cast<uint8_t>(regs.size());
    for (size_t i = 0; i < regs.size(); ++i) a.regs[i] = regs[i].Code();
    return a;
  }

  // One instruction, `@guard opcode operands;` (guard: a predicate, or none).
  template <typename... A>
  void Guarded(std::optional<Reg> guard, Opc opcode, const A&... args) {
    static_assert(sizeof...(A) <= 5);
    Recorded& in = insns_.emplace_back(opcode.spelling(), nullptr,
                                       guard.has_value() ? guard->Code() : -1, sizeof...(A));
    int i = 0;
    ((in.args[i++] = args), ...);
  }
  template <typename... A>
  void Insn(Opc opcode, const A&... args) {
    Guarded(std::nullopt, opcode, args...);
  }
  void Label(const char* name) { insns_.emplace_back(nullptr, name, -1, 0); }

  // The body's opening register declarations are kDeclarations statements; size() more
  // follow them (a tree's body is reserved so: growing it moves ~440-byte statements).
  static constexpr size_t kDeclarations = 3;
  size_t size() const { return insns_.size(); }

  // Appends the body's opening register declarations (at least one register of each
  // class) to `body`.
  void AppendDeclarations(std::vector<Statement>* body) const {
    for (int c = 1; c <= 3; ++c) {
      Statement& s = body->emplace_back();
      s.kind = Statement::Kind::kRegDecl;
      s.regs.push_back(RegDecl{kTypes[c], std::string(kRegPrefix[c]), Count(c)});
    }
  }

  // Appends the rest of the body (after its opening declarations) to k's tree, with every
  // register declared in k->registers and every register operand resolved to it, and
  // every statement at its line and column as PrintModule writes it: the body is one
  // statement a line from `first_line` on (the line after the blank one that ends the
  // declarations), instructions indented by a tab, labels not (LocateAsPrinted's walk,
  // done here for the body's ~200 statements as they are made).
  void AppendTree(Kernel* k, int first_line) const {
    const std::array<int, 4> first = DeclareRegisters(k);
    int line = first_line;
    for (size_t i = 0; i < insns_.size(); ++i) {
      Statement& s = k->body.emplace_back();
      if (const char* label = FillStatement(i, first, *k, line, &s.insn)) {
        s.kind = Statement::Kind::kLabel;
        s.loc = SourceLoc{line++, 1};
        s.label = label;
        continue;
      }
      s.kind = Statement::Kind::kInstruction;
      s.loc = SourceLoc{line++, 2};
    }
  }

  // Statement i of the body as AppendTree makes it, at `line`: the label's name, or
  // nullptr with the instruction written into *t. *t may hold an earlier statement: its
  // storage (operand vectors, names) is reused, every field rewritten (HarnessStream
  // decodes the body through one Instruction). `first`: DeclareRegisters of k.
  const char* FillStatement(size_t i, const std::array<int, 4>& first, const Kernel& k,
                            int line, Instruction* t) const {
    const Recorded& in = insns_[i];
    if (in.opcode == nullptr) return in.label;
    auto reg = [&](Operand& o, int code) {
      o.kind = OperandKind::kReg;
      o.reg = first[code & 3] + (code >> 2);
      o.name = k.registers[static_cast<size_t>(o.reg)].name;
    };
    t->loc = SourceLoc{line, 2};
    if (in.guard >= 0) {
      ResetOperand(t->guard ? *t->guard : t->guard.emplace());
      reg(*t->guard, in.guard);
      t->loc.column += 2 + static_cast<int>(t->guard->name.size());  // after `@%pN `
    } else {
      t->guard.reset();
    }
    t->op = in.opcode->parsed.op;
    // Copy-constructed in place: InlinedVector's copy constructor copies an inline
    // vector's bytes, its copy assignment goes element by element (~45 instructions an
    // instruction).
    std::destroy_at(&t->mods);
    std::construct_at(&t->mods, in.opcode->parsed.mods);
    t->opcode_text = in.opcode->text;
    const absl::Span<const Arg> args = ArgsOf(in);
    t->operands.resize(args.size());
    for (size_t j = 0; j < args.size(); ++j) {
      ResetOperand(t->operands[j]);
      MakeOperand(args[j], reg, t->operands[j]);
    }
    return nullptr;
  }

  // Declares every register the record uses in k->registers (%p<..>, %r<..>, %rd<..> as
  // the declarations say). Ensures: the index of each class's first register.
  std::array<int, 4> DeclareRegisters(Kernel* k) const {
    k->registers.reserve(static_cast<size_t>(Count(1) + Count(2) + Count(3)));
    std::array<int, 4> first = {0, 0, 0, 0};
    const RegNames names(Codes());
    char name[24];
    for (int c = 1; c <= 3; ++c) {
      first[c] = static_cast<int>(k->registers.size());
      for (int i = 0; i < Count(c); ++i) {
        Register& r = k->registers.emplace_back();
        r.name.assign(name, static_cast<size_t>(names.Write(name, i * 4 + c) - name));
        r.type = kTypes[c];
      }
    }
    return first;
  }

  // Record i's label name; nullptr for an instruction.
  const char* LabelOf(size_t i) const {
    return insns_[i].opcode == nullptr ? insns_[i].label : nullptr;
  }

  // Appends the body's text after its opening declarations, as PrintModule writes the
  // tree's: one line per statement, instructions indented by a tab, labels not.
  void AppendBody(std::string* out) const {
    // A line's longest: a tab, `@%pN `, an opcode (OpcodeText: 64), five operands of at
    // most four registers or an address (~60 each), separators.
    char line[512];
    out->reserve(out->size() + 40 * insns_.size());
    const RegNames names(Codes());
    for (const Recorded& in : insns_) {
      char* p = line;
      if (in.opcode == nullptr) {
        p = WriteText(p, in.label);
        *p++ = ':';
        *p++ = '\n';
        out->append(line, static_cast<size_t>(p - line));
        continue;
      }
      *p++ = '\t';
      if (in.guard >= 0) {
        *p++ = '@';
        p = names.Write(p, in.guard);
        *p++ = ' ';
      }
      p = WriteText(p, in.opcode->text);
      const absl::Span<const Arg> args = ArgsOf(in);
      for (size_t i = 0; i < args.size(); ++i) {
        const Arg& a = args[i];
        if (i == 0) {
          *p++ = ' ';
        } else {
          *p++ = ',';
          *p++ = ' ';
        }
        switch (a.kind) {
          case Arg::Kind::kReg: p = names.Write(p, a.regs[0]); break;
          case Arg::Kind::kImm: p = WriteDecimal(p, a.value); break;
          case Arg::Kind::kSpecial: p = WriteText(p, SpecialRegName(a.special)); break;
          case Arg::Kind::kSymbol: p = WriteText(p, a.symbol); break;
          case Arg::Kind::kVector:
            *p++ = '{';
            for (int e = 0; e < a.count; ++e) {
              if (e > 0) {
                *p++ = ',';
                *p++ = ' ';
              }
              p = names.Write(p, a.regs[e]);
            }
            *p++ = '}';
            break;
          case Arg::Kind::kAddress:
            *p++ = '[';
            p = names.Write(p, a.regs[0]);
            if (a.value != 0 || a.write_zero) {
              *p++ = '+';
              p = WriteDecimal(p, a.value);
            }
            *p++ = ']';
            break;
          case Arg::Kind::kParam:
            *p++ = '[';
            p = WriteText(p, a.symbol);
            *p++ = ']';
            break;
        }
      }
      *p++ = ';';
      *p++ = '\n';
      out->append(line, static_cast<size_t>(p - line));
    }
  }

  Reg tid;
  Reg smem_base[2];

 private:
  // `o` as a default Operand, its name's and elements' storage kept.
  static void ResetOperand(Operand& o) {
    o.kind = OperandKind::kReg;
    o.loc = SourceLoc{};
    o.name.clear();
    o.reg = -1;
    o.negated = false;
    o.imm_kind = ImmKind::kInt;
    o.bits = 0;
    o.hex = false;
    o.special = SpecialReg::kTidX;
    o.base_is_reg = false;
    o.offset = 0;
    o.zero_offset_written = false;
    o.elems.clear();
  }

  // The tree's operand `o` (made empty: ResetOperand) for `a`; reg(o, code) makes o the
  // register operand of that code.
  template <typename RegOperand>
  static void MakeOperand(const Arg& a, const RegOperand& reg, Operand& o) {
    switch (a.kind) {
      case Arg::Kind::kReg: reg(o, a.regs[0]); break;
      case Arg::Kind::kImm:
        o.kind = OperandKind::kImm;
        o.bits = static_cast<uint64_t>(a.value);
        break;
      case Arg::Kind::kSpecial:
        o.kind = OperandKind::kSpecial;
        o.special = a.special;
        o.name = SpecialRegName(a.special);
        break;
      case Arg::Kind::kSymbol:
        o.kind = OperandKind::kSymbol;
        o.name = a.symbol;
        break;
      case Arg::Kind::kVector:
        o.kind = OperandKind::kVector;
        o.elems.resize(a.count);
        for (int e = 0; e < a.count; ++e) reg(o.elems[e], a.regs[e]);
        break;
      case Arg::Kind::kAddress:
        reg(o, a.regs[0]);
        o.kind = OperandKind::kAddress;
        o.base_is_reg = true;
        o.offset = a.value;
        o.zero_offset_written = a.write_zero;
        break;
      case Arg::Kind::kParam:
        o.kind = OperandKind::kAddress;
        o.name = a.symbol;
        break;
    }
  }

  // An instruction as recorded (operands args[0, n)), or a label (opcode null). The
  // constructor leaves the operand slots past n uninitialised: zeroing all five (~200
  // bytes) for every instruction cost more than writing the used ones.
  struct Recorded {
    Recorded(const Spelling* spelling, const char* name, int32_t guard_code, size_t count)
        : opcode(spelling), label(name), guard(guard_code), n(static_cast<uint8_t>(count)) {}
    const Spelling* opcode;
    const char* label;
    int32_t guard;  // a register code, or none (-1)
    uint8_t n;
    Arg args[5];
  };
  // Records are copied as they are (the vector may grow), unused slots included.
  static_assert(std::is_trivially_copyable_v<Recorded>);
  static absl::Span<const Arg> ArgsOf(const Recorded& in) {
    return absl::MakeConstSpan(in.args, in.n);
  }
  static constexpr Type kTypes[] = {Type::kPred, Type::kPred, Type::kB32, Type::kB64};

  int Count(int cls) const { return std::max(cls == 1 ? np_ : cls == 2 ? nr_ : nd_, 1); }
  // Every register's code is below this.
  int Codes() const { return 4 * std::max({Count(1), Count(2), Count(3)}); }

  int nr_ = 0, np_ = 0, nd_ = 0;
  std::vector<Recorded> insns_;
};

using W = Writer;

// u32 = XOR over tid bits b of coeff[b], then ^ constant. A coefficient of one bit 2^j
// moves tid bit b by j - b: bits that move the same distance share one `and` and one
// shift (Triton's address code looks the same), so a row-major offset costs two
// instructions per run of bits, not four per bit; other coefficients take
// bfe/neg/and. Terms are XORed (OR would do where they are disjoint; XOR is the map).
Reg EmitTidLinear(Writer& w, absl::Span<const uint32_t> coeff, uint32_t constant) {
  // by_shift[j - b + 32]: the tid bits b that move by j - b, visited by increasing shift
  // (the set bits of `shifts`).
  uint32_t by_shift[64] = {};
  uint64_t shifts = 0;
  absl::InlinedVector<Reg, 8> terms;
  for (size_t b = 0; b < coeff.size(); ++b) {
    if (coeff[b] == 0) continue;
    if ((coeff[b] & (coeff[b] - 1)) == 0) {
      WARPCHECK_CHECK(b < 32);
      const int i = __builtin_ctz(coeff[b]) - static_cast<int>(b) + 32;
      by_shift[i] |= 1u << b;
      shifts |= uint64_t{1} << i;
      continue;
    }
    Reg t = w.NewReg();
    w.Insn("bfe.u32", W::R(t), W::R(w.tid), W::Imm(static_cast<int64_t>(b)), W::Imm(1));
    w.Insn("neg.s32", W::R(t), W::R(t));
    w.Insn("and.b32", W::R(t), W::R(t), W::Imm(coeff[b]));
    terms.push_back(t);
  }
  for (; shifts != 0; shifts &= shifts - 1) {
    const int i = __builtin_ctzll(shifts);
    const uint32_t mask = by_shift[i];
    const int shift = i - 32;
    Reg t = w.NewReg();
    w.Insn("and.b32", W::R(t), W::R(w.tid), W::Imm(mask));
    if (shift > 0) w.Insn("shl.b32", W::R(t), W::R(t), W::Imm(shift));
    if (shift < 0) w.Insn("shr.u32", W::R(t), W::R(t), W::Imm(-shift));
    terms.push_back(t);
  }
  if (terms.empty()) {
    Reg v = w.NewReg();
    w.Insn("mov.u32", W::R(v), W::Imm(constant));
    return v;
  }
  Reg v = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    Reg x = w.NewReg();
    w.Insn("xor.b32", W::R(x), W::R(v), W::R(terms[i]));
    v = x;
  }
  if (constant != 0) {
    Reg x = w.NewReg();
    w.Insn("xor.b32", W::R(x), W::R(v), W::Imm(constant));
    v = x;
  }
  return v;
}

std::vector<Reg> EmitSetup(Writer& w, const Program& p) {
  std::vector<Reg> names;
  for (const SetupValue& s : p.setup) {
    switch (s.kind) {
      case SetupValue::Kind::kTidLinear:
        names.push_back(EmitTidLinear(w, s.coeff, s.constant));
        break;
      case SetupValue::Kind::kTidParity: {
        Reg t = w.NewReg(), pr = w.NewPred();
        w.Insn("and.b32", W::R(t), W::R(w.tid), W::Imm(s.mask));
        w.Insn("popc.b32", W::R(t), W::R(t));
        w.Insn("and.b32", W::R(t), W::R(t), W::Imm(1));
        w.Insn("setp.ne.u32", W::R(pr), W::R(t), W::Imm(0));
        names.push_back(pr);
        break;
      }
      case SetupValue::Kind::kTidMaskZero: {
        Reg t = w.NewReg(), pr = w.NewPred();
        w.Insn("and.b32", W::R(t), W::R(w.tid), W::Imm(s.mask));
        w.Insn("setp.eq.u32", W::R(pr), W::R(t), W::Imm(0));
        names.push_back(pr);
        break;
      }
      case SetupValue::Kind::kSmemAddr: {
        Reg v = EmitTidLinear(w, s.coeff, s.constant);
        Reg a = w.NewReg();
        w.Insn("mad.lo.u32", W::R(a), W::R(v), W::Imm(s.element_bytes),
               W::R(w.smem_base[s.buffer]));
        names.push_back(a);
        break;
      }
    }
  }
  return names;
}

// `.v2` or `.v4` for a vector of n words (none for one).
absl::string_view VecMod(size_t n) {
  WARPCHECK_CHECK(n == 1 || n == 2 || n == 4) << n << " words";
  return n == 1 ? "" : n == 2 ? ".v2" : ".v4";
}

// Registers of `body`'s setup values: each equals a setup value of `f` or `b`, already
// emitted (registers in nf / nb).
std::vector<Reg> SetupNames(const Program& body, const std::vector<Reg>& nf, const Program& f,
                            const std::vector<Reg>& nbk, const Program& b) {
  std::vector<Reg> names;
  for (const SetupValue& v : body.setup) {
    Reg name;
    for (size_t i = 0; i < f.setup.size() && !name.valid(); ++i) if (f.setup[i] == v) name = nf[i];
    for (size_t i = 0; i < b.setup.size() && !name.valid(); ++i) if (b.setup[i] == v) name = nbk[i];
    names.push_back(name);
  }
  return names;
}

std::optional<Reg> GuardOf(const Op& op, const std::vector<Reg>& setup) {
  if (op.pred < 0) return std::nullopt;
  return setup[op.pred];
}

// The spelling of a shared-memory access op of `words` registers (`st.shared.v4.b32`,
// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`).
OpcodeText SharedAccessText(const Op& op, size_t words) {
  switch (op.kind) {
    case OpKind::kStShared:
    case OpKind::kLdShared:
      return OpcodeText() << (op.kind == OpKind::kStShared ? "st.shared" : "ld.shared")
                          << VecMod(words) << ".b" << 8 * op.elem_bytes;
    case OpKind::kStMatrix:
    case OpKind::kLdMatrix:
      return OpcodeText() << (op.kind == OpKind::kStMatrix ? "stmatrix" : "ldmatrix")
                          << ".sync.aligned.m8n8.x" << static_cast<int64_t>(words)
                          << (op.trans ? ".trans" : "") << ".shared.b16";
    default: WARPCHECK_CHECK(false) << "not a shared access: " << static_cast<int>(op.kind);
  }
  return OpcodeText();
}

// SharedAccessText's spelling, looked up once per thread for each (kind, words, element
// size, trans), which determine it: spelling every access anew was a third of EmitOps.
const Spelling* SharedAccessSpelling(const Op& op, size_t words) {
  WARPCHECK_CHECK((words == 1 || words == 2 || words == 4) && op.elem_bytes >= 1 &&
                  op.elem_bytes <= 8 && std::has_single_bit(static_cast<unsigned>(op.elem_bytes)))
      << words << " words of " << op.elem_bytes << " bytes";
  const int kind = op.kind == OpKind::kStShared   ? 0
                   : op.kind == OpKind::kLdShared ? 1
                   : op.kind == OpKind::kStMatrix ? 2
                                                  : 3;
  // [kind][log2 words][log2 element bytes][trans]
  thread_local const Spelling* cache[4][3][4][2];
  const Spelling*& slot = cache[kind][std::countr_zero(words)]
                               [std::countr_zero(static_cast<unsigned>(op.elem_bytes))][op.trans];
  if (slot == nullptr) slot = Spell(SharedAccessText(op, words));
  return slot;
}

// Emits one program's ops; `names` maps word ids to registers (inputs filled in;
// others assigned here unless preassigned).
void EmitOps(Writer& w, const Program& p, const std::vector<Reg>& setup,
             std::vector<Reg>& names) {
  auto name = [&](int id) {
    if (!names[id].valid()) names[id] = w.NewReg();
    return names[id];
  };
  auto regs_of = [&](const plan::Words& ids) {
    Regs regs;
    for (int id : ids) regs.push_back(name(id));
    return regs;
  };
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp:
        w.Insn("selp.b32", W::R(name(op.out[0])), W::R(name(op.in[0])), W::R(name(op.in[1])),
               W::R(setup[op.pred]));
        break;
      case OpKind::kShflBfly:
        w.Insn("shfl.sync.bfly.b32", W::R(name(op.out[0])), W::R(name(op.in[0])),
               W::Imm(op.imm), W::Imm(31), W::Imm(-1));
        break;
      case OpKind::kShflIdx:
        w.Insn("shfl.sync.idx.b32", W::R(name(op.out[0])), W::R(name(op.in[0])),
               W::R(setup[op.addr]), W::Imm(31), W::Imm(-1));
        break;
      case OpKind::kPrmt:
        w.Insn("prmt.b32", W::R(name(op.out[0])), W::R(name(op.in[0])), W::R(name(op.in[1])),
               W::Imm(op.imm));
        break;
      case OpKind::kStShared: {
        const Regs regs = regs_of(op.in);
        w.Guarded(GuardOf(op, setup), SharedAccessSpelling(op, regs.size()),
                  W::Addr(setup[op.addr], op.imm, true), W::Vec(regs));
        break;
      }
      case OpKind::kLdShared: {
        const Regs regs = regs_of(op.out);
        w.Insn(SharedAccessSpelling(op, regs.size()), W::Vec(regs),
               W::Addr(setup[op.addr], op.imm, true));
        break;
      }
      case OpKind::kStMatrix:
      case OpKind::kLdMatrix: {
        const bool st = op.kind == OpKind::kStMatrix;
        const Regs regs = regs_of(st ? op.in : op.out);
        const Opc opcode = SharedAccessSpelling(op, regs.size());
        const Arg addr = W::Addr(setup[op.addr], op.imm, true);
        if (st) {
          w.Guarded(GuardOf(op, setup), opcode, addr, W::Vec(regs, true));
        } else {
          w.Guarded(GuardOf(op, setup), opcode, W::Vec(regs, true), addr);
        }
        break;
      }
      case OpKind::kBarSync: w.Insn("bar.sync", W::Imm(0)); break;
      case OpKind::kBarWarp: w.Insn("bar.warp.sync", W::Imm(-1)); break;
    }
  }
}


// The %tid.x bits' coefficients (lanes, then warps; at most 5 + 5 for 1024 threads).
absl::InlinedVector<uint32_t, 10> TidCoeffs(const FlatLayout& l) {
  absl::InlinedVector<uint32_t, 10> c(l.lane.begin(), l.lane.end());
  c.insert(c.end(), l.warp.begin(), l.warp.end());
  return c;
}

// Addresses of the thread's elements `elem ^ c` in one global buffer. Where c shares no
// bit with any tid coefficient (`tid_bits`), elem ^ c = elem + c, so the address is the
// thread's one base plus an immediate, as Triton writes it; otherwise it is computed.
class GlobalAddresses {
 public:
  GlobalAddresses(Writer& w, Reg elem, uint32_t tid_bits, int eb, Reg buffer)
      : w_(w), elem_(elem), tid_bits_(tid_bits), eb_(eb), buffer_(buffer) {}

  // `[%rdN]` or `[%rdN+imm]`.
  Arg At(uint32_t c) {
    if ((c & tid_bits_) == 0) {
      if (!base_.valid()) base_ = Compute(elem_);
      return W::Addr(base_, static_cast<int64_t>(uint64_t{c} * eb_), false);
    }
    Reg e = w_.NewReg();
    w_.Insn("xor.b32", W::R(e), W::R(elem_), W::Imm(c));
    return W::Addr(Compute(e), 0, false);
  }

 private:
  Reg Compute(Reg e) {
    Reg off = w_.NewWide(), a = w_.NewWide();
    w_.Insn("mul.wide.u32", W::R(off), W::R(e), W::Imm(eb_));
    w_.Insn("add.s64", W::R(a), W::R(buffer_), W::R(off));
    return a;
  }

  Writer& w_;
  Reg elem_;
  uint32_t tid_bits_;
  int eb_;
  Reg buffer_;
  Reg base_;
};
// A register (or a word's unit) and the element offset of it (of its first register), as
// one key that orders by offset, then id.
struct Placed {
  uint64_t key;
  Placed(uint32_t offset, uint32_t id) : key(uint64_t{offset} << 32 | id) {}
  uint32_t offset() const { return static_cast<uint32_t>(key >> 32); }
  uint32_t id() const { return static_cast<uint32_t>(key); }
};
using PlacedList = absl::InlinedVector<Placed, 64>;

// Sorts by offset, ties by id: the order of a stable sort by offset (the list is made in
// id order), without std::stable_sort's buffer.
void SortByOffset(PlacedList& list) {
  std::sort(list.begin(), list.end(),
            [](const Placed& a, const Placed& b) { return a.key < b.key; });
}

// plan::ApplyBasis(l.reg, r) of every register r, each from the one without r's lowest
// bit (ApplyBasis is linear) instead of a loop over the basis per register.
absl::InlinedVector<uint32_t, 64> RegisterOffsets(const FlatLayout& l) {
  absl::InlinedVector<uint32_t, 64> offsets(static_cast<size_t>(l.num_regs()), 0);
  uint32_t* offset = offsets.data();  // (InlinedVector's operator[] checks inline per call)
  for (size_t r = 1; r < offsets.size(); ++r) {
    offset[r] = offset[r & (r - 1)] ^ l.reg[__builtin_ctzll(r)];
  }
  return offsets;
}

// The thread's registers whose index has no bit of `skip`, in ascending order of their
// element offset (the address order of the thread's global accesses). Issued in this
// order, the 64x64 f16 4-warp harnesses whose accesses alternate between two 1 KiB halves
// ran 1.45-1.5x faster on the H200 (corpus/plan/README.md, "What made v6's slow pairs
// slow"); ties keep register order.
PlacedList RegistersInAddressOrder(const FlatLayout& l, uint32_t skip) {
  const absl::InlinedVector<uint32_t, 64> offset = RegisterOffsets(l);
  PlacedList regs;
  regs.reserve(offset.size());
  for (uint32_t r = 0; r < offset.size(); ++r) {
    if ((r & skip) == 0) regs.emplace_back(offset[r], r);
  }
  SortByOffset(regs);
  return regs;
}

uint32_t TidBits(const FlatLayout& l) {
  uint32_t bits = 0;
  for (uint32_t c : l.lane) bits |= c;
  for (uint32_t c : l.warp) bits |= c;
  return bits;
}

// Register bits whose elements are consecutive in row-major global memory (vec[k] ->
// element offset 2^k), usable as one aligned access of whole words: at most 16 bytes, the
// packed slots first, and no other basis reaching the vector's offset bits. Empty when
// the words cannot be moved as vectors (then every element moves alone).
// The register bits `bits` as one mask.
uint32_t BitMask(const std::vector<int>& bits) {
  uint32_t m = 0;
  for (int i : bits) m |= 1u << i;
  return m;
}

// Register `r` with bits from j (bit k of j -> register bit run[k], for k >= from).
uint32_t RunRegister(const std::vector<int>& run, uint32_t r, uint32_t j, size_t from = 0) {
  for (size_t k = from; k < run.size(); ++k) if ((j >> (k - from)) & 1) r |= 1u << run[k];
  return r;
}

// The register bits of the longest run of consecutive elements (vec[k] -> element offset
// 2^k) that one aligned access of at most 16 bytes can move: no other basis reaches the
// run's offset bits.
std::vector<int> ElementRun(const FlatLayout& l, int eb) {
  std::vector<int> vec;
  for (int k = 0; (eb << (k + 1)) <= 16; ++k) {
    int found = -1;
    for (int i = 0; i < l.reg_bits() && found < 0; ++i) if (l.reg[i] == (1u << k)) found = i;
    if (found < 0) break;
    vec.push_back(found);
  }
  const uint32_t vmask = BitMask(vec);
  uint32_t low = 0;
  for (int i = 0; i < l.reg_bits(); ++i) if (!((vmask >> i) & 1)) low |= l.reg[i];
  for (uint32_t b : l.lane) low |= b;
  for (uint32_t b : l.warp) low |= b;
  while (!vec.empty() && (low & ((1u << vec.size()) - 1)) != 0) vec.pop_back();
  return vec;
}

// 16-bit elements whose words do not line up with global memory (unpacked words, or
// words that pack elements far apart) still move through global memory as vectors of
// consecutive elements: one access of up to 16 bytes, its halves distributed to the
// words with prmt after a load, and gathered from them with prmt before a store (outside
// the loop). One scalar access per element made the one-warp f16 harnesses 1.06-1.5x
// slower than Triton's on the H200: 528 CTAs write the same `out`, and 16-bit stores
// contend (corpus/plan/README.md, "What made v6's slow pairs slow"). Empty: no such run.
std::vector<int> NarrowRun(const FlatLayout& l, const WordView& v, int eb) {
  if (eb != 2 || v.upw != 1) return {};
  return ElementRun(l, eb);
}

// The prmt selector that puts half `ha` of a (bytes 0-3) low and half `hb` of b (bytes
// 4-7) high.
uint32_t HalfSelector(uint32_t ha, uint32_t hb) {
  return (2 * ha) | ((2 * ha + 1) << 4) | ((4 + 2 * hb) << 8) | ((5 + 2 * hb) << 12);
}

// A word view's maps between registers and (unit, slot), as tables: the global loads and
// stores ask them of every register, and WordView::Unit, Slot and Reg loop over the
// register bits on every call. Unit and Slot gather bits of the register, so each is the
// OR of its values on the register's bits; Reg is their inverse.
class ViewTable {
 public:
  explicit ViewTable(const WordView& v)
      : pk_(v.pk()), n_(uint32_t{1} << v.reg_bits), tables_(3 * size_t{n_}, 0) {
    unit_ = tables_.data();  // (InlinedVector's operator[] checks inline per call)
    slot_ = unit_ + n_;
    reg_ = slot_ + n_;
    for (uint32_t r = 1; r < n_; ++r) {
      const uint32_t rest = r & (r - 1);
      if (rest == 0) {
        unit_[r] = v.Unit(r);
        slot_[r] = v.Slot(r);
      } else {
        unit_[r] = unit_[rest] | unit_[r ^ rest];
        slot_[r] = slot_[rest] | slot_[r ^ rest];
      }
      reg_[unit_[r] << pk_ | slot_[r]] = r;
    }
  }
  ViewTable(const ViewTable&) = delete;
  ViewTable& operator=(const ViewTable&) = delete;
  uint32_t Unit(uint32_t r) const { return unit_[r]; }
  uint32_t Slot(uint32_t r) const { return slot_[r]; }
  uint32_t Reg(uint32_t unit, uint32_t slot) const { return reg_[unit << pk_ | slot]; }

 private:
  int pk_;
  uint32_t n_;
  absl::InlinedVector<uint32_t, 3 * 64> tables_;  // unit_, slot_, reg_ (n_ each)
  uint32_t *unit_, *slot_, *reg_;
};

void EmitNarrowLoad(Writer& w, const FlatLayout& l, const WordView& v,
                    const std::vector<int>& run, GlobalAddresses& addr, std::vector<Reg>& words) {
  const uint32_t rmask = BitMask(run);
  const uint32_t n = 1u << run.size();
  // (temp, half) of every (unit, slot) the loads bring in, at unit * slots + slot.
  const size_t slots = size_t{1} << v.pk();
  std::vector<std::pair<Reg, uint32_t>> at(static_cast<size_t>(v.units()) * slots);
  const ViewTable view(v);
  const Opc load(OpcodeText() << "ld.global" << VecMod(n / 2) << ".b32");  // spelled once
  for (const Placed& r : RegistersInAddressOrder(l, rmask)) {
    Regs t(n / 2);
    for (Reg& x : t) x = w.NewReg();
    w.Insn(load, W::Vec(t), addr.At(r.offset()));
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t reg = RunRegister(run, r.id(), j);
      at[view.Unit(reg) * slots + view.Slot(reg)] = {t[j / 2], j % 2};
    }
  }
  for (int u = 0; u < v.units(); ++u) {
    const std::pair<Reg, uint32_t>* s = &at[u * slots];
    Reg x = w.NewReg();
    if (v.pk() == 1) {
      w.Insn("prmt.b32", W::R(x), W::R(s[0].first), W::R(s[1].first),
             W::Imm(HalfSelector(s[0].second, s[1].second)));
    } else if (s[0].second == 0) {
      w.Insn("and.b32", W::R(x), W::R(s[0].first), W::Imm(65535));
    } else {
      w.Insn("shr.u32", W::R(x), W::R(s[0].first), W::Imm(16));
    }
    words[u] = x;
  }
}

void EmitNarrowStore(Writer& w, const FlatLayout& l, const WordView& v,
                     const std::vector<int>& run, uint32_t free_regs, std::optional<Reg> guard,
                     GlobalAddresses& addr, const std::vector<Reg>& words) {
  const uint32_t rmask = BitMask(run);
  const uint32_t n = 1u << run.size();
  const ViewTable view(v);
  const Opc store(OpcodeText() << "st.global" << VecMod(n / 2) << ".b32");  // spelled once
  for (const Placed& r : RegistersInAddressOrder(l, rmask | free_regs)) {
    Regs t(n / 2);
    for (uint32_t m = 0; m < n / 2; ++m) {
      const uint32_t ra = RunRegister(run, r.id(), 2 * m);
      const uint32_t rb = RunRegister(run, r.id(), 2 * m + 1);
      t[m] = w.NewReg();
      w.Insn("prmt.b32", W::R(t[m]), W::R(words[view.Unit(ra)]), W::R(words[view.Unit(rb)]),
             W::Imm(HalfSelector(view.Slot(ra), view.Slot(rb))));
    }
    w.Guarded(guard, store, addr.At(r.offset()), W::Vec(t));
  }
}

// The predicate of the threads that store (no free thread bit set: broadcast copies
// store nothing); none when every thread stores.
std::optional<Reg> StoreGuard(Writer& w, uint32_t free_tid) {
  if (free_tid == 0) return std::nullopt;
  Reg t = w.NewReg(), pr = w.NewPred();
  w.Insn("and.b32", W::R(t), W::R(w.tid), W::Imm(free_tid));
  w.Insn("setp.eq.u32", W::R(pr), W::R(t), W::Imm(0));
  return pr;
}

std::vector<Reg> EmitGlobalLoad(Writer& w, const ConversionProblem& p, const FlatLayout& l,
                                const WordView& v, Reg in) {
  const int eb = p.element_bytes();
  GlobalAddresses addr(w, EmitTidLinear(w, TidCoeffs(l), 0), TidBits(l), eb, in);
  std::vector<Reg> words(static_cast<size_t>(v.words()));
  if (std::vector<int> run = NarrowRun(l, v, eb); !run.empty()) {
    EmitNarrowLoad(w, l, v, run, addr, words);
    return words;
  }
  const ViewTable view(v);
  const absl::InlinedVector<uint32_t, 64> offset = RegisterOffsets(l);
  // Units in the order of their first register's offset (a 64-bit word's unit is its
  // register).
  PlacedList units;
  for (uint32_t u = 0; u < static_cast<uint32_t>(v.units()); ++u) {
    units.emplace_back(offset[v.upw == 2 ? u : view.Reg(u, 0)], u);
  }
  SortByOffset(units);
  const Opc load_element(OpcodeText() << "ld.global.u" << 8 * eb);  // spelled once
  for (const Placed& unit : units) {
    const uint32_t u = unit.id();
    if (v.upw == 2) {
      const Arg a = addr.At(unit.offset());
      Reg lo = w.NewReg(), hi = w.NewReg();
      w.Insn("ld.global.v2.b32", W::Vec({lo, hi}), a);
      words[2 * u] = lo;
      words[2 * u + 1] = hi;
      continue;
    }
    Reg word;
    for (int s = 0; s < (1 << v.pk()); ++s) {
      const Arg a = addr.At(offset[view.Reg(u, static_cast<uint32_t>(s))]);
      Reg x = w.NewReg();
      w.Insn(load_element, W::R(x), a);
      if (s == 0) {
        word = x;
      } else {
        Reg y = w.NewReg();
        w.Insn("bfi.b32", W::R(y), W::R(x), W::R(word), W::Imm(s * 8 * eb), W::Imm(8 * eb));
        word = y;
      }
    }
    words[u] = word;
  }
  return words;
}

void EmitGlobalStore(Writer& w, const ConversionProblem& p, const FlatLayout& l,
                     const WordView& v, const std::vector<Reg>& words, Reg out) {
  const int eb = p.element_bytes();
  uint32_t free_regs, free_tid;
  l.FreeBits(&free_regs, &free_tid);
  const std::optional<Reg> guard = StoreGuard(w, free_tid);
  GlobalAddresses addr(w, EmitTidLinear(w, TidCoeffs(l), 0), TidBits(l), eb, out);
  if (std::vector<int> run = NarrowRun(l, v, eb); !run.empty()) {
    EmitNarrowStore(w, l, v, run, free_regs, guard, addr, words);
    return;
  }
  const Opc store_element(OpcodeText() << "st.global.b" << 8 * eb);  // spelled once
  const ViewTable view(v);
  for (const Placed& placed : RegistersInAddressOrder(l, free_regs)) {
    const uint32_t r = placed.id();
    const Arg a = addr.At(placed.offset());
    if (v.upw == 2) {
      w.Guarded(guard, "st.global.v2.b32", a, W::Vec({words[2 * r], words[2 * r + 1]}));
      continue;
    }
    const Reg word = words[view.Unit(r)];
    const uint32_t slot = view.Slot(r);
    Reg x = word;
    if (slot != 0) {
      x = w.NewReg();
      w.Insn("shr.u32", W::R(x), W::R(word), W::Imm(slot * 8 * eb));
    }
    w.Guarded(guard, store_element, a, W::R(x));
  }
}

// A round trip that moves nothing copies `in` to `out` in the source layout. Each access
// loads a run of consecutive elements (ElementRun: up to 16 bytes, as whole 32-bit words
// when it has 4 bytes or more, else one element) into registers and stores the same
// registers back, all loads first, as LLVM leaves Triton's kernel once the empty loop is
// deleted. (Packing the elements into the conversion's words after the loads and out of
// them before the stores, bfi and shr around every 16-bit element, made the one-warp
// noop harnesses up to 1.43x slower than Triton's on the H200.) Threads and registers
// that hold broadcast copies do not store.
void EmitGlobalCopy(Writer& w, const ConversionProblem& p, const FlatLayout& l, Reg in,
                    Reg out) {
  const int eb = p.element_bytes();
  uint32_t free_regs, free_tid;
  l.FreeBits(&free_regs, &free_tid);
  std::vector<int> run = ElementRun(l, eb);
  if ((eb << run.size()) < 4) run.clear();
  const int bytes = eb << run.size();
  const int words = bytes >= 4 ? bytes / 4 : 1;
  const Opc ld(bytes >= 4 ? OpcodeText() << "ld.global" << VecMod(words) << ".b32"
                          : OpcodeText() << "ld.global.u" << 8 * eb);
  const Opc st(bytes >= 4 ? OpcodeText() << "st.global" << VecMod(words) << ".b32"
                          : OpcodeText() << "st.global.b" << 8 * eb);
  const Reg elem = EmitTidLinear(w, TidCoeffs(l), 0);
  GlobalAddresses src(w, elem, TidBits(l), eb, in), dst(w, elem, TidBits(l), eb, out);
  const PlacedList regs = RegistersInAddressOrder(l, BitMask(run) | free_regs);
  std::vector<Regs> loaded;
  for (const Placed& r : regs) {
    Regs t(static_cast<size_t>(words));
    for (Reg& x : t) x = w.NewReg();
    w.Insn(ld, W::Vec(t), src.At(r.offset()));
    loaded.push_back(std::move(t));
  }
  const std::optional<Reg> guard = StoreGuard(w, free_tid);
  for (size_t i = 0; i < regs.size(); ++i) {
    w.Guarded(guard, st, dst.At(regs[i].offset()), W::Vec(loaded[i]));
  }
}

}  // namespace


namespace {

// Whether `c`'s program has an op of this kind.
bool HasOp(const ConversionPlan& c, OpKind kind) {
  return absl::c_any_of(c.program.ops, [kind](const Op& op) { return op.kind == kind; });
}

// Both directions of the round trip in one pair of word views (forward in buffer 0,
// backward in buffer 1), replanned where the pair needs it: CTA barriers on both sides
// when one direction's buffer is read by other warps, a barrier before the stores of a
// direction that is the loop's only shared-memory user, and one buffer for both when two
// do not fit. Errors: a direction that cannot be planned in these views, or a tensor
// larger than a CTA's shared memory that cannot run in rounds.
absl::StatusOr<RoundTrip> PlanTripInViews(const ConversionProblem& problem,
                                          const ConversionProblem& reversed,
                                          const plan::PlanOptions& options,
                                          const std::pair<WordView, WordView>& view,
                                          plan::SearchMemo* forward_memo,
                                          plan::SearchMemo* backward_memo) {
  const auto& [sv, dv] = view;
  plan::PlanOptions o = options;
  o.views = std::make_pair(sv, dv);
  o.memo = forward_memo;
  plan::PlanOptions ob = options;
  ob.views = std::make_pair(dv, sv);
  ob.memo = backward_memo;
  o.buffer = 0;
  auto fwd = plan::PlanConversion(problem, o);
  ob.buffer = 1;
  auto bwd = plan::PlanConversion(reversed, ob);
  if (!fwd.ok()) return fwd.status();
  if (!bwd.ok()) return bwd.status();
  // A buffer read by other warps needs a CTA barrier before the next store into it:
  // the other direction's barrier must be CTA-wide then.
  if ((HasOp(*fwd, OpKind::kBarWarp) && HasOp(*bwd, OpKind::kBarSync)) ||
      (HasOp(*bwd, OpKind::kBarWarp) && HasOp(*fwd, OpKind::kBarSync))) {
    o.force_cta_barrier = ob.force_cta_barrier = true;
    o.buffer = 0;
    fwd = plan::PlanConversion(problem, o);
    ob.buffer = 1;
    bwd = plan::PlanConversion(reversed, ob);
    if (!fwd.ok()) return fwd.status();
    if (!bwd.ok()) return bwd.status();
  }
  // A direction that is the loop's only shared-memory user must itself wait, before
  // storing, for the previous iteration's loads.
  auto uses_smem = [](const plan::ConversionPlan& c) { return c.program.smem_bytes > 0; };
  if (uses_smem(*fwd) != uses_smem(*bwd)) {
    if (uses_smem(*fwd)) {
      plan::PlanOptions lone = o;
      lone.barrier_before_store = true;
      lone.buffer = 0;
      fwd = plan::PlanConversion(problem, lone);
    } else {
      plan::PlanOptions lone = ob;
      lone.barrier_before_store = true;
      lone.buffer = 1;
      bwd = plan::PlanConversion(reversed, lone);
    }
    if (!fwd.ok()) return fwd.status();
    if (!bwd.ok()) return bwd.status();
  }
  // One buffer for both directions when two do not fit (then each store waits for the
  // other direction's loads at a CTA barrier).
  constexpr int64_t kMaxShared = 232448;  // sm_90: 227 KiB per CTA
  if ((fwd->program.smem_bytes + 15) / 16 * 16 + bwd->program.smem_bytes > kMaxShared) {
    o.force_cta_barrier = ob.force_cta_barrier = true;
    o.barrier_before_store = ob.barrier_before_store = true;
    o.buffer = ob.buffer = 0;
    fwd = plan::PlanConversion(problem, o);
    bwd = plan::PlanConversion(reversed, ob);
    if (!fwd.ok()) return fwd.status();
    if (!bwd.ok()) return bwd.status();
    if (std::max(fwd->program.smem_bytes, bwd->program.smem_bytes) > kMaxShared) {
      return absl::InvalidArgumentError(absl::StrCat(
          "smem: the tensor needs ", std::max(fwd->program.smem_bytes, bwd->program.smem_bytes),
          " bytes of shared memory, more than a CTA has (", kMaxShared,
          "), and its layouts leave too few offset bits to run it in rounds"));
    }
  }
  return RoundTrip{*std::move(fwd), *std::move(bwd)};
}

// Whether every shared access of `c` is a plain 16-byte vector (no stmatrix/ldmatrix)
// and its barriers are warp barriers only: the plans NarrowOneWarpTrip may narrow.
bool Plain16ByteWarpLocal(const ConversionPlan& c) {
  if (c.strategy != plan::Strategy::kSmem) return false;
  bool any = false;
  for (const Op& op : c.program.ops) {
    switch (op.kind) {
      case OpKind::kStShared:
        if (static_cast<int>(op.in.size()) * op.elem_bytes != 16) return false;
        any = true;
        break;
      case OpKind::kLdShared:
        if (static_cast<int>(op.out.size()) * op.elem_bytes != 16) return false;
        any = true;
        break;
      case OpKind::kStMatrix:
      case OpKind::kLdMatrix:
      case OpKind::kBarSync:
        return false;
      default:
        break;
    }
  }
  return any;
}

}  // namespace

std::optional<RoundTrip> NarrowOneWarpTrip(const ConversionProblem& problem,
                                           const plan::PlanOptions& options,
                                           const RoundTrip& chosen) {
  if (problem.num_warps != 1 || options.max_vector_bytes != 0 || options.no_swizzle ||
      options.only_matrix) {
    return std::nullopt;
  }
  if (problem.num_elements() * problem.element_bytes() < kNarrowMinBytesPerWarp) {
    return std::nullopt;
  }
  if (!Plain16ByteWarpLocal(chosen.forward) || !Plain16ByteWarpLocal(chosen.backward)) {
    return std::nullopt;
  }
  const std::optional<int64_t> triton = plan::TritonSharedRoundTripFloor(problem);
  if (!triton) return std::nullopt;
  // Both kernels run the same loop bookkeeping (add, setp, bra) a round trip; the floor
  // leaves Triton's out, so ours is counted here.
  const int64_t loop = 3 * int64_t{problem.num_warps};
  const int64_t wavefronts = chosen.forward.cost.wavefronts_store +
                             chosen.forward.cost.wavefronts_load +
                             chosen.backward.cost.wavefronts_store +
                             chosen.backward.cost.wavefronts_load;
  const ConversionProblem reversed = problem.Reversed();
  std::optional<RoundTrip> best;
  int64_t best_instructions = 0;
  for (const bool narrow_forward : {false, true}) {
    // The other direction stays as chosen; this one is planned again in its word views
    // and buffer, through shared memory, with 8-byte vectors at most.
    const ConversionPlan& kept = narrow_forward ? chosen.backward : chosen.forward;
    const ConversionPlan& old = narrow_forward ? chosen.forward : chosen.backward;
    plan::PlanOptions o = options;
    o.views = std::make_pair(old.src_view, old.dst_view);
    o.buffer = narrow_forward ? 0 : 1;
    o.strategy = plan::Strategy::kSmem;
    o.max_vector_bytes = 8;
    o.memo = nullptr;
    absl::StatusOr<ConversionPlan> narrowed =
        plan::PlanConversion(narrow_forward ? problem : reversed, o);
    if (!narrowed.ok() || narrowed->strategy != plan::Strategy::kSmem) continue;
    if (HasOp(*narrowed, OpKind::kBarSync)) continue;
    const int64_t instructions = kept.cost.warp_instructions + narrowed->cost.warp_instructions;
    const int64_t trip_wavefronts = kept.cost.wavefronts_store + kept.cost.wavefronts_load +
                                    narrowed->cost.wavefronts_store +
                                    narrowed->cost.wavefronts_load;
    if (instructions + loop > *triton || trip_wavefronts > wavefronts) continue;
    if (!best || instructions < best_instructions) {
      best_instructions = instructions;
      best = narrow_forward ? RoundTrip{*std::move(narrowed), chosen.backward}
                            : RoundTrip{chosen.forward, *std::move(narrowed)};
    }
  }
  return best;
}

absl::StatusOr<RoundTrip> PlanRoundTrip(const ConversionProblem& problem,
                                        const plan::PlanOptions& options,
                                        bool narrow_one_warp) {
  std::vector<std::pair<size_t, RoundTrip>> trips;  // (view, its plans), one per word view
  absl::Status last = absl::OkStatus();
  const ConversionProblem reversed = problem.Reversed();
  const std::vector<std::pair<WordView, WordView>> views = plan::CandidateViews(problem, options);
  // Replanning with other barrier or buffer options reuses each direction's bank search.
  // Triton's mechanism each way (the reference of every view's pick, and of the round
  // trip's) is asked for once.
  const plan::Strategy triton_forward = plan::TritonStrategy(problem);
  const plan::Strategy triton_backward = plan::TritonStrategy(reversed);
  plan::SearchMemo forward_memo, backward_memo;
  forward_memo.triton = triton_forward;
  backward_memo.triton = triton_backward;
  // The plain bank search of one direction reuses the other's climbs where they agree.
  forward_memo.reversed = &backward_memo;
  backward_memo.reversed = &forward_memo;
  // A view is planned only if it can be chosen (PickRoundTrip). PickRoundTrip's reference
  // is the first view of Triton's mechanism both ways by (warp instructions, wavefronts,
  // score, words), and the pick ranks the views that cost no more than it by (score,
  // warp instructions, wavefronts, words), both directions summed, ties to the earlier
  // view. A view whose lower bound (PlanLowerBound of each direction, summed) ranks after
  // a planned view of Triton's mechanism in the reference's order can be neither: if its
  // (instructions, wavefronts) rank after, it costs more than the reference on one count;
  // if they equal, its score or words (or place) rank it after the reference in the
  // pick too. The views are planned by increasing bound, so that the reference comes
  // early; the pick sees the planned ones in their own order.
  struct Floor {
    int64_t instructions = 0, wavefronts = 0;
    double score = 0;
    int words = 0;
    size_t view = 0;
    auto operator<=>(const Floor&) const = default;
  };
  std::vector<std::optional<Floor>> floors(views.size());
  std::vector<size_t> order(views.size());
  for (size_t i = 0; i < views.size(); ++i) order[i] = i;
  if (!options.price_all && views.size() > 1) {
    for (size_t i = 0; i < views.size(); ++i) {
      plan::PlanOptions o = options;
      o.views = views[i];
      o.memo = &forward_memo;
      plan::PlanOptions ob = options;
      ob.views = std::make_pair(views[i].second, views[i].first);
      ob.memo = &backward_memo;
      const auto f = plan::PlanLowerBound(problem, o);
      const auto b = f ? plan::PlanLowerBound(reversed, ob) : std::nullopt;
      if (f && b) {
        floors[i] = Floor{f->warp_instructions + b->warp_instructions,
                          f->wavefronts + b->wavefronts, f->score + b->score,
                          views[i].first.words(), i};
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return floors[a].has_value() && (!floors[b].has_value() || *floors[a] < *floors[b]);
    });
  }
  std::optional<Floor> reference;  // the first planned view of Triton's mechanism
  for (const size_t view : order) {
    if (reference && floors[view] && *floors[view] > *reference) continue;
    absl::StatusOr<RoundTrip> trip =
        PlanTripInViews(problem, reversed, options, views[view], &forward_memo, &backward_memo);
    if (!trip.ok()) {
      last = trip.status();
      continue;
    }
    const ConversionPlan& fwd = trip->forward;
    const ConversionPlan& bwd = trip->backward;
    if (fwd.strategy == triton_forward && bwd.strategy == triton_backward) {
      const Floor cost{fwd.cost.warp_instructions + bwd.cost.warp_instructions,
                       fwd.cost.wavefronts_store + fwd.cost.wavefronts_load +
                           bwd.cost.wavefronts_store + bwd.cost.wavefronts_load,
                       fwd.cost.score + bwd.cost.score, fwd.src_view.words(), view};
      if (!reference || cost < *reference) reference = cost;
    }
    trips.emplace_back(view, *std::move(trip));
  }
  if (trips.empty()) {
    return last.ok() ? absl::InvalidArgumentError("convert: no word packing to plan with")
                     : last;
  }
  std::stable_sort(trips.begin(), trips.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<const plan::ConversionPlan*, const plan::ConversionPlan*>> pairs;
  for (const auto& [view, t] : trips) pairs.emplace_back(&t.forward, &t.backward);
  RoundTrip& chosen = trips[plan::PickRoundTrip(triton_forward, triton_backward, pairs)].second;
  if (narrow_one_warp) {
    if (auto narrowed = NarrowOneWarpTrip(problem, options, chosen)) return *std::move(narrowed);
  }
  return std::move(chosen);
}

namespace {

// Whether loop-carried words i and j hold the same elements: registers whose bases
// repeat (broadcast copies) are equal on entry and every conversion keeps them equal, so
// either may stand for the other.
bool SameElements(const ConversionProblem& problem, const WordView& v, size_t i, size_t j) {
  if (i % v.upw != j % v.upw) return false;
  for (uint32_t slot = 0; slot < (1u << v.pk()); ++slot) {
    if (plan::ApplyBasis(problem.src.reg, v.Reg(static_cast<uint32_t>(i / v.upw), slot)) !=
        plan::ApplyBasis(problem.src.reg, v.Reg(static_cast<uint32_t>(j / v.upw), slot))) {
      return false;
    }
  }
  return true;
}

// A round trip that moves nothing: no ops, and every output is its input or a copy of it.
bool MovesNothing(const ConversionProblem& problem, const WordView& v, const Program& body) {
  if (!body.ops.empty()) return false;
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    auto it = std::find(body.inputs.begin(), body.inputs.end(), body.outputs[i]);
    if (it == body.inputs.end() ||
        !SameElements(problem, v, i, static_cast<size_t>(it - body.inputs.begin()))) {
      return false;
    }
  }
  return true;
}

// Names the loop body's words: inputs are the loop-carried registers x; an output defined
// after the last read of x[i] takes x[i]'s register, so the back edge needs no copy.
std::vector<Reg> NameLoopWords(const Program& body, const std::vector<Reg>& x) {
  std::vector<Reg> names(body.num_words);
  for (size_t i = 0; i < x.size(); ++i) names[body.inputs[i]] = x[i];
  std::vector<size_t> x_last(x.size(), 0);
  std::vector<bool> x_live_out(x.size(), false);
  // The inputs that are word id, as lists: first_input[id], then next_input[i].
  std::vector<int> first_input(body.num_words, -1), next_input(body.inputs.size(), -1);
  for (size_t i = body.inputs.size(); i-- > 0;) {
    next_input[i] = first_input[body.inputs[i]];
    first_input[body.inputs[i]] = static_cast<int>(i);
  }
  std::vector<size_t> def(body.num_words, 0);
  for (size_t j = 0; j < body.ops.size(); ++j) {
    for (int id : body.ops[j].in) {
      for (int xi = first_input[id]; xi >= 0; xi = next_input[xi]) x_last[xi] = j + 1;
    }
    for (int id : body.ops[j].out) def[id] = j + 1;
  }
  for (int id : body.outputs) {
    for (int xi = first_input[id]; xi >= 0; xi = next_input[xi]) x_live_out[xi] = true;
  }
  std::vector<bool> taken(body.num_words, false);
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    int id = body.outputs[i];
    // The op that defines the output may itself read x[i] last (PTX reads before writing).
    if (def[id] == 0 || taken[id] || x_live_out[i] || def[id] < x_last[i]) continue;
    names[id] = x[i];
    taken[id] = true;
  }
  return names;
}

// The back edge: x[i] = output i, as a parallel copy, skipping words that already hold
// the same elements.
void EmitBackEdge(Writer& w, const ConversionProblem& problem, const WordView& sv,
                  const Program& body, const std::vector<Reg>& names,
                  const std::vector<Reg>& x) {
  // x_index[code]: the last j with x[j] the register of that code (Reg::Code), or -1; an
  // array where a std::map<Reg, size_t> cost ~5 k instructions a round trip.
  std::vector<int> x_index;
  for (size_t j = 0; j < x.size(); ++j) {
    const size_t code = static_cast<size_t>(x[j].Code());
    if (code >= x_index.size()) x_index.resize(code + 1, -1);
    x_index[code] = static_cast<int>(j);
  }
  auto index_of = [&](Reg r) {
    const size_t code = static_cast<size_t>(r.Code());
    return code < x_index.size() ? x_index[code] : -1;
  };
  std::vector<std::pair<Reg, Reg>> copies;
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    const Reg src = names[body.outputs[i]];
    if (src == x[i]) continue;
    const int j = index_of(src);
    if (j >= 0 && SameElements(problem, sv, static_cast<size_t>(j), i)) continue;
    copies.emplace_back(x[i], src);
  }
  bool overlap = false;
  for (auto& [dst, src] : copies) {
    for (auto& [d2, s2] : copies) overlap = overlap || src == d2;
  }
  if (!overlap) {
    for (auto& [dst, src] : copies) w.Insn("mov.b32", W::R(dst), W::R(src));
    return;
  }
  std::vector<Reg> tmp;
  for (auto& [dst, src] : copies) {
    tmp.push_back(w.NewReg());
    w.Insn("mov.b32", W::R(tmp.back()), W::R(src));
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    w.Insn("mov.b32", W::R(copies[i].first), W::R(tmp[i]));
  }
}

// The most registers a thread of a `threads`-thread CTA can have and the CTA still launch:
// 255, or what the SM's 65536 registers allow (allocated in units of 8).
int MaxRegisters(int threads) { return std::min(255, 65536 / threads / 8 * 8); }

// The module around the kernel: the header comment, sm_90, the shared buffer and the
// harness's signature (CLI.md), with a register bound.
//
// `.maxnreg` states the bound the hardware has anyway (MaxRegisters: the driver JIT does
// not apply it by itself: with `.maxnreg 255`, 16-warp kernels failed to launch with
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES on the H200); without it ptxas (12.8 and 13.0,
// and the driver's JIT) gave some one-warp shuffle kernels a register-minimising schedule
// that issues each word's two shuffles back to back (72 registers, 6.1 cycles per issued
// instruction in Nsight Compute, against 2.2 for the same loop once it had 136 registers).
// With the bound, the 148 one-warp harnesses ran 0.90x as long (geomean; worst 0.30x), and
// 4- and 16-warp ones were unchanged (corpus/plan/README.md, "What made v6's slow pairs
// slow").
Module HarnessModule(const ConversionProblem& problem, Harness harness, int64_t smem_total) {
  Module m;
  m.file = "<emitted>";
  m.comment = {"",
               absl::StrCat("Generated by warpcheck convert emit: ", problem.src_attr, " -> ",
                            problem.dst_attr, ", shape ", absl::StrJoin(problem.shape, "x"),
                            ", ", plan::DTypeName(problem.dtype), ", ", problem.num_warps,
                            " warps, harness ",
                            HarnessName(harness)),
               ""};
  m.version = "8.0";
  m.target = "sm_90";
  if (smem_total > 0) {
    Variable& smem = m.variables.emplace_back();
    smem.space = Space::kShared;
    smem.align = 16;
    smem.type = Type::kB8;
    smem.name = "warpcheck_smem";
    smem.count = smem_total;
  }
  Kernel& k = m.kernels.emplace_back();
  k.name = "kernel";
  k.is_visible = true;
  // in, out, iters, and the check harness's mid.
  const int count = harness == Harness::kCheck ? 4 : 3;
  for (int i = 0; i < count; ++i) {
    Param& p = k.params.emplace_back();
    p.name = absl::StrCat("kernel_param_", i);
    if (i == 2) {
      p.type = Type::kU32;
      continue;
    }
    p.type = Type::kU64;
    p.is_ptr = true;
    p.ptr_space = Space::kGlobal;
    p.align = 16;
  }
  k.reqntid = {static_cast<int>(problem.threads())};
  k.maxnreg = MaxRegisters(static_cast<int>(problem.threads()));
  return m;
}

// A harness as recorded: the module around the kernel (HarnessModule, its body empty)
// and the kernel's body.
struct Recording {
  Module frame;
  Writer body;
};

Recording RecordHarness(const ConversionProblem& problem, const ConversionPlan& forward,
                        const ConversionPlan* backward, Harness harness) {
  const bool round_trip = harness != Harness::kOnce;  // kRoundTrip, kCheck
  const bool check = harness == Harness::kCheck;
  // Statements: setup and ops of both directions, the global loads and stores (a few per
  // register), the frame.
  const size_t ops = forward.program.ops.size() * (check ? 2 : 1) +
                     forward.program.setup.size() * 8 +
                     (round_trip ? 2 * (backward->program.ops.size() +
                                        backward->program.setup.size() * 8)
                                 : 0);
  Writer w(64 + ops +
           6 * static_cast<size_t>(problem.src.num_regs() * (check ? 2 : 1) +
                                   problem.dst.num_regs()));
  const int64_t buf0 = forward.program.smem_bytes;
  const int64_t buf1 = round_trip ? backward->program.smem_bytes : 0;
  bool shared_one = false;  // both directions in buffer 0 (PlanRoundTrip, large tensors)
  if (round_trip) {
    for (const auto& v : backward->program.setup) {
      if (v.kind == SetupValue::Kind::kSmemAddr && v.buffer == 0) shared_one = true;
    }
  }
  const int64_t smem_total = shared_one ? std::max(buf0, buf1) : (buf0 + 15) / 16 * 16 + buf1;
  Reg in = w.NewWide(), out = w.NewWide(), mid;
  w.Insn("ld.param.u64", W::R(in), W::ParamAddr("kernel_param_0"));
  w.Insn("ld.param.u64", W::R(out), W::ParamAddr("kernel_param_1"));
  if (check) {
    mid = w.NewWide();
    w.Insn("ld.param.u64", W::R(mid), W::ParamAddr("kernel_param_3"));
  }
  w.tid = w.NewReg();
  w.Insn("mov.u32", W::R(w.tid), W::Special(SpecialReg::kTidX));
  if (smem_total > 0) {
    w.smem_base[0] = w.NewReg();
    w.Insn("mov.u32", W::R(w.smem_base[0]), W::Symbol("warpcheck_smem"));
    w.smem_base[1] = w.NewReg();
    w.Insn("add.u32", W::R(w.smem_base[1]), W::R(w.smem_base[0]), W::Imm((buf0 + 15) / 16 * 16));
  }
  std::vector<Reg> setup_f = EmitSetup(w, forward.program);
  std::vector<Reg> setup_b;
  if (round_trip) setup_b = EmitSetup(w, backward->program);
  // One loop body: both conversions, with the selects that undo each other removed.
  Program body;
  if (round_trip) {
    body = plan::Compose(forward.program, backward->program);
    plan::Simplify(body);
  }
  // A round trip that moves nothing has no loop, as LLVM deletes Triton's empty loop; its
  // time is the global loads and stores: a copy in runs of consecutive elements
  // (EmitGlobalCopy). (Elsewhere 32-bit words stay scalar: vectors made ptxas slow some
  // looping kernels 3x on the H200, corpus/plan/h200/timing_v2.tsv.)
  // (The check harness keeps its loop: what it runs is checked, not timed.)
  const bool moves_nothing =
      harness == Harness::kRoundTrip && MovesNothing(problem, forward.src_view, body);
  std::vector<Reg> x;
  if (!moves_nothing) x = EmitGlobalLoad(w, problem, problem.src, forward.src_view, in);
  // The forward conversion alone (the once harness, and the check harness's first part):
  // its words stored in the dst layout to `to`. The ops write registers of their own, so
  // `x` still holds the loaded words after it.
  auto forward_alone = [&](Reg to) {
    std::vector<Reg> names(forward.program.num_words);
    for (size_t i = 0; i < x.size(); ++i) names[forward.program.inputs[i]] = x[i];
    EmitOps(w, forward.program, setup_f, names);
    std::vector<Reg> y;
    for (int id : forward.program.outputs) y.push_back(names[id]);
    EmitGlobalStore(w, problem, problem.dst, forward.dst_view, y, to);
  };

  if (!round_trip) {
    forward_alone(out);
  } else if (moves_nothing) {
    EmitGlobalCopy(w, problem, problem.src, in, out);
  } else {
    if (check) {
      forward_alone(mid);
      // The loop's first stores into buffer 0 (and, when both directions share it, the
      // backward's) must wait for every warp's loads of the conversion above.
      if (forward.program.smem_bytes > 0) w.Insn("bar.sync", W::Imm(0));
    }
    Reg cnt = w.NewReg(), pz = w.NewPred(), pl = w.NewPred();
    w.Insn("ld.param.u32", W::R(cnt), W::ParamAddr("kernel_param_2"));
    w.Insn("setp.eq.s32", W::R(pz), W::R(cnt), W::Imm(0));
    w.Guarded(pz, "bra", W::Symbol("$L_done"));
    w.Label("$L_loop");
    std::vector<Reg> names = NameLoopWords(body, x);
    EmitOps(w, body, SetupNames(body, setup_f, forward.program, setup_b, backward->program),
            names);
    EmitBackEdge(w, problem, forward.src_view, body, names, x);
    w.Insn("add.s32", W::R(cnt), W::R(cnt), W::Imm(-1));
    w.Insn("setp.ne.s32", W::R(pl), W::R(cnt), W::Imm(0));
    w.Guarded(pl, "bra", W::Symbol("$L_loop"));
    w.Label("$L_done");
    EmitGlobalStore(w, problem, problem.src, forward.src_view, x, out);
  }
  w.Insn("ret");
  return Recording{HarnessModule(problem, harness, smem_total), std::move(w)};
}

}  // namespace

// The frame and the body's opening declarations located as printed. Ensures: the line of
// the body's first statement after them (it follows a blank line, as in EmitHarness).
static int LocateFrame(Recording& r) {
  Kernel& k = r.frame.kernels[0];
  r.body.AppendDeclarations(&k.body);
  LocateAsPrinted(&r.frame);
  return k.body.back().loc.line + 2;
}

Module EmitHarnessModule(const ConversionProblem& problem, const ConversionPlan& forward,
                         const ConversionPlan* backward, Harness harness) {
  Recording r = RecordHarness(problem, forward, backward, harness);
  Kernel& k = r.frame.kernels[0];
  k.body.reserve(Writer::kDeclarations + r.body.size());
  const int first_line = LocateFrame(r);
  r.body.AppendTree(&k, first_line);  // locates the rest of the body
  return std::move(r.frame);
}

struct HarnessStream::Impl {
  Recording r;
  std::array<int, 4> first;  // Writer::DeclareRegisters of the frame's kernel
  int first_line = 0;        // the body's first statement after its declarations
  std::vector<uint32_t> insn_statement;  // statement index of each instruction (pc)
  size_t Size() const { return r.body.size(); }
};

HarnessStream::HarnessStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HarnessStream::~HarnessStream() = default;

const Module& HarnessStream::frame() const { return impl_->r.frame; }

size_t HarnessStream::size() const { return impl_->Size(); }

const char* HarnessStream::Statement(size_t i, Instruction* insn) const {
  const Impl& m = *impl_;
  return m.r.body.FillStatement(i, m.first, m.r.frame.kernels[0],
                                m.first_line + static_cast<int>(i), insn);
}

const char* HarnessStream::Label(size_t i) const { return impl_->r.body.LabelOf(i); }

std::string HarnessStream::InstructionText(size_t pc) const {
  Instruction insn;
  Statement(impl_->insn_statement[pc], &insn);
  return PrintInstruction(insn);
}

std::shared_ptr<const HarnessStream> StreamHarness(const ConversionProblem& problem,
                                                   const ConversionPlan& forward,
                                                   const ConversionPlan* backward,
                                                   Harness harness) {
  // The frame as EmitHarnessModule makes it before its body's statements (the same
  // lines: LocateAsPrinted of the declarations), with the registers they name declared.
  auto impl = std::make_unique<HarnessStream::Impl>(
      HarnessStream::Impl{RecordHarness(problem, forward, backward, harness), {}, 0, {}});
  impl->first_line = LocateFrame(impl->r);
  impl->first = impl->r.body.DeclareRegisters(&impl->r.frame.kernels[0]);
  impl->insn_statement.reserve(impl->Size());
  for (size_t i = 0; i < impl->Size(); ++i) {
    if (impl->r.body.LabelOf(i) == nullptr) {
      impl->insn_statement.push_back(static_cast<uint32_t>(i));
    }
  }
  return std::shared_ptr<const HarnessStream>(new HarnessStream(std::move(impl)));
}

std::string EmitHarness(const ConversionProblem& problem, const ConversionPlan& forward,
                        const ConversionPlan* backward, Harness harness) {
  Recording r = RecordHarness(problem, forward, backward, harness);
  // The frame printed with the body's opening register declarations only ends with the
  // kernel's closing brace; the rest of the body goes before it, after the blank line
  // PrintModule puts after a body's opening declarations.
  r.body.AppendDeclarations(&r.frame.kernels[0].body);
  std::string text = PrintModule(r.frame);
  WARPCHECK_CHECK(absl::EndsWith(text, "\n}\n"));
  text.resize(text.size() - 2);
  text.push_back('\n');
  r.body.AppendBody(&text);
  text += "}\n";
  return text;
}

warpcheck::LaunchSpec HarnessLaunchSpec(const ConversionProblem& problem,
                                        const std::string& ptx_file,
                                        warpcheck::BufferParam::Fill fill, uint64_t seed,
                                        uint32_t iters, Harness harness) {
  warpcheck::LaunchSpec spec;
  spec.set_ptx_file(ptx_file);
  spec.set_kernel("kernel");
  spec.mutable_grid()->set_x(1);
  spec.mutable_grid()->set_y(1);
  spec.mutable_grid()->set_z(1);
  spec.mutable_block()->set_x(problem.threads());
  spec.mutable_block()->set_y(1);
  spec.mutable_block()->set_z(1);
  const uint64_t bytes = static_cast<uint64_t>(problem.num_elements()) * problem.element_bytes();
  auto* in = spec.add_param()->mutable_buffer();
  in->set_name("in");
  in->set_size_bytes(bytes);
  in->set_fill(fill);
  in->set_element_bytes(problem.element_bytes());
  if (fill == warpcheck::BufferParam::RANDOM) in->set_seed(seed);
  auto* out = spec.add_param()->mutable_buffer();
  out->set_name("out");
  out->set_size_bytes(bytes);
  out->set_fill(warpcheck::BufferParam::POISON);
  spec.add_param()->set_u32(iters);
  if (harness == Harness::kCheck) {
    auto* mid = spec.add_param()->mutable_buffer();
    mid->set_name("mid");
    mid->set_size_bytes(bytes);
    mid->set_fill(warpcheck::BufferParam::POISON);
    auto* m = spec.add_expect();
    m->mutable_buffers_equal()->set_a("in");
    m->mutable_buffers_equal()->set_b("mid");
  }
  auto* e = spec.add_expect();
  e->mutable_buffers_equal()->set_a("in");
  e->mutable_buffers_equal()->set_b("out");
  spec.set_source(absl::StrCat("warpcheck convert emit: ", problem.src_attr, " -> ",
                               problem.dst_attr, " ", absl::StrJoin(problem.shape, "x"), " ",
                               plan::DTypeName(problem.dtype)));
  return spec;
}

const char* HarnessName(Harness harness) {
  switch (harness) {
    case Harness::kRoundTrip: return "roundtrip";
    case Harness::kOnce: return "once";
    case Harness::kCheck: return "check";
  }
  return "?";
}

std::optional<uint32_t> CheckLoopPc(const HarnessStream& stream) {
  uint32_t pc = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    const char* label = stream.Label(i);
    if (label == nullptr) {
      ++pc;
    } else if (absl::string_view(label) == "$L_loop") {
      return pc;
    }
  }
  return std::nullopt;
}

std::optional<uint32_t> CheckLoopPc(const Kernel& kernel) {
  uint32_t pc = 0;
  for (const Statement& s : kernel.body) {
    if (s.kind == Statement::Kind::kLabel && s.label == "$L_loop") return pc;
    if (s.kind == Statement::Kind::kInstruction) ++pc;
  }
  return std::nullopt;
}

}  // namespace warpcheck::sim::ptx
