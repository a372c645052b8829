// Private to verify/swizzle_prove*.cc: the pieces the built-in and spec provers share.
#ifndef WARPCHECK_VERIFY_SWIZZLE_PROVE_INTERNAL_H_
#define WARPCHECK_VERIFY_SWIZZLE_PROVE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"
#include "verify/smt/expr_encoder.h"
#include "verify/smt/smt.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::verify::internal {

// Runs the queries of one proof, recording each in the SwizzleProof, whose rlimit_spent
// is what the queries after it may no longer spend of options.total_rlimit.
class QueryRunner {
 public:
  QueryRunner(const SwizzleProveOptions& options, SwizzleProof* proof)
      : options_(options), proof_(proof) {}

  // Ensures: the result (kSat, kUnsat or kUnknown), or the kError's InternalError.
  //          `rlimit` overrides the options' budget when non-zero.
  absl::StatusOr<smt::SolverResult> Run(smt::Context& ctx, const std::string& name,
                                        const std::vector<smt::Term>& assertions,
                                        uint64_t rlimit = 0, bool bitblast = false,
                                        bool bitvector = false);
  const SwizzleProveOptions& options() const { return options_; }
  // The resource count spent by every query so far, charged sub-proofs included.
  uint64_t rlimit_spent() const { return proof_->rlimit_spent; }
  // Records a sub-proof proved outside this runner (a spec of its own, by ProveSpec) as
  // part of this proof: its counters and queries added (AddSubProofCounters), so that
  // what it spent is charged to the total budget as if its queries had run here and the
  // queries after it get only what is left (verify/README.md, "Eleventh pass").
  void Charge(const SwizzleProof& sub);

 private:
  const SwizzleProveOptions& options_;
  SwizzleProof* proof_;
};

// Adds a sub-proof's totals (solver_ms, num_queries, configs, rlimit_spent) and query
// log to `proof`; its notes are the caller's to add (each chain names its links).
void AddSubProofCounters(const SwizzleProof& sub, SwizzleProof* proof);

// The total budget a sub-proof started after `spent` may have: what options.total_rlimit
// (0: none) leaves, at least 1 so that an exhausted budget stays a bound; 0 when there
// is no total.
uint64_t RemainingBudget(const SwizzleProveOptions& options, uint64_t spent);

// Ensures: "<query> returned unknown (<reason>)".
std::string UnknownReason(const smt::SolverResult& r);

// What one configuration came to.
struct ConfigOutcome {
  enum class Kind : uint8_t { kHolds, kViolated, kUnknown };
  Kind kind = Kind::kHolds;
  std::string reason;  // kUnknown
  // kHolds: non-empty when one property was left open (not proved, not refuted), and
  // why; the configuration's box is then reported open, with this as the reason.
  std::string open;
  // kViolated: the model's witness in domain terms (not yet minimised).
  sim::swizzle::Counterexample witness;
  int64_t tiles = 0;  // the witness's tile count (extents other than rank)
};

// Ensures: the product, saturated at INT64_MAX.
int64_t SatMul(int64_t a, int64_t b);

// Shrinks the tile count of a sat query by bisection: each step is the same query with
// `tiles <= bound`. Ensures: the model with the fewest tiles found (`best` if none).
absl::StatusOr<smt::Model> ShrinkTiles(
    smt::Context& ctx, QueryRunner& run, const std::string& name,
    const std::vector<smt::Term>& assertions, smt::Term tiles, smt::Model best,
    const std::function<int64_t(const smt::Model&)>& tiles_of);

// A spec split for proof (swizzle_reduce.cc; verify/README.md, "Reduced specs").
struct ReducedSpec {
  // The tile-index part: domain, grids, coordinate outs, skips and what they need, with
  // (row, col) = (X // E, X % E) merged into the one coordinate X, and lets of parameters
  // that only they read (D = R * C from rows, tile_rows, ...) as parameters ranging over
  // their values. No payload outs, tails or inverse.
  std::optional<sim::swizzle::SwizzleSpec> index;
  // One spec per payload check (a tail, or a payload out no tail names), the tile
  // coordinates it reads as parameters below their extents; `symbolic` are the parameters
  // its proof keeps symbolic.
  struct Payload {
    sim::swizzle::SwizzleSpec spec;
    std::vector<std::string> symbolic;
  };
  std::vector<Payload> payload;
  std::vector<std::string> notes;  // what was merged and abstracted
};
// Ensures: the reduction of `spec` over the box (`ranges` overriding the declared
//          ranges); nullopt for a spec with `skip` or `inverse`, when nothing merges or abstracts,
//          or when a part the reduction would drop could fail to evaluate in the box.
absl::StatusOr<std::optional<ReducedSpec>> ReduceSpec(const sim::swizzle::SwizzleSpec& spec,
                                                      const sim::swizzle::SpecSweep& ranges);

