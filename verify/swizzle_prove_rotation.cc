// ProveByOutputChain (swizzle_prove_internal.h): a spec whose out coordinate c is R(P),
// a map R of one per-iteration let P (the "placement") and of parameters, proved as two
// specs of its own, each a complete proof (verify/README.md, "Twelfth pass"):
//
//   link 1, the placement: the spec with `out c = P;` in place of `out c = R(P);` and
//     R's own lets dropped — a bijection of the domain onto the box, P(i) in [0, n)
//     with n the extent of c;
//   link 2, the rotation: `domain = n; grid c = n; let P = iter; <R's lets>; out c = R;`
//     over the parameters R and n read — a bijection of [0, n) onto itself.
//
// The spec's map is then (R x id) o placement: a composition of two bijections, so a
// bijection of the domain onto the box at every admitted parameter point; every
// statement of the spec is evaluated by one of the two links at the same values (R's
// lets at iter = P(i), which is in [0, n)), so neither can fail to evaluate either.
// Both links are proved over supersets of the spec's admitted points (requires that
// read a dropped parameter are dropped), so their `holds` carries over. Anything but
// `holds` on a link ends the chain: the caller proves the spec by the direct route.
// When R is `(P + off) % n` (either order) with off read from parameters only, link 2
// is the rotation lemma over the hulls of n and off as two free parameters: x ->
// (x + off) mod n is a bijection of [0, n) for every n >= 1 and every off, so the hull
// pair covers every point of the box even though it forgets how n and off are related.
// Otherwise link 2 first tries R as digit maps (ProveRotationByDigits,
// swizzle_prove_digits.cc): `holds` there is link 2's `holds`; a violation there is the
// enumeration sweep's on the spec itself; anything else leaves R proved as written.
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
using sim::swizzle::SpecSweep;
using sim::swizzle::SwizzleSpec;

// Most parameter points scanned for the hull of an extent or an offset.
constexpr int64_t kMaxHullScan = int64_t{1} << 22;

// Where R sits in the spec.
struct OutputChainPlan {
  size_t coord = 0;       // index into spec.coordinates()
  size_t out = 0;         // the statement `out c = R`
  size_t grid = 0;        // the statement `grid c = n`
  size_t placement = 0;   // the let P
  std::vector<bool> own;  // R's lets: per-iteration lets only `out c` reads (through P)
  // With output_chain_coordinates: the names R reads that are the values of other out
  // coordinates (swizzle_prove_nested.cc), with the coordinate's index.
  std::vector<std::pair<std::string, size_t>> coordinate_reads;
};

absl::flat_hash_map<std::string, size_t> Binders(const std::vector<Stmt>& stmts) {
  absl::flat_hash_map<std::string, size_t> binder;
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (stmts[i].binds) binder[stmts[i].name] = i;
  }
  return binder;
}

