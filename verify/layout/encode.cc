// Layout maps as bit-vector terms, and the property queries (encode_internal.h).
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sim/base/bits.h"
#include "sim/base/check.h"
#include "verify/layout/encode_internal.h"

namespace warpcheck::verify::layout {

namespace sl = ::warpcheck::sim::layout;
using smt::Term;

namespace {

Term Pow2(smt::Context& ctx, Term log) { return smt::BvShl(ctx.Bv(1, kWidth), log); }
Term Mask(smt::Context& ctx, Term log) {
  return smt::BvSub(Pow2(ctx, log), ctx.Bv(1, kWidth));
}
Term Bit(smt::Context& ctx, Term x, int k) {
  return smt::BvAnd(smt::BvLshr(x, ctx.Bv(k, kWidth)), ctx.Bv(1, kWidth)) ==
         ctx.Bv(1, kWidth);
}

// XOR of `values[k]` over the set bits k of x (a constant-basis linear map).
Term XorMap(smt::Context& ctx, Term x, const std::vector<int64_t>& values) {
  Term acc = ctx.Bv(0, kWidth);
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k] == 0) continue;
    acc = smt::BvXor(acc, smt::Ite(Bit(ctx, x, static_cast<int>(k)),
                                   ctx.Bv(values[k], kWidth), ctx.Bv(0, kWidth)));
  }
  return acc;
}

}  // namespace

MapTerms EncodeInstance(smt::Context& ctx, const Instance& in) {
  MapTerms m;
  const sl::LinearLayout& ll = in.layout;
  const int rank = static_cast<int>(in.shape.size());
  for (int64_t s : in.shape) m.dim_log.push_back(ctx.Bv(sim::base::Log2(s), kWidth));
  m.in_log = ctx.Bv(ll.TotalInDimSizeLog2(), kWidth);
  m.bytes_log = ctx.Bv(in.element_bits >= 8 ? sim::base::Log2(in.element_bits / 8) : 0,
                         kWidth);
  m.fast = in.fast_dim;
  // forward: per dim, the basis entries of every input bit (offset bits, then block).
  std::vector<std::vector<int64_t>> per_dim(rank);
  for (const auto& [name, bases] : ll.bases()) {
    for (const auto& b : bases) {
      for (int d = 0; d < rank; ++d) per_dim[d].push_back(b[d]);
    }
  }
  m.forward = [&ctx, per_dim](Term o) {
    std::vector<Term> e;
    for (const auto& values : per_dim) e.push_back(XorMap(ctx, o, values));
    return e;
  };
  if (ll.IsSurjective()) {
    // Pseudoinvert: dim0.. -> (offset, block); flattened offset + block << log(offsets).
    const sl::LinearLayout inv = ll.Pseudoinvert();
    std::vector<std::vector<int64_t>> flat(rank);
    const int offset_log = ll.InDimSizeLog2("offset");
    for (const auto& [name, bases] : inv.bases()) {
      const int d = std::stoi(name.substr(3));
      for (const auto& b : bases) {
        int64_t v = 0;
        for (size_t k = 0; k < b.size(); ++k) {
          v |= int64_t{b[k]} << (inv.out_dims()[k].first == "offset" ? 0 : offset_log);
        }
        flat[d].push_back(v);
      }
    }
    m.inverse = [&ctx, flat](const std::vector<Term>& e) {
      Term acc = ctx.Bv(0, kWidth);
      for (size_t d = 0; d < flat.size(); ++d) acc = smt::BvXor(acc, XorMap(ctx, e[d], flat[d]));
      return acc;
    };
  }
  const auto padding = in.padding;
  const Term bytes_log = m.bytes_log;
  m.address = [&ctx, padding, bytes_log](Term o) {
    Term a = o;
    for (const auto& [interval, pad] : padding) {
      a = smt::BvAdd(a, smt::BvMul(smt::BvLshr(o, ctx.Bv(sim::base::Log2(interval), kWidth)),
                                   ctx.Bv(pad, kWidth)));
    }
    return smt::BvShl(a, bytes_log);
  };
  return m;
}

bool SwizzledClosedFormApplies(const Family& family) {
  const auto* s = std::get_if<sl::SwizzledSharedEncoding>(&family.encoding->kind);
  if (s == nullptr || s->order.size() != 2 || !s->cga.empty()) return false;
  for (const Param& p : family.params) {
    if (!sim::base::IsPowerOf2(p.range.lo) || !sim::base::IsPowerOf2(p.range.hi)) return false;
  }
  return true;
}

