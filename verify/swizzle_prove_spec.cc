// ProveSpec: user swizzles written in the expression language (sim/swizzle/spec.h),
// encoded statement by statement with smt::ExprEncoder (swizzle_prove.h, "Specs").
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "sim/base/status_macros.h"
#include "sim/expr/eval.h"
#include "sim/swizzle/sweep.h"
#include "verify/smt/expr_encoder.h"
#include "verify/smt/smt.h"
#include "verify/swizzle_prove.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify {
namespace {

using internal::ConfigOutcome;
using internal::QueryRunner;
using sim::expr::Stmt;
using sim::expr::StmtKind;
using sim::swizzle::Counterexample;
using sim::swizzle::NamedValue;
using sim::swizzle::ParamRange;
using sim::swizzle::SpecInstance;
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;
using sim::swizzle::ViolationKind;
using smt::Context;
using smt::ExprEncoder;
using smt::SatResult;
using smt::Term;
using SpecEncoding = SwizzleProveOptions::Encoding;

// The parameters of a spec with their (possibly overridden) ranges, and which are
// symbolic.
struct SpecBox {
  std::vector<std::string> names;
  std::vector<ParamRange> ranges;
  std::vector<bool> symbolic;
  // Enumerated parameters: the values a configuration takes, ascending. A `require` on
  // this parameter alone (e.g. `require n == 1 || n == 2 || n == 4;`) leaves only the
  // values it admits.
  std::vector<std::vector<int64_t>> values;
  // Per parameter: how many divisions (// % cdiv) of the program have a divisor that
  // depends on it. Splitting on such a parameter first turns divisions by a symbolic
  // value into divisions by constants (linear for Z3).
  std::vector<int> in_divisors;
  // A configuration of the box has a permutation table (SpecConfig::table_lemmas): the
  // configurations are kept (WholeBoxAsBitVectors) and try bit-vectors first.
  bool table_configs = false;
};

// The iteration as digits (SwizzleProveOptions::digit_iterations): the divisor S of
// every `iter // S` and `iter % S` (the only reads of iter), and the factors of S and of
// the domain: S = k*F, domain = Y*F with F the common factors.
struct DigitPlan {
  sim::expr::ExprPtr divisor;
  std::vector<sim::expr::ExprPtr> common, k, y;
  // Some read is `iter % E` with E != S (SwizzleProveOptions::digit_residues).
  bool residues = false;
};

void MulFactors(const sim::expr::ExprPtr& e, std::vector<sim::expr::ExprPtr>* out) {
  if (e->kind() == sim::expr::ExprKind::kMul) {
    MulFactors(e->operands()[0], out);
    MulFactors(e->operands()[1], out);
  } else {
    out->push_back(e);
  }
}

// Ensures: plan->common, k, y from S = plan->divisor (lets inlined) and the bound
//          `domain` (lets inlined): S = k*F, domain = Y*F with F the non-constant factors
//          the two share; false when they share none.
bool FactorDigits(const sim::expr::ExprPtr& domain, DigitPlan* plan) {
  std::vector<sim::expr::ExprPtr> y;
  MulFactors(domain, &y);
  std::vector<sim::expr::ExprPtr> sf;
  MulFactors(plan->divisor, &sf);
  for (const sim::expr::ExprPtr& f : sf) {
    auto it = std::find_if(y.begin(), y.end(),
                           [&](const sim::expr::ExprPtr& x) { return x->Equals(*f); });
    if (it != y.end() && f->kind() != sim::expr::ExprKind::kIntConst) {
      plan->common.push_back(f);
      y.erase(it);
    } else {
      plan->k.push_back(f);
    }
  }
  if (plan->common.empty()) return false;
  plan->y = std::move(y);
  return true;
}

// Ensures: the plan when every per-iteration read of `iter` (lets inlined) is
//          `iter // S` or `iter % S` for one S (structurally equal) and S shares a factor
//          with the domain; with `residues`, also when some reads are `iter % E` for
//          other E, as long as some `iter // S` names S (ExprEncoder::SetDigits, the
//          residue route); nullopt otherwise (or with an inverse clause, whose
//          left_inverse query compares iter itself).
std::optional<DigitPlan> PlanDigits(const SwizzleSpec& spec, bool residues) {
  if (spec.inverse() != nullptr) return std::nullopt;
  const sim::expr::Program& program = spec.program();
  using sim::expr::ExprKind;
  bool ok = true;
  std::vector<sim::expr::ExprPtr> divisors, quotient_divisors;
  absl::flat_hash_set<const sim::expr::Expr*> seen;
  std::vector<sim::expr::ExprPtr> roots;
  std::vector<const sim::expr::Expr*> pending;
  const sim::expr::ExprPtr* domain = nullptr;
  for (const Stmt& st : program.statements()) {
    // Lets are read through the clauses (inlined there); `let pid = iter;` is no read.
    if (st.kind != StmtKind::kClause) continue;
    if (st.keyword == "domain") domain = &st.value;
    roots.push_back(program.InlineLets(st.value));
    pending.push_back(roots.back().get());
  }
  while (!pending.empty() && ok) {
    const sim::expr::Expr* e = pending.back();
    pending.pop_back();
    if (!seen.insert(e).second) continue;
    const ExprKind k = e->kind();
    if (k == ExprKind::kVar && e->name() == "iter") ok = false;
    if ((k == ExprKind::kFloorDiv || k == ExprKind::kMod) &&
        e->operand(0).kind() == ExprKind::kVar && e->operand(0).name() == "iter") {
      divisors.push_back(e->operands()[1]);
      if (k == ExprKind::kFloorDiv) quotient_divisors.push_back(e->operands()[1]);
      pending.push_back(&e->operand(1));
      continue;
    }
    for (int i = 0; i < e->num_operands(); ++i) pending.push_back(&e->operand(i));
  }
  if (!ok || divisors.empty() || domain == nullptr) return std::nullopt;
  // S: the divisor of every quotient read, or of every read when there is none.
  const std::vector<sim::expr::ExprPtr>& named =
      quotient_divisors.empty() ? divisors : quotient_divisors;
  for (const sim::expr::ExprPtr& d : named) {
    if (!d->Equals(*named[0])) return std::nullopt;
  }
  DigitPlan plan;
  plan.divisor = named[0];
  for (const sim::expr::ExprPtr& d : divisors) {
    if (d->Equals(*plan.divisor)) continue;
    if (!residues) return std::nullopt;
    plan.residues = true;  // `iter % E` with E != S
  }
  if (!FactorDigits(program.InlineLets(*domain), &plan)) return std::nullopt;
  return plan;
}

// Ensures: for each parameter of `names`, the number of division nodes whose divisor
//          depends on it (lets inlined).
//          Not counted, since the encoding needs no nonlinear step for them: with
//          digit_iterations, `iter // S` and `iter % S` (PlanDigits); with
//          case_obligations, a divisor `select(c, x, y)` or `min(x, y)` with a branch that
//          reads no tile-extent parameter (gemm's group width select(g < G-1, s, C - s*g):
//          at most s, which the case_obligations query proves).
std::vector<int> DivisorUse(const SwizzleSpec& spec, const std::vector<std::string>& names,
                            const SwizzleProveOptions& options) {
  std::vector<int> out(names.size(), 0);
  const sim::expr::Program& program = spec.program();
  const std::optional<DigitPlan> plan =
      options.digit_iterations ? PlanDigits(spec, options.digit_residues) : std::nullopt;
  absl::flat_hash_set<std::string> tile_deps;
  for (size_t k = 0; k < spec.grids().size(); ++k) {
    if (spec.coordinates()[k] == "rank") continue;
    for (const std::string& p : program.FreeParams(*spec.grids()[k]->value)) tile_deps.insert(p);
  }
  auto bounded = [&](const sim::expr::Expr& d) {
    using sim::expr::ExprKind;
    if (!options.case_obligations || options.small_divisor_cases <= 0) return false;
    std::vector<const sim::expr::Expr*> branches;
    if (d.kind() == ExprKind::kSelect) branches = {&d.operand(1), &d.operand(2)};
    if (d.kind() == ExprKind::kMin) branches = {&d.operand(0), &d.operand(1)};
    for (const sim::expr::Expr* b : branches) {
      bool free = true;
      for (const std::string& v : sim::expr::FreeVariables(*b)) free &= !tile_deps.contains(v);
      if (free) return true;
    }
    return false;
  };
  absl::flat_hash_set<const sim::expr::Expr*> seen;
  std::vector<const sim::expr::Expr*> pending;
  std::vector<sim::expr::ExprPtr> roots;
  for (const Stmt& s : program.statements()) {
    if (s.kind == StmtKind::kParam) continue;
    roots.push_back(program.InlineLets(s.value));
    pending.push_back(roots.back().get());
  }
  while (!pending.empty()) {
    const sim::expr::Expr* e = pending.back();
    pending.pop_back();
    if (!seen.insert(e).second) continue;
    const sim::expr::ExprKind k = e->kind();
    // A residue read `iter % E` (E != S) counts as E's other divisions do.
    const bool iter_digit = plan.has_value() && e->num_operands() > 0 &&
                            e->operand(0).kind() == sim::expr::ExprKind::kVar &&
                            e->operand(0).name() == "iter" &&
                            e->operand(1).Equals(*plan->divisor);
    if ((k == sim::expr::ExprKind::kFloorDiv || k == sim::expr::ExprKind::kMod ||
         k == sim::expr::ExprKind::kCdiv) && !iter_digit && !bounded(e->operand(1))) {
      for (const std::string& v : sim::expr::FreeVariables(e->operand(1))) {
        for (size_t i = 0; i < names.size(); ++i) out[i] += names[i] == v;
      }
    }
    for (int j = 0; j < e->num_operands(); ++j) pending.push_back(&e->operand(j));
  }
  return out;
}

// Ensures: the values of parameter `i` in `range` that every `require` reading only
//          that parameter admits (a require that fails to evaluate keeps the value: the
//          params_error query reports it); nullopt when no such require exists or the
//          range is too wide to scan.
std::optional<std::vector<int64_t>> AdmittedValues(const SwizzleSpec& spec,
                                                   const std::string& name,
                                                   ParamRange range) {
  constexpr int64_t kMaxScan = int64_t{1} << 20;
  const sim::expr::Program& program = spec.program();
  std::vector<sim::expr::ExprPtr> own;
  for (const Stmt* r : program.Clauses("require")) {
    const std::vector<std::string> deps = program.FreeParams(*r->value);
    if (deps.size() == 1 && deps[0] == name) own.push_back(program.InlineLets(r->value));
  }
  if (own.empty() || range.size() > kMaxScan) return std::nullopt;
  std::vector<int64_t> out;
  sim::expr::Env env;
  for (int64_t v = range.lo; v <= range.hi; ++v) {
    env[name] = v;
    bool ok = true;
    for (const sim::expr::ExprPtr& e : own) {
      absl::StatusOr<int64_t> x = sim::expr::Evaluate(*e, env, spec.source_name());
      if (x.ok() && *x == 0) ok = false;
    }
    if (ok) out.push_back(v);
  }
  return out;
}

// The up-front cube-and-conquer split (SwizzleProveOptions::cube_divisors_up_to): makes
// symbolic parameters that divisors depend on enumerated, most divisors first, then fewest
// values, while the number of configurations stays within the budget and some parameter
// of `tile_deps` stays symbolic. Requires: b->in_divisors filled in.
void CubeDivisorParams(const SwizzleSpec& spec,
                       const absl::flat_hash_set<std::string>& tile_deps,
                       const SwizzleProveOptions& options, SpecBox* b) {
  if (options.cube_divisors_up_to <= 0) return;
  int64_t configs = 1;
  for (size_t i = 0; i < b->names.size(); ++i) {
    if (!b->symbolic[i]) {
      std::optional<std::vector<int64_t>> admitted =
          AdmittedValues(spec, b->names[i], b->ranges[i]);
      configs = internal::SatMul(
          configs, admitted ? static_cast<int64_t>(admitted->size()) : b->ranges[i].size());
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < b->names.size(); ++i) {
    if (b->symbolic[i] && b->in_divisors[i] > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return std::pair(-b->in_divisors[x], b->ranges[x].size()) <
           std::pair(-b->in_divisors[y], b->ranges[y].size());
  });
  for (size_t i : order) {
    const int64_t n = internal::SatMul(configs, b->ranges[i].size());
    int64_t symbolic_tiles = 0;
    for (size_t k = 0; k < b->names.size(); ++k) {
      symbolic_tiles += k != i && b->symbolic[k] && tile_deps.contains(b->names[k]);
    }
    if (n > options.cube_divisors_up_to || symbolic_tiles == 0) continue;
    b->symbolic[i] = false;
    configs = n;
  }
}

absl::StatusOr<SpecBox> ResolveSpecBox(const SwizzleSpec& spec, const SpecSweep& sweep,
                                       const SwizzleProveOptions& options) {
  SpecBox b;
  for (const Stmt* p : spec.params()) {
    b.names.push_back(p->name);
    b.ranges.push_back({p->lo, p->hi});
  }
  auto index_of = [&](const std::string& name) -> absl::StatusOr<size_t> {
    for (size_t i = 0; i < b.names.size(); ++i) {
      if (b.names[i] == name) return i;
    }
    return absl::InvalidArgumentError(
        absl::StrCat(spec.source_name(), ": the spec has no parameter '", name, "'"));
  };
  for (const auto& [name, range] : sweep.ranges) {
    ASSIGN_OR_RETURN(size_t i, index_of(name));
    if (range.lo > range.hi) {
      return absl::InvalidArgumentError(absl::StrCat(spec.source_name(), ": range ",
                                                     range.lo, "..", range.hi, " for '",
                                                     name, "' is empty"));
    }
    b.ranges[i] = range;
  }
  b.symbolic.assign(b.names.size(), false);
  b.values.resize(b.names.size());
  b.in_divisors = DivisorUse(spec, b.names, options);
  auto fill_values = [&] {
    for (size_t i = 0; i < b.names.size(); ++i) {
      if (b.symbolic[i]) continue;
      std::optional<std::vector<int64_t>> admitted =
          AdmittedValues(spec, b.names[i], b.ranges[i]);
      if (admitted.has_value()) {
        b.values[i] = *std::move(admitted);
      } else if (b.ranges[i].size() <= options.max_configs) {
        for (int64_t v = b.ranges[i].lo; v <= b.ranges[i].hi; ++v) b.values[i].push_back(v);
      }
      // else: left empty, more values than configurations allowed (see ProveSpec)
    }
  };
  if (!options.symbolic_params.empty()) {
    for (const std::string& name : options.symbolic_params) {
      ASSIGN_OR_RETURN(size_t i, index_of(name));
      b.symbolic[i] = true;
    }
    fill_values();
    return b;
  }
  // Default: the parameters the tile extents depend on (not those of the rank extent),
  // when their range is wide.
  absl::flat_hash_set<std::string> tile_deps, rank_deps;
  for (size_t k = 0; k < spec.grids().size(); ++k) {
    const Stmt* g = spec.grids()[k];
    for (const std::string& p : spec.program().FreeParams(*g->value)) {
      (spec.coordinates()[k] == "rank" ? rank_deps : tile_deps).insert(p);
    }
  }
  for (size_t i = 0; i < b.names.size(); ++i) {
    b.symbolic[i] = tile_deps.contains(b.names[i]) && !rank_deps.contains(b.names[i]) &&
                    b.ranges[i].size() > options.enumerate_up_to;
    // A parameter that a `require` of its own restricts to a few values is enumerated
    // over those values, however wide its declared range (powers of two, say).
    if (b.symbolic[i]) {
      std::optional<std::vector<int64_t>> admitted =
          AdmittedValues(spec, b.names[i], b.ranges[i]);
      if (admitted.has_value() &&
          static_cast<int64_t>(admitted->size()) <= options.enumerate_admitted_up_to) {
        b.symbolic[i] = false;
      }
    }
  }
  CubeDivisorParams(spec, tile_deps, options, &b);
  fill_values();
  return b;
}

}  // namespace

// Statements that run per iteration, exactly as SpecInstance classifies them
// (sim/swizzle/spec.cc): out, tail, skip, and anything mentioning `iter` or a name
// computed per iteration.
std::vector<bool> internal::PerIteration(const sim::expr::Program& program) {
  absl::flat_hash_set<std::string> per_iter = {"iter"};
  std::vector<bool> out;
  for (const Stmt& s : program.statements()) {
    bool p = false;
    if (s.kind == StmtKind::kClause &&
        (s.keyword == "out" || s.keyword == "tail" || s.keyword == "skip")) {
      p = true;
    }
    if (s.kind != StmtKind::kParam && !p) {
      for (const std::string& v : sim::expr::FreeVariables(*s.value)) {
        if (per_iter.contains(v)) {
          p = true;
          break;
        }
      }
    }
    if (p && s.binds) per_iter.insert(s.name);
    out.push_back(p);
  }
  return out;
}

absl::StatusOr<internal::EncodedParamPhase> internal::EncodeParamPhase(
    smt::Context& ctx, smt::ExprEncoder& enc, const sim::expr::Program& program,
    const std::function<bool(size_t)>& skip,
    const std::function<void(const sim::expr::Stmt&, const smt::ExprEncoder::Encoded&)>&
        on_extent) {
  EncodedParamPhase out;
  smt::Term prefix = ctx.Bool(true);
  const std::vector<sim::expr::Stmt>& stmts = program.statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const sim::expr::Stmt& s = stmts[k];
    if (s.kind == sim::expr::StmtKind::kParam || skip(k)) continue;
    ASSIGN_OR_RETURN(smt::ExprEncoder::Encoded e, enc.Encode(s.value));
    const smt::Term ok = e.Defined(ctx);
    smt::Term pass = ok;
    if (s.kind == sim::expr::StmtKind::kLet) {
      enc.Bind(s.name, e.value, e.range);
    } else if (s.keyword == "require") {
      out.param_errors.push_back(prefix && !ok);
      prefix = prefix && ok && e.value;
      continue;
    } else if (s.keyword == "domain") {
      pass = ok && e.value >= 0;
      on_extent(s, e);
    } else if (s.keyword == "grid") {
      pass = ok && e.value > 0;
      on_extent(s, e);
    }
    out.param_errors.push_back(prefix && !pass);
    prefix = prefix && pass;
  }
  out.admitted = prefix;
  return out;
}