// Ensures: the chain's plan, or nullopt when no out coordinate has the form R(P) with R
//          non-trivial, R's lets read by nothing else, and the coordinate itself read by
//          no other statement. Specs with `skip`, `tail` or `inverse` are not planned
//          (their surjectivity route and payloads belong to the spec as written).
//          With `coordinates`, R may read other out coordinates' values
//          (OutputChainCoordinateRead), and the rank coordinate is planned too, with the
//          earliest P (the largest R: link 2 then runs over the rank extent, whose
//          parameters are enumerated, and link 1 keeps the fewest of R's statements).
std::optional<OutputChainPlan> PlanOutputChain(const SwizzleSpec& spec,
                                               bool coordinates) {
  const sim::expr::Program& program = spec.program();
  if (!program.Clauses("skip").empty() || !program.Clauses("tail").empty() ||
      spec.inverse() != nullptr) {
    return std::nullopt;
  }
  const std::vector<Stmt>& stmts = program.statements();
  const absl::flat_hash_map<std::string, size_t> binder = Binders(stmts);
  const std::vector<std::string>& coords = spec.coordinates();
  const std::vector<const Stmt*> outs = program.Clauses("out");
  for (const Stmt* o : outs) {  // payload outs: not planned
    if (!absl::c_linear_search(coords, o->name)) return std::nullopt;
  }
  for (size_t k = 0; k < coords.size(); ++k) {
    if (coords[k] == "rank" && !coordinates) continue;
    const Stmt* o = nullptr;
    for (const Stmt* s : outs) {
      if (s->name == coords[k]) o = s;
    }
    if (o == nullptr) continue;
    const size_t out = o - stmts.data();
    const size_t grid = spec.grids()[k] - stmts.data();
    if (stmts[out].value->kind() == ExprKind::kVar) continue;  // nothing to chain
    std::optional<OutputChainPlan> found;
    // Candidate placements: the per-iteration lets before the out, latest first (the
    // smallest R).
    for (size_t p = out; p-- > 0;) {
      if (stmts[p].kind != StmtKind::kLet || !stmts[p].depends_on_input) continue;
      // An alias (`let pid_m = iter;`) would make the placement the identity and R the
      // spec itself: nothing gained.
      if (stmts[p].value->kind() == ExprKind::kVar) continue;
      std::vector<bool> own(stmts.size(), false);
      std::vector<std::pair<std::string, size_t>> coordinate_reads;
      bool ok = true, reads_p = false;
      std::vector<size_t> pending = {out};
      absl::flat_hash_set<size_t> seen;
      while (!pending.empty() && ok) {
        const size_t i = pending.back();
        pending.pop_back();
        if (!seen.insert(i).second) continue;
        for (const std::string& n : sim::expr::FreeVariables(*stmts[i].value)) {
          // (P itself is never a coordinate read: link 2 binds it to the iteration.)
          if (coordinates && n != stmts[p].name) {
            if (std::optional<size_t> c = OutputChainCoordinateRead(spec, k, n)) {
              if (!absl::c_linear_search(coordinate_reads, std::make_pair(n, *c)))
                coordinate_reads.push_back({n, *c});
              continue;
            }
          }
          if (n == "iter" || absl::c_linear_search(coords, n)) {
            ok = false;
            break;
          }
          auto b = binder.find(n);
          if (b == binder.end()) continue;
          if (b->second == p) {
            reads_p = true;
          } else if (stmts[b->second].depends_on_input) {
            if (stmts[b->second].kind != StmtKind::kLet) {
              ok = false;
              break;
            }
            own[b->second] = true;
            pending.push_back(b->second);
          }
        }
      }
      if (!ok || !reads_p) continue;
      // Nothing but R's lets and the out may read R's lets; nothing may read c.
      for (size_t i = 0; i < stmts.size() && ok; ++i) {
        if (i == out || own[i] || !stmts[i].value) continue;
        for (const std::string& n : sim::expr::FreeVariables(*stmts[i].value)) {
          auto b = binder.find(n);
          if (n == coords[k] || (b != binder.end() && own[b->second])) ok = false;
        }
      }
      if (!ok) continue;
      found =
          OutputChainPlan{k, out, grid, p, std::move(own), std::move(coordinate_reads)};
      if (coords[k] != "rank") return found;
    }
    if (found.has_value()) return found;
  }
  return std::nullopt;
}

// Ensures: the hull of the values of `e` (parameters only, lets inlined) over the box of
//          the parameters it reads (ParamExprHull, at most kMaxHullScan points).
std::optional<ParamRange> Hull(
    const SwizzleSpec& spec, const ExprPtr& e,
    const absl::flat_hash_map<std::string, ParamRange>& range) {
  return ParamExprHull(spec, e, range, kMaxHullScan);
}

// Link 1: the spec with `out c = P;` and R's lets dropped.
std::string PlacementText(const SwizzleSpec& spec, const OutputChainPlan& plan) {
  const std::vector<Stmt>& stmts = spec.program().statements();
  std::string text;
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (plan.own[i]) continue;
    if (i == plan.out) {
      absl::StrAppend(&text, "out ", stmts[i].name, " = ", stmts[plan.placement].name,
                      ";\n");
    } else {
      absl::StrAppend(&text, sim::expr::Print(stmts[i]), "\n");
    }
  }
  return text;
}

