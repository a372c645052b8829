#include "verify/plan/plan_encode.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "verify/plan/plan_concrete.h"

namespace warpcheck::verify::plan {

using sim::plan::OpKind;
using sim::plan::SetupValue;
using smt::Term;

namespace {

uint32_t ApplyBits(const std::vector<uint32_t>& basis, uint32_t x) {
  uint32_t v = 0;
  for (size_t i = 0; i < basis.size() && x != 0; ++i, x >>= 1) {
    if (x & 1) v ^= basis[i];
  }
  return v;
}

// The images of the %tid.x bits under a layout (5 lane bits, then the warp bits).
std::vector<uint32_t> TidImages(const sim::plan::FlatLayout& l, int tid_bits) {
  std::vector<uint32_t> img(tid_bits, 0);
  for (int b = 0; b < 5 && b < l.lane_bits(); ++b) img[b] = l.lane[b];
  for (int b = 0; 5 + b < tid_bits && b < l.warp_bits(); ++b) img[5 + b] = l.warp[b];
  return img;
}

}  // namespace

PlanEncoder::PlanEncoder(smt::Context& ctx, const sim::plan::ConversionProblem& problem,
                         const sim::plan::ConversionPlan& plan)
    : ctx_(ctx), pb_(problem), plan_(plan) {
  tid_bits_ = 5 + std::countr_zero(static_cast<uint32_t>(problem.num_warps));
  ne_ = std::max(problem.elem_bits_log2, 1);
  eb_ = problem.element_bytes();
  const sim::plan::Program& p = plan.program;
  def_.assign(p.num_words, -1);
  input_index_.assign(p.num_words, -1);
  for (size_t x = 0; x < p.inputs.size(); ++x) {
    if (p.inputs[x] >= 0 && p.inputs[x] < p.num_words) input_index_[p.inputs[x]] = x;
  }
  for (size_t k = 0; k < p.ops.size(); ++k) {
    for (int id : p.ops[k].out) {
      if (id >= 0 && id < p.num_words) def_[id] = static_cast<int>(k);
    }
  }
}

int PlanEncoder::WidthFor(uint64_t count) {
  int w = 1;
  while (w < 63 && (uint64_t{1} << w) < count) ++w;
  return w;
}

Term PlanEncoder::Bit(Term x, int i) { return smt::Extract(x, i, i) == K(1, 1); }

Term PlanEncoder::XorMap(Term x, int x_bits, const std::vector<uint32_t>& images,
                         uint64_t constant, int width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  Term acc = K(constant & mask, width);
  const Term zero = K(0, width);
  for (int b = 0; b < x_bits && b < static_cast<int>(images.size()); ++b) {
    if ((images[b] & mask) == 0) continue;
    acc = acc ^ smt::Ite(Bit(x, b), K(images[b] & mask, width), zero);
  }
  return acc;
}

Term PlanEncoder::Element(const sim::plan::FlatLayout& l, Term reg_image, Term tid) {
  return reg_image ^ XorMap(tid, tid_bits_, TidImages(l, tid_bits_), 0, ne_);
}

Term PlanEncoder::Element(const sim::plan::FlatLayout& l, uint32_t reg, Term tid) {
  return Element(l, K(ApplyBits(l.reg, reg), ne_), tid);
}

Term PlanEncoder::Tag(Term element, Term byte) {
  return smt::Concat(K(0, 1), smt::Concat(element, byte));
}

Term PlanEncoder::Linear(int setup, Term tid) {
  const SetupValue& v = plan_.program.setup[setup];
  return XorMap(tid, tid_bits_, v.coeff, v.constant, 32);
}

Term PlanEncoder::Pred(int setup, Term tid) {
  const SetupValue& v = plan_.program.setup[setup];
  const uint32_t mask = v.mask & ((1u << tid_bits_) - 1);
  if (v.kind == SetupValue::Kind::kTidMaskZero) {
    return (tid & K(mask, tid_bits_)) == K(0, tid_bits_);
  }
  if (v.kind == SetupValue::Kind::kTidParity) {
    Term acc = K(0, 1);
    for (int b = 0; b < tid_bits_; ++b) {
      if ((mask >> b) & 1) acc = acc ^ smt::Extract(tid, b, b);
    }
    return acc == K(1, 1);
  }
  if (status_.ok()) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("plan: setup s", setup, " is used as a predicate but is not one"));
  }
  return ctx_.Bool(false);
}

Term PlanEncoder::Address(const sim::plan::Op& op, Term tid) {
  const SetupValue& v = plan_.program.setup[op.addr];
  if (v.kind != SetupValue::Kind::kSmemAddr ||
      !std::has_single_bit(static_cast<uint32_t>(v.element_bytes))) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "plan: setup s", op.addr, " is used as a shared address but is not one"));
    }
    return K(0, kAddrBits);
  }
  const int shift = std::countr_zero(static_cast<uint32_t>(v.element_bytes));
  Term a = Linear(op.addr, tid);
  if (shift > 0) a = smt::Concat(a, K(0, shift));
  a = smt::ZeroExt(a, kAddrBits - 32 - shift);
  return smt::BvAdd(a, K(op.imm, kAddrBits));
}