namespace {

using internal::PerIteration;

// The placement chain (SwizzleProveOptions::placement_chain): a per-iteration let L
// (Triton's persistent `tile_id = start_pid + step * num_sms`) through which alone the
// map's coordinates read the iteration, a skip clause `L >= B` (B per point), and reads
// of L only as `L // S`, `L % S` (and, with residues, `L % E`), S sharing a factor with
// B. Injectivity is then proved as a chain: L injective on the iterations that yield
// tiles (two copies of the iteration), L >= 0 there (one copy), and the placement
// injective on [0, B) with L as digits (g, j) of S (two copies of the placement alone).
struct PlacementPlan {
  size_t let_index = 0;      // L's statement
  size_t bound_index = 0;    // the skip clause `L >= B`
  std::string name;          // L
  sim::expr::ExprPtr bound;  // B
  DigitPlan digits;          // L's digits; digits.divisor as written (a let, say)
  // The statements after L that the placement evaluates (per iteration, reading only
  // L and names in this set); the others after L read the iteration some other way.
  std::vector<bool> placed;
  // Every per-iteration statement after the skip `L >= B` is placed: evaluation errors
  // split at that skip (SpecConfig::ProvePerIteration).
  bool placed_past_bound = false;
};

// Ensures: the plan for the first per-iteration let that qualifies (see PlacementPlan),
//          or nullopt; never with an inverse clause.
std::optional<PlacementPlan> PlanPlacement(const SwizzleSpec& spec, bool residues) {
  using sim::expr::ExprKind;
  if (spec.inverse() != nullptr) return std::nullopt;
  const sim::expr::Program& program = spec.program();
  const std::vector<Stmt>& stmts = program.statements();
  const std::vector<bool> per_iter = PerIteration(program);
  absl::flat_hash_set<std::string> iter_names = {"iter"};
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (per_iter[k] && stmts[k].binds) iter_names.insert(stmts[k].name);
  }
  for (size_t l = 0; l < stmts.size(); ++l) {
    if (!per_iter[l] || stmts[l].kind != StmtKind::kLet) continue;
    PlacementPlan plan;
    plan.let_index = l;
    plan.name = stmts[l].name;
    plan.placed.assign(stmts.size(), false);
    absl::flat_hash_map<std::string, const sim::expr::Expr*> placed_lets;
    bool ok = true, outs_placed = true, has_bound = false;
    for (size_t k = 0; k < stmts.size() && ok; ++k) {
      const Stmt& s = stmts[k];
      if (!per_iter[k] || s.kind == StmtKind::kParam) continue;
      const bool clause =
          s.kind == StmtKind::kClause &&
          (s.keyword == "out" || s.keyword == "tail" || s.keyword == "skip");
      if (k <= l) {
        // Skips before L only narrow the iterations that yield tiles; outs may not.
        if (clause && s.keyword != "skip") outs_placed = false;
        continue;
      }
      bool reads_placed = true;
      for (const std::string& v : sim::expr::FreeVariables(*s.value)) {
        if (iter_names.contains(v) && v != plan.name && !placed_lets.contains(v)) {
          reads_placed = false;
        }
      }
      if (!reads_placed) {
        if (clause) ok = false;  // a clause that reads the iteration past L
        continue;
      }
      plan.placed[k] = true;
      if (s.kind == StmtKind::kLet) placed_lets[s.name] = s.value.get();
      if (!has_bound && s.keyword == "skip") {
        const sim::expr::Expr& e = *s.value;
        sim::expr::ExprPtr x, b;
        if (e.kind() == ExprKind::kGe) x = e.operands()[0], b = e.operands()[1];
        if (e.kind() == ExprKind::kLe) x = e.operands()[1], b = e.operands()[0];
        if (x != nullptr && x->kind() == ExprKind::kVar && x->name() == plan.name) {
          bool per_point = true;
          for (const std::string& v : sim::expr::FreeVariables(*b)) {
            per_point &= !iter_names.contains(v);
          }
          if (per_point) {
            has_bound = true;
            plan.bound_index = k;
            plan.bound = b;
          }
        }
      }
    }
    if (!ok || !outs_placed || !has_bound) continue;
    // L's reads: through the placed lets (not inlined, so that L stays a name).
    std::vector<sim::expr::ExprPtr> divisors, quotient_divisors;
    absl::flat_hash_set<const sim::expr::Expr*> seen;
    std::vector<const sim::expr::Expr*> pending;
    for (size_t k = l + 1; k < stmts.size(); ++k) {
      if (plan.placed[k] && k != plan.bound_index)
        pending.push_back(stmts[k].value.get());
    }
    while (!pending.empty() && ok) {
      const sim::expr::Expr* e = pending.back();
      pending.pop_back();
      if (!seen.insert(e).second) continue;
      const ExprKind kind = e->kind();
      if (kind == ExprKind::kVar) {
        if (e->name() == plan.name) ok = false;  // read whole
        if (auto it = placed_lets.find(e->name()); it != placed_lets.end()) {
          pending.push_back(it->second);
        }
        continue;
      }
      if ((kind == ExprKind::kFloorDiv || kind == ExprKind::kMod) &&
          e->operand(0).kind() == ExprKind::kVar && e->operand(0).name() == plan.name) {
        divisors.push_back(e->operands()[1]);
        if (kind == ExprKind::kFloorDiv) quotient_divisors.push_back(e->operands()[1]);
        pending.push_back(&e->operand(1));
        continue;
      }
      for (int i = 0; i < e->num_operands(); ++i) pending.push_back(&e->operand(i));
    }
    if (!ok || quotient_divisors.empty()) continue;
    for (const sim::expr::ExprPtr& d : quotient_divisors)
      ok &= d->Equals(*quotient_divisors[0]);
    if (!ok) continue;
    plan.digits.divisor = quotient_divisors[0];
    for (const sim::expr::ExprPtr& d : divisors) {
      if (d->Equals(*plan.digits.divisor)) continue;
      if (!residues) ok = false;
      plan.digits.residues = true;
    }
    if (!ok) continue;
    // Factored with lets inlined; the divisor itself is encoded as written.
    DigitPlan inlined;
    inlined.divisor = program.InlineLets(plan.digits.divisor);
    if (!FactorDigits(program.InlineLets(plan.bound), &inlined)) continue;
    plan.digits.common = std::move(inlined.common);
    plan.digits.k = std::move(inlined.k);
    plan.digits.y = std::move(inlined.y);
    plan.placed_past_bound = true;
    for (size_t k = plan.bound_index + 1; k < stmts.size(); ++k) {
      if (per_iter[k] && stmts[k].kind != StmtKind::kParam && !plan.placed[k]) {
        plan.placed_past_bound = false;
      }
    }
    return plan;
  }
  return std::nullopt;
}

// One copy of the per-iteration part at a symbolic iteration.
struct IterCopy {
  Term iter;
  // With digit_iterations: iter = g*S + j, 0 <= j < S, and iter itself (a product) is in
  // no assertion, only in models (SwizzleProveOptions::digit_iterations).
  std::optional<Term> g, j;
  // With a placement chain (PlacementPlan): L's value in a copy of the iteration, an
  // error up to the skip `L >= B` (inclusive), and evaluation past that skip.
  std::optional<Term> placed;
  Term error_to_bound, past_bound;
  std::vector<Term> domain;  // 0 <= iter < domain
  Term error;                // an evaluation error happens on the evaluated path
  Term tile;                 // no error and no skip: the iteration yields a tile
  Term bad_tail;             // some tail is wrong or not positive
  std::vector<Term> coords;
  // With an `inverse` clause: its value at this iteration's tile, and where it is defined.
  std::optional<Term> inv;
  Term inv_defined;
  // Table lemmas (SwizzleProveOptions::table_lemma_values): facts every real run
  // satisfies (assumed by every query on this copy), and per lemma the let's statement
  // index with the terms of x and of the let (for the cross-copy injectivity fact).
  std::vector<Term> facts;
  struct TableUse {
    size_t stmt;
    Term x, value;
  };
  std::vector<TableUse> tables;
  // For surjectivity by counting (SpecConfig::ProveSurjectiveByCounting): the map read
  // past its `skip` clauses. defined_all: every let, out and skip clause is defined at
  // this iteration, skipped or not; defined_to_skip: the same up to the last skip clause.
  Term defined_all, defined_to_skip;
  std::vector<smt::ValueRange> coord_ranges;
  // The skip clauses as one disjunction of atoms `x >= bound` (x per iteration, bound per
  // parameter point; `x > b` is `x >= b + 1`); empty when some clause is not of that form.
  struct SkipAtom {
    Term x, bound;
    smt::ValueRange x_range, bound_range;
  };
  std::vector<SkipAtom> skip_atoms;
};

// A let L = E(x) of one per-iteration name x, the rest constants of the configuration,
// evaluated at every value of x's range (SwizzleProveOptions::table_lemma_values).
struct TableLemma {
  std::string x;
  int64_t lo = 0, hi = 0;      // the prefix of x's range where E is defined and injective
  int64_t vmin = 0, vmax = 0;  // E's values there
  bool monotone = false;       // E strictly increasing or decreasing there
};

// Ensures: true when `e` has a division node (// % cdiv): the nodes Z3's integer core
//          branches on, where a lemma saves work.
bool HasDivision(const sim::expr::Expr& e) {
  std::vector<const sim::expr::Expr*> pending = {&e};
  while (!pending.empty()) {
    const sim::expr::Expr* x = pending.back();
    pending.pop_back();
    const sim::expr::ExprKind k = x->kind();
    if (k == sim::expr::ExprKind::kFloorDiv || k == sim::expr::ExprKind::kMod ||
        k == sim::expr::ExprKind::kCdiv) {
      return true;
    }
    for (int i = 0; i < x->num_operands(); ++i) pending.push_back(&x->operand(i));
  }
  return false;
}

// Names that depend on `iter` other than through a tile coordinate (sim/swizzle/spec.h,
// "The inverse"): the statements the inverse may not read, and the ones a copy of the
// inverse at a free tile does not encode.
absl::flat_hash_set<std::string> ReadsIterDirectly(const SwizzleSpec& spec) {
  absl::flat_hash_set<std::string> coords(spec.coordinates().begin(),
                                          spec.coordinates().end());
  absl::flat_hash_set<std::string> direct = {"iter"};
  for (const Stmt& s : spec.program().statements()) {
    if (!s.binds || s.kind == StmtKind::kParam) continue;
    if (s.kind == StmtKind::kClause && coords.contains(s.name)) continue;
    for (const std::string& v : sim::expr::FreeVariables(*s.value)) {
      if (direct.contains(v)) {
        direct.insert(s.name);
        break;
      }
    }
  }
  return direct;
}

// Ensures: the skip clause `value` as atoms `x >= bound` appended to *atoms, true when it
//          is a disjunction (`||`) of comparisons `x >= b`, `x > b` (as x >= b + 1), or
//          the same mirrored (`b <= x`, `b < x`), where x reads a per-iteration name
//          (iter_names) and b none; false otherwise (*atoms then unspecified). The atoms'
//          definedness is the clause's own (the caller's).
absl::StatusOr<bool> SkipAtoms(const sim::expr::ExprPtr& value, ExprEncoder& enc,
                               const absl::flat_hash_set<std::string>& iter_names,
                               std::vector<IterCopy::SkipAtom>* atoms) {
  using sim::expr::ExprKind;
  ExprKind kind = value->kind();
  if (kind == ExprKind::kOr) {
    for (const sim::expr::ExprPtr& op : value->operands()) {
      ASSIGN_OR_RETURN(const bool ok, SkipAtoms(op, enc, iter_names, atoms));
      if (!ok) return false;
    }
    return true;
  }
  if (kind != ExprKind::kGe && kind != ExprKind::kGt && kind != ExprKind::kLe &&
      kind != ExprKind::kLt) {
    return false;
  }
  sim::expr::ExprPtr x = value->operands()[0], b = value->operands()[1];
  if (kind == ExprKind::kLe || kind == ExprKind::kLt) {
    std::swap(x, b);
    kind = kind == ExprKind::kLe ? ExprKind::kGe : ExprKind::kGt;
  }
  auto per_iteration = [&](const sim::expr::Expr& e) {
    for (const std::string& v : sim::expr::FreeVariables(e)) {
      if (iter_names.contains(v)) return true;
    }
    return false;
  };
  if (!per_iteration(*x) || per_iteration(*b)) return false;
  ASSIGN_OR_RETURN(const ExprEncoder::Encoded ex, enc.Encode(x));
  ASSIGN_OR_RETURN(const ExprEncoder::Encoded eb, enc.Encode(b));
  IterCopy::SkipAtom atom{ex.value, eb.value, ex.range, eb.range};
  if (kind == ExprKind::kGt) {
    atom.bound = eb.value + 1;
    atom.bound_range = {eb.range.lo + 1, eb.range.hi + 1};
  }
  atoms->push_back(atom);
  return true;
}

// The properties, in the order they are proved (each assumes the ones before it).
enum Property : int {
  kParamsError,
  kCaseObligations,  // with case_obligations: every case-split divisor within its cases
  kEvalError,
  kInRange,
  kTailSize,
  kCount,
  kInjective,
  kSurjective,  // with `skip`: by the inverse (f(inv(t)) == t for every tile t) or by counting
  kNumProperties
};

// One configuration: every parameter either a constant or a symbolic range.
class SpecConfig {
 public:
  // bv_width 0: the integer encoding; else signed bit-vectors of that width, decided
  // with Z3's qfbv tactic (size it with WidthNeeded).
  // obligations: divisor cases with proof obligations instead of the nonlinear fallback
  // (integers only; SwizzleProveOptions::case_obligations).
  SpecConfig(const SwizzleSpec& spec, const SpecBox& box, std::vector<ParamRange> ranges,
             QueryRunner& run, int bv_width = 0, bool obligations = false)
      : spec_(spec),
        box_(box),
        ranges_(std::move(ranges)),
        run_(run),
        bv_width_(bv_width),
        obligations_(obligations && bv_width == 0),
        enc_(ctx_, bv_width) {
    enc_.set_small_divisor_cases(run.options().small_divisor_cases);
    enc_.set_small_quotient_cases(run.options().small_quotient_cases);
    enc_.set_small_factor_cases(run.options().small_factor_cases);
  }

  // Ensures: the fewest bits of a signed word that hold every value the encoding of this
  //          configuration computes (every node's range, the domain, the tile count), from
  //          an integer encoding of it. Requires: a fresh integer configuration.
  absl::StatusOr<int> WidthNeeded();