// Link 2 as the rotation lemma, when R is `(P + off) % n` (or `(off + P) % n`) with n
// the extent of c and off read from parameters only. Ensures: the text and the two
// parameters to keep symbolic; nullopt when R has another form or a hull is not found.
std::optional<std::string> RotationLemmaText(
    const SwizzleSpec& spec, const OutputChainPlan& plan,
    const absl::flat_hash_map<std::string, ParamRange>& range, std::string* note) {
  const sim::expr::Program& program = spec.program();
  const std::vector<Stmt>& stmts = program.statements();
  if (absl::c_any_of(plan.own, [](bool b) { return b; })) return std::nullopt;
  const ExprPtr& r = stmts[plan.out].value;
  if (r->kind() != ExprKind::kMod || r->operand(0).kind() != ExprKind::kAdd)
    return std::nullopt;
  const Expr& sum = r->operand(0);
  const std::string& p = stmts[plan.placement].name;
  auto is_p = [&](const Expr& e) { return e.kind() == ExprKind::kVar && e.name() == p; };
  ExprPtr off;
  if (is_p(sum.operand(0))) off = sum.operands()[1];
  if (is_p(sum.operand(1))) off = sum.operands()[0];
  if (!off || !program.FreeInputs(*off).empty()) return std::nullopt;
  const ExprPtr& n = r->operands()[1];
  if (!program.InlineLets(n)->Equals(*program.InlineLets(stmts[plan.grid].value))) {
    return std::nullopt;
  }
  std::optional<ParamRange> hn = Hull(spec, n, range);
  if (!hn.has_value() || hn->lo < 1) return std::nullopt;
  std::optional<ParamRange> ho = Hull(spec, off, range);
  if (!ho.has_value()) return std::nullopt;
  const std::string& c = stmts[plan.out].name;
  *note = absl::StrCat("rotation lemma: ", c, " = (", p,
                       " + off) % n with n = ", sim::expr::Print(*n), " in ",
                       hn->ToString(), " and off = ", sim::expr::Print(*off), " in ",
                       ho->ToString(), " proved for every (n, off) of those hulls");
  return absl::StrCat("param rotation_extent in ", hn->lo, "..", hn->hi, ";\n",
                      "param rotation_offset in ", ho->lo, "..", ho->hi, ";\n",
                      "domain = rotation_extent;\ngrid ", c, " = rotation_extent;\n",
                      "out ", c, " = (iter + rotation_offset) % rotation_extent;\n");
}

// Link 2 in general: the parameters, requires and parameter lets R and n need, then
// `domain = n; grid c = n; let P = iter;`, R's lets and the out. A require reading
// anything the link drops is dropped (a superset of the spec's admitted points).
// A coordinate value R reads (plan.coordinate_reads) is a parameter over `reads_range`.
std::string RotationText(
    const SwizzleSpec& spec, const OutputChainPlan& plan,
    const absl::flat_hash_map<std::string, ParamRange>& range,
    const absl::flat_hash_map<std::string, ParamRange>& reads_range) {
  const std::vector<Stmt>& stmts = spec.program().statements();
  const absl::flat_hash_map<std::string, size_t> binder = Binders(stmts);
  std::vector<bool> need(stmts.size(), false);
  std::vector<size_t> pending = {plan.out, plan.grid};
  while (!pending.empty()) {
    const size_t i = pending.back();
    pending.pop_back();
    if (need[i]) continue;
    need[i] = true;
    if (stmts[i].kind == StmtKind::kParam || i == plan.placement) continue;
    for (const std::string& n : sim::expr::FreeVariables(*stmts[i].value)) {
      auto b = binder.find(n);
      if (b != binder.end() && !reads_range.contains(n)) pending.push_back(b->second);
    }
  }
  std::string params, phase1, per_iter;
  for (const auto& [n, r] : plan.coordinate_reads) {
    absl::StrAppend(&params, "param ", n, " in ", reads_range.at(n).lo, "..",
                    reads_range.at(n).hi, ";\n");
  }
  for (size_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::kParam && need[i]) {
      absl::StrAppend(&params, "param ", s.name, " in ", range.at(s.name).lo, "..",
                      range.at(s.name).hi, ";\n");
    } else if (s.kind == StmtKind::kClause && s.keyword == "require") {
      bool inside = true;
      for (const std::string& n : sim::expr::FreeVariables(*s.value)) {
        auto b = binder.find(n);
        inside &= b != binder.end() && need[b->second];
      }
      if (inside) absl::StrAppend(&phase1, sim::expr::Print(s), "\n");
    } else if (s.kind == StmtKind::kLet && need[i] && !s.depends_on_input) {
      absl::StrAppend(&phase1, sim::expr::Print(s), "\n");
    } else if (i == plan.placement) {
      absl::StrAppend(&per_iter, "let ", s.name, " = iter;\n");
    } else if (plan.own[i] || i == plan.out) {
      absl::StrAppend(&per_iter, sim::expr::Print(s), "\n");
    }
  }
  const std::string n = sim::expr::Print(*stmts[plan.grid].value);
  return absl::StrCat(params, phase1, "domain = ", n, ";\ngrid ", stmts[plan.out].name,
                      " = ", n, ";\n", per_iter);
}

