#include "verify/smt/expr_encoder.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/check.h"
#include "sim/expr/printer.h"

namespace warpcheck::verify::smt {

using sim::expr::Expr;
using sim::expr::ExprKind;
using sim::expr::Type;

namespace {

using i128 = __int128;
constexpr i128 kInt64Min = std::numeric_limits<int64_t>::min();
constexpr i128 kInt64Max = std::numeric_limits<int64_t>::max();
// Ranges saturate here: anything beyond int64 is "may overflow", and the exact figure no
// longer matters.
constexpr i128 kBig = i128{1} << 100;

i128 Clamp(i128 v) { return std::clamp(v, -kBig, kBig); }

i128 MulSat(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  const i128 lim = i128{1} << 63;
  if (a > -lim && a < lim && b > -lim && b < lim) return Clamp(a * b);
  return (a < 0) == (b < 0) ? kBig : -kBig;
}

// floor(a / b) for b != 0.
i128 FloorDiv(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

ValueRange Hull(std::initializer_list<i128> values) {
  ValueRange r{*std::min_element(values.begin(), values.end()),
               *std::max_element(values.begin(), values.end())};
  return {Clamp(r.lo), Clamp(r.hi)};
}

ValueRange FloorDivRange(const ValueRange& a, const ValueRange& b) {
  if (b.lo > 0 || b.hi < 0) {
    // floor(a / b) is monotone in a and in b on either side of 0: the corners bound it.
    return Hull({FloorDiv(a.lo, b.lo), FloorDiv(a.lo, b.hi), FloorDiv(a.hi, b.lo),
                 FloorDiv(a.hi, b.hi)});
  }
  // |floor(a / b)| <= |a| for |b| >= 1 (b = 0 is undefined anyway).
  const i128 m = std::max(a.hi < 0 ? -a.hi : a.hi, a.lo < 0 ? -a.lo : a.lo);
  return {Clamp(-m), Clamp(m)};
}

ValueRange ModRange(const ValueRange& a, const ValueRange& b) {
  if (b.lo > 0) {
    if (a.lo >= 0) return {0, std::min(a.hi, b.hi - 1)};
    return {0, b.hi - 1};
  }
  if (b.hi < 0) {
    if (a.hi <= 0) return {std::max(a.lo, b.lo + 1), 0};
    return {b.lo + 1, 0};
  }
  const i128 m = std::max(b.hi, -b.lo);
  return {Clamp(-(m - 1)), Clamp(m - 1)};
}

}  // namespace

bool ValueRange::FitsInt64() const { return lo >= kInt64Min && hi <= kInt64Max; }

ExprEncoder::ExprEncoder(Context& ctx, int bv_width)
    : ctx_(&ctx),
      bv_width_(bv_width),
      widest_(std::make_shared<int>(1)),
      side_(std::make_shared<std::vector<Term>>()) {
  WARPCHECK_CHECK(bv_width >= 0 && bv_width <= 64) << "ExprEncoder: width " << bv_width;
}

Term ExprEncoder::Num(int64_t v) const {
  return bv_width_ > 0 ? ctx_->Bv(static_cast<uint64_t>(v), bv_width_) : ctx_->Int(v);
}

int ExprEncoder::SignedBits(const ValueRange& r) {
  int w = 1;
  while (w < 127 && (r.lo < -(i128{1} << (w - 1)) || r.hi > (i128{1} << (w - 1)) - 1)) ++w;
  return w;
}

absl::Status ExprEncoder::NoteRange(const ValueRange& r, const Expr* at) const {
  const int bits = SignedBits(r);
  *widest_ = std::max(*widest_, bits);
  if (bv_width_ == 0 || bits <= bv_width_) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "smt encoder: ",
      at != nullptr ? absl::StrCat("the value at ", at->loc().line, ":", at->loc().col)
                    : std::string("a bound value"),
      " needs ", bits, " bits, more than the ", bv_width_, "-bit encoding holds"));
}

