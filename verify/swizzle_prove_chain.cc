// The contiguity chain (SwizzleProveOptions::contiguity_chain; verify/README.md,
// "Eleventh pass"): a `skip` map whose kept iterations a let L numbers consecutively,
// proved through L instead of as one map.
//
// The shape. Stream-K (corpus/swizzle/stream_k.swz) runs `ctas` CTAs of `slots` slots
// each: the iteration's digits are (c, j) = (iter // slots, iter % slots), CTA c skips
// its slots `j >= length(c)`, and the slots it keeps are the work units `global =
// start(c) + j`, which the map then places on the box (tile, k-iteration). In general,
// recognised from the spec's structure alone:
//   - the spec has one `skip` clause, `X >= n` (or `n <= X`), and no `inverse`;
//   - L is a per-iteration let after the skip, and every per-iteration statement after
//     L reads the iteration only through L and the names those statements bind (the
//     placement P); no `out` or `tail` clause comes before L;
//   - every read of `iter` by the per-iteration statements up to L is `iter // S` or
//     `iter % S` for one S (lets inlined), and the domain is Y * S as factors (S's
//     factors all among the domain's): the iterations are the digits (c, j), 0 <= c < Y,
//     0 <= j < S;
//   - X is `iter % S` (that is j) and n reads the iteration only through `iter // S`:
//     n = n(c);
//   - B, the box's size, is the product of the grid extents.
// The statements up to L are encoded with the digits as two names, so that a copy at
// (c, 0) or (c + 1, 0) is the same statements with other values bound (no product c*S
// is ever formed). The links, each a query that must be unsat at every admitted point
// of a configuration (a sat or unknown answer ends the chain with a note, never a
// verdict: the direct route then runs as before):
//   shape      phase 1 never fails, S and Y are defined and S >= 1;
//   no_error   no statement up to L fails at any iteration (in the evaluator's order);
//   length     at every (c, j): L and n are defined at (c, 0), and (c, j) gets past the
//              skip exactly when j < n(c); CTA c then keeps k(c) = max(0, min(n(c), S))
//              slots, j in [0, k(c));
//   shift      L(c, j) = L(c, 0) + j where (c, j) gets past the skip;
//   first      Y >= 1, k(0) > 0 and L(0, 0) = 0;
//   next       for 0 <= c < Y - 1: when k(c + 1) > 0, also k(c) > 0 and
//              L(c + 1, 0) = L(c, 0) + k(c) (the CTAs that keep slots are a prefix);
//   last       for 0 <= c < Y: when k(c) > 0 and c is the last such CTA (c = Y - 1 or
//              k(c + 1) = 0), L(c, 0) + k(c) = B;
//   placement  the spec `domain = B; let L = iter;` followed by P, with the spec's
//              requires and grids and the phase-1 lets and parameters these read
//              (the other lets cannot fail: shape), holds on the same box: a spec of
//              its own, proved by ProveSpec.
// Why that is the spec's `holds`. Write s(c) = L(c, 0). By length, CTA c keeps exactly
// the j in [0, k(c)), and by shift those have L in [s(c), s(c) + k(c)). By next the CTAs
// with k(c) > 0 are 0..m-1 for some m (m >= 1 by first), and their intervals follow one
// another from s(0) = 0; the last of them ends at B (last). So L maps the kept
// iterations one-to-one onto [0, B), whatever the starts of the CTAs that keep nothing
// (Stream-K's when total < ctas, a blocked split's past the work). P reads nothing per
// iteration but L, so at a kept iteration it evaluates as the placement spec does at
// iter = L: no error, no skip, in the box, tails right, and one-to-one onto the box (the
// placement spec's injectivity and count). So the spec has no evaluation error, every
// kept iteration yields a tile of the box, and the kept iterations cover the box once:
// in range, injective and onto at once, no counting of skipped iterations needed.
//
// Cost: the configurations enumerate only the parameters that a division up to L (or of
// the domain, S and the extents) divides by, at most kMaxChainConfigs of them (Stream-K:
// `ctas`; m_tiles, n_tiles and iters_per_tile stay symbolic), and each link's query runs
// under kLinkRlimit. The placement spec is proved with ProveSpec's own choices
// (reduction, digits, cube split).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "sim/expr/printer.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "verify/smt/expr_encoder.h"
#include "verify/smt/smt.h"
#include "verify/swizzle_prove.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify::internal {
namespace {

using sim::expr::Expr;
using sim::expr::ExprKind;
using sim::expr::ExprPtr;
using sim::expr::Program;
using sim::expr::Stmt;
using sim::expr::StmtKind;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;
using smt::Context;
using smt::ExprEncoder;
using smt::SatResult;
using smt::Term;
using smt::ValueRange;

// The names the digits take in the substituted statements: not identifiers of the
// expression language, so no spec binds them.
constexpr char kDigitC[] = "$c";
constexpr char kDigitJ[] = "$j";
// A link's query budget (at most the options' rlimit). The links of Stream-K take
// 10^3..10^5 each; a link that needs more is no link (the chain ends, the direct route
// runs). Measured by hand on wrong starts (verify/README.md, "Tenth pass"): a sat answer
// to `next` took minutes without a bound.
constexpr uint64_t kLinkRlimit = 2'000'000;
// At most this many configurations of the parameters divisions up to L divide by; past
// it, the rest stay symbolic (divisor cases, or Z3's nonlinear core).
constexpr int64_t kMaxChainConfigs = 64;

// What PlanChain recognised (see the essay above).
struct ChainPlan {
  ExprPtr s;               // S, lets inlined
  std::vector<ExprPtr> y;  // the domain's factors other than S's, lets inlined
  size_t skip_index = 0;   // the skip clause
  size_t let_index = 0;    // L's statement
  std::string let_name;    // L
  std::vector<bool> per_iter;
  // Per statement up to L that runs per iteration: its value with every `iter // S`
  // and `iter % S` replaced by the names kDigitC and kDigitJ (null for the others).
  std::vector<ExprPtr> values;
  ExprPtr bound;  // the skip's n, substituted likewise
  // The parameters some division up to L (or of the domain, S, the extents) divides by.
  std::vector<std::string> divisor_params;
  std::string placement_text;  // the placement spec (`domain = B; let L = iter;` + P)
  std::vector<std::string> placement_params;  // its parameters (those it reads)
};

bool IsIter(const Expr& e) { return e.kind() == ExprKind::kVar && e.name() == "iter"; }

// Ensures: true when `e` is `iter // D` or `iter % D` with D (lets inlined) equal to s.
bool IsDigitRead(const Expr& e, const Program& program, const Expr& s) {
  return (e.kind() == ExprKind::kFloorDiv || e.kind() == ExprKind::kMod) &&
         IsIter(e.operand(0)) && program.InlineLets(e.operands()[1])->Equals(s);
}

void Factors(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind() == ExprKind::kMul) {
    Factors(e->operands()[0], out);
    Factors(e->operands()[1], out);
  } else {
    out->push_back(e);
  }
}

