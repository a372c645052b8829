#include "sim/ptx/codegen.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/triton_floor.h"

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

class Writer {
 public:
  std::string NewReg() { return absl::StrCat("%r", nr_++); }
  std::string NewPred() { return absl::StrCat("%p", np_++); }
  std::string NewWide() { return absl::StrCat("%rd", nd_++); }
  void Line(const std::string& s) { absl::StrAppend(&body_, "\t", s, "\n"); }
  void Label(const std::string& s) { absl::StrAppend(&body_, s, ":\n"); }
  std::string Decls() const {
    return absl::StrCat("\t.reg .pred %p<", std::max(np_, 1), ">;\n\t.reg .b32 %r<",
                        std::max(nr_, 1), ">;\n\t.reg .b64 %rd<", std::max(nd_, 1), ">;\n");
  }
  const std::string& body() const { return body_; }

  std::string tid;
  std::string smem_base[2];

 private:
  int nr_ = 0, np_ = 0, nd_ = 0;
  std::string body_;
};

// u32 = XOR over tid bits b of coeff[b], then ^ constant. A coefficient of one bit 2^j
// moves tid bit b by j - b: bits that move the same distance share one `and` and one
// shift (Triton's address code looks the same), so a row-major offset costs two
// instructions per run of bits, not four per bit; other coefficients take
// bfe/neg/and. Terms are XORed (OR would do where they are disjoint; XOR is the map).
std::string EmitTidLinear(Writer& w, const std::vector<uint32_t>& coeff, uint32_t constant) {
  std::map<int, uint32_t> by_shift;  // j - b -> the tid bits b that move by it
  std::vector<std::string> terms;
  for (size_t b = 0; b < coeff.size(); ++b) {
    if (coeff[b] == 0) continue;
    if ((coeff[b] & (coeff[b] - 1)) == 0) {
      by_shift[__builtin_ctz(coeff[b]) - static_cast<int>(b)] |= 1u << b;
      continue;
    }
    std::string t = w.NewReg();
    w.Line(absl::StrCat("bfe.u32 ", t, ", ", w.tid, ", ", b, ", 1;"));
    w.Line(absl::StrCat("neg.s32 ", t, ", ", t, ";"));
    w.Line(absl::StrCat("and.b32 ", t, ", ", t, ", ", coeff[b], ";"));
    terms.push_back(t);
  }
  for (const auto& [shift, mask] : by_shift) {
    std::string t = w.NewReg();
    w.Line(absl::StrCat("and.b32 ", t, ", ", w.tid, ", ", mask, ";"));
    if (shift > 0) w.Line(absl::StrCat("shl.b32 ", t, ", ", t, ", ", shift, ";"));
    if (shift < 0) w.Line(absl::StrCat("shr.u32 ", t, ", ", t, ", ", -shift, ";"));
    terms.push_back(t);
  }
  if (terms.empty()) {
    std::string v = w.NewReg();
    w.Line(absl::StrCat("mov.u32 ", v, ", ", constant, ";"));
    return v;
  }
  std::string v = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string x = w.NewReg();
    w.Line(absl::StrCat("xor.b32 ", x, ", ", v, ", ", terms[i], ";"));
    v = x;
  }
  if (constant != 0) {
    std::string x = w.NewReg();
    w.Line(absl::StrCat("xor.b32 ", x, ", ", v, ", ", constant, ";"));
    v = x;
  }
  return v;
}

std::vector<std::string> EmitSetup(Writer& w, const Program& p) {
  std::vector<std::string> names;
  for (const SetupValue& s : p.setup) {
    switch (s.kind) {
      case SetupValue::Kind::kTidLinear:
        names.push_back(EmitTidLinear(w, s.coeff, s.constant));
        break;
      case SetupValue::Kind::kTidParity: {
        std::string t = w.NewReg(), pr = w.NewPred();
        w.Line(absl::StrCat("and.b32 ", t, ", ", w.tid, ", ", s.mask, ";"));
        w.Line(absl::StrCat("popc.b32 ", t, ", ", t, ";"));
        w.Line(absl::StrCat("and.b32 ", t, ", ", t, ", 1;"));
        w.Line(absl::StrCat("setp.ne.u32 ", pr, ", ", t, ", 0;"));
        names.push_back(pr);
        break;
      }
      case SetupValue::Kind::kTidMaskZero: {
        std::string t = w.NewReg(), pr = w.NewPred();
        w.Line(absl::StrCat("and.b32 ", t, ", ", w.tid, ", ", s.mask, ";"));
        w.Line(absl::StrCat("setp.eq.u32 ", pr, ", ", t, ", 0;"));
        names.push_back(pr);
        break;
      }
      case SetupValue::Kind::kSmemAddr: {
        std::string v = EmitTidLinear(w, s.coeff, s.constant);
        std::string a = w.NewReg();
        w.Line(absl::StrCat("mad.lo.u32 ", a, ", ", v, ", ", s.element_bytes, ", ",
                            w.smem_base[s.buffer], ";"));
        names.push_back(a);
        break;
      }
    }
  }
  return names;
}

