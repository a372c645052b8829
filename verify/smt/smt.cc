#include "verify/smt/smt.h"

#include <z3++.h>

#include <chrono>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/check.h"

namespace warpcheck::verify::smt {

absl::string_view SatResultName(SatResult r) {
  switch (r) {
    case SatResult::kSat:
      return "sat";
    case SatResult::kUnsat:
      return "unsat";
    case SatResult::kUnknown:
      return "unknown";
    case SatResult::kError:
      return "error";
  }
  return "?";
}

struct Context::Impl {
  z3::context z3;
  std::vector<z3::expr> terms;
  absl::Status status;
  uint64_t fresh = 0;
  uint64_t rlimit_count = 0;  // Z3's resource count of this context after the last query
};

struct Model::Impl {
  Impl(Context* c, z3::model m) : ctx(c), model(std::move(m)) {}
  Context* ctx;
  z3::model model;
};

// Access to the private parts of Term and Context for the free operators below.
struct TermOps {
  static Context::Impl& Of(Context* c) { return *c->impl_; }
  static const z3::expr& Get(Term t) { return t.ctx_->impl_->terms[t.id_]; }
  static Term Make(Context* c, z3::expr e) {
    c->impl_->terms.push_back(std::move(e));
    return Term(c, static_cast<int32_t>(c->impl_->terms.size() - 1));
  }
  static Term Invalid(Context* c) { return Term(c, -1); }
  static void Poison(Context* c, absl::string_view what, const z3::exception& e) {
    if (c->impl_->status.ok()) {
      c->impl_->status = absl::InternalError(
          absl::StrCat("Z3 failed while building '", what, "': ", e.msg()));
    }
  }

  static Context* Common(Term a, Term b) {
    Context* c = a.ctx_ != nullptr ? a.ctx_ : b.ctx_;
    WARPCHECK_CHECK(c != nullptr) << "smt: operation on default-constructed terms";
    WARPCHECK_CHECK(a.ctx_ == nullptr || b.ctx_ == nullptr || a.ctx_ == b.ctx_)
        << "smt: terms of two different contexts";
    return c;
  }

  // Operand sorts an operation needs. z3++ asserts (aborts) on some mismatches instead of
  // throwing, so they are checked here and reported like Z3 errors.
  // kNum: both integers, or both bit-vectors of one width (signed arithmetic).
  enum class Sorts { kInt, kNum, kBool, kSame, kBv, kSameBv };
  static bool SortOk(const z3::expr& x, Sorts s) {
    switch (s) {
      case Sorts::kInt:
        return x.is_int();
      case Sorts::kNum:
        return x.is_int() || x.is_bv();
      case Sorts::kBool:
        return x.is_bool();
      case Sorts::kBv:
      case Sorts::kSameBv:
        return x.is_bv();
      default:
        return true;
    }
  }
  static void SortError(Context* c, absl::string_view what, const z3::expr& x,
                        const z3::expr* y) {
    if (c->impl_->status.ok()) {
      c->impl_->status = absl::InternalError(absl::StrCat(
          "Z3 failed while building '", what, "': operand sorts ",
          x.get_sort().to_string(),
          y != nullptr ? absl::StrCat(" and ", y->get_sort().to_string()) : "",
          " do not fit"));
    }
  }

  template <typename F>
  static Term Unary(Term a, absl::string_view what, F f, Sorts sorts) {
    Context* c = a.ctx_;
    WARPCHECK_CHECK(c != nullptr) << "smt: operation on a default-constructed term";
    if (!a.valid()) return Invalid(c);
    if (!SortOk(Get(a), sorts)) {
      SortError(c, what, Get(a), nullptr);
      return Invalid(c);
    }
    try {
      return Make(c, f(Get(a)));
    } catch (const z3::exception& e) {
      Poison(c, what, e);
      return Invalid(c);
    }
  }

  template <typename F>
  static Term Binary(Term a, Term b, absl::string_view what, F f, Sorts sorts) {
    Context* c = Common(a, b);
    if (!a.valid() || !b.valid()) return Invalid(c);
    const z3::expr &x = Get(a), &y = Get(b);
    if (!SortOk(x, sorts) || !SortOk(y, sorts) ||
        ((sorts == Sorts::kSame || sorts == Sorts::kSameBv || sorts == Sorts::kNum) &&
         !z3::eq(x.get_sort(), y.get_sort()))) {
      SortError(c, what, x, &y);
      return Invalid(c);
    }
    try {
      return Make(c, f(Get(a), Get(b)));
    } catch (const z3::exception& e) {
      Poison(c, what, e);
      return Invalid(c);
    }
  }