// Ensures: "" without coordinate reads; else what link 2 took as parameters.
std::string CoordinateReadsNote(
    const SwizzleSpec& spec, const OutputChainPlan& plan,
    const absl::flat_hash_map<std::string, ParamRange>& reads) {
  std::string out;
  for (const auto& [n, c] : plan.coordinate_reads) {
    absl::StrAppend(&out, out.empty() ? " (R also reads " : ", ", n, ", the value of ",
                    spec.coordinates()[c], ", which link 2 takes as a parameter in ",
                    reads.at(n).ToString());
  }
  return out.empty() ? out
                     : absl::StrCat(out, ": R is a bijection at each of its values)");
}

// Adds a link's counters, queries and notes to `proof`.
void AddLink(const std::string& what, const SwizzleProof& link, SwizzleProof* proof) {
  AddSubProofCounters(link, proof);
  for (const std::string& n : link.notes)
    proof->notes.push_back(absl::StrCat(what, ": ", n));
}

// R violated at a parameter point of the spec (link 2 in general form reads the spec's
// own parameters): the spec is looked up by the enumeration sweep, first over its box
// with every range cut to its first 16 values (the whole box when that is all of it, so
// the smallest counterexample), else with R's counterexample parameters pinned and the
// others cut so. Ensures: the sweep's violation, evaluated on the spec itself; nullopt
// when neither sweep fits max_param_points or finds one.
// `whole` says the sweep covered the whole box (its counterexample is then the smallest).
std::optional<sim::swizzle::Counterexample> SweepFor(
    const SwizzleSpec& spec, const absl::flat_hash_map<std::string, ParamRange>& range,
    const sim::swizzle::Counterexample& at, const SwizzleProveOptions& options,
    bool* whole) {
  for (const bool pinned : {false, true}) {
    SpecSweep box;
    int64_t points = 1;
    *whole = !pinned;
    for (const Stmt* p : spec.params()) {
      ParamRange r = range.at(p->name);
      *whole &= r.size() <= 16;
      r.hi = std::min(r.hi, r.lo + 15);
      for (const sim::swizzle::NamedValue& v : at.params) {
        if (pinned && v.name == p->name) r = ParamRange::Of(v.value);
      }
      points = SatMul(points, r.size());
      box.ranges.push_back({p->name, r});
    }
    if (points > options.minimise_sweep.max_param_points) continue;
    absl::StatusOr<sim::swizzle::CheckResult> r =
        sim::swizzle::Sweep(spec, box, options.minimise_sweep);
    if (r.ok() && r->verdict == Verdict::kViolated) return r->counterexample;
  }
  return std::nullopt;
}

// The options link 2 is proved under: the budget left after `spent` (the total's; 0: no
// total), the rotation lemma's two parameters symbolic when R is the lemma, else the
// coordinate values R reads and, for a coordinate other than the rank, the wide
// parameters of c's extent (what the default would make symbolic; the rank extent's
// stay enumerated).
SwizzleProveOptions LinkTwoOptions(const SwizzleSpec& spec, const OutputChainPlan& plan,
                                   const absl::flat_hash_map<std::string, ParamRange>& range,
                                   const SwizzleProveOptions& sub,
                                   const SwizzleProveOptions& options, uint64_t spent,
                                   bool lemma) {
  SwizzleProveOptions sub2 = sub;
  sub2.total_rlimit = RemainingBudget(options, spent);
  if (lemma) {
    sub2.symbolic_params = {"rotation_extent", "rotation_offset"};
    return sub2;
  }
  for (const auto& [n, c] : plan.coordinate_reads) sub2.symbolic_params.push_back(n);
  if (!plan.coordinate_reads.empty() && spec.coordinates()[plan.coord] != "rank") {
    const std::vector<Stmt>& stmts = spec.program().statements();
    for (const std::string& q : spec.program().FreeParams(*stmts[plan.grid].value)) {
      if (range.at(q).size() > options.enumerate_up_to) sub2.symbolic_params.push_back(q);
    }
  }
  return sub2;
}

// The chain's verdict when it found a violation of the spec itself: `note` first.
SwizzleProof Violated(SwizzleProof proof,
                      std::optional<sim::swizzle::Counterexample> counterexample,
                      bool minimised, std::string note) {
  proof.verdict = Verdict::kViolated;
  proof.counterexample = std::move(counterexample);
  proof.minimised = minimised;
  proof.notes.insert(proof.notes.begin(), std::move(note));
  return proof;
}

