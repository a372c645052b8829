// Nested structure made flat before a proof (swizzle_prove_internal.h; verify/README.md,
// "Thirteenth pass"):
//
//   * ProveByFlattening: a map that reads the iteration as the digits of two nested
//     divisions — `e = iter // a; ... e // b ... e % b ... iter % a` (CUTLASS's sm90
//     raster: a = 2^log_swizzle_size, b = the major tile count) — is the same map as the
//     one that reads it as the digits of the one divisor S = a*b:
//
//         (x // a) // b = x // (a*b)          (x // a) % b = (x % (a*b)) // a
//         x % a = (x % (a*b)) % a
//
//     for every integer x whenever a >= 1 and b >= 1 (x = q*(a*b) + r with 0 <= r < a*b:
//     x // a = q*b + r // a with 0 <= r // a < b). With a and b read from parameters only
//     and both >= 1 at every point of the box (the hull of their values, scanned), the
//     rewritten spec evaluates every statement to the same value at every iteration of
//     every point, and fails nowhere the spec does not: its verdict is the spec's. The
//     gain is the encoding: with every read of the iteration `iter // S` or `iter % S`,
//     the iteration becomes the digits (g, j) of S (item 15), where the nested form kept
//     a fresh quotient over the symbolic b and a product for Z3's nonlinear core.
//
//   * ScanHullThroughLets: the hull of a parameter let's values whose own parameter box
//   is
//     too large to scan (`D = R * C` over rows, cols, tile_rows, tile_cols: 192^2 * 48^2
//     points at dist_d0's 16x box), scanned over the hulls of the lets it reads instead
//     (R and C, 9 216 points each, then R x C). A superset of its values (the lets' hulls
//     forget how R and C are related), which is what the reducer's abstraction needs.
//
//   * Output-chain coordinate reads (OutputChainCoordinateRead): R may read, besides
//     its placement P, the value of another out coordinate c' of the spec (`out c' = d`
//     with d a let, or c' itself); link 2 then takes that value as a parameter over
//     [0, hull of c's extent) — dist's `out rank = (pi + d) % N` beside `out row = d` in
//     the reduced index part. The argument is in swizzle_prove_rotation.cc.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/expr/eval.h"
#include "sim/expr/printer.h"
#include "sim/swizzle/sweep.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify::internal {
namespace {

using sim::expr::Expr;
using sim::expr::ExprKind;
using sim::expr::ExprPtr;
using sim::expr::Stmt;
using sim::expr::StmtKind;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;

// Most parameter points scanned for the hull of a divisor.
constexpr int64_t kMaxDivisorScan = int64_t{1} << 22;

bool IsIter(const Expr& e) { return e.kind() == ExprKind::kVar && e.name() == "iter"; }

// What ProveByFlattening rewrites: the outer divisor a (of `iter // a`), the inner b,
// and the let that names `iter // a`, if any.
struct FlattenPlan {
  ExprPtr a, b;
  std::optional<std::string> quotient_let;
};

// The rewrite's walk over one expression. `quotient(e)`: e is `iter // a` itself or the
// let naming it. Ensures: false when some read of `iter` or of the quotient is not one of
// the three forms, or the inner divisors differ.
class FlattenScan {
 public:
  FlattenScan(const ExprPtr& a, const std::optional<std::string>& let)
      : a_(a), let_(let) {}

  bool Quotient(const Expr& e) const {
    if (e.kind() == ExprKind::kFloorDiv && IsIter(e.operand(0)) &&
        e.operand(1).Equals(*a_))
      return true;
    return let_.has_value() && e.kind() == ExprKind::kVar && e.name() == *let_;
  }

  // The name the rewrite gives S = a*b (a let, so that every read shares one node: the
  // encoder matches the digits' divisor on the very term, and a product encoded twice
  // under case obligations is two different terms).
  void set_divisor_name(const std::string& n) {
    s_ = Expr::Var(n, sim::expr::Type::kInt);
  }

