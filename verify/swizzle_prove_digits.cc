// ProveRotationByDigits (swizzle_prove_internal.h): link 2 of the output chain — "R is a
// bijection of [0, n)" — proved from R's expression structure as a tree of digit steps
// and rotation lemmas, with the extents' identities proved as parameter facts
// (verify/README.md, "Thirteenth pass").
//
// R is read with every let inlined, over one variable x (the placement, `iter` in link
// 2's spec) and parameters. A *digit map* F of a variable v with extent E (an expression
// of parameters) is one of:
//
//   identity   F = v                          E = the extent asked for (below)
//   rotation   F = (v + off) % m  (either order; off = 0 for `v % m`)
//                                             E = m
//   digits     F = A * t + B  (either order of the sum and of the product)
//                                             E = E_A * t
//     where t reads parameters only; A is a digit map of the quotient y = v // t (A
//     reads v only through `v // t`), with the extent asked for = (asked) // t; B is a
//     digit map of the remainder z (B reads v only through `v % t` or `v - (v // t) * t`,
//     either order of the product), with the extent asked for = t.
//
// Claim: at a parameter point where (a) every digit divisor t is >= 1, (b) every
// rotation modulus m is >= 1 and the lemma "x -> (x + off) % m is a bijection of [0, m)"
// holds for its (m, off), and (c) every B's extent E_B equals its t, F maps [0, E)
// one-to-one onto [0, E) without an evaluation error. By induction on the tree: identity
// trivially; rotation by the lemma; digits: for v in [0, E_A * t) with t >= 1, y = v // t
// lies in [0, E_A) and z = v % t = v - (v // t) * t in [0, t) = [0, E_B), each pattern
// evaluates without error and the pair (y, z) determines v; A(y) in [0, E_A) and B(z) in
// [0, t), so A(y) * t + B(z) lies in [0, E_A * t) and determines (A(y), B(z)), hence
// (y, z) (A and B injective), hence v: injective on a finite set into itself, onto. No
// intermediate value exceeds E, so nothing overflows that the lemma's own proof does not
// cover. Every subterm of R that reads x lies inside one of these patterns (the recogniser
// accepts nothing else), and the parameter-only subterms (t, m, off) are evaluated by the
// scans of (a)-(c) at every admitted point, so no evaluation error hides there either.
// Then (d) n == E at every admitted point makes R a bijection of [0, n): link 2 holds.
//
// Obligations, each proved, never assumed: (a), (c), (d) and m >= 1 are parameter facts,
// decided by evaluating them at every point of the box of the parameters they read,
// points a `require` of those parameters alone excludes left out (a superset of the
// admitted points: "holds" carries over); a box too large to scan leaves the chain open.
// Each rotation lemma is a spec of its own (`domain = rotation_extent; out c = (iter +
// rotation_offset) % rotation_extent`) proved by ProveSpec over the hulls of m and off
// with both symbolic, as the output chain's rotation lemma is (swizzle_prove_rotation.cc).
//
// A fact that fails at a scanned point is not yet a violation (R can map a shorter
// [0, n) onto itself at some points, e.g. with offset 0). The spec itself is then swept
// by enumeration with the fact's parameters pinned at that point (the others at most 16
// values each, else their first 16): a violation found there is the spec's own,
// evaluated, and is minimised by a second sweep over the box capped at it (every
// parameter lo..its value: the smallest counterexample of that box, the same guarantee
// as a solver witness's minimisation). No violation at the first few failing points:
// open.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "sim/expr/eval.h"
#include "sim/expr/printer.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify::internal {
namespace {

using sim::expr::Expr;
using sim::expr::ExprKind;
using sim::expr::ExprPtr;
using sim::expr::Stmt;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;

// Most parameter points one fact's scan evaluates (64^2 * 32^2, the 16x box of
// tdist_ag_gemm_multinode's extent identity, is 2^22).
constexpr int64_t kMaxFactScan = int64_t{1} << 24;
// Most failing points of a fact the spec is swept at before the chain is left open.
constexpr int kMaxFailingPoints = 8;
// Deepest digit tree recognised.
constexpr int kMaxDepth = 8;

bool ReadsIter(const Expr& e) {
  return absl::c_linear_search(sim::expr::FreeVariables(e), std::string("iter"));
}

bool OneOf(const Expr& e, const std::vector<ExprPtr>& vars) {
  return absl::c_any_of(vars, [&](const ExprPtr& v) { return v->Equals(e); });
}

ExprPtr Make(ExprKind kind, ExprPtr a, ExprPtr b) {
  return Expr::MustMake(kind, {std::move(a), std::move(b)});
}

// What the recogniser found: the obligations of the claim above.
struct DigitTree {
  std::vector<ExprPtr> divisors;                        // (a) t >= 1
  std::vector<std::pair<ExprPtr, ExprPtr>> rotations;   // (b) (m, off)
  std::vector<std::pair<ExprPtr, ExprPtr>> equalities;  // (c), (d): a == b
  std::vector<std::string> steps;                       // for the note
};

// Ensures: F's extent when F is a digit map of the variable that `vars` spell (each an
//          expression equal to it), `want` the extent asked for (null: none); nullopt
//          when F has no such form.
std::optional<ExprPtr> Decompose(const ExprPtr& f, const std::vector<ExprPtr>& vars,
                                 const ExprPtr& want, int depth, DigitTree* tree) {
  if (depth > kMaxDepth) return std::nullopt;
  if (OneOf(*f, vars)) {
    if (want == nullptr) return std::nullopt;
    return want;
  }
  if (!ReadsIter(*f)) return std::nullopt;
  if (f->kind() == ExprKind::kMod && !ReadsIter(f->operand(1))) {
    const ExprPtr& m = f->operands()[1];
    const Expr& a = f->operand(0);
    ExprPtr off;
    if (OneOf(a, vars)) {
      off = Expr::IntConst(0);
    } else if (a.kind() == ExprKind::kAdd) {
      for (int k = 0; k < 2 && off == nullptr; ++k) {
        if (OneOf(a.operand(k), vars) && !ReadsIter(a.operand(1 - k))) {
          off = a.operands()[1 - k];
        }
      }
    }
    if (off != nullptr) {
      tree->rotations.emplace_back(m, off);
      tree->steps.push_back(absl::StrCat("rotation (v + ", sim::expr::Print(*off), ") % ",
                                         sim::expr::Print(*m)));
      return m;
    }
    return std::nullopt;
  }
  if (f->kind() != ExprKind::kAdd) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const Expr& prod = f->operand(k);
    const ExprPtr& b = f->operands()[1 - k];
    if (prod.kind() != ExprKind::kMul) continue;
    for (int j = 0; j < 2; ++j) {
      const ExprPtr& a = prod.operands()[j];
      const ExprPtr& t = prod.operands()[1 - j];
      if (ReadsIter(*t) || !ReadsIter(*a) || !ReadsIter(*b)) continue;
      std::vector<ExprPtr> quotient, remainder;
      for (const ExprPtr& v : vars) {
        const ExprPtr q = Make(ExprKind::kFloorDiv, v, t);
        quotient.push_back(q);
        remainder.push_back(Make(ExprKind::kMod, v, t));
        remainder.push_back(Make(ExprKind::kSub, v, Make(ExprKind::kMul, q, t)));
        remainder.push_back(Make(ExprKind::kSub, v, Make(ExprKind::kMul, t, q)));
      }
      DigitTree sub = *tree;
      const std::optional<ExprPtr> eb = Decompose(b, remainder, t, depth + 1, &sub);
      if (!eb.has_value()) continue;
      const ExprPtr want_a = want == nullptr ? nullptr : Make(ExprKind::kFloorDiv, want, t);
      const std::optional<ExprPtr> ea = Decompose(a, quotient, want_a, depth + 1, &sub);
      if (!ea.has_value()) continue;
      sub.divisors.push_back(t);
      if (!(*eb)->Equals(*t)) sub.equalities.emplace_back(*eb, t);
      sub.steps.push_back(absl::StrCat("digits of v in radix ", sim::expr::Print(*t)));
      *tree = std::move(sub);
      return Make(ExprKind::kMul, *ea, t);
    }
  }
  return std::nullopt;
}

