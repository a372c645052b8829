// The op table: every PTX instruction of the subset, as data (Spike's `encoding.h` idea).
//
// One `OpDesc` per opcode says how it is spelled, which modifier categories it takes (in
// the order PTX writes them), which operand shapes it accepts, and which counter class
// it belongs to. The parser reads instructions through this table and nothing else, so
// an opcode, modifier or operand shape that is not in the table is an input error, never
// a silent skip. Semantics live in sim/machine (machine/semantics.h maps each `Opcode`
// to its decode function); tests/sim/ptx/ptx_op_table_test.cc checks the two agree.
//
//   opcode text   "ld.global.L1::evict_last.v4.b32"
//   name          "ld"               (longest dotted prefix found in the table)
//   modifiers     space=global, hints=[L1::evict_last], vec=4, types=[b32]
//   operands      "V,a" = a register or vector destination, an address
//
// Operand shape letters (forms separated by '|', operands by ','):
//   d  destination register or `_`        p  predicate destination or `_`
//   P  predicate destination, or pair p|q  D  destination register, optional `|p`
//   s  source: register, immediate or symbol
//   S  mov source: also a special register or a vector {a, b}
//   q  predicate source, optionally negated `!p`
//   V  register, immediate or vector {a, b, c, d} (elements: registers, `_`, immediates)
//   a  address [reg], [reg+imm], [symbol+imm], [imm]
//   l  label              i  integer immediate
#ifndef WARPCHECK_SIM_PTX_OP_TABLE_H_
#define WARPCHECK_SIM_PTX_OP_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace warpcheck::sim::ptx {

// Data types (register declarations, instruction type modifiers, variables).
enum class Type : uint8_t {
  kPred,
  kB8,
  kB16,
  kB32,
  kB64,
  kB128,
  kU8,
  kU16,
  kU32,
  kU64,
  kS8,
  kS16,
  kS32,
  kS64,
  kF16,
  kF16x2,
  kBf16,
  kBf16x2,
  kF32,
  kF64,
};
const char* TypeName(Type t);  // "b32" (no dot)
std::optional<Type> ParseType(absl::string_view word);
int TypeBits(Type t);   // 1 for pred, 8..128
bool IsSigned(Type t);  // sN
bool IsFloat(Type t);   // f16 f16x2 bf16 bf16x2 f32 f64

enum class Space : uint8_t {
  kNone,
  kGeneric,
  kGlobal,
  kShared,
  kSharedCluster,
  kLocal,
  kParam,
  kConst
};
const char* SpaceName(Space s);  // "shared::cluster"; "" for kNone/kGeneric

enum class CmpOp : uint8_t {
  kNone,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLo,
  kLs,
  kHi,
  kHs,
  kEqu,
  kNeu,
  kLtu,
  kLeu,
  kGtu,
  kGeu,
  kNum,
  kNan,
};
enum class BoolOp : uint8_t { kNone, kAnd, kOr, kXor };
enum class Rounding : uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };
enum class MulMode : uint8_t { kNone, kLo, kHi, kWide };
enum class ShflMode : uint8_t { kNone, kUp, kDown, kBfly, kIdx };
enum class VoteMode : uint8_t { kNone, kAll, kAny, kUni, kBallot };
enum class PrmtMode : uint8_t { kDefault, kF4e, kB4e, kRc8, kEcl, kEcr, kRc16 };
enum class AtomOp : uint8_t {
  kNone,
  kAnd,
  kOr,
  kXor,
  kCas,
  kExch,
  kAdd,
  kInc,
  kDec,
  kMin,
  kMax
};
enum class Sem : uint8_t {
  kNone,
  kWeak,
  kVolatile,
  kRelaxed,
  kAcquire,
  kRelease,
  kAcqRel,
  kSc
};
enum class Scope : uint8_t { kNone, kCta, kCluster, kGpu, kSys };
enum class MatrixShape : uint8_t { kNone, kM8n8, kM16n16, kM16n8, kM8n16 };

// Modifier categories, in the order an OpDesc lists them.
enum class ModKind : uint8_t {
  kType,
  kSpace,
  kVec,
  kCmp,
  kBool,
  kRnd,
  kFtz,
  kSat,
  kMul,
  kShfl,
  kVote,
  kPrmt,
  kAtomOp,
  kSem,
  kScope,
  kHint,
  kShape,
  kNum,
  kTrans,
  kUni,
  kAligned,
  kTo,
  kNc,
  kProxy,
  kPolicy,
};

