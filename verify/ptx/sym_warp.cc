// Warp-level semantics of the prover: shfl.sync, vote.sync, bar.warp.sync, ldmatrix,
// stmatrix — the same lane and row maps as sim/machine/sem_warp.cc, over atoms.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/machine/memory.h"
#include "verify/ptx/sym_exec_internal.h"

namespace warpcheck::verify::ptx {

using sp::Opcode;
using sp::Type;
using Impl = SymbolicLaunch::Impl;

namespace {

// shfl.sync.MODE.b32 d[|p], a, b, c, membermask (sem_warp.cc has the lane rule).
bool ExecShfl(Impl& m, uint32_t warp, uint32_t lanes, uint32_t pc, const sp::Instruction& in) {
  Thread* th = &m.threads[warp * 32];
  Value a[32];
  uint32_t src[32];
  bool valid[32] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    Thread& t = th[l];
    a[l] = m.Read(t, in.operands[1], Type::kB32);
    std::optional<uint64_t> b = m.Concrete(m.Read(t, in.operands[2], Type::kB32));
    std::optional<uint64_t> c = m.Concrete(m.Read(t, in.operands[3], Type::kB32));
    if (!b || !c) return m.Inconclusive(pc, "a shuffle lane or clamp that depends on the data");
    uint32_t bval = static_cast<uint32_t>(*b) & 0x1f, cval = static_cast<uint32_t>(*c);
    uint32_t max_lane = cval & 0x1f, segmask = (cval >> 8) & 0x1f;
    int min_lane = static_cast<int>(l & segmask);
    int max_lane2 = min_lane | static_cast<int>(max_lane & ~segmask);
    int j;
    bool ok;
    switch (in.mods.shfl) {
      case sp::ShflMode::kIdx:
        j = min_lane | static_cast<int>(bval & ~segmask);
        ok = j <= max_lane2;
        break;
      case sp::ShflMode::kUp:
        j = static_cast<int>(l) - static_cast<int>(bval);
        ok = j >= max_lane2;
        break;
      case sp::ShflMode::kDown:
        j = static_cast<int>(l) + static_cast<int>(bval);
        ok = j <= max_lane2;
        break;
      default:
        j = static_cast<int>(l ^ bval);
        ok = j <= max_lane2;
        break;
    }
    src[l] = ok ? static_cast<uint32_t>(j) : l;
    valid[l] = ok;
    if (ok) {
      if (!((t.member >> j) & 1)) {
        return m.Fault(t, pc, "non_member_lane",
                       absl::StrFormat("lane %d reads lane %d, which is not in membermask "
                                       "0x%08x", l, j, t.member));
      }
      uint32_t tid = warp * 32 + static_cast<uint32_t>(j);
      if (tid >= m.threads.size() || m.threads[tid].state == ThreadState::kExited) {
        return m.Fault(t, pc, "exited_lane",
                       absl::StrFormat("lane %d reads lane %d, which has exited", l, j));
      }
    }
  }
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    // The source lane waits at this shuffle too (it is a member): its `a` was read above;
    // a member that is not in `lanes` cannot happen (the schedule waited for all).
    Value v = (lanes >> src[l]) & 1 ? a[src[l]] : m.Read(th[src[l]], in.operands[1], Type::kB32);
    const sp::Operand& d = in.operands[0];
    if (d.kind == sp::OperandKind::kPair) {
      m.Write(th[l], d.elems[0], v);
      m.Write(th[l], d.elems[1], Value::Concrete(valid[l] ? 1 : 0, 1));
    } else {
      m.Write(th[l], d, v);
    }
  }
  return !m.stopped;
}

bool ExecVote(Impl& m, uint32_t warp, uint32_t lanes, uint32_t pc, const sp::Instruction& in) {
  Thread* th = &m.threads[warp * 32];
  uint32_t a = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    std::optional<bool> p = m.Pred(th[l], in.operands[1]);
    if (!p) return m.Inconclusive(pc, "a vote on a predicate that depends on the data");
    if (*p) a |= 1u << l;
  }
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    uint32_t set = th[l].member & lanes, v = a & set;
    switch (in.mods.vote) {
      case sp::VoteMode::kBallot:
        m.Write(th[l], in.operands[0], Value::Concrete(v, 32));
        break;
      case sp::VoteMode::kAll:
        m.Write(th[l], in.operands[0], Value::Concrete(v == set, 1));
        break;
      case sp::VoteMode::kAny:
        m.Write(th[l], in.operands[0], Value::Concrete(v != 0, 1));
        break;
      default:
        m.Write(th[l], in.operands[0], Value::Concrete(v == 0 || v == set, 1));
        break;
    }
  }
  return true;
}