// A parameter fact decided by evaluation over the box of the parameters it reads.
struct FactScan {
  enum class Kind : uint8_t { kHolds, kFails, kTooLarge };
  Kind kind = Kind::kHolds;
  std::vector<sim::expr::Env> failing;  // kFails: the first failing points (at most
                                        // kMaxFailingPoints), in scan order
  std::string why;                      // kTooLarge
};

// Ensures: kHolds when `fact` (a bool of parameters, lets inlined) is true and evaluates
//          at every point of the box of the parameters it reads that the `require`s of
//          those parameters alone admit; kFails with the first points where it is false
//          or fails to evaluate; kTooLarge past kMaxFactScan points, or when a require
//          fails to evaluate.
FactScan ScanFact(const SwizzleSpec& spec, const ExprPtr& fact,
                  const absl::flat_hash_map<std::string, ParamRange>& range) {
  const sim::expr::Program& program = spec.program();
  FactScan out;
  std::vector<std::string> names;
  for (const std::string& v : sim::expr::FreeVariables(*fact)) names.push_back(v);
  // Declaration order, so that the scan (first name fastest) meets small points first.
  std::vector<std::string> ordered;
  for (const Stmt* p : spec.params()) {
    if (absl::c_linear_search(names, p->name)) ordered.push_back(p->name);
  }
  if (ordered.size() != names.size()) {
    out.kind = FactScan::Kind::kTooLarge;
    out.why = "the fact reads a name that is not a parameter";
    return out;
  }
  int64_t points = 1;
  for (const std::string& n : ordered) points = SatMul(points, range.at(n).size());
  if (points > kMaxFactScan) {
    out.kind = FactScan::Kind::kTooLarge;
    out.why = absl::StrCat(points, " parameter points (more than ", kMaxFactScan, ")");
    return out;
  }
  auto slot = [&](const std::string& n) -> int {
    auto it = absl::c_find(ordered, n);
    return it == ordered.end() ? -1 : static_cast<int>(it - ordered.begin());
  };
  std::vector<sim::expr::CompiledExpr> admits;
  for (const Stmt* r : program.Clauses("require")) {
    bool inside = true;
    for (const std::string& p : program.FreeParams(*r->value)) {
      inside &= absl::c_linear_search(ordered, p);
    }
    if (inside) {
      admits.push_back(sim::expr::CompiledExpr::Compile(program.InlineLets(r->value),
                                                          slot, spec.source_name()));
    }
  }
  const sim::expr::CompiledExpr code =
      sim::expr::CompiledExpr::Compile(fact, slot, spec.source_name());
  std::vector<int64_t> frame(ordered.size());
  for (size_t i = 0; i < ordered.size(); ++i) frame[i] = range.at(ordered[i]).lo;
  for (int64_t k = 0; k < points; ++k) {
    bool admitted = true;
    for (const sim::expr::CompiledExpr& r : admits) {
      int64_t v = 0;
      if (!r.TryEval(frame.data(), &v)) {
        out.kind = FactScan::Kind::kTooLarge;
        out.why = "a require fails to evaluate";
        return out;
      }
      admitted &= v != 0;
    }
    int64_t v = 0;
    if (admitted && (!code.TryEval(frame.data(), &v) || v == 0)) {
      out.kind = FactScan::Kind::kFails;
      sim::expr::Env at;
      for (size_t i = 0; i < ordered.size(); ++i) at[ordered[i]] = frame[i];
      out.failing.push_back(std::move(at));
      if (out.failing.size() >= kMaxFailingPoints) return out;
    }
    for (size_t i = 0; i < ordered.size(); ++i) {  // odometer, first name fastest
      if (frame[i] < range.at(ordered[i]).hi) {
        ++frame[i];
        break;
      }
      frame[i] = range.at(ordered[i]).lo;
    }
  }
  return out;
}