  // The constant v of `like`'s sort: an integer, or a bit-vector of like's width (two's
  // complement, truncated).
  static Term Const(Term like, int64_t v) {
    WARPCHECK_CHECK(like.ctx_ != nullptr)
        << "smt: operation on a default-constructed term";
    const int w = like.bv_width();
    return w > 0 ? like.ctx_->Bv(static_cast<uint64_t>(v), w) : like.ctx_->Int(v);
  }
};

bool Term::is_bool() const { return valid() && TermOps::Get(*this).is_bool(); }

int Term::bv_width() const {
  if (!valid()) return 0;
  const z3::expr& e = TermOps::Get(*this);
  return e.is_bv() ? static_cast<int>(e.get_sort().bv_size()) : 0;
}

bool Term::Same(const Term& other) const {
  return valid() && other.valid() && ctx_ == other.ctx_ &&
         z3::eq(TermOps::Get(*this), TermOps::Get(other));
}

std::string Term::ToString() const {
  if (!valid()) return "<invalid>";
  return TermOps::Get(*this).to_string();
}

#define WARPCHECK_SMT_BINARY(op, name, body)                                   \
  Term operator op(Term a, Term b) {                                           \
    return TermOps::Binary(                                                    \
        a, b, name, [](const z3::expr& x, const z3::expr& y) { return body; }, \
        TermOps::Sorts::kNum);                                                 \
  }                                                                            \
  Term operator op(Term a, int64_t b) { return a op TermOps::Const(a, b); }    \
  Term operator op(int64_t a, Term b) { return TermOps::Const(b, a) op b; }

WARPCHECK_SMT_BINARY(+, "+", x + y)
WARPCHECK_SMT_BINARY(-, "-", x - y)
WARPCHECK_SMT_BINARY(*, "*", x* y)
#undef WARPCHECK_SMT_BINARY

#define WARPCHECK_SMT_COMPARE(op, name, sorts)                                   \
  Term operator op(Term a, Term b) {                                             \
    return TermOps::Binary(                                                      \
        a, b, name, [](const z3::expr& x, const z3::expr& y) { return x op y; }, \
        TermOps::Sorts::sorts);                                                  \
  }                                                                              \
  Term operator op(Term a, int64_t b) { return a op TermOps::Const(a, b); }

WARPCHECK_SMT_COMPARE(<, "<", kNum)
WARPCHECK_SMT_COMPARE(<=, "<=", kNum)
WARPCHECK_SMT_COMPARE(>, ">", kNum)
WARPCHECK_SMT_COMPARE(>=, ">=", kNum)
WARPCHECK_SMT_COMPARE(==, "==", kSame)
WARPCHECK_SMT_COMPARE(!=, "!=", kSame)
#undef WARPCHECK_SMT_COMPARE

Term operator-(Term a) {
  return TermOps::Unary(
      a, "neg", [](const z3::expr& x) { return -x; }, TermOps::Sorts::kNum);
}

Term Div(Term a, Term b) {
  return TermOps::Binary(
      a, b, "div",
      [](const z3::expr& x, const z3::expr& y) {
        return z3::expr(x.ctx(), Z3_mk_div(x.ctx(), x, y));
      },
      TermOps::Sorts::kInt);
}
Term Mod(Term a, Term b) {
  return TermOps::Binary(
      a, b, "mod", [](const z3::expr& x, const z3::expr& y) { return z3::mod(x, y); },
      TermOps::Sorts::kInt);
}
Term Div(Term a, int64_t b) { return Div(a, TermOps::Const(a, b)); }
Term Mod(Term a, int64_t b) { return Mod(a, TermOps::Const(a, b)); }

Term operator&&(Term a, Term b) {
  return TermOps::Binary(
      a, b, "and", [](const z3::expr& x, const z3::expr& y) { return x && y; },
      TermOps::Sorts::kBool);
}
Term operator||(Term a, Term b) {
  return TermOps::Binary(
      a, b, "or", [](const z3::expr& x, const z3::expr& y) { return x || y; },
      TermOps::Sorts::kBool);
}
Term operator!(Term a) {
  return TermOps::Unary(
      a, "not", [](const z3::expr& x) { return !x; }, TermOps::Sorts::kBool);
}
Term Implies(Term a, Term b) {
  return TermOps::Binary(
      a, b, "implies",
      [](const z3::expr& x, const z3::expr& y) { return z3::implies(x, y); },
      TermOps::Sorts::kBool);
}
Term Ite(Term c, Term a, Term b) {
  Context* ctx = TermOps::Common(c, a);
  TermOps::Common(c, b);
  TermOps::Common(a, b);
  if (!c.valid() || !a.valid() || !b.valid()) return TermOps::Invalid(ctx);
  if (!TermOps::Get(c).is_bool() ||
      !z3::eq(TermOps::Get(a).get_sort(), TermOps::Get(b).get_sort())) {
    const z3::expr& x = TermOps::Get(a);
    TermOps::SortError(ctx, "ite", x, &TermOps::Get(b));
    return TermOps::Invalid(ctx);
  }
  try {
    return TermOps::Make(ctx, z3::ite(TermOps::Get(c), TermOps::Get(a), TermOps::Get(b)));
  } catch (const z3::exception& e) {
    TermOps::Poison(ctx, "ite", e);
    return TermOps::Invalid(ctx);
  }
}
Term Min(Term a, Term b) { return Ite(a <= b, a, b); }
Term Max(Term a, Term b) { return Ite(a >= b, a, b); }

Term And(Context& ctx, absl::Span<const Term> terms) {
  if (terms.empty()) return ctx.Bool(true);
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) acc = acc && terms[i];
  return acc;
}
Term Or(Context& ctx, absl::Span<const Term> terms) {
  if (terms.empty()) return ctx.Bool(false);
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) acc = acc || terms[i];
  return acc;
}