std::string TypeOf(int bytes) { return absl::StrCat(".b", 8 * bytes); }

std::string Vec(const std::vector<std::string>& regs) {
  if (regs.size() == 1) return regs[0];
  return absl::StrCat("{", absl::StrJoin(regs, ", "), "}");
}

std::string VecMod(size_t n) { return n == 1 ? "" : absl::StrCat(".v", n); }

// Names of `body`'s setup values: each equals a setup value of `f` or `b`, already
// emitted (names in nf / nb).
std::vector<std::string> SetupNames(const Program& body, const std::vector<std::string>& nf,
                                    const Program& f, const std::vector<std::string>& nbk,
                                    const Program& b) {
  std::vector<std::string> names;
  for (const SetupValue& v : body.setup) {
    std::string name;
    for (size_t i = 0; i < f.setup.size() && name.empty(); ++i) if (f.setup[i] == v) name = nf[i];
    for (size_t i = 0; i < b.setup.size() && name.empty(); ++i) if (b.setup[i] == v) name = nbk[i];
    names.push_back(name);
  }
  return names;
}

// Prints one program's ops; `names` maps word ids to registers (inputs filled in;
// others assigned here unless preassigned).
void EmitOps(Writer& w, const Program& p, const std::vector<std::string>& setup,
             std::vector<std::string>& names) {
  auto name = [&](int id) -> const std::string& {
    if (names[id].empty()) names[id] = w.NewReg();
    return names[id];
  };
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp:
        w.Line(absl::StrCat("selp.b32 ", name(op.out[0]), ", ", name(op.in[0]), ", ",
                            name(op.in[1]), ", ", setup[op.pred], ";"));
        break;
      case OpKind::kShflBfly:
        w.Line(absl::StrCat("shfl.sync.bfly.b32 ", name(op.out[0]), ", ", name(op.in[0]),
                            ", ", op.imm, ", 31, -1;"));
        break;
      case OpKind::kShflIdx:
        w.Line(absl::StrCat("shfl.sync.idx.b32 ", name(op.out[0]), ", ", name(op.in[0]), ", ",
                            setup[op.addr], ", 31, -1;"));
        break;
      case OpKind::kPrmt:
        w.Line(absl::StrCat("prmt.b32 ", name(op.out[0]), ", ", name(op.in[0]), ", ",
                            name(op.in[1]), ", ", op.imm, ";"));
        break;
      case OpKind::kStShared: {
        std::vector<std::string> regs;
        for (int id : op.in) regs.push_back(name(id));
        w.Line(absl::StrCat(op.pred >= 0 ? absl::StrCat("@", setup[op.pred], " ") : "",
                            "st.shared", VecMod(regs.size()), TypeOf(op.elem_bytes), " [",
                            setup[op.addr], "+", op.imm, "], ", Vec(regs), ";"));
        break;
      }
      case OpKind::kLdShared: {
        std::vector<std::string> regs;
        for (int id : op.out) regs.push_back(name(id));
        w.Line(absl::StrCat("ld.shared", VecMod(regs.size()), TypeOf(op.elem_bytes), " ",
                            Vec(regs), ", [", setup[op.addr], "+", op.imm, "];"));
        break;
      }
      case OpKind::kStMatrix:
      case OpKind::kLdMatrix: {
        const bool st = op.kind == OpKind::kStMatrix;
        std::vector<std::string> regs;
        for (int id : st ? op.in : op.out) regs.push_back(name(id));
        std::string insn = absl::StrCat(st ? "stmatrix" : "ldmatrix", ".sync.aligned.m8n8.x",
                                        regs.size(), op.trans ? ".trans" : "", ".shared.b16 ");
        std::string addr = absl::StrCat("[", setup[op.addr], "+", op.imm, "]");
        std::string vec = absl::StrCat("{", absl::StrJoin(regs, ", "), "}");
        w.Line(absl::StrCat(op.pred >= 0 ? absl::StrCat("@", setup[op.pred], " ") : "",
                            st ? absl::StrCat(insn, addr, ", ", vec, ";")
                               : absl::StrCat(insn, vec, ", ", addr, ";")));
        break;
      }
      case OpKind::kBarSync: w.Line("bar.sync 0;"); break;
      case OpKind::kBarWarp: w.Line("bar.warp.sync -1;"); break;
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
  GlobalAddresses(Writer& w, const std::string& elem, uint32_t tid_bits, int eb,
                  const std::string& buffer)
      : w_(w), elem_(elem), tid_bits_(tid_bits), eb_(eb), buffer_(buffer) {}

  // "[%rdN]" or "[%rdN+imm]".
  std::string At(uint32_t c) {
    if ((c & tid_bits_) == 0) {
      if (base_.empty()) base_ = Compute(elem_);
      if (c == 0) return absl::StrCat("[", base_, "]");
      return absl::StrCat("[", base_, "+", uint64_t{c} * eb_, "]");
    }
    std::string e = w_.NewReg();
    w_.Line(absl::StrCat("xor.b32 ", e, ", ", elem_, ", ", c, ";"));
    return absl::StrCat("[", Compute(e), "]");
  }

 private:
  std::string Compute(const std::string& e) {
    std::string off = w_.NewWide(), a = w_.NewWide();
    w_.Line(absl::StrCat("mul.wide.u32 ", off, ", ", e, ", ", eb_, ";"));
    w_.Line(absl::StrCat("add.s64 ", a, ", ", buffer_, ", ", off, ";"));
    return a;
  }

  Writer& w_;
  std::string elem_;
  uint32_t tid_bits_;
  int eb_;
  std::string buffer_;
  std::string base_;
};