std::string PointText(const sim::expr::Env& at, const SwizzleSpec& spec) {
  std::vector<std::string> parts;
  for (const Stmt* p : spec.params()) {
    if (auto it = at.find(p->name); it != at.end()) {
      parts.push_back(absl::StrCat(p->name, "=", it->second));
    }
  }
  return absl::StrJoin(parts, ", ");
}

// The spec swept with the parameters of `at` pinned (the others whole when at most 16
// values, else their first 16), then, on a violation, over the box capped at it.
// Ensures: the violation, evaluated on the spec; nullopt when the sweep finds none or
// does not fit the options' sweep limits.
std::optional<sim::swizzle::Counterexample> SweepAt(
    const SwizzleSpec& spec, const absl::flat_hash_map<std::string, ParamRange>& range,
    const sim::expr::Env& at, const SwizzleProveOptions& options, bool* minimised) {
  SpecSweep box;
  int64_t points = 1;
  for (const Stmt* p : spec.params()) {
    ParamRange r = range.at(p->name);
    if (auto it = at.find(p->name); it != at.end()) {
      r = ParamRange::Of(it->second);
    } else {
      r.hi = std::min(r.hi, r.lo + 15);
    }
    points = SatMul(points, r.size());
    box.ranges.push_back({p->name, r});
  }
  if (points > options.minimise_sweep.max_param_points) return std::nullopt;
  absl::StatusOr<sim::swizzle::CheckResult> r =
      sim::swizzle::Sweep(spec, box, options.minimise_sweep);
  if (!r.ok() || r->verdict != Verdict::kViolated || !r->counterexample.has_value()) {
    return std::nullopt;
  }
  sim::swizzle::Counterexample cex = *r->counterexample;
  *minimised = false;
  if (!options.minimise) return cex;
  // The box capped at the violation: every parameter lo..its value.
  SpecSweep capped;
  for (const Stmt* p : spec.params()) {
    ParamRange c = range.at(p->name);
    for (const sim::swizzle::NamedValue& v : cex.params) {
      if (v.name == p->name) c.hi = std::max(c.lo, std::min(c.hi, v.value));
    }
    capped.ranges.push_back({p->name, c});
  }
  absl::StatusOr<sim::swizzle::CheckResult> m =
      sim::swizzle::Sweep(spec, capped, options.minimise_sweep);
  if (m.ok() && m->verdict == Verdict::kViolated && m->counterexample.has_value()) {
    cex = *m->counterexample;
    *minimised = true;
  }
  return cex;
}

}  // namespace