  // Proves the properties from `from` to `to` (inclusive). On kUnknown, *failed is the
  // property whose query ran out of budget.
  absl::StatusOr<ConfigOutcome> Prove(int from, int to, Property* failed);
  int nonlinear_nodes() const { return enc_.nonlinear_nodes(); }
  // True when the case_obligations query was not unsat: encode again without them.
  bool obligations_failed() const { return obligations_failed_; }
  // True when the iteration is encoded as digits (after EncodeParams).
  bool has_digits() const { return digit_s_.has_value(); }
  // After WidthNeeded: the nonlinear nodes (ExprEncoder::nonlinear_nodes) of the
  // per-iteration part alone (the domain's R*C is harmless: count compares it to itself).
  int nonlinear_per_iteration() const { return nonlinear_per_iter_; }
  bool symbolic(size_t i) const { return ranges_[i].lo < ranges_[i].hi; }
  bool any_symbolic() const {
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (symbolic(i)) return true;
    }
    return false;
  }

 private:
  absl::Status EncodeParams();
  // The digits' terms: S, F, Y and k of S = k*F, domain = Y*F (DigitPlan).
  struct DigitTerms {
    Term s, f, y;
    int64_t k = 0;
    smt::ValueRange s_range;
    bool residues = false;
  };
  // Ensures: the terms, or nullopt when the plan does not apply to this configuration
  //          (S constant or not positive, k not a constant up to 64, a factor undefined).
  //          constant_divisor: a constant S is accepted too (the placement chain, whose
  //          copies are smaller than the map's even where its divisions are linear).
  absl::StatusOr<std::optional<DigitTerms>> EncodeDigitTerms(
      const DigitPlan& plan, bool constant_divisor = false);
  absl::Status EncodeDigits(const DigitPlan& plan);
  // The per-iteration part at a fresh iteration `name`, or at `at` when given. With
  // `placement` (the placement chain, after placement_digits_ is set): the placement
  // alone, at a fresh L = g*S + j in [0, B) (its `iter`, g and j), the statements
  // PlacementPlan::placed only, the skip `L >= B` as the domain.
  absl::StatusOr<IterCopy> EncodeIteration(const char* name,
                                           std::optional<Term> at = std::nullopt,
                                           bool placement = false);
  // The table lemma of per-iteration let statement `k` (encoded as `value` by `enc`), or
  // nullopt (memoised per statement: every copy has the same constants).
  // iter_names: the names computed per iteration so far.
  const std::optional<TableLemma>& TableFor(
      size_t k, const ExprEncoder& enc, const ExprEncoder::Encoded& value,
      const absl::flat_hash_set<std::string>& iter_names);
  // The inverse at a free tile: the tile's coordinates (fresh, in the box) and the
  // inverse's value and definedness there.
  absl::Status EncodeFreeTile(std::vector<Term>* tile, Term* inv, Term* defined);
  // The parameter point of a model, in declaration order.
  std::vector<int64_t> Point(const smt::Model& m) const;
  int64_t TilesOf(const smt::Model& m) const;
  absl::StatusOr<ConfigOutcome> Violation(const std::string& name,
                                          const std::vector<Term>& query,
                                          const smt::Model& model, ViolationKind kind,
                                          const std::vector<const IterCopy*>& copies);
  // A tile the surjectivity query says inv misses: a violation when no iteration reaches
  // it (checked by evaluating the map), else the inverse is wrong there (kUnknown).
  absl::StatusOr<ConfigOutcome> MissedTile(const std::string& name, const smt::Model& m,
                                           const std::vector<int64_t>& tile,
                                           Property* failed);
  std::vector<NamedValue> NamedPoint(const smt::Model& m) const;
  // Runs query `q` first over the relaxed box (symbolic parameters without their upper
  // bounds: a superset, so unsat there is a proof for the box, and Z3's nonlinear core is
  // much faster without the bounds), then, unless that was unsat, over the exact box;
  // `q` then holds the upper bounds too (for shrinking a witness).
  absl::StatusOr<smt::SolverResult> Solve(const std::string& name, std::vector<Term>& q,
                                          uint64_t rlimit);

 public:
  std::string Prefix() const;

 private:
  // The pieces of Prove, in order (each returns kHolds to go on).
  struct Run;
  absl::StatusOr<ConfigOutcome> ProvePerIteration(Run& run);  // eval_error, in_range, tail
  absl::StatusOr<ConfigOutcome> ProveCount(Run& run);
  absl::StatusOr<ConfigOutcome> ProveInjective(Run& run);
  // The placement chain (SwizzleProveOptions::placement_chain). Ensures: true in
  // *proved when every query of the chain was unsat; false otherwise (the caller runs
  // the direct query; a note says why).
  absl::Status ProveInjectiveByPlacement(Run& run, const IterCopy& b, bool* proved);
  // The chain's shared steps, each run once per configuration (memoised in run):
  // L >= 0 on the iterations that yield tiles, and the two placement copies with their
  // divisor cases proved within their cases on [0, B). Ensures: true when unsat (a note
  // says why not otherwise).
  absl::StatusOr<bool> PlacementNonnegative(Run& run);
  absl::StatusOr<bool> PlacementCopies(Run& run);
  // The assertions every placement query starts from: the point, copy pa in [0, B)
  // yielding a tile, its facts and (proved) obligations.
  std::vector<Term> PlacementBase(const Run& run);
  void PlacementNote(const std::string& name, const smt::SolverResult& r);
  absl::StatusOr<ConfigOutcome> ProveSurjective(Run& run);
  // *by_coordinates: set when the counted bijection was the map's own coordinates (which
  // makes the map injective on the iterations that yield tiles as well).
  absl::StatusOr<ConfigOutcome> ProveSurjectiveByCounting(Run& run, bool* by_coordinates);
  // The assertions of a two-copy query over run.a and `b` (both in the domain, b's
  // facts, obligations and table lemmas across the copies, a before b), with `at_a` and
  // `at_b` about either copy.
  std::vector<Term> TwoCopies(const Run& run, const IterCopy& b,
                              const std::vector<Term>& at_a,
                              const std::vector<Term>& at_b);
  // Ensures: the background (bounds, side conditions) followed by `extra`.
  std::vector<Term> With(std::vector<Term> extra) const;
  static ConfigOutcome Unknown(const smt::SolverResult& r, Property p, Property* failed);
  Term Var(const std::string& name) {
    return bv_width_ > 0 ? ctx_.BvVar(name, bv_width_) : ctx_.IntVar(name);
  }

 public:
  // Notes for the proof (e.g. where an inverse clause was wrong).
  std::vector<std::string> notes_;
  // Ensures: how many table lemmas the copies encoded so far use (after EncodeIteration).
  // Only lemmas of tables that are not monotone count (a monotone one like
  // j = iter % 32 on [0, 32) is the identity).
  int table_lemmas() const {
    int n = 0;
    for (const auto& [k, t] : tables_) n += t.has_value() && !t->monotone;
    return n;
  }

 private:
  const SwizzleSpec& spec_;
  const SpecBox& box_;
  std::vector<ParamRange> ranges_;
  QueryRunner& run_;
  int bv_width_ = 0;
  bool obligations_ = false;
  bool obligations_failed_ = false;
  Context ctx_;
  ExprEncoder enc_;
  // digit_iterations: the divisor S, the common factor F, k (a constant), Y.
  std::optional<Term> digit_s_, digit_f_, digit_y_;
  int64_t digit_k_ = 0;
  smt::ValueRange digit_s_range_;
  bool digit_residues_ = false;
  // The placement chain: the plan (after EncodeParams), its digits' terms and B's range.
  std::optional<PlacementPlan> placement_;
  std::optional<DigitTerms> placement_digits_;
  smt::ValueRange placement_bound_range_;
  // The obligations (ExprEncoder::obligations) of copy "iter", once proven.
  size_t obligations_proven_ = 0;
  int nonlinear_per_iter_ = 0;
  std::vector<bool> per_iter_;
  absl::flat_hash_map<size_t, std::optional<TableLemma>> tables_;
  std::vector<Term> params_;      // one per parameter
  std::vector<Term> background_;  // symbolic lower bounds and side conditions
  std::vector<Term> upper_;       // symbolic upper bounds (see Solve)
  Term admitted_;                 // the point passes every phase-1 statement
  std::vector<Term> param_errors_;
  Term domain_;
  smt::ValueRange domain_range_;
  std::vector<Term> extents_;
  std::vector<smt::ValueRange> extent_ranges_;
  std::vector<bool> is_rank_;
};

std::string SpecConfig::Prefix() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < box_.names.size(); ++i) {
    parts.push_back(absl::StrCat(box_.names[i], "=", ranges_[i].ToString()));
  }
  std::string base = spec_.source_name();
  if (size_t slash = base.rfind('/'); slash != std::string::npos)
    base = base.substr(slash + 1);
  return absl::StrCat(base, "[", absl::StrJoin(parts, ","), "].",
                      bv_width_ > 0 ? absl::StrCat("bv", bv_width_, ".") : "");
}

absl::Status SpecConfig::EncodeParams() {
  const sim::expr::Program& program = spec_.program();
  per_iter_ = PerIteration(program);
  for (size_t i = 0; i < box_.names.size(); ++i) {
    if (symbolic(i)) {
      const Term v = Var(box_.names[i]);
      background_.push_back(v >= ranges_[i].lo);
      upper_.push_back(v <= ranges_[i].hi);
      enc_.Bind(box_.names[i], v, ranges_[i].lo, ranges_[i].hi);
      params_.push_back(v);
    } else {
      enc_.BindConst(box_.names[i], ranges_[i].lo);
      params_.push_back(enc_.Num(ranges_[i].lo));
    }
  }
  // Phase 1 (internal::EncodeParamPhase), with the domain and grid extents kept.
  ASSIGN_OR_RETURN(
      internal::EncodedParamPhase phase,
      internal::EncodeParamPhase(
          ctx_, enc_, program,
          [&](size_t k) { return per_iter_[k] || &program.statements()[k] == spec_.inverse(); },
          [&](const Stmt& s, const ExprEncoder::Encoded& e) {
            if (s.keyword == "domain") {
              domain_ = e.value;
              domain_range_ = e.range;
            } else {
              extents_.push_back(e.value);
              extent_ranges_.push_back(e.range);
              is_rank_.push_back(s.name == "rank");
            }
          }));
  admitted_ = phase.admitted;
  param_errors_ = std::move(phase.param_errors);
  if (bv_width_ == 0 && run_.options().digit_iterations) {
    if (std::optional<DigitPlan> plan = PlanDigits(spec_, run_.options().digit_residues);
        plan.has_value()) {
      RETURN_IF_ERROR(EncodeDigits(*plan));
    }
  }
  if (bv_width_ == 0 && run_.options().placement_chain) {
    placement_ = PlanPlacement(spec_, run_.options().digit_residues);
  }
  if (placement_.has_value()) {
    ASSIGN_OR_RETURN(std::optional<DigitTerms> d,
                     EncodeDigitTerms(placement_->digits, /*constant_divisor=*/true));
    ASSIGN_OR_RETURN(ExprEncoder::Encoded bound, enc_.Encode(placement_->bound));
    if (!d.has_value() || bound.defined.has_value()) {
      placement_.reset();  // k too large, or B undefined somewhere
    } else {
      placement_digits_ = d;
      placement_bound_range_ = bound.range;
      // The divisor cases of the placement are its own (PlacementCopies proves them on
      // [0, B)); in a copy of the iteration they would have to hold at the skipped
      // iterations too (L >= B), where the grouped placement's last group width is 0.
      obligations_ = false;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<SpecConfig::DigitTerms>> SpecConfig::EncodeDigitTerms(
    const DigitPlan& plan, bool constant_divisor) {
  ASSIGN_OR_RETURN(ExprEncoder::Encoded S, enc_.Encode(plan.divisor));
  if (S.defined.has_value() || S.range.lo < 1 ||
      (S.range.Constant() && !constant_divisor)) {
    return std::nullopt;
  }
  Term f = enc_.Num(1), y = enc_.Num(1);
  __int128 k = 1;
  for (const sim::expr::ExprPtr& e : plan.common) {
    ASSIGN_OR_RETURN(ExprEncoder::Encoded x, enc_.Encode(e));
    if (x.defined.has_value() || x.range.lo < 1) return std::nullopt;
    f = f * x.value;
  }
  for (const sim::expr::ExprPtr& e : plan.k) {
    ASSIGN_OR_RETURN(ExprEncoder::Encoded x, enc_.Encode(e));
    if (x.defined.has_value() || !x.range.Constant() || x.range.lo < 1) {
      return std::nullopt;
    }
    k *= x.range.lo;
    if (k > 64) return std::nullopt;  // too many cases
  }
  for (const sim::expr::ExprPtr& e : plan.y) {
    ASSIGN_OR_RETURN(ExprEncoder::Encoded x, enc_.Encode(e));
    if (x.defined.has_value()) return std::nullopt;
    y = y * x.value;
  }
  DigitTerms t;
  t.s = S.value;
  t.s_range = S.range;
  t.residues = plan.residues;
  t.f = f;
  t.y = y;
  t.k = static_cast<int64_t>(k);
  return t;
}

absl::Status SpecConfig::EncodeDigits(const DigitPlan& plan) {
  ASSIGN_OR_RETURN(std::optional<DigitTerms> t, EncodeDigitTerms(plan));
  if (!t.has_value()) return absl::OkStatus();
  digit_s_ = t->s;
  digit_s_range_ = t->s_range;
  digit_residues_ = t->residues;
  digit_f_ = t->f;
  digit_y_ = t->y;
  digit_k_ = t->k;
  return absl::OkStatus();
}

absl::StatusOr<IterCopy> SpecConfig::EncodeIteration(const char* name,
                                                     std::optional<Term> at,
                                                     bool placement) {
  ExprEncoder enc = enc_.Fork();
  IterCopy c;
  if (placement) {
    // L = g*S + j in [0, B), B = Y*F: the same linear statement as the iteration's digits
    // below (the chain's third query proves the placement injective there).
    const DigitTerms& d = *placement_digits_;
    const Term g = Var(absl::StrCat(name, "_g"));
    const Term j = Var(absl::StrCat(name, "_j"));
    c.g = g;
    c.j = j;
    c.iter = g * d.s + j;
    const Term e = d.y - g * d.k;
    Term fits = e >= d.k;
    for (int64_t v = 1; v < d.k; ++v) fits = fits || (e == v && j < d.f * v);
    c.domain = {g >= 0, j >= 0, j < d.s, fits};
    enc.SetDigits(c.iter, d.s, d.s_range, g, j, d.residues);
    enc.Bind(placement_->name, c.iter, 0,
             static_cast<int64_t>(std::clamp<__int128>(
                 placement_bound_range_.hi - 1, 0, std::numeric_limits<int64_t>::max())));
  } else if (digit_s_.has_value() && !at.has_value()) {
    // iter = g*S + j with S = k*F and domain = Y*F: iter < domain exactly when
    // j < F*(Y - g*k), i.e. Y - g*k >= k (j < S = k*F suffices), or Y - g*k = e in
    // 1..k-1 and j < e*F. No product of two unknowns (SwizzleProveOptions::digit_iterations).
    const Term g = Var(absl::StrCat(name, "_g"));
    const Term j = Var(absl::StrCat(name, "_j"));
    c.g = g;
    c.j = j;
    c.iter = g * *digit_s_ + j;
    const Term e = *digit_y_ - g * digit_k_;
    Term fits = e >= digit_k_;
    for (int64_t v = 1; v < digit_k_; ++v) fits = fits || (e == v && j < *digit_f_ * v);
    c.domain = {g >= 0, j >= 0, j < *digit_s_, fits};
    enc.SetDigits(c.iter, *digit_s_, digit_s_range_, g, j, digit_residues_);
  } else {
    c.iter = at.has_value() ? *at : Var(name);
    c.domain = {c.iter >= 0, c.iter < domain_};
    if (domain_range_.hi > 0 && domain_range_.hi <= std::numeric_limits<int64_t>::max()) {
      // Implied by iter < domain; stated so that bit-blasting finds a constant bound.
      c.domain.push_back(c.iter <= static_cast<int64_t>(domain_range_.hi - 1));
    }
  }
  // Divisor cases with obligations only in a copy whose obligations a query proves
  // (not the surjectivity copy at inv(t)); the placement chain proves its own.
  enc.set_case_obligations(placement ? run_.options().case_obligations
                                     : obligations_ && !at.has_value());
  if (!placement) {
    enc.Bind("iter", c.iter, 0,
             static_cast<int64_t>(std::clamp<__int128>(
                 domain_range_.hi - 1, 0, std::numeric_limits<int64_t>::max())));
  }
  Term prefix = ctx_.Bool(true);
  std::vector<Term> errors, bad_tails, defined;
  absl::flat_hash_set<std::string> iter_names = {"iter"};
  if (placement) iter_names.insert(placement_->name);
  bool atoms_ok = true;
  const std::vector<Stmt>& stmts = spec_.program().statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& s = stmts[k];
    if (!per_iter_[k] || &s == spec_.inverse()) continue;  // a proof aid, encoded below
    if (placement && (!placement_->placed[k] || k == placement_->bound_index)) continue;
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(s.value));
    const Term ok = e.Defined(ctx_);
    errors.push_back(prefix && !ok);
    if (s.kind == StmtKind::kLet || s.keyword == "out" || s.keyword == "skip") {
      defined.push_back(ok);
    }
    if (s.keyword == "skip") {
      c.defined_to_skip = smt::And(ctx_, defined);
      if (atoms_ok) {
        ASSIGN_OR_RETURN(atoms_ok, SkipAtoms(s.value, enc, iter_names, &c.skip_atoms));
      }
    }
    if (s.kind == StmtKind::kLet || s.keyword == "out") {
      if (s.kind == StmtKind::kLet) {
        if (const std::optional<TableLemma>& t = TableFor(k, enc, e, iter_names);
            t.has_value()) {
          // Facts of every real run: E is defined on the prefix and equals e.value there.
          const Term x = enc.Lookup(t->x).value;
          c.facts.push_back(smt::Implies(x >= t->lo && x <= t->hi,
                                         e.value >= t->vmin && e.value <= t->vmax));
          c.tables.push_back({k, x, e.value});
        }
      }
      enc.Bind(s.name, e.value, e.range);
      if (s.binds) iter_names.insert(s.name);
      if (placement_.has_value() && k == placement_->let_index) c.placed = e.value;
      prefix = prefix && ok;
    } else if (s.keyword == "skip") {
      prefix = prefix && ok && !e.value;
    } else if (s.keyword == "tail") {
      const Term out = enc.Lookup(s.name).value;
      bad_tails.push_back(out != e.value || e.value <= 0);
      prefix = prefix && ok;
    }
    if (!placement && placement_.has_value() && k == placement_->bound_index) {
      c.error_to_bound = smt::Or(ctx_, errors);
      c.past_bound = prefix;
    }
  }
  c.error = smt::Or(ctx_, errors);
  c.tile = prefix;
  c.bad_tail = smt::Or(ctx_, bad_tails);
  c.defined_all = smt::And(ctx_, defined);
  if (!atoms_ok) c.skip_atoms.clear();
  for (const std::string& coord : spec_.coordinates()) {
    c.coords.push_back(enc.Lookup(coord).value);
    c.coord_ranges.push_back(enc.Lookup(coord).range);
  }
  if (spec_.inverse() != nullptr) {
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(spec_.inverse()->value));
    c.inv = e.value;
    c.inv_defined = e.Defined(ctx_);
  }
  return c;
}