uint32_t TidBits(const FlatLayout& l) {
  uint32_t bits = 0;
  for (uint32_t c : TidCoeffs(l)) bits |= c;
  return bits;
}

// Register bits whose elements are consecutive in row-major global memory (vec[k] ->
// element offset 2^k), usable as one aligned access of whole words: at most 16 bytes, the
// packed slots first, and no other basis reaching the vector's offset bits. Empty when
// the words cannot be moved as vectors (then every element moves alone).
std::vector<int> GlobalVector(const FlatLayout& l, const WordView& v, int eb) {
  std::vector<int> vec;
  for (int k = 0; (eb << (k + 1)) <= 16; ++k) {
    int found = -1;
    for (int i = 0; i < l.reg_bits() && found < 0; ++i) if (l.reg[i] == (1u << k)) found = i;
    if (found < 0) break;
    vec.push_back(found);
  }
  uint32_t vmask = 0;
  for (int i : vec) vmask |= 1u << i;
  uint32_t low = 0;
  for (int i = 0; i < l.reg_bits(); ++i) if (!((vmask >> i) & 1)) low |= l.reg[i];
  for (uint32_t b : l.lane) low |= b;
  for (uint32_t b : l.warp) low |= b;
  while (!vec.empty() && (low & ((1u << vec.size()) - 1)) != 0) vec.pop_back();
  if (v.upw == 1 && v.pk() == 0 && eb < 4) return {};  // narrow unpacked words
  if (static_cast<int>(vec.size()) < v.pk()) return {};
  for (int k = 0; k < v.pk(); ++k) if (vec[k] != v.pack[k]) return {};
  if (vec.size() == static_cast<size_t>(v.pk()) && v.upw == 1 && eb == 4) return {};
  return vec;
}

