// ProveSpec: user swizzles written in the expression language (sim/swizzle/spec.h),
// encoded statement by statement with smt::ExprEncoder (swizzle_prove.h, "Specs").
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;
using sim::swizzle::ViolationKind;
using smt::Context;
using smt::ExprEncoder;
using smt::SatResult;
using smt::Term;

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
};

// Ensures: for each parameter of `names`, the number of division nodes whose divisor
//          depends on it (lets inlined).
std::vector<int> DivisorUse(const SwizzleSpec& spec, const std::vector<std::string>& names) {
  std::vector<int> out(names.size(), 0);
  const sim::expr::Program& program = spec.program();
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
    if (k == sim::expr::ExprKind::kFloorDiv || k == sim::expr::ExprKind::kMod ||
        k == sim::expr::ExprKind::kCdiv) {
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
  fill_values();
  return b;
}

// Statements that run per iteration, exactly as SpecInstance classifies them
// (sim/swizzle/spec.cc): out, tail, skip, and anything mentioning `iter` or a name
// computed per iteration.
std::vector<bool> PerIteration(const sim::expr::Program& program) {
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

// One copy of the per-iteration part at a symbolic iteration.
struct IterCopy {
  Term iter;
  std::vector<Term> domain;  // 0 <= iter < domain
  Term error;                // an evaluation error happens on the evaluated path
  Term tile;                 // no error and no skip: the iteration yields a tile
  Term bad_tail;             // some tail is wrong or not positive
  std::vector<Term> coords;
  // With an `inverse` clause: its value at this iteration's tile, and where it is defined.
  std::optional<Term> inv;
  Term inv_defined;
};

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

// The properties, in the order they are proved (each assumes the ones before it).
enum Property : int {
  kParamsError,
  kEvalError,
  kInRange,
  kTailSize,
  kCount,
  kInjective,
  kSurjective,  // with `skip` and `inverse`: f(inv(t)) == t for every tile t
  kNumProperties
};

// One configuration: every parameter either a constant or a symbolic range.
class SpecConfig {
 public:
  SpecConfig(const SwizzleSpec& spec, const SpecBox& box, std::vector<ParamRange> ranges,
             QueryRunner& run)
      : spec_(spec), box_(box), ranges_(std::move(ranges)), run_(run), enc_(ctx_) {}

  // Proves the properties from `from` to `to` (inclusive). On kUnknown, *failed is the
  // property whose query ran out of budget.
  absl::StatusOr<ConfigOutcome> Prove(int from, int to, Property* failed);
  bool symbolic(size_t i) const { return ranges_[i].lo < ranges_[i].hi; }
  bool any_symbolic() const {
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (symbolic(i)) return true;
    }
    return false;
  }

 private:
  absl::Status EncodeParams();
  // The per-iteration part at a fresh iteration `name`, or at `at` when given.
  absl::StatusOr<IterCopy> EncodeIteration(const char* name,
                                           std::optional<Term> at = std::nullopt);
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
  std::string Prefix() const;

 public:
  // Notes for the proof (e.g. where an inverse clause was wrong).
  std::vector<std::string> notes_;

 private:
  const SwizzleSpec& spec_;
  const SpecBox& box_;
  std::vector<ParamRange> ranges_;
  QueryRunner& run_;
  Context ctx_;
  ExprEncoder enc_;
  std::vector<bool> per_iter_;
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
  return absl::StrCat(base, "[", absl::StrJoin(parts, ","), "].");
}

absl::Status SpecConfig::EncodeParams() {
  const sim::expr::Program& program = spec_.program();
  per_iter_ = PerIteration(program);
  for (size_t i = 0; i < box_.names.size(); ++i) {
    if (symbolic(i)) {
      const Term v = ctx_.IntVar(box_.names[i]);
      background_.push_back(v >= ranges_[i].lo);
      upper_.push_back(v <= ranges_[i].hi);
      enc_.Bind(box_.names[i], v, ranges_[i].lo, ranges_[i].hi);
      params_.push_back(v);
    } else {
      enc_.BindConst(box_.names[i], ranges_[i].lo);
      params_.push_back(ctx_.Int(ranges_[i].lo));
    }
  }
  // Phase 1, in order, as SwizzleSpec::InstantiateUnchecked runs it: the first failing
  // statement is an error; a false `require` excludes the point (not an error).
  Term prefix = ctx_.Bool(true);
  const std::vector<Stmt>& stmts = program.statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& s = stmts[k];
    if (s.kind == StmtKind::kParam || per_iter_[k] || &s == spec_.inverse()) continue;
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc_.Encode(s.value));
    const Term ok = e.Defined(ctx_);
    Term pass = ok;
    if (s.kind == StmtKind::kLet) {
      enc_.Bind(s.name, e.value, e.range);
    } else if (s.keyword == "require") {
      param_errors_.push_back(prefix && !ok);
      pass = ok && e.value;
      prefix = prefix && pass;
      continue;
    } else if (s.keyword == "domain") {
      pass = ok && e.value >= 0;
      domain_ = e.value;
      domain_range_ = e.range;
    } else if (s.keyword == "grid") {
      pass = ok && e.value > 0;
      extents_.push_back(e.value);
      extent_ranges_.push_back(e.range);
      is_rank_.push_back(s.name == "rank");
    }
    param_errors_.push_back(prefix && !pass);
    prefix = prefix && pass;
  }
  admitted_ = prefix;
  return absl::OkStatus();
}