void ExprEncoder::Bind(const std::string& name, Term value, ValueRange range) {
  auto it = names_.find(name);
  if (it != names_.end()) {
    // Forget everything encoded since the old binding: it may depend on it.
    const uint64_t old = it->second.serial;
    for (auto m = memo_.begin(); m != memo_.end();) {
      if (m->second.serial >= old) {
        memo_.erase(m++);
      } else {
        ++m;
      }
    }
  }
  Encoded e;
  e.value = value;
  e.range = range;
  e.serial = next_serial_++;
  names_[name] = e;
  // Counted for RequiredWidth; a caller that binds a value wider than bv_width has sized
  // the encoding wrongly, and NoteRange's error is not recoverable here.
  if (!value.is_bool()) (void)NoteRange(range, nullptr);
}

void ExprEncoder::Bind(const std::string& name, Term value, int64_t lo, int64_t hi) {
  Bind(name, value, ValueRange{lo, hi});
}

void ExprEncoder::BindConst(const std::string& name, int64_t value) {
  Bind(name, Num(value), value, value);
}

void ExprEncoder::BindBool(const std::string& name, Term value) {
  Bind(name, value, ValueRange{0, 1});
}

const ExprEncoder::Encoded& ExprEncoder::Lookup(const std::string& name) const {
  auto it = names_.find(name);
  WARPCHECK_CHECK(it != names_.end()) << "ExprEncoder: unbound name " << name;
  return it->second;
}

absl::StatusOr<ExprEncoder::Encoded> ExprEncoder::Encode(const sim::expr::ExprPtr& e) {
  roots_.push_back(e);
  return EncodeNode(*e);
}

void ExprEncoder::FloorDivModBv(const Encoded& a, const Encoded& b, Term* q,
                                Term* r) const {
  if (a.range.lo >= 0 && b.range.lo >= 0) {
    const i128 d = b.range.lo;
    if (b.range.Constant() && d > 0 && (d & (d - 1)) == 0) {
      int k = 0;
      while ((i128{1} << k) < d) ++k;
      *q = BvLshr(a.value, Num(k));
      *r = BvAnd(a.value, Num(static_cast<int64_t>(d - 1)));
      return;
    }
    *q = BvUdiv(a.value, b.value);
    *r = BvUrem(a.value, b.value);
    return;
  }
  const Term q0 = BvSdiv(a.value, b.value), r0 = BvSrem(a.value, b.value);
  const Term fix = r0 != 0 && ((r0 < 0) != (b.value < 0));
  *q = Ite(fix, q0 - 1, q0);
  *r = Ite(fix, r0 + b.value, r0);
}

Term ExprEncoder::CdivBv(const Encoded& a, const Encoded& b) const {
  Term q, r;
  const ValueRange t_range{a.range.lo + b.range.lo - 1, a.range.hi + b.range.hi - 1};
  if (a.range.lo >= 0 && b.range.lo > 0 && SignedBits(t_range) <= bv_width_) {
    Encoded t = a;
    t.value = a.value + (b.value - 1);
    t.range = t_range;
    FloorDivModBv(t, b, &q, &r);
    return q;
  }
  Encoded neg_a = a;
  neg_a.value = -a.value;
  neg_a.range = {-a.range.hi, -a.range.lo};
  FloorDivModBv(neg_a, b, &q, &r);
  return -q;
}

