// The PTX subset as a syntax tree (shared/spec/ptx-subset.md is the language).
//
// A `Module` is what one .ptx file holds: the header directives, module-scope variables
// (`.shared`, `.extern .shared`, `.global`, `.const` arrays with initialisers) and the
// `.entry` kernels. A `Kernel` keeps its body as the ordered list of statements the
// source had (register declarations, `{`/`}` scopes, labels, instructions, local
// variables), so that the printer can write it back and a reader can diff the two:
//
//     .visible .entry kernel(.param .u64 .ptr .global .align 1 kernel_param_0, ...)
//     .reqntid 128
//     {
//       .reg .b32 %r<55>;                 RegDecl{type=b32, name="%r", count=55}
//       mov.u32 %r1, %tid.x;              Instruction{op=kMov, mods={types=[u32]}, ...}
//       { .reg .pred %p1; ... }           ScopeBegin, RegDecl, ..., ScopeEnd
//     $L__BB0_2:                          Label
//       @%p3 bra $L__BB0_2;               Instruction{guard=%p3, op=kBra}
//     }
//
// Registers are resolved while parsing: every register operand carries `reg`, an index
// into Kernel::registers, so nested inline-asm scopes that redeclare a name refer to
// their own register. Opcodes are resolved against the op table (op_table.h) into an
// `Opcode` and structured `Modifiers`; the original dotted spelling is kept in
// `opcode_text` for traces and messages.
//
// Debug information (`.loc`, `.file`, `.section` blocks) and `.pragma` are read and
// dropped: they never reach the tree, and the printer does not write them.
#ifndef WARPCHECK_SIM_PTX_AST_H_
#define WARPCHECK_SIM_PTX_AST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/ptx/op_table.h"

namespace warpcheck::sim::ptx {

struct SourceLoc {
  int line = 0;
  int column = 0;
  bool operator==(const SourceLoc&) const = default;
};

enum class OperandKind : uint8_t {
  kReg,      // %r1 (reg = index into Kernel::registers), possibly `!%p` (negated)
  kSink,     // _
  kImm,      // integer or float immediate (imm_kind, bits)
  kSpecial,  // %tid.x ... (special)
  kSymbol,   // a label, variable or parameter name (name)
  kVector,   // {a, b, ...} (elems)
  kAddress,  // [base], [base+imm]; base is a register or a symbol, or absent ([imm])
  kPair,     // a|b for setp and shfl destinations (elems[0], elems[1])
};

enum class ImmKind : uint8_t {
  kInt,  // bits = the value as a 64-bit two's complement integer
  kF32,  // 0fXXXXXXXX: bits = the IEEE single bits
  kF64,  // 0dXXXXXXXXXXXXXXXX, or a decimal literal like 1.0: bits = IEEE double bits
};

enum class SpecialReg : uint8_t {
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneid,
  kWarpid,
  kNwarpid,
  kLanemaskEq,
  kLanemaskLe,
  kLanemaskLt,
  kLanemaskGe,
  kLanemaskGt,
  kClock,
  kClock64,
  kGlobaltimer,
};
// Ensures: the PTX spelling, e.g. "%tid.x".
const char* SpecialRegName(SpecialReg r);
// Ensures: the special register spelled `name`, if it is one of the subset.
std::optional<SpecialReg> ParseSpecialReg(absl::string_view name);
// Ensures: 32 or 64 (clock64, globaltimer).
int SpecialRegBits(SpecialReg r);

struct Operand {
  OperandKind kind = OperandKind::kReg;
  SourceLoc loc;
  // kReg: the name as written and its resolved index; kSymbol: the name; kAddress: the
  // base name (register or symbol) or empty for an absolute [imm] address.
  std::string name;
  int reg = -1;
  bool negated = false;  // kReg predicates: `!%p`
  // kImm
  ImmKind imm_kind = ImmKind::kInt;
  uint64_t bits = 0;
  bool hex = false;  // printed as 0x... (kept from the source for readability)
  // kSpecial
  SpecialReg special = SpecialReg::kTidX;
  // kAddress: [name + offset]; base_is_reg tells a register base from a symbol base.
  bool base_is_reg = false;
  int64_t offset = 0;
  bool zero_offset_written = false;  // `[base+0]`: printed so (kept from the source)
  // kVector, kPair
  std::vector<Operand> elems;