absl::StatusOr<IterCopy> SpecConfig::EncodeIteration(const char* name,
                                                     std::optional<Term> at) {
  ExprEncoder enc = enc_.Fork();
  IterCopy c;
  c.iter = at.has_value() ? *at : ctx_.IntVar(name);
  c.domain = {c.iter >= 0, c.iter < domain_};
  if (domain_range_.hi > 0 && domain_range_.hi <= std::numeric_limits<int64_t>::max()) {
    // Implied by iter < domain; stated so that bit-blasting finds a constant bound.
    c.domain.push_back(c.iter <= static_cast<int64_t>(domain_range_.hi - 1));
  }
  enc.Bind("iter", c.iter, 0,
           static_cast<int64_t>(std::clamp<__int128>(
               domain_range_.hi - 1, 0, std::numeric_limits<int64_t>::max())));
  Term prefix = ctx_.Bool(true);
  std::vector<Term> errors, bad_tails;
  const std::vector<Stmt>& stmts = spec_.program().statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& s = stmts[k];
    if (!per_iter_[k] || &s == spec_.inverse()) continue;  // a proof aid, encoded below
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(s.value));
    const Term ok = e.Defined(ctx_);
    errors.push_back(prefix && !ok);
    if (s.kind == StmtKind::kLet || s.keyword == "out") {
      enc.Bind(s.name, e.value, e.range);
      prefix = prefix && ok;
    } else if (s.keyword == "skip") {
      prefix = prefix && ok && !e.value;
    } else if (s.keyword == "tail") {
      const Term out = enc.Lookup(s.name).value;
      bad_tails.push_back(out != e.value || e.value <= 0);
      prefix = prefix && ok;
    }
  }
  c.error = smt::Or(ctx_, errors);
  c.tile = prefix;
  c.bad_tail = smt::Or(ctx_, bad_tails);
  for (const std::string& coord : spec_.coordinates()) {
    c.coords.push_back(enc.Lookup(coord).value);
  }
  if (spec_.inverse() != nullptr) {
    ASSIGN_OR_RETURN(ExprEncoder::Encoded e, enc.Encode(spec_.inverse()->value));
    c.inv = e.value;
    c.inv_defined = e.Defined(ctx_);
  }
  return c;
}

