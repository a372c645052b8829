// ReduceSpec (swizzle_prove_internal.h): a spec split into its tile-index part, stated
// over fewer parameters, and one small spec per payload check (verify/README.md,
// "Reduced specs").
#include <algorithm>
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
using sim::expr::StmtKind;
using sim::swizzle::ParamRange;
using sim::swizzle::SwizzleSpec;

// Most parameter points scanned to compute the values of an abstracted let.
constexpr int64_t kMaxImageScan = int64_t{1} << 22;

// The program as an editable list: statement i of the spec, what it is in the reduced
// index spec, and the names each reads directly.
struct Reducer {
  const SwizzleSpec& spec;
  const std::vector<Stmt>& stmts;
  absl::flat_hash_map<std::string, ParamRange> range;  // parameters (box ranges)
  absl::flat_hash_map<std::string, size_t> binder;     // name -> statement index
  // Per statement: the replacement text of its value in the index spec (merged tiles),
  // or empty; whether it was dropped by a merge; whether a let became a parameter.
  std::vector<ExprPtr> replaced;
  std::vector<bool> merged_away;
  absl::flat_hash_map<size_t, ParamRange> abstracted;
  std::vector<std::string> notes;

  explicit Reducer(const SwizzleSpec& s) : spec(s), stmts(s.program().statements()) {
    replaced.resize(stmts.size());
    merged_away.assign(stmts.size(), false);
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (stmts[i].binds) binder[stmts[i].name] = i;
    }
  }

  // The value of statement i in the index spec.
  const Expr& Value(size_t i) const { return replaced[i] ? *replaced[i] : *stmts[i].value; }
  bool IsCoordinate(const std::string& n) const {
    return absl::c_linear_search(spec.coordinates(), n);
  }
  // The roots of the index part: domain, grids, coordinate outs, skips.
  bool IsIndexRoot(size_t i) const {
    const Stmt& s = stmts[i];
    if (s.kind != StmtKind::kClause || merged_away[i]) return false;
    if (s.keyword == "domain" || s.keyword == "grid" || s.keyword == "skip") return true;
    return s.keyword == "out" && IsCoordinate(s.name);
  }
  // Ensures: the statements the index part needs (closure over the names read, an
  // abstracted let read as a parameter), requires excluded.
  std::vector<bool> IndexClosure() const {
    std::vector<bool> live(stmts.size(), false);
    std::vector<size_t> pending;
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (IsIndexRoot(i)) pending.push_back(i);
    }
    while (!pending.empty()) {
      const size_t i = pending.back();
      pending.pop_back();
      if (live[i]) continue;
      live[i] = true;
      if (stmts[i].kind == StmtKind::kParam || abstracted.contains(i)) continue;
      for (const std::string& n : sim::expr::FreeVariables(Value(i))) {
        auto it = binder.find(n);
        if (it != binder.end()) pending.push_back(it->second);
      }
    }
    return live;
  }
  // Ensures: the parameters statement `i` reads through lets, stopping at abstracted
  //          lets (and at `opaque`, a let read as if it were a parameter).
  //          With `original`: of the spec's own statement, through every let.
  absl::flat_hash_set<std::string> ParamsOf(size_t i, std::optional<size_t> opaque,
                                            bool original = false) const {
    absl::flat_hash_set<std::string> out;
    absl::flat_hash_set<size_t> seen;
    std::vector<size_t> pending = {i};
    while (!pending.empty()) {
      const size_t k = pending.back();
      pending.pop_back();
      if (!seen.insert(k).second) continue;
      if (stmts[k].kind == StmtKind::kParam) {
        out.insert(stmts[k].name);
        continue;
      }
      if (!original && k != i && (abstracted.contains(k) || opaque == k)) continue;
      for (const std::string& n :
           sim::expr::FreeVariables(original ? *stmts[k].value : Value(k))) {
        auto it = binder.find(n);
        if (it != binder.end()) pending.push_back(it->second);
      }
    }
    return out;
  }

  void MergeTiles();
  void AbstractLets();
  std::optional<ParamRange> Image(size_t let, const absl::flat_hash_set<std::string>& ps);
  std::string IndexText(const std::vector<bool>& live) const;
};

