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
};

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
  if (!options.symbolic_params.empty()) {
    for (const std::string& name : options.symbolic_params) {
      ASSIGN_OR_RETURN(size_t i, index_of(name));
      b.symbolic[i] = true;
    }
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
  }
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
};

// The properties, in the order they are proved (each assumes the ones before it).
enum Property : int {
  kParamsError,
  kEvalError,
  kInRange,
  kTailSize,
  kCount,
  kInjective,
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
  absl::StatusOr<IterCopy> EncodeIteration(const char* name);
  // The parameter point of a model, in declaration order.
  std::vector<int64_t> Point(const smt::Model& m) const;
  int64_t TilesOf(const smt::Model& m) const;
  absl::StatusOr<ConfigOutcome> Violation(const std::string& name,
                                          const std::vector<Term>& query,
                                          const smt::Model& model, ViolationKind kind,
                                          const std::vector<const IterCopy*>& copies);
  std::string Prefix() const;

  const SwizzleSpec& spec_;
  const SpecBox& box_;
  std::vector<ParamRange> ranges_;
  QueryRunner& run_;
  Context ctx_;
  ExprEncoder enc_;
  std::vector<bool> per_iter_;
  std::vector<Term> params_;      // one per parameter
  std::vector<Term> background_;  // symbolic ranges and side conditions
  Term admitted_;                 // the point passes every phase-1 statement
  std::vector<Term> param_errors_;
  Term domain_;
  smt::ValueRange domain_range_;
  std::vector<Term> extents_;
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
      background_.push_back(v <= ranges_[i].hi);
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
    if (s.kind == StmtKind::kParam || per_iter_[k]) continue;
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
      is_rank_.push_back(s.name == "rank");
    }
    param_errors_.push_back(prefix && !pass);
    prefix = prefix && pass;
  }
  admitted_ = prefix;
  return absl::OkStatus();
}