  bool operator==(const Operand&) const = default;
};

// One declared register. Ranges `%r<55>` declare %r0 ... %r54 as separate entries.
struct Register {
  std::string name;
  Type type = Type::kB32;  // kPred for predicates
  int scope = 0;           // nesting depth of the declaring scope (0 = function body)
  bool operator==(const Register&) const = default;
};

struct Instruction {
  SourceLoc loc;
  // Guard predicate: `@%p` / `@!%p`; guard.kind == kReg when present.
  std::optional<Operand> guard;
  Opcode op = Opcode::kMov;
  std::string opcode_text;  // "ld.global.v4.b32" as written
  Modifiers mods;
  std::vector<Operand> operands;
  bool operator==(const Instruction&) const = default;
};

// A variable (module scope, or .local/.shared inside a kernel).
struct Variable {
  SourceLoc loc;
  Space space = Space::kGlobal;  // kShared, kGlobal, kConst, kLocal
  bool is_extern = false;        // .extern .shared NAME[] (dynamic shared memory)
  bool is_visible = false;
  int align = 0;  // 0 = natural alignment of the element type
  Type type = Type::kB8;
  std::string name;
  // Array length in elements; -1 = scalar; 0 with is_extern = unsized [].
  int64_t count = -1;
  // Initialiser values in element order (integers, or float bits); empty = zero.
  std::vector<uint64_t> init;
  bool operator==(const Variable&) const = default;
};

struct RegDecl {
  Type type = Type::kB32;
  std::string name;  // "%r"
  int count = -1;    // -1: a single register named `name`; N: %r<N>
  bool operator==(const RegDecl&) const = default;
};

struct Statement {
  enum class Kind : uint8_t {
    kRegDecl,
    kInstruction,
    kLabel,
    kScopeBegin,
    kScopeEnd,
    kVariable
  };
  Kind kind = Kind::kInstruction;
  SourceLoc loc;
  std::vector<RegDecl> regs;  // kRegDecl: one `.reg TYPE a, b<4>, c;` line
  Instruction insn;           // kInstruction
  std::string label;          // kLabel
  Variable var;               // kVariable
  bool operator==(const Statement&) const = default;
};

struct Param {
  SourceLoc loc;
  Type type = Type::kU64;
  std::string name;
  bool is_ptr = false;                // .ptr
  Space ptr_space = Space::kGeneric;  // .ptr .global
  int align = 0;                      // .align N (0 = none)
  int64_t count = -1;                 // .param .b8 name[16]: byte arrays
  bool operator==(const Param&) const = default;
};

struct Kernel {
  SourceLoc loc;
  std::string name;
  bool is_visible = false;
  std::vector<Param> params;
  // .reqntid / .maxntid: up to three values each, empty when absent.
  std::vector<int> reqntid;
  std::vector<int> maxntid;
  int minnctapersm = 0;
  int maxnreg = 0;
  std::vector<Statement> body;
  // Every register the body declares (index = Operand::reg).
  std::vector<Register> registers;
  bool operator==(const Kernel&) const = default;
};

struct Module {
  std::string file;     // path the module was read from (for messages), may be empty
  // Comment lines the printer writes first, each as `// line` (`//` when empty). The
  // parser drops comments, so a parsed module has none; equality ignores them.
  std::vector<std::string> comment;
  std::string version;  // "8.7"
  std::string target;   // "sm_90a" (extra target options after a comma are kept)
  int address_size = 64;
  std::vector<Variable> variables;  // module scope, in source order
  std::vector<Kernel> kernels;
  bool operator==(const Module& o) const {
    return version == o.version && target == o.target && address_size == o.address_size &&
           variables == o.variables && kernels == o.kernels;
  }
};

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_AST_H_