const std::optional<TableLemma>& SpecConfig::TableFor(
    size_t k, const ExprEncoder& enc, const ExprEncoder::Encoded& value,
    const absl::flat_hash_set<std::string>& iter_names) {
  auto [it, inserted] = tables_.try_emplace(k);
  std::optional<TableLemma>& out = it->second;
  if (!inserted) return out;
  const int64_t max_values = run_.options().table_lemma_values;
  const Stmt& s = spec_.program().statements()[k];
  if (max_values <= 0 || value.value.is_bool() || !HasDivision(*s.value)) return out;
  // One per-iteration name x; every other name a constant of the configuration.
  std::optional<std::string> x;
  sim::expr::Env env;
  for (const std::string& v : sim::expr::FreeVariables(*s.value)) {
    if (!enc.IsBound(v)) return out;
    const ExprEncoder::Encoded& b = enc.Lookup(v);
    if (iter_names.contains(v)) {
      if (x.has_value() || b.value.is_bool()) return out;
      x = v;
    } else if (b.range.Constant() && b.range.FitsInt64() && !b.value.is_bool()) {
      env[v] = static_cast<int64_t>(b.range.lo);
    } else {
      return out;
    }
  }
  if (!x.has_value()) return out;
  const smt::ValueRange r = enc.Lookup(*x).range;
  if (!r.FitsInt64() || r.hi - r.lo + 1 > max_values) return out;
  // The longest window of x's range from 0 (from its lower bound when that is positive,
  // to its upper bound when that is negative: interval ranges of indices often reach
  // below 0 where the values never do) where E is defined and injective.
  TableLemma t;
  t.x = *x;
  t.lo = static_cast<int64_t>(std::clamp<__int128>(0, r.lo, r.hi));
  t.hi = t.lo - 1;
  absl::flat_hash_set<int64_t> seen;
  bool increasing = true, decreasing = true;
  int64_t last = 0;
  for (int64_t v = t.lo; v <= static_cast<int64_t>(r.hi); ++v) {
    env[*x] = v;
    absl::StatusOr<int64_t> y = sim::expr::Evaluate(*s.value, env, spec_.source_name());
    if (!y.ok() || !seen.insert(*y).second) break;
    if (seen.size() > 1) {
      increasing &= *y > last;
      decreasing &= *y < last;
    }
    last = *y;
    t.vmin = seen.size() == 1 ? *y : std::min(t.vmin, *y);
    t.vmax = seen.size() == 1 ? *y : std::max(t.vmax, *y);
    t.hi = v;
  }
  // A monotone table helps too (dist's pi at p = N is k % N + k // N, the identity on
  // [0, N): 27 s for the injective query without the lemma, measured), but only a
  // permutation-like one makes WholeBoxAsBitVectors keep the configurations.
  t.monotone = increasing || decreasing;
  if (t.hi - t.lo + 1 >= 2) out = t;
  return out;
}

absl::Status SpecConfig::EncodeFreeTile(std::vector<Term>* tile, Term* inv,
                                        Term* defined) {
  ExprEncoder enc = enc_.Fork();
  for (size_t k = 0; k < spec_.coordinates().size(); ++k) {
    const Term t = Var(absl::StrCat("tile_", spec_.coordinates()[k]));
    const int64_t hi = static_cast<int64_t>(std::clamp<__int128>(
        extent_ranges_[k].hi - 1, 0, std::numeric_limits<int64_t>::max()));
    enc.Bind(spec_.coordinates()[k], t, 0, hi);
    tile->push_back(t);
  }
  const absl::flat_hash_set<std::string> direct = ReadsIterDirectly(spec_);
  std::vector<Term> defs;
  const std::vector<Stmt>& stmts = spec_.program().statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& s = stmts[k];
    if (&s == spec_.inverse()) break;
    if (!per_iter_[k] || !s.binds || direct.contains(s.name)) continue;
    if (std::find(spec_.coordinates().begin(), spec_.coordinates().end(), s.name) !=
        spec_.coordinates().end()) {
      continue;  // bound to the free tile above
    }
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(s.value));
    enc.Bind(s.name, e.value, e.range);
    defs.push_back(e.Defined(ctx_));
  }
  ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(spec_.inverse()->value));
  *inv = e.value;
  defs.push_back(e.Defined(ctx_));
  *defined = smt::And(ctx_, defs);
  return absl::OkStatus();
}

std::vector<int64_t> SpecConfig::Point(const smt::Model& m) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    out.push_back(symbolic(i) ? m.Int(params_[i]).value_or(ranges_[i].lo)
                              : ranges_[i].lo);
  }
  return out;
}

std::vector<NamedValue> SpecConfig::NamedPoint(const smt::Model& m) const {
  std::vector<NamedValue> out;
  const std::vector<int64_t> p = Point(m);
  for (size_t i = 0; i < p.size(); ++i) out.push_back({box_.names[i], p[i]});
  return out;
}

absl::StatusOr<ConfigOutcome> SpecConfig::MissedTile(const std::string& name,
                                                     const smt::Model& m,
                                                     const std::vector<int64_t>& tile,
                                                     Property* failed) {
  constexpr int64_t kMaxScan = int64_t{1} << 26;
  ASSIGN_OR_RETURN(sim::swizzle::SpecInstance inst, spec_.InstantiateUnchecked(Point(m)));
  std::vector<NamedValue> named_tile;
  for (size_t k = 0; k < tile.size(); ++k) {
    named_tile.push_back({spec_.coordinates()[k], tile[k]});
  }
  const std::string where = absl::StrCat(
      "tile (", sim::swizzle::ToString(named_tile), ") at ", ToString(inst.params()));
  if (inst.domain() <= kMaxScan) {
    std::vector<int64_t> coords(tile.size());
    bool reached = false;
    for (int64_t i = 0; i < inst.domain() && !reached; ++i) {
      const sim::swizzle::PointOutcome o = inst.Map(i, coords.data());
      reached = (o == sim::swizzle::PointOutcome::kTile ||
                 o == sim::swizzle::PointOutcome::kBadTail) &&
                coords == tile;
    }
    if (!reached) {
      ConfigOutcome out;
      out.kind = ConfigOutcome::Kind::kViolated;
      out.tiles = inst.tiles();
      out.witness.params = inst.params();
      out.witness.kind = ViolationKind::kMissed;
      out.witness.tile = named_tile;
      out.witness.detail =
          absl::StrCat("no iteration maps to tile (", sim::swizzle::ToString(named_tile),
                       ") (all ", inst.domain(), " iterations evaluated)");
      return out;
    }
  }
  ConfigOutcome o;
  o.kind = ConfigOutcome::Kind::kUnknown;
  o.reason = absl::StrCat(name, ": the inverse clause does not give the iteration of ",
                          where, ", so surjectivity is not proved there");
  *failed = kSurjective;
  return o;
}

absl::StatusOr<smt::SolverResult> SpecConfig::Solve(const std::string& name,
                                                    std::vector<Term>& q,
                                                    uint64_t rlimit) {
  if (bv_width_ > 0) {  // every variable needs its bounds: no relaxed query
    q.insert(q.end(), upper_.begin(), upper_.end());
    return run_.Run(ctx_, name, q, rlimit, /*bitblast=*/false, /*bitvector=*/true);
  }
  if (!upper_.empty() && run_.options().relax_upper_bounds) {
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name + ".relaxed", q, rlimit));
    if (r.result == SatResult::kUnsat) return r;
  }
  q.insert(q.end(), upper_.begin(), upper_.end());
  ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
  if (r.result != SatResult::kUnknown || !run_.options().bitblast_on_unknown) return r;
  // Portfolio: the same query as bit-vectors sized from the bounds (every variable is
  // bounded here: parameters by their ranges, iterations by the domain's range).
  ASSIGN_OR_RETURN(smt::SolverResult b,
                   run_.Run(ctx_, name + ".bv", q, rlimit, /*bitblast=*/true));
  return b.result == SatResult::kUnknown ? r : b;
}

absl::StatusOr<int> SpecConfig::WidthNeeded() {
  RETURN_IF_ERROR(EncodeParams());
  const int before = enc_.nonlinear_nodes();
  RETURN_IF_ERROR(EncodeIteration("iter").status());
  nonlinear_per_iter_ = enc_.nonlinear_nodes() - before;
  if (spec_.inverse() != nullptr && !spec_.program().Clauses("skip").empty()) {
    std::vector<Term> tile;
    Term inv, defined;
    RETURN_IF_ERROR(EncodeFreeTile(&tile, &inv, &defined));
  }
  smt::ValueRange tiles{1, 1};
  for (const smt::ValueRange& r : extent_ranges_) {
    tiles.hi = std::min<__int128>(tiles.hi * std::max<__int128>(r.hi, 1), __int128{1} << 100);
  }
  return std::max({enc_.RequiredWidth(), ExprEncoder::SignedBits(tiles),
                   ExprEncoder::SignedBits(domain_range_)});
}

int64_t SpecConfig::TilesOf(const smt::Model& m) const {
  int64_t t = 1;
  for (size_t k = 0; k < extents_.size(); ++k) {
    if (!is_rank_[k]) t = internal::SatMul(t, m.Int(extents_[k]).value_or(0));
  }
  return t;
}

absl::StatusOr<ConfigOutcome> SpecConfig::Violation(
    const std::string& name, const std::vector<Term>& query, const smt::Model& model,
    ViolationKind kind, const std::vector<const IterCopy*>& copies) {
  smt::Model m = model;
  if (run_.options().minimise) {
    Term tiles = enc_.Num(1);
    for (size_t k = 0; k < extents_.size(); ++k) {
      if (!is_rank_[k]) tiles = tiles * extents_[k];
    }
    ASSIGN_OR_RETURN(
        m, internal::ShrinkTiles(ctx_, run_, name, query, tiles, model,
                                 [this](const smt::Model& x) { return TilesOf(x); }));
  }
  const std::vector<int64_t> point = Point(m);
  ASSIGN_OR_RETURN(sim::swizzle::SpecInstance inst, spec_.InstantiateUnchecked(point));
  ConfigOutcome out;
  out.kind = ConfigOutcome::Kind::kViolated;
  out.tiles = inst.tiles();
  Counterexample& c = out.witness;
  c.params = inst.params();
  c.kind = kind;
  for (const IterCopy* copy : copies)
    c.iter_ids.push_back(m.Int(copy->iter).value_or(-1));
  std::sort(c.iter_ids.begin(), c.iter_ids.end());
  if (!copies.empty()) {
    for (size_t k = 0; k < spec_.coordinates().size(); ++k) {
      c.tile.push_back(
          {spec_.coordinates()[k], m.Int(copies[0]->coords[k]).value_or(-1)});
    }
  }
  // The concrete evaluator must agree with the model.
  for (int64_t it : c.iter_ids) {
    absl::StatusOr<sim::swizzle::SpecInstance::Point> p = inst.Explain(it);
    if (kind == ViolationKind::kEvalError) {
      if (p.ok()) {
        return absl::InternalError(absl::StrCat(
            "swizzle2d prove: ", name, " claims an evaluation error at ",
            sim::swizzle::ToString(c.params), " iter=", it, ", but it evaluates"));
      }
      c.detail = absl::StrCat("iteration ", it, ": ", p.status().message());
      continue;
    }
    if (!p.ok() || p->skipped || p->coords.size() != c.tile.size()) {
      return absl::InternalError(absl::StrCat(
          "swizzle2d prove: ", name, ": the model's iteration ", it, " at ",
          sim::swizzle::ToString(c.params), " is not a tile in the concrete evaluator"));
    }
    for (size_t k = 0; k < c.tile.size(); ++k) {
      if (p->coords[k] != c.tile[k].value) {
        return absl::InternalError(
            absl::StrCat("swizzle2d prove: the encoding of ", spec_.source_name(),
                         " disagrees with the evaluator at ",
                         sim::swizzle::ToString(c.params), " iter=", it, ": ",
                         c.tile[k].name, " = ", c.tile[k].value, " vs ", p->coords[k]));
      }
    }
    if (kind == ViolationKind::kTailSize) c.detail = p->tail_error;
  }
  const std::string tile = absl::StrCat("(", sim::swizzle::ToString(c.tile), ")");
  switch (kind) {
    case ViolationKind::kDuplicate:
      c.detail =
          c.iter_ids.size() == 2
              ? absl::StrCat("iterations ", c.iter_ids[0], " and ", c.iter_ids[1],
                             " both map to tile ", tile)
              : absl::StrCat("the domain (", inst.domain(), ") is larger than the box (",
                             out.tiles * inst.ranks(), ")");
      break;
    case ViolationKind::kMissed:
      c.detail =
          absl::StrCat("the domain (", inst.domain(), ") is smaller than the box (",
                       out.tiles * inst.ranks(), ")");
      break;
    case ViolationKind::kOutOfRange:
      c.detail = absl::StrCat("iteration ", c.iter_ids[0], " maps to ", tile,
                              ", outside the box");
      break;
    case ViolationKind::kTailSize:
      c.detail =
          absl::StrCat("iteration ", c.iter_ids[0], " at tile ", tile, ": ", c.detail);
      break;
    case ViolationKind::kEvalError:
      break;
  }
  return out;
}

// The state every property query of one SpecConfig::Prove run shares.
struct SpecConfig::Run {
  int from = kParamsError, to = kSurjective;
  Property* failed = nullptr;
  std::string prefix;
  uint64_t rlimit = 0;    // 0: the options' budget
  IterCopy a;             // the map at a symbolic iteration
  std::vector<Term> base;  // the point is admitted, a.iter in the domain (and no error)
  std::vector<Term> in_box;
  // The placement chain (SpecConfig::PlacementNonnegative, PlacementCopies).
  std::optional<bool> placed_nonnegative, placed_copies;
  std::optional<IterCopy> pa, pb;
  std::vector<Term> placed_obligations;
  bool Wants(Property p) const { return from <= p && to >= p; }
};

std::vector<Term> SpecConfig::With(std::vector<Term> extra) const {
  std::vector<Term> q = background_;
  const std::vector<Term>& side = enc_.side_conditions();  // shared by every copy
  q.insert(q.end(), side.begin(), side.end());
  q.insert(q.end(), extra.begin(), extra.end());
  return q;
}

ConfigOutcome SpecConfig::Unknown(const smt::SolverResult& r, Property p, Property* failed) {
  ConfigOutcome o;
  o.kind = ConfigOutcome::Kind::kUnknown;
  o.reason = internal::UnknownReason(r);
  *failed = p;
  return o;
}