// `out a = X // E; out b = X % E;` with `grid b = E` (a, b tile coordinates, not rank):
// (a, b) ranges over [0, A) x [0, E) exactly when X ranges over [0, A*E), and the pair is
// injective exactly when X is, so the index part can use the one coordinate X with the
// extent A*E (a let with that value when there is one: it can then be abstracted).
void Reducer::MergeTiles() {
  const std::vector<std::string>& coords = spec.coordinates();
  for (size_t ia = 0; ia < coords.size(); ++ia) {
    for (size_t ib = 0; ib < coords.size(); ++ib) {
      if (ia == ib || coords[ia] == "rank" || coords[ib] == "rank") continue;
      const size_t oa = binder.at(coords[ia]), ob = binder.at(coords[ib]);
      const size_t ga = spec.grids()[ia] - stmts.data(), gb = spec.grids()[ib] - stmts.data();
      if (merged_away[oa] || merged_away[ob]) continue;
      const Expr& va = *stmts[oa].value;
      const Expr& vb = *stmts[ob].value;
      if (va.kind() != ExprKind::kFloorDiv || vb.kind() != ExprKind::kMod ||
          !va.operand(0).Equals(vb.operand(0)) || !va.operand(1).Equals(vb.operand(1)) ||
          !va.operand(1).Equals(*stmts[gb].value)) {
        continue;
      }
      // Nothing else of the index part may read the two coordinates (payload outs and
      // tails are checked per tile by the payload specs).
      const std::vector<bool> live = IndexClosure();
      bool read = false;
      for (size_t k = 0; k < stmts.size() && !read; ++k) {
        if (k == oa || k == ob || !live[k] || stmts[k].kind == StmtKind::kParam) continue;
        for (const std::string& n : sim::expr::FreeVariables(Value(k))) {
          read |= n == coords[ia] || n == coords[ib];
        }
      }
      if (read) continue;
      // Both extents positive everywhere (else the spec is an input error, which the
      // spec's own proof reports).
      bool positive = true;
      for (size_t g : {ga, gb}) {
        std::optional<ParamRange> h = Image(g, ParamsOf(g, std::nullopt, true));
        positive &= h.has_value() && h->lo >= 1;
      }
      if (!positive) continue;
      ExprPtr extent = Expr::MustMake(ExprKind::kMul, {stmts[ga].value, stmts[gb].value});
      for (size_t k = 0; k < ga; ++k) {  // a let with that value, if any
        if (stmts[k].kind == StmtKind::kLet && stmts[k].value->Equals(*extent)) {
          extent = Expr::Var(stmts[k].name, stmts[k].value->type());
        }
      }
      replaced[ga] = extent;
      replaced[oa] = va.operands()[0];
      merged_away[ob] = merged_away[gb] = true;
      notes.push_back(absl::StrCat(
          "tiles (", coords[ia], ", ", coords[ib], ") = (X // E, X % E) with X = ",
          sim::expr::Print(*replaced[oa]), ": the index part uses the one coordinate ",
          coords[ia], " = X in [0, ", sim::expr::Print(*extent), ")"));
    }
  }
}

// Ensures: the hull of the values let `let` takes over the box of its parameters `ps`
//          (points a `require` of those parameters alone excludes left out); nullopt when
//          the box is too large to scan or the let fails to evaluate somewhere.
std::optional<ParamRange> Reducer::Image(size_t let,
                                         const absl::flat_hash_set<std::string>& ps) {
  std::vector<std::string> names(ps.begin(), ps.end());
  std::sort(names.begin(), names.end());
  return ScanParamHull(spec, spec.program().InlineLets(spec.program().statements()[let].value),
                       names, range, kMaxImageScan);
}

