// SwizzleSpec: a user-defined swizzle written in the expression language (.swz files).
//
// A spec is a program of the swizzle dialect (sim/expr/parser.h has the core grammar):
//
//     param row_tiles in 1..64;          # parameters, with the range a sweep covers
//     param col_tiles in 1..64;
//     param group in 1..8;
//     require group <= row_tiles;        # excludes parameter points (params only)
//     let R = row_tiles;                 # let-bindings, anywhere
//     domain = R * col_tiles;            # iterations are 0 .. domain-1 (params only)
//     grid row = R;                      # extent of a tile coordinate (params only)
//     grid col = col_tiles;
//     let g = iter // (group * col_tiles);   # `iter` is the predeclared input
//     ...
//     out row = ...;                     # outputs; they bind their names
//     out col = ...;
//     skip row >= R;                     # optional: this iteration handles no tile
//     tail rows = min(M - row * BM, BM); # optional: output `rows` must equal this, > 0
//     inverse iter = ...;                # optional: the iteration of tile (row, col)
//
// Meaning. For every parameter point that satisfies each `require`, the iterations
// 0 .. domain-1 are run top to bottom: each one either stops at a true `skip` (the
// kernel's early return: no tile) or yields its outputs. The outputs named by `grid`
// clauses are the tile coordinates, in `grid` order; the spec *holds* at that point
// when the iterations that are not skipped map one-to-one onto the box
// [0, extent_1) x ... x [0, extent_k), and every `tail` output equals its expected value
// and is positive. A coordinate named `rank` is the rank dimension (dist swizzles);
// sweeps order parameter points by tiles (the product of the other extents), then
// ranks. Outputs with no `grid` are payload (e.g. comm sizes), checked only by `tail`.
//
// The inverse. `inverse iter = EXPR;` states a left inverse of the map: EXPR, computed
// from the tile coordinates (and parameters, and lets that read `iter` only through the
// coordinates), gives back the iteration that maps to the tile. It changes nothing about
// what the spec means — the enumerator never evaluates it — but it lets verify/ replace
// the quantified injectivity query by a one-copy one ("inv(f(i)) == i") and prove
// surjectivity of maps with `skip` ("f(inv(t)) == t"). A wrong inverse is never taken as
// a violation: the prover falls back to its other queries. The lets it uses are ordinary
// lets, evaluated with the map (an error in one is an error of the spec).
//
// Keywords: param let (core); require domain grid out tail skip inverse (this dialect). One
// `domain`, one to four `grid`s, each naming an `out`; a `tail` names an `out` declared
// above it. Values that depend only on parameters are computed once per parameter point.
//
// Why clauses and not a fixed struct: the same file documents the swizzle (comments and
// definitions read like the kernel source), feeds the enumerator here, and gives the Z3
// encoder in verify/ everything it needs: Program() exposes the AST, and
// Program::InlineLets turns `out row` into a closed term over params and `iter`.
#ifndef WARPCHECK_SIM_SWIZZLE_SPEC_H_
#define WARPCHECK_SIM_SWIZZLE_SPEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/expr/ast.h"
#include "sim/expr/eval.h"
#include "sim/expr/parser.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {

// Ensures: the dialect described above (input `iter`, clauses require, domain, grid,
//          out, tail, skip).
const expr::Dialect& SwizzleDialect();

class SpecInstance;

// What one iteration of a spec produced.
enum class PointOutcome : uint8_t {
  kTile,     // coordinates written, tails fine
  kSkip,     // a `skip` held: no tile
  kBadTail,  // coordinates written; a `tail` output is wrong or not positive
  kError,    // evaluation error (division by zero, overflow)
};

class SwizzleSpec {
 public:
  // Ensures: the spec, or InvalidArgument "<source>:<line>:<col>: <what>".
  static absl::StatusOr<SwizzleSpec> Parse(absl::string_view source_name,
                                           absl::string_view text);
  // Reads and parses a file (NotFound if it cannot be read).
  static absl::StatusOr<SwizzleSpec> Load(const std::string& path);
  // Checks the structure (one domain, grids naming outs, ...) of a swizzle-dialect
  // program.
  static absl::StatusOr<SwizzleSpec> FromProgram(expr::Program program);

  const expr::Program& program() const;
  const std::string& source_name() const;
  // The parameters, in declaration order.
  const std::vector<const expr::Stmt*>& params() const;
  // The tile coordinates (names of the `grid` clauses), in order.
  const std::vector<std::string>& coordinates() const;
  // The `grid` clause of each coordinate (same order).
  const std::vector<const expr::Stmt*>& grids() const;
  const expr::Stmt& domain() const;
  // The `inverse iter = ...;` clause, or nullptr. A proof aid only (see above).
  const expr::Stmt* inverse() const;
  // True when a coordinate is named "rank".
  bool has_ranks() const;

  // Binds the parameters (declaration order) and computes everything that depends only
  // on them.
  // Ensures: the instance; FailedPrecondition "<source>:<line>:<col>: parameters (...)
  //          violate require <expr>" for an excluded point; InvalidArgument for a value
  //          outside its declared range, an evaluation error, a negative domain or a
  //          non-positive extent.
  absl::StatusOr<SpecInstance> Instantiate(absl::Span<const int64_t> values) const;
  // Ignores the declared ranges (used by sweeps over overridden ranges).
  absl::StatusOr<SpecInstance> InstantiateUnchecked(
      absl::Span<const int64_t> values) const;

  struct Impl;

 private:
  explicit SwizzleSpec(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// A spec at one parameter point. Not thread-safe (it owns one evaluation frame).
class SpecInstance {
 public:
  int64_t domain() const { return domain_; }
  // The coordinate names (the spec's `grid`s) and their extents, in order.
  const std::vector<std::string>& coordinates() const;
  const std::vector<int64_t>& extents() const { return extents_; }
  // Ensures: the product of the extents other than `rank` / the `rank` extent (or 1).
  int64_t tiles() const;
  int64_t ranks() const;
  std::vector<NamedValue> params() const;

  // Runs iteration `iter` (any int64; the caller keeps it in [0, domain)).
  // Ensures: the outcome; for kTile and kBadTail, coords[i] is coordinate i.
  PointOutcome Map(int64_t iter, int64_t* coords) const;

  // Ensures: the value the name (a let, an out, a param or `iter`) had in the last Map
  //          or Explain call; InvalidArgument for an unknown name.
  absl::StatusOr<int64_t> Value(absl::string_view name) const;

  // The same with everything spelled out, for messages and tests.
  struct Point {
    bool skipped = false;
    std::vector<NamedValue> outputs;  // every `out`, in order (up to a skip)
    std::vector<int64_t> coords;
    std::string tail_error;  // e.g. "tail comm_row_size = 0, expected 2 (and > 0)"
  };
  // Ensures: the point, or the evaluation error with its position.
  absl::StatusOr<Point> Explain(int64_t iter) const;

 private:
  friend class SwizzleSpec;
  SpecInstance() = default;
  std::shared_ptr<const SwizzleSpec::Impl> spec_;
  std::vector<int64_t> values_;
  mutable std::vector<int64_t> frame_;
  int64_t domain_ = 0;
  std::vector<int64_t> extents_;
};

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_SPEC_H_