absl::StatusOr<ConfigOutcome> SpecConfig::Prove(int from, int to, Property* failed) {
  RETURN_IF_ERROR(EncodeParams());
  Run run;
  run.from = from;
  run.to = to;
  run.failed = failed;
  run.prefix = Prefix();
  // With symbolic parameters left, a small budget: running out splits the configuration
  // (0: the default).
  run.rlimit = any_symbolic() ? run_.options().split_rlimit : 0;
  // 1. Every admitted point can be instantiated (else the sweep fails too: an error).
  if (from <= kParamsError) {
    const std::string name = run.prefix + "params_error";
    std::vector<Term> q = With({smt::Or(ctx_, param_errors_)});
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    if (r.result == SatResult::kUnknown) return Unknown(r, kParamsError, failed);
    if (r.result == SatResult::kSat) {
      const std::vector<int64_t> point = Point(r.model);
      absl::StatusOr<sim::swizzle::SpecInstance> inst = spec_.InstantiateUnchecked(point);
      if (!inst.ok() && !absl::IsFailedPrecondition(inst.status())) return inst.status();
      return absl::InternalError(absl::StrCat("swizzle2d prove: ", name,
                                              " found a point the evaluator accepts"));
    }
  }
  ASSIGN_OR_RETURN(run.a, EncodeIteration("iter"));
  run.base = {admitted_};
  run.base.insert(run.base.end(), run.a.domain.begin(), run.a.domain.end());
  run.base.insert(run.base.end(), run.a.facts.begin(), run.a.facts.end());
  if (!enc_.obligations().empty()) {
    // 1b. Every case-split divisor within its cases, at every iteration of the domain
    //     (the encoding over-approximates the map, so unsat is a proof); later queries
    //     assume it. Run whatever `from` is: the assumption is this encoding's own.
    const std::vector<Term> ob = enc_.obligations();
    std::vector<Term> q = run.base;
    q.push_back(!smt::And(ctx_, ob));
    q = With(q);
    ASSIGN_OR_RETURN(smt::SolverResult r,
                     Solve(run.prefix + "case_obligations", q, run.rlimit));
    if (r.result != SatResult::kUnsat) {
      obligations_failed_ = true;
      ConfigOutcome o;
      o.kind = ConfigOutcome::Kind::kUnknown;
      o.reason = r.result == SatResult::kSat
                     ? std::string("case_obligations: a divisor leaves its cases")
                     : internal::UnknownReason(r);
      *failed = static_cast<Property>(from);
      return o;
    }
    run.base.push_back(smt::And(ctx_, ob));
    obligations_proven_ = ob.size();
  }
  for (size_t k = 0; k < run.a.coords.size(); ++k) {
    run.in_box.push_back(run.a.coords[k] >= 0 && run.a.coords[k] < extents_[k]);
  }
  ASSIGN_OR_RETURN(ConfigOutcome o, ProvePerIteration(run));
  if (o.kind != ConfigOutcome::Kind::kHolds) return o;
  ASSIGN_OR_RETURN(o, ProveCount(run));
  if (o.kind != ConfigOutcome::Kind::kHolds) return o;
  const bool skip = !spec_.program().Clauses("skip").empty();
  if (skip && spec_.inverse() == nullptr && run_.options().surjective_by_counting &&
      to >= kSurjective) {
    // Counting first: when the coordinates are the counted bijection, the map is
    // injective on the iterations that yield tiles too, and the injective query is spared.
    bool by_coordinates = false;
    ASSIGN_OR_RETURN(ConfigOutcome c, ProveSurjectiveByCounting(run, &by_coordinates));
    if (c.kind == ConfigOutcome::Kind::kHolds && c.open.empty() && by_coordinates) return c;
    if (run.Wants(kInjective)) {
      ASSIGN_OR_RETURN(o, ProveInjective(run));
      if (o.kind != ConfigOutcome::Kind::kHolds) return o;
    }
    if (c.kind == ConfigOutcome::Kind::kUnknown) *failed = kSurjective;
    return c;
  }
  if (run.Wants(kInjective)) {
    ASSIGN_OR_RETURN(o, ProveInjective(run));
    if (o.kind != ConfigOutcome::Kind::kHolds) return o;
  }
  if (to >= kSurjective && skip) {
    if (spec_.inverse() != nullptr) return ProveSurjective(run);
    ConfigOutcome open;
    open.open =
        "surjectivity: the spec has `skip` and no `inverse` clause, and the box is too "
        "large to enumerate (in range, injective, tails proved)";
    return open;
  }
  return ConfigOutcome{};
}

absl::StatusOr<ConfigOutcome> SpecConfig::ProvePerIteration(Run& run) {
  const IterCopy& a = run.a;
  // 2. Evaluation errors, 3. in range, 4. tails: one copy of the map each.
  struct Check {
    Property property;
    const char* name;
    std::vector<Term> claim;  // a violation
    ViolationKind kind;
  };
  std::vector<Check> checks = {
      {kEvalError, "eval_error", {a.error}, ViolationKind::kEvalError},
      {kInRange, "in_range", {a.tile, !smt::And(ctx_, run.in_box)},
       ViolationKind::kOutOfRange},
      {kTailSize, "tail_size", {a.tile, a.bad_tail}, ViolationKind::kTailSize}};
  for (const Check& c : checks) {
    if (c.property == kTailSize && spec_.program().Clauses("tail").empty()) continue;
    if (run.Wants(c.property) && c.property == kEvalError && placement_.has_value() &&
        placement_->placed_past_bound) {
      // The placement chain: no error up to the skip `L >= B` (the iteration), L in
      // [0, B) past it, and no error in the placement at any L in [0, B) (its own query;
      // past the skip only placed statements run).
      std::vector<Term> q = run.base;
      q.push_back(a.error_to_bound);
      q = With(q);
      std::string name = run.prefix + "placement.eval_error_to_bound";
      ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
      if (r.result == SatResult::kSat) return Violation(name, q, r.model, c.kind, {&a});
      bool ok = r.result == SatResult::kUnsat;
      if (!ok) PlacementNote(name, r);
      if (ok) {
        ASSIGN_OR_RETURN(ok, PlacementNonnegative(run));
      }
      if (ok) {
        ASSIGN_OR_RETURN(ok, PlacementCopies(run));
      }
      if (ok) {
        const IterCopy& pa = *run.pa;
        q = {admitted_};
        q.insert(q.end(), pa.domain.begin(), pa.domain.end());
        q.insert(q.end(), pa.facts.begin(), pa.facts.end());
        if (!run.placed_obligations.empty()) {
          q.push_back(smt::And(ctx_, run.placed_obligations));
        }
        q.push_back(pa.error);
        q = With(q);
        name = run.prefix + "placement.eval_error";
        ASSIGN_OR_RETURN(r, Solve(name, q, run.rlimit));
        if (r.result == SatResult::kUnsat) {
          run.base.push_back(!a.error);
          continue;
        }
        PlacementNote(name, r);
      }
    }
    if (run.Wants(c.property) && c.property == kInRange && placement_.has_value()) {
      // The placement chain: L in [0, B) where the iteration yields a tile, and the
      // placement in the box for every such L (the placement's own query).
      ASSIGN_OR_RETURN(bool ok, PlacementNonnegative(run));
      if (ok) {
        ASSIGN_OR_RETURN(ok, PlacementCopies(run));
      }
      if (ok) {
        std::vector<Term> in_box;
        for (size_t k = 0; k < run.pa->coords.size(); ++k) {
          in_box.push_back(run.pa->coords[k] >= 0 && run.pa->coords[k] < extents_[k]);
        }
        std::vector<Term> q = PlacementBase(run);
        q.push_back(!smt::And(ctx_, in_box));
        q = With(q);
        const std::string name = run.prefix + "placement.in_range";
        ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
        if (r.result == SatResult::kUnsat) continue;
        PlacementNote(name, r);
      }
    }
    if (run.Wants(c.property)) {
      const std::string name = run.prefix + c.name;
      std::vector<Term> q = run.base;
      q.insert(q.end(), c.claim.begin(), c.claim.end());
      q = With(q);
      ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
      if (r.result == SatResult::kUnknown) return Unknown(r, c.property, run.failed);
      if (r.result == SatResult::kSat) return Violation(name, q, r.model, c.kind, {&a});
    }
    // Proved (now or by an earlier run): later queries assume it.
    if (c.property == kEvalError) run.base.push_back(!a.error);
  }
  return ConfigOutcome{};
}

absl::StatusOr<ConfigOutcome> SpecConfig::ProveCount(Run& run) {
  // 5. Counting: the domain has as many iterations as the box has tiles. (With `skip`,
  //    the domain may be larger; surjectivity is then the caller's business.)
  if (!run.Wants(kCount) || !spec_.program().Clauses("skip").empty()) return ConfigOutcome{};
  Term box_size = enc_.Num(1);
  for (const Term& e : extents_) box_size = box_size * e;
  for (int dir = 0; dir < 2; ++dir) {
    const std::string name = run.prefix + (dir == 0 ? "count_small" : "count_large");
    std::vector<Term> q =
        With({admitted_, dir == 0 ? domain_ < box_size : domain_ > box_size});
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    if (r.result == SatResult::kUnknown) return Unknown(r, kCount, run.failed);
    if (r.result == SatResult::kSat) {
      return Violation(name, q, r.model,
                       dir == 0 ? ViolationKind::kMissed : ViolationKind::kDuplicate, {});
    }
  }
  return ConfigOutcome{};
}

absl::StatusOr<ConfigOutcome> SpecConfig::ProveInjective(Run& run) {
  // 6. Injective. With an `inverse` clause, first the one-copy query "inv(f(i)) == i"
  //    (a left inverse makes f injective); if the inverse is wrong somewhere, that is no
  //    violation of the map: the direct two-copy query decides instead.
  const IterCopy& a = run.a;
  if (a.inv.has_value()) {
    const std::string name = run.prefix + "left_inverse";
    std::vector<Term> q = run.base;
    q.push_back(a.tile);
    q.push_back(smt::And(ctx_, run.in_box));
    q.push_back(!(a.inv_defined && *a.inv == a.iter));
    q = With(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    if (r.result == SatResult::kUnknown) return Unknown(r, kInjective, run.failed);
    if (r.result == SatResult::kUnsat) return ConfigOutcome{};
    notes_.push_back(absl::StrCat(
        name, ": the inverse clause does not invert the map at ",
        sim::swizzle::ToString(NamedPoint(r.model)), ", iter=",
        r.model.Int(a.iter).value_or(-1), "; injectivity by the two-copy query"));
  }
  ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter2"));
  // Built before the placement chain: its copies record obligations of their own, which
  // this query must not assume (TwoCopies takes b's as the ones recorded last).
  std::vector<Term> q = TwoCopies(run, b, {a.tile}, {!b.error, b.tile});
  // Proved above: the first copy lands in the box (this helps Z3, and changes nothing).
  q.push_back(smt::And(ctx_, run.in_box));
  for (size_t k = 0; k < a.coords.size(); ++k) q.push_back(a.coords[k] == b.coords[k]);
  if (placement_.has_value() && a.placed.has_value() && b.placed.has_value()) {
    bool proved = false;
    RETURN_IF_ERROR(ProveInjectiveByPlacement(run, b, &proved));
    if (proved) return ConfigOutcome{};
  }
  // With digits and digit_group_cases, when the one query runs out, the two copies'
  // order "a's group before b's, or the same group" is split into two queries, each with
  // the same rlimit (verify/README.md, "Eighth pass"). Measured: splitting first, or
  // after an eighth of the rlimit, made composable_kernel's m01 = 8 query 11x dearer.
  const bool group_cases =
      a.g.has_value() && b.g.has_value() && run_.options().digit_group_cases;
  std::vector<std::pair<std::string, std::optional<Term>>> cases = {{"injective", std::nullopt}};
  for (size_t u = 0; u < cases.size(); ++u) {
    const std::string name = run.prefix + cases[u].first;
    std::vector<Term> qc = q;
    if (cases[u].second.has_value()) qc.push_back(*cases[u].second);
    qc = With(qc);
    const bool first_of_split = group_cases && u == 0;
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, qc, run.rlimit));
    if (r.result == SatResult::kUnknown && first_of_split) {
      cases.push_back({"injective_groups", *a.g < *b.g});
      cases.push_back({"injective_in_group", *a.g == *b.g});
      continue;
    }
    if (r.result == SatResult::kUnknown) return Unknown(r, kInjective, run.failed);
    if (r.result == SatResult::kSat) {
      return Violation(name, qc, r.model, ViolationKind::kDuplicate, {&a, &b});
    }
    if (u == 0) break;  // the one query decided
  }
  return ConfigOutcome{};
}

absl::StatusOr<bool> SpecConfig::PlacementNonnegative(Run& run) {
  if (run.placed_nonnegative.has_value()) return *run.placed_nonnegative;
  const IterCopy& a = run.a;
  std::vector<Term> q = run.base;
  q.push_back(a.past_bound);  // implied by a.tile
  q.push_back(*a.placed < 0);
  q = With(q);
  const std::string name = run.prefix + "placement.nonnegative";
  ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
  run.placed_nonnegative = r.result == SatResult::kUnsat;
  if (!*run.placed_nonnegative) PlacementNote(name, r);
  return *run.placed_nonnegative;
}

absl::StatusOr<bool> SpecConfig::PlacementCopies(Run& run) {
  if (run.placed_copies.has_value()) return *run.placed_copies;
  const size_t ob_begin = enc_.obligations().size();
  ASSIGN_OR_RETURN(IterCopy pa, EncodeIteration("placed", std::nullopt, true));
  const size_t ob_a = enc_.obligations().size();
  ASSIGN_OR_RETURN(IterCopy pb, EncodeIteration("placed2", std::nullopt, true));
  const std::vector<Term>& ob = enc_.obligations();
  run.pa = std::move(pa);
  run.pb = std::move(pb);
  run.placed_copies = true;
  if (ob_a > ob_begin) {
    // The placement's divisor cases within their cases at every L in [0, B) (pb's are
    // pa's with fresh digits, so the one query proves both).
    std::vector<Term> q = {admitted_};
    q.insert(q.end(), run.pa->domain.begin(), run.pa->domain.end());
    q.insert(q.end(), run.pa->facts.begin(), run.pa->facts.end());
    q.push_back(!smt::And(
        ctx_, std::vector<Term>(ob.begin() + static_cast<std::ptrdiff_t>(ob_begin),
                                ob.begin() + static_cast<std::ptrdiff_t>(ob_a))));
    q = With(q);
    const std::string name = run.prefix + "placement.case_obligations";
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    run.placed_copies = r.result == SatResult::kUnsat;
    if (!*run.placed_copies) PlacementNote(name, r);
    run.placed_obligations.assign(ob.begin() + static_cast<std::ptrdiff_t>(ob_begin),
                                  ob.end());
  }
  return *run.placed_copies;
}

void SpecConfig::PlacementNote(const std::string& name, const smt::SolverResult& r) {
  notes_.push_back(absl::StrCat(
      name, ": ", r.result == SatResult::kSat ? "sat" : internal::UnknownReason(r),
      "; the direct query decides"));
}

std::vector<Term> SpecConfig::PlacementBase(const Run& run) {
  const IterCopy& pa = *run.pa;
  std::vector<Term> q = {admitted_};
  q.insert(q.end(), pa.domain.begin(), pa.domain.end());
  q.insert(q.end(), pa.facts.begin(), pa.facts.end());
  if (!run.placed_obligations.empty())
    q.push_back(smt::And(ctx_, run.placed_obligations));
  q.push_back(!pa.error);
  q.push_back(pa.tile);
  return q;
}

absl::Status SpecConfig::ProveInjectiveByPlacement(Run& run, const IterCopy& b,
                                                   bool* proved) {
  // The chain (verify/README.md, "Ninth pass"): the map is P(L(i)), P reading the
  // iteration only through L. If L is injective on the iterations that yield tiles, is
  // >= 0 there (and < B by the skip `L >= B`), and P is injective on [0, B) where it
  // yields tiles, then so is the map. Every query over-approximates its part, so unsat
  // is a proof; anything else only ends the chain (a sat is no violation: the direct
  // query decides).
  *proved = false;
  const IterCopy& a = run.a;
  ASSIGN_OR_RETURN(bool ok, PlacementNonnegative(run));
  if (!ok) return absl::OkStatus();
  {
    std::vector<Term> q = TwoCopies(run, b, {a.tile}, {!b.error, b.tile});
    q.push_back(*a.placed == *b.placed);
    q = With(q);
    const std::string name = run.prefix + "placement.injective_l";
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    if (r.result != SatResult::kUnsat) {
      PlacementNote(name, r);
      return absl::OkStatus();
    }
  }
  ASSIGN_OR_RETURN(ok, PlacementCopies(run));
  if (!ok) return absl::OkStatus();
  const IterCopy& pa = *run.pa;
  const IterCopy& pb = *run.pb;
  std::vector<Term> q = PlacementBase(run);
  q.insert(q.end(), pb.domain.begin(), pb.domain.end());
  q.insert(q.end(), pb.facts.begin(), pb.facts.end());
  q.push_back(!pb.error);
  q.push_back(pb.tile);
  for (size_t k = 0; k < pa.coords.size(); ++k) q.push_back(pa.coords[k] == pb.coords[k]);
  q.push_back(*pa.g < *pb.g || (*pa.g == *pb.g && *pa.j < *pb.j));
  q = With(q);
  const std::string name = run.prefix + "placement.injective";
  ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
  if (r.result != SatResult::kUnsat) {
    PlacementNote(name, r);
    return absl::OkStatus();
  }
  *proved = true;
  return absl::OkStatus();
}

std::vector<Term> SpecConfig::TwoCopies(const Run& run, const IterCopy& b,
                                        const std::vector<Term>& at_a,
                                        const std::vector<Term>& at_b) {
  const IterCopy& a = run.a;
  std::vector<Term> q = run.base;
  if (obligations_proven_ > 0) {  // the same lemma at the second copy
    const std::vector<Term>& ob = enc_.obligations();
    q.push_back(smt::And(ctx_, std::vector<Term>(ob.begin() + static_cast<std::ptrdiff_t>(obligations_proven_), ob.end())));
  }
  q.insert(q.end(), at_a.begin(), at_a.end());
  q.insert(q.end(), b.domain.begin(), b.domain.end());
  q.insert(q.end(), b.facts.begin(), b.facts.end());
  // Table lemmas across the copies: on the prefix, equal lets mean equal x.
  for (size_t u = 0; u < a.tables.size() && u < b.tables.size(); ++u) {
    const IterCopy::TableUse& ta = a.tables[u];
    const IterCopy::TableUse& tb = b.tables[u];
    const std::optional<TableLemma>& t = tables_.at(ta.stmt);
    if (ta.stmt != tb.stmt || !t.has_value()) continue;
    q.push_back(smt::Implies(ta.x >= t->lo && ta.x <= t->hi && tb.x >= t->lo &&
                                 tb.x <= t->hi && ta.value == tb.value,
                             ta.x == tb.x));
  }
  q.insert(q.end(), at_b.begin(), at_b.end());
  if (a.g.has_value() && b.g.has_value()) {  // digits: (g, j) in lexicographic order
    q.push_back(*a.g < *b.g || (*a.g == *b.g && *a.j < *b.j));
  } else {
    q.push_back(a.iter < b.iter);
  }
  return q;
}

