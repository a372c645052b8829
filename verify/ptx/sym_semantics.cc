// Per-thread semantics of the prover: one small function per opcode family, each with a
// concrete path (the values sim/machine computes, sem_int.cc / sem_mem.cc) and a
// symbolic one — exact bit moves on atoms where the operation only moves bits (masks,
// shifts by constants, bfe/bfi, prmt, sign extension, selp on a known predicate), a Z3
// term otherwise. An operation whose symbolic form the prover does not build stops the
// run as inconclusive, naming it.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/machine/semantics.h"
#include "verify/ptx/sym_exec_internal.h"

namespace warpcheck::verify::ptx {

using sp::Opcode;
using sp::Type;
using Impl = SymbolicLaunch::Impl;

namespace {

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
int64_t SExt(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  v &= Mask(bits);
  return static_cast<int64_t>((v ^ m) - m);
}
int Bits(Type t) { return t == Type::kPred ? 1 : sp::TypeBits(t); }

// ---- atoms ---------------------------------------------------------------------------

bool AtomAnd(Atom a, Atom b, Atom* r) {
  if (a == kAtomZero || b == kAtomZero) *r = kAtomZero;
  else if (a == kAtomOne) *r = b;
  else if (b == kAtomOne || a == b) *r = a;
  else return false;
  return true;
}
bool AtomOr(Atom a, Atom b, Atom* r) {
  if (a == kAtomOne || b == kAtomOne) *r = kAtomOne;
  else if (a == kAtomZero) *r = b;
  else if (b == kAtomZero || a == b) *r = a;
  else return false;
  return true;
}
bool AtomXor(Atom a, Atom b, Atom* r) {
  if (a == kAtomZero) *r = b;
  else if (b == kAtomZero) *r = a;
  else if (a == b) *r = kAtomZero;
  else if (IsConst(a) && IsConst(b)) *r = a ^ b;
  else return false;
  return true;
}

// Bitwise a OP b on atoms when every bit is exact; nullopt otherwise.
template <bool (*kOp)(Atom, Atom, Atom*)>
std::optional<Value> AtomWise(const Value& a, const Value& b) {
  std::vector<Atom> r(a.width);
  for (int i = 0; i < a.width; ++i) {
    if (!kOp(a.At(i), b.At(i), &r[static_cast<size_t>(i)])) return std::nullopt;
  }
  return FromAtoms(std::move(r));
}

// ---- concrete integer operations (sim/machine/sem_int.cc) ---------------------------

uint64_t ConcreteBinary(Opcode op, uint64_t a, uint64_t b, int bits, bool s, bool* ok) {
  *ok = true;
  uint64_t m = Mask(bits);
  a &= m;
  b &= m;
  switch (op) {
    case Opcode::kAdd: return (a + b) & m;
    case Opcode::kSub: return (a - b) & m;
    case Opcode::kAnd: return a & b;
    case Opcode::kOr: return a | b;
    case Opcode::kXor: return a ^ b;
    case Opcode::kMin:
      return s ? (SExt(a, bits) < SExt(b, bits) ? a : b) : std::min(a, b);
    case Opcode::kMax:
      return s ? (SExt(a, bits) > SExt(b, bits) ? a : b) : std::max(a, b);
    case Opcode::kDiv:
      if (b == 0) return m;  // all ones (measured on an H200)
      if (s) {
        int64_t sa = SExt(a, bits), sb = SExt(b, bits);
        if (sb == -1) return static_cast<uint64_t>(-static_cast<uint64_t>(sa)) & m;
        return static_cast<uint64_t>(sa / sb) & m;
      }
      return a / b;
    case Opcode::kRem:
      if (b == 0) return m;
      if (s) {
        int64_t sa = SExt(a, bits), sb = SExt(b, bits);
        if (sb == -1) return 0;
        return static_cast<uint64_t>(sa % sb) & m;
      }
      return a % b;
    default:
      *ok = false;
      return 0;
  }
}

uint64_t MulHi(uint64_t a, uint64_t b, int bits, bool s) {
  if (bits < 64) {
    if (s) {
      __int128 p = static_cast<__int128>(SExt(a, bits)) * SExt(b, bits);
      return static_cast<uint64_t>(p >> bits) & Mask(bits);
    }
    unsigned __int128 p = static_cast<unsigned __int128>(a & Mask(bits)) * (b & Mask(bits));
    return static_cast<uint64_t>(p >> bits) & Mask(bits);
  }
  if (s) {
    __int128 p = static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b);
    return static_cast<uint64_t>(p >> 64);
  }
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p >> 64);
}

}  // namespace