// Ensures: `e` with every digit read of S replaced by kDigitC / kDigitJ; nullptr when
//          `e` reads `iter` some other way. Memoised by address (shared subterms stay
//          shared).
ExprPtr SubstituteDigits(const ExprPtr& e, const Program& program, const Expr& s,
                         absl::flat_hash_map<const Expr*, ExprPtr>& memo) {
  if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
  ExprPtr out;
  if (IsDigitRead(*e, program, s)) {
    out = Expr::Var(e->kind() == ExprKind::kFloorDiv ? kDigitC : kDigitJ,
                    sim::expr::Type::kInt, e->loc());
  } else if (IsIter(*e)) {
    out = nullptr;
  } else if (e->num_operands() == 0) {
    out = e;
  } else {
    std::vector<ExprPtr> ops;
    bool changed = false, ok = true;
    for (const ExprPtr& op : e->operands()) {
      ExprPtr x = SubstituteDigits(op, program, s, memo);
      if (x == nullptr) {
        ok = false;
        break;
      }
      changed |= x != op;
      ops.push_back(std::move(x));
    }
    if (ok) out = changed ? Expr::MustMake(e->kind(), std::move(ops), e->loc()) : e;
  }
  memo[e.get()] = out;
  return out;
}

// L (ChainPlan::let_index): the first per-iteration let after the skip past which
// every per-iteration statement reads the iteration only through L and the names bound
// after it; no `out` or `tail` up to L. Ensures: false when there is none.
bool FindPlacementLet(const Program& program,
                      const absl::flat_hash_set<std::string>& iter_names, ChainPlan& plan) {
  const std::vector<Stmt>& stmts = program.statements();
  // L: the first per-iteration let after the skip past which every per-iteration
  // statement reads the iteration only through L and the names bound after it.
  std::optional<size_t> let;
  for (size_t l = plan.skip_index + 1; l < stmts.size() && !let.has_value(); ++l) {
    if (!plan.per_iter[l] || stmts[l].kind != StmtKind::kLet ||
        stmts[l].value->type() != sim::expr::Type::kInt) {
      continue;
    }
    absl::flat_hash_set<std::string> placed = {stmts[l].name};
    bool ok = true;
    for (size_t k = l + 1; k < stmts.size() && ok; ++k) {
      if (!plan.per_iter[k]) continue;
      for (const std::string& v : sim::expr::FreeVariables(*stmts[k].value)) {
        ok &= !iter_names.contains(v) || placed.contains(v);
      }
      if (stmts[k].binds) placed.insert(stmts[k].name);
    }
    if (ok) let = l;
  }
  if (!let.has_value()) return false;
  plan.let_index = *let;
  plan.let_name = stmts[*let].name;
  for (size_t k = 0; k <= plan.let_index; ++k) {
    const Stmt& st = stmts[k];
    if (st.kind == StmtKind::kClause && (st.keyword == "out" || st.keyword == "tail")) {
      return false;
    }
  }
  return true;
}

