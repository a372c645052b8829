// Proving swizzle2d properties for symbolic parameter ranges (shared/spec/swizzle2d.md).
//
// Overview
// --------
// sim/swizzle decides a swizzle at one parameter point by enumeration; this file proves
// it for a whole box of points at once with Z3, and falls back on enumeration only to
// minimise a counterexample (or, for the one case Z3 cannot decide, see "Specs" below):
//
//     sim::swizzle::BuiltinSweep box{.fn = Builtin::kGemm,
//                                    .row_tiles = {{1, 65536}}, .col_tiles = {{1,
//                                    65536}}, .swizzle_offset = {{1, 7}},
//                                    .swizzle_direction = {{0, 1}}};
//     absl::StatusOr<SwizzleProof> p = ProveBuiltin(box);   // holds, 84 queries, ~0.15 s
//
// The small parameters (swizzle_offset, direction, rank_size N, comm_npu_split p,
// comm_data_split q) are *enumerated*: each combination is one configuration with those
// values as constants. The tile counts R, C (and, given as shapes, rows, cols, tile_rows,
// tile_cols) stay *symbolic*: every query covers the whole range at once. This is the
// split the spec measured ("How to prove them"): with the offset symbolic Z3 times out.
//
// What is proved, per configuration (gemm: f(i) = (row, col); dist: f(i) = (row, col,
// rank)):
//   in_range     every i in [0, domain) maps into the box [0,R) x [0,C) (x [0,N));
//   injective    no two iterations map to one tile;
//   bijective    by counting: the domain and the box have the same size (R·C, resp.
//                N·R·C, by the definitions), so injective + in range is bijective;
//   tail_size    (dist) comm_row_size = min(rows − row·tile_rows, tile_rows) > 0 for
//   every
//                reached tile, likewise for columns ("exact" holds by definition for the
//                built-ins; it is a real check for specs with `tail` clauses).
//
// How the built-ins are proved (the structured encoding)
// -------------------------------------------------------
// Each built-in is a mixed-radix decomposition followed by a small per-digit map. For
// gemm direction 1: i ↦ (g, r, m) with g = i // (s·R), j = i % (s·R), r = j // w,
// m = j % w (w the group width), then (g, r, m) ↦ (row, col). One query on the whole
// map, as written, costs Z3 about a second (division by the symbolic s·R and w); split
// into a chain of small lemmas, each assuming the ones before it, every query is a few
// milliseconds:
//
//     lemma group       0 <= g < G                       (needs i < R·C)
//     lemma width       1 <= w <= s
//     lemma digits      0 <= r < R, 0 <= m < w
//     in_range          (row, col) in the box            (assuming the lemmas)
//     left_inverse      ginv(row, col) = (g, r, m)       (the digits are recoverable)
//     decomposition     (g, r, m) determines i           (i = g·s·R + r·w + m)
//
// left_inverse and decomposition together make f injective. Every step is an exact
// consequence of the definitions (the lemmas are proved, not assumed), so the chain is a
// proof of the spec's property. Two more measured tricks: a lemma query may carry hints,
// valid product facts (x >= 0 && g >= G -> x·g >= x·G) that spare Z3's nonlinear core
// its weakest step; and the chain runs over a relaxed grid (extents >= 1, no upper
// bounds: a superset of the box, so unsat there is a proof for the box), re-running over
// the exact box only if something is sat. dist is the same with digits (g, d, m)
// (direction 1) or (g, k, m) (direction 0), the rank interleave π as a table (N is a
// constant), and the tile split d ↦ (d // C, d % C) as one more lemma. Where π is not a
// permutation (dist_swizzle2d_Nz with p > 1) there is no left inverse, and the direct
// query "∃ i ≠ i': f(i) = f(i')" finds the collision instead.
//
// Specs
// -----
// A user spec (sim/swizzle/spec.h) is encoded statement by statement with
// smt::ExprEncoder, exactly as SpecInstance::Map evaluates it (lets in order, lazy
// operators, evaluation errors, `skip`, `tail`). Queries: params_error (a point where the
// spec cannot be instantiated: the sweep would fail too), eval_error, in_range,
// tail_size, count (domain = product of the extents), then injectivity: with an
// `inverse` clause the one-copy query left_inverse (inv(f(i)) == i), else (or where the
// inverse is wrong) the direct two-copy query. With a `skip` clause the domain is larger
// than the box and counting no longer gives surjectivity: with an inverse the one-copy
// query surjective (f(inv(t)) == t for every tile t) proves it; without one the box is
// enumerated first when small enough (checked = kEnumerated), else surjectivity is open.
// By default (reduce_specs) a spec is first proved *reduced* (swizzle_reduce.cc): its
// tile-index part with tiles (X // E, X % E) merged into X and lets of parameters only
// they read (D = R * C from rows, tile_rows, ...) as parameters over their values, and
// each `tail` at a free tile of the box; a violation there is looked up by the sweep of
// the spec's own box, anything undecided falls back to the spec as written.
// Which parameters are symbolic: SwizzleProveOptions::symbolic_params, or by default the
// parameters the non-rank `grid` extents depend on whose range has more than
// `enumerate_up_to` values — unless a `require` of their own admits at most
// `enumerate_admitted_up_to` values, which are then enumerated; then the up-front cube
// split (`cube_divisors_up_to`) enumerates the parameters that divisors depend on while
// the configurations stay within budget and one tile-extent parameter stays symbolic, so
// that each configuration divides by constants or by few-valued terms, which the integer
// encoding splits into cases (`small_divisor_cases`): linear queries. A configuration whose
// query runs out of budget is split on a symbolic parameter (the one most divisors
// depend on first) and the children resume at that query; a configuration with every
// parameter constant that still runs out is decided by evaluating it. Each configuration
// runs a portfolio of two encodings (SwizzleProveOptions::encodings): Z3 integers, and
// signed bit-vectors whose width is sized from the declared ranges (div/mod by powers of
// two as shifts and masks, decided by bit-blasting); the second resumes at the query the
// first ran out on, and narrow configurations (bitvector_first_bits) try bit-vectors
// first. A box that fits that width with every parameter symbolic is one configuration.
// When some part of the box stays undecided, SwizzleProof::coverage lists the proven,
// enumerated and open sub-boxes and the verdict is kInconclusive with that list as the reason
// (verify/README.md has the strategy and the measurements).
//
// Counterexamples and minimisation
// --------------------------------
// A sat query gives a model: a parameter point and the witnesses. It is then shrunk:
// Z3 bisects on the tile count (R·C, resp. D) for that configuration, and the enumeration
// engine sweeps every point with at most that many tiles (sim/swizzle/sweep.h: fewest
// tiles, then ranks, then the parameters in order), over the full ranges of the small
// parameters. The reported counterexample is therefore exactly the one a full sweep would
// report — the smallest — with its iteration ids and tile from enumeration.
// `minimised` says whether that happened (it is skipped when the tile count stays too
// large to sweep; the model's own witness is reported then, checked by concrete
// evaluation).
//
// Verdicts: kHolds when every query of every configuration is unsat; kViolated with a
// counterexample as soon as one is found; kInconclusive when some query came back unknown
// (its rlimit ran out: `reason` names the query and Z3's reason) — never a pass.
// Errors (absl::Status): InvalidArgument for bad ranges or a spec that cannot be
// instantiated at some point of the box, ResourceExhausted beyond the limits, Internal
// for solver errors.
#ifndef WARPCHECK_VERIFY_SWIZZLE_PROVE_H_
#define WARPCHECK_VERIFY_SWIZZLE_PROVE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify {

using sim::swizzle::Verdict;

// How the verdict was reached (the CLI's JSON "checked").
enum class CheckedBy : uint8_t { kSymbolic, kEnumerated };
// Ensures: "symbolic", "enumerated".
absl::string_view CheckedByName(CheckedBy c);

struct SwizzleProveOptions {
  // Per query. rlimit is the deterministic budget; the default is ~10x what the slowest
  // built-in query needs.
  smt::SolverOptions solver = {.rlimit = 20'000'000, .timeout_ms = 0, .keep_smt2 = false};
  // Most configurations (combinations of enumerated parameters, and the pieces they are
  // split into) one proof may visit. Specs: past it the remaining sub-boxes are open.
  int64_t max_configs = 100'000;
  // Specs: the total resource count of all queries (0: none). Once spent, no new
  // configuration is started and the remaining sub-boxes are reported open; no query
  // gets more than what is left of it (its rlimit is capped).
  uint64_t total_rlimit = 0;
  // Specs: a configuration with every parameter constant whose query runs out is decided
  // by evaluating its iterations when it has at most this many (0: never).
  int64_t enumerate_stuck_points = int64_t{1} << 24;
  // Specs: a parameter with a wide range that a `require` of its own restricts to at
  // most this many values is enumerated over those values.
  int64_t enumerate_admitted_up_to = 64;
  // Specs: try each query first without the symbolic parameters' upper bounds (a
  // superset of the box: unsat there is a proof; Z3's nonlinear core is often much
  // faster without the bounds, sometimes slower), then over the exact box. Off by
  // default: measured on grouped_m.swz (R, C <= 12, 4 group sizes) 99 s with it, 26 s
  // without; on R, C <= 192 it decided in_range where the bounded query ran out.
  bool relax_upper_bounds = false;
  // Specs: a query that runs out is tried again as bit-vectors sized from the bounds
  // (smt::SolverOptions::bitblast; Z3's nla2bv), before the configuration is split.
  // Off: measured on morton.swz, Z3 4.8.12's nla2bv rejects div/mod ("not in the
  // fragment"), and after purify-arith answers "incomplete" (the purified quotients have
  // no bounds it can see) — an encoder-side bit-vector encoding is the way on.
  bool bitblast_on_unknown = false;
  // Specs: the encodings each configuration tries, in order, until one decides (a
  // portfolio; each with the same deterministic rlimit, and each resuming at the query
  // the one before ran out on). kInteger: Z3's integer arithmetic, divisions by
  // non-constants as fresh quotients. kBitVector: signed bit-vectors whose width is
  // sized from the declared ranges (smt/expr_encoder.h, "Bit-vectors"), div/mod by
  // powers of two as shifts and masks, decided by Z3's qfbv tactic (bit-blasting).
  enum class Encoding : uint8_t { kInteger, kBitVector };
  std::vector<Encoding> encodings = {Encoding::kInteger, Encoding::kBitVector};
  // Specs: a configuration whose bit-vector encoding is at most this wide tries
  // bit-vectors first, unless its integer encoding is linear (no nonlinear node outside a
  // small-divisor case split: see small_divisor_cases); and by default (no symbolic_params) a box that fits this width
  // with every parameter symbolic is proved as that one configuration (splitting it only
  // when a query runs out). Measured on the corpus (verify/README.md): bit-blasting wins
  // up to ~14 bits, and loses to the integer core where symbolic divisors are wide.
  int bitvector_first_bits = 16;
  // Shrink counterexamples with Z3 and the enumeration sweep (see above).
  bool minimise = true;
  // Largest tile count the minimising sweep covers, and its iteration budget.
  int64_t max_minimise_tiles = 4096;
  sim::swizzle::SweepOptions minimise_sweep = {
      .max_points = int64_t{1} << 28, .max_param_points = int64_t{1} << 24, .check = {}};
  // Keep every query's record in SwizzleProof::queries (names, results, times).
  bool keep_query_log = true;