absl::StatusOr<ConfigOutcome> SpecConfig::ProveSurjective(Run& run) {
  // 7. Surjective, for maps with `skip` (counting does not apply) and an inverse: every
  //    tile t of the box has inv(t) in the domain, not skipped, mapping back to t.
  const std::string name = run.prefix + "surjective";
  std::vector<Term> tile;
  Term inv, defined;
  RETURN_IF_ERROR(EncodeFreeTile(&tile, &inv, &defined));
  ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter_of_tile", inv));
  std::vector<Term> hit = {defined, !b.error, b.tile};
  hit.insert(hit.end(), b.domain.begin(), b.domain.end());
  for (size_t k = 0; k < tile.size(); ++k) hit.push_back(b.coords[k] == tile[k]);
  std::vector<Term> q = {admitted_};
  q.insert(q.end(), b.facts.begin(), b.facts.end());
  for (size_t k = 0; k < tile.size(); ++k) {
    q.push_back(tile[k] >= 0);
    q.push_back(tile[k] < extents_[k]);
  }
  q.push_back(!smt::And(ctx_, hit));
  q = With(q);
  ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
  if (r.result == SatResult::kUnknown) return Unknown(r, kSurjective, run.failed);
  if (r.result == SatResult::kSat) {
    std::vector<int64_t> t;
    for (const Term& x : tile) t.push_back(r.model.Int(x).value_or(-1));
    return MissedTile(name, r.model, t, run.failed);
  }
  return ConfigOutcome{};
}

// A counted map for ProveSurjectiveByCounting: F with its bounds B' (verify/README.md,
// "Seventh pass").
struct CountingCandidate {
  const char* what;
  std::vector<Term> f, b;
  std::vector<smt::ValueRange> f_range, b_range;
  Term defined;
  bool onto_box;  // F is the map's coordinates and B' the box
};

// The candidates of one copy of the iteration: its coordinates over the box, and the
// left sides of its skip's atoms over their bounds.
// atoms_first: the skip atoms before the coordinates (with a placement chain, whose
// bound is an atom's: the coordinates' own injectivity over the whole domain is the
// nonlinear query the chain avoids).
std::vector<CountingCandidate> CountingCandidates(
    const IterCopy& c, const std::vector<Term>& extents,
    const std::vector<smt::ValueRange>& extent_ranges, bool atoms_first) {
  std::vector<CountingCandidate> out;
  out.push_back({"coordinates", c.coords, extents, c.coord_ranges, extent_ranges,
                 c.defined_all, true});
  if (!c.skip_atoms.empty()) {
    CountingCandidate k{"skip_atoms", {}, {}, {}, {}, c.defined_to_skip, false};
    for (const IterCopy::SkipAtom& t : c.skip_atoms) {
      k.f.push_back(t.x);
      k.b.push_back(t.bound);
      k.f_range.push_back(t.x_range);
      k.b_range.push_back(t.bound_range);
    }
    out.push_back(std::move(k));
    if (atoms_first) std::swap(out.front(), out.back());
  }
  return out;
}

// Magnitudes for the bit-vector width check, saturated at 2^100 (ranges are 128-bit, so
// SatMul's int64 does not hold them). Ensures: the largest |value| of `r`, saturated.
__int128 SatMagnitude(const smt::ValueRange& r) {
  constexpr __int128 kCap = __int128{1} << 100;
  return std::min(kCap, std::max(r.lo < 0 ? -r.lo : r.lo, r.hi < 0 ? -r.hi : r.hi));
}

// Ensures: x * y for x, y >= 0, saturated at 2^100.
__int128 SatProduct(__int128 x, __int128 y) {
  constexpr __int128 kCap = __int128{1} << 100;
  return (x != 0 && y > kCap / x) ? kCap : std::min(kCap, x * y);
}

// The product `one * t[0] * t[1] * ...` (in that order) of the terms other than
// t[skip], and the saturated product of their ranges' magnitudes.
std::pair<Term, __int128> ProductOf(Term one, const std::vector<Term>& t,
                                    const std::vector<smt::ValueRange>& ranges,
                                    size_t skip = SIZE_MAX) {
  Term p = one;
  __int128 mag = 1;
  for (size_t k = 0; k < t.size(); ++k) {
    if (k == skip) continue;
    p = p * t[k];
    mag = SatProduct(mag, SatMagnitude(ranges[k]));
  }
  return {p, mag};
}

absl::StatusOr<ConfigOutcome> SpecConfig::ProveSurjectiveByCounting(Run& run,
                                                                    bool* by_coordinates) {
  // 7'. Surjective, for maps with `skip` and no inverse, by counting (verify/README.md,
  //     "Seventh pass"). Read the map past its skips as F = (F_1..F_n): its coordinates,
  //     or the left sides of the skip's atoms `x >= b`. With B' = [0,b_1) x .. x [0,b_n)
  //     (the box's extents, or the atoms' bounds), P = the product of b_k over k != m (one
  //     chosen coordinate m), idx(x) = x_m * P + the mixed-radix number of the other x_k
  //     (digits below b_k), and |D| the domain:
  //       (i)   per point: every b_k >= 1 (k != m), b_m >= 0, b_m * P <= |D|;
  //       (ii)  every iteration of the domain, skipped or not: F defined, F_k(i) in
  //             [0, b_k) for k != m, F_m(i) >= 0, and idx(F(i)) < |D|;
  //       (iii) F injective on the whole domain;
  //       (iv)  an iteration yields a tile exactly when F(i) is in B'.
  //     idx is injective where (ii) puts F, so by (ii)-(iii) idx o F is an injection of the
  //     domain into [0, |D|), a bijection (finite sets of one size); F(i) in B' is
  //     idx(F(i)) < b_m * P <= |D|, so by (iv) the iterations that yield a tile are as many
  //     as B' has points.
  //     F the coordinates: those iterations map onto B' = the box. F the atoms: there are
  //     (v) as many as the box has tiles (prod b_k == prod extents), and the map is
  //     injective there (proved before), so it is onto the box too. A query that is sat
  //     only rules the candidate out (never a violation: the sweep and the enumerated
  //     points decide those); one that runs out leaves the property unknown.
  const IterCopy& a = run.a;
  using Candidate = CountingCandidate;
  auto candidates = [&](const IterCopy& c) {
    return CountingCandidates(c, extents_, extent_ranges_, placement_.has_value());
  };
  const __int128 word = bv_width_ > 0 ? (__int128{1} << (bv_width_ - 1)) : 0;
  const std::vector<Candidate> mine = candidates(a);
  std::optional<IterCopy> second;
  std::vector<std::string> ruled_out;
  std::optional<smt::SolverResult> ran_out;
  // Ensures: true when the query is unsat; a sat answer rules the candidate out.
  auto unsat = [&](const std::string& name, std::vector<Term> q) -> absl::StatusOr<bool> {
    q = With(std::move(q));
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, run.rlimit));
    if (r.result == SatResult::kUnknown) ran_out = r;
    if (r.result != SatResult::kUnsat) {
      ruled_out.push_back(absl::StrCat(name, ": ", SatResultName(r.result)));
    }
    return r.result == SatResult::kUnsat;
  };
  for (size_t ci = 0; ci < mine.size(); ++ci) {
    const Candidate& c = mine[ci];
    const size_t n = c.f.size();
    std::optional<bool> injective;  // (iii), once per candidate
    for (size_t m = 0; m < n; ++m) {
      const std::string name = absl::StrCat(run.prefix, "surjective_count.", c.what, m);
      const auto [p, p_mag] = ProductOf(enc_.Num(1), c.b, c.b_range, m);
      const __int128 prod_mag = SatProduct(SatMagnitude(c.b_range[m]), p_mag);
      if (bv_width_ > 0 && (SatProduct(SatMagnitude(c.f_range[m]) + 1, p_mag) >= word ||
                            prod_mag >= word ||
                            p_mag >= word)) {
        ruled_out.push_back(absl::StrCat(name, ": products need wider words"));
        continue;
      }
      // (i) per point.
      std::vector<Term> fit = {c.b[m] >= 0, c.b[m] * p <= domain_};
      for (size_t k = 0; k < n; ++k) {
        if (k != m) fit.push_back(c.b[k] >= 1);
      }
      ASSIGN_OR_RETURN(bool ok, unsat(name + ".padded_box", {admitted_, !smt::And(ctx_, fit)}));
      if (!ok) continue;
      // (ii) every iteration of the domain has an index below |D|.
      Term index = c.f[m] * p, radix = enc_.Num(1);
      for (size_t k = 0; k < n; ++k) {
        if (k == m) continue;
        index = index + c.f[k] * radix;
        radix = radix * c.b[k];
      }
      std::vector<Term> in_e = {c.defined, c.f[m] >= 0, index < domain_};
      std::vector<Term> in_b = {c.f[m] >= 0, c.f[m] < c.b[m]};
      for (size_t k = 0; k < n; ++k) {
        if (k == m) continue;
        in_e.push_back(c.f[k] >= 0 && c.f[k] < c.b[k]);
        in_b.push_back(c.f[k] >= 0 && c.f[k] < c.b[k]);
      }
      std::vector<Term> q = run.base;
      q.push_back(!smt::And(ctx_, in_e));
      ASSIGN_OR_RETURN(ok, unsat(name + ".in_padded_box", q));
      if (!ok) continue;
      // (iv) the skip removes exactly the padding.
      q = run.base;
      q.push_back(smt::And(ctx_, in_e));
      q.push_back(a.tile != smt::And(ctx_, in_b));
      ASSIGN_OR_RETURN(ok, unsat(name + ".skip_is_padding", q));
      if (!ok) continue;
      // (iii) F injective on the domain (every coordinate choice shares it).
      if (!injective.has_value()) {
        if (!second.has_value()) {
          ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter2"));
          second = std::move(b);
        }
        const Candidate cb = candidates(*second)[ci];
        std::vector<Term> at_b = {cb.defined};
        for (size_t k = 0; k < n; ++k) at_b.push_back(c.f[k] == cb.f[k]);
        ASSIGN_OR_RETURN(
            injective, unsat(absl::StrCat(run.prefix, "surjective_count.", c.what,
                                          ".injective"),
                             TwoCopies(run, *second, in_e, at_b)));
      }
      if (!*injective) break;
      if (!c.onto_box) {
        // (v) as many iterations as tiles.
        const auto [tiles, t_mag] = ProductOf(enc_.Num(1), extents_, extent_ranges_);
        const auto [padded, b_mag] = ProductOf(enc_.Num(1), c.b, c.b_range);
        if (bv_width_ > 0 && (t_mag >= word || b_mag >= word)) {
          ruled_out.push_back(absl::StrCat(name, ".count: products need wider words"));
          break;
        }
        ASSIGN_OR_RETURN(ok, unsat(name + ".count", {admitted_, tiles != padded}));
        if (!ok) break;
      }
      *by_coordinates = c.onto_box;
      return ConfigOutcome{};
    }
  }
  if (ran_out.has_value()) return Unknown(*ran_out, kSurjective, run.failed);
  // No candidate applies here: unknown, not open, so that the next encoding (a word too
  // narrow for the index) or a split (cutlass_sm90_raster's padded coordinate is row or
  // column by along_n) may find one, and a configuration of constants is evaluated.
  ConfigOutcome o;
  o.kind = ConfigOutcome::Kind::kUnknown;
  o.reason = absl::StrCat(
      "surjectivity: the spec has `skip` and no `inverse` clause, and counting did not "
      "apply (",
      absl::StrJoin(ruled_out, "; "), ")");
  *run.failed = kSurjective;
  return o;
}

// One configuration through the portfolio of encodings (options.encodings, in order):
// each encoding resumes at the property the one before it ran out on, and the first
// decided answer wins. The bit-vector encoding is sized by an integer encoding of the
// same configuration (SpecConfig::WidthNeeded, plus one spare bit) and skipped when that
// needs more than 64 bits. Ensures: the outcome; on kUnknown, *failed is the property the
// last encoding ran out on and the reason names every encoding's query.
absl::StatusOr<ConfigOutcome> ProvePortfolio(const SwizzleSpec& spec, const SpecBox& box,
                                             const std::vector<ParamRange>& ranges,
                                             QueryRunner& run, int from, int to,
                                             Property* failed,
                                             std::vector<std::string>* notes) {
  std::vector<SpecEncoding> encodings = run.options().encodings;
  if (encodings.empty()) encodings = {SpecEncoding::kInteger};
  ConfigOutcome out;
  out.kind = ConfigOutcome::Kind::kUnknown;
  std::vector<std::string> reasons;
  *failed = static_cast<Property>(from);
  int bv_width = 0;
  if (absl::c_linear_search(encodings, SpecEncoding::kBitVector)) {
    SpecConfig probe(spec, box, ranges, run);
    ASSIGN_OR_RETURN(bv_width, probe.WidthNeeded());
    bv_width += 1;  // the spare bit of the division fix-ups
    // A linear configuration (constant or case-split divisors) stays with integers first:
    // measured on serpentine, C constant, R in 1..256: 256 configurations in 4.8 s as
    // integers, 25 s as 16-bit bit-vectors.
    // So does one whose iteration is digits (digit_iterations) with a linear
    // per-iteration part (the domain's R*C aside): measured on gemm_nz's declared box,
    // 7 integer configurations in under a second, bit-vectors first > 60 s.
    const bool nonlinear = probe.has_digits() ? probe.nonlinear_per_iteration() > 0
                                              : probe.nonlinear_nodes() > 0;
    // So does one with a permutation table (SpecConfig::table_lemmas): measured on
    // dist_d0's declared box, 86 configurations, 42-46 s as bit-vectors first (0.5-2.5 s
    // each), 105 s as integers first (0.1-28 s each, erratic).
    // (Every configuration of such a box: at p = 1 and p = N the table is the identity,
    // and as integers those were among the slowest, 7-27 s.)
    if (bv_width <= run.options().bitvector_first_bits && (nonlinear || box.table_configs)) {
      std::stable_partition(encodings.begin(), encodings.end(),
                            [](SpecEncoding e) { return e == SpecEncoding::kBitVector; });
    }
  }
  for (SpecEncoding e : encodings) {
    const int width = e == SpecEncoding::kBitVector ? bv_width : 0;
    if (width > 64) {
      reasons.push_back(absl::StrCat("bit-vectors: the values need ", width - 1,
                                     " bits, more than 63"));
      continue;
    }
    std::optional<SpecConfig> config;
    config.emplace(spec, box, ranges, run, width, run.options().case_obligations);
    Property f = *failed;
    absl::StatusOr<ConfigOutcome> o = config->Prove(*failed, to, &f);
    if (o.ok() && o->kind == ConfigOutcome::Kind::kUnknown && config->obligations_failed()) {
      // The divisors leave their cases somewhere (or that query ran out): the encoding
      // with the nonlinear fallback, from the same property.
      config.emplace(spec, box, ranges, run, width, false);
      f = *failed;
      o = config->Prove(*failed, to, &f);
    }
    if (width > 0 && absl::IsFailedPrecondition(o.status())) {
      reasons.push_back(absl::StrCat("bit-vectors: ", o.status().message()));
      continue;
    }
    if (!o.ok()) return o.status();
    for (std::string& n : config->notes_) notes->push_back(std::move(n));
    if (o->kind != ConfigOutcome::Kind::kUnknown) return *std::move(o);
    *failed = f;
    reasons.push_back(o->reason);
  }
  out.reason = absl::StrJoin(reasons, "; then ");
  return out;
}

// By default (no symbolic_params given), a box whose bit-vector encoding with every
// parameter symbolic is at most bitvector_first_bits wide is proved as one configuration
// with every parameter symbolic: bit-blasting handles a few more bits far better than
// one configuration per combination of small parameters (measured on the corpus, e.g.
// tdist_ag_gemm: 1 configuration in 11 s instead of 1024 configurations, > 60 s).
bool Admitted(const SwizzleSpec& spec, const SpecBox& box,
              const std::vector<ParamRange>& ranges);

