#include "sim/ptx/codegen.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_join.h"
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
  friend auto operator<=>(const Reg&, const Reg&) = default;
};

constexpr absl::string_view kRegPrefix[] = {"", "%p", "%r", "%rd"};

// `*out = kRegPrefix[cls] + n`, from names made once per thread (a StrCat per register
// operand was a fifth of emitting).
void SetRegName(std::string* out, int cls, int n) {
  thread_local std::vector<std::string> names[4];
  std::vector<std::string>& v = names[cls];
  while (v.size() <= static_cast<size_t>(n)) v.push_back(absl::StrCat(kRegPrefix[cls], v.size()));
  *out = v[static_cast<size_t>(n)];
}

// ParseOpcode of the writer's spellings, looked up once per thread and handed out by
// reference (ParseOpcode returns a copy of its Modifiers in a StatusOr each time). The
// spellings are this file's own, a small fixed set.
const ParsedOpcode& CachedOpcode(absl::string_view opcode) {
  thread_local absl::flat_hash_map<std::string, ParsedOpcode> cache;
  auto it = cache.find(opcode);
  if (it == cache.end()) {
    // The spellings are this file's own; a typo would show in every test.
    it = cache.emplace(std::string(opcode), *ParseOpcode(opcode)).first;
  }
  return it->second;
}

// Builds the harness kernel's tree (ast.h) instruction by instruction, as the parser
// would have read it from the printed text: opcodes resolved by ParseOpcode, register
// operands resolved to Kernel::registers. Register indices depend on how many registers
// of each class there are, known only at the end, so operands carry a class-and-number
// code in Operand::reg until Finish resolves it.
class Writer {
 public:
  // The body opens with the three register declarations, filled in by Finish.
  // `statements`: a guess of the body's length (growing a vector of ~1 KiB statements
  // moved each one several times).
  explicit Writer(size_t statements) {
    body_.reserve(statements);
    body_.resize(3);
  }

  Reg NewReg() { return Reg{Reg::Class::kB32, nr_++}; }
  Reg NewPred() { return Reg{Reg::Class::kPred, np_++}; }
  Reg NewWide() { return Reg{Reg::Class::kB64, nd_++}; }

  static Operand R(Reg r) {
    Operand o;
    o.kind = OperandKind::kReg;
    SetRegName(&o.name, static_cast<int>(r.cls), r.n);
    o.reg = Code(r);
    return o;
  }
  static Operand Imm(int64_t v) {
    Operand o;
    o.kind = OperandKind::kImm;
    o.bits = static_cast<uint64_t>(v);
    return o;
  }
  static Operand Symbol(const char* name) {
    Operand o;
    o.kind = OperandKind::kSymbol;
    o.name = name;
    return o;
  }
  static Operand Special(SpecialReg s) {
    Operand o;
    o.kind = OperandKind::kSpecial;
    o.special = s;
    o.name = SpecialRegName(s);
    return o;
  }
  // `[base+offset]`; a zero offset is written when write_zero (`[base+0]`).
  static Operand Addr(Reg base, int64_t offset, bool write_zero) {
    Operand o = R(base);
    o.kind = OperandKind::kAddress;
    o.base_is_reg = true;
    o.offset = offset;
    o.zero_offset_written = write_zero && offset == 0;
    return o;
  }
  static Operand ParamAddr(const char* param) {
    Operand o;
    o.kind = OperandKind::kAddress;
    o.name = param;
    return o;
  }
  // `{a, b, ...}`; one register alone is written bare unless `braces`.
  static Operand Vec(const std::vector<Reg>& regs, bool braces = false) {
    if (regs.size() == 1 && !braces) return R(regs[0]);
    Operand o;
    o.kind = OperandKind::kVector;
    o.elems.reserve(regs.size());
    for (Reg r : regs) o.elems.push_back(R(r));
    return o;
  }

  // One instruction, `@guard opcode operands;` (guard: a predicate, or none).
  template <typename... O>
  void Guarded(std::optional<Reg> guard, absl::string_view opcode, O&&... operands) {
    Statement& s = body_.emplace_back();
    s.kind = Statement::Kind::kInstruction;
    Instruction& in = s.insn;
    if (guard.has_value()) in.guard = R(*guard);
    const ParsedOpcode& parsed = CachedOpcode(opcode);
    in.op = parsed.op;
    in.mods = parsed.mods;
    in.opcode_text.assign(opcode.data(), opcode.size());
    in.operands.reserve(sizeof...(O));
    (in.operands.push_back(std::forward<O>(operands)), ...);
  }
  template <typename... O>
  void Insn(absl::string_view opcode, O&&... operands) {
    Guarded(std::nullopt, opcode, std::forward<O>(operands)...);
  }
  void Label(const char* name) {
    Statement& s = body_.emplace_back();
    s.kind = Statement::Kind::kLabel;
    s.label = name;
  }