// A let computed from parameters only, whose parameters the index part reads through that
// let alone (`let D = R * C` with R = cdiv(rows, tile_rows), ...), becomes a parameter
// ranging over the values it takes: the index part at those values covers every point of
// the box (a superset when the values have gaps, so "holds" carries over; a violation
// found there is re-checked on the spec itself). Latest lets first, so that D is taken
// before the R and C it is made of.
void Reducer::AbstractLets() {
  for (size_t i = stmts.size(); i-- > 0;) {
    const Stmt& s = stmts[i];
    if (s.kind != StmtKind::kLet || s.depends_on_input) continue;
    if (s.value->kind() == ExprKind::kVar || s.value->kind() == ExprKind::kIntConst) continue;
    if (!IndexClosure()[i]) continue;
    const absl::flat_hash_set<std::string> mine = ParamsOf(i, std::nullopt);
    if (mine.size() < 2) continue;  // nothing to gain
    abstracted[i] = ParamRange{};  // tentatively: what is live with i a parameter
    const std::vector<bool> live = IndexClosure();
    abstracted.erase(i);
    bool private_params = true;
    for (size_t k = 0; k < stmts.size() && private_params; ++k) {
      if (!live[k] || k == i || stmts[k].kind == StmtKind::kParam) continue;
      for (const std::string& p : ParamsOf(k, i)) private_params &= !mine.contains(p);
    }
    if (!private_params) continue;
    std::optional<ParamRange> hull = Image(i, mine);
    // Past the scan's size, over the hulls of the lets it reads (a superset).
    if (!hull.has_value()) hull = ScanHullThroughLets(spec, s, range, kMaxImageScan);
    if (!hull.has_value()) continue;
    abstracted[i] = *hull;
    std::vector<std::string> sorted(mine.begin(), mine.end());
    std::sort(sorted.begin(), sorted.end());
    notes.push_back(absl::StrCat("let ", s.name, " = ", sim::expr::Print(*s.value), " (from ",
                                 absl::StrJoin(sorted, ", "), ") is a parameter of the index part, ",
                                 hull->ToString()));
  }
}

std::string Reducer::IndexText(const std::vector<bool>& live) const {
  std::string params, body;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::kParam && live[i]) {
      absl::StrAppend(&params, "param ", s.name, " in ", range.at(s.name).lo, "..",
                      range.at(s.name).hi, ";\n");
    } else if (auto it = abstracted.find(i); it != abstracted.end() && live[i]) {
      absl::StrAppend(&params, "param ", s.name, " in ", it->second.lo, "..", it->second.hi,
                      ";\n");
    } else if (s.kind == StmtKind::kClause && s.keyword == "require") {
      // Kept when everything it reads is in the index spec (else dropped: a superset).
      bool inside = true;
      for (const std::string& p : ParamsOf(i, std::nullopt)) {
        auto b = binder.find(p);
        inside &= b != binder.end() && live[b->second];
      }
      for (const std::string& n : sim::expr::FreeVariables(*s.value)) {
        auto b = binder.find(n);
        inside &= b != binder.end() && live[b->second];
      }
      if (inside) absl::StrAppend(&body, sim::expr::Print(s), "\n");
    } else if (live[i] && s.kind != StmtKind::kParam) {
      if (!replaced[i]) {
        absl::StrAppend(&body, sim::expr::Print(s), "\n");
      } else {
        absl::StrAppend(&body, s.keyword, " ", s.name, " = ", sim::expr::Print(*replaced[i]),
                        ";\n");
      }
    }
  }
  return params + body;
}