  // Specs only. Parameters to keep symbolic (empty: the default rule above).
  std::vector<std::string> symbolic_params;
  int64_t enumerate_up_to = 4;
  // Specs, integer encoding: a division whose divisor is not constant but whose value
  // range reaches into 1..n is encoded as the cases divisor == v, v = 1..n (each a native
  // division by a constant, linear for Z3), with the nonlinear fresh quotient only for
  // the other values (smt/expr_encoder.h, "Division"). 0: off. Measured on gemm_d1,
  // R = 100, s = 7, C in 1..192 symbolic: the group width `w` in `j // w` is 1..7;
  // injectivity 7.7 s without, 0.3 s with.
  int small_divisor_cases = 16;
  // Specs, integer encoding: a division of a non-negative dividend by a positive divisor
  // that is not constant gets its first n quotient values as linear cases
  // (m*b <= a < (m+1)*b), the fresh nonlinear quotient only for a >= n*b
  // (smt/expr_encoder.h, "Division"). 0: off.
  int small_quotient_cases = 16;
  // Specs, integer encoding: a product of two non-constants whose one factor takes at
  // most n values (composable_kernel's `idx_M01 * n0`, idx_M01 in 0..M01-1) is encoded as
  // one linear case per value of that factor (smt/expr_encoder.h, "Products"); with
  // `case_obligations` the factor's range is an obligation like a divisor's. 0: off.
  // verify/README.md, "Sixth pass".
  int small_factor_cases = 16;
  // Specs, integer encoding: the iteration as mixed-radix digits. When the map reads
  // `iter` only as `iter // S` and `iter % S` for one positive, non-constant S that
  // shares factors with the domain (gemm: S = s*R, domain R*C), the iteration is the
  // pair (g, j) with 0 <= j < S, and `iter < domain` is stated linearly by cancelling
  // the common factor F (S = k*F, domain = Y*F, k constant: j < F*(Y - g*k), as cases on
  // the few values of Y - g*k below k). Injectivity compares (g, j) lexicographically.
  // verify/README.md, "Fourth pass".
  bool digit_iterations = true;
  // Specs, with digits: when the two-copy injective query runs out, it is run again as
  // two cases, the copies in different groups (g_a < g_b) and in the same group
  // (g_a == g_b, j_a < j_b), each its own query under the same rlimit (verify/README.md,
  // "Eighth pass").
  bool digit_group_cases = true;
  // Specs, with digits: the map may also read `iter % E` for other divisors E (Triton's
  // persistent grouped order, `tile_id % group_size`): encoded as the residue
  // (g*(S % E) + j) % E, linear by factor cases (smt/expr_encoder.h, "Residues";
  // verify/README.md, "Eighth pass").
  bool digit_residues = true;
  // Specs, integer encoding: injectivity through a placement chain. When the map reads
  // the iteration only through one per-iteration let L (Triton's persistent `tile_id =
  // start_pid + step * num_sms`), skips `L >= B`, and reads L only as `L // S`, `L % S`
  // (`L % E` with residues), S sharing a factor with B: L injective on the iterations
  // that yield tiles and >= 0 there, and the placement injective on [0, B) with L as
  // digits of S, each its own query, before the direct two-copy query (which runs when
  // one of them is not unsat). verify/README.md, "Ninth pass".
  bool placement_chain = true;
  // The output-side chain: a spec whose out coordinate c is R(P), R a map of one
  // per-iteration let P and of parameters (Triton-distributed's rank rotations `(pid_m +
  // off) % num_pid_m`), is proved as the placement (`out c = P`) and R on [0, extent of
  // c), each a spec of its own; `(P + off) % n` as the rotation lemma over the hulls of
  // n and off. Anything but `holds` on a link falls back to the direct proof.
  // verify/README.md, "Twelfth pass".
  bool output_chain = true;
  // The output chain's link 2 (R on [0, n)) as digit maps, before R is proved as
  // written: R = A(x // t) * t + B(x % t) and rotations (x + off) % m, nested, with the
  // extent identities (n == E, each B's extent == its t, every t >= 1) proved by
  // evaluation over the parameters they read and each rotation by the lemma over hulls.
  // A failing identity is a violation only when the enumeration sweep, pinned at the
  // failing point, finds one in the spec. verify/README.md, "Thirteenth pass".
  bool digit_chain = true;
  // With output_chain: R may also read the value of another out coordinate c' (`out c'
  // = d` with d a let, or c' itself): link 2 then takes that value as a parameter over
  // [0, hull of c''s extent) and proves R a bijection of [0, n) for each (dist's `out
  // rank = (pi + d) % N` beside `out row = d` in the reduced index part).
  // verify/README.md, "Thirteenth pass".
  bool output_chain_coordinates = true;
  // Specs: a map that reads the iteration only as `q // b`, `q % b` (q = `iter // a`)
  // and `iter % a`, a and b parameters' values >= 1 over the box, is proved as the same
  // map reading `iter // (a*b)`, `(iter % (a*b)) // a`, `(iter % (a*b)) % a` — the digits
  // of one divisor (CUTLASS's sm90 raster). verify/README.md, "Thirteenth pass".
  bool flatten_divisions = true;
  // Specs with `skip` and no `inverse`, past the enumeration that runs first: the
  // contiguity chain. When the map's iteration is digits (c, j) of S, its one skip is
  // `j >= n(c)`, and a let L after it numbers the kept iterations (Stream-K's `global =
  // start(c) + j`) with the rest of the map reading the iteration only through L: L
  // maps the kept iterations one-to-one onto [0, B) (B the box's size) when L(0, 0) =
  // 0, L(c+1, 0) = L(c, 0) + k(c), L(Y-1, 0) + k(Y-1) = B (k(c) the slots CTA c keeps)
  // and L(c, j) = L(c, 0) + j, one-copy queries each; then the placement of L on [0, B),
  // proved as a spec of its own, decides the map (in range, injective and onto at once).
  // A link that is not unsat ends the chain (a note), never a verdict. verify/README.md,
  // "Eleventh pass".
  bool contiguity_chain = true;
  // Specs, integer encoding: divisor cases without the nonlinear fallback
  // (smt::ExprEncoder::set_case_obligations): the one-copy query `case_obligations`
  // first proves that every case-split divisor stays within its cases at every
  // iteration, and later queries assume it; when that query is not unsat, the
  // configuration is encoded again the old way. Measured on the group widths of gemm and
  // Triton's grouped order (verify/README.md, "Fourth pass").
  bool case_obligations = true;
  // Specs: table lemmas for per-iteration lets that read one per-iteration name x and
  // otherwise only constants of the configuration (dist's rank interleave
  // pi = (k*stride) % N + (k*stride) // N with N, stride enumerated). The let is evaluated
  // at every value of x's range (at most table_lemma_values values); on the longest
  // prefix [lo, lo+m) where it is defined and injective, each copy of the map gets the
  // fact "x in the prefix -> the let in its value range there", and the injective query
  // "both x in the prefix and equal lets -> equal x". Proven by complete enumeration, so
  // sound as assumptions; the map's own encoding stays (exact). The built-ins' move for
  // dist: pi read through its range and injectivity, not through its div/mod.
  // verify/README.md, "Fifth pass". 0: off.
  int table_lemma_values = 4096;
  // Specs, by default (no symbolic_params): prove the reduced spec first
  // (verify/README.md, "Reduced specs"): the tile-index part over fewer parameters — tiles
  // (X // E, X % E) merged into X, lets of parameters that only they read (D = R * C from
  // rows, tile_rows, cols, tile_cols) as parameters over their values — and each payload
  // check on its own, at a free tile. Its "holds" is the spec's; a violation there is
  // looked up by the enumeration sweep of the spec's box; anything else falls back to
  // the spec itself.
  bool reduce_specs = true;
  // Specs, by default (no symbolic_params): the cube-and-conquer split done up front.
  // Symbolic parameters that divisors depend on are enumerated (most divisors first, then
  // fewest values) while the configurations stay at most this many and at least one
  // tile-extent parameter stays symbolic; with those divisors constant (or few-valued,
  // see small_divisor_cases) each configuration is a linear problem. 0: off.
  int64_t cube_divisors_up_to = 4096;
  // Specs: a query of a configuration that still has symbolic parameters and runs out of
  // budget splits the configuration on one symbolic parameter (into its values, or into
  // two halves of a range wider than split_fanout); the children resume at that query.
  // Only a configuration with every parameter constant can end inconclusive. While
  // parameters are symbolic the budget is split_rlimit (0: solver.rlimit). Measured on
  // the corpus: a small split_rlimit (1e5..4e5) splits too eagerly and is slower overall
  // than waiting, so the default waits.
  uint64_t split_rlimit = 0;
  int64_t split_fanout = 64;
  // With `skip`: check surjectivity by enumeration when the box has at most this many
  // iterations in total; otherwise the solver proves it (by the inverse clause, or by
  // counting) or leaves it open.
  int64_t max_enumerated_points = int64_t{1} << 26;
  // Specs with `skip` and no `inverse`: prove surjectivity by counting — the map read
  // past its skips (its coordinates, or the sides of the skip's `x >= bound` atoms) is a
  // bijection from the domain onto a padded box, and the skip removes exactly the
  // padding (verify/README.md, "Seventh pass"). Off: surjectivity stays open where the
  // box is too large to enumerate.
  bool surjective_by_counting = true;
};