  // The kernel: register declarations (at least one of each class), then the body, with
  // every register operand resolved.
  Kernel Finish(Kernel k) {
    const int counts[] = {0, std::max(np_, 1), std::max(nr_, 1), std::max(nd_, 1)};
    const Type types[] = {Type::kPred, Type::kPred, Type::kB32, Type::kB64};
    int first[4] = {0, 0, 0, 0};
    k.registers.reserve(counts[1] + counts[2] + counts[3]);
    for (int c = 1; c <= 3; ++c) {
      first[c] = static_cast<int>(k.registers.size());
      Statement& decl = body_[c - 1];  // the constructor's placeholders
      decl.kind = Statement::Kind::kRegDecl;
      decl.regs.push_back(RegDecl{types[c], std::string(kRegPrefix[c]), counts[c]});
      for (int i = 0; i < counts[c]; ++i) {
        Register& r = k.registers.emplace_back();
        SetRegName(&r.name, c, i);
        r.type = types[c];
      }
    }
    auto resolve = [&](Operand& o) { o.reg = first[o.reg & 3] + (o.reg >> 2); };
    for (size_t i = 3; i < body_.size(); ++i) {
      Instruction& in = body_[i].insn;
      if (in.guard.has_value()) resolve(*in.guard);
      for (Operand& o : in.operands) {
        if (o.kind == OperandKind::kReg || (o.kind == OperandKind::kAddress && o.base_is_reg)) {
          resolve(o);
        }
        for (Operand& e : o.elems) resolve(e);
      }
    }
    k.body = std::move(body_);
    return k;
  }

  Reg tid;
  Reg smem_base[2];

 private:
  static int Code(Reg r) { return r.n * 4 + static_cast<int>(r.cls); }

  int nr_ = 0, np_ = 0, nd_ = 0;
  std::vector<Statement> body_;
};

using W = Writer;

// u32 = XOR over tid bits b of coeff[b], then ^ constant. A coefficient of one bit 2^j
// moves tid bit b by j - b: bits that move the same distance share one `and` and one
// shift (Triton's address code looks the same), so a row-major offset costs two
// instructions per run of bits, not four per bit; other coefficients take
// bfe/neg/and. Terms are XORed (OR would do where they are disjoint; XOR is the map).
Reg EmitTidLinear(Writer& w, const std::vector<uint32_t>& coeff, uint32_t constant) {
  std::map<int, uint32_t> by_shift;  // j - b -> the tid bits b that move by it
  std::vector<Reg> terms;
  for (size_t b = 0; b < coeff.size(); ++b) {
    if (coeff[b] == 0) continue;
    if ((coeff[b] & (coeff[b] - 1)) == 0) {
      by_shift[__builtin_ctz(coeff[b]) - static_cast<int>(b)] |= 1u << b;
      continue;
    }
    Reg t = w.NewReg();
    w.Insn("bfe.u32", W::R(t), W::R(w.tid), W::Imm(static_cast<int64_t>(b)), W::Imm(1));
    w.Insn("neg.s32", W::R(t), W::R(t));
    w.Insn("and.b32", W::R(t), W::R(t), W::Imm(coeff[b]));
    terms.push_back(t);
  }
  for (const auto& [shift, mask] : by_shift) {
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

std::string TypeOf(int bytes) { return absl::StrCat(".b", 8 * bytes); }

std::string VecMod(size_t n) { return n == 1 ? "" : absl::StrCat(".v", n); }

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

// Emits one program's ops; `names` maps word ids to registers (inputs filled in;
// others assigned here unless preassigned).
void EmitOps(Writer& w, const Program& p, const std::vector<Reg>& setup,
             std::vector<Reg>& names) {
  auto name = [&](int id) {
    if (!names[id].valid()) names[id] = w.NewReg();
    return names[id];
  };
  auto regs_of = [&](const plan::Words& ids) {
    std::vector<Reg> regs;
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
        std::vector<Reg> regs = regs_of(op.in);
        w.Guarded(GuardOf(op, setup),
                  absl::StrCat("st.shared", VecMod(regs.size()), TypeOf(op.elem_bytes)),
                  W::Addr(setup[op.addr], op.imm, true), W::Vec(regs));
        break;
      }
      case OpKind::kLdShared: {
        std::vector<Reg> regs = regs_of(op.out);
        w.Insn(absl::StrCat("ld.shared", VecMod(regs.size()), TypeOf(op.elem_bytes)),
               W::Vec(regs), W::Addr(setup[op.addr], op.imm, true));
        break;
      }
      case OpKind::kStMatrix:
      case OpKind::kLdMatrix: {
        const bool st = op.kind == OpKind::kStMatrix;
        std::vector<Reg> regs = regs_of(st ? op.in : op.out);
        std::string opcode = absl::StrCat(st ? "stmatrix" : "ldmatrix", ".sync.aligned.m8n8.x",
                                          regs.size(), op.trans ? ".trans" : "", ".shared.b16");
        Operand addr = W::Addr(setup[op.addr], op.imm, true);
        if (st) {
          w.Guarded(GuardOf(op, setup), opcode, std::move(addr), W::Vec(regs, true));
        } else {
          w.Guarded(GuardOf(op, setup), opcode, W::Vec(regs, true), std::move(addr));
        }
        break;
      }
      case OpKind::kBarSync: w.Insn("bar.sync", W::Imm(0)); break;
      case OpKind::kBarWarp: w.Insn("bar.warp.sync", W::Imm(-1)); break;
    }
  }
}