// ---- bit-vectors ---------------------------------------------------------------------

#define WARPCHECK_SMT_BV2(fn, name, body)                                      \
  Term fn(Term a, Term b) {                                                    \
    return TermOps::Binary(                                                    \
        a, b, name, [](const z3::expr& x, const z3::expr& y) { return body; }, \
        TermOps::Sorts::kSameBv);                                              \
  }
WARPCHECK_SMT_BV2(BvAnd, "bvand", x & y)
WARPCHECK_SMT_BV2(BvOr, "bvor", x | y)
WARPCHECK_SMT_BV2(BvXor, "bvxor", x ^ y)
WARPCHECK_SMT_BV2(BvAdd, "bvadd", x + y)
WARPCHECK_SMT_BV2(BvSub, "bvsub", x - y)
WARPCHECK_SMT_BV2(BvMul, "bvmul", x * y)
WARPCHECK_SMT_BV2(BvShl, "bvshl", z3::shl(x, y))
WARPCHECK_SMT_BV2(BvLshr, "bvlshr", z3::lshr(x, y))
WARPCHECK_SMT_BV2(BvAshr, "bvashr", z3::ashr(x, y))
WARPCHECK_SMT_BV2(BvUlt, "bvult", z3::ult(x, y))
WARPCHECK_SMT_BV2(BvUle, "bvule", z3::ule(x, y))
WARPCHECK_SMT_BV2(BvSlt, "bvslt", x < y)
WARPCHECK_SMT_BV2(BvSle, "bvsle", x <= y)
WARPCHECK_SMT_BV2(BvUdiv, "bvudiv", z3::udiv(x, y))
WARPCHECK_SMT_BV2(BvUrem, "bvurem", z3::urem(x, y))
WARPCHECK_SMT_BV2(BvSdiv, "bvsdiv", x / y)
WARPCHECK_SMT_BV2(BvSrem, "bvsrem", z3::srem(x, y))
#undef WARPCHECK_SMT_BV2

Term BvNot(Term a) {
  return TermOps::Unary(
      a, "bvnot", [](const z3::expr& x) { return ~x; }, TermOps::Sorts::kBv);
}
Term BvNeg(Term a) {
  return TermOps::Unary(
      a, "bvneg", [](const z3::expr& x) { return -x; }, TermOps::Sorts::kBv);
}
Term Extract(Term a, int hi, int lo) {
  Context* c = a.context();
  if (a.valid() && (lo < 0 || hi < lo || hi >= a.bv_width())) {
    TermOps::SortError(c, absl::StrCat("extract ", hi, ":", lo), TermOps::Get(a), nullptr);
    return TermOps::Invalid(c);
  }
  return TermOps::Unary(
      a, "extract",
      [hi, lo](const z3::expr& x) {
        return x.extract(static_cast<unsigned>(hi), static_cast<unsigned>(lo));
      },
      TermOps::Sorts::kBv);
}
Term Concat(Term hi, Term lo) {
  return TermOps::Binary(
      hi, lo, "concat",
      [](const z3::expr& x, const z3::expr& y) { return z3::concat(x, y); },
      TermOps::Sorts::kBv);
}
Term ZeroExt(Term a, int extra_bits) {
  return TermOps::Unary(
      a, "zero_extend",
      [extra_bits](const z3::expr& x) {
        return z3::zext(x, static_cast<unsigned>(extra_bits));
      },
      TermOps::Sorts::kBv);
}
Term SignExt(Term a, int extra_bits) {
  return TermOps::Unary(
      a, "sign_extend",
      [extra_bits](const z3::expr& x) {
        return z3::sext(x, static_cast<unsigned>(extra_bits));
      },
      TermOps::Sorts::kBv);
}