// S: the one divisor of the reads of `iter` up to L, and the statements up to L with
// the digits substituted (ChainPlan::values). Ensures: false when there is no such S.
bool FindDigitDivisor(const Program& program, ChainPlan& plan,
                      absl::flat_hash_map<const Expr*, ExprPtr>& memo) {
  const std::vector<Stmt>& stmts = program.statements();
  // S: the one divisor of the reads of `iter` up to L.
  std::vector<const Expr*> pending;
  for (size_t k = 0; k <= plan.let_index; ++k) {
    if (plan.per_iter[k]) pending.push_back(stmts[k].value.get());
  }
  absl::flat_hash_set<const Expr*> seen;
  while (!pending.empty()) {
    const Expr* e = pending.back();
    pending.pop_back();
    if (!seen.insert(e).second) continue;
    if ((e->kind() == ExprKind::kFloorDiv || e->kind() == ExprKind::kMod) &&
        IsIter(e->operand(0))) {
      ExprPtr d = program.InlineLets(e->operands()[1]);
      if (plan.s == nullptr) plan.s = d;
      if (!plan.s->Equals(*d)) return false;
    }
    for (int i = 0; i < e->num_operands(); ++i) pending.push_back(&e->operand(i));
  }
  if (plan.s == nullptr) return false;
  plan.values.resize(stmts.size());
  for (size_t k = 0; k <= plan.let_index; ++k) {
    if (!plan.per_iter[k]) continue;
    plan.values[k] = SubstituteDigits(stmts[k].value, program, *plan.s, memo);
    if (plan.values[k] == nullptr) return false;
  }
  return true;
}

// The skip's bound n (ChainPlan::bound) from `X >= n` or `n <= X`, X = iter % S, n
// reading `iter` only as iter // S. Ensures: false when the skip has another shape.
bool MatchSkip(const Program& program, ChainPlan& plan,
               absl::flat_hash_map<const Expr*, ExprPtr>& memo) {
  const std::vector<Stmt>& stmts = program.statements();
  // The skip: `X >= n` or `n <= X`, X = iter % S, n reading `iter` only as iter // S.
  const Expr& skip = *stmts[plan.skip_index].value;
  ExprPtr x, n;
  if (skip.kind() == ExprKind::kGe) x = skip.operands()[0], n = skip.operands()[1];
  if (skip.kind() == ExprKind::kLe) x = skip.operands()[1], n = skip.operands()[0];
  if (x == nullptr) return false;
  const ExprPtr xi = program.InlineLets(x);
  if (xi->kind() != ExprKind::kMod || !IsDigitRead(*xi, program, *plan.s)) {
    return false;
  }
  // n_root stays alive while `pending` points into it.
  const ExprPtr n_root = program.InlineLets(n);
  std::vector<const Expr*> pending = {n_root.get()};
  absl::flat_hash_set<const Expr*> seen;
  while (!pending.empty()) {
    const Expr* e = pending.back();
    pending.pop_back();
    if (!seen.insert(e).second) continue;
    if (e->kind() == ExprKind::kFloorDiv && IsDigitRead(*e, program, *plan.s)) {
      pending.push_back(&e->operand(1));
      continue;
    }
    if (IsIter(*e)) return false;  // j, or iter itself
    for (int i = 0; i < e->num_operands(); ++i) pending.push_back(&e->operand(i));
  }
  plan.bound = SubstituteDigits(n, program, *plan.s, memo);
  if (plan.bound == nullptr) return false;
  return true;
}