void ExprEncoder::FloorDivMod(const Encoded& a, const Encoded& b, Term* q, Term* r) {
  if (bv_width_ > 0) return FloorDivModBv(a, b, q, r);
  Context& c = *ctx_;
  if (digits_.has_value() && a.value.Same(digits_->dividend) &&
      b.value.Same(digits_->divisor)) {
    *q = digits_->q;
    *r = digits_->r;
    return;
  }
  if (b.range.Constant() && b.range.lo > 0) {
    // Euclidean = floor for a positive divisor; Z3 handles constant divisors linearly.
    *q = Div(a.value, b.value);
    *r = Mod(a.value, b.value);
    return;
  }
  if (b.range.Constant() && b.range.lo < 0) {
    // floor(a / b) = floor(-a / -b), and -b > 0.
    *q = Div(-a.value, -b.value);
    *r = -Mod(-a.value, -b.value);
    return;
  }
  *q = c.FreshInt("q");
  *r = c.FreshInt("r");
  Term defn = a.value == b.value * *q + *r;
  // Few divisor values: divisor cases (below). Otherwise, a non-negative dividend over a
  // positive divisor: quotient cases.
  const bool divisor_cases_cover =
      small_divisor_cases_ > 0 && b.range.lo >= 1 && b.range.hi <= small_divisor_cases_;
  const bool quotient_cases = small_quotient_cases_ > 0 && a.range.lo >= 0 &&
                              b.range.lo >= 1 && !divisor_cases_cover;
  if ((small_divisor_cases_ <= 0 || b.range.hi < 1) && !quotient_cases) ++*nonlinear_;
  if (quotient_cases) {
    // The first quotient values as linear cases m*b <= a < (m+1)*b (see "Division"),
    // the fresh pair only for a >= n*b.
    Term qs = *q, rs = *r;
    for (int64_t m = small_quotient_cases_ - 1; m >= 0; --m) {
      const Term below = a.value < b.value * c.Int(m + 1);
      qs = Ite(below, c.Int(m), qs);
      rs = Ite(below, a.value - b.value * c.Int(m), rs);
    }
    side_->push_back(Implies(a.value >= b.value * c.Int(small_quotient_cases_),
                             defn && *r >= 0 && *r < b.value));
    *q = qs;
    *r = rs;
    return;
  }
  if (small_divisor_cases_ > 0 && b.range.hi >= 1) {
    // A divisor that takes few positive values: one native (linear) division per value,
    // the fresh quotient only for the values outside them (see "Division").
    const int64_t lo = static_cast<int64_t>(std::max<i128>(b.range.lo, 1));
    const int64_t hi = static_cast<int64_t>(
        std::min<i128>(b.range.hi, lo + small_divisor_cases_ - 1));
    Term qs = *q, rs = *r;
    for (int64_t v = hi; v >= lo; --v) {
      qs = Ite(b.value == v, Div(a.value, c.Int(v)), qs);
      rs = Ite(b.value == v, Mod(a.value, c.Int(v)), rs);
    }
    const Term q0 = *q, r0 = *r;
    *q = qs;
    *r = rs;
    if (case_obligations_) {
      obligations_->push_back(b.value >= lo && b.value <= hi);
      return;
    }
    side_->push_back(Implies(b.value > hi, a.value == b.value * q0 + r0 && r0 >= 0 &&
                                               r0 < b.value));
    if (b.range.lo < 0) {
      side_->push_back(Implies(b.value < 0, a.value == b.value * q0 + r0 && r0 > b.value &&
                                                r0 <= 0));
    }
    return;
  }
  if (b.range.hi > 0) {
    side_->push_back(Implies(b.value > 0, defn && *r >= 0 && *r < b.value));
    // Implied (so adding it changes no model), and it saves Z3 a nonlinear step.
    if (a.range.lo >= 0) side_->push_back(Implies(b.value > 0, *q >= 0 && *q <= a.value));
  }
  if (b.range.lo < 0) {
    side_->push_back(Implies(b.value<0, defn&& * r> b.value && *r <= 0));
  }
}