MapTerms EncodeSwizzledFamily(smt::Context& ctx, const Family& family) {
  const auto& s = std::get<sl::SwizzledSharedEncoding>(family.encoding->kind);
  MapTerms m;
  auto log_of = [&](absl::string_view name, int64_t otherwise) -> Term {
    for (size_t k = 0; k < family.params.size(); ++k) {
      const Param& p = family.params[k];
      if (p.name != name) continue;
      const int lo = sim::base::Log2(p.range.lo), hi = sim::base::Log2(p.range.hi);
      if (lo == hi) return ctx.Bv(lo, kWidth);
      Term v = ctx.BvVar(absl::StrCat("log2_", name), kWidth);
      m.box.push_back(smt::BvUle(ctx.Bv(lo, kWidth), v));
      m.box.push_back(smt::BvUle(v, ctx.Bv(hi, kWidth)));
      m.symbols.emplace_back(k, v);
      return v;
    }
    return ctx.Bv(otherwise, kWidth);
  };
  m.dim_log = {log_of("dim0", 0), log_of("dim1", 0)};
  const Term lv = log_of("vec", 0), lpp = log_of("per-phase", 0), lmp = log_of("max-phase", 0);
  m.bytes_log = smt::BvSub(log_of("element-bits", 4), ctx.Bv(3, kWidth));
  const int col_dim = s.order[0], row_dim = s.order[1];
  m.fast = col_dim;
  const Term lr = m.dim_log[row_dim], lc = m.dim_log[col_dim];
  m.in_log = smt::BvAdd(lr, lc);
  const bool rotating = s.amd_rotating;
  // swizzle(row) = (((row >> lpp) & (mp-1)) [^ ((row >> (lpp+lmp)) & (mp-1))]) << lv
  //                & (cols - 1)
  auto swizzle = [&ctx, lv, lpp, lmp, lc, rotating](Term row) {
    Term phase = smt::BvAnd(smt::BvLshr(row, lpp), Mask(ctx, lmp));
    if (rotating) {
      phase = smt::BvXor(
          phase, smt::BvAnd(smt::BvLshr(row, smt::BvAdd(lpp, lmp)), Mask(ctx, lmp)));
    }
    return smt::BvAnd(smt::BvShl(phase, lv), Mask(ctx, lc));
  };
  m.forward = [&ctx, swizzle, lc, row_dim, col_dim](Term o) {
    const Term row = smt::BvLshr(o, lc);
    std::vector<Term> e(2);
    e[row_dim] = row;
    e[col_dim] = smt::BvXor(smt::BvAnd(o, Mask(ctx, lc)), swizzle(row));
    return e;
  };
  m.inverse = [swizzle, lc, row_dim, col_dim](const std::vector<Term>& e) {
    return smt::BvOr(smt::BvShl(e[row_dim], lc), smt::BvXor(e[col_dim], swizzle(e[row_dim])));
  };
  const Term bytes_log = m.bytes_log;
  m.address = [bytes_log](Term o) { return smt::BvShl(o, bytes_log); };
  return m;
}

namespace {

struct Lane {
  Term row, col;
  std::vector<Term> constraints;
};

// The lane of a request (README.md, "Access patterns"), over fresh variables `tag`.
Lane AccessLane(smt::Context& ctx, const MapTerms& m, Access access, absl::string_view tag,
                Term request, Term lv) {
  auto bits = [&](absl::string_view n) { return ctx.BvVar(absl::StrCat(n, tag), kWidth); };
  const int slow = 1 - m.fast;
  const Term lr = m.dim_log[slow], lc = m.dim_log[m.fast];
  Lane l;
  if (access == Access::kV4) {
    const Term i = bits("lane"), lpr = smt::BvSub(lc, lv);
    const Term total_log = smt::BvAdd(lr, lpr);
    const Term n = smt::BvOr(smt::BvShl(request, ctx.Bv(5, kWidth)), i);
    l.constraints = {smt::BvUlt(i, ctx.Bv(32, kWidth)), smt::BvUlt(n, Pow2(ctx, total_log))};
    l.row = smt::BvLshr(n, lpr);
    l.col = smt::BvShl(smt::BvAnd(n, Mask(ctx, lpr)), lv);
  } else {
    const Term r = bits("row");
    // request = the matrix: m * (cols/vec) + q, i.e. (m << (lc - lv)) | q, below
    // (rows/8) * (cols/vec).
    const Term per_row_log = smt::BvSub(lc, lv);
    const Term matrices_log = smt::BvAdd(smt::BvSub(lr, ctx.Bv(3, kWidth)), per_row_log);
    l.constraints = {smt::BvUlt(r, ctx.Bv(8, kWidth)),
                     smt::BvUlt(request, Pow2(ctx, matrices_log))};
    l.row = smt::BvOr(smt::BvShl(smt::BvLshr(request, per_row_log), ctx.Bv(3, kWidth)), r);
    l.col = smt::BvShl(smt::BvAnd(request, Mask(ctx, per_row_log)), lv);
  }
  return l;
}

}  // namespace