  bool Scan(const ExprPtr& e) {
    const ExprKind k = e->kind();
    if ((k == ExprKind::kFloorDiv || k == ExprKind::kMod) && Quotient(e->operand(0))) {
      if (b_ == nullptr) b_ = e->operands()[1];
      if (!b_->Equals(e->operand(1))) return false;
      return Scan(e->operands()[1]);
    }
    if (k == ExprKind::kMod && IsIter(e->operand(0)) && e->operand(1).Equals(*a_)) {
      return Scan(e->operands()[1]);
    }
    if (Quotient(*e) || IsIter(*e)) return false;  // read another way
    for (const ExprPtr& o : e->operands()) {
      if (!Scan(o)) return false;
    }
    return true;
  }

  // Requires: Scan accepted every statement. Ensures: `e` with the three forms flattened.
  ExprPtr Rewrite(const ExprPtr& e) const {
    const ExprKind k = e->kind();
    const ExprPtr iter = Expr::Var("iter", sim::expr::Type::kInt);
    const ExprPtr& s = s_;
    if ((k == ExprKind::kFloorDiv || k == ExprKind::kMod) && Quotient(e->operand(0))) {
      if (k == ExprKind::kFloorDiv) return Expr::MustMake(ExprKind::kFloorDiv, {iter, s});
      return Expr::MustMake(ExprKind::kFloorDiv,
                            {Expr::MustMake(ExprKind::kMod, {iter, s}), a_});
    }
    if (k == ExprKind::kMod && IsIter(e->operand(0)) && e->operand(1).Equals(*a_)) {
      return Expr::MustMake(ExprKind::kMod,
                            {Expr::MustMake(ExprKind::kMod, {iter, s}), a_});
    }
    if (e->operands().empty()) return e;
    std::vector<ExprPtr> ops;
    for (const ExprPtr& o : e->operands()) ops.push_back(Rewrite(o));
    return Expr::MustMake(k, std::move(ops), e->loc());
  }

  const ExprPtr& b() const { return b_; }

 private:
  ExprPtr a_;
  std::optional<std::string> let_;
  ExprPtr b_;
  ExprPtr s_;
};

// Ensures: the first `iter // a` of the program (a let's whole value, or a node inside a
//          statement), with the let that names it when it is a let's value.
std::optional<FlattenPlan> FirstQuotient(const std::vector<Stmt>& stmts) {
  for (const Stmt& s : stmts) {
    if (!s.value) continue;
    if (s.kind == StmtKind::kLet && s.value->kind() == ExprKind::kFloorDiv &&
        IsIter(s.value->operand(0))) {
      return FlattenPlan{s.value->operands()[1], nullptr, s.name};
    }
    std::vector<const ExprPtr*> pending = {&s.value};
    while (!pending.empty()) {
      const ExprPtr& e = *pending.back();
      pending.pop_back();
      if (e->kind() == ExprKind::kFloorDiv && IsIter(e->operand(0))) {
        return FlattenPlan{e->operands()[1], nullptr, std::nullopt};
      }
      for (const ExprPtr& o : e->operands()) pending.push_back(&o);
    }
  }
  return std::nullopt;
}

// Ensures: the hull of a parameter-only expression over the box, lets inlined; nullopt
//          when it reads a per-iteration name or cannot be scanned.
std::optional<ParamRange> DivisorHull(
    const SwizzleSpec& spec, const ExprPtr& e,
    const absl::flat_hash_map<std::string, ParamRange>& range) {
  return ParamExprHull(spec, e, range, kMaxDivisorScan);
}

}  // namespace