bool ExprEncoder::DigitResidue(const Encoded& a, const Encoded& b, Term* r) {
  if (bv_width_ > 0 || !digits_.has_value() || !digits_->residues ||
      small_factor_cases_ <= 0 || !a.value.Same(digits_->dividend) ||
      b.value.Same(digits_->divisor)) {
    return false;
  }
  Encoded s;
  s.value = digits_->divisor;
  s.range = digits_->divisor_range;
  const ValueRange sr = ModRange(s.range, b.range);
  if (sr.hi - sr.lo >= small_factor_cases_ || s.range.lo < 1) return false;
  Term q1, s_mod;
  FloorDivMod(s, b, &q1, &s_mod);
  // g * (S % b), one case per value of S % b (see "Residues").
  const Term g = digits_->q;
  const int64_t lo = static_cast<int64_t>(sr.lo), hi = static_cast<int64_t>(sr.hi);
  Term product = case_obligations_ ? ctx_->FreshInt("p") : g * s_mod;
  if (!case_obligations_) ++*nonlinear_;
  for (int64_t v = hi; v >= lo; --v) {
    product = Ite(s_mod == ctx_->Int(v), g * ctx_->Int(v), product);
  }
  if (case_obligations_) obligations_->push_back(s_mod >= lo && s_mod <= hi);
  // g = a // S >= 0 over a >= 0, and 0 <= j < S.
  const ValueRange gr = FloorDivRange({std::max<i128>(a.range.lo, 0), a.range.hi}, s.range);
  Encoded t;
  t.value = product + digits_->r;
  t.range = Hull({MulSat(gr.lo, sr.lo), MulSat(gr.lo, sr.hi), MulSat(gr.hi, sr.lo),
                  MulSat(gr.hi, sr.hi)});
  t.range.hi = Clamp(t.range.hi + s.range.hi - 1);
  Term q2;
  FloorDivMod(t, b, &q2, r);
  return true;
}

struct ExprEncoder::Node {
  Node(Context& ctx, bool bits) : c(ctx), bv(bits) {}

  // Strict operators: defined where every operand is.
  void Strict() {
    for (const Encoded& o : ops) {
      if (o.defined) defined.push_back(*o.defined);
    }
  }
  // An integer result; outside int64 it is undefined.
  void IntResult(Term value, ValueRange range) {
    out.value = value;
    out.range = range;
    if (!range.FitsInt64() && !bv) {  // bit-vectors: too wide fails in EncodeNode
      defined.push_back(value >= c.Int(std::numeric_limits<int64_t>::min()) &&
                        value <= c.Int(std::numeric_limits<int64_t>::max()));
      // The value is only used where it is defined, i.e. within int64.
      out.range = {std::max(range.lo, kInt64Min), std::min(range.hi, kInt64Max)};
    }
  }
  void BoolResult(Term value) {
    out.value = value;
    out.range = {0, 1};
  }
  // A divisor: defined only where it is not zero.
  void NonZero(const Encoded& b) {
    if (b.range.lo > 0 || b.range.hi < 0) return;
    defined.push_back(b.value != 0);
  }

  Context& c;
  bool bv;
  std::vector<Encoded> ops;
  Encoded out;
  std::vector<Term> defined;
};

absl::StatusOr<ExprEncoder::Encoded> ExprEncoder::EncodeLeaf(const Expr& e) const {
  Encoded out;
  switch (e.kind()) {
    case ExprKind::kIntConst:
      out.range = {e.int_value(), e.int_value()};
      if (absl::Status st = NoteRange(out.range, &e); !st.ok()) return st;
      out.value = Num(e.int_value());
      return out;  // constants are not memoised: they are cheap and have no serial
    case ExprKind::kBoolConst:
      out.value = ctx_->Bool(e.bool_value());
      out.range = {e.bool_value() ? 1 : 0, e.bool_value() ? 1 : 0};
      return out;
    default: {  // kVar
      auto it = names_.find(e.name());
      if (it == names_.end()) {
        return absl::InvalidArgumentError(absl::StrCat("smt encoder: unbound name '",
                                                       e.name(), "' at ", e.loc().line,
                                                       ":", e.loc().col));
      }
      return it->second;
    }
  }
}