// ---------------------------------------------------------------------------------------

std::optional<int64_t> Model::Int(Term t) const {
  if (impl_ == nullptr || !t.valid() || t.context() != impl_->ctx) return std::nullopt;
  try {
    z3::expr v = impl_->model.eval(TermOps::Get(t), /*model_completion=*/true);
    int64_t out;
    if (v.is_int() && v.is_numeral_i64(out)) return out;
    uint64_t bits;
    if (v.is_bv() && v.is_numeral_u64(bits)) {
      // Two's complement of the term's width.
      const int w = static_cast<int>(v.get_sort().bv_size());
      if (w < 64 && ((bits >> (w - 1)) & 1) != 0) bits |= ~uint64_t{0} << w;
      return static_cast<int64_t>(bits);
    }
  } catch (const z3::exception&) {
  }
  return std::nullopt;
}

std::optional<bool> Model::Bool(Term t) const {
  if (impl_ == nullptr || !t.valid() || t.context() != impl_->ctx) return std::nullopt;
  try {
    z3::expr v = impl_->model.eval(TermOps::Get(t), /*model_completion=*/true);
    if (v.is_true()) return true;
    if (v.is_false()) return false;
  } catch (const z3::exception&) {
  }
  return std::nullopt;
}

std::optional<uint64_t> Model::Bits(Term t) const {
  if (impl_ == nullptr || !t.valid() || t.context() != impl_->ctx) return std::nullopt;
  try {
    z3::expr v = impl_->model.eval(TermOps::Get(t), /*model_completion=*/true);
    uint64_t out;
    if (v.is_bv() && v.get_sort().bv_size() <= 64 && v.is_numeral_u64(out)) return out;
  } catch (const z3::exception&) {
  }
  return std::nullopt;
}

std::string Model::ToString() const {
  if (impl_ == nullptr) return "<no model>";
  return impl_->model.to_string();
}

// ---------------------------------------------------------------------------------------

Context::Context() : impl_(std::make_unique<Impl>()) {}
Context::~Context() = default;

const absl::Status& Context::status() const { return impl_->status; }

Term Context::Int(int64_t value) {
  try {
    return TermOps::Make(this, impl_->z3.int_val(value));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, "int constant", e);
    return TermOps::Invalid(this);
  }
}

Term Context::Bool(bool value) {
  try {
    return TermOps::Make(this, impl_->z3.bool_val(value));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, "bool constant", e);
    return TermOps::Invalid(this);
  }
}

Term Context::IntVar(absl::string_view name) {
  try {
    return TermOps::Make(this, impl_->z3.int_const(std::string(name).c_str()));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, name, e);
    return TermOps::Invalid(this);
  }
}

Term Context::BoolVar(absl::string_view name) {
  try {
    return TermOps::Make(this, impl_->z3.bool_const(std::string(name).c_str()));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, name, e);
    return TermOps::Invalid(this);
  }
}

Term Context::FreshInt(absl::string_view prefix) {
  // Names with '!' cannot be written by IntVar callers in practice, and the counter keeps
  // them distinct within the context.
  return IntVar(absl::StrCat(prefix, "!", impl_->fresh++));
}

Term Context::Bv(uint64_t value, int bits) {
  WARPCHECK_CHECK(bits >= 1 && bits <= 64) << "smt: bit-vector width " << bits;
  if (bits < 64) value &= (uint64_t{1} << bits) - 1;
  try {
    return TermOps::Make(this, impl_->z3.bv_val(value, static_cast<unsigned>(bits)));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, "bit-vector constant", e);
    return TermOps::Invalid(this);
  }
}