absl::StatusOr<std::optional<SwizzleProof>> ProveByFlattening(
    const SwizzleSpec& spec, const SpecSweep& ranges,
    const SwizzleProveOptions& options) {
  if (!options.flatten_divisions || spec.inverse() != nullptr) return std::nullopt;
  const std::vector<Stmt>& stmts = spec.program().statements();
  std::optional<FlattenPlan> plan = FirstQuotient(stmts);
  if (!plan.has_value()) return std::nullopt;
  FlattenScan scan(plan->a, plan->quotient_let);
  for (const Stmt& s : stmts) {
    if (!s.value) continue;
    if (plan->quotient_let.has_value() && s.kind == StmtKind::kLet &&
        s.name == *plan->quotient_let) {
      continue;  // the quotient itself: dropped
    }
    if (!scan.Scan(s.value)) return std::nullopt;
  }
  if (scan.b() == nullptr) return std::nullopt;  // the quotient is never divided again
  ASSIGN_OR_RETURN(const auto range, ResolvedRanges(spec, ranges));
  const std::optional<ParamRange> ha = DivisorHull(spec, plan->a, range);
  const std::optional<ParamRange> hb = DivisorHull(spec, scan.b(), range);
  if (!ha.has_value() || !hb.has_value() || ha->lo < 1 || hb->lo < 1 ||
      SatMul(ha->hi, hb->hi) > (int64_t{1} << 62)) {
    return std::nullopt;
  }
  std::string divisor = "flat_divisor";
  while (spec.program().FindBinding(divisor) != nullptr) divisor += "_";
  scan.set_divisor_name(divisor);
  // The let S goes right after the last statement binding a name that a or b reads.
  size_t after = 0;  // statements before it
  for (const std::string& n :
       sim::expr::FreeVariables(*Expr::MustMake(ExprKind::kMul, {plan->a, scan.b()}))) {
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].binds && stmts[i].name == n) after = std::max(after, i + 1);
    }
  }
  std::string text;
  for (size_t i = 0; i <= stmts.size(); ++i) {
    if (i == after) {
      absl::StrAppend(
          &text, "let ", divisor, " = ",
          sim::expr::Print(*Expr::MustMake(ExprKind::kMul, {plan->a, scan.b()})), ";\n");
    }
    if (i == stmts.size()) break;
    const Stmt& s = stmts[i];
    if (plan->quotient_let.has_value() && s.kind == StmtKind::kLet &&
        s.name == *plan->quotient_let) {
      continue;
    }
    if (!s.value || !s.depends_on_input) {
      absl::StrAppend(&text, sim::expr::Print(s), "\n");
      continue;
    }
    Stmt flat = s;
    flat.value = scan.Rewrite(s.value);
    absl::StrAppend(&text, sim::expr::Print(flat), "\n");
  }
  // The same source name: the rewritten spec is the spec (its messages are the spec's).
  // A read of S before that point leaves the rewrite undefined: not applied.
  absl::StatusOr<SwizzleSpec> parsed = SwizzleSpec::Parse(spec.source_name(), text);
  if (!parsed.ok()) return std::nullopt;
  const SwizzleSpec& flat = *parsed;
  SwizzleProveOptions sub = options;
  sub.flatten_divisions = false;
  ASSIGN_OR_RETURN(SwizzleProof proof, ProveSpec(flat, ranges, sub));
  const std::string a = sim::expr::Print(*plan->a), b = sim::expr::Print(*scan.b());
  proof.notes.insert(
      proof.notes.begin(),
      absl::StrCat("nested divisions flattened: (iter // ", a, ") // ", b, " and % ", b,
                   " read as iter // ", divisor, " and (iter % ", divisor, ") // ", a,
                   ", iter % ", a, " as (iter % ", divisor, ") % ", a, " with ", divisor,
                   " = ", a, " * ", b, " — the same values, since ", a, " in ",
                   ha->ToString(), " and ", b, " in ", hb->ToString(),
                   " are >= 1 over the box; the rewritten spec was proved"));
  if (proof.verdict == Verdict::kViolated && proof.counterexample.has_value()) {
    // The same map: its violation is the spec's, re-checked here by evaluating the spec
    // as written at the counterexample's parameters (the first violation there).
    SpecSweep at;
    for (const Stmt* p : spec.params()) {
      ParamRange r = range.at(p->name);
      for (const sim::swizzle::NamedValue& v : proof.counterexample->params) {
        if (v.name == p->name) r = ParamRange::Of(v.value);
      }
      at.ranges.push_back({p->name, r});
    }
    ASSIGN_OR_RETURN(sim::swizzle::CheckResult r,
                     sim::swizzle::Sweep(spec, at, options.minimise_sweep));
    if (r.verdict != Verdict::kViolated || !r.counterexample.has_value() ||
        r.counterexample->params != proof.counterexample->params) {
      return absl::InternalError(absl::StrCat(
          spec.source_name(), ": the flattened spec is violated (",
          proof.counterexample->ToString(),
          ") but the spec as written is not at those parameters: a rewrite bug"));
    }
    proof.counterexample = r.counterexample;
  }
  return proof;
}