void ExprEncoder::EncodeArithmetic(ExprKind kind, Node& n) {
  const std::vector<Encoded>& ops = n.ops;
  n.Strict();
  switch (kind) {
    case ExprKind::kNeg:
      n.IntResult(-ops[0].value, {Clamp(-ops[0].range.hi), Clamp(-ops[0].range.lo)});
      return;
    case ExprKind::kAdd:
      n.IntResult(ops[0].value + ops[1].value, {Clamp(ops[0].range.lo + ops[1].range.lo),
                                                Clamp(ops[0].range.hi + ops[1].range.hi)});
      return;
    case ExprKind::kSub:
      n.IntResult(ops[0].value - ops[1].value, {Clamp(ops[0].range.lo - ops[1].range.hi),
                                                Clamp(ops[0].range.hi - ops[1].range.lo)});
      return;
    case ExprKind::kMul: {
      const ValueRange &a = ops[0].range, &b = ops[1].range;
      Term product = ops[0].value * ops[1].value;
      if (!a.Constant() && !b.Constant()) {
        // Factor cases (see "Products"): the factor with the fewer values, when it has at
        // most small_factor_cases_, as one linear case per value.
        const bool first = a.hi - a.lo <= b.hi - b.lo;
        const Encoded& x = first ? ops[0] : ops[1];
        const Encoded& y = first ? ops[1] : ops[0];
        // Still counted as nonlinear: the count routes boxes (bit-vectors first, one
        // all-symbolic configuration), and measured, Morton, Hilbert and the tdist maps
        // lose their bit-vector route (0.1 s -> 20-45 s CPU) when factor cases count
        // as linear.
        ++*nonlinear_;
        if (bv_width_ == 0 && small_factor_cases_ > 0 &&
            x.range.hi - x.range.lo < small_factor_cases_) {
          const int64_t lo = static_cast<int64_t>(x.range.lo);
          const int64_t hi = static_cast<int64_t>(x.range.hi);
          Term cases = case_obligations_ ? ctx_->FreshInt("p") : product;
          for (int64_t v = hi; v >= lo; --v) {
            cases = Ite(x.value == ctx_->Int(v), y.value * ctx_->Int(v), cases);
          }
          if (case_obligations_) obligations_->push_back(x.value >= lo && x.value <= hi);
          product = cases;
        }
      }
      n.IntResult(product,
                  Hull({MulSat(a.lo, b.lo), MulSat(a.lo, b.hi), MulSat(a.hi, b.lo),
                        MulSat(a.hi, b.hi)}));
      return;
    }
    case ExprKind::kMin:
      n.out.value = Min(ops[0].value, ops[1].value);
      n.out.range = {std::min(ops[0].range.lo, ops[1].range.lo),
                     std::min(ops[0].range.hi, ops[1].range.hi)};
      return;
    default:  // kMax
      n.out.value = Max(ops[0].value, ops[1].value);
      n.out.range = {std::max(ops[0].range.lo, ops[1].range.lo),
                     std::max(ops[0].range.hi, ops[1].range.hi)};
      return;
  }
}

void ExprEncoder::EncodeDivision(ExprKind kind, Node& n) {
  const std::vector<Encoded>& ops = n.ops;
  n.Strict();
  n.NonZero(ops[1]);
  if (kind == ExprKind::kMod) {
    Term r;
    if (DigitResidue(ops[0], ops[1], &r)) {
      n.IntResult(r, ModRange(ops[0].range, ops[1].range));
      return;
    }
  }
  if (kind != ExprKind::kCdiv) {
    Term q, r;
    FloorDivMod(ops[0], ops[1], &q, &r);
    if (kind == ExprKind::kFloorDiv) {
      n.IntResult(q, FloorDivRange(ops[0].range, ops[1].range));
    } else {
      n.IntResult(r, ModRange(ops[0].range, ops[1].range));
    }
    return;
  }
  // cdiv(a, b) = -floor(-a / b), for either sign of b.
  Encoded neg_a = ops[0];
  neg_a.value = -ops[0].value;
  neg_a.range = {Clamp(-ops[0].range.hi), Clamp(-ops[0].range.lo)};
  Term value;
  if (bv_width_ > 0) {
    value = CdivBv(ops[0], ops[1]);
  } else if (ops[1].range.Constant() && ops[1].range.lo > 0) {
    // (a + b - 1) div b: one native division by a constant.
    value = Div(ops[0].value + (ops[1].value - 1), ops[1].value);
  } else {
    Term q, r;
    FloorDivMod(neg_a, ops[1], &q, &r);
    value = -q;
  }
  ValueRange qr = FloorDivRange(neg_a.range, ops[1].range);
  n.IntResult(value, {Clamp(-qr.hi), Clamp(-qr.lo)});
}