// Nothing left for the direct route: the chain's counters, the whole box open, and why.
SwizzleProof BudgetSpent(SwizzleProof proof, const SwizzleSpec& spec,
                         const absl::flat_hash_map<std::string, ParamRange>& range,
                         std::string note, const SwizzleProveOptions& options) {
  SubBox open;
  open.how = SubBox::How::kOpen;
  for (const Stmt* s : spec.params()) open.ranges.push_back({s->name, range.at(s->name)});
  open.why = absl::StrCat("the total budget (total_rlimit = ", options.total_rlimit,
                          ") is spent in the output chain");
  proof.verdict = Verdict::kInconclusive;
  proof.coverage = {open};
  proof.reason = absl::StrCat("open: ", open.ToString(), " (", open.why, ")");
  proof.notes.push_back(std::move(note));
  return proof;
}

}  // namespace

absl::StatusOr<std::optional<SwizzleProof>> ProveByOutputChain(
    const SwizzleSpec& spec, const SpecSweep& ranges,
    const SwizzleProveOptions& options) {
  if (!options.output_chain || !options.symbolic_params.empty()) return std::nullopt;
  const std::optional<OutputChainPlan> plan =
      PlanOutputChain(spec, options.output_chain_coordinates);
  if (!plan.has_value()) return std::nullopt;
  ASSIGN_OR_RETURN(const auto range, ResolvedRanges(spec, ranges));
  // A coordinate value R reads ranges over [0, hull of that coordinate's extent).
  absl::flat_hash_map<std::string, ParamRange> reads_range;
  for (const auto& [n, c] : plan->coordinate_reads) {
    std::optional<ParamRange> h = Hull(spec, spec.grids()[c]->value, range);
    if (!h.has_value() || h->hi < 1) return std::nullopt;
    reads_range[n] = ParamRange{0, h->hi - 1};
  }
  const std::vector<Stmt>& stmts = spec.program().statements();
  const std::string& c = stmts[plan->out].name;
  const std::string& p = stmts[plan->placement].name;
  const std::string n = sim::expr::Print(*stmts[plan->grid].value);
  const std::string base = spec.source_name();
  SwizzleProveOptions sub = options;
  sub.output_chain = false;
  sub.minimise = false;  // a link's counterexample only ends the chain
  SwizzleProof proof;    // the links' counters and notes; rlimit_spent is the chain's
  // The direct route, with what the chain spent taken off the total budget.
  auto direct =
      [&](const std::string& why) -> absl::StatusOr<std::optional<SwizzleProof>> {
    const std::string ended =
        absl::StrCat("output chain ", c, " = R(", p, ") ended: ", why);
    if (options.total_rlimit > 0 && proof.rlimit_spent >= options.total_rlimit) {
      return BudgetSpent(std::move(proof), spec, range, ended, options);
    }
    SwizzleProveOptions rest = options;
    rest.output_chain = false;
    rest.total_rlimit = RemainingBudget(options, proof.rlimit_spent);
    ASSIGN_OR_RETURN(SwizzleProof d, ProveSpec(spec, ranges, rest));
    d.solver_ms += proof.solver_ms;
    d.num_queries += proof.num_queries;
    d.configs += proof.configs;
    d.rlimit_spent += proof.rlimit_spent;
    // The chain's queries first, in the order they ran.
    d.queries.insert(d.queries.begin(), proof.queries.begin(), proof.queries.end());
    std::vector<std::string> notes = proof.notes;
    notes.push_back(absl::StrCat(ended, "; the spec is proved directly"));
    d.notes.insert(d.notes.begin(), notes.begin(), notes.end());
    return d;
  };
  // Link 1: the placement. With coordinate reads, integers first and no whole-box
  // bit-vector configuration: such a placement (dist's rank = k beside row = d) is
  // linear once the rank parameters are enumerated, and as one all-symbolic bit-vector
  // configuration its symbolic divisors spent the whole budget (verify/README.md,
  // "Thirteenth pass").
  SwizzleProveOptions sub1 = sub;
  if (!plan->coordinate_reads.empty()) sub1.bitvector_first_bits = 0;
  ASSIGN_OR_RETURN(
      SwizzleSpec placement,
      SwizzleSpec::Parse(absl::StrCat(base, " (placement)"), PlacementText(spec, *plan)));
  ASSIGN_OR_RETURN(SwizzleProof one, ProveSpec(placement, ranges, sub1));
  AddLink("link 1 (placement)", one, &proof);
  if (one.verdict != Verdict::kHolds) {
    return direct(absl::StrCat("the placement (", c, " = ", p, ") is ",
                               sim::swizzle::VerdictName(one.verdict),
                               one.reason.empty() ? "" : absl::StrCat(": ", one.reason)));
  }
  // Link 2: R on [0, n).
  std::string lemma_note;
  const std::optional<std::string> lemma =
      RotationLemmaText(spec, *plan, range, &lemma_note);
  SwizzleProveOptions sub2 =
      LinkTwoOptions(spec, *plan, range, sub, options, proof.rlimit_spent,
                     lemma.has_value());
  ASSIGN_OR_RETURN(
      SwizzleSpec rotation,
      SwizzleSpec::Parse(
          absl::StrCat(base, " (", c, " = R(", p, ") on [0, ", n, "))"),
          lemma.has_value() ? *lemma : RotationText(spec, *plan, range, reads_range)));
  // R as digit maps first (swizzle_prove_digits.cc): holds, or a violation found by
  // the enumeration sweep on the spec itself; anything else leaves link 2 as written.
  std::optional<DigitChainResult> digits;
  if (!lemma.has_value()) {
    SwizzleProveOptions digit_options = sub2;
    digit_options.minimise = options.minimise;  // its violation is the spec's own
    ASSIGN_OR_RETURN(digits, ProveRotationByDigits(spec, rotation, range, digit_options));
  }
  if (digits.has_value()) {
    AddLink("link 2 (R as digits)", digits->lemmas, &proof);
    if (digits->verdict == Verdict::kViolated) {
      return Violated(std::move(proof), std::move(digits->counterexample), digits->minimised,
                      absl::StrCat("output chain: ", c, " = R(", p, "); ", digits->note));
    }
    if (digits->verdict != Verdict::kHolds) {
      proof.notes.push_back(absl::StrCat(digits->why, "; R is proved as written"));
      sub2.total_rlimit = RemainingBudget(options, proof.rlimit_spent);
    }
  }
  const bool by_digits = digits.has_value() && digits->verdict == Verdict::kHolds;
  SwizzleProof two;
  if (by_digits) {
    two.verdict = Verdict::kHolds;
    lemma_note = digits->note;
  } else {
    ASSIGN_OR_RETURN(two, ProveSpec(rotation, {}, sub2));
    AddLink("link 2 (R)", two, &proof);
  }
  if (two.verdict != Verdict::kHolds) {
    if (two.verdict == Verdict::kViolated && two.counterexample.has_value() &&
        !lemma.has_value()) {
      // The placement is onto [0, n) x ..., so R's violation is the spec's at the same
      // parameters; found and re-checked on the spec itself by evaluation.
      bool whole = false;
      std::optional<sim::swizzle::Counterexample> cex =
          SweepFor(spec, range, *two.counterexample, options, &whole);
      if (cex.has_value()) {
        return Violated(
            std::move(proof), std::move(cex), whole,
            absl::StrCat("output chain: ", c, " = R(", p, "), R on [0, ", n,
                         ") is violated (", two.counterexample->ToString(),
                         "); the counterexample is the enumeration sweep's on the spec "
                         "itself (every range cut to its first 16 values, or R's "
                         "counterexample parameters pinned when that is too large)"));
      }
    }
    return direct(
        absl::StrCat("R on [0, ", n, ") is ", sim::swizzle::VerdictName(two.verdict),
                     two.counterexample.has_value()
                         ? absl::StrCat(" (", two.counterexample->ToString(), ")")
                         : "",
                     two.reason.empty() ? "" : absl::StrCat(": ", two.reason)));
  }
  proof.verdict = Verdict::kHolds;
  proof.notes.insert(
      proof.notes.begin(),
      absl::StrCat("output chain: ", c, " = R(", p, "); the placement (", c, " = ", p,
                   ") is a bijection of the domain onto the box and R one of [0, ", n,
                   ") onto itself, each proved as a spec of its own, so the map, their "
                   "composition, is a bijection",
                   lemma.has_value() || by_digits ? absl::StrCat(" (", lemma_note, ")") : "",
                   CoordinateReadsNote(spec, *plan, reads_range)));
  return proof;
}

}  // namespace warpcheck::verify::internal