struct Modifiers {
  // cvt: {dst, src}; most ops: one. Inline (no allocation per instruction: the emitter
  // and the parser make one Modifiers per instruction, copied from a cached opcode).
  absl::InlinedVector<Type, 2> types;
  Space space = Space::kNone;
  int vec = 1;  // .v2 / .v4
  CmpOp cmp = CmpOp::kNone;
  BoolOp bool_op = BoolOp::kNone;
  Rounding rnd = Rounding::kNone;
  bool ftz = false;
  bool sat = false;
  MulMode mul = MulMode::kNone;
  ShflMode shfl = ShflMode::kNone;
  VoteMode vote = VoteMode::kNone;
  PrmtMode prmt = PrmtMode::kDefault;
  AtomOp atom = AtomOp::kNone;
  Sem sem = Sem::kNone;
  Scope scope = Scope::kNone;
  MatrixShape shape = MatrixShape::kNone;
  int num = 0;  // ldmatrix/stmatrix .x1/.x2/.x4
  bool trans = false;
  bool uni = false;
  bool aligned = false;
  bool to = false;  // cvta.to.space
  bool nc = false;
  // Ignored by the machine, kept for printing: cache hints (L1::evict_last,
  // L2::cache_hint, ca, cg, cs, lu, cv, wb, wt), createpolicy's fractional/L2 policies,
  // fence.proxy kinds.
  std::vector<std::string> hints;
  bool operator==(const Modifiers&) const = default;
};

enum class Opcode : uint16_t {
  // Integer and bit operations.
  kMov,
  kAdd,
  kSub,
  kMul,
  kMad,
  kNeg,
  kAbs,
  kMin,
  kMax,
  kDiv,
  kRem,
  kAnd,
  kOr,
  kXor,
  kNot,
  kCnot,
  kShl,
  kShr,
  kBfe,
  kBfi,
  kPrmt,
  kLop3,
  kPopc,
  kClz,
  kBrev,
  kSetp,
  kSelp,
  kCvt,
  kCvta,
  kFma,
  // Memory.
  kLd,
  kSt,
  kAtom,
  kRed,
  kCreatePolicy,
  // Warp-level.
  kShfl,
  kVote,
  kActivemask,
  kBarWarpSync,
  kLdmatrix,
  kStmatrix,
  // CTA barriers, fences, control.
  kBarSync,
  kBarArrive,
  kBarrierSync,
  kBarrierArrive,
  kMembar,
  kFence,
  kBra,
  kRet,
  kExit,
  kNanosleep,
  kNumOpcodes,
};

// Counter classes (shared/spec/ptx-subset.md "Counters"). Loads and stores are refined by
// their state space (ResolveClass).
enum class OpClass : uint8_t {
  kAlu,
  kSelpPrmt,
  kShfl,
  kVote,
  kLdShared,
  kStShared,
  kLdMatrix,
  kStMatrix,
  kLdGlobal,
  kStGlobal,
  kLdParam,
  kLdLocal,
  kStLocal,
  kLdGeneric,
  kStGeneric,
  kAtomic,
  kBarrier,
  kWarpSync,
  kFence,
  kBranch,
  kOther,
  kNumClasses,
};
const char* OpClassName(OpClass c);  // "ld_shared", used as counter names

struct OpDesc {
  Opcode op;
  const char* name;       // "ld", "shfl.sync", "ldmatrix.sync.aligned"
  const char* modifiers;  // allowed categories in print order, e.g. "sem scope space hint
                          // vec type"
  const char* operands;   // operand shapes, e.g. "V,a|V,a,s"
  OpClass
      op_class;  // kLdGlobal for every load / kStGlobal for every store: see ResolveClass
  int min_types;  // how many type modifiers are required (0, 1 or 2)
  int max_types;
  const char* summary;  // one line for docs and messages
};

// Ensures: the table, indexed by Opcode (table[i].op == Opcode(i)).
absl::Span<const OpDesc> OpTable();
const OpDesc& Desc(Opcode op);

// Ensures: the counter class of an instruction (loads/stores by space, atomics, ...).
OpClass ResolveClass(Opcode op, const Modifiers& mods);

// Splits `text` ("ld.global.v4.b32") into an opcode and modifiers.
// Requires: nothing. Ensures: InvalidArgument naming the offending word for an unknown
// opcode, an unknown or duplicated modifier, or a modifier category the opcode does not
// take; the message has no position (the parser adds it).
struct ParsedOpcode {
  Opcode op;
  Modifiers mods;
};
absl::StatusOr<ParsedOpcode> ParseOpcode(absl::string_view text);

// Ensures: a canonical spelling of (op, mods) that ParseOpcode reads back to the same
// value, with modifiers in the order of OpDesc::modifiers.
std::string FormatOpcode(Opcode op, const Modifiers& mods);

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_OP_TABLE_H_