absl::Status SpecConfig::EncodeFreeTile(std::vector<Term>* tile, Term* inv,
                                        Term* defined) {
  ExprEncoder enc = enc_.Fork();
  for (size_t k = 0; k < spec_.coordinates().size(); ++k) {
    const Term t = ctx_.IntVar(absl::StrCat("tile_", spec_.coordinates()[k]));
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
    Term tiles = ctx_.Int(1);
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

absl::StatusOr<ConfigOutcome> SpecConfig::Prove(int from, int to, Property* failed) {
  RETURN_IF_ERROR(EncodeParams());
  const std::string prefix = Prefix();
  // With symbolic parameters left, a small budget: running out splits the configuration.
  const uint64_t rlimit = any_symbolic() ? run_.options().split_rlimit : 0;  // 0: default
  auto unknown = [&](const smt::SolverResult& r, Property p) {
    ConfigOutcome o;
    o.kind = ConfigOutcome::Kind::kUnknown;
    o.reason = internal::UnknownReason(r);
    *failed = p;
    return o;
  };
  auto with = [&](std::vector<Term> extra) {
    std::vector<Term> q = background_;
    const std::vector<Term>& side = enc_.side_conditions();  // shared by every copy
    q.insert(q.end(), side.begin(), side.end());
    q.insert(q.end(), extra.begin(), extra.end());
    return q;
  };

  // 1. Every admitted point can be instantiated (else the sweep fails too: an error).
  if (from <= kParamsError) {
    const std::string name = prefix + "params_error";
    std::vector<Term> q = with({smt::Or(ctx_, param_errors_)});
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kParamsError);
    if (r.result == SatResult::kSat) {
      const std::vector<int64_t> point = Point(r.model);
      absl::StatusOr<sim::swizzle::SpecInstance> inst = spec_.InstantiateUnchecked(point);
      if (!inst.ok() && !absl::IsFailedPrecondition(inst.status())) return inst.status();
      return absl::InternalError(absl::StrCat("swizzle2d prove: ", name,
                                              " found a point the evaluator accepts"));
    }
  }

  ASSIGN_OR_RETURN(IterCopy a, EncodeIteration("iter"));
  std::vector<Term> base = {admitted_};
  base.insert(base.end(), a.domain.begin(), a.domain.end());

  // 2. Evaluation errors.
  if (from <= kEvalError && to >= kEvalError) {
    const std::string name = prefix + "eval_error";
    std::vector<Term> q = base;
    q.push_back(a.error);
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kEvalError);
    if (r.result == SatResult::kSat) {
      return Violation(name, q, r.model, ViolationKind::kEvalError, {&a});
    }
  }
  base.push_back(!a.error);
  // 3. In range.
  std::vector<Term> in_box;
  for (size_t k = 0; k < a.coords.size(); ++k) {
    in_box.push_back(a.coords[k] >= 0 && a.coords[k] < extents_[k]);
  }
  if (from <= kInRange && to >= kInRange) {
    const std::string name = prefix + "in_range";
    std::vector<Term> q = base;
    q.push_back(a.tile);
    q.push_back(!smt::And(ctx_, in_box));
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kInRange);
    if (r.result == SatResult::kSat) {
      return Violation(name, q, r.model, ViolationKind::kOutOfRange, {&a});
    }
  }
  // 4. Tails.
  if (from <= kTailSize && to >= kTailSize && !spec_.program().Clauses("tail").empty()) {
    const std::string name = prefix + "tail_size";
    std::vector<Term> q = base;
    q.push_back(a.tile);
    q.push_back(a.bad_tail);
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kTailSize);
    if (r.result == SatResult::kSat) {
      return Violation(name, q, r.model, ViolationKind::kTailSize, {&a});
    }
  }
  // 5. Counting: the domain has as many iterations as the box has tiles. (With `skip`,
  //    the domain may be larger; surjectivity is then the caller's business.)
  const bool has_skip = !spec_.program().Clauses("skip").empty();
  if (from <= kCount && to >= kCount && !has_skip) {
    Term box_size = ctx_.Int(1);
    for (const Term& e : extents_) box_size = box_size * e;
    for (int dir = 0; dir < 2; ++dir) {
      const std::string name = prefix + (dir == 0 ? "count_small" : "count_large");
      std::vector<Term> q =
          with({admitted_, dir == 0 ? domain_ < box_size : domain_ > box_size});
      ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
      if (r.result == SatResult::kUnknown) return unknown(r, kCount);
      if (r.result == SatResult::kSat) {
        return Violation(name, q, r.model,
                         dir == 0 ? ViolationKind::kMissed : ViolationKind::kDuplicate,
                         {});
      }
    }
  }
  // 6. Injective. With an `inverse` clause, first the one-copy query "inv(f(i)) == i"
  //    (a left inverse makes f injective); if the inverse is wrong somewhere, that is no
  //    violation of the map: the direct two-copy query decides instead.
  if (from <= kInjective && to >= kInjective) {
    bool direct = true;
    if (a.inv.has_value()) {
      const std::string name = prefix + "left_inverse";
      std::vector<Term> q = base;
      q.push_back(a.tile);
      q.push_back(smt::And(ctx_, in_box));
      q.push_back(!(a.inv_defined && *a.inv == a.iter));
      q = with(q);
      ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
      if (r.result == SatResult::kUnknown) return unknown(r, kInjective);
      if (r.result == SatResult::kUnsat) {
        direct = false;
      } else {
        notes_.push_back(absl::StrCat(
            name, ": the inverse clause does not invert the map at ",
            sim::swizzle::ToString(NamedPoint(r.model)), ", iter=",
            r.model.Int(a.iter).value_or(-1), "; injectivity by the two-copy query"));
      }
    }
    if (direct) {
      ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter2"));
      const std::string name = prefix + "injective";
      std::vector<Term> q = base;
      q.push_back(a.tile);
      q.insert(q.end(), b.domain.begin(), b.domain.end());
      q.push_back(!b.error);
      q.push_back(b.tile);
      q.push_back(a.iter < b.iter);
      // Proved above: the first copy lands in the box (this helps Z3, and changes
      // nothing).
      q.push_back(smt::And(ctx_, in_box));
      for (size_t k = 0; k < a.coords.size(); ++k) q.push_back(a.coords[k] == b.coords[k]);
      q = with(q);
      ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
      if (r.result == SatResult::kUnknown) return unknown(r, kInjective);
      if (r.result == SatResult::kSat) {
        return Violation(name, q, r.model, ViolationKind::kDuplicate, {&a, &b});
      }
    }
  }
  // 7. Surjective, for maps with `skip` (counting does not apply) and an inverse: every
  //    tile t of the box has inv(t) in the domain, not skipped, mapping back to t.
  if (to >= kSurjective && has_skip && spec_.inverse() != nullptr) {
    const std::string name = prefix + "surjective";
    std::vector<Term> tile;
    Term inv, defined;
    RETURN_IF_ERROR(EncodeFreeTile(&tile, &inv, &defined));
    ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter_of_tile", inv));
    std::vector<Term> hit = {defined, !b.error, b.tile};
    hit.insert(hit.end(), b.domain.begin(), b.domain.end());
    for (size_t k = 0; k < tile.size(); ++k) hit.push_back(b.coords[k] == tile[k]);
    std::vector<Term> q = {admitted_};
    for (size_t k = 0; k < tile.size(); ++k) {
      q.push_back(tile[k] >= 0);
      q.push_back(tile[k] < extents_[k]);
    }
    q.push_back(!smt::And(ctx_, hit));
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, Solve(name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kSurjective);
    if (r.result == SatResult::kSat) {
      std::vector<int64_t> t;
      for (const Term& x : tile) t.push_back(r.model.Int(x).value_or(-1));
      return MissedTile(name, r.model, t, failed);
    }
  }
  return ConfigOutcome{};
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

}  // namespace

