// Control flow, CTA barriers and fences, and the op table's semantics column.
//
// bra / ret / exit and the barriers are carried out by the scheduler (machine.cc) from
// the Insn's kind and fields; their decode functions only fill those in. Fences and
// nanosleep change nothing in this machine (memory is sequentially consistent and time
// is the instruction count).
#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

using ptx::Opcode;

absl::Status DecodeControl(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  switch (in.op) {
    case Opcode::kBra:
      out->kind = InsnKind::kBranch;
      out->fn = ExecNop;
      { ASSIGN_OR_RETURN(out->target, ctx.LabelPc(in.operands[0])); }
      return absl::OkStatus();
    case Opcode::kRet:
    case Opcode::kExit:
      out->kind = InsnKind::kExit;
      out->fn = ExecNop;
      return absl::OkStatus();
    case Opcode::kBarSync:
    case Opcode::kBarrierSync:
    case Opcode::kBarArrive:
    case Opcode::kBarrierArrive: {
      out->kind = InsnKind::kBarrier;
      out->fn = ExecNop;
      bool arrive = in.op == Opcode::kBarArrive || in.op == Opcode::kBarrierArrive;
      // bar.sync and bar.arrive are the aligned forms of barrier.sync / barrier.arrive.
      bool aligned =
          in.op == Opcode::kBarSync || in.op == Opcode::kBarArrive || in.mods.aligned;
      const ptx::Operand& id = in.operands[0];
      if (id.kind == ptx::OperandKind::kImm && id.bits > 15) {
        return ctx.Error(id.loc, "barrier ids are 0..15");
      }
      ASSIGN_OR_RETURN(out->s[0], ctx.Src(id, ptx::Type::kU32));
      out->ns = 1;
      bool has_count = in.operands.size() == 2;
      if (has_count) {
        const ptx::Operand& n = in.operands[1];
        if (n.kind == ptx::OperandKind::kImm &&
            (n.bits == 0 || n.bits % 32 != 0 || n.bits > 1024)) {
          return ctx.Error(n.loc,
                           "a barrier thread count is a multiple of 32 in 32..1024");
        }
        ASSIGN_OR_RETURN(out->s[1], ctx.Src(n, ptx::Type::kU32));
        out->ns = 2;
      }
      out->aux = uint64_t(arrive) | uint64_t(aligned) << 1 | uint64_t(has_count) << 2;
      return absl::OkStatus();
    }
    case Opcode::kMembar:
    case Opcode::kFence:
    case Opcode::kNanosleep:
      out->fn = ExecNop;
      if (in.op == Opcode::kNanosleep) {
        ASSIGN_OR_RETURN(out->s[0], ctx.Src(in.operands[0], ptx::Type::kU32));
        out->ns = 1;
      }
      return absl::OkStatus();
    default:
      return ctx.Error(
          in.loc, absl::StrCat("'", in.opcode_text, "' is not a control instruction"));
  }
}

DecodeFn SemanticsOf(ptx::Opcode op) {
  switch (op) {
    case Opcode::kMov:
      return &DecodeMov;
    case Opcode::kAdd:
    case Opcode::kSub:
    case Opcode::kMul:
    case Opcode::kMad:
    case Opcode::kNeg:
    case Opcode::kAbs:
    case Opcode::kMin:
    case Opcode::kMax:
    case Opcode::kDiv:
    case Opcode::kRem:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kNot:
    case Opcode::kCnot:
    case Opcode::kShl:
    case Opcode::kShr:
    case Opcode::kBfe:
    case Opcode::kBfi:
    case Opcode::kPrmt:
    case Opcode::kLop3:
    case Opcode::kPopc:
    case Opcode::kClz:
    case Opcode::kBrev:
      return &DecodeInt;
    case Opcode::kSetp:
      return &DecodeSetp;
    case Opcode::kSelp:
      return &DecodeSelp;
    case Opcode::kCvt:
      return &DecodeCvt;
    case Opcode::kCvta:
      return &DecodeCvta;
    case Opcode::kFma:
      return &DecodeFloat;
    case Opcode::kLd:
    case Opcode::kSt:
      return &DecodeMemory;
    case Opcode::kAtom:
    case Opcode::kRed:
      return &DecodeAtom;
    case Opcode::kCreatePolicy:
      return &DecodeCreatePolicy;
    case Opcode::kShfl:
    case Opcode::kVote:
    case Opcode::kActivemask:
    case Opcode::kBarWarpSync:
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
      return &DecodeWarp;
    case Opcode::kBarSync:
    case Opcode::kBarArrive:
    case Opcode::kBarrierSync:
    case Opcode::kBarrierArrive:
    case Opcode::kMembar:
    case Opcode::kFence:
    case Opcode::kBra:
    case Opcode::kRet:
    case Opcode::kExit:
    case Opcode::kNanosleep:
      return &DecodeControl;
    case Opcode::kNumOpcodes:
      break;
  }
  return nullptr;
}

}  // namespace warpcheck::sim::machine