// One payload check (a `tail` clause, or a payload `out` no tail names) as a spec of
// its own: the tile coordinates it reads become parameters in 0..(largest extent - 1),
// `require`d below their extents; the rest is the statements it needs, as they are.
// Ensures: the text; nullopt when it reads `iter` other than through a coordinate, or
//          an extent's values cannot be scanned.
std::optional<std::string> PayloadText(Reducer& r, size_t root,
                                       std::vector<std::string>* symbolic) {
  const std::vector<Stmt>& stmts = r.stmts;
  std::vector<bool> need(stmts.size(), false);
  std::vector<size_t> pending = {root};
  absl::flat_hash_set<std::string> coords_read;
  while (!pending.empty()) {
    const size_t i = pending.back();
    pending.pop_back();
    if (need[i]) continue;
    need[i] = true;
    if (stmts[i].kind == StmtKind::kParam) continue;
    if (stmts[i].kind == StmtKind::kClause && stmts[i].keyword == "tail") {
      pending.push_back(r.binder.at(stmts[i].name));
    }
    for (const std::string& n : sim::expr::FreeVariables(*stmts[i].value)) {
      if (n == "iter") return std::nullopt;
      if (r.IsCoordinate(n)) {
        coords_read.insert(n);
        continue;
      }
      auto it = r.binder.find(n);
      if (it != r.binder.end()) pending.push_back(it->second);
    }
  }
  // The extents of the coordinates read, and what they need.
  std::string coord_params, coord_requires;
  for (size_t k = 0; k < r.spec.coordinates().size(); ++k) {
    const std::string& c = r.spec.coordinates()[k];
    if (!coords_read.contains(c)) continue;
    const size_t g = r.spec.grids()[k] - stmts.data();
    const absl::flat_hash_set<std::string> ps = r.ParamsOf(g, std::nullopt, true);
    std::optional<ParamRange> hull = r.Image(g, ps);
    if (!hull.has_value() || hull->hi < 1) return std::nullopt;
    absl::StrAppend(&coord_params, "param ", c, " in 0..", hull->hi - 1, ";\n");
    absl::StrAppend(&coord_requires, "require ", c, " < ", sim::expr::Print(*stmts[g].value),
                    ";\n");
    symbolic->push_back(c);
    for (const std::string& n : sim::expr::FreeVariables(*stmts[g].value)) {
      auto it = r.binder.find(n);
      if (it != r.binder.end()) pending.push_back(it->second);
    }
  }
  while (!pending.empty()) {  // the extents' own lets and parameters
    const size_t i = pending.back();
    pending.pop_back();
    if (need[i]) continue;
    need[i] = true;
    if (stmts[i].kind == StmtKind::kParam) continue;
    for (const std::string& n : sim::expr::FreeVariables(*stmts[i].value)) {
      auto it = r.binder.find(n);
      if (it != r.binder.end()) pending.push_back(it->second);
    }
  }
  std::string params, phase1, per_tile;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::kParam && need[i]) {
      absl::StrAppend(&params, "param ", s.name, " in ", r.range.at(s.name).lo, "..",
                      r.range.at(s.name).hi, ";\n");
      if (r.range.at(s.name).size() > 4) symbolic->push_back(s.name);
    } else if (s.kind == StmtKind::kClause && s.keyword == "require") {
      bool inside = true;
      for (const std::string& n : sim::expr::FreeVariables(*s.value)) {
        auto b = r.binder.find(n);
        inside &= b != r.binder.end() && need[b->second];
      }
      if (inside) absl::StrAppend(&phase1, sim::expr::Print(s), "\n");
    } else if (need[i] && s.kind == StmtKind::kLet) {
      absl::StrAppend(s.depends_on_input ? &per_tile : &phase1, sim::expr::Print(s), "\n");
    } else if (need[i] && s.kind == StmtKind::kClause) {
      absl::StrAppend(&per_tile, sim::expr::Print(s), "\n");
    }
  }
  return absl::StrCat(params, coord_params, phase1, coord_requires,
                      "domain = 1;\ngrid payload_unit = 1;\nout payload_unit = iter;\n",
                      per_tile);
}

}  // namespace

std::optional<ParamRange> ScanParamHull(
    const SwizzleSpec& spec, const ExprPtr& value, const std::vector<std::string>& names,
    const absl::flat_hash_map<std::string, ParamRange>& range, int64_t max_points) {
  const sim::expr::Program& program = spec.program();
  int64_t points = 1;
  for (const std::string& n : names) points = SatMul(points, range.at(n).size());
  if (points > max_points) return std::nullopt;
  std::vector<ExprPtr> own;
  for (const Stmt* r : program.Clauses("require")) {
    bool inside = true;
    for (const std::string& p : program.FreeParams(*r->value)) {
      inside &= absl::c_linear_search(names, p);
    }
    if (inside) own.push_back(program.InlineLets(r->value));
  }
  sim::expr::Env env;
  for (const std::string& n : names) env[n] = range.at(n).lo;
  std::optional<ParamRange> hull;
  for (int64_t k = 0; k < points; ++k) {
    bool admitted = true;
    for (const ExprPtr& r : own) {
      absl::StatusOr<int64_t> v = sim::expr::Evaluate(*r, env, spec.source_name());
      if (!v.ok()) return std::nullopt;
      admitted &= *v != 0;
    }
    if (admitted) {
      absl::StatusOr<int64_t> v = sim::expr::Evaluate(*value, env, spec.source_name());
      if (!v.ok()) return std::nullopt;
      hull = hull ? ParamRange{std::min(hull->lo, *v), std::max(hull->hi, *v)}
                  : ParamRange::Of(*v);
    }
    for (const std::string& n : names) {  // odometer
      if (env[n] < range.at(n).hi) {
        ++env[n];
        break;
      }
      env[n] = range.at(n).lo;
    }
  }
  return hull;
}