Term PlanEncoder::MatrixByteAddress(const sim::plan::Op& op, int i, int j, Term tid) {
  // MatrixByte as bit fields of the lane: row and column are lane bits and j's bits.
  const Term lane = smt::Extract(tid, 4, 0);
  Term row = smt::Extract(lane, 4, 2), col = smt::Concat(smt::Extract(lane, 1, 0), K(j, 2));
  if (op.trans) {
    row = smt::Concat(smt::Extract(lane, 1, 0), K(j / 2, 1));
    col = smt::Concat(smt::Extract(lane, 4, 2), K(j % 2, 1));
  }
  Term provider = smt::Concat(K(i, 2), row);
  if (tid_bits_ > 5) provider = smt::Concat(smt::Extract(tid, tid_bits_ - 1, 5), provider);
  return smt::BvAdd(Address(op, provider), smt::ZeroExt(col, kAddrBits - 4));
}

Term PlanEncoder::ProvidesRow(const sim::plan::Op& op, Term tid) {
  const int n = MatrixCount(op);
  if (n >= 4) return ctx_.Bool(true);
  return smt::BvUlt(smt::Extract(tid, 4, 0), K(8 * n, 5));
}

int PlanEncoder::Root(Term tid) {
  threads_.push_back(tid);
  return static_cast<int>(threads_.size()) - 1;
}

int PlanEncoder::Child(int thread, int kind, uint32_t param) {
  auto key = std::make_tuple(thread, kind, param);
  auto it = children_.find(key);
  if (it != children_.end()) return it->second;
  const Term tid = threads_[thread];
  Term lane = kind == 0 ? smt::Extract(tid, 4, 0) ^ K(param & 31, 5)
                        : smt::Extract(Linear(static_cast<int>(param), tid), 4, 0);
  Term next = tid_bits_ > 5 ? smt::Concat(smt::Extract(tid, tid_bits_ - 1, 5), lane) : lane;
  threads_.push_back(next);
  const int id = static_cast<int>(threads_.size()) - 1;
  children_[key] = id;
  return id;
}

Bytes PlanEncoder::Word(int id, int thread) {
  auto key = std::make_pair(id, thread);
  auto it = words_.find(key);
  if (it != words_.end()) return it->second;
  const sim::plan::Program& p = plan_.program;
  const Term tid = threads_[thread];
  Bytes out = {Junk(), Junk(), Junk(), Junk()};
  const int k = def_[id];
  if (k < 0) {
    const int x = input_index_[id];
    if (x < 0) {
      if (status_.ok()) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat("plan: word w", id, " is read but never defined"));
      }
    } else {
      for (int j = 0; j < 4; ++j) {
        auto rb = WordByte(plan_.src_view, eb_, static_cast<uint32_t>(x), j);
        if (rb) out[j] = Tag(Element(pb_.src, rb->first, tid), rb->second);
      }
    }
  } else {
    const sim::plan::Op& op = p.ops[k];
    switch (op.kind) {
      case OpKind::kSelp: {
        const Term c = Pred(op.pred, tid);
        Bytes a = Word(op.in[0], thread), b = Word(op.in[1], thread);
        for (int j = 0; j < 4; ++j) out[j] = smt::Ite(c, a[j], b[j]);
        break;
      }
      case OpKind::kShflBfly:
        out = Word(op.in[0], Child(thread, 0, op.imm));
        break;
      case OpKind::kShflIdx:
        out = Word(op.in[0], Child(thread, 1, static_cast<uint32_t>(op.addr)));
        break;
      case OpKind::kPrmt: {
        Bytes a = Word(op.in[0], thread), b = Word(op.in[1], thread);
        for (int j = 0; j < 4; ++j) {
          const uint32_t n = (op.imm >> (4 * j)) & 15;
          if (n & 8) {
            if (status_.ok()) {
              status_ = absl::UnimplementedError(
                  "plan: prmt with sign replication (selector bit 3) is not encoded");
            }
          }
          out[j] = (n & 4) ? b[n & 3] : a[n & 3];
        }
        break;
      }
      default:
        if (status_.ok()) {
          status_ = absl::UnimplementedError(absl::StrCat(
              "plan: word w", id,
              " comes from shared memory and is read by a register op; only plans whose "
              "loads are their outputs are encoded"));
        }
        break;
    }
  }
  words_[key] = out;
  return out;
}

std::optional<std::pair<Term, Term>> PlanEncoder::ViewByte(const sim::plan::FlatLayout& l,
                                                           const sim::plan::WordView& view,
                                                           Term u, int u_bits, int j,
                                                           Term tid) {
  auto base = WordByte(view, eb_, 0, j);
  if (!base) return std::nullopt;
  const uint32_t e0 = ApplyBits(l.reg, base->first);
  std::vector<uint32_t> e_img(u_bits, 0), b_img(u_bits, 0);
  for (int k = 0; k < u_bits; ++k) {
    const uint32_t w = 1u << k;
    if (w >= static_cast<uint32_t>(view.words())) continue;
    auto rb = WordByte(view, eb_, w, j);
    e_img[k] = ApplyBits(l.reg, rb->first) ^ e0;
    b_img[k] = rb->second ^ base->second;
  }
  Term element = Element(l, XorMap(u, u_bits, e_img, e0, ne_), tid);
  Term byte = XorMap(u, u_bits, b_img, base->second, 3);
  return std::make_pair(element, byte);
}

}  // namespace warpcheck::verify::plan