// ldmatrix / stmatrix .m8n8.b16: lane 8i + r gives the address of row r of matrix i;
// register i of lane t is row t/4, columns 2(t%4), 2(t%4)+1 of matrix i (.trans swaps).
bool ExecMatrix(Impl& m, uint32_t warp, uint32_t lanes, uint32_t pc, const sp::Instruction& in) {
  bool store = in.op == Opcode::kStmatrix;
  Thread* th = &m.threads[warp * 32];
  int num = in.mods.num;
  bool trans = in.mods.trans;
  sp::Space space = in.mods.space == sp::Space::kNone ? sp::Space::kGeneric : in.mods.space;
  const sp::Operand& addr_op = in.operands[store ? 0 : 1];
  const sp::Operand& regs = in.operands[store ? 1 : 0];
  std::vector<const sp::Operand*> elems;
  if (regs.kind == sp::OperandKind::kVector) {
    for (const sp::Operand& e : regs.elems) elems.push_back(&e);
  } else {
    elems.push_back(&regs);
  }
  uint32_t rows[32];
  for (int l = 0; l < 8 * num; ++l) {
    if (!((lanes >> l) & 1)) {
      return m.Fault(th[0], pc, "exited_lane",
                     absl::StrFormat("%s needs the row address of lane %d, which has exited",
                                     store ? "stmatrix" : "ldmatrix", l));
    }
    std::optional<uint64_t> a = m.Address(th[l], addr_op, space);
    if (!a) return m.Inconclusive(pc, "a matrix row address that depends on the data");
    uint64_t addr = *a;
    if (space != sp::Space::kShared) {
      if (addr - sim::machine::kSharedWindow >= sim::machine::kWindowSize) {
        return m.Fault(th[l], pc, "out_of_bounds",
                       absl::StrFormat("row address 0x%x is not in shared memory", addr));
      }
      addr -= sim::machine::kSharedWindow;
    }
    if (addr & 15) {
      return m.Fault(th[l], pc, "misaligned",
                     absl::StrFormat("row address 0x%x is not 16-byte aligned", addr));
    }
    std::optional<uint32_t> off = m.SharedOffset(th[l], pc, addr, 16, store);
    if (!off) return false;
    rows[l] = *off;
  }
  // A matrix instruction synchronises the warp before and after its accesses; each
  // 16-byte row is accessed by the lane that gave its address (the simulator's rule).
  for (uint32_t t = 0; t < 32; ++t) {
    if ((lanes >> t) & 1) ++th[t].wsync;
  }
  int nrows = 8 * num;
  // Row k's 128 atoms: loaded from shared memory, or assembled from the registers.
  std::vector<std::vector<Atom>> row(static_cast<size_t>(nrows));
  for (int k = 0; k < nrows; ++k) {
    if (!store) {
      if (!m.CheckShared(th[k], pc, rows[k], 16, false, nullptr)) return false;
      auto from = m.shared.begin() + static_cast<ptrdiff_t>(size_t{rows[k]} * 8);
      row[static_cast<size_t>(k)].assign(from, from + 128);
    } else {
      row[static_cast<size_t>(k)].assign(128, kAtomZero);
    }
  }
  // Register i of lane t: halves (row r0, half-word h0) low and (r1, h1) high.
  for (int i = 0; i < num; ++i) {
    for (uint32_t t = 0; t < 32; ++t) {
      if (!((lanes >> t) & 1)) continue;
      int r0, h0, r1, h1;
      if (!trans) {
        r0 = r1 = 8 * i + static_cast<int>(t / 4);
        h0 = 2 * static_cast<int>(t % 4);
        h1 = h0 + 1;
      } else {
        r0 = 8 * i + 2 * static_cast<int>(t % 4);
        r1 = r0 + 1;
        h0 = h1 = static_cast<int>(t / 4);
      }
      auto lo = row[static_cast<size_t>(r0)].begin() + 16 * h0;
      auto hi = row[static_cast<size_t>(r1)].begin() + 16 * h1;
      if (store) {
        std::vector<Atom> v = AtomsOf(m.Read(th[t], *elems[static_cast<size_t>(i)], Type::kB32));
        std::copy(v.begin(), v.begin() + 16, lo);
        std::copy(v.begin() + 16, v.end(), hi);
      } else {
        std::vector<Atom> v(32);
        std::copy(lo, lo + 16, v.begin());
        std::copy(hi, hi + 16, v.begin() + 16);
        m.Write(th[t], *elems[static_cast<size_t>(i)], FromAtoms(std::move(v)));
      }
    }
  }
  if (store) {
    for (int k = 0; k < nrows; ++k) {
      const std::vector<Atom>& data = row[static_cast<size_t>(k)];
      if (!m.CheckShared(th[k], pc, rows[k], 16, true, data.data())) return false;
      std::copy(data.begin(), data.end(),
                m.shared.begin() + static_cast<ptrdiff_t>(size_t{rows[k]} * 8));
    }
  }
  for (uint32_t t = 0; t < 32; ++t) {
    if ((lanes >> t) & 1) ++th[t].wsync;
  }
  return !m.stopped;
}

}  // namespace

bool Impl::ExecWarp(uint32_t warp, uint32_t lanes, uint32_t pc) {
  const sp::Instruction& in = *code[pc];
  switch (in.op) {
    case Opcode::kShfl:
      return ExecShfl(*this, warp, lanes, pc, in);
    case Opcode::kVote:
      return ExecVote(*this, warp, lanes, pc, in);
    case Opcode::kBarWarpSync:
      for (uint32_t l = 0; l < 32; ++l) {
        if ((lanes >> l) & 1) ++threads[warp * 32 + l].wsync;
      }
      return true;
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
      return ExecMatrix(*this, warp, lanes, pc, in);
    default:
      return Inconclusive(pc, "not a warp-level instruction");
  }
}

}  // namespace warpcheck::verify::ptx