// Y (ChainPlan::y): the domain's factors once S's are taken out. Ensures: false when
// some factor of S is not one of the domain's.
bool SplitDomain(const SwizzleSpec& spec, ChainPlan& plan) {
  const Program& program = spec.program();
  // domain = Y * S as factors.
  std::vector<ExprPtr> domain, s_factors;
  Factors(program.InlineLets(spec.domain().value), &domain);
  Factors(plan.s, &s_factors);
  for (const ExprPtr& f : s_factors) {
    auto it = std::find_if(domain.begin(), domain.end(),
                           [&](const ExprPtr& d) { return d->Equals(*f); });
    if (it == domain.end()) return false;
    domain.erase(it);
  }
  plan.y = std::move(domain);
  return true;
}

// ChainPlan::divisor_params: the parameters divisions divide by, up to L, in the
// domain, S and the extents (digit reads of `iter` by S aside).
void FindDivisorParams(const SwizzleSpec& spec, ChainPlan& plan) {
  const Program& program = spec.program();
  const std::vector<Stmt>& stmts = program.statements();
  // The parameters divisions divide by: up to L, in the domain, S and the extents.
  std::vector<ExprPtr> roots = {program.InlineLets(spec.domain().value), plan.s};
  for (size_t k = 0; k <= plan.let_index; ++k) {
    if (plan.per_iter[k]) roots.push_back(program.InlineLets(stmts[k].value));
  }
  for (const Stmt* g : spec.grids()) roots.push_back(program.InlineLets(g->value));
  absl::flat_hash_set<std::string> params;
  for (const Stmt* p : spec.params()) params.insert(p->name);
  absl::flat_hash_set<std::string> divisor_params;
  absl::flat_hash_set<const Expr*> seen;
  std::vector<const Expr*> pending;
  for (const ExprPtr& r : roots) pending.push_back(r.get());
  while (!pending.empty()) {
    const Expr* e = pending.back();
    pending.pop_back();
    if (!seen.insert(e).second) continue;
    const ExprKind k = e->kind();
    if ((k == ExprKind::kFloorDiv || k == ExprKind::kMod || k == ExprKind::kCdiv) &&
        !(IsIter(e->operand(0)) && e->operand(1).Equals(*plan.s))) {
      for (const std::string& v : sim::expr::FreeVariables(e->operand(1))) {
        if (params.contains(v)) divisor_params.insert(v);
      }
    }
    for (int i = 0; i < e->num_operands(); ++i) pending.push_back(&e->operand(i));
  }
  for (const Stmt* p : spec.params()) {
    if (divisor_params.contains(p->name)) plan.divisor_params.push_back(p->name);
  }
}