absl::StatusOr<IterCopy> SpecConfig::EncodeIteration(const char* name) {
  ExprEncoder enc = enc_.Fork();
  IterCopy c;
  c.iter = ctx_.IntVar(name);
  c.domain = {c.iter >= 0, c.iter < domain_};
  enc.Bind("iter", c.iter, 0,
           static_cast<int64_t>(std::clamp<__int128>(
               domain_range_.hi - 1, 0, std::numeric_limits<int64_t>::max())));
  Term prefix = ctx_.Bool(true);
  std::vector<Term> errors, bad_tails;
  const std::vector<Stmt>& stmts = spec_.program().statements();
  for (size_t k = 0; k < stmts.size(); ++k) {
    const Stmt& s = stmts[k];
    if (!per_iter_[k]) continue;
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
  return c;
}

std::vector<int64_t> SpecConfig::Point(const smt::Model& m) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    out.push_back(symbolic(i) ? m.Int(params_[i]).value_or(ranges_[i].lo)
                              : ranges_[i].lo);
  }
  return out;
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
    ASSIGN_OR_RETURN(smt::SolverResult r,
                     run_.Run(ctx_, name, with({smt::Or(ctx_, param_errors_)}), rlimit));
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
  std::vector<Term> base = {admitted_, a.domain[0], a.domain[1]};

  // 2. Evaluation errors.
  if (from <= kEvalError && to >= kEvalError) {
    const std::string name = prefix + "eval_error";
    std::vector<Term> q = base;
    q.push_back(a.error);
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
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
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
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
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
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
      ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
      if (r.result == SatResult::kUnknown) return unknown(r, kCount);
      if (r.result == SatResult::kSat) {
        return Violation(name, q, r.model,
                         dir == 0 ? ViolationKind::kMissed : ViolationKind::kDuplicate,
                         {});
      }
    }
  }
  // 6. Injective: the direct two-copy query.
  if (to >= kInjective) {
    ASSIGN_OR_RETURN(IterCopy b, EncodeIteration("iter2"));
    const std::string name = prefix + "injective";
    std::vector<Term> q = base;
    q.push_back(a.tile);
    q.push_back(b.domain[0]);
    q.push_back(b.domain[1]);
    q.push_back(!b.error);
    q.push_back(b.tile);
    q.push_back(a.iter < b.iter);
    // Proved above: the first copy lands in the box (this helps Z3, and changes nothing).
    q.push_back(smt::And(ctx_, in_box));
    for (size_t k = 0; k < a.coords.size(); ++k) q.push_back(a.coords[k] == b.coords[k]);
    q = with(q);
    ASSIGN_OR_RETURN(smt::SolverResult r, run_.Run(ctx_, name, q, rlimit));
    if (r.result == SatResult::kUnknown) return unknown(r, kInjective);
    if (r.result == SatResult::kSat) {
      return Violation(name, q, r.model, ViolationKind::kDuplicate, {&a, &b});
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

}  // namespace

absl::StatusOr<SwizzleProof> ProveSpec(const SwizzleSpec& spec, const SpecSweep& ranges,
                                       const SwizzleProveOptions& options) {
  ASSIGN_OR_RETURN(SpecBox box, ResolveSpecBox(spec, ranges, options));
  // The configurations: every combination of the enumerated parameters.
  int64_t combos = 1;
  for (size_t i = 0; i < box.names.size(); ++i) {
    if (!box.symbolic[i]) combos = internal::SatMul(combos, box.ranges[i].size());
  }
  if (combos > options.max_configs) {
    return absl::ResourceExhaustedError(absl::StrCat(
        spec.source_name(), ": ", combos,
        " combinations of the enumerated parameters exceed max_configs = ",
        options.max_configs, "; make more parameters symbolic or narrow the ranges"));
  }
  SwizzleProof proof;
  QueryRunner run(options, &proof);
  std::optional<ConfigOutcome> unknown, violated;
  // A work list of (configuration, first property to prove), depth first so that the
  // configurations run in the order of the odometer below.
  struct Work {
    std::vector<ParamRange> ranges;
    int from = kParamsError;
  };
  std::vector<Work> roots;
  std::vector<ParamRange> v(box.names.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = box.symbolic[i] ? box.ranges[i] : ParamRange::Of(box.ranges[i].lo);
  }
  for (bool done = false; !done;) {
    roots.push_back({v, kParamsError});
    done = true;
    for (size_t k = v.size(); k-- > 0;) {
      if (box.symbolic[k]) continue;
      if (v[k].lo < box.ranges[k].hi) {
        v[k] = ParamRange::Of(v[k].lo + 1);
        done = false;
        break;
      }
      v[k] = ParamRange::Of(box.ranges[k].lo);
    }
  }
  // Two passes: first every cheap property of every configuration, then injectivity
  // (the two-copy query, by far the most expensive): a violation of the cheap kind is
  // then found without paying for the injectivity of the configurations before it.
  for (const auto& [from, to] : {std::pair<int, int>{kParamsError, kCount},
                                 std::pair<int, int>{kInjective, kInjective}}) {
    std::vector<Work> stack;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it)
      stack.push_back({it->ranges, from});
    int64_t visited = 0;  // configurations of this pass, splits included
    while (!stack.empty() && !violated.has_value()) {
      Work w = std::move(stack.back());
      stack.pop_back();
      if (!Admitted(spec, box, w.ranges)) continue;
      if (++visited > options.max_configs) {
        if (!unknown.has_value()) {
          unknown = ConfigOutcome{ConfigOutcome::Kind::kUnknown,
                                  absl::StrCat("max_configs = ", options.max_configs,
                                               " configurations reached while splitting"),
                                  {},
                                  0};
        }
        break;
      }
      SpecConfig config(spec, box, w.ranges, run);
      Property failed = kParamsError;
      ASSIGN_OR_RETURN(ConfigOutcome o, config.Prove(w.from, to, &failed));
      if (from == kParamsError) proof.configs += 1;
      if (o.kind == ConfigOutcome::Kind::kViolated) {
        violated = std::move(o);
        break;
      }
      if (o.kind != ConfigOutcome::Kind::kUnknown) continue;
      if (!config.any_symbolic()) {
        if (!unknown.has_value()) unknown = o;
        continue;
      }
      // Split on the symbolic parameter with the fewest values (declaration order on
      // ties): into its values when there are few, else into two halves.
      size_t pick = 0;
      int64_t best = std::numeric_limits<int64_t>::max();
      for (size_t i = 0; i < w.ranges.size(); ++i) {
        if (w.ranges[i].lo < w.ranges[i].hi && w.ranges[i].size() < best) {
          best = w.ranges[i].size();
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
  }
  if (violated.has_value()) {
    proof.verdict = Verdict::kViolated;
    MinimiseSpec(spec, box, *violated, options, &proof);
    return proof;
  }
  if (unknown.has_value()) {
    proof.verdict = Verdict::kInconclusive;
    proof.reason = unknown->reason;
    return proof;
  }
  if (spec.program().Clauses("skip").empty()) return proof;
  // With `skip`, counting does not give surjectivity: enumerate the box.
  SpecSweep sweep;
  for (size_t i = 0; i < box.names.size(); ++i) {
    sweep.ranges.push_back({box.names[i], box.ranges[i]});
  }
  sim::swizzle::SweepOptions so = options.minimise_sweep;
  so.max_points = options.max_enumerated_points;
  absl::StatusOr<sim::swizzle::CheckResult> r = sim::swizzle::Sweep(spec, sweep, so);
  if (!r.ok() && !absl::IsResourceExhausted(r.status())) return r.status();
  if (!r.ok() || r->verdict == Verdict::kInconclusive) {
    proof.verdict = Verdict::kInconclusive;
    proof.reason = absl::StrCat(
        "the spec has `skip`, so surjectivity does not follow from counting, and the box "
        "is too large to enumerate: ",
        r.ok() ? r->reason : std::string(r.status().message()));
    return proof;
  }
  proof.checked = CheckedBy::kEnumerated;
  proof.notes.push_back(
      "in range, injective, tails and evaluation proved symbolically; surjectivity "
      "enumerated (the spec has `skip`)");
  proof.verdict = r->verdict;
  if (r->verdict == Verdict::kViolated) {
    proof.counterexample = r->counterexample;
    proof.minimised = true;
  }
  return proof;
}

}  // namespace warpcheck::verify