// The words of the access whose first register is r.
std::vector<int> VectorWords(const WordView& v, const std::vector<int>& vec, uint32_t r) {
  std::vector<int> words;
  const int a = static_cast<int>(vec.size());
  auto spread = [&](uint32_t j, int from) {
    uint32_t x = 0;
    for (int k = from; k < a; ++k) if ((j >> (k - from)) & 1) x |= 1u << vec[k];
    return x;
  };
  if (v.upw == 2) {
    for (uint32_t j = 0; j < (1u << a); ++j) {
      uint32_t reg = r | spread(j, 0);
      words.push_back(static_cast<int>(2 * reg));
      words.push_back(static_cast<int>(2 * reg + 1));
    }
  } else {
    for (uint32_t j = 0; j < (1u << (a - v.pk())); ++j) {
      words.push_back(static_cast<int>(v.Unit(r | spread(j, v.pk()))));
    }
  }
  return words;
}

std::vector<std::string> EmitGlobalLoad(Writer& w, const ConversionProblem& p,
                                        const FlatLayout& l, const WordView& v,
                                        const std::string& in, bool vector_io) {
  const int eb = p.element_bytes();
  GlobalAddresses addr(w, EmitTidLinear(w, TidCoeffs(l), 0), TidBits(l), eb, in);
  std::vector<std::string> words(static_cast<size_t>(v.words()));
  std::vector<int> vec = vector_io ? GlobalVector(l, v, eb) : std::vector<int>{};
  if (!vec.empty()) {
    uint32_t vmask = 0;
    for (int i : vec) vmask |= 1u << i;
    for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
      if (r & vmask) continue;
      std::string a = addr.At(plan::ApplyBasis(l.reg, r));
      std::vector<std::string> regs;
      for (int wi : VectorWords(v, vec, r)) {
        if (words[wi].empty()) words[wi] = w.NewReg();
        regs.push_back(words[wi]);
      }
      w.Line(absl::StrCat("ld.global", VecMod(regs.size()), ".b32 ", Vec(regs), ", ", a, ";"));
    }
    // Registers whose bases repeat (broadcast) were loaded through their copies.
    return words;
  }
  for (int u = 0; u < v.units(); ++u) {
    if (v.upw == 2) {
      std::string a = addr.At(plan::ApplyBasis(l.reg, u));
      std::string lo = w.NewReg(), hi = w.NewReg();
      w.Line(absl::StrCat("ld.global.v2.b32 {", lo, ", ", hi, "}, ", a, ";"));
      words[2 * u] = lo;
      words[2 * u + 1] = hi;
      continue;
    }
    std::string word;
    for (int s = 0; s < (1 << v.pk()); ++s) {
      uint32_t r = v.Reg(static_cast<uint32_t>(u), static_cast<uint32_t>(s));
      std::string a = addr.At(plan::ApplyBasis(l.reg, r));
      std::string x = w.NewReg();
      w.Line(absl::StrCat("ld.global.u", 8 * eb, " ", x, ", ", a, ";"));
      if (s == 0) {
        word = x;
      } else {
        std::string y = w.NewReg();
        w.Line(absl::StrCat("bfi.b32 ", y, ", ", x, ", ", word, ", ", s * 8 * eb, ", ",
                            8 * eb, ";"));
        word = y;
      }
    }
    words[u] = word;
  }
  return words;
}

void EmitGlobalStore(Writer& w, const ConversionProblem& p, const FlatLayout& l,
                     const WordView& v, const std::vector<std::string>& words,
                     const std::string& out, bool vector_io) {
  const int eb = p.element_bytes();
  uint32_t free_regs, free_tid;
  l.FreeBits(&free_regs, &free_tid);
  std::string guard;
  if (free_tid != 0) {
    std::string t = w.NewReg(), pr = w.NewPred();
    w.Line(absl::StrCat("and.b32 ", t, ", ", w.tid, ", ", free_tid, ";"));
    w.Line(absl::StrCat("setp.eq.u32 ", pr, ", ", t, ", 0;"));
    guard = absl::StrCat("@", pr, " ");
  }
  GlobalAddresses addr(w, EmitTidLinear(w, TidCoeffs(l), 0), TidBits(l), eb, out);
  std::vector<int> vec = vector_io ? GlobalVector(l, v, eb) : std::vector<int>{};
  if (!vec.empty()) {
    uint32_t vmask = 0;
    for (int i : vec) vmask |= 1u << i;
    for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
      if (r & (vmask | free_regs)) continue;
      std::string a = addr.At(plan::ApplyBasis(l.reg, r));
      std::vector<std::string> regs;
      for (int wi : VectorWords(v, vec, r)) regs.push_back(words[wi]);
      w.Line(absl::StrCat(guard, "st.global", VecMod(regs.size()), ".b32 ", a, ", ",
                          Vec(regs), ";"));
    }
    return;
  }
  for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
    if (r & free_regs) continue;
    std::string a = addr.At(plan::ApplyBasis(l.reg, r));
    if (v.upw == 2) {
      w.Line(absl::StrCat(guard, "st.global.v2.b32 ", a, ", {", words[2 * r], ", ",
                          words[2 * r + 1], "};"));
      continue;
    }
    const std::string& word = words[v.Unit(r)];
    uint32_t slot = v.Slot(r);
    std::string x = word;
    if (slot != 0) {
      x = w.NewReg();
      w.Line(absl::StrCat("shr.u32 ", x, ", ", word, ", ", slot * 8 * eb, ";"));
    }
    w.Line(absl::StrCat(guard, "st.global.b", 8 * eb, " ", a, ", ", x, ";"));
  }
}

}  // namespace