std::vector<Query> BuildQueries(smt::Context& ctx, const MapTerms& m, Property property,
                                Access access) {
  std::vector<Query> out;
  auto domain = [&](Term o) { return smt::BvUlt(o, Pow2(ctx, m.in_log)); };
  const int rank = static_cast<int>(m.dim_log.size());
  std::vector<Term> box = m.box;
  // For a bank property, only points the access applies to: a row holds a vector (and
  // ldmatrix/stmatrix: 8 rows).
  const Term lv = smt::BvSub(ctx.Bv(4, kWidth), m.bytes_log);
  const int slow = rank == 2 ? 1 - m.fast : 0;
  if (property == Property::kBankConflictFree) {
    box.push_back(smt::BvUle(m.bytes_log, ctx.Bv(3, kWidth)));
    box.push_back(smt::BvUle(lv, m.dim_log[m.fast]));
    if (access != Access::kV4) {
      box.push_back(smt::BvUle(ctx.Bv(3, kWidth), m.dim_log[slow]));
    }
  }
  // Injective: two offsets, one element.
  if (property != Property::kSurjective) {
    const Term o1 = ctx.BvVar("o1", kWidth), o2 = ctx.BvVar("o2", kWidth);
    Query q{"injective", box};
    q.assertions.insert(q.assertions.end(), {domain(o1), domain(o2), o1 != o2});
    const std::vector<Term> e1 = m.forward(o1), e2 = m.forward(o2);
    for (int d = 0; d < rank; ++d) q.assertions.push_back(e1[d] == e2[d]);
    out.push_back(std::move(q));
  }
  // Surjective: an element the candidate inverse does not map back to.
  if (property != Property::kInjective && m.inverse) {
    std::vector<Term> e;
    Query q{"surjective", box};
    for (int d = 0; d < rank; ++d) {
      e.push_back(ctx.BvVar(absl::StrCat("e", d), kWidth));
      q.assertions.push_back(smt::BvUlt(e[d], Pow2(ctx, m.dim_log[d])));
    }
    const Term o = m.inverse(e);
    std::vector<Term> back = {domain(o)};
    const std::vector<Term> f = m.forward(o);
    for (int d = 0; d < rank; ++d) back.push_back(f[d] == e[d]);
    q.assertions.push_back(!smt::And(ctx, back));
    out.push_back(std::move(q));
  }
  if (property != Property::kBankConflictFree || !m.inverse) return out;

  const Term request = ctx.BvVar("request", kWidth);
  box.push_back(smt::BvUlt(request, Pow2(ctx, m.in_log)));
  auto element = [&](Term row, Term col) {
    std::vector<Term> e(2);
    e[slow] = row;
    e[m.fast] = col;
    return e;
  };
  auto addr = [&](Term row, Term col) { return m.address(m.inverse(element(row, col))); };
  {  // vector: lane's 16 bytes are one aligned contiguous vector
    const Lane l = AccessLane(ctx, m, access, "", request, lv);
    const Term j = ctx.BvVar("j", kWidth);
    Query q{"vector", box};
    q.assertions.insert(q.assertions.end(), l.constraints.begin(), l.constraints.end());
    q.assertions.push_back(smt::BvUle(ctx.Bv(1, kWidth), j));
    q.assertions.push_back(smt::BvUlt(j, Pow2(ctx, lv)));
    const Term a0 = addr(l.row, l.col), aj = addr(l.row, smt::BvAdd(l.col, j));
    q.assertions.push_back(smt::BvAnd(a0, ctx.Bv(15, kWidth)) != ctx.Bv(0, kWidth) ||
                           aj != smt::BvAdd(a0, smt::BvShl(j, m.bytes_log)));
    out.push_back(std::move(q));
  }
  {  // conflict: two lanes of one group, distinct 16-byte chunks in the same 4 banks
    const Lane l1 = AccessLane(ctx, m, access, "1", request, lv);
    const Lane l2 = AccessLane(ctx, m, access, "2", request, lv);
    Query q{"conflict", box};
    for (const Lane* l : {&l1, &l2}) {
      q.assertions.insert(q.assertions.end(), l->constraints.begin(), l->constraints.end());
    }
    if (access == Access::kV4) {
      const Term i1 = ctx.BvVar("lane1", kWidth), i2 = ctx.BvVar("lane2", kWidth);
      const Term three = ctx.Bv(3, kWidth);
      q.assertions.push_back(smt::BvLshr(i1, three) == smt::BvLshr(i2, three));
      q.assertions.push_back(i1 != i2);
    } else {
      q.assertions.push_back(ctx.BvVar("row1", kWidth) != ctx.BvVar("row2", kWidth));
    }
    const Term four = ctx.Bv(4, kWidth), seven = ctx.Bv(7, kWidth);
    const Term c1 = smt::BvLshr(addr(l1.row, l1.col), four);
    const Term c2 = smt::BvLshr(addr(l2.row, l2.col), four);
    q.assertions.push_back(c1 != c2);
    q.assertions.push_back(smt::BvAnd(c1, seven) == smt::BvAnd(c2, seven));
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace warpcheck::verify::layout