namespace {

// ---- families --------------------------------------------------------------------------

bool ExecMov(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  const sp::Operand& d = in.operands[0];
  const sp::Operand& a = in.operands[1];
  if (d.kind == sp::OperandKind::kVector) {  // mov.b32 {lo, hi}, %r
    m.Write(t, d, m.Read(t, a, ty));
    return !m.stopped;
  }
  m.Write(t, d, m.Read(t, a, ty));
  return !m.stopped;
}

// add sub mul mad min max div rem (integer), neg abs.
bool ExecArith(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  bool s = sp::IsSigned(ty);
  if (sp::IsFloat(ty)) return m.Inconclusive(t.pc, "float arithmetic is not modelled by the prover");
  const auto& ops = in.operands;
  if (in.op == Opcode::kNeg || in.op == Opcode::kAbs) {
    Value a = m.Read(t, ops[1], ty);
    if (!a.sym) {
      int64_t v = SExt(a.bits, bits);
      uint64_t r = in.op == Opcode::kNeg ? static_cast<uint64_t>(-static_cast<uint64_t>(v))
                                         : static_cast<uint64_t>(v < 0 ? -static_cast<uint64_t>(v) : v);
      m.Write(t, ops[0], Value::Concrete(r, bits));
      return true;
    }
    if (in.op == Opcode::kAbs) return m.Inconclusive(t.pc, "abs of data is not modelled");
    m.Write(t, ops[0], m.FromTerm(smt::BvNeg(m.TermOf(a)), bits, t.pc));
    return !m.stopped;
  }
  bool mul = in.op == Opcode::kMul || in.op == Opcode::kMad;
  bool wide = mul && in.mods.mul == sp::MulMode::kWide;
  int rbits = wide ? 2 * bits : bits;
  Value a = m.Read(t, ops[1], ty), b = m.Read(t, ops[2], ty);
  Value c;
  if (in.op == Opcode::kMad) {
    Type ct = wide ? (bits == 16 ? (s ? Type::kS32 : Type::kU32) : (s ? Type::kS64 : Type::kU64)) : ty;
    c = m.Read(t, ops[3], ct);
  }
  if (!a.sym && !b.sym && (in.op != Opcode::kMad || !c.sym)) {
    uint64_t r;
    if (mul) {
      if (wide) {
        uint64_t x = s ? static_cast<uint64_t>(SExt(a.bits, bits)) : a.bits;
        uint64_t y = s ? static_cast<uint64_t>(SExt(b.bits, bits)) : b.bits;
        r = (x * y) & Mask(rbits);
      } else if (in.mods.mul == sp::MulMode::kHi) {
        r = MulHi(a.bits, b.bits, bits, s);
      } else {
        r = (a.bits * b.bits) & Mask(bits);
      }
      if (in.op == Opcode::kMad) r = (r + c.bits) & Mask(rbits);
    } else {
      bool ok;
      r = ConcreteBinary(in.op, a.bits, b.bits, bits, s, &ok);
      if (!ok) return m.Inconclusive(t.pc, "an operation the prover does not model");
    }
    m.Write(t, ops[0], Value::Concrete(r, rbits));
    return true;
  }
  // Symbolic: adds and low/wide products as Z3 terms.
  if (in.mods.sat) return m.Inconclusive(t.pc, "saturating arithmetic on data is not modelled");
  smt::Term x = m.TermOf(a), y = m.TermOf(b), r;
  switch (in.op) {
    case Opcode::kAdd: r = smt::BvAdd(x, y); break;
    case Opcode::kSub: r = smt::BvSub(x, y); break;
    case Opcode::kMul:
    case Opcode::kMad:
      if (in.mods.mul == sp::MulMode::kHi) return m.Inconclusive(t.pc, "mul.hi of data is not modelled");
      if (wide) {
        x = s ? smt::SignExt(x, bits) : smt::ZeroExt(x, bits);
        y = s ? smt::SignExt(y, bits) : smt::ZeroExt(y, bits);
      }
      r = smt::BvMul(x, y);
      if (in.op == Opcode::kMad) r = smt::BvAdd(r, m.TermOf(c));
      break;
    case Opcode::kMin:
    case Opcode::kMax: {
      smt::Term lt = s ? smt::BvSlt(x, y) : smt::BvUlt(x, y);
      r = in.op == Opcode::kMin ? smt::Ite(lt, x, y) : smt::Ite(lt, y, x);
      break;
    }
    default:
      return m.Inconclusive(t.pc, absl::StrCat(in.opcode_text, " of data is not modelled"));
  }
  m.Write(t, ops[0], m.FromTerm(r, rbits, t.pc));
  return !m.stopped;
}

// popc, clz (the count is a .u32 result), brev (a bit move: exact on atoms).
bool ExecCount(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  Value a = m.Read(t, in.operands[1], ty);
  if (in.op == Opcode::kBrev) {
    std::vector<Atom> src = AtomsOf(a), r(static_cast<size_t>(bits));
    for (int i = 0; i < bits; ++i) r[static_cast<size_t>(i)] = src[static_cast<size_t>(bits - 1 - i)];
    m.Write(t, in.operands[0], FromAtoms(std::move(r)));
    return true;
  }
  if (a.sym) return m.Inconclusive(t.pc, absl::StrCat(in.opcode_text, " of data is not modelled"));
  uint64_t v = a.bits & Mask(bits);
  uint64_t r = in.op == Opcode::kPopc
                   ? static_cast<uint64_t>(__builtin_popcountll(v))
                   : (v == 0 ? static_cast<uint64_t>(bits)
                             : static_cast<uint64_t>(__builtin_clzll(v) - (64 - bits)));
  m.Write(t, in.operands[0], Value::Concrete(r, 32));
  return true;
}

bool ExecLogic(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  const auto& ops = in.operands;
  Value a = m.Read(t, ops[1], ty);
  if (in.op == Opcode::kNot || in.op == Opcode::kCnot) {
    if (!a.sym) {
      uint64_t r = in.op == Opcode::kNot ? ~a.bits : (a.bits == 0 ? 1 : 0);
      m.Write(t, ops[0], Value::Concrete(r, bits));
      return true;
    }
    if (in.op == Opcode::kCnot) return m.Inconclusive(t.pc, "cnot of data is not modelled");
    m.Write(t, ops[0], m.FromTerm(smt::BvNot(m.TermOf(a)), bits, t.pc));
    return !m.stopped;
  }
  Value b = m.Read(t, ops[2], ty);
  if (!a.sym && !b.sym) {
    bool ok;
    m.Write(t, ops[0], Value::Concrete(ConcreteBinary(in.op, a.bits, b.bits, bits, false, &ok), bits));
    return true;
  }
  std::optional<Value> r = in.op == Opcode::kAnd   ? AtomWise<AtomAnd>(a, b)
                           : in.op == Opcode::kOr  ? AtomWise<AtomOr>(a, b)
                                                   : AtomWise<AtomXor>(a, b);
  if (r) {
    m.Write(t, ops[0], *r);
    return true;
  }
  smt::Term x = m.TermOf(a), y = m.TermOf(b);
  smt::Term z = in.op == Opcode::kAnd ? smt::BvAnd(x, y)
                : in.op == Opcode::kOr ? smt::BvOr(x, y)
                                       : smt::BvXor(x, y);
  m.Write(t, ops[0], m.FromTerm(z, bits, t.pc));
  return !m.stopped;
}

// shl, shr: the amount is .u32; amounts >= the width saturate.
bool ExecShift(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  bool arith = in.op == Opcode::kShr && sp::IsSigned(ty);
  Value a = m.Read(t, in.operands[1], ty);
  std::optional<uint64_t> n = m.Concrete(m.Read(t, in.operands[2], Type::kU32));
  if (!n) return m.Inconclusive(t.pc, "a shift amount that depends on the data");
  uint32_t k = static_cast<uint32_t>(*n);
  std::vector<Atom> src = AtomsOf(a), r(static_cast<size_t>(bits));
  Atom sign = src[static_cast<size_t>(bits - 1)];
  for (int i = 0; i < bits; ++i) {
    int64_t from = in.op == Opcode::kShl ? int64_t{i} - k : int64_t{i} + k;
    Atom fill = (in.op == Opcode::kShr && arith) ? sign : kAtomZero;
    r[static_cast<size_t>(i)] = (from >= 0 && from < bits && k < static_cast<uint32_t>(bits))
                                    ? src[static_cast<size_t>(from)]
                                    : fill;
  }
  m.Write(t, in.operands[0], FromAtoms(std::move(r)));
  return true;
}

bool ExecBitField(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  const auto& ops = in.operands;
  bool bfe = in.op == Opcode::kBfe;
  std::optional<uint64_t> pos = m.Concrete(m.Read(t, ops[bfe ? 2 : 3], Type::kU32));
  std::optional<uint64_t> len = m.Concrete(m.Read(t, ops[bfe ? 3 : 4], Type::kU32));
  if (!pos || !len) return m.Inconclusive(t.pc, "a bit-field position that depends on the data");
  uint32_t p = static_cast<uint32_t>(*pos) & 0xff, l = static_cast<uint32_t>(*len) & 0xff;
  uint32_t msb = static_cast<uint32_t>(bits - 1);
  if (bfe) {
    std::vector<Atom> a = AtomsOf(m.Read(t, ops[1], ty)), r(static_cast<size_t>(bits));
    Atom sbit = kAtomZero;
    if (sp::IsSigned(ty) && l != 0) sbit = a[std::min(p + l - 1, msb)];
    for (uint32_t i = 0; i <= msb; ++i) r[i] = (i < l && p + i <= msb) ? a[p + i] : sbit;
    m.Write(t, ops[0], FromAtoms(std::move(r)));
    return true;
  }
  std::vector<Atom> ins = AtomsOf(m.Read(t, ops[1], ty)), r = AtomsOf(m.Read(t, ops[2], ty));
  for (uint32_t i = 0; i < l && p + i <= msb; ++i) r[p + i] = ins[i];
  m.Write(t, ops[0], FromAtoms(std::move(r)));
  return true;
}

// prmt: the byte map of a known selector is read off the simulator's own Prmt with
// tagged inputs, so the two agree by construction: byte k of the result is a copy of
// source byte j, or the sign of source byte j replicated, or a constant.
bool ExecPrmt(Impl& m, Thread& t, const sp::Instruction& in) {
  const auto& ops = in.operands;
  Value a = m.Read(t, ops[1], Type::kB32), b = m.Read(t, ops[2], Type::kB32);
  std::optional<uint64_t> c = m.Concrete(m.Read(t, ops[3], Type::kB32));
  if (!c) return m.Inconclusive(t.pc, "a prmt selector that depends on the data");
  uint32_t sel = static_cast<uint32_t>(*c);
  if (!a.sym && !b.sym) {
    m.Write(t, ops[0], Value::Concrete(sim::machine::Prmt(static_cast<uint32_t>(a.bits),
                                                         static_cast<uint32_t>(b.bits), sel,
                                                         in.mods.prmt), 32));
    return true;
  }
  // Tags: source byte j = 0x10 + j (msb clear), then the same with one byte's msb set.
  uint32_t ta = 0x13121110u, tb = 0x17161514u;
  uint32_t base = sim::machine::Prmt(ta, tb, sel, in.mods.prmt);
  std::vector<Atom> src = AtomsOf(a), hi = AtomsOf(b);
  src.insert(src.end(), hi.begin(), hi.end());  // 64 atoms: bytes 0..7
  std::vector<Atom> r(32);
  for (int k = 0; k < 4; ++k) {
    uint32_t v = (base >> (8 * k)) & 0xff;
    if (v >= 0x10 && v <= 0x17) {
      for (int i = 0; i < 8; ++i) r[static_cast<size_t>(8 * k + i)] = src[static_cast<size_t>(8 * (v - 0x10) + i)];
      continue;
    }
    // A sign replication (0x00 with the tags): find the byte whose msb turns it to 0xff.
    int from = -1;
    for (int j = 0; j < 8 && from < 0; ++j) {
      uint32_t xa = ta, xb = tb;
      if (j < 4) xa |= 0x80u << (8 * j); else xb |= 0x80u << (8 * (j - 4));
      if (((sim::machine::Prmt(xa, xb, sel, in.mods.prmt) >> (8 * k)) & 0xff) == 0xff) from = j;
    }
    if (from < 0) return m.Inconclusive(t.pc, "a prmt byte the prover cannot place");
    for (int i = 0; i < 8; ++i) r[static_cast<size_t>(8 * k + i)] = src[static_cast<size_t>(8 * from + 7)];
  }
  m.Write(t, ops[0], FromAtoms(std::move(r)));
  return true;
}

bool ExecLop3(Impl& m, Thread& t, const sp::Instruction& in) {
  const auto& ops = in.operands;
  Value a = m.Read(t, ops[1], Type::kB32), b = m.Read(t, ops[2], Type::kB32),
        c = m.Read(t, ops[3], Type::kB32);
  std::optional<uint64_t> lut = m.Concrete(m.Read(t, ops[4], Type::kB32));
  if (!lut) return m.Inconclusive(t.pc, "a lop3 table that depends on the data");
  if (!a.sym && !b.sym && !c.sym) {
    m.Write(t, ops[0], Value::Concrete(sim::machine::Lop3(static_cast<uint32_t>(a.bits),
                                                         static_cast<uint32_t>(b.bits),
                                                         static_cast<uint32_t>(c.bits),
                                                         static_cast<uint32_t>(*lut)), 32));
    return true;
  }
  // Per bit: a function of three atoms; exact when it is a constant or one of them.
  std::vector<Atom> r(32);
  for (int i = 0; i < 32; ++i) {
    Atom x[3] = {a.At(i), b.At(i), c.At(i)};
    int out0 = -1;  // value over every completion of the symbolic atoms
    bool same[3] = {true, true, true};
    for (int v = 0; v < 8; ++v) {
      int bit[3] = {(v >> 2) & 1, (v >> 1) & 1, v & 1};
      bool fits = true;
      for (int k = 0; k < 3; ++k) if (IsConst(x[k]) && int(x[k]) != bit[k]) fits = false;
      for (int k = 0; k < 3; ++k) for (int l = 0; l < 3; ++l)
        if (!IsConst(x[k]) && x[k] == x[l] && bit[k] != bit[l]) fits = false;
      if (!fits) continue;
      int f = static_cast<int>((*lut >> v) & 1);
      out0 = out0 < 0 ? f : (out0 == f ? f : 2);
      for (int k = 0; k < 3; ++k) if (f != bit[k]) same[k] = false;
    }
    if (out0 == 0 || out0 == 1) r[static_cast<size_t>(i)] = static_cast<Atom>(out0);
    else if (same[0]) r[static_cast<size_t>(i)] = x[0];
    else if (same[1]) r[static_cast<size_t>(i)] = x[1];
    else if (same[2]) r[static_cast<size_t>(i)] = x[2];
    else return m.Inconclusive(t.pc, "lop3 mixing data bits is not modelled");
  }
  m.Write(t, ops[0], FromAtoms(std::move(r)));
  return true;
}

// setp.CMP.T p[|q], a, b[, {!}c]: integer comparisons; the .and/.or/.xor combiner.
bool ExecSetp(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  if (sp::IsFloat(ty)) return m.Inconclusive(t.pc, "float comparisons are not modelled by the prover");
  int bits = Bits(ty);
  bool s = sp::IsSigned(ty);
  const auto& ops = in.operands;
  Value a = m.Read(t, ops[1], ty), b = m.Read(t, ops[2], ty);
  Value cmp;
  using sp::CmpOp;
  CmpOp op = in.mods.cmp;
  if (!a.sym && !b.sym) {
    uint64_t x = a.bits, y = b.bits;
    int64_t sx = SExt(x, bits), sy = SExt(y, bits);
    bool r;
    switch (op) {
      case CmpOp::kEq: r = x == y; break;
      case CmpOp::kNe: r = x != y; break;
      case CmpOp::kLt: r = s ? sx < sy : x < y; break;
      case CmpOp::kLe: r = s ? sx <= sy : x <= y; break;
      case CmpOp::kGt: r = s ? sx > sy : x > y; break;
      case CmpOp::kGe: r = s ? sx >= sy : x >= y; break;
      case CmpOp::kLo: r = x < y; break;
      case CmpOp::kLs: r = x <= y; break;
      case CmpOp::kHi: r = x > y; break;
      case CmpOp::kHs: r = x >= y; break;
      default: return m.Inconclusive(t.pc, "a comparison the prover does not model");
    }
    cmp = Value::Concrete(r ? 1 : 0, 1);
  } else {
    smt::Term x = m.TermOf(a), y = m.TermOf(b), r;
    switch (op) {
      case CmpOp::kEq: r = x == y; break;
      case CmpOp::kNe: r = x != y; break;
      case CmpOp::kLt: r = s ? smt::BvSlt(x, y) : smt::BvUlt(x, y); break;
      case CmpOp::kLe: r = s ? smt::BvSle(x, y) : smt::BvUle(x, y); break;
      case CmpOp::kGt: r = s ? smt::BvSlt(y, x) : smt::BvUlt(y, x); break;
      case CmpOp::kGe: r = s ? smt::BvSle(y, x) : smt::BvUle(y, x); break;
      case CmpOp::kLo: r = smt::BvUlt(x, y); break;
      case CmpOp::kLs: r = smt::BvUle(x, y); break;
      case CmpOp::kHi: r = smt::BvUlt(y, x); break;
      case CmpOp::kHs: r = smt::BvUle(y, x); break;
      default: return m.Inconclusive(t.pc, "a comparison the prover does not model");
    }
    cmp = m.FromBool(r, t.pc);
  }
  Value p = cmp, q;
  {
    std::vector<Atom> n(1);
    if (!cmp.sym) q = Value::Concrete(cmp.bits ^ 1, 1);
    else q = m.FromTerm(smt::BvNot(m.TermOf(cmp)), 1, t.pc);
  }
  if (in.mods.bool_op != sp::BoolOp::kNone) {
    const sp::Operand& co = ops[3];
    Value c = Resize(t.regs[static_cast<size_t>(co.reg)], 1);
    if (co.negated) {
      c = c.sym ? m.FromTerm(smt::BvNot(m.TermOf(c)), 1, t.pc) : Value::Concrete(c.bits ^ 1, 1);
    }
    auto combine = [&](const Value& v) -> Value {
      std::optional<Value> r = in.mods.bool_op == sp::BoolOp::kAnd  ? AtomWise<AtomAnd>(v, c)
                               : in.mods.bool_op == sp::BoolOp::kOr ? AtomWise<AtomOr>(v, c)
                                                                    : AtomWise<AtomXor>(v, c);
      if (r) return *r;
      smt::Term x = m.TermOf(v), y = m.TermOf(c);
      return m.FromTerm(in.mods.bool_op == sp::BoolOp::kAnd  ? smt::BvAnd(x, y)
                        : in.mods.bool_op == sp::BoolOp::kOr ? smt::BvOr(x, y)
                                                             : smt::BvXor(x, y),
                        1, t.pc);
    };
    p = combine(p);
    q = combine(q);
  }
  const sp::Operand& d = ops[0];
  if (d.kind == sp::OperandKind::kPair) {
    m.Write(t, d.elems[0], p);
    m.Write(t, d.elems[1], q);
  } else {
    m.Write(t, d, p);
  }
  return !m.stopped;
}

bool ExecSelp(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  const auto& ops = in.operands;
  Value a = m.Read(t, ops[1], ty), b = m.Read(t, ops[2], ty);
  const sp::Operand& co = ops[3];
  Value c = Resize(t.regs[static_cast<size_t>(co.reg)], 1);
  std::optional<uint64_t> cv = c.sym ? std::nullopt : std::optional<uint64_t>(c.bits);
  if (!cv && !a.sym && !b.sym && a.bits == b.bits) cv = 1;
  if (cv) {
    bool take_a = ((*cv & 1) != 0) != co.negated;
    m.Write(t, ops[0], take_a ? a : b);
    return true;
  }
  smt::Term p = m.TermOf(c) == m.ctx->Bv(co.negated ? 0 : 1, 1);
  m.Write(t, ops[0], m.FromTerm(smt::Ite(p, m.TermOf(a), m.TermOf(b)), Bits(ty), t.pc));
  return !m.stopped;
}

// cvt between integer types: the source at its width (sign-extended when signed), then
// the destination width; a signed result fills its register with its sign.
bool ExecCvt(Impl& m, Thread& t, const sp::Instruction& in) {
  Type dt = in.mods.types[0], st = in.mods.types[1];
  if (sp::IsFloat(dt) || sp::IsFloat(st) || in.operands.size() != 2) {
    return m.Inconclusive(t.pc, "float conversions are not modelled by the prover");
  }
  int sb = Bits(st), db = Bits(dt);
  Value a = m.Read(t, in.operands[1], st);
  if (in.mods.sat) {
    if (a.sym) return m.Inconclusive(t.pc, "saturating cvt of data is not modelled");
    int64_t v = sp::IsSigned(st) ? SExt(a.bits, sb) : static_cast<int64_t>(a.bits);
    bool src_unsigned_big = !sp::IsSigned(st) && sb == 64 && (a.bits >> 63);
    int64_t lo = sp::IsSigned(dt) ? (db >= 64 ? INT64_MIN : -(int64_t{1} << (db - 1))) : 0;
    uint64_t hi = sp::IsSigned(dt) ? Mask(db - 1) : Mask(db);
    uint64_t r;
    if (src_unsigned_big) r = hi;
    else if (v < lo) r = static_cast<uint64_t>(lo);
    else if (v >= 0 && static_cast<uint64_t>(v) > hi) r = hi;
    else r = static_cast<uint64_t>(v);
    m.Write(t, in.operands[0], Value::Concrete(r, db), sp::IsSigned(dt));
    return true;
  }
  Value wide = Resize(a, 64, sp::IsSigned(st));
  m.Write(t, in.operands[0], Resize(wide, db), sp::IsSigned(dt));
  return true;
}

bool ExecCvta(Impl& m, Thread& t, const sp::Instruction& in) {
  Type ty = in.mods.types[0];
  int bits = Bits(ty);
  std::optional<uint64_t> a = m.Concrete(m.Read(t, in.operands[1], ty));
  if (!a) return m.Inconclusive(t.pc, "an address that depends on the data");
  uint64_t base = 0;
  if (in.mods.space == sp::Space::kShared) base = 0x0000'7fff'0000'0000ull;
  if (in.mods.space == sp::Space::kLocal) base = 0x0000'7ffe'0000'0000ull;
  uint64_t r = in.mods.to ? *a - base : *a + base;
  m.Write(t, in.operands[0], Value::Concrete(r, bits));
  return true;
}

// ld / st (global, shared, param, generic), scalars and vectors.
bool ExecLdSt(Impl& m, Thread& t, const sp::Instruction& in) {
  bool store = in.op == Opcode::kSt;
  Type ty = in.mods.types[0];
  int eb = std::max(1, sp::TypeBits(ty) / 8);
  int vec = std::max(1, in.mods.vec);
  uint32_t size = static_cast<uint32_t>(eb * vec);
  sp::Space space = in.mods.space == sp::Space::kNone ? sp::Space::kGeneric : in.mods.space;
  const sp::Operand& addr_op = in.operands[store ? 0 : 1];
  const sp::Operand& data = in.operands[store ? 1 : 0];
  std::optional<uint64_t> addr = m.Address(t, addr_op, space);
  if (!addr) return m.Inconclusive(t.pc, "an address that depends on the data");
  if (*addr & (size - 1)) {
    return m.Fault(t, t.pc, "misaligned",
                   absl::StrFormat("address 0x%x of a %u-byte access is not %u-byte aligned",
                                   *addr, size, size));
  }
  std::vector<const sp::Operand*> elems;
  if (data.kind == sp::OperandKind::kVector) {
    for (const sp::Operand& e : data.elems) elems.push_back(&e);
  } else {
    elems.push_back(&data);
  }
  Type et = eb == 1 ? Type::kB8 : eb == 2 ? Type::kB16 : eb == 4 ? Type::kB32 : Type::kB64;
  if (store) {
    for (size_t k = 0; k < elems.size(); ++k) {
      std::vector<Atom> atoms = AtomsOf(m.Read(t, *elems[k], et));
      if (!m.Store(t, t.pc, space, *addr + k * static_cast<uint64_t>(eb), atoms,
                   static_cast<uint8_t>(k))) {
        return false;
      }
    }
    return !m.stopped;
  }
  std::vector<Atom> all;
  if (!m.Load(t, t.pc, space, *addr, size, &all)) return false;
  for (size_t k = 0; k < elems.size(); ++k) {
    std::vector<Atom> part(all.begin() + static_cast<ptrdiff_t>(k * 8 * eb),
                           all.begin() + static_cast<ptrdiff_t>((k + 1) * 8 * eb));
    m.Write(t, *elems[k], FromAtoms(std::move(part)), sp::IsSigned(ty));
  }
  return !m.stopped;
}

}  // namespace