// The hull of `value`'s values (parameters only, lets inlined) over the box that `range`
// gives the parameters `names`, points that a `require` reading only those parameters
// excludes left out (so a superset of the admitted points' values). Ensures: nullopt
// when the box has more than `max_points` points, or `value` or such a require fails to
// evaluate at one of them (swizzle_reduce.cc; used there and by the output chain).
std::optional<sim::swizzle::ParamRange> ScanParamHull(
    const sim::swizzle::SwizzleSpec& spec, const sim::expr::ExprPtr& value,
    const std::vector<std::string>& names,
    const absl::flat_hash_map<std::string, sim::swizzle::ParamRange>& range,
    int64_t max_points);

// The resolved range of every parameter of `spec`: declared, overridden by `ranges`.
// Ensures: an input error naming a range for no parameter (swizzle_reduce.cc; used by the
// output chain and the flattened divisions).
absl::StatusOr<absl::flat_hash_map<std::string, sim::swizzle::ParamRange>> ResolvedRanges(
    const sim::swizzle::SwizzleSpec& spec, const sim::swizzle::SpecSweep& ranges);

// ScanParamHull of a parameter-only expression over the parameters it reads, lets
// inlined. Ensures: nullopt when `e` reads a per-iteration name, or as ScanParamHull.
std::optional<sim::swizzle::ParamRange> ParamExprHull(
    const sim::swizzle::SwizzleSpec& spec, const sim::expr::ExprPtr& e,
    const absl::flat_hash_map<std::string, sim::swizzle::ParamRange>& range,
    int64_t max_points);

// The output-side chain (swizzle_prove_rotation.cc; verify/README.md, "Twelfth pass"):
// a spec whose out coordinate c is R(P) — R a map of one per-iteration let P and of
// parameters — proved as the placement (the spec with `out c = P`) and R on [0, extent
// of c), each a spec of its own. Ensures: nullopt when the chain does not apply
// (options.output_chain off, no such c); else the proof: `holds` when both links hold;
// `violated` only by the enumeration sweep on the spec itself (R violated at a
// parameter point of the spec, the placement proved onto); otherwise the direct proof
// of the spec, with the chain's notes and counters and what it spent taken off
// options.total_rlimit.
absl::StatusOr<std::optional<SwizzleProof>> ProveByOutputChain(
    const sim::swizzle::SwizzleSpec& spec, const sim::swizzle::SpecSweep& ranges,
    const SwizzleProveOptions& options);
// The digit chain (swizzle_prove_digits.cc; verify/README.md, "Thirteenth pass"):
// `rotation` is the output chain's general link 2 of `spec` (`domain = n; grid c = n;
// let P = iter; <R's lets>; out c = R;`), `range` every parameter's range.
struct DigitChainResult {
  // kHolds: R is a bijection of [0, n) at every admitted point (`note` says how);
  // kViolated: `counterexample` is the enumeration sweep's violation of `spec` itself;
  // kInconclusive: not decided, `why`.
  Verdict verdict = Verdict::kInconclusive;
  std::optional<sim::swizzle::Counterexample> counterexample;
  bool minimised = false;
  std::string note;
  std::string why;
  SwizzleProof lemmas;  // the rotation lemmas' counters and queries
};
// Ensures: nullopt when options.digit_chain is off or R is not a tree of digit steps
//          and rotations (the claim and its obligations: the file's essay); else the
//          result, `holds` only when every obligation was proved.
absl::StatusOr<std::optional<DigitChainResult>> ProveRotationByDigits(
    const sim::swizzle::SwizzleSpec& spec, const sim::swizzle::SwizzleSpec& rotation,
    const absl::flat_hash_map<std::string, sim::swizzle::ParamRange>& range,
    const SwizzleProveOptions& options);
