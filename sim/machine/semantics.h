// Semantics of the op table: one decode function per ptx::Opcode.
//
// A decode function checks what the machine needs beyond the grammar (register classes,
// type and mode combinations it implements) and fills an `Insn` with the exec function
// for exactly that combination, so execution does no further dispatch. The families live
// in sem_int.cc (integer and bit ops, setp, selp, mov), sem_float.cc (cvt and float
// arithmetic), sem_mem.cc (ld, st, atom, red, cvta), sem_warp.cc (shfl, vote,
// bar.warp.sync, ldmatrix, stmatrix) and sem_control.cc (branches, barriers, fences).
// The scheduler-facing part of warp-level and barrier instructions (waiting, member
// masks) is in machine.cc; their exec functions do the data movement once all lanes
// are there.
#ifndef WARPCHECK_SIM_MACHINE_SEMANTICS_H_
#define WARPCHECK_SIM_MACHINE_SEMANTICS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/machine/machine.h"
#include "sim/machine/program.h"
#include "sim/ptx/ast.h"

namespace warpcheck::sim::machine {

// State shared by the decode functions of one kernel.
class DecodeCtx {
 public:
  DecodeCtx(const ptx::Module& module, const ptx::Kernel& kernel, Program* program);

  // Assigns slots to registers and computes memory layouts; call once before decoding.
  absl::Status Init();

  absl::Status Error(const ptx::SourceLoc& loc, absl::string_view what) const;

  // A value slot holding `o` as an operand of type `type` (registers, immediates, symbol
  // addresses, special registers).
  absl::StatusOr<uint32_t> Src(const ptx::Operand& o, ptx::Type type) {
    // Value registers and immediates here (every decoded instruction has some); symbols,
    // special registers and every error out of line.
    if (o.kind == ptx::OperandKind::kReg && !IsPredReg(o)) {
      const uint32_t slot = reg_index_[o.reg];
      reads_.push_back(slot);
      return slot;
    }
    if (o.kind == ptx::OperandKind::kImm) return Const(ImmValue(o, type));
    return OtherSrc(o);
  }
  // A destination slot; `*dmask` receives the register's width mask. `bits` is the width
  // the instruction writes: a narrower register is an error.
  absl::StatusOr<uint32_t> Dst(const ptx::Operand& o, int bits,
                               uint64_t* dmask = nullptr) {
    // A wide enough value register here; the sink and every error out of line.
    if (o.kind == ptx::OperandKind::kReg && reg_bits_[o.reg] >= bits && !IsPredReg(o)) {
      if (dmask != nullptr) *dmask = WidthMaskOf(reg_bits_[o.reg]);
      const uint32_t slot = reg_index_[o.reg];
      writes_.push_back(slot);
      return slot;
    }
    return OtherDst(o, bits, dmask);
  }
  // Predicate source (optionally negated) and destination.
  absl::Status PredSrc(const ptx::Operand& o, uint16_t* index, bool* negated);
  absl::StatusOr<uint16_t> PredDst(const ptx::Operand& o);
  // Address [base+offset] in `space`: the base slot (a constant for symbols) and offset.
  absl::Status Address(const ptx::Operand& o, ptx::Space space, uint32_t* base,
                       int64_t* offset);
  uint32_t Const(uint64_t value);
  absl::StatusOr<uint32_t> LabelPc(const ptx::Operand& o) const;
  bool IsPredReg(const ptx::Operand& o) const {
    return o.kind == ptx::OperandKind::kReg &&
           kernel_.registers[o.reg].type == ptx::Type::kPred;
  }
  int RegBits(const ptx::Operand& o) const { return reg_bits_[o.reg]; }

  const ptx::Kernel& kernel() const { return kernel_; }
  Program* program() { return program_; }
  void SetLabelPcs(absl::flat_hash_map<std::string, uint32_t> pcs) {
    labels_ = std::move(pcs);
  }

  // The register slots this instruction's decode named as value sources (Src, an
  // address base) and as destinations (Dst), since the last ClearAccesses: what the exec
  // function reads and writes of the register file (Decode's ZeroSlots).
  const std::vector<uint32_t>& reads() const { return reads_; }
  const std::vector<uint32_t>& writes() const { return writes_; }
  void ClearAccesses() {
    reads_.clear();
    writes_.clear();
  }

  uint16_t pred_false() const { return pred_false_; }
  uint16_t pred_true() const { return pred_true_; }

 private:
  const ptx::Module& module_;
  const ptx::Kernel& kernel_;
  Program* program_;
  static uint64_t WidthMaskOf(int bits) {
    return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  }
  // Src and Dst for everything but their common cases (out of line).
  absl::StatusOr<uint32_t> OtherSrc(const ptx::Operand& o);
  absl::StatusOr<uint32_t> OtherDst(const ptx::Operand& o, int bits, uint64_t* dmask);