// ChainPlan::placement_text and placement_params: the placement link's spec.
void WritePlacementSpec(const SwizzleSpec& spec, ChainPlan& plan) {
  const Program& program = spec.program();
  const std::vector<Stmt>& stmts = program.statements();
  // The placement spec: the spec's requires and grids, domain = B, L = iter, and P,
  // with the phase-1 lets and the parameters these read (the other lets are the
  // `shape` link's: they cannot fail; a parameter nothing here reads is not one of the
  // placement spec's, which then holds whatever its value).
  absl::flat_hash_set<std::string> needed;
  std::vector<std::string> worklist;
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& st = stmts[k];
    const bool kept_clause = !plan.per_iter[k] && st.kind == StmtKind::kClause &&
                             (st.keyword == "require" || st.keyword == "grid");
    if (!kept_clause && !(plan.per_iter[k] && k > plan.let_index)) continue;
    for (const std::string& v : sim::expr::FreeVariables(*st.value)) worklist.push_back(v);
  }
  while (!worklist.empty()) {
    const std::string v = std::move(worklist.back());
    worklist.pop_back();
    if (!needed.insert(v).second) continue;
    const Stmt* b = program.FindBinding(v);
    if (b == nullptr || b->kind != StmtKind::kLet || plan.per_iter[b - stmts.data()])
      continue;
    for (const std::string& w : sim::expr::FreeVariables(*b->value)) worklist.push_back(w);
  }
  std::string text;
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& st = stmts[k];
    if (plan.per_iter[k] || &st == &spec.domain()) continue;
    if (st.kind == StmtKind::kParam || st.kind == StmtKind::kLet) {
      if (!needed.contains(st.name)) continue;
      if (st.kind == StmtKind::kParam) plan.placement_params.push_back(st.name);
    }
    absl::StrAppend(&text, sim::expr::Print(st), "\n");
  }
  std::vector<std::string> extents;
  for (const Stmt* g : spec.grids()) {
    extents.push_back(absl::StrCat("(", sim::expr::Print(*g->value), ")"));
  }
  absl::StrAppend(&text, "domain = ", absl::StrJoin(extents, " * "), ";\n");
  absl::StrAppend(&text, "let ", plan.let_name, " = iter;\n");
  for (size_t k = plan.let_index + 1; k < stmts.size(); ++k) {
    if (plan.per_iter[k]) absl::StrAppend(&text, sim::expr::Print(stmts[k]), "\n");
  }
  plan.placement_text = std::move(text);
}

// Ensures: the plan when `spec` has the shape of the essay above; nullopt otherwise.
std::optional<ChainPlan> PlanChain(const SwizzleSpec& spec) {
  if (spec.inverse() != nullptr) return std::nullopt;
  const Program& program = spec.program();
  const std::vector<Stmt>& stmts = program.statements();
  const std::vector<const Stmt*> skips = program.Clauses("skip");
  if (skips.size() != 1) return std::nullopt;
  ChainPlan plan;
  plan.per_iter = PerIteration(program);
  absl::flat_hash_set<std::string> iter_names = {"iter"};
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (&stmts[k] == skips[0]) plan.skip_index = k;
    if (plan.per_iter[k] && stmts[k].binds) iter_names.insert(stmts[k].name);
  }
  absl::flat_hash_map<const Expr*, ExprPtr> memo;
  if (!FindPlacementLet(program, iter_names, plan) || !FindDigitDivisor(program, plan, memo) ||
      !MatchSkip(program, plan, memo) || !SplitDomain(spec, plan)) {
    return std::nullopt;
  }
  FindDivisorParams(spec, plan);
  WritePlacementSpec(spec, plan);
  return plan;
}

// One copy of the statements up to L at digits (c, j).
struct ChainCopy {
  Term error;    // a statement up to L fails (where the evaluator gets to it)
  Term passes;   // no error and not skipped: the evaluator gets past L
  Term defined;  // every statement up to L is defined (skipped or not)
  Term l, n;     // L's value and the skip's bound
};

// The links of one configuration (every parameter a constant or a symbolic range).
class ChainConfig {
 public:
  ChainConfig(const SwizzleSpec& spec, const ChainPlan& plan,
              const std::vector<std::string>& names, std::vector<ParamRange> ranges,
              QueryRunner& run)
      : spec_(spec),
        plan_(plan),
        names_(names),
        ranges_(std::move(ranges)),
        run_(run),
        enc_(ctx_) {
    const SwizzleProveOptions& o = run.options();
    enc_.set_small_divisor_cases(o.small_divisor_cases);
    enc_.set_small_quotient_cases(o.small_quotient_cases);
    enc_.set_small_factor_cases(o.small_factor_cases);
  }

  // Ensures: true when every link's query was unsat; false otherwise (*note says which
  //          query answered what).
  absl::StatusOr<bool> Prove(std::string* note);

 private:
  absl::StatusOr<ChainCopy> Copy(Term c, ValueRange cr, Term j, ValueRange jr);
  std::string Prefix() const;