// Output-chain coordinate reads (swizzle_prove_nested.cc;
// SwizzleProveOptions::output_chain_coordinates): the index of the out coordinate other
// than coordinate `k` whose value the name `n` is — that coordinate itself, or a let that
// its clause `out c' = n` names whole. Ensures: nullopt when `n` is neither.
std::optional<size_t> OutputChainCoordinateRead(const sim::swizzle::SwizzleSpec& spec,
                                                size_t k, const std::string& n);
// The statements of a spec that run per iteration, exactly as SpecInstance classifies
// them (sim/swizzle/spec.cc): out, tail, skip, and anything mentioning `iter` or a name
// computed per iteration (swizzle_prove_spec.cc).
std::vector<bool> PerIteration(const sim::expr::Program& program);

// Phase 1 of a spec (its parameter statements) encoded for the solver, in order, as
// SwizzleSpec::InstantiateUnchecked runs it: statement k is skipped when skip(k) (the
// caller's per-iteration ones); a `let` is bound in `enc`; the first failing statement
// is an error (`param_errors` gets one term a statement: "this one is the first to
// fail"); a false `require` excludes the point (`admitted` is false, not an error).
// on_extent(stmt, encoded) sees every `domain` and `grid` statement. Shared by the
// configuration proofs (SpecConfig) and the contiguity chain (ChainConfig).
struct EncodedParamPhase {
  smt::Term admitted;
  std::vector<smt::Term> param_errors;
};
absl::StatusOr<EncodedParamPhase> EncodeParamPhase(
    smt::Context& ctx, smt::ExprEncoder& enc, const sim::expr::Program& program,
    const std::function<bool(size_t)>& skip,
    const std::function<void(const sim::expr::Stmt&, const smt::ExprEncoder::Encoded&)>&
        on_extent);

// The contiguity chain (swizzle_prove_chain.cc; verify/README.md, "Eleventh pass";
// SwizzleProveOptions::contiguity_chain): a `skip` map whose kept iterations a let L
// numbers consecutively from 0 (Stream-K's `global = start + j`), proved as "L maps the
// kept iterations one-to-one onto [0, B)" and "the placement of L holds on [0, B)".
// `box` gives every parameter's range. Ensures: true when every link was proved
// (*proof then holds, symbolic, with the links' counters and notes); false when the
// chain does not apply or some link was not unsat (a note says which): never a
// violation. The queries run through `run` (its budget, total_rlimit included), which
// records into `*proof`; the placement sub-proof is charged to it (QueryRunner::Charge).
absl::StatusOr<bool> ProveByContiguity(const sim::swizzle::SwizzleSpec& spec,
                                       const sim::swizzle::SpecSweep& box,
                                       QueryRunner& run, SwizzleProof* proof);

// Nested divisions flattened (swizzle_prove_nested.cc; verify/README.md, "Thirteenth
// pass"; SwizzleProveOptions::flatten_divisions): when every read of the iteration is
// `q // b`, `q % b` (q = `iter // a`, inline or a let) or `iter % a`, with a and b read
// from parameters only and >= 1 over the box, the spec is proved as the same map reading
// `iter // (a*b)`, `(iter % (a*b)) // a` and `(iter % (a*b)) % a` (the iteration's digits
// of one divisor). Ensures: nullopt when that form is not there; else the proof of the
// rewritten spec (the spec's verdict: the two evaluate alike everywhere), a violation
// re-checked by sweeping the spec as written at its parameters (InternalError when that
// sweep disagrees).
absl::StatusOr<std::optional<SwizzleProof>> ProveByFlattening(
    const sim::swizzle::SwizzleSpec& spec, const sim::swizzle::SpecSweep& ranges,
    const SwizzleProveOptions& options);

// The hull of a parameter let's values over the box `range` (swizzle_prove_nested.cc):
// by ScanParamHull when the box of its parameters has at most `max_points` points, else
// (at most `depth` levels) over the hulls of the names it reads — parameters their
// ranges, lets their own hulls — which is a superset of its values. Ensures: nullopt when
// the let reads the iteration, a scan is too large, or the value fails to evaluate at a
// point scanned.
std::optional<sim::swizzle::ParamRange> ScanHullThroughLets(
    const sim::swizzle::SwizzleSpec& spec, const sim::expr::Stmt& let,
    const absl::flat_hash_map<std::string, sim::swizzle::ParamRange>& range,
    int64_t max_points, int depth = 2);

}  // namespace warpcheck::verify::internal

#endif  // WARPCHECK_VERIFY_SWIZZLE_PROVE_INTERNAL_H_