  std::vector<uint32_t> reg_index_;  // per kernel register: slot or predicate index
  std::vector<uint8_t> reg_bits_;    // per kernel register: ptx::TypeBits of its type
  absl::flat_hash_map<uint64_t, uint32_t> consts_;
  // A direct-mapped copy of recent consts_ entries (value -> slot), looked at first: most
  // immediates of a kernel repeat (offsets, masks, shift counts), and a hash-map lookup
  // was most of a decoded instruction's cost. Entries only ever mirror consts_, so a slot
  // is assigned exactly when, and as, the map alone assigned it.
  struct ConstCacheEntry {
    uint64_t value = 0;
    uint32_t slot = 0;
    bool used = false;
  };
  static constexpr uint32_t kConstCacheBits = 6;
  ConstCacheEntry const_cache_[1u << kConstCacheBits];
  absl::flat_hash_map<int, uint32_t> specials_;
  absl::flat_hash_map<std::string, uint32_t> labels_;
  // Symbol -> (space, address within the space) for shared/local/param; globals by index.
  struct Symbol {
    ptx::Space space;
    uint64_t address;  // shared/local/param offset
    int global = -1;   // index into Program::globals
  };
  absl::flat_hash_map<std::string, Symbol> symbols_;
  absl::flat_hash_map<std::string, uint32_t> global_slots_;
  uint32_t sink_slot_ = 0;
  uint16_t sink_pred_ = 0;
  uint16_t pred_false_ = 0, pred_true_ = 0;
  std::vector<uint32_t> reads_, writes_;
};

using DecodeFn = absl::Status (*)(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);

// Ensures: the decode function of `op` (never null for op < kNumOpcodes).
DecodeFn SemanticsOf(ptx::Opcode op);

// Families (defined in sem_*.cc).
absl::Status DecodeInt(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeMov(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeSetp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeSelp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeCvt(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeFloat(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeMemory(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeCvta(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeAtom(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeCreatePolicy(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeWarp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);
absl::Status DecodeControl(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out);

// Exec helpers shared by families.
bool ExecNop(Exec& x, const Insn& in, uint32_t mask);

// Pure per-lane operations (unit-tested directly).
// prmt.b32 d, a, b, c in `mode` (default: c's four low nibbles select bytes of {b, a}).
uint32_t Prmt(uint32_t a, uint32_t b, uint32_t c, ptx::PrmtMode mode);
// lop3.b32: bit i of the result is lut[(a_i << 2) | (b_i << 1) | c_i].
uint32_t Lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut);

template <typename F>
inline void ForLanes(uint32_t mask, F f) {
  if (mask == 0xFFFFFFFFu) {
    // Unrolled: the bodies here (ld/st address passes and moves) are a few instructions,
    // and the loop's own increment, compare and jump were a fifth of them.
#pragma GCC unroll 8
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    for (uint32_t m = mask; m != 0; m &= m - 1) f(__builtin_ctz(m));
  }
}

// ForLanes for element-wise operations: f(l) reads only lane l of its source slots and
// writes only lane l of its destination slots (a destination may be one of the sources:
// `xor.b32 %r1, %r1, %r2`, but slots never overlap otherwise). Then the full-warp loop
// has no dependence between lanes, which `ivdep` tells GCC (`assume_safety` clang), so it
// runs as vector code (two 64-bit lanes per SSE2 operation in the baseline x86-64
// build) without the alias checks it would otherwise need; the lanes' results are the
// same.
template <typename F>
inline void ForLanesEw(uint32_t mask, F f) {
  if (mask == 0xFFFFFFFFu) {
#if defined(__clang__)
#pragma clang loop vectorize(assume_safety)
#else
#pragma GCC ivdep
#endif
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    for (uint32_t m = mask; m != 0; m &= m - 1) f(__builtin_ctz(m));
  }
}

// setp (integer and float): writes p = cmp BOOL c and q = !cmp BOOL c for the lanes
// of `mask`, where BOOL is the .and/.or/.xor combiner in in.aux2 (0 = none).
inline void SetpFinish(Exec& x, const Insn& in, uint32_t mask, uint32_t cmp) {
  uint32_t c = x.preds[in.q] ^ (in.q_neg ? ~0u : 0u);
  uint32_t p = cmp, q = ~cmp;
  switch (in.aux2) {
    case 1:
      p &= c;
      q &= c;
      break;
    case 2:
      p |= c;
      q |= c;
      break;
    case 3:
      p ^= c;
      q ^= c;
      break;
    default:
      break;
  }
  uint32_t& dp = x.preds[in.p[0]];
  dp = (dp & ~mask) | (p & mask);
  if (in.has_p1) {
    uint32_t& dq = x.preds[in.p[1]];
    dq = (dq & ~mask) | (q & mask);
  }
}


}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_SEMANTICS_H_