bool Impl::ExecPlain(Thread& t, const sp::Instruction& in) {
  switch (in.op) {
    case Opcode::kMov:
      return ExecMov(*this, t, in);
    case Opcode::kAdd:
    case Opcode::kSub:
    case Opcode::kMul:
    case Opcode::kMad:
    case Opcode::kMin:
    case Opcode::kMax:
    case Opcode::kDiv:
    case Opcode::kRem:
    case Opcode::kNeg:
    case Opcode::kAbs:
      return ExecArith(*this, t, in);
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kNot:
    case Opcode::kCnot:
      return ExecLogic(*this, t, in);
    case Opcode::kShl:
    case Opcode::kShr:
      return ExecShift(*this, t, in);
    case Opcode::kPopc:
    case Opcode::kClz:
    case Opcode::kBrev:
      return ExecCount(*this, t, in);
    case Opcode::kBfe:
    case Opcode::kBfi:
      return ExecBitField(*this, t, in);
    case Opcode::kPrmt:
      return ExecPrmt(*this, t, in);
    case Opcode::kLop3:
      return ExecLop3(*this, t, in);
    case Opcode::kSetp:
      return ExecSetp(*this, t, in);
    case Opcode::kSelp:
      return ExecSelp(*this, t, in);
    case Opcode::kCvt:
      return ExecCvt(*this, t, in);
    case Opcode::kCvta:
      return ExecCvta(*this, t, in);
    case Opcode::kLd:
    case Opcode::kSt:
      return ExecLdSt(*this, t, in);
    case Opcode::kMembar:
    case Opcode::kFence:
    case Opcode::kNanosleep:
      return true;
    case Opcode::kCreatePolicy:
      Write(t, in.operands[0], Value::Concrete(0, 64));
      return true;
    default:
      return Inconclusive(t.pc, absl::StrCat("'", in.opcode_text,
                                             "' is not modelled by the prover"));
  }
}

}  // namespace warpcheck::verify::ptx