absl::StatusOr<std::optional<DigitChainResult>> ProveRotationByDigits(
    const SwizzleSpec& spec, const SwizzleSpec& rotation,
    const absl::flat_hash_map<std::string, ParamRange>& range,
    const SwizzleProveOptions& options) {
  if (!options.digit_chain) return std::nullopt;
  const sim::expr::Program& program = rotation.program();
  const std::vector<const Stmt*> outs = program.Clauses("out");
  if (outs.size() != 1 || rotation.grids().size() != 1 || rotation.coordinates().size() != 1) {
    return std::nullopt;
  }
  const std::string& c = outs[0]->name;
  const ExprPtr r = program.InlineLets(outs[0]->value);
  const ExprPtr n = program.InlineLets(rotation.grids()[0]->value);
  const ExprPtr x = Expr::Var("iter", sim::expr::Type::kInt);
  DigitTree tree;
  const std::optional<ExprPtr> e = Decompose(r, {x}, n, 0, &tree);
  // At least one digit step: a lone rotation is the output chain's own rotation lemma
  // (or, with a modulus other than the extent, R proved as written).
  if (!e.has_value() || tree.divisors.empty()) return std::nullopt;
  if (!(*e)->Equals(*n)) tree.equalities.emplace_back(n, *e);

  DigitChainResult result;
  result.verdict = Verdict::kInconclusive;
  std::vector<std::string> steps = tree.steps;
  std::reverse(steps.begin(), steps.end());
  const std::string shape = absl::StrCat(c, " = R(x) on [0, ", sim::expr::Print(*n),
                                         ") as digit maps: ", absl::StrJoin(steps, "; "));
  // The parameter facts: (a) divisors >= 1, then (c), (d) the extent identities.
  std::vector<std::pair<ExprPtr, std::string>> facts;
  for (const ExprPtr& t : tree.divisors) {
    facts.emplace_back(Make(ExprKind::kGe, t, Expr::IntConst(1)),
                       absl::StrCat(sim::expr::Print(*t), " >= 1"));
  }
  for (const auto& [a, b] : tree.equalities) {
    facts.emplace_back(Make(ExprKind::kEq, a, b),
                       absl::StrCat(sim::expr::Print(*a), " == ", sim::expr::Print(*b)));
  }
  std::vector<std::string> proven;
  for (const auto& [fact, text] : facts) {
    const FactScan scan = ScanFact(spec, fact, range);
    if (scan.kind == FactScan::Kind::kTooLarge) {
      result.why = absl::StrCat("digit chain (", shape, "): the fact ", text,
                                " is not scanned: ", scan.why);
      return result;
    }
    if (scan.kind == FactScan::Kind::kFails) {
      for (const sim::expr::Env& at : scan.failing) {
        bool minimised = false;
        std::optional<sim::swizzle::Counterexample> cex =
            SweepAt(spec, range, at, options, &minimised);
        if (!cex.has_value()) continue;
        result.verdict = Verdict::kViolated;
        result.counterexample = std::move(cex);
        result.minimised = minimised;
        result.note = absl::StrCat(
            "digit chain (", shape, "): the fact ", text, " fails at ", PointText(at, spec),
            "; the spec swept there by enumeration is violated",
            minimised ? ", minimised by a sweep over the box capped at that violation" : "");
        return result;
      }
      result.why = absl::StrCat("digit chain (", shape, "): the fact ", text, " fails at ",
                                PointText(scan.failing.front(), spec),
                                " and the spec swept at its first failing points is not "
                                "violated there");
      return result;
    }
    proven.push_back(text);
  }
  // (b) the rotation lemmas, each over the hulls of its modulus and offset.
  std::vector<std::pair<ParamRange, ParamRange>> done;
  for (const auto& [m, off] : tree.rotations) {
    const std::optional<ParamRange> hm =
        ScanParamHull(spec, m, program.FreeParams(*m), range, kMaxFactScan);
    const std::optional<ParamRange> ho =
        ScanParamHull(spec, off, program.FreeParams(*off), range, kMaxFactScan);
    if (!hm.has_value() || !ho.has_value() || hm->lo < 1) {
      result.why = absl::StrCat("digit chain (", shape, "): no hull >= 1 for the modulus ",
                                sim::expr::Print(*m), " or none for the offset ",
                                sim::expr::Print(*off));
      return result;
    }
    if (absl::c_linear_search(done, std::make_pair(*hm, *ho))) continue;
    done.emplace_back(*hm, *ho);
    SwizzleProveOptions sub = options;
    sub.symbolic_params = {"rotation_extent", "rotation_offset"};
    sub.total_rlimit = RemainingBudget(options, result.lemmas.rlimit_spent);
    ASSIGN_OR_RETURN(
        SwizzleSpec lemma,
        SwizzleSpec::Parse(
            absl::StrCat(spec.source_name(), " (rotation lemma % ", sim::expr::Print(*m), ")"),
            absl::StrCat("param rotation_extent in ", hm->lo, "..", hm->hi, ";\n",
                         "param rotation_offset in ", ho->lo, "..", ho->hi, ";\n",
                         "domain = rotation_extent;\ngrid ", c, " = rotation_extent;\n",
                         "out ", c, " = (iter + rotation_offset) % rotation_extent;\n")));
    ASSIGN_OR_RETURN(SwizzleProof p, ProveSpec(lemma, {}, sub));
    AddSubProofCounters(p, &result.lemmas);
    if (p.verdict != Verdict::kHolds) {
      result.why = absl::StrCat("digit chain (", shape, "): the rotation lemma over ",
                                sim::expr::Print(*m), " in ", hm->ToString(), ", offset ",
                                sim::expr::Print(*off), " in ", ho->ToString(), " is ",
                                sim::swizzle::VerdictName(p.verdict),
                                p.reason.empty() ? "" : absl::StrCat(": ", p.reason));
      return result;
    }
    proven.push_back(absl::StrCat("(v + off) % m a bijection of [0, m) for m in ",
                                  hm->ToString(), ", off in ", ho->ToString()));
  }
  result.verdict = Verdict::kHolds;
  result.note = absl::StrCat("digit chain (", shape, "), proved: ",
                             absl::StrJoin(proven, "; "));
  return result;
}

}  // namespace warpcheck::verify::internal