  const SwizzleSpec& spec_;
  const ChainPlan& plan_;
  const std::vector<std::string>& names_;
  std::vector<ParamRange> ranges_;
  QueryRunner& run_;
  Context ctx_;
  ExprEncoder enc_;
};

std::string ChainConfig::Prefix() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < names_.size(); ++i) {
    parts.push_back(absl::StrCat(names_[i], "=", ranges_[i].ToString()));
  }
  std::string base = spec_.source_name();
  if (size_t slash = base.rfind('/'); slash != std::string::npos)
    base = base.substr(slash + 1);
  return absl::StrCat(base, "[", absl::StrJoin(parts, ","), "].contiguity.");
}

absl::StatusOr<ChainCopy> ChainConfig::Copy(Term c, ValueRange cr, Term j,
                                            ValueRange jr) {
  ExprEncoder enc = enc_.Fork();
  enc.Bind(kDigitC, c, cr);
  enc.Bind(kDigitJ, j, jr);
  const std::vector<Stmt>& stmts = spec_.program().statements();
  Term prefix = ctx_.Bool(true);
  std::vector<Term> errors, defined;
  ChainCopy out;
  for (size_t k = 0; k <= plan_.let_index; ++k) {
    if (!plan_.per_iter[k]) continue;
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(plan_.values[k]));
    const Term ok = e.Defined(ctx_);
    errors.push_back(prefix && !ok);
    defined.push_back(ok);
    if (k == plan_.skip_index) {
      ASSIGN_OR_RETURN(ExprEncoder::Encoded n, enc.Encode(plan_.bound));
      out.n = n.value;
      prefix = prefix && ok && !e.value;
    } else {  // a let (PlanChain admits no other clause up to L)
      enc.Bind(stmts[k].name, e.value, e.range);
      prefix = prefix && ok;
      if (k == plan_.let_index) out.l = e.value;
    }
  }
  out.error = smt::Or(ctx_, errors);
  out.passes = prefix;
  out.defined = smt::And(ctx_, defined);
  return out;
}