absl::StatusOr<RoundTrip> PlanRoundTrip(const ConversionProblem& problem,
                                        const plan::PlanOptions& options) {
  std::vector<RoundTrip> trips;  // one per word view
  absl::Status last = absl::OkStatus();
  const ConversionProblem reversed = problem.Reversed();
  const std::vector<std::pair<WordView, WordView>> views = plan::CandidateViews(problem, options);
  // Replanning with other barrier or buffer options reuses each direction's bank search.
  plan::SearchMemo forward_memo, backward_memo;
  for (const auto& [sv, dv] : views) {
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
            "); converting it in several passes is not implemented"));
        continue;
      }
    }
    trips.push_back(RoundTrip{*std::move(fwd), *std::move(bwd)});
  }
  if (trips.empty()) {
    return last.ok() ? absl::InvalidArgumentError("convert: no word packing to plan with")
                     : last;
  }
  std::vector<std::pair<const plan::ConversionPlan*, const plan::ConversionPlan*>> pairs;
  for (const RoundTrip& t : trips) pairs.emplace_back(&t.forward, &t.backward);
  return trips[plan::PickRoundTrip(problem, pairs)];
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
std::vector<std::string> NameLoopWords(const Program& body, const std::vector<std::string>& x) {
  std::vector<std::string> names(body.num_words);
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
                  const Program& body, const std::vector<std::string>& names,
                  const std::vector<std::string>& x) {
  std::map<std::string, size_t> x_index;
  for (size_t j = 0; j < x.size(); ++j) x_index[x[j]] = j;
  std::vector<std::pair<std::string, std::string>> copies;
  for (size_t i = 0; i < body.outputs.size(); ++i) {
    const std::string& src = names[body.outputs[i]];
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
    for (auto& [dst, src] : copies) w.Line(absl::StrCat("mov.b32 ", dst, ", ", src, ";"));
    return;
  }
  std::vector<std::string> tmp;
  for (auto& [dst, src] : copies) {
    tmp.push_back(w.NewReg());
    w.Line(absl::StrCat("mov.b32 ", tmp.back(), ", ", src, ";"));
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    w.Line(absl::StrCat("mov.b32 ", copies[i].first, ", ", tmp[i], ";"));
  }
}

std::string ModuleHead(const ConversionProblem& problem, Harness harness, int64_t smem_total) {
  std::string head = absl::StrCat(
      "//\n// Generated by warpcheck convert emit: ", problem.src_attr, " -> ",
      problem.dst_attr, ", shape ", absl::StrJoin(problem.shape, "x"), ", ",
      plan::DTypeName(problem.dtype), ", ", problem.num_warps, " warps, harness ",
      harness == Harness::kRoundTrip ? "roundtrip" : "once", "\n//\n.version 8.0\n",
      ".target sm_90\n.address_size 64\n\n");
  if (smem_total > 0) {
    absl::StrAppend(&head, ".shared .align 16 .b8 warpcheck_smem[", smem_total, "];\n\n");
  }
  absl::StrAppend(&head,
                  ".visible .entry kernel(\n"
                  "\t.param .u64 .ptr .global .align 16 kernel_param_0,\n"
                  "\t.param .u64 .ptr .global .align 16 kernel_param_1,\n"
                  "\t.param .u32 kernel_param_2\n)\n.reqntid ",
                  problem.threads(), "\n{\n");
  return head;
}

}  // namespace