Term Context::BvVar(absl::string_view name, int bits) {
  WARPCHECK_CHECK(bits >= 1 && bits <= 64) << "smt: bit-vector width " << bits;
  try {
    return TermOps::Make(
        this, impl_->z3.bv_const(std::string(name).c_str(), static_cast<unsigned>(bits)));
  } catch (const z3::exception& e) {
    TermOps::Poison(this, name, e);
    return TermOps::Invalid(this);
  }
}

std::optional<uint64_t> Context::ConstValue(Term t) {
  if (!t.valid() || t.context() != this) return std::nullopt;
  try {
    z3::expr v = TermOps::Get(t).simplify();
    if (v.is_true()) return 1;
    if (v.is_false()) return 0;
    uint64_t out;
    if (v.is_bv() && v.get_sort().bv_size() <= 64 && v.is_numeral_u64(out)) return out;
  } catch (const z3::exception&) {
  }
  return std::nullopt;
}

namespace {

uint64_t RlimitCount(const z3::solver& s) {
  z3::stats st = s.statistics();
  for (unsigned k = 0; k < st.size(); ++k) {
    if (st.key(k) == "rlimit count") {
      return st.is_uint(k) ? st.uint_value(k) : static_cast<uint64_t>(st.double_value(k));
    }
  }
  return 0;
}

}  // namespace

SolverResult Context::Check(absl::string_view name, absl::Span<const Term> assertions,
                            const SolverOptions& options) {
  SolverResult r;
  r.query = std::string(name);
  auto fail = [&](absl::string_view what) {
    r.result = SatResult::kError;
    r.error = absl::InternalError(absl::StrCat("query '", name, "': ", what));
    return r;
  };
  if (!impl_->status.ok()) return fail(impl_->status.message());
  for (size_t k = 0; k < assertions.size(); ++k) {
    const Term& a = assertions[k];
    WARPCHECK_CHECK(a.context() == nullptr || a.context() == this)
        << "smt: query '" << name << "' mixes terms of two contexts";
    if (!a.valid()) return fail(absl::StrCat("assertion ", k, " is not a valid term"));
    if (!a.is_bool()) {
      return fail(absl::StrCat("assertion ", k, " is not Boolean: ", a.ToString()));
    }
  }
  try {
    // The plain SMT kernel ("simple" solver): Z3's default solver first runs a tactic
    // front end chosen by probing the logic, which costs ~5 ms per query even for
    // trivial ones (84 gemm queries: 450 ms of overhead) and made no query faster.
    z3::context& c = impl_->z3;
    z3::solver solver =
        options.bitblast
            ? (z3::tactic(c, "simplify") & z3::tactic(c, "purify-arith") &
               z3::tactic(c, "elim-term-ite") & z3::tactic(c, "propagate-values") &
               z3::tactic(c, "propagate-ineqs") & z3::tactic(c, "nla2bv") &
               z3::tactic(c, "simplify") & z3::tactic(c, "qfbv"))
                  .mk_solver()
        : options.bitvector ? z3::tactic(c, "qfbv").mk_solver()
                            : z3::solver(c, z3::solver::simple());
    z3::params params(impl_->z3);
    if (options.rlimit > 0) {
      params.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(
                               options.rlimit, std::numeric_limits<unsigned>::max())));
    }
    if (options.timeout_ms > 0) params.set("timeout", options.timeout_ms);
    solver.set(params);
    for (const Term& a : assertions) solver.add(TermOps::Get(a));
    if (options.keep_smt2) {
      r.smt2 = absl::StrCat("; warpcheck query: ", name, "\n", solver.to_smt2());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const z3::check_result cr = solver.check();
    r.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
    // The count is cumulative over the context; the limit applies per check.
    const uint64_t count = RlimitCount(solver);
    r.rlimit_used = count >= impl_->rlimit_count ? count - impl_->rlimit_count : count;
    impl_->rlimit_count = count;
    switch (cr) {
      case z3::sat:
        r.result = SatResult::kSat;
        r.model.impl_ = std::make_shared<Model::Impl>(this, solver.get_model());
        break;
      case z3::unsat:
        r.result = SatResult::kUnsat;
        break;
      case z3::unknown:
        r.result = SatResult::kUnknown;
        r.reason_unknown = solver.reason_unknown();
        break;
    }
  } catch (const z3::exception& e) {
    if (options.bitblast) {
      r.result = SatResult::kUnknown;
      r.reason_unknown = absl::StrCat("bit-blasting: ", e.msg());
      return r;
    }
    return fail(absl::StrCat("Z3 error: ", e.msg()));
  }
  return r;
}

}  // namespace warpcheck::verify::smt