// A sub-box of a spec's parameter box and how it was decided (ProveSpec). The boxes of
// SwizzleProof::coverage partition the box (points excluded by a `require` count as
// proven: there is nothing to prove).
struct SubBox {
  enum class How : uint8_t {
    kProven,      // every query unsat over the whole sub-box
    kEnumerated,  // decided by evaluating every iteration (a solver query ran out there)
    kOpen,        // not decided: `why` says which query ran out, or the budget
  };
  How how = How::kProven;
  std::vector<std::pair<std::string, sim::swizzle::ParamRange>> ranges;
  std::string why;
  // Ensures: e.g. "num_pid_m=1..65536, num_pid_n=1..4096, group_size_m=3".
  std::string ToString() const;
};
// Ensures: "proven", "enumerated", "open".
absl::string_view SubBoxHowName(SubBox::How how);

// One query that was run.
struct QueryRecord {
  std::string name;  // e.g. "gemm.d1.s7.left_inverse"
  smt::SatResult result = smt::SatResult::kUnsat;
  double ms = 0;
  uint64_t rlimit_used = 0;
  std::string reason_unknown;
  std::string smt2;  // with options.solver.keep_smt2
};

struct SwizzleProof {
  Verdict verdict = Verdict::kHolds;
  CheckedBy checked = CheckedBy::kSymbolic;
  // Set iff kViolated: the smallest counterexample (params by flag name, kind, iteration
  // ids, tile), from enumeration when `minimised`.
  std::optional<sim::swizzle::Counterexample> counterexample;
  bool minimised = false;
  // kInconclusive: why (the query and Z3's reason_unknown, or the enumeration budget).
  std::string reason;
  // Totals over every query.
  double solver_ms = 0;
  int64_t num_queries = 0;
  int64_t configs = 0;               // configurations proved (or attempted)
  // Z3's resource count spent by every query, a sub-proof's (a chain link's, a reduced
  // part's) included: what options.total_rlimit bounds, kept with or without the log.
  uint64_t rlimit_spent = 0;
  std::vector<QueryRecord> queries;  // with options.keep_query_log
  // Free-form notes, e.g. "surjectivity checked by enumeration (spec has `skip`)".
  std::vector<std::string> notes;
  // Specs: the parameter box partitioned into proven, enumerated and open sub-boxes
  // (adjacent boxes merged). Empty when the whole box was proven symbolically in one
  // piece or the verdict is kViolated.
  std::vector<SubBox> coverage;

  // Ensures: e.g. "holds (symbolic, 84 queries, 312 ms)" or "violated: duplicate at ...".
  std::string ToString() const;
};

// Proves a built-in over a box of parameters (the same box a sweep takes; unset ranges
// take the API defaults). The grid is symbolic; every other parameter is enumerated.
// Ensures: the proof; InvalidArgument for invalid ranges; ResourceExhausted past
//          max_configs; Internal for solver errors.
absl::StatusOr<SwizzleProof> ProveBuiltin(const sim::swizzle::BuiltinSweep& box,
                                          const SwizzleProveOptions& options = {});

// Proves a user spec over its declared parameter ranges, with `ranges` overriding some.
// Ensures: as ProveBuiltin; InvalidArgument also when the spec cannot be instantiated at
//          some admitted point of the box (the enumeration sweep fails there too).
absl::StatusOr<SwizzleProof> ProveSpec(const sim::swizzle::SwizzleSpec& spec,
                                       const sim::swizzle::SpecSweep& ranges = {},
                                       const SwizzleProveOptions& options = {});

}  // namespace warpcheck::verify

#endif  // WARPCHECK_VERIFY_SWIZZLE_PROVE_H_