absl::StatusOr<SwizzleProof> ProveSpec(const SwizzleSpec& spec, const SpecSweep& ranges,
                                       const SwizzleProveOptions& options) {
  ASSIGN_OR_RETURN(SpecBox box, ResolveSpecBox(spec, ranges, options));
  box.in_divisors = DivisorUse(spec, box.names);
  SwizzleProof proof;
  QueryRunner run(options, &proof);
  const bool has_skip = !spec.program().Clauses("skip").empty();
  SpecSweep whole_box;
  for (size_t i = 0; i < box.names.size(); ++i) {
    whole_box.ranges.push_back({box.names[i], box.ranges[i]});
  }
  // With `skip` and no `inverse`, surjectivity can only be enumerated: when the box is
  // small enough, the sweep decides every property at once, so it runs first (before
  // any solver query) and is the answer.
  if (has_skip && spec.inverse() == nullptr) {
    sim::swizzle::SweepOptions so = options.minimise_sweep;
    so.max_points = options.max_enumerated_points;
    absl::StatusOr<sim::swizzle::CheckResult> r = sim::swizzle::Sweep(spec, whole_box, so);
    if (!r.ok() && !absl::IsResourceExhausted(r.status())) return r.status();
    if (r.ok() && r->verdict != Verdict::kInconclusive) {
      proof.checked = CheckedBy::kEnumerated;
      proof.notes.push_back(
          "the spec has `skip` and no `inverse` clause, so surjectivity cannot be proved "
          "symbolically; the box is small enough to enumerate, and enumeration decided it "
          "(surjectivity enumerated, with every other property)");
      proof.verdict = r->verdict;
      proof.configs = r->param_points;
      if (r->verdict == Verdict::kViolated) {
        proof.counterexample = r->counterexample;
        proof.minimised = true;
      }
      return proof;
    }
  }

  // The configurations: every combination of the enumerated parameters' values, in
  // odometer order (the last parameter fastest), at most max_configs of them.
  auto count_of = [&](size_t i) -> int64_t {
    return box.values[i].empty() ? box.ranges[i].size()
                                 : static_cast<int64_t>(box.values[i].size());
  };
  auto value_of = [&](size_t i, int64_t idx) -> int64_t {
    return box.values[i].empty() ? box.ranges[i].lo + idx : box.values[i][idx];
  };
  struct Work {
    std::vector<ParamRange> ranges;
    int from = kParamsError;
  };
  std::vector<SubBox> boxes;
  auto record = [&](const std::vector<ParamRange>& r, SubBox::How how, std::string why) {
    SubBox b;
    b.how = how;
    b.why = std::move(why);
    for (size_t i = 0; i < r.size(); ++i) b.ranges.push_back({box.names[i], r[i]});
    boxes.push_back(std::move(b));
  };
  std::vector<Work> roots;
  std::vector<int64_t> idx(box.names.size(), 0);
  bool empty = false;
  for (size_t i = 0; i < idx.size(); ++i) empty |= !box.symbolic[i] && count_of(i) == 0;
  std::string budget_reason;
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
      record(v, SubBox::How::kOpen, why);
      for (size_t k = v.size(); k-- > 0;) {
        if (box.symbolic[k]) continue;
        if (idx[k] + 1 < count_of(k)) {
          std::vector<ParamRange> rest = v;
          rest[k] = ParamRange{value_of(k, idx[k] + 1), box.ranges[k].hi};
          for (size_t j = k + 1; j < v.size(); ++j) rest[j] = box.ranges[j];
          record(rest, SubBox::How::kOpen, why);
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
  std::vector<SubBox> remainder(boxes.begin(), boxes.end());
  boxes.clear();

  // Two passes: first every cheap property of every configuration, then injectivity (and
  // surjectivity by the inverse): a violation of the cheap kind is then found without
  // paying for the expensive queries of the configurations before it. The second pass
  // starts from the pieces the first one ended with.
  std::optional<ConfigOutcome> violated;
  std::vector<Work> pending = std::move(roots);
  for (const auto& [from, to] : {std::pair<int, int>{kParamsError, kCount},
                                 std::pair<int, int>{kInjective, kSurjective}}) {
    const bool first_pass = from == kParamsError;
    int64_t visited = 0;  // configurations of this pass, splits included
    std::vector<Work> next;
    std::vector<Work> stack;
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
      stack.push_back({it->ranges, std::max(it->from, from)});
    }
    while (!stack.empty() && !violated.has_value()) {
      Work w = std::move(stack.back());
      stack.pop_back();
      if (!budget_reason.empty()) {
        record(w.ranges, SubBox::How::kOpen, budget_reason);
        continue;
      }
      if (!Admitted(spec, box, w.ranges)) {
        record(w.ranges, SubBox::How::kProven, "");  // excluded: nothing to prove
        continue;
      }
      if (++visited > options.max_configs) {
        budget_reason = absl::StrCat("max_configs = ", options.max_configs,
                                     " configurations reached while splitting");
      } else if (options.total_rlimit > 0 && run.rlimit_spent() >= options.total_rlimit) {
        budget_reason = absl::StrCat("the total budget (total_rlimit = ",
                                     options.total_rlimit, ") is spent");
      }
      if (!budget_reason.empty()) {
        record(w.ranges, SubBox::How::kOpen, budget_reason);
        continue;
      }
      SpecConfig config(spec, box, w.ranges, run);
      Property failed = kParamsError;
      ASSIGN_OR_RETURN(ConfigOutcome o, config.Prove(w.from, to, &failed));
      for (std::string& n : config.notes_) proof.notes.push_back(std::move(n));
      if (first_pass) proof.configs += 1;
      if (o.kind == ConfigOutcome::Kind::kViolated) {
        violated = std::move(o);
        break;
      }
      if (o.kind == ConfigOutcome::Kind::kHolds) {
        if (first_pass) {
          next.push_back({w.ranges, kInjective});
        } else {
          record(w.ranges, SubBox::How::kProven, "");
        }
        continue;
      }
      if (!config.any_symbolic()) {
        // Every parameter is constant and a query still ran out: evaluate the point.
        std::vector<int64_t> point;
        for (const ParamRange& r : w.ranges) point.push_back(r.lo);
        absl::StatusOr<sim::swizzle::SpecInstance> inst = spec.InstantiateUnchecked(point);
        if (inst.ok() && options.enumerate_stuck_points > 0 &&
            inst->domain() <= options.enumerate_stuck_points) {
          ASSIGN_OR_RETURN(sim::swizzle::CheckResult c,
                           sim::swizzle::CheckSpecInstance(*inst));
          if (c.verdict == Verdict::kHolds) {
            record(w.ranges, SubBox::How::kEnumerated, "");
            continue;
          }
          if (c.verdict == Verdict::kViolated) {
            ConfigOutcome v;
            v.kind = ConfigOutcome::Kind::kViolated;
            v.witness = *c.counterexample;
            v.tiles = inst->tiles();
            violated = std::move(v);
            break;
          }
        }
        record(w.ranges, SubBox::How::kOpen, o.reason);
        continue;
      }
      // Split on the symbolic parameter that the most divisors depend on, then the one
      // with the fewest values (declaration order on ties): into its values when there
      // are few, else into two halves.
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
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        Work child = w;
        child.ranges[pick] = *it;
        child.from = failed;
        stack.push_back(std::move(child));
      }
    }
    if (violated.has_value()) break;
    pending = std::move(next);
  }
  if (violated.has_value()) {
    proof.verdict = Verdict::kViolated;
    MinimiseSpec(spec, box, *violated, options, &proof);
    return proof;
  }
  for (SubBox& b : remainder) boxes.push_back(std::move(b));
  if (has_skip && spec.inverse() == nullptr) {
    // The sweep above could not cover the box, and without an inverse surjectivity has no
    // symbolic proof: what the solver proved is every property but that one.
    for (SubBox& b : boxes) {
      if (b.how == SubBox::How::kProven) {
        b.how = SubBox::How::kOpen;
        b.why =
            "surjectivity: the spec has `skip` and no `inverse` clause, and the box is "
            "too large to enumerate (in range, injective, tails proved)";
      }
    }
  }
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
  if (has_skip) {
    proof.notes.push_back("surjectivity proved by the inverse clause (the spec has `skip`)");
  }
  return proof;
}

}  // namespace warpcheck::verify