absl::StatusOr<bool> ChainConfig::Prove(std::string* note) {
  const Program& program = spec_.program();
  std::vector<Term> background;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (ranges_[i].lo < ranges_[i].hi) {
      const Term v = ctx_.IntVar(names_[i]);
      background.push_back(v >= ranges_[i].lo && v <= ranges_[i].hi);
      enc_.Bind(names_[i], v, ranges_[i].lo, ranges_[i].hi);
    } else {
      enc_.BindConst(names_[i], ranges_[i].lo);
    }
  }
  // Phase 1, as SpecConfig::EncodeParams (and the evaluator) run it; the box is the
  // product of the grid extents.
  std::optional<Term> box_size;
  ASSIGN_OR_RETURN(
      internal::EncodedParamPhase phase,
      internal::EncodeParamPhase(ctx_, enc_, program, [&](size_t k) { return plan_.per_iter[k]; },
                                 [&](const Stmt& s, const ExprEncoder::Encoded& e) {
                                   if (s.keyword != "grid") return;
                                   box_size = box_size.has_value() ? *box_size * e.value
                                                                   : e.value;
                                 }));
  const Term admitted = phase.admitted;
  const std::vector<Term>& param_errors = phase.param_errors;
  const Term b = box_size.value_or(ctx_.Int(1));
  ASSIGN_OR_RETURN(ExprEncoder::Encoded s, enc_.Encode(plan_.s));
  ExprPtr y_expr = plan_.y.empty() ? Expr::IntConst(1) : plan_.y[0];
  for (size_t i = 1; i < plan_.y.size(); ++i) {
    y_expr = Expr::MustMake(ExprKind::kMul, {y_expr, plan_.y[i]});
  }
  ASSIGN_OR_RETURN(ExprEncoder::Encoded y, enc_.Encode(y_expr));
  auto clamp = [](__int128 v) {
    return std::clamp<__int128>(v, std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max());
  };
  const ValueRange c_range{0, std::max<__int128>(clamp(y.range.hi - 1), 0)};
  const ValueRange j_range{0, std::max<__int128>(clamp(s.range.hi - 1), 0)};
  const Term c = ctx_.FreshInt("chain_c");
  const Term j = ctx_.FreshInt("chain_j");
  const Term zero = ctx_.Int(0);
  const ValueRange at_zero{0, 0};
  ASSIGN_OR_RETURN(const ChainCopy a, Copy(c, c_range, j, j_range));
  ASSIGN_OR_RETURN(const ChainCopy at_c, Copy(c, c_range, zero, at_zero));
  ASSIGN_OR_RETURN(const ChainCopy next,
                   Copy(c + 1, {c_range.lo + 1, clamp(c_range.hi + 1)}, zero, at_zero));
  ASSIGN_OR_RETURN(const ChainCopy first, Copy(zero, at_zero, zero, at_zero));
  const Term shape = y.Defined(ctx_) && s.Defined(ctx_) && s.value >= 1;
  const std::vector<Term> in_domain = {c >= 0, c < y.value, j >= 0, j < s.value};
  // How many slots a CTA keeps: the j in [0, S) below n(c) (a bound past either end,
  // e.g. a negative length for a CTA past the work, keeps none or all).
  auto kept = [&](Term n) { return smt::Max(ctx_.Int(0), smt::Min(n, s.value)); };
  struct Link {
    const char* name;
    std::vector<Term> assume;
    Term claim;  // the link fails where this is false
  };
  auto cat = [](std::vector<Term> v, std::initializer_list<Term> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  const std::vector<Term> point = {admitted, shape};
  std::vector<Term> in_a = point;
  in_a.insert(in_a.end(), in_domain.begin(), in_domain.end());
  const std::vector<Link> links = {
      {"shape", {}, !smt::Or(ctx_, param_errors) && (!admitted || shape)},
      {"no_error", in_a, !a.error},
      {"length", cat(in_a, {!a.error}), at_c.defined && a.passes == (j < at_c.n)},
      {"shift", cat(in_a, {!a.error, a.passes, at_c.defined}), a.l == at_c.l + j},
      {"first", point,
       y.value >= 1 && first.defined && kept(first.n) > 0 && first.l == 0},
      {"next", cat(point, {c >= 0, c + 1 < y.value, at_c.defined, next.defined}),
       smt::Implies(kept(next.n) > 0,
                    kept(at_c.n) > 0 && next.l == at_c.l + kept(at_c.n))},
      {"last",
       cat(point, {c >= 0, c < y.value, at_c.defined,
                   smt::Implies(c + 1 < y.value, next.defined)}),
       smt::Implies(kept(at_c.n) > 0 && (c + 1 == y.value || kept(next.n) == 0),
                    at_c.l + kept(at_c.n) == b)},
  };
  const uint64_t limit = run_.options().solver.rlimit > 0
                             ? std::min(run_.options().solver.rlimit, kLinkRlimit)
                             : kLinkRlimit;
  const std::string prefix_name = Prefix();
  for (const Link& link : links) {
    std::vector<Term> q = background;
    const std::vector<Term>& side = enc_.side_conditions();
    q.insert(q.end(), side.begin(), side.end());
    q.insert(q.end(), link.assume.begin(), link.assume.end());
    q.push_back(!link.claim);
    const std::string name = prefix_name + link.name;
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, limit));
    if (r.result != SatResult::kUnsat) {
      *note = absl::StrCat(
          name, ": ",
          r.result == SatResult::kSat ? std::string("sat") : UnknownReason(r));
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ProveByContiguity(const SwizzleSpec& spec, const SpecSweep& box,
                                       QueryRunner& run, SwizzleProof* proof) {
  const SwizzleProveOptions& options = run.options();
  if (!options.contiguity_chain) return false;
  const std::optional<ChainPlan> plan = PlanChain(spec);
  if (!plan.has_value()) return false;
  absl::StatusOr<SwizzleSpec> placement = SwizzleSpec::Parse(
      absl::StrCat(spec.source_name(), " (placement of ", plan->let_name, ")"),
      plan->placement_text);
  if (!placement.ok()) {
    return absl::InternalError(
        absl::StrCat("contiguity chain: the placement spec of ", spec.source_name(),
                     " does not parse: ", placement.status().message()));
  }
  std::vector<std::string> names;
  std::vector<ParamRange> ranges;
  for (const Stmt* p : spec.params()) {
    names.push_back(p->name);
    ranges.push_back({p->lo, p->hi});
    for (const auto& [n, r] : box.ranges) {
      if (n == p->name) ranges.back() = r;
    }
  }
  // The configurations: the divisor parameters enumerated while their combinations stay
  // within kMaxChainConfigs, in declaration order; the rest symbolic.
  std::vector<size_t> enumerated;
  int64_t configs = 1;
  for (size_t i = 0; i < names.size(); ++i) {
    if (ranges[i].lo == ranges[i].hi ||
        !absl::c_linear_search(plan->divisor_params, names[i])) {
      continue;
    }
    if (SatMul(configs, ranges[i].size()) > kMaxChainConfigs) continue;
    configs = SatMul(configs, ranges[i].size());
    enumerated.push_back(i);
  }
  const auto end_chain = [&](const std::string& why) {
    proof->notes.push_back(absl::StrCat("contiguity chain through `", plan->let_name,
                                        "` ended (", why, "); the direct route decides"));
    return false;
  };
  std::vector<ParamRange> at = ranges;
  for (int64_t n = 0; n < configs; ++n) {
    int64_t idx = n;
    for (size_t e = enumerated.size(); e-- > 0;) {
      const size_t i = enumerated[e];
      at[i] = ParamRange::Of(ranges[i].lo + idx % ranges[i].size());
      idx /= ranges[i].size();
    }
    if (options.total_rlimit > 0 && run.rlimit_spent() >= options.total_rlimit) {
      return end_chain("the total budget is spent");
    }
    ChainConfig config(spec, *plan, names, at, run);
    std::string note;
    ASSIGN_OR_RETURN(const bool ok, config.Prove(&note));
    if (!ok) return end_chain(note);
  }
  // The placement link: a spec of its own over the same box.
  SwizzleProveOptions sub = options;
  sub.total_rlimit = RemainingBudget(options, run.rlimit_spent());
  // Its box and symbolic parameters: the spec's, for the parameters it has.
  SpecSweep placement_box;
  for (const auto& [n, r] : box.ranges) {
    if (absl::c_linear_search(plan->placement_params, n))
      placement_box.ranges.push_back({n, r});
  }
  sub.symbolic_params.clear();
  for (const std::string& n : options.symbolic_params) {
    if (absl::c_linear_search(plan->placement_params, n))
      sub.symbolic_params.push_back(n);
  }
  absl::StatusOr<SwizzleProof> placed = ProveSpec(*placement, placement_box, sub);
  if (absl::IsInvalidArgument(placed.status())) {
    // The placement spec cannot be instantiated somewhere (B overflows, say): no
    // link, and no statement about the spec, whose own phase 1 the `shape` link proved.
    return end_chain(absl::StrCat("the placement spec: ", placed.status().message()));
  }
  if (!placed.ok()) return placed.status();
  SwizzleProof& p = *placed;
  // Charged whatever its verdict: when the chain ends here, the direct route gets only
  // what the placement left of the total budget (it used to get that much again).
  run.Charge(p);
  proof->configs += configs;
  for (const std::string& note : p.notes) {
    proof->notes.push_back(absl::StrCat("placement of ", plan->let_name, ": ", note));
  }
  if (p.verdict != Verdict::kHolds) {
    return end_chain(absl::StrCat("the placement spec is ", p.ToString()));
  }
  proof->verdict = Verdict::kHolds;
  proof->checked = CheckedBy::kSymbolic;
  proof->coverage = std::move(p.coverage);
  std::vector<std::string> enumerated_names;
  for (size_t i : enumerated) enumerated_names.push_back(names[i]);
  proof->notes.push_back(absl::StrCat(
      "proved through the contiguity chain (verify/README.md, \"Eleventh pass\"): `",
      plan->let_name, "` numbers the kept iterations 0..B-1 in ", configs,
      " configuration(s)",
      enumerated_names.empty()
          ? ""
          : absl::StrCat(" of ", absl::StrJoin(enumerated_names, ", ")),
      ", and its placement (`domain = B; let ", plan->let_name,
      " = iter;` and the statements after it) holds"));
  return true;
}

}  // namespace warpcheck::verify::internal