std::string EmitHarness(const ConversionProblem& problem, const ConversionPlan& forward,
                        const ConversionPlan* backward, Harness harness) {
  const bool round_trip = harness == Harness::kRoundTrip;
  Writer w;
  const int64_t buf0 = forward.program.smem_bytes;
  const int64_t buf1 = round_trip ? backward->program.smem_bytes : 0;
  bool shared_one = false;  // both directions in buffer 0 (PlanRoundTrip, large tensors)
  if (round_trip) {
    for (const auto& v : backward->program.setup) {
      if (v.kind == SetupValue::Kind::kSmemAddr && v.buffer == 0) shared_one = true;
    }
  }
  const int64_t smem_total = shared_one ? std::max(buf0, buf1) : (buf0 + 15) / 16 * 16 + buf1;
  std::string in = w.NewWide(), out = w.NewWide();
  w.Line(absl::StrCat("ld.param.u64 ", in, ", [kernel_param_0];"));
  w.Line(absl::StrCat("ld.param.u64 ", out, ", [kernel_param_1];"));
  w.tid = w.NewReg();
  w.Line(absl::StrCat("mov.u32 ", w.tid, ", %tid.x;"));
  if (smem_total > 0) {
    w.smem_base[0] = w.NewReg();
    w.Line(absl::StrCat("mov.u32 ", w.smem_base[0], ", warpcheck_smem;"));
    w.smem_base[1] = w.NewReg();
    w.Line(absl::StrCat("add.u32 ", w.smem_base[1], ", ", w.smem_base[0], ", ",
                        (buf0 + 15) / 16 * 16, ";"));
  }
  std::vector<std::string> setup_f = EmitSetup(w, forward.program);
  std::vector<std::string> setup_b;
  if (round_trip) setup_b = EmitSetup(w, backward->program);
  // One loop body: both conversions, with the selects that undo each other removed.
  Program body;
  if (round_trip) {
    body = plan::Compose(forward.program, backward->program);
    plan::Simplify(body);
  }
  // A round trip that moves nothing has no loop, as LLVM deletes Triton's empty loop; its
  // time is the global loads and stores, so those are vectorized there. (Elsewhere they
  // stay scalar: vectors made ptxas slow some looping kernels 3x on the H200,
  // corpus/plan/h200/timing_v2.tsv.)
  const bool moves_nothing = round_trip && MovesNothing(problem, forward.src_view, body);
  std::vector<std::string> x =
      EmitGlobalLoad(w, problem, problem.src, forward.src_view, in, moves_nothing);

  if (!round_trip) {
    std::vector<std::string> names(forward.program.num_words);
    for (size_t i = 0; i < x.size(); ++i) names[forward.program.inputs[i]] = x[i];
    EmitOps(w, forward.program, setup_f, names);
    std::vector<std::string> y;
    for (int id : forward.program.outputs) y.push_back(names[id]);
    EmitGlobalStore(w, problem, problem.dst, forward.dst_view, y, out, false);
  } else if (moves_nothing) {
    EmitGlobalStore(w, problem, problem.src, forward.src_view, x, out, true);
  } else {
    std::string cnt = w.NewReg(), pz = w.NewPred(), pl = w.NewPred();
    w.Line(absl::StrCat("ld.param.u32 ", cnt, ", [kernel_param_2];"));
    w.Line(absl::StrCat("setp.eq.s32 ", pz, ", ", cnt, ", 0;"));
    w.Line(absl::StrCat("@", pz, " bra $L_done;"));
    w.Label("$L_loop");
    std::vector<std::string> names = NameLoopWords(body, x);
    EmitOps(w, body, SetupNames(body, setup_f, forward.program, setup_b, backward->program),
            names);
    EmitBackEdge(w, problem, forward.src_view, body, names, x);
    w.Line(absl::StrCat("add.s32 ", cnt, ", ", cnt, ", -1;"));
    w.Line(absl::StrCat("setp.ne.s32 ", pl, ", ", cnt, ", 0;"));
    w.Line(absl::StrCat("@", pl, " bra $L_loop;"));
    w.Label("$L_done");
    EmitGlobalStore(w, problem, problem.src, forward.src_view, x, out, false);
  }
  w.Line("ret;");
  return absl::StrCat(ModuleHead(problem, harness, smem_total), w.Decls(), "\n", w.body(),
                      "}\n");
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