absl::Status WholeBoxAsBitVectors(const SwizzleSpec& spec, QueryRunner& run, SpecBox* box,
                                  SwizzleProof* proof) {
  const SwizzleProveOptions& o = run.options();
  if (!o.symbolic_params.empty() ||
      !absl::c_linear_search(o.encodings, SpecEncoding::kBitVector) ||
      std::all_of(box->symbolic.begin(), box->symbolic.end(), [](bool b) { return b; })) {
    return absl::OkStatus();
  }
  // An iteration as digits (digit_iterations) whose constant factor k is made of
  // enumerated parameters keeps the configurations linear for the integer core however
  // wide the box: no reason to bit-blast.
  if (o.digit_iterations && absl::c_linear_search(o.encodings, SpecEncoding::kInteger)) {
    if (std::optional<DigitPlan> plan = PlanDigits(spec, o.digit_residues);
        plan.has_value()) {
      // Digits matter when the common factor is symbolic (S = s*R with R symbolic; with
      // S constant the division is linear anyway) and k is enumerated (constant).
      auto reads_symbolic = [&](const std::vector<sim::expr::ExprPtr>& fs) {
        for (const sim::expr::ExprPtr& f : fs) {
          for (const std::string& v : sim::expr::FreeVariables(*f)) {
            for (size_t i = 0; i < box->names.size(); ++i) {
              if (box->names[i] == v && box->symbolic[i]) return true;
            }
          }
        }
        return false;
      };
      if (reads_symbolic(plan->common) && !reads_symbolic(plan->k)) {
        // ... and when the map at one configuration (enumerated parameters at their last
        // value: at the first, `g % m01` may be the constant 0) has no product of unknowns
        // per iteration: composable_kernel's
        // `idx_M01 * n0` keeps it nonlinear (measured: > 60 s as integer configurations,
        // 1.4 s as the one bit-vector configuration).
        std::vector<ParamRange> first = box->ranges;
        for (size_t i = 0; i < first.size(); ++i) {
          if (!box->symbolic[i]) {
            const int64_t v = box->values[i].empty() ? first[i].hi : box->values[i].back();
            first[i] = ParamRange{v, v};
          }
        }
        SpecConfig config(spec, *box, first, run);
        RETURN_IF_ERROR(config.WidthNeeded().status());
        if (config.nonlinear_per_iteration() == 0) return absl::OkStatus();
      }
    }
  }
  // A map with a table lemma once the enumerated parameters are constants (dist's
  // rank interleave pi: a permutation of [0, N) for each N and stride) keeps its
  // configurations: the lemma needs them constant, and with it each configuration is
  // linear for the integer core (measured on dist_d0: verify/README.md, "Fifth pass").
  // Only on boxes of few combinations (kTableConfigs, every one probed: at p = 1 and
  // p = N the interleave is the identity, monotone, no lemma): each configuration then
  // costs a bit-vector proof of 0.3-2.5 s (dist_d0, 80 of them), and the whole box as
  // bit-vectors can be far cheaper where it works at all: tdist_ag_gemm_multinode's rank
  // rotations are tables too, 4 s as the one configuration, 57 s as its 1 080
  // configurations (measured, verify/README.md "Fifth pass").
  if (o.table_lemma_values > 0) {
    constexpr int64_t kTableConfigs = 128;
    std::vector<int64_t> counts(box->names.size(), 1);
    int64_t total = 1;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (box->symbolic[i]) continue;
      counts[i] = box->values[i].empty() ? box->ranges[i].size()
                                         : static_cast<int64_t>(box->values[i].size());
      total = internal::SatMul(total, std::max<int64_t>(counts[i], 1));
    }
    int64_t admitted = 0;
    std::optional<std::string> table_at;
    for (int64_t n = 0; n < total && total <= 2 * kTableConfigs && admitted <= kTableConfigs;
         ++n) {
      int64_t idx = n;
      std::vector<ParamRange> at = box->ranges;
      for (size_t i = counts.size(); i-- > 0;) {
        if (box->symbolic[i]) continue;
        const int64_t c = std::max<int64_t>(counts[i], 1), k = idx % c;
        idx /= c;
        const int64_t v = box->values[i].empty() ? box->ranges[i].lo + k : box->values[i][k];
        at[i] = ParamRange{v, v};
      }
      if (!Admitted(spec, *box, at)) continue;
      ++admitted;
      if (table_at.has_value()) continue;
      SpecConfig config(spec, *box, at, run);
      RETURN_IF_ERROR(config.WidthNeeded().status());
      if (config.table_lemmas() > 0) {
        table_at = std::string(absl::StripSuffix(config.Prefix(), "."));
      }
    }
    if (table_at.has_value() && total <= 2 * kTableConfigs && admitted <= kTableConfigs) {
      box->table_configs = true;
      proof->notes.push_back(absl::StrCat(
          "a permutation table at ", *table_at, " (table lemma): the ", admitted,
          " configurations of the enumerated parameters are kept, bit-vectors first"));
      return absl::OkStatus();
    }
  }
  SpecConfig probe(spec, *box, box->ranges, run);
  ASSIGN_OR_RETURN(const int needed, probe.WidthNeeded());
  if (needed + 1 > o.bitvector_first_bits) return absl::OkStatus();
  box->symbolic.assign(box->names.size(), true);
  for (std::vector<int64_t>& v : box->values) v.clear();
  proof->notes.push_back(absl::StrCat(
      "every parameter symbolic: the whole box fits a ", needed + 1,
      "-bit bit-vector encoding (bitvector_first_bits = ", o.bitvector_first_bits, ")"));
  return absl::OkStatus();
}

// Ensures: false when a `require` that reads only enumerated parameters is false at
//          `values` (the point is not in the box); true otherwise.
bool Admitted(const SwizzleSpec& spec, const SpecBox& box,
              const std::vector<ParamRange>& ranges) {
  const sim::expr::Program& program = spec.program();
  sim::expr::Env env;
  for (size_t i = 0; i < box.names.size(); ++i) {
    if (ranges[i].lo == ranges[i].hi) env[box.names[i]] = ranges[i].lo;
  }
  for (const Stmt* r : program.Clauses("require")) {
    bool only_enumerated = true;
    for (const std::string& p : program.FreeParams(*r->value)) {
      only_enumerated &= env.contains(p);
    }
    if (!only_enumerated) continue;
    absl::StatusOr<int64_t> v =
        sim::expr::Evaluate(*program.InlineLets(r->value), env, spec.source_name());
    if (v.ok() && *v == 0) return false;  // errors are left to the params_error query
  }
  return true;
}

int64_t BoxPoints(const SpecBox& box) {
  int64_t n = 1;
  for (const ParamRange& r : box.ranges) n = internal::SatMul(n, r.size());
  return n;
}

// The smallest counterexample by enumeration: over the whole box when it is small
// enough to sweep, else with the symbolic parameters capped at the witness's values.
void MinimiseSpec(const SwizzleSpec& spec, const SpecBox& box, const ConfigOutcome& o,
                  const SwizzleProveOptions& options, SwizzleProof* proof) {
  proof->counterexample = o.witness;
  proof->minimised = false;
  if (!options.minimise) return;
  SpecSweep sweep;
  const bool whole = BoxPoints(box) <= options.minimise_sweep.max_param_points;
  for (size_t i = 0; i < box.names.size(); ++i) {
    ParamRange r = box.ranges[i];
    if (!whole && box.symbolic[i]) r.hi = std::max(r.lo, o.witness.params[i].value);
    sweep.ranges.push_back({box.names[i], r});
  }
  absl::StatusOr<sim::swizzle::CheckResult> r =
      sim::swizzle::Sweep(spec, sweep, options.minimise_sweep);
  if (!r.ok() || r->verdict != Verdict::kViolated) {
    proof->notes.push_back(
        absl::StrCat("counterexample not minimised: the enumeration sweep ",
                     !r.ok()                         ? std::string(r.status().message())
                     : r->verdict == Verdict::kHolds ? "found no violation"
                                                     : r->reason));
    return;
  }
  proof->counterexample = r->counterexample;
  proof->minimised = true;
  if (!whole) {
    proof->notes.push_back(
        "minimised over the box with the symbolic parameters capped at the solver's "
        "witness (the whole box is too large to sweep)");
  }
}

// Merges sub-boxes with the same outcome that differ in one parameter whose ranges touch
// (neighbours in the list, repeatedly), so that a report lists few boxes.
std::vector<SubBox> MergeBoxes(std::vector<SubBox> boxes) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<SubBox> out;
    for (SubBox& b : boxes) {
      if (!out.empty() && out.back().how == b.how &&
          out.back().ranges.size() == b.ranges.size()) {
        SubBox& last = out.back();
        int differ = -1;
        bool mergeable = true;
        for (size_t i = 0; i < b.ranges.size() && mergeable; ++i) {
          if (last.ranges[i].second == b.ranges[i].second) continue;
          if (differ >= 0 || last.ranges[i].second.hi + 1 != b.ranges[i].second.lo) {
            mergeable = false;
          }
          differ = static_cast<int>(i);
        }
        if (mergeable && differ >= 0) {
          last.ranges[differ].second.hi = b.ranges[differ].second.hi;
          changed = true;
          continue;
        }
      }
      out.push_back(std::move(b));
    }
    boxes = std::move(out);
  }
  return boxes;
}

// Ensures: "proven: A; B | enumerated: C | open: D (why)", at most `limit` boxes a kind.
std::string CoverageSummary(const std::vector<SubBox>& boxes, size_t limit = 12) {
  std::vector<std::string> kinds;
  for (SubBox::How how :
       {SubBox::How::kProven, SubBox::How::kEnumerated, SubBox::How::kOpen}) {
    std::vector<std::string> items;
    size_t n = 0;
    for (const SubBox& b : boxes) {
      if (b.how != how) continue;
      if (++n > limit) continue;
      items.push_back(b.why.empty() || how != SubBox::How::kOpen
                          ? b.ToString()
                          : absl::StrCat(b.ToString(), " (", b.why, ")"));
    }
    if (n == 0) continue;
    if (n > limit) items.push_back(absl::StrCat("and ", n - limit, " more"));
    kinds.push_back(absl::StrCat(SubBoxHowName(how), ": ", absl::StrJoin(items, "; ")));
  }
  return absl::StrJoin(kinds, " | ");
}

// With `skip` and no `inverse`, surjectivity can only be enumerated: when the box is
// small enough, the sweep decides every property at once, so it runs first (before any
// solver query) and is the answer. Its iterations are counted first: a box past
// `max_enumerated_points` is not swept at all (the sweep would spend the budget checking
// points before it stopped), so the solver gets the time and surjectivity stays open.
// Ensures: true when it decided (*proof filled in).
absl::StatusOr<bool> EnumerateFirst(const SwizzleSpec& spec, const SpecSweep& whole_box,
                                    const SwizzleProveOptions& options,
                                    SwizzleProof* proof) {
  sim::swizzle::SweepOptions so = options.minimise_sweep;
  so.max_points = options.max_enumerated_points;
  ASSIGN_OR_RETURN(
      std::optional<int64_t> iterations,
      sim::swizzle::SpecBoxIterations(spec, whole_box, so.max_points, so.max_param_points));
  if (!iterations.has_value()) {
    // Too large to sweep whole. The low corner (every range cut to its first 16 values)
    // is swept when it fits, for the violations with few tiles, which the solver cannot
    // find for surjectivity; a violation there is real (evaluated) and the answer.
    SpecSweep corner = whole_box;
    for (auto& [n, r] : corner.ranges) r.hi = std::min(r.hi, r.lo + 15);
    ASSIGN_OR_RETURN(
        std::optional<int64_t> corner_iterations,
        sim::swizzle::SpecBoxIterations(spec, corner, so.max_points, so.max_param_points));
    std::string corner_note = "the low corner (every range cut to its first 16 values) is too large to sweep too";
    if (corner_iterations.has_value()) {
      absl::StatusOr<sim::swizzle::CheckResult> r = sim::swizzle::Sweep(spec, corner, so);
      if (!r.ok() && !absl::IsResourceExhausted(r.status())) return r.status();
      if (r.ok() && r->verdict == Verdict::kViolated) {
        proof->checked = CheckedBy::kEnumerated;
        proof->verdict = Verdict::kViolated;
        proof->counterexample = r->counterexample;
        proof->minimised = true;
        proof->configs = r->param_points;
        proof->notes.push_back(
            "the spec has `skip` and no `inverse` clause and its box is too large to "
            "enumerate; the enumeration sweep of the low corner (every range cut to its "
            "first 16 values) found this violation, the smallest there");
        return true;
      }
      corner_note = absl::StrCat("the low corner (every range cut to its first 16 values, ",
                                 *corner_iterations, " iterations) was swept: ",
                                 r.ok() ? std::string(sim::swizzle::VerdictName(r->verdict))
                                        : std::string("not swept"));
    }
    proof->notes.push_back(absl::StrCat(
        "the spec has `skip` and no `inverse` clause, and the box has more than ",
        so.max_points, " iterations (max_enumerated_points, counted before sweeping), so "
        "surjectivity is not enumerated: the solver proves the other properties, and "
        "surjectivity by counting where that applies (surjective_by_counting; else it "
        "stays open); ", corner_note));
    return false;
  }
  absl::StatusOr<sim::swizzle::CheckResult> r = sim::swizzle::Sweep(spec, whole_box, so);
  if (!r.ok() && !absl::IsResourceExhausted(r.status())) return r.status();
  if (!r.ok() || r->verdict == Verdict::kInconclusive) return false;
  proof->checked = CheckedBy::kEnumerated;
  proof->notes.push_back(
      "the spec has `skip` and no `inverse` clause, so surjectivity cannot be proved "
      "symbolically; the box is small enough to enumerate, and enumeration decided it "
      "(surjectivity enumerated, with every other property)");
  proof->verdict = r->verdict;
  proof->configs = r->param_points;
  if (r->verdict == Verdict::kViolated) {
    proof->counterexample = r->counterexample;
    proof->minimised = true;
  }
  return true;
}

// A configuration to prove (every parameter a constant or a range), from property `from`.
struct Work {
  std::vector<ParamRange> ranges;
  int from = kParamsError;
};

// Ensures: the parts of `w` after a query ran out on property `failed`: split on the
// symbolic parameter that the most divisors depend on, then the one with the fewest
// values (declaration order on ties): into its values when there are few, else into two
// halves. The parts resume at `failed`.
std::vector<Work> SplitWork(const SpecBox& box, const Work& w, Property failed,
                            const SwizzleProveOptions& options) {
  size_t pick = 0;
  std::pair<int, int64_t> best = {1, std::numeric_limits<int64_t>::max()};
  for (size_t i = 0; i < w.ranges.size(); ++i) {
    const std::pair<int, int64_t> key = {-box.in_divisors[i], w.ranges[i].size()};
    if (w.ranges[i].lo < w.ranges[i].hi && key < best) {
      best = key;
      pick = i;
    }
  }
  const ParamRange r = w.ranges[pick];
  std::vector<ParamRange> parts;
  if (r.size() <= options.split_fanout) {
    for (int64_t x = r.lo; x <= r.hi; ++x) parts.push_back(ParamRange::Of(x));
  } else {
    const int64_t mid = r.lo + (r.hi - r.lo) / 2;
    parts = {ParamRange{r.lo, mid}, ParamRange{mid + 1, r.hi}};
  }
  std::vector<Work> out;
  for (const ParamRange& part : parts) {
    Work child = w;
    child.ranges[pick] = part;
    child.from = failed;
    out.push_back(std::move(child));
  }
  return out;
}

// A configuration with every parameter constant whose query still ran out: evaluated
// when it has at most enumerate_stuck_points iterations. Ensures: kHolds or kViolated
// when evaluation decided, else kUnknown.
absl::StatusOr<ConfigOutcome> EvaluatePoint(const SwizzleSpec& spec, const Work& w,
                                            const SwizzleProveOptions& options) {
  ConfigOutcome out;
  out.kind = ConfigOutcome::Kind::kUnknown;
  std::vector<int64_t> point;
  for (const ParamRange& r : w.ranges) point.push_back(r.lo);
  absl::StatusOr<sim::swizzle::SpecInstance> inst = spec.InstantiateUnchecked(point);
  if (!inst.ok() || options.enumerate_stuck_points <= 0 ||
      inst->domain() > options.enumerate_stuck_points) {
    return out;
  }
  ASSIGN_OR_RETURN(sim::swizzle::CheckResult c, sim::swizzle::CheckSpecInstance(*inst));
  if (c.verdict == Verdict::kHolds) out.kind = ConfigOutcome::Kind::kHolds;
  if (c.verdict == Verdict::kViolated) {
    out.kind = ConfigOutcome::Kind::kViolated;
    out.witness = *c.counterexample;
    out.tiles = inst->tiles();
  }
  return out;
}

// Ensures: the sub-box `r` of `box` with its outcome.
SubBox MakeSubBox(const SpecBox& box, const std::vector<ParamRange>& r, SubBox::How how,
                  std::string why) {
  SubBox b;
  b.how = how;
  b.why = std::move(why);
  for (size_t i = 0; i < r.size(); ++i) b.ranges.push_back({box.names[i], r[i]});
  return b;
}