std::optional<ParamRange> ScanHullThroughLets(
    const SwizzleSpec& spec, const Stmt& let,
    const absl::flat_hash_map<std::string, ParamRange>& range, int64_t max_points,
    int depth) {
  const sim::expr::Program& program = spec.program();
  if (let.kind != StmtKind::kLet || !let.value || !program.FreeInputs(*let.value).empty())
    return std::nullopt;
  // Directly when the box of its parameters is small enough.
  const std::vector<std::string> params = program.FreeParams(*let.value);
  int64_t points = 1;
  for (const std::string& p : params) points = SatMul(points, range.at(p).size());
  if (points <= max_points) {
    return ScanParamHull(spec, program.InlineLets(let.value), params, range, max_points);
  }
  if (depth <= 0) return std::nullopt;
  // Else over the hulls of the names it reads: parameters their ranges, lets their own
  // hulls (recursively).
  std::vector<std::pair<std::string, ParamRange>> box;
  points = 1;
  for (const std::string& n : sim::expr::FreeVariables(*let.value)) {
    std::optional<ParamRange> h;
    if (range.contains(n)) {
      h = range.at(n);
    } else if (const Stmt* b = program.FindBinding(n); b != nullptr) {
      h = ScanHullThroughLets(spec, *b, range, max_points, depth - 1);
    }
    if (!h.has_value()) return std::nullopt;
    box.push_back({n, *h});
    points = SatMul(points, h->size());
  }
  if (points > max_points) return std::nullopt;
  sim::expr::Env env;
  for (const auto& [n, r] : box) env[n] = r.lo;
  std::optional<ParamRange> hull;
  for (int64_t k = 0; k < points; ++k) {
    absl::StatusOr<int64_t> v = sim::expr::Evaluate(*let.value, env, spec.source_name());
    if (!v.ok()) return std::nullopt;
    hull = hull ? ParamRange{std::min(hull->lo, *v), std::max(hull->hi, *v)}
                : ParamRange::Of(*v);
    for (const auto& [n, r] : box) {  // odometer
      if (env[n] < r.hi) {
        ++env[n];
        break;
      }
      env[n] = r.lo;
    }
  }
  return hull;
}

std::optional<size_t> OutputChainCoordinateRead(const SwizzleSpec& spec, size_t k,
                                                const std::string& n) {
  const std::vector<std::string>& coords = spec.coordinates();
  for (size_t c = 0; c < coords.size(); ++c) {
    if (c == k) continue;
    if (coords[c] == n) return c;
    for (const Stmt* o : spec.program().Clauses("out")) {
      if (o->name == coords[c] && o->value->kind() == ExprKind::kVar &&
          o->value->name() == n) {
        const Stmt* b = spec.program().FindBinding(n);
        if (b != nullptr && b->kind == StmtKind::kLet) return c;
      }
    }
  }
  return std::nullopt;
}

}  // namespace warpcheck::verify::internal