void ExprEncoder::EncodeComparison(ExprKind kind, Node& n) {
  n.Strict();
  const Term a = n.ops[0].value, b = n.ops[1].value;
  switch (kind) {
    case ExprKind::kEq: return n.BoolResult(a == b);
    case ExprKind::kNe: return n.BoolResult(a != b);
    case ExprKind::kLt: return n.BoolResult(a < b);
    case ExprKind::kLe: return n.BoolResult(a <= b);
    case ExprKind::kGt: return n.BoolResult(a > b);
    default: return n.BoolResult(a >= b);  // kGe
  }
}

void ExprEncoder::EncodeLogic(ExprKind kind, Node& n) {
  const std::vector<Encoded>& ops = n.ops;
  switch (kind) {
    case ExprKind::kNot:
      n.Strict();
      n.BoolResult(!ops[0].value);
      return;
    case ExprKind::kAnd:
      // b is evaluated only when a is true.
      if (ops[0].defined) n.defined.push_back(*ops[0].defined);
      if (ops[1].defined) n.defined.push_back(!ops[0].value || *ops[1].defined);
      n.BoolResult(ops[0].value && ops[1].value);
      return;
    case ExprKind::kOr:
      if (ops[0].defined) n.defined.push_back(*ops[0].defined);
      if (ops[1].defined) n.defined.push_back(ops[0].value || *ops[1].defined);
      n.BoolResult(ops[0].value || ops[1].value);
      return;
    default:  // kSelect
      if (ops[0].defined) n.defined.push_back(*ops[0].defined);
      if (ops[1].defined || ops[2].defined) {
        n.defined.push_back(Ite(ops[0].value, ops[1].Defined(n.c), ops[2].Defined(n.c)));
      }
      n.out.value = Ite(ops[0].value, ops[1].value, ops[2].value);
      n.out.range = {std::min(ops[1].range.lo, ops[2].range.lo),
                     std::max(ops[1].range.hi, ops[2].range.hi)};
      return;
  }
}

absl::StatusOr<ExprEncoder::Encoded> ExprEncoder::EncodeNode(const Expr& e) {
  if (auto it = memo_.find(&e); it != memo_.end()) return it->second;
  switch (e.kind()) {
    case ExprKind::kIntConst:
    case ExprKind::kBoolConst:
    case ExprKind::kVar:
      return EncodeLeaf(e);
    default:
      break;
  }
  Node n(*ctx_, bv_width_ > 0);
  n.ops.reserve(e.num_operands());
  for (const sim::expr::ExprPtr& o : e.operands()) {
    absl::StatusOr<Encoded> x = EncodeNode(*o);
    if (!x.ok()) return x.status();
    n.ops.push_back(*std::move(x));
  }
  for (const Encoded& o : n.ops) n.out.serial = std::max(n.out.serial, o.serial);

  // Definedness: the conjunction of the operands' (strict operators) and this node's own
  // condition; lazy operators guard their later operands.
  switch (e.kind()) {
    case ExprKind::kNeg:
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kMin:
    case ExprKind::kMax:
      EncodeArithmetic(e.kind(), n);
      break;
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCdiv:
      EncodeDivision(e.kind(), n);
      break;
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kGt:
    case ExprKind::kGe:
      EncodeComparison(e.kind(), n);
      break;
    case ExprKind::kNot:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kSelect:
      EncodeLogic(e.kind(), n);
      break;
    default:
      return absl::InternalError(absl::StrCat("smt encoder: unexpected node ",
                                              sim::expr::GetOpInfo(e.kind()).name));
  }
  if (!n.out.value.is_bool()) {
    if (absl::Status st = NoteRange(n.out.range, &e); !st.ok()) return st;
  }
  if (!n.defined.empty()) n.out.defined = And(*ctx_, n.defined);
  memo_[&e] = n.out;
  return n.out;
}

}  // namespace warpcheck::verify::smt