// The configurations: every combination of the enumerated parameters' values, in
// odometer order (the last parameter fastest), at most max_configs of them; the rest of
// the odometer goes to *open as boxes.
std::vector<Work> Configurations(const SpecBox& box, const SwizzleProveOptions& options,
                                 std::vector<SubBox>* open) {
  auto count_of = [&](size_t i) -> int64_t {
    return box.values[i].empty() ? box.ranges[i].size()
                                 : static_cast<int64_t>(box.values[i].size());
  };
  auto value_of = [&](size_t i, int64_t idx) -> int64_t {
    return box.values[i].empty() ? box.ranges[i].lo + idx : box.values[i][idx];
  };
  std::vector<Work> roots;
  std::vector<int64_t> idx(box.names.size(), 0);
  bool empty = false;
  for (size_t i = 0; i < idx.size(); ++i) empty |= !box.symbolic[i] && count_of(i) == 0;
  auto point_ranges = [&] {
    std::vector<ParamRange> v(box.names.size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = box.symbolic[i] ? box.ranges[i] : ParamRange::Of(value_of(i, idx[i]));
    }
    return v;
  };
  for (bool done = empty; !done;) {
    if (static_cast<int64_t>(roots.size()) >= options.max_configs) {
      // The rest of the odometer, from the current point on, as boxes.
      const std::string why = absl::StrCat("max_configs = ", options.max_configs,
                                           " configurations reached");
      std::vector<ParamRange> v = point_ranges();
      open->push_back(MakeSubBox(box, v, SubBox::How::kOpen, why));
      for (size_t k = v.size(); k-- > 0;) {
        if (box.symbolic[k]) continue;
        if (idx[k] + 1 < count_of(k)) {
          std::vector<ParamRange> rest = v;
          rest[k] = ParamRange{value_of(k, idx[k] + 1), box.ranges[k].hi};
          for (size_t j = k + 1; j < v.size(); ++j) rest[j] = box.ranges[j];
          open->push_back(MakeSubBox(box, rest, SubBox::How::kOpen, why));
        }
      }
      break;
    }
    roots.push_back({point_ranges(), kParamsError});
    done = true;
    for (size_t k = idx.size(); k-- > 0;) {
      if (box.symbolic[k]) continue;
      if (idx[k] + 1 < count_of(k)) {
        ++idx[k];
        done = false;
        break;
      }
      idx[k] = 0;
    }
  }
  return roots;
}

// Adds a sub-proof's counters and notes to `proof`.
void Absorb(const std::string& what, const SwizzleProof& sub, SwizzleProof* proof) {
  internal::AddSubProofCounters(sub, proof);
  for (const std::string& n : sub.notes) proof->notes.push_back(absl::StrCat(what, ": ", n));
}

// The reduced spec (SwizzleProveOptions::reduce_specs). Ensures: the proof when the
// reduction decided; nullopt when it does not apply or did not decide (the caller then
// proves the spec itself), with what its parts spent added to `*spent` (counters and
// queries, AddSubProofCounters, and one note naming the verdict that ended it).
//
// Under a total budget (total_rlimit) the parts share it: each gets what the parts
// before it left (RemainingBudget), and none runs once it is spent. The caller charges
// `*spent` to the spec's own proof, so that the direct route gets only the rest. (Before,
// the index part and every payload part had the whole total_rlimit, and an undecided
// reduction's spending was dropped: the direct route had the whole budget again;
// `ReducedSpecChargesItsPartsToTheTotalBudget`.)
absl::StatusOr<std::optional<SwizzleProof>> ProveReduced(const SwizzleSpec& spec,
                                                         const SpecSweep& ranges,
                                                         const SwizzleProveOptions& options,
                                                         SwizzleProof* spent) {
  if (!options.reduce_specs || !options.symbolic_params.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(std::optional<internal::ReducedSpec> reduced,
                   internal::ReduceSpec(spec, ranges));
  if (!reduced.has_value()) return std::nullopt;
  SwizzleProveOptions sub = options;
  sub.reduce_specs = false;
  SwizzleProof proof;
  for (const std::string& n : reduced->notes) proof.notes.push_back("reduced: " + n);
  auto budget_spent = [&] {
    return options.total_rlimit > 0 && proof.rlimit_spent >= options.total_rlimit;
  };
  std::optional<Verdict> failed;
  std::string ended;  // the part that ended the reduction, and how
  {
    SwizzleProveOptions io = sub;
    io.total_rlimit = internal::RemainingBudget(options, proof.rlimit_spent);
    ASSIGN_OR_RETURN(SwizzleProof index, ProveSpec(*reduced->index, {}, io));
    Absorb("index part", index, &proof);
    if (index.verdict != Verdict::kHolds) {
      failed = index.verdict;
      ended = absl::StrCat("the index part is ", index.ToString());
    }
  }
  for (size_t k = 0; k < reduced->payload.size() && !failed.has_value(); ++k) {
    const SwizzleSpec& part = reduced->payload[k].spec;
    if (budget_spent()) {
      failed = Verdict::kInconclusive;
      ended = absl::StrCat("the total budget (total_rlimit = ", options.total_rlimit,
                           ") is spent before ", part.source_name());
      break;
    }
    SwizzleProveOptions po = sub;
    po.symbolic_params = reduced->payload[k].symbolic;
    po.total_rlimit = internal::RemainingBudget(options, proof.rlimit_spent);
    ASSIGN_OR_RETURN(SwizzleProof p, ProveSpec(part, {}, po));
    Absorb(part.source_name(), p, &proof);
    if (p.verdict != Verdict::kHolds) {
      failed = p.verdict;
      ended = absl::StrCat(part.source_name(), " is ", p.ToString());
    }
  }
  if (!failed.has_value()) return proof;
  // Undecided from here on: what the parts spent goes to the caller.
  auto undecided = [&]() -> std::optional<SwizzleProof> {
    internal::AddSubProofCounters(proof, spent);
    spent->notes.push_back(absl::StrCat("the reduced spec did not decide (", ended,
                                        "); the spec is proved directly"));
    return std::nullopt;
  };
  if (*failed == Verdict::kViolated) {
    // The reduced parts are supersets: find the violation on the spec itself, smallest
    // first, by the enumeration sweep of its box.
    SpecSweep box;
    for (const Stmt* p : spec.params()) box.ranges.push_back({p->name, {p->lo, p->hi}});
    for (const auto& [name, r] : ranges.ranges) {
      for (auto& [n, range] : box.ranges) {
        if (n == name) range = r;
      }
    }
    int64_t points = 1;
    for (const auto& [n, r] : box.ranges) points = internal::SatMul(points, r.size());
    bool capped = false;
    if (points > options.minimise_sweep.max_param_points) {
      // Too large to sweep whole: the low corner, every range cut to its first 16 values
      // (the violations the reduced proof finds first have few tiles).
      points = 1;
      for (auto& [n, r] : box.ranges) {
        capped |= r.size() > 16;
        r.hi = std::min(r.hi, r.lo + 15);
        points = internal::SatMul(points, r.size());
      }
    }
    if (points <= options.minimise_sweep.max_param_points) {
      absl::StatusOr<sim::swizzle::CheckResult> r =
          sim::swizzle::Sweep(spec, box, options.minimise_sweep);
      if (r.ok() && r->verdict == Verdict::kViolated) {
        proof.verdict = Verdict::kViolated;
        proof.counterexample = r->counterexample;
        proof.minimised = true;
        proof.notes.push_back(absl::StrCat(
            "the reduced spec is violated; the counterexample is the enumeration sweep's "
            "smallest over the spec's own box",
            capped ? " with every range cut to its first 16 values (the whole box is too "
                     "large to sweep)"
                   : ""));
        return proof;
      }
    }
  }
  return undecided();
}

// The configuration search of ProveSpec: every configuration of the box (a range per
// parameter) is proved by the portfolio, split where a query runs out, and recorded as a
// sub-box (proven, enumerated or open) until a violation stops it.
//
// Two passes: first every cheap property of every configuration, then injectivity (and
// surjectivity by the inverse): a violation of the cheap kind is then found without
// paying for the expensive queries of the configurations before it. The second pass
// starts from the pieces the first one ended with. Under a total budget (total_rlimit)
// one pass does every property of a configuration before the next, so that what the
// budget covered is reported proven, not half done.
class ConfigSearch {
 public:
  ConfigSearch(const SwizzleSpec& spec, const SpecBox& box, const SwizzleProveOptions& options,
               QueryRunner& run, SwizzleProof* proof)
      : spec_(spec), box_(box), options_(options), run_(run), proof_(*proof) {}

  // Runs the passes from `roots`; the violation found, or nullopt when none was (then
  // boxes() covers every root).
  absl::StatusOr<std::optional<ConfigOutcome>> Run(std::vector<Work> roots) {
    std::vector<std::pair<int, int>> passes = {{kParamsError, kCount},
                                               {kInjective, kSurjective}};
    if (options_.total_rlimit > 0) passes = {{kParamsError, kSurjective}};
    std::vector<Work> pending = std::move(roots);
    for (const auto& [from, to] : passes) {
      std::vector<Work> next;
      ASSIGN_OR_RETURN(std::optional<ConfigOutcome> violated,
                       RunPass(from, to, pending, &next));
      if (violated.has_value()) return violated;
      pending = std::move(next);
    }
    return std::nullopt;
  }

  std::vector<SubBox>& boxes() { return boxes_; }

 private:
  // One pass over `pending` (properties from..to); the configurations that hold and are
  // left for a later pass go to `next`.
  absl::StatusOr<std::optional<ConfigOutcome>> RunPass(int from, int to,
                                                       const std::vector<Work>& pending,
                                                       std::vector<Work>* next) {
    const bool first_pass = from == kParamsError;
    const bool last_pass = to == kSurjective;
    int64_t visited = 0;  // configurations of this pass, splits included
    std::vector<Work> stack;
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
      stack.push_back({it->ranges, std::max(it->from, from)});
    }
    while (!stack.empty()) {
      Work w = std::move(stack.back());
      stack.pop_back();
      if (!budget_reason_.empty()) {
        Record(w.ranges, SubBox::How::kOpen, budget_reason_);
        continue;
      }
      if (!Admitted(spec_, box_, w.ranges)) {
        Record(w.ranges, SubBox::How::kProven, "");  // excluded: nothing to prove
        continue;
      }
      if (BudgetSpent(++visited)) {
        Record(w.ranges, SubBox::How::kOpen, budget_reason_);
        continue;
      }
      Property failed = kParamsError;
      ASSIGN_OR_RETURN(ConfigOutcome o, ProvePortfolio(spec_, box_, w.ranges, run_, w.from,
                                                       to, &failed, &proof_.notes));
      if (first_pass) proof_.configs += 1;
      if (o.kind == ConfigOutcome::Kind::kViolated) return o;
      if (o.kind == ConfigOutcome::Kind::kHolds) {
        if (!last_pass) {
          next->push_back({w.ranges, kInjective});
        } else {
          // Proved, or proved but for one property (o.open says which).
          Record(w.ranges, o.open.empty() ? SubBox::How::kProven : SubBox::How::kOpen, o.open);
        }
        continue;
      }
      if (std::all_of(w.ranges.begin(), w.ranges.end(),
                      [](const ParamRange& r) { return r.lo == r.hi; })) {
        // Every parameter is constant and a query still ran out: evaluate the point.
        ASSIGN_OR_RETURN(ConfigOutcome e, EvaluatePoint(spec_, w, options_));
        if (e.kind == ConfigOutcome::Kind::kViolated) return e;
        const bool holds = e.kind == ConfigOutcome::Kind::kHolds;
        Record(w.ranges, holds ? SubBox::How::kEnumerated : SubBox::How::kOpen,
               holds ? "" : o.reason);
        continue;
      }
      std::vector<Work> parts = SplitWork(box_, w, failed, options_);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) stack.push_back(*it);
    }
    return std::nullopt;
  }

  // Whether a bound stops the search at the `visited`-th configuration of a pass (then
  // budget_reason_ says which, and every configuration after it is recorded open).
  bool BudgetSpent(int64_t visited) {
    if (visited > options_.max_configs) {
      budget_reason_ = absl::StrCat("max_configs = ", options_.max_configs,
                                    " configurations reached while splitting");
    } else if (options_.total_rlimit > 0 && run_.rlimit_spent() >= options_.total_rlimit) {
      budget_reason_ = absl::StrCat("the total budget (total_rlimit = ", options_.total_rlimit,
                                    ") is spent");
    }
    return !budget_reason_.empty();
  }

  void Record(const std::vector<ParamRange>& r, SubBox::How how, std::string why) {
    boxes_.push_back(MakeSubBox(box_, r, how, std::move(why)));
  }

  const SwizzleSpec& spec_;
  const SpecBox& box_;
  const SwizzleProveOptions& options_;
  QueryRunner& run_;
  SwizzleProof& proof_;
  std::vector<SubBox> boxes_;
  std::string budget_reason_;
};

// The verdict from the sub-boxes of a search that found no violation: holds when every
// one is proven or enumerated, inconclusive (with the coverage) when any is open.
SwizzleProof Conclude(const SwizzleSpec& spec, std::vector<SubBox> boxes, SwizzleProof proof) {
  bool any_open = false, any_enumerated = false;
  for (const SubBox& b : boxes) {
    any_open |= b.how == SubBox::How::kOpen;
    any_enumerated |= b.how == SubBox::How::kEnumerated;
  }
  if (any_open || any_enumerated) proof.coverage = MergeBoxes(std::move(boxes));
  if (any_open) {
    proof.verdict = Verdict::kInconclusive;
    proof.reason = CoverageSummary(proof.coverage);
    return proof;
  }
  if (any_enumerated) {
    proof.notes.push_back(absl::StrCat("solver queries ran out on some points, which were "
                                       "decided by evaluating every iteration: ",
                                       CoverageSummary(proof.coverage)));
  }
  if (!spec.program().Clauses("skip").empty()) {
    proof.notes.push_back(
        spec.inverse() != nullptr
            ? "surjectivity proved by the inverse clause (the spec has `skip`)"
            : "surjectivity proved by counting: the map read past its skips is a "
              "bijection onto a padded box whose padding is exactly what the skips "
              "remove (the spec has `skip` and no `inverse` clause)");
  }
  return proof;
}

// The routes tried before the configuration search, in order: the output chain,
// flattened divisions, the reduced spec. The first that decides gives the proof; what a
// route spent without deciding is added to `*spent` (only the reduced spec can: the
// output chain and the flattening decide once they run, the chain through its direct
// route, which is charged what the links spent).
absl::StatusOr<std::optional<SwizzleProof>> ProveByRoutes(const SwizzleSpec& spec,
                                                          const SpecSweep& ranges,
                                                          const SwizzleProveOptions& options,
                                                          SwizzleProof* spent) {
  ASSIGN_OR_RETURN(std::optional<SwizzleProof> chained,
                   internal::ProveByOutputChain(spec, ranges, options));
  if (chained.has_value()) return chained;
  ASSIGN_OR_RETURN(std::optional<SwizzleProof> flat,
                   internal::ProveByFlattening(spec, ranges, options));
  if (flat.has_value()) return flat;
  return ProveReduced(spec, ranges, options, spent);
}

}  // namespace

absl::StatusOr<SwizzleProof> ProveSpec(const SwizzleSpec& spec, const SpecSweep& ranges,
                                       const SwizzleProveOptions& options) {
  ASSIGN_OR_RETURN(SpecBox box, ResolveSpecBox(spec, ranges, options));
  // What an undecided route spent starts the proof: its queries count against the
  // total budget (QueryRunner::Run takes what is left of it from proof.rlimit_spent).
  SwizzleProof proof;
  ASSIGN_OR_RETURN(std::optional<SwizzleProof> routed,
                   ProveByRoutes(spec, ranges, options, &proof));
  if (routed.has_value()) return *std::move(routed);

  QueryRunner run(options, &proof);
  RETURN_IF_ERROR(WholeBoxAsBitVectors(spec, run, &box, &proof));
  if (!spec.program().Clauses("skip").empty() && spec.inverse() == nullptr) {
    SpecSweep whole_box;
    for (size_t i = 0; i < box.names.size(); ++i) {
      whole_box.ranges.push_back({box.names[i], box.ranges[i]});
    }
    ASSIGN_OR_RETURN(const bool decided, EnumerateFirst(spec, whole_box, options, &proof));
    if (decided) return proof;
    // Past the sweep: the contiguity chain, where the map has its shape.
    ASSIGN_OR_RETURN(const bool chained,
                     internal::ProveByContiguity(spec, whole_box, run, &proof));
    if (chained) return proof;
  }

  std::vector<SubBox> remainder;
  std::vector<Work> roots = Configurations(box, options, &remainder);
  ConfigSearch search(spec, box, options, run, &proof);
  ASSIGN_OR_RETURN(std::optional<ConfigOutcome> violated, search.Run(std::move(roots)));
  if (violated.has_value()) {
    proof.verdict = Verdict::kViolated;
    MinimiseSpec(spec, box, *violated, options, &proof);
    return proof;
  }
  std::vector<SubBox>& boxes = search.boxes();
  for (SubBox& b : remainder) boxes.push_back(std::move(b));
  return Conclude(spec, std::move(boxes), std::move(proof));
}

}  // namespace warpcheck::verify