std::vector<uint32_t> TidCoeffs(const FlatLayout& l) {
  std::vector<uint32_t> c(l.lane.begin(), l.lane.end());
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
  Operand At(uint32_t c) {
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
// The thread's registers whose index has no bit of `skip`, in ascending order of their
// element offset (the address order of the thread's global accesses). Issued in this
// order, the 64x64 f16 4-warp harnesses whose accesses alternate between two 1 KiB halves
// ran 1.45-1.5x faster on the H200 (corpus/plan/README.md, "What made v6's slow pairs
// slow"); ties keep register order.
std::vector<uint32_t> RegistersInAddressOrder(const FlatLayout& l, uint32_t skip) {
  // (offset, register), sorted stably by offset: the order of sorting the registers by
  // ApplyBasis in the comparator, with each offset computed once.
  std::vector<std::pair<uint32_t, uint32_t>> keyed;
  for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
    if ((r & skip) == 0) keyed.emplace_back(plan::ApplyBasis(l.reg, r), r);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint32_t> regs;
  regs.reserve(keyed.size());
  for (const auto& [offset, r] : keyed) regs.push_back(r);
  return regs;
}

uint32_t TidBits(const FlatLayout& l) {
  uint32_t bits = 0;
  for (uint32_t c : TidCoeffs(l)) bits |= c;
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

void EmitNarrowLoad(Writer& w, const FlatLayout& l, const WordView& v,
                    const std::vector<int>& run, GlobalAddresses& addr, std::vector<Reg>& words) {
  const uint32_t rmask = BitMask(run);
  const uint32_t n = 1u << run.size();
  // (temp, half) of every (unit, slot) the loads bring in.
  std::vector<std::vector<std::pair<Reg, uint32_t>>> at(
      static_cast<size_t>(v.units()), std::vector<std::pair<Reg, uint32_t>>(1u << v.pk()));
  for (uint32_t r : RegistersInAddressOrder(l, rmask)) {
    std::vector<Reg> t(n / 2);
    for (Reg& x : t) x = w.NewReg();
    w.Insn(absl::StrCat("ld.global", VecMod(t.size()), ".b32"), W::Vec(t),
           addr.At(plan::ApplyBasis(l.reg, r)));
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t reg = RunRegister(run, r, j);
      at[v.Unit(reg)][v.Slot(reg)] = {t[j / 2], j % 2};
    }
  }
  for (int u = 0; u < v.units(); ++u) {
    const auto& s = at[u];
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
  for (uint32_t r : RegistersInAddressOrder(l, rmask | free_regs)) {
    std::vector<Reg> t(n / 2);
    for (uint32_t m = 0; m < n / 2; ++m) {
      const uint32_t ra = RunRegister(run, r, 2 * m), rb = RunRegister(run, r, 2 * m + 1);
      t[m] = w.NewReg();
      w.Insn("prmt.b32", W::R(t[m]), W::R(words[v.Unit(ra)]), W::R(words[v.Unit(rb)]),
             W::Imm(HalfSelector(v.Slot(ra), v.Slot(rb))));
    }
    w.Guarded(guard, absl::StrCat("st.global", VecMod(t.size()), ".b32"),
              addr.At(plan::ApplyBasis(l.reg, r)), W::Vec(t));
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
  auto first_offset = [&](int u) {
    return plan::ApplyBasis(l.reg, v.upw == 2 ? static_cast<uint32_t>(u)
                                              : v.Reg(static_cast<uint32_t>(u), 0));
  };
  // Units stably sorted by first_offset (each computed once).
  std::vector<std::pair<uint32_t, int>> keyed(static_cast<size_t>(v.units()));
  for (int u = 0; u < v.units(); ++u) keyed[u] = {first_offset(u), u};
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [offset, u] : keyed) {
    if (v.upw == 2) {
      Operand a = addr.At(plan::ApplyBasis(l.reg, u));
      Reg lo = w.NewReg(), hi = w.NewReg();
      w.Insn("ld.global.v2.b32", W::Vec({lo, hi}), std::move(a));
      words[2 * u] = lo;
      words[2 * u + 1] = hi;
      continue;
    }
    Reg word;
    for (int s = 0; s < (1 << v.pk()); ++s) {
      uint32_t r = v.Reg(static_cast<uint32_t>(u), static_cast<uint32_t>(s));
      Operand a = addr.At(plan::ApplyBasis(l.reg, r));
      Reg x = w.NewReg();
      w.Insn(absl::StrCat("ld.global.u", 8 * eb), W::R(x), std::move(a));
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
  for (uint32_t r : RegistersInAddressOrder(l, free_regs)) {
    Operand a = addr.At(plan::ApplyBasis(l.reg, r));
    if (v.upw == 2) {
      w.Guarded(guard, "st.global.v2.b32", std::move(a), W::Vec({words[2 * r], words[2 * r + 1]}));
      continue;
    }
    const Reg word = words[v.Unit(r)];
    uint32_t slot = v.Slot(r);
    Reg x = word;
    if (slot != 0) {
      x = w.NewReg();
      w.Insn("shr.u32", W::R(x), W::R(word), W::Imm(slot * 8 * eb));
    }
    w.Guarded(guard, absl::StrCat("st.global.b", 8 * eb), std::move(a), W::R(x));
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
  const std::string ld = bytes >= 4 ? absl::StrCat("ld.global", VecMod(words), ".b32")
                                    : absl::StrCat("ld.global.u", 8 * eb);
  const std::string st = bytes >= 4 ? absl::StrCat("st.global", VecMod(words), ".b32")
                                    : absl::StrCat("st.global.b", 8 * eb);
  const Reg elem = EmitTidLinear(w, TidCoeffs(l), 0);
  GlobalAddresses src(w, elem, TidBits(l), eb, in), dst(w, elem, TidBits(l), eb, out);
  const std::vector<uint32_t> regs = RegistersInAddressOrder(l, BitMask(run) | free_regs);
  std::vector<std::vector<Reg>> loaded;
  for (uint32_t r : regs) {
    std::vector<Reg> t(static_cast<size_t>(words));
    for (Reg& x : t) x = w.NewReg();
    w.Insn(ld, W::Vec(t), src.At(plan::ApplyBasis(l.reg, r)));
    loaded.push_back(std::move(t));
  }
  const std::optional<Reg> guard = StoreGuard(w, free_tid);
  for (size_t i = 0; i < regs.size(); ++i) {
    w.Guarded(guard, st, dst.At(plan::ApplyBasis(l.reg, regs[i])), W::Vec(loaded[i]));
  }
}

}  // namespace


absl::StatusOr<RoundTrip> PlanRoundTrip(const ConversionProblem& problem,
                                        const plan::PlanOptions& options) {
  std::vector<std::pair<size_t, RoundTrip>> trips;  // (view, its plans), one per word view
  absl::Status last = absl::OkStatus();
  const ConversionProblem reversed = problem.Reversed();
  const std::vector<std::pair<WordView, WordView>> views = plan::CandidateViews(problem, options);
  // Replanning with other barrier or buffer options reuses each direction's bank search.
  plan::SearchMemo forward_memo, backward_memo;
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
  const plan::Strategy triton_forward = plan::TritonStrategy(problem);
  const plan::Strategy triton_backward = plan::TritonStrategy(reversed);
  std::optional<Floor> reference;  // the first planned view of Triton's mechanism
  for (const size_t view : order) {
    if (reference && floors[view] && *floors[view] > *reference) continue;
    const auto& [sv, dv] = views[view];
    plan::PlanOptions o = options;
    o.views = std::make_pair(sv, dv);
    o.memo = &forward_memo;
    plan::PlanOptions ob = options;
    ob.views = std::make_pair(dv, sv);
    ob.memo = &backward_memo;
    o.buffer = 0;
    auto fwd = plan::PlanConversion(problem, o);
    ob.buffer = 1;
    auto bwd = plan::PlanConversion(reversed, ob);
    if (!fwd.ok() || !bwd.ok()) {
      last = fwd.ok() ? bwd.status() : fwd.status();
      continue;
    }
    auto warp_barrier = [](const plan::ConversionPlan& c) {
      for (const Op& op : c.program.ops) if (op.kind == OpKind::kBarWarp) return true;
      return false;
    };
    auto has_cta_barrier = [](const plan::ConversionPlan& c) {
      for (const Op& op : c.program.ops) if (op.kind == OpKind::kBarSync) return true;
      return false;
    };
    // A buffer read by other warps needs a CTA barrier before the next store into it:
    // the other direction's barrier must be CTA-wide then.
    if ((warp_barrier(*fwd) && has_cta_barrier(*bwd)) ||
        (warp_barrier(*bwd) && has_cta_barrier(*fwd))) {
      o.force_cta_barrier = ob.force_cta_barrier = true;
      o.buffer = 0;
      fwd = plan::PlanConversion(problem, o);
      ob.buffer = 1;
      bwd = plan::PlanConversion(reversed, ob);
      if (!fwd.ok() || !bwd.ok()) {
        last = fwd.ok() ? bwd.status() : fwd.status();
        continue;
      }
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
      if (!fwd.ok() || !bwd.ok()) {
        last = fwd.ok() ? bwd.status() : fwd.status();
        continue;
      }
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
      if (!fwd.ok() || !bwd.ok()) {
        last = fwd.ok() ? bwd.status() : fwd.status();
        continue;
      }
      if (std::max(fwd->program.smem_bytes, bwd->program.smem_bytes) > kMaxShared) {
        last = absl::InvalidArgumentError(absl::StrCat(
            "smem: the tensor needs ", std::max(fwd->program.smem_bytes, bwd->program.smem_bytes),
            " bytes of shared memory, more than a CTA has (", kMaxShared,
            "), and its layouts leave too few offset bits to run it in rounds"));
        continue;
      }
    }
    if (fwd->strategy == triton_forward && bwd->strategy == triton_backward) {
      const Floor cost{fwd->cost.warp_instructions + bwd->cost.warp_instructions,
                       fwd->cost.wavefronts_store + fwd->cost.wavefronts_load +
                           bwd->cost.wavefronts_store + bwd->cost.wavefronts_load,
                       fwd->cost.score + bwd->cost.score, fwd->src_view.words(), view};
      if (!reference || cost < *reference) reference = cost;
    }
    trips.emplace_back(view, RoundTrip{*std::move(fwd), *std::move(bwd)});
  }
  if (trips.empty()) {
    return last.ok() ? absl::InvalidArgumentError("convert: no word packing to plan with")
                     : last;
  }
  std::stable_sort(trips.begin(), trips.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<const plan::ConversionPlan*, const plan::ConversionPlan*>> pairs;
  for (const auto& [view, t] : trips) pairs.emplace_back(&t.forward, &t.backward);
  return trips[plan::PickRoundTrip(problem, pairs)].second;
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
  std::map<int, std::vector<int>> input_index;
  for (size_t i = 0; i < body.inputs.size(); ++i) input_index[body.inputs[i]].push_back(i);
  std::vector<size_t> def(body.num_words, 0);
  for (size_t j = 0; j < body.ops.size(); ++j) {
    for (int id : body.ops[j].in) {
      auto it = input_index.find(id);
      if (it != input_index.end()) for (int xi : it->second) x_last[xi] = j + 1;
    }
    for (int id : body.ops[j].out) def[id] = j + 1;
  }
  for (int id : body.outputs) {
    auto it = input_index.find(id);
    if (it != input_index.end()) for (int xi : it->second) x_live_out[xi] = true;
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
  std::map<Reg, size_t> x_index;
  for (size_t j = 0; j < x.size(); ++j) x_index[x[j]] = j;
  std::vector<std::pair<Reg, Reg>> copies;
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    const Reg src = names[body.outputs[i]];
    if (src == x[i]) continue;
    auto it = x_index.find(src);
    if (it != x_index.end() && SameElements(problem, sv, it->second, i)) continue;
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
                            harness == Harness::kRoundTrip ? "roundtrip" : "once"),
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
  for (int i = 0; i < 2; ++i) {
    Param& p = k.params.emplace_back();
    p.type = Type::kU64;
    p.name = absl::StrCat("kernel_param_", i);
    p.is_ptr = true;
    p.ptr_space = Space::kGlobal;
    p.align = 16;
  }
  Param& iters = k.params.emplace_back();
  iters.type = Type::kU32;
  iters.name = "kernel_param_2";
  k.reqntid = {static_cast<int>(problem.threads())};
  k.maxnreg = MaxRegisters(static_cast<int>(problem.threads()));
  return m;
}

}  // namespace

Module EmitHarnessModule(const ConversionProblem& problem, const ConversionPlan& forward,
                         const ConversionPlan* backward, Harness harness) {
  const bool round_trip = harness == Harness::kRoundTrip;
  // Statements: setup and ops of both directions, the global loads and stores (a few per
  // register), the frame.
  const size_t ops = forward.program.ops.size() + forward.program.setup.size() * 8 +
                     (round_trip ? 2 * (backward->program.ops.size() +
                                        backward->program.setup.size() * 8)
                                 : 0);
  Writer w(64 + ops + 6 * static_cast<size_t>(problem.src.num_regs() + problem.dst.num_regs()));
  const int64_t buf0 = forward.program.smem_bytes;
  const int64_t buf1 = round_trip ? backward->program.smem_bytes : 0;
  bool shared_one = false;  // both directions in buffer 0 (PlanRoundTrip, large tensors)
  if (round_trip) {
    for (const auto& v : backward->program.setup) {
      if (v.kind == SetupValue::Kind::kSmemAddr && v.buffer == 0) shared_one = true;
    }
  }
  const int64_t smem_total = shared_one ? std::max(buf0, buf1) : (buf0 + 15) / 16 * 16 + buf1;
  Reg in = w.NewWide(), out = w.NewWide();
  w.Insn("ld.param.u64", W::R(in), W::ParamAddr("kernel_param_0"));
  w.Insn("ld.param.u64", W::R(out), W::ParamAddr("kernel_param_1"));
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
  const bool moves_nothing = round_trip && MovesNothing(problem, forward.src_view, body);
  std::vector<Reg> x;
  if (!moves_nothing) x = EmitGlobalLoad(w, problem, problem.src, forward.src_view, in);

  if (!round_trip) {
    std::vector<Reg> names(forward.program.num_words);
    for (size_t i = 0; i < x.size(); ++i) names[forward.program.inputs[i]] = x[i];
    EmitOps(w, forward.program, setup_f, names);
    std::vector<Reg> y;
    for (int id : forward.program.outputs) y.push_back(names[id]);
    EmitGlobalStore(w, problem, problem.dst, forward.dst_view, y, out);
  } else if (moves_nothing) {
    EmitGlobalCopy(w, problem, problem.src, in, out);
  } else {
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
  Module m = HarnessModule(problem, harness, smem_total);
  m.kernels[0] = w.Finish(std::move(m.kernels[0]));
  LocateAsPrinted(&m);
  return m;
}

std::string EmitHarness(const ConversionProblem& problem, const ConversionPlan& forward,
                        const ConversionPlan* backward, Harness harness) {
  return PrintModule(EmitHarnessModule(problem, forward, backward, harness));
}

warpcheck::LaunchSpec HarnessLaunchSpec(const ConversionProblem& problem,
                                        const std::string& ptx_file,
                                        warpcheck::BufferParam::Fill fill, uint64_t seed,
                                        uint32_t iters) {
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
  auto* e = spec.add_expect();
  e->mutable_buffers_equal()->set_a("in");
  e->mutable_buffers_equal()->set_b("out");
  spec.set_source(absl::StrCat("warpcheck convert emit: ", problem.src_attr, " -> ",
                               problem.dst_attr, " ", absl::StrJoin(problem.shape, "x"), " ",
                               plan::DTypeName(problem.dtype)));
  return spec;
}

}  // namespace warpcheck::sim::ptx
