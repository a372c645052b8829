// Warp-level instructions: shfl.sync, vote.sync, activemask, bar.warp.sync, ldmatrix,
// stmatrix. The scheduler (machine.cc) calls these exec functions once every lane of the
// member mask has arrived, with `mask` = the lanes that run the instruction together.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/status_macros.h"
#include "sim/bank/bank_model.h"
#include "sim/machine/semantics.h"

namespace warpcheck::sim::machine {

using ptx::Opcode;
using ptx::Type;

namespace {

absl::Status Unsupported(DecodeCtx& ctx, const ptx::Instruction& in,
                         absl::string_view why) {
  return ctx.Error(in.loc, absl::StrCat("'", in.opcode_text,
                                        "' is not supported by the machine: ", why));
}

// shfl.sync.MODE.b32 d[|p], a, b, c, membermask (shared/spec/ptx-subset.md):
//   maxLane = c & 0x1f, segmask = (c >> 8) & 0x1f, minLane = lane & segmask,
//   maxLane' = minLane | (maxLane & ~segmask);
//   idx:  j = minLane | (b & ~segmask), valid if j <= maxLane'
//   up:   j = lane - b,                 valid if j >= maxLane'  (PTX manual; measured on
//                                       an H200 -- the spec's ">= minLane" holds only
//                                       when c & 0x1f == 0, as CUDA's __shfl_up_sync
//                                       passes)
//   down: j = lane + b,                 valid if j <= maxLane'
//   bfly: j = lane ^ b,                 valid if j <= maxLane'
// An invalid source gives d = a (own lane), p = false. b is taken mod 32.
template <ptx::ShflMode kMode>
bool ExecShfl(Exec& x, const Insn& in, uint32_t mask) {
  const uint64_t* a = x.R(in.s[0]);
  const uint64_t* b = x.R(in.s[1]);
  const uint64_t* c = x.R(in.s[2]);
  const uint64_t* mm = x.R(in.member_slot);
  uint32_t out[32];
  uint32_t pred = 0;
  uint32_t live = x.w->Live();
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint32_t bval = uint32_t(b[lane]) & 0x1f, cval = uint32_t(c[lane]);
    uint32_t max_lane = cval & 0x1f, segmask = (cval >> 8) & 0x1f;
    int min_lane = lane & segmask;
    int max_lane2 = min_lane | (max_lane & ~segmask);
    int j;
    bool valid;
    switch (kMode) {
      case ptx::ShflMode::kIdx:
        j = min_lane | (bval & ~segmask);
        valid = j <= max_lane2;
        break;
      case ptx::ShflMode::kUp:
        j = lane - int(bval);
        valid = j >= max_lane2;
        break;
      case ptx::ShflMode::kDown:
        j = lane + int(bval);
        valid = j <= max_lane2;
        break;
      default:
        j = lane ^ int(bval);
        valid = j <= max_lane2;
        break;
    }
    if (valid) {
      uint32_t member = uint32_t(mm[lane]);
      if (!((member >> j) & 1)) {
        return x.m->FaultAt(
            x, lane, "non_member_lane",
            absl::StrFormat("lane %d reads lane %d, which is not in membermask "
                            "0x%08x",
                            lane, j, member));
      }
      if (!((live >> j) & 1)) {
        return x.m->FaultAt(
            x, lane, "exited_lane",
            absl::StrFormat("lane %d reads lane %d, which has exited%s", lane, j,
                            ((x.w->valid >> j) & 1) ? "" : " (it does not exist)"));
      }
      out[lane] = uint32_t(a[j]);
      pred |= 1u << lane;
    } else {
      out[lane] = uint32_t(a[lane]);
    }
  }
  uint64_t* d = x.R(in.d[0]);
  ForLanes(mask, [&](int l) { d[l] = out[l]; });
  if (in.has_p1) {
    uint32_t& p = x.preds[in.p[1]];
    p = (p & ~mask) | (pred & mask);
  }
  return true;
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a,
// membermask.
template <ptx::VoteMode kMode>
bool ExecVote(Exec& x, const Insn& in, uint32_t mask) {
  uint32_t a = x.preds[in.q] ^ (in.q_neg ? ~0u : 0u);
  const uint64_t* mm = x.R(in.member_slot);
  if (kMode == ptx::VoteMode::kBallot) {
    uint64_t* d = x.R(in.d[0]);
    ForLanes(mask, [&](int l) { d[l] = a & uint32_t(mm[l]) & mask; });
    return true;
  }
  uint32_t r = 0;
  ForLanes(mask, [&](int l) {
    uint32_t set = uint32_t(mm[l]) & mask;
    uint32_t v = a & set;
    bool res = kMode == ptx::VoteMode::kAll   ? v == set
               : kMode == ptx::VoteMode::kAny ? v != 0
                                              : (v == 0 || v == set);
    r |= uint32_t(res) << l;
  });
  uint32_t& d = x.preds[in.d[0]];
  d = (d & ~mask) | (r & mask);
  return true;
}

bool ExecActivemask(Exec& x, const Insn& in, uint32_t mask) {
  uint64_t* d = x.R(in.d[0]);
  ForLanes(mask, [&](int l) { d[l] = mask; });
  return true;
}

bool ExecWarpBarrier(Exec& x, const Insn& in, uint32_t mask) {
  x.m->WarpSyncClocks(*x.w, mask);
  return true;
}

// ldmatrix / stmatrix .m8n8 .b16 (x1/x2/x4, optional .trans). Lane 8i + r gives the row
// address of row r of matrix i. Without .trans, register i of lane t holds row t/4,
// columns 2(t%4) and 2(t%4)+1 of matrix i (low half = lower column); with .trans, rows
// and columns swap.
template <bool kStore>
bool ExecMatrix(Exec& x, const Insn& in, uint32_t mask) {
  Machine& m = *x.m;
  int num = int(in.aux & 0xff);
  bool trans = (in.aux >> 8) & 1;
  uint32_t providers = num == 4 ? 0xFFFFFFFFu : (1u << (8 * num)) - 1;
  uint32_t live = x.w->Live();
  if ((providers & live) != providers) {
    int l = __builtin_ctz(providers & ~live);
    return m.FaultAt(
        x, __builtin_ctz(mask), "exited_lane",
        absl::StrFormat("%s needs the row address of lane %d, which has exited",
                        kStore ? "stmatrix" : "ldmatrix", l));
  }
  const uint64_t* base = x.R(in.s[0]);
  uint32_t rows[32];
  bool generic = ptx::Space(in.space) != ptx::Space::kShared;
  // Loop invariants read once (the compiler reloaded them for every row).
  const uint64_t offset = uint64_t(in.offset);
  const uint64_t limit = m.shared_bytes();
  for (int l = 0; l < 8 * num; ++l) {
    uint64_t addr = base[l] + offset;
    if (generic) {
      if (addr - kSharedWindow >= kWindowSize) {
        return m.FaultAt(
            x, l, "out_of_bounds",
            absl::StrFormat("row address 0x%x of lane %d is not in shared memory", addr,
                            l));
      }
      addr -= kSharedWindow;
    }
    if (addr & 15) {
      return m.FaultAt(
          x, l, "misaligned",
          absl::StrFormat("row address 0x%x of lane %d is not 16-byte aligned", addr, l));
    }
    uint64_t off = addr - kSharedBase;
    if (off >= limit || off + 16 > limit) {
      return m.FaultAt(
          x, l, "out_of_bounds",
          absl::StrFormat("row at shared address 0x%x is outside the %u-byte shared "
                          "window [0x%x, 0x%x)",
                          addr, m.shared_bytes(), kSharedBase,
                          kSharedBase + m.shared_bytes()));
    }
    rows[l] = uint32_t(off);
  }
  // A warp-synchronous matrix instruction orders the warp's accesses on both sides. For
  // race checking, each 16-byte row is accessed by the lane that gave its address.
  m.WarpSyncClocks(*x.w, live);
  uint8_t* smem = x.cta->shared.data();
  bool races = m.options().detect_races;
  uint8_t row[32][16];
  int nrows = 8 * num;
  Accessor acc = m.MakeAccessor(x, 0);
  if (kStore) {
    for (int i = 0; i < num; ++i) {
      const uint64_t* reg = x.R(in.s[1 + i]);
      for (int t = 0; t < 32; ++t) {
        uint32_t v = uint32_t(reg[t]);
        if (!trans) {
          std::memcpy(&row[8 * i + t / 4][4 * (t % 4)], &v, 4);
        } else {
          uint16_t lo = uint16_t(v), hi = uint16_t(v >> 16);
          std::memcpy(&row[8 * i + 2 * (t % 4)][2 * (t / 4)], &lo, 2);
          std::memcpy(&row[8 * i + 2 * (t % 4) + 1][2 * (t / 4)], &hi, 2);
        }
      }
    }
    for (int k = 0; k < nrows; ++k) {
      if (races) {
        Machine::SetLane(acc, *x.w, k);
        if (!m.CheckSharedWrite(x, acc, k, rows[k], 16, row[k])) return false;
      }
      std::memcpy(smem + rows[k], row[k], 16);
    }
  } else {
    for (int k = 0; k < nrows; ++k) {
      if (races) {
        Machine::SetLane(acc, *x.w, k);
        if (!m.CheckSharedRead(x, acc, k, rows[k], 16)) return false;
      }
      std::memcpy(row[k], smem + rows[k], 16);
    }
    // Lane t's word of matrix i: row t / 4, word t % 4 (transposed: the halves of column
    // t / 4 in rows 2 (t % 4) and 2 (t % 4) + 1). `trans` chosen once, outside the lanes.
    // Offsets into the rows laid end to end (16 bytes each), in unsigned arithmetic: row
    // 8i + t/4, word t%4 is word 32i + t (a signed t / 4 and t % 4 cost a sign fix-up each).
    const uint8_t* flat = &row[0][0];
    auto plain = [&](uint32_t i, uint32_t t) {
      uint32_t v;
      std::memcpy(&v, flat + 4 * (32 * i + t), 4);
      return v;
    };
    auto transposed = [&](uint32_t i, uint32_t t) {
      const uint8_t* at = flat + 16 * (8 * i + 2 * (t % 4)) + 2 * (t / 4);
      uint16_t lo, hi;
      std::memcpy(&lo, at, 2);
      std::memcpy(&hi, at + 16, 2);
      return uint32_t(lo) | uint32_t(hi) << 16;
    };
    auto fill = [&](auto word) {
      for (int i = 0; i < num; ++i) {
        uint64_t* reg = x.R(in.d[i]);
        ForLanes(live, [&](int t) { reg[t] = word(uint32_t(i), uint32_t(t)); });
      }
    };
    if (trans) {
      fill(transposed);
    } else {
      fill(plain);
    }
  }
  m.WarpSyncClocks(*x.w, live);
  if (!m.options().count_banks || x.pc >= m.options().count_banks_below_pc) return true;
  bank::BankCost c = bank::MatrixRequestCost(rows, num);
  Counters& k = m.mutable_counters();
  k.smem_requests[kStore] += 1;
  k.smem_wavefronts[kStore] += c.wavefronts;
  k.bank_conflicts[kStore] += c.conflicts();
  return true;
}

}  // namespace

absl::Status DecodeWarp(DecodeCtx& ctx, const ptx::Instruction& in, Insn* out) {
  out->kind = InsnKind::kWarpSync;
  switch (in.op) {
    case Opcode::kShfl: {
      if (in.mods.types[0] != Type::kB32) return Unsupported(ctx, in, "shfl is .b32");
      const ptx::Operand& dst = in.operands[0];
      if (dst.kind == ptx::OperandKind::kPair) {
        ASSIGN_OR_RETURN(out->d[0], ctx.Dst(dst.elems[0], 32, &out->dmask));
        ASSIGN_OR_RETURN(out->p[1], ctx.PredDst(dst.elems[1]));
        out->has_p1 = true;
      } else {
        ASSIGN_OR_RETURN(out->d[0], ctx.Dst(dst, 32, &out->dmask));
      }
      out->nd = 1;
      for (int i = 0; i < 3; ++i) {
        ASSIGN_OR_RETURN(out->s[i], ctx.Src(in.operands[1 + i], Type::kB32));
      }
      ASSIGN_OR_RETURN(out->member_slot, ctx.Src(in.operands[4], Type::kB32));
      out->ns = 3;
      switch (in.mods.shfl) {
        case ptx::ShflMode::kIdx:
          out->fn = &ExecShfl<ptx::ShflMode::kIdx>;
          break;
        case ptx::ShflMode::kUp:
          out->fn = &ExecShfl<ptx::ShflMode::kUp>;
          break;
        case ptx::ShflMode::kDown:
          out->fn = &ExecShfl<ptx::ShflMode::kDown>;
          break;
        case ptx::ShflMode::kBfly:
          out->fn = &ExecShfl<ptx::ShflMode::kBfly>;
          break;
        default:
          return Unsupported(ctx, in, "needs .idx, .up, .down or .bfly");
      }
      return absl::OkStatus();
    }
    case Opcode::kVote: {
      ptx::VoteMode mode = in.mods.vote;
      Type t = in.mods.types[0];
      if (mode == ptx::VoteMode::kNone)
        return Unsupported(ctx, in, "needs .all, .any, .uni or .ballot");
      if (mode == ptx::VoteMode::kBallot) {
        if (t != Type::kB32) return Unsupported(ctx, in, "ballot is .b32");
        ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], 32, &out->dmask));
      } else {
        if (t != Type::kPred) return Unsupported(ctx, in, "all/any/uni are .pred");
        ASSIGN_OR_RETURN(uint16_t d, ctx.PredDst(in.operands[0]));
        out->d[0] = d;
      }
      out->nd = 1;
      RETURN_IF_ERROR(ctx.PredSrc(in.operands[1], &out->q, &out->q_neg));
      ASSIGN_OR_RETURN(out->member_slot, ctx.Src(in.operands[2], Type::kB32));
      switch (mode) {
        case ptx::VoteMode::kAll:
          out->fn = &ExecVote<ptx::VoteMode::kAll>;
          break;
        case ptx::VoteMode::kAny:
          out->fn = &ExecVote<ptx::VoteMode::kAny>;
          break;
        case ptx::VoteMode::kUni:
          out->fn = &ExecVote<ptx::VoteMode::kUni>;
          break;
        default:
          out->fn = &ExecVote<ptx::VoteMode::kBallot>;
          break;
      }
      return absl::OkStatus();
    }
    case Opcode::kActivemask: {
      if (in.mods.types[0] != Type::kB32)
        return Unsupported(ctx, in, "activemask is .b32");
      out->kind = InsnKind::kPlain;
      ASSIGN_OR_RETURN(out->d[0], ctx.Dst(in.operands[0], 32, &out->dmask));
      out->nd = 1;
      out->fn = &ExecActivemask;
      return absl::OkStatus();
    }
    case Opcode::kBarWarpSync: {
      ASSIGN_OR_RETURN(out->member_slot, ctx.Src(in.operands[0], Type::kB32));
      out->fn = &ExecWarpBarrier;
      return absl::OkStatus();
    }
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix: {
      bool store = in.op == Opcode::kStmatrix;
      if (in.mods.shape != ptx::MatrixShape::kM8n8 || in.mods.types[0] != Type::kB16) {
        return Unsupported(ctx, in, "only .m8n8 .b16 matrices");
      }
      if (in.mods.num == 0) return Unsupported(ctx, in, "needs .x1, .x2 or .x4");
      ptx::Space space =
          in.mods.space == ptx::Space::kNone ? ptx::Space::kGeneric : in.mods.space;
      if (space != ptx::Space::kShared && space != ptx::Space::kGeneric) {
        return Unsupported(ctx, in, "matrices live in shared memory");
      }
      out->space = static_cast<uint8_t>(space);
      const ptx::Operand& addr = in.operands[store ? 0 : 1];
      const ptx::Operand& regs = in.operands[store ? 1 : 0];
      RETURN_IF_ERROR(ctx.Address(addr, space, &out->s[0], &out->offset));
      std::vector<const ptx::Operand*> elems;
      if (regs.kind == ptx::OperandKind::kVector) {
        for (const ptx::Operand& e : regs.elems) elems.push_back(&e);
      } else {
        elems.push_back(&regs);
      }
      if (static_cast<int>(elems.size()) != in.mods.num) {
        return ctx.Error(regs.loc,
                         absl::StrCat("'.x", in.mods.num, "' moves ", in.mods.num,
                                      " registers, found ", elems.size()));
      }
      for (size_t i = 0; i < elems.size(); ++i) {
        if (store) {
          ASSIGN_OR_RETURN(out->s[1 + i], ctx.Src(*elems[i], Type::kB32));
        } else {
          ASSIGN_OR_RETURN(out->d[i], ctx.Dst(*elems[i], 32));
        }
      }
      out->nd = store ? 0 : static_cast<uint8_t>(elems.size());
      out->ns = store ? static_cast<uint8_t>(1 + elems.size()) : 1;
      out->aux = uint64_t(in.mods.num) | uint64_t(in.mods.trans) << 8;
      out->member_slot = kAllLanes;
      out->fn = store ? &ExecMatrix<true> : &ExecMatrix<false>;
      return absl::OkStatus();
    }
    default:
      return Unsupported(ctx, in, "not a warp-level instruction");
  }
}

}  // namespace warpcheck::sim::machine