absl::StatusOr<absl::flat_hash_map<std::string, ParamRange>> ResolvedRanges(
    const SwizzleSpec& spec, const sim::swizzle::SpecSweep& ranges) {
  absl::flat_hash_map<std::string, ParamRange> out;
  for (const Stmt* p : spec.params()) out[p->name] = ParamRange{p->lo, p->hi};
  for (const auto& [name, r] : ranges.ranges) {
    if (!out.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.source_name(), ": no parameter named '", name, "'"));
    }
    out[name] = r;
  }
  return out;
}

std::optional<ParamRange> ParamExprHull(const SwizzleSpec& spec, const ExprPtr& e,
                                        const absl::flat_hash_map<std::string, ParamRange>& range,
                                        int64_t max_points) {
  const sim::expr::Program& program = spec.program();
  if (!program.FreeInputs(*e).empty()) return std::nullopt;
  return ScanParamHull(spec, program.InlineLets(e), program.FreeParams(*e), range, max_points);
}

absl::StatusOr<std::optional<ReducedSpec>> ReduceSpec(
    const SwizzleSpec& spec, const sim::swizzle::SpecSweep& ranges) {
  // With `skip`, surjectivity needs the spec's inverse or an enumeration of its own box;
  // an `inverse` is a proof aid for the spec as written: no reduction for either.
  if (!spec.program().Clauses("skip").empty() || spec.inverse() != nullptr) {
    return std::nullopt;
  }
  Reducer r(spec);
  for (const Stmt* p : spec.params()) r.range[p->name] = ParamRange{p->lo, p->hi};
  for (const auto& [name, range] : ranges.ranges) {
    if (!r.range.contains(name)) return std::nullopt;  // ProveSpec reports it
    r.range[name] = range;
  }
  if (spec.coordinates().size() > 1) r.MergeTiles();
  r.AbstractLets();
  if (r.notes.empty()) return std::nullopt;
  const std::vector<bool> live = r.IndexClosure();
  ReducedSpec out;
  out.notes = r.notes;
  const std::string base = spec.source_name();
  ASSIGN_OR_RETURN(out.index, SwizzleSpec::Parse(absl::StrCat(base, " (index part)"),
                                                 r.IndexText(live)));
  // Phase-1 statements the index part drops (requires of abstracted parameters, lets it
  // no longer reads) must not fail anywhere in the box: the spec itself would then be
  // an input error. Checked by evaluating them over their parameters' values.
  for (size_t i = 0; i < r.stmts.size(); ++i) {
    const Stmt& s = r.stmts[i];
    if (s.kind == StmtKind::kParam || s.depends_on_input || live[i]) continue;
    if (s.kind == StmtKind::kClause && s.keyword != "require" && s.keyword != "let") continue;
    if (!r.Image(i, r.ParamsOf(i, std::nullopt, true)).has_value() &&
        !r.ParamsOf(i, std::nullopt, true).empty()) {
      return std::nullopt;
    }
  }
  for (size_t i = 0; i < r.stmts.size(); ++i) {
    const Stmt& s = r.stmts[i];
    if (s.kind != StmtKind::kClause) continue;
    const bool tail = s.keyword == "tail";
    bool payload_out = s.keyword == "out" && !r.IsCoordinate(s.name);
    if (payload_out) {  // an out that a tail names is checked with that tail
      for (const Stmt* t : spec.program().Clauses("tail")) payload_out &= t->name != s.name;
    }
    if (!tail && !payload_out) continue;
    std::vector<std::string> symbolic;
    std::optional<std::string> text = PayloadText(r, i, &symbolic);
    if (!text.has_value()) return std::nullopt;
    ASSIGN_OR_RETURN(SwizzleSpec p,
                     SwizzleSpec::Parse(absl::StrCat(base, " (", s.keyword, " ", s.name, ")"),
                                        *text));
    out.payload.push_back({std::move(p), std::move(symbolic)});
  }
  return out;
}

}  // namespace warpcheck::verify::internal
