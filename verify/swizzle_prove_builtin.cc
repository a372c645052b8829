// ProveBuiltin: the structured encodings of gemm_swizzle2d(_Nz) and dist_swizzle2d(_Nz)
// (swizzle_prove.h, "How the built-ins are proved").
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"
#include "verify/smt/smt.h"
#include "verify/swizzle_prove.h"
#include "verify/swizzle_prove_internal.h"

namespace warpcheck::verify {
namespace {

using internal::ConfigOutcome;
using internal::QueryRunner;
using sim::swizzle::Builtin;
using sim::swizzle::BuiltinName;
using sim::swizzle::BuiltinSweep;
using sim::swizzle::Counterexample;
using sim::swizzle::IsDist;
using sim::swizzle::NamedValue;
using sim::swizzle::ParamRange;
using sim::swizzle::Shape2d;
using sim::swizzle::Swizzle2dParams;
using sim::swizzle::ViolationKind;
using smt::Context;
using smt::SatResult;
using smt::Term;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The box with defaults applied and validated (the rules of sim/swizzle/sweep.cc).
struct Box {
  Builtin fn = Builtin::kGemm;
  bool by_counts = true;
  ParamRange row_tiles, col_tiles;              // by_counts
  ParamRange rows, cols, tile_rows, tile_cols;  // shapes
  ParamRange offset, direction, ranks, npu, data;

  // The tile-count hulls: exact for tile counts, a superset for shapes (the queries add
  // the exact shape constraints).
  ParamRange R() const {
    return by_counts ? row_tiles
                     : ParamRange{CeilDiv(rows.lo, tile_rows.hi),
                                  CeilDiv(rows.hi, tile_rows.lo)};
  }
  ParamRange C() const {
    return by_counts ? col_tiles
                     : ParamRange{CeilDiv(cols.lo, tile_cols.hi),
                                  CeilDiv(cols.hi, tile_cols.lo)};
  }
};

absl::Status BoxError(const BuiltinSweep& s, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("swizzle2d prove of ", BuiltinName(s.fn), ": ", what));
}

absl::StatusOr<ParamRange> Resolve(const BuiltinSweep& s, absl::string_view name,
                                   const std::optional<ParamRange>& r, int64_t def,
                                   int64_t min, int64_t max, bool applies,
                                   absl::string_view why) {
  if (!r.has_value()) return ParamRange::Of(def);
  if (!applies) return BoxError(s, absl::StrCat(name, " does not apply (", why, ")"));
  if (r->lo > r->hi) {
    return BoxError(s, absl::StrCat(name, " range ", r->lo, "..", r->hi, " is empty"));
  }
  if (r->lo < min || r->hi > max) {
    return BoxError(
        s, absl::StrCat(name, " range ", r->ToString(), " must lie in ", min, "..", max));
  }
  return *r;
}

absl::StatusOr<Box> ResolveBox(const BuiltinSweep& s) {
  // Tile counts up to 2^31 keep every intermediate (< 8·N·R·C) far inside int64, so the
  // unbounded integers of Z3 and the int64 kernels of sim/swizzle agree.
  constexpr int64_t kMaxExtent = int64_t{1} << 31;
  constexpr int64_t kMaxRanks = 4096;  // every rank count is one configuration
  const bool gemm = !IsDist(s.fn);
  const char* no_ranks = "gemm swizzles have no ranks";
  Box b;
  b.fn = s.fn;
  ASSIGN_OR_RETURN(b.offset, Resolve(s, "swizzle_offset", s.swizzle_offset, 7, 1, 7, gemm,
                                     "dist swizzles take no offset"));
  ASSIGN_OR_RETURN(b.direction,
                   Resolve(s, "swizzle_direction", s.swizzle_direction, 1, 0, 1,
                           s.fn == Builtin::kGemm || s.fn == Builtin::kDist,
                           "the _Nz variants are direction 1"));
  ASSIGN_OR_RETURN(
      b.ranks, Resolve(s, "rank_size", s.rank_size, 1, 1, kMaxRanks, !gemm, no_ranks));
  ASSIGN_OR_RETURN(b.npu, Resolve(s, "comm_npu_split", s.comm_npu_split, 1, 1, kMaxRanks,
                                  !gemm, no_ranks));
  ASSIGN_OR_RETURN(b.data,
                   Resolve(s, "comm_data_split", s.comm_data_split, 1, 1, kMaxExtent,
                           s.fn == Builtin::kDist, "only dist_swizzle2d takes it"));
  const bool by_counts = s.row_tiles.has_value() || s.col_tiles.has_value();
  const bool by_shapes = s.rows.has_value() || s.cols.has_value() ||
                         s.tile_rows.has_value() || s.tile_cols.has_value();
  if (by_counts && by_shapes) {
    return BoxError(s,
                    "give the grid either as row_tiles/col_tiles or as rows/cols/"
                    "tile_rows/tile_cols, not both");
  }
  if (by_counts ? !(s.row_tiles && s.col_tiles) : !(s.rows && s.cols)) {
    return BoxError(s, by_counts
                           ? "row_tiles and col_tiles are both needed"
                           : "the grid is missing (row_tiles/col_tiles or rows/cols)");
  }
  b.by_counts = by_counts;
  if (by_counts) {
    ASSIGN_OR_RETURN(b.row_tiles,
                     Resolve(s, "row_tiles", s.row_tiles, 1, 1, kMaxExtent, true, ""));
    ASSIGN_OR_RETURN(b.col_tiles,
                     Resolve(s, "col_tiles", s.col_tiles, 1, 1, kMaxExtent, true, ""));
  } else {
    ASSIGN_OR_RETURN(b.rows, Resolve(s, "rows", s.rows, 1, 1, kMaxExtent, true, ""));
    ASSIGN_OR_RETURN(b.cols, Resolve(s, "cols", s.cols, 1, 1, kMaxExtent, true, ""));
    ASSIGN_OR_RETURN(b.tile_rows,
                     Resolve(s, "tile_rows", s.tile_rows, 1, 1, kMaxExtent, true, ""));
    ASSIGN_OR_RETURN(b.tile_cols,
                     Resolve(s, "tile_cols", s.tile_cols, 1, 1, kMaxExtent, true, ""));
  }
  return b;
}

// One configuration: the enumerated parameters.
struct Config {
  int64_t s = 7, dir = 1, N = 1, p = 1, q = 1;
  // dist: the rank interleave π enters only as "some value in [0, N)" (see
  // ProveDistConfig); `splits` lists the comm_npu_split values this configuration
  // covers (p is the first). Empty when π is used as defined.
  std::vector<int64_t> splits;
};

// Ensures: the rank interleave of dist_swizzle2d (or, `shipped`, dist_swizzle2d_Nz's
//          remap) as a table over k in [0, N).
std::vector<int64_t> PiTable(int64_t N, int64_t p, bool shipped) {
  const int64_t stride = N / p;
  std::vector<int64_t> pi(N);
  for (int64_t k = 0; k < N; ++k) {
    const int64_t ks = k * stride;
    pi[k] = shipped ? (ks % stride) + ks / N : (ks % N) + ks / N;
  }
  return pi;
}

bool IsPermutation(const std::vector<int64_t>& pi) {
  std::vector<bool> seen(pi.size(), false);
  for (int64_t v : pi) {
    if (v < 0 || v >= static_cast<int64_t>(pi.size()) || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

std::vector<Config> Configs(const Box& b) {
  std::vector<Config> out;
  if (!IsDist(b.fn)) {
    for (int64_t s = b.offset.lo; s <= b.offset.hi; ++s) {
      for (int64_t dir = b.direction.lo; dir <= b.direction.hi; ++dir) {
        out.push_back({.s = s, .dir = dir, .splits = {}});
      }
    }
    return out;
  }
  // Fewest ranks first, so that the first violation found has few ranks. Where π is a
  // permutation, the proof reads it only through its range (ProveDistConfig), so one
  // configuration covers every such split: for direction 0, where the split changes
  // nothing else, that is one configuration per (N, q) instead of one per (N, p, q).
  const bool shipped = b.fn == Builtin::kDistNz;
  for (int64_t n = b.ranks.lo; n <= b.ranks.hi; ++n) {
    std::vector<int64_t> permuting, other;
    for (int64_t p = b.npu.lo; p <= std::min(b.npu.hi, n); ++p) {
      if (n % p != 0) continue;
      (IsPermutation(PiTable(n, p, shipped)) ? permuting : other).push_back(p);
    }
    for (int64_t dir = b.direction.lo; dir <= b.direction.hi; ++dir) {
      // Direction 1 does not read comm_data_split: one q covers its range.
      const int64_t q_hi = dir == 1 ? b.data.lo : b.data.hi;
      for (int64_t q = b.data.lo; q <= q_hi; ++q) {
        if (dir == 0 && !permuting.empty()) {
          out.push_back(
              {.dir = 0, .N = n, .p = permuting[0], .q = q, .splits = permuting});
        }
        for (int64_t p : dir == 0 ? other : std::vector<int64_t>{}) {
          out.push_back({.dir = 0, .N = n, .p = p, .q = q, .splits = {}});
        }
        if (dir == 1) {
          for (int64_t p : permuting) {
            out.push_back({.dir = 1, .N = n, .p = p, .q = q, .splits = {p}});
          }
          for (int64_t p : other)
            out.push_back({.dir = 1, .N = n, .p = p, .q = q, .splits = {}});
        }
      }
    }
  }
  return out;
}

// The symbolic tile grid of one configuration.
//
// `exact` is the box: every range and R = cdiv(rows, tile_rows). `relaxed` keeps only
// what the maps need (every extent >= 1): it describes a superset of the box, so an
// unsat query over it proves the property for the box — and it is much cheaper: with
// upper bounds on R and C, Z3's nonlinear core spends its time on bound propagation
// through the products (measured: 5 ms vs. over 5 s for the same lemma). A sat query is
// re-run over `exact`, since its model may lie outside the box.
struct Grid {
  Term R, C, rows, cols, tile_rows, tile_cols;
  std::vector<Term> exact;
  std::vector<Term> relaxed;
  const std::vector<Term>& constraints(bool is_exact) const {
    return is_exact ? exact : relaxed;
  }
};

Grid MakeGrid(Context& ctx, const Box& b) {
  Grid g;
  auto var_in = [&](const char* name, const ParamRange& r) {
    if (r.lo == r.hi) return ctx.Int(r.lo);
    Term v = ctx.IntVar(name);
    g.exact.push_back(v >= r.lo);
    g.exact.push_back(v <= r.hi);
    g.relaxed.push_back(v >= 1);
    return v;
  };
  if (b.by_counts) {
    g.R = var_in("row_tiles", b.row_tiles);
    g.C = var_in("col_tiles", b.col_tiles);
    g.rows = g.R;
    g.cols = g.C;
    g.tile_rows = ctx.Int(1);
    g.tile_cols = ctx.Int(1);
    return g;
  }
  g.rows = var_in("rows", b.rows);
  g.cols = var_in("cols", b.cols);
  g.tile_rows = var_in("tile_rows", b.tile_rows);
  g.tile_cols = var_in("tile_cols", b.tile_cols);
  g.R = var_in("row_tiles", b.R());
  g.C = var_in("col_tiles", b.C());
  // R = cdiv(rows, tile_rows) exactly: (R − 1)·tile_rows < rows <= R·tile_rows.
  g.exact.push_back((g.R - 1) * g.tile_rows < g.rows);
  g.exact.push_back(g.rows <= g.R * g.tile_rows);
  g.exact.push_back((g.C - 1) * g.tile_cols < g.cols);
  g.exact.push_back(g.cols <= g.C * g.tile_cols);
  return g;
}

// Floor division of a by b for b > 0, as a fresh quotient and remainder: the side
// condition b > 0 -> a = b·q + r && 0 <= r < b is definitional (smt/expr_encoder.h says
// why this beats Z3's native div on these maps). Where the lemma chain proves b >= 1, it
// is exactly the spec's a // b, a % b.
// The second side condition, q >= 0 for a >= 0, follows from the first; stating it saves
// Z3 a nonlinear step.
void DivMod(Context& ctx, Term a, Term b, std::vector<Term>* side, Term* q, Term* r) {
  *q = ctx.FreshInt("q");
  *r = ctx.FreshInt("r");
  side->push_back(Implies(b > 0, a == b * *q + *r && *r >= 0 && *r < b));
  side->push_back(Implies(b > 0 && a >= 0, *q >= 0));
}

// One copy of a map at a symbolic iteration, in the structured form.
struct Lemma {
  std::string name;
  Term fact;
  // Valid facts (true for all integers) that help Z3 with this lemma's nonlinear step,
  // e.g. x >= 0 && g >= G -> x·g >= x·G. Adding a valid fact changes no model.
  std::vector<Term> hints;
};

struct MapCopy {
  Term iter;
  std::vector<Term> background;    // side conditions and iter in the domain (no grid)
  std::vector<Lemma> lemmas;       // chain order
  std::vector<Term> coords;        // row, col[, rank]
  std::vector<Term> extents;       // R, C[, N]
  std::vector<Term> digits;        // the mixed-radix digits that determine iter
  std::optional<Term> inverse_ok;  // the left inverse recovers the digits
};

std::vector<Term> Concat(std::initializer_list<const std::vector<Term>*> parts) {
  std::vector<Term> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// Everything a configuration needs to turn a model into a domain-level witness.
struct Instance {
  const Box* box;
  Config config;
  Grid grid;
  // Ensures: the parameter point of a model.
  Swizzle2dParams Params(const smt::Model& m) const {
    Swizzle2dParams p;
    p.fn = box->fn;
    p.shape =
        Shape2d{m.Int(grid.rows).value_or(0), m.Int(grid.cols).value_or(0),
                m.Int(grid.tile_rows).value_or(0), m.Int(grid.tile_cols).value_or(0)};
    switch (box->fn) {
      case Builtin::kGemm:
        p.swizzle_offset = config.s;
        p.direction = config.dir;
        break;
      case Builtin::kGemmNz:
        p.swizzle_offset = config.s;
        break;
      case Builtin::kDist:
        p.direction = config.dir;
        p.rank_size = config.N;
        p.comm_npu_split = config.p;
        p.comm_data_split = config.q;
        break;
      case Builtin::kDistNz:
        p.rank_size = config.N;
        p.comm_npu_split = config.p;
        break;
    }
    return p;
  }
  int64_t Tiles(const smt::Model& m) const {
    return internal::SatMul(m.Int(grid.R).value_or(0), m.Int(grid.C).value_or(0));
  }
};

// Turns the model of a violated query into a Counterexample and checks it against the
// concrete map (sim/swizzle): a disagreement is an encoding bug, reported as Internal.
absl::StatusOr<ConfigOutcome> Witness(const Instance& inst, const smt::Model& m,
                                      ViolationKind kind, const std::vector<Term>& iters,
                                      const std::vector<Term>& coords) {
  ConfigOutcome out;
  out.kind = ConfigOutcome::Kind::kViolated;
  const Swizzle2dParams params = inst.Params(m);
  Counterexample& c = out.witness;
  c.params = params.Named();
  c.kind = kind;
  for (Term t : iters) c.iter_ids.push_back(m.Int(t).value_or(-1));
  std::sort(c.iter_ids.begin(), c.iter_ids.end());
  static const char* kNames[] = {"row", "col", "rank"};
  for (size_t k = 0; k < coords.size(); ++k) {
    c.tile.push_back({kNames[k], m.Int(coords[k]).value_or(-1)});
  }
  out.tiles = inst.Tiles(m);
  // The concrete map must agree with the model.
  for (int64_t it : c.iter_ids) {
    absl::StatusOr<sim::swizzle::Swizzle2dResult> r = sim::swizzle::Apply(params, it);
    if (!r.ok()) {
      return absl::InternalError(
          absl::StrCat("swizzle2d prove: the model's witness ", params.ToString(),
                       " iter=", it, " is not a valid point: ", r.status().message()));
    }
    std::vector<int64_t> got = {r->row, r->col, r->rank};
    for (size_t k = 0; k < c.tile.size(); ++k) {
      if (got[k] != c.tile[k].value) {
        return absl::InternalError(
            absl::StrCat("swizzle2d prove: the encoding disagrees with sim/swizzle at ",
                         params.ToString(), " iter=", it, ": model ", c.tile[k].name, "=",
                         c.tile[k].value, ", concrete ", got[k]));
      }
    }
  }
  const std::string tile = absl::StrCat("(", sim::swizzle::ToString(c.tile), ")");
  switch (kind) {
    case ViolationKind::kDuplicate:
      c.detail = absl::StrCat("iterations ", c.iter_ids[0], " and ", c.iter_ids[1],
                              " both map to tile ", tile);
      break;
    case ViolationKind::kOutOfRange:
      c.detail = absl::StrCat("iteration ", c.iter_ids[0], " maps to ", tile,
                              ", outside the box");
      break;
    default:
      c.detail = absl::StrCat("iteration ", c.iter_ids[0], " at tile ", tile);
      break;
  }
  return out;
}

// The proof chain of one configuration, given a way to build copies of the map. Over the
// relaxed grid first; if anything is sat there, once more over the exact box.
absl::StatusOr<ConfigOutcome> RunChainOnce(Context& ctx, QueryRunner& run,
                                           const std::string& prefix,
                                           const Instance& inst, const MapCopy& a,
                                           const MapCopy& b, bool exact,
                                           bool* sat_relaxed) {
  const std::vector<Term>& grid = inst.grid.constraints(exact);
  const Term tiles = inst.grid.R * inst.grid.C;
  const bool shrink = run.options().minimise;
  auto unknown = [](const smt::SolverResult& r) {
    ConfigOutcome o;
    o.kind = ConfigOutcome::Kind::kUnknown;
    o.reason = internal::UnknownReason(r);
    return o;
  };
  // A sat query: over the relaxed grid, start again exactly; over the box, a witness.
  auto violated = [&](const std::string& name, const std::vector<Term>& q,
                      const smt::Model& model, ViolationKind kind,
                      const std::vector<Term>& iters,
                      const std::vector<Term>& coords) -> absl::StatusOr<ConfigOutcome> {
    if (!exact) {
      *sat_relaxed = true;
      return ConfigOutcome{};
    }
    smt::Model m = model;
    if (shrink) {
      ASSIGN_OR_RETURN(
          m, internal::ShrinkTiles(ctx, run, name, q, tiles, model,
                                   [&](const smt::Model& x) { return inst.Tiles(x); }));
    }
    return Witness(inst, m, kind, iters, coords);
  };
  const std::string mode = exact ? "exact." : "";

  // 1. The lemma chain: each lemma assuming the ones before it.
  std::vector<Term> assumed;
  for (const Lemma& lemma : a.lemmas) {
    std::vector<Term> q = Concat({&grid, &a.background, &assumed, &lemma.hints});
    q.push_back(!lemma.fact);
    const std::string name = absl::StrCat(prefix, mode, lemma.name);
    ASSIGN_OR_RETURN(smt::SolverResult r, run.Run(ctx, name, q));
    if (r.result == SatResult::kUnknown) return unknown(r);
    if (r.result == SatResult::kSat) {
      if (!exact) {
        *sat_relaxed = true;
        return ConfigOutcome{};
      }
      // The definitions guarantee every lemma on the box: this is an encoding bug.
      return absl::InternalError(absl::StrCat(
          "swizzle2d prove: lemma '", name, "' of the structured encoding failed at ",
          inst.Params(r.model).ToString(), " iter=", r.model.Int(a.iter).value_or(-1)));
    }
    assumed.push_back(lemma.fact);
  }

  // 2. In range.
  {
    std::vector<Term> in_box;
    for (size_t k = 0; k < a.coords.size(); ++k) {
      in_box.push_back(a.coords[k] >= 0 && a.coords[k] < a.extents[k]);
    }
    std::vector<Term> q = Concat({&grid, &a.background, &assumed});
    q.push_back(!smt::And(ctx, in_box));
    const std::string name = absl::StrCat(prefix, mode, "in_range");
    ASSIGN_OR_RETURN(smt::SolverResult r, run.Run(ctx, name, q));
    if (r.result == SatResult::kUnknown) return unknown(r);
    if (r.result == SatResult::kSat) {
      return violated(name, q, r.model, ViolationKind::kOutOfRange, {a.iter}, a.coords);
    }
  }

  // 3. Injective: left inverse + decomposition, or the direct two-copy query.
  std::vector<Term> assumed_b;
  for (const Lemma& lemma : b.lemmas) assumed_b.push_back(lemma.fact);
  bool need_direct = !a.inverse_ok.has_value();
  if (!need_direct) {
    std::vector<Term> q = Concat({&grid, &a.background, &assumed});
    q.push_back(!*a.inverse_ok);
    ASSIGN_OR_RETURN(smt::SolverResult r,
                     run.Run(ctx, absl::StrCat(prefix, mode, "left_inverse"), q));
    if (r.result == SatResult::kUnknown) return unknown(r);
    need_direct = r.result == SatResult::kSat;
  }
  if (!need_direct) {
    std::vector<Term> q =
        Concat({&grid, &a.background, &assumed, &b.background, &assumed_b});
    q.push_back(a.iter < b.iter);
    for (size_t k = 0; k < a.digits.size(); ++k) q.push_back(a.digits[k] == b.digits[k]);
    ASSIGN_OR_RETURN(smt::SolverResult r,
                     run.Run(ctx, absl::StrCat(prefix, mode, "decomposition"), q));
    if (r.result == SatResult::kUnknown) return unknown(r);
    need_direct = r.result == SatResult::kSat;
  }
  if (need_direct) {
    std::vector<Term> q =
        Concat({&grid, &a.background, &assumed, &b.background, &assumed_b});
    q.push_back(a.iter < b.iter);
    for (size_t k = 0; k < a.coords.size(); ++k) q.push_back(a.coords[k] == b.coords[k]);
    const std::string name = absl::StrCat(prefix, mode, "injective");
    ASSIGN_OR_RETURN(smt::SolverResult r, run.Run(ctx, name, q));
    if (r.result == SatResult::kUnknown) return unknown(r);
    if (r.result == SatResult::kSat) {
      return violated(name, q, r.model, ViolationKind::kDuplicate, {a.iter, b.iter},
                      a.coords);
    }
  }
  return ConfigOutcome{};
}

absl::StatusOr<ConfigOutcome> RunChain(Context& ctx, QueryRunner& run,
                                       const std::string& prefix, const Instance& inst,
                                       const std::function<MapCopy(const char*)>& make) {
  const MapCopy a = make("iter");
  const MapCopy b = make("iter2");
  bool sat_relaxed = false;
  ASSIGN_OR_RETURN(ConfigOutcome o,
                   RunChainOnce(ctx, run, prefix, inst, a, b, false, &sat_relaxed));
  if (!sat_relaxed) return o;
  return RunChainOnce(ctx, run, prefix, inst, a, b, true, &sat_relaxed);
}

// gemm_swizzle2d, one (swizzle_offset, direction). Direction 0 is direction 1 with the
// roles of (R, row) and (C, col) exchanged: X is the traversed extent, Y the grouped one.
absl::StatusOr<ConfigOutcome> ProveGemmConfig(Context& ctx, const Box& box,
                                              const Config& cfg, QueryRunner& run) {
  Instance inst{&box, cfg, MakeGrid(ctx, box)};
  const Grid& grid = inst.grid;
  const int64_t s = cfg.s;
  const bool d1 = cfg.dir == 1;
  const Term X = d1 ? grid.R : grid.C;
  const Term Y = d1 ? grid.C : grid.R;
  const Term G = Div(Y + (s - 1), s);  // cdiv(Y, s): a constant divisor, native
  auto make = [&](const char* name) {
    MapCopy c;
    c.iter = ctx.IntVar(name);
    c.background.push_back(c.iter >= 0);
    c.background.push_back(c.iter < grid.R * grid.C);
    Term g, j, r, m;
    DivMod(ctx, c.iter, s * X, &c.background, &g, &j);
    const Term w = Ite(g < G - 1, ctx.Int(s), Y - s * g);
    DivMod(ctx, j, w, &c.background, &r, &m);
    const Term grouped = g * s + m;
    const Term traversed = Ite(Mod(g, 2) == 1, X - 1 - r, r);
    c.coords = {d1 ? traversed : grouped, d1 ? grouped : traversed};
    c.extents = {grid.R, grid.C};
    // group: i >= g·(s·X) and i < X·Y give g < G; the hints are the two products.
    c.lemmas = {{"group",
                 g >= 0 && g < G,
                 {Implies(X >= 0 && g >= G, (s * X) * g >= (s * X) * G),
                  Implies(X >= 0 && s * G >= Y, X * (s * G) >= X * Y)}},
                {"width", w >= 1 && w <= s, {}},
                // digits: in the last group j = r·w + m < w·X (from i < X·Y) gives r < X.
                {"digits",
                 r >= 0 && r < X && m >= 0 && m < w,
                 {Implies(w >= 0 && r >= X, r * w >= X * w),
                  Implies(w == Y - s * g, X * w == X * Y - s * (X * g))}}};
    c.digits = {g, r, m};
    // ginv: g' = grouped // s, m' = grouped % s, r' = traversed (reflected back).
    const Term g2 = Div(grouped, s);
    const Term r2 = Ite(Mod(g2, 2) == 1, X - 1 - traversed, traversed);
    c.inverse_ok = g2 == g && Mod(grouped, s) == m && r2 == r;
    return c;
  };
  const std::string prefix =
      absl::StrCat(BuiltinName(box.fn), ".d", cfg.dir, ".s", s, ".");
  return RunChain(ctx, run, prefix, inst, make);
}

// dist_swizzle2d(_Nz), one (N, p, q, direction). D = R·C is a variable of its own (the
// map reads R and C only through D, until the final split d -> (d // C, d % C)).
absl::StatusOr<ConfigOutcome> ProveDistConfig(Context& ctx, const Box& box,
                                              const Config& cfg, QueryRunner& run) {
  Instance inst{&box, cfg, MakeGrid(ctx, box)};
  const Grid& grid = inst.grid;
  const bool shipped = box.fn == Builtin::kDistNz;
  const int64_t N = cfg.N, p = cfg.p, q = cfg.q;
  const int64_t stride = N / p;
  // π: with cfg.splits set, π is a permutation of [0, N) for every split covered (checked
  // concretely in Configs), and the proof needs nothing else of it: rank = (π(k) + d) mod
  // N is in range for any value of π(k), and the left inverse recovers k = π⁻¹(v) exactly
  // when v = π(k). So π(k) is a fresh value P in [0, N) — the proof holds for every such
  // value, in particular for π(k). Otherwise (dist_Nz with p > 1) π is the definition
  // itself, and there is no left inverse.
  const bool abstract_pi = !cfg.splits.empty();
  auto Pi = [&](Term k, std::vector<Term>* background) {
    if (abstract_pi) {
      const Term P = ctx.FreshInt("pi");
      background->push_back(P >= 0);
      background->push_back(P < N);
      return P;
    }
    const Term ks = k * stride;  // constant divisors: linear
    return shipped ? Mod(ks, stride) + Div(ks, N) : Mod(ks, N) + Div(ks, N);
  };
  const ParamRange Rr = box.R(), Cr = box.C();
  const Term D = ctx.IntVar("data_tiles");
  inst.grid.exact.push_back(D == grid.R * grid.C);
  inst.grid.exact.push_back(D >= internal::SatMul(Rr.lo, Cr.lo));
  inst.grid.exact.push_back(D <= internal::SatMul(Rr.hi, Cr.hi));
  inst.grid.relaxed.push_back(D == grid.R * grid.C);
  inst.grid.relaxed.push_back(D >= 1);

  auto make = [&](const char* name) {
    MapCopy c;
    c.iter = ctx.IntVar(name);
    c.background.push_back(c.iter >= 0);
    c.background.push_back(c.iter < N * D);
    Term g, j, t, d, k, m;
    if (cfg.dir == 1) {
      const int64_t G = CeilDiv(N, p);
      DivMod(ctx, c.iter, p * D, &c.background, &g, &j);
      t = Ite(g < G - 1, ctx.Int(p), N - p * g);
      DivMod(ctx, j, t, &c.background, &d, &m);
      k = g * p + m;
      c.lemmas = {{"group",
                   g >= 0 && g < G,
                   {Implies(D >= 0 && g >= G, (p * D) * g >= (p * D) * G)}},
                  {"width", t >= 1 && t <= p, {}},
                  {"digits",
                   d >= 0 && d < D && m >= 0 && m < t,
                   {Implies(t >= 0 && d >= D, d * t >= D * t)}}};
      c.digits = {g, d, m};
    } else {
      const Term G = Div(D + (q - 1), q);
      g = Div(c.iter, q * N);  // constant divisor
      j = Mod(c.iter, q * N);
      t = Ite(g < G - 1, ctx.Int(q), D - q * g);
      DivMod(ctx, j, t, &c.background, &k, &m);
      d = g * q + m;
      c.lemmas = {{"group", g >= 0 && g < G, {}},
                  {"width", t >= 1 && t <= q, {}},
                  {"digits",
                   k >= 0 && k < N && m >= 0 && m < t && d >= 0 && d < D,
                   {Implies(t >= 0 && k >= N, k * t >= N * t)}}};
      c.digits = {g, k, m};
    }
    const Term pi_k = Pi(k, &c.background);
    const Term rank = Mod(pi_k + d, N);
    Term row, col;
    DivMod(ctx, d, grid.C, &c.background, &row, &col);
    c.lemmas.push_back(
        {"tile",
         row >= 0 && row < grid.R && col >= 0 && col < grid.C,
         {Implies(grid.C >= 0 && row >= grid.R, row * grid.C >= grid.R * grid.C)}});
    c.coords = {row, col, rank};
    c.extents = {grid.R, grid.C, ctx.Int(N)};
    if (abstract_pi) {
      // ginv: d' = row·C + col, v = (rank − d') mod N, k' = π⁻¹(v), then the digits from
      // d' and k'. π is a permutation of [0, N), so k' = k exactly when v = π(k) (and
      // 0 <= k < N, a lemma): the table π⁻¹ never has to enter the query (with it, the
      // N-way case splits cost up to 1 s per query).
      const Term d2 = row * grid.C + col;
      const Term v = Mod(rank - d2, N);
      c.inverse_ok = cfg.dir == 1
                         ? (d2 == d && v == pi_k && Div(k, p) == g && Mod(k, p) == m)
                         : (d2 == d && v == pi_k && Div(d2, q) == g && Mod(d2, q) == m);
    }
    return c;
  };
  std::string prefix = absl::StrCat(BuiltinName(box.fn), ".d", cfg.dir, ".N", N, ".p", p);
  if (cfg.splits.size() > 1) absl::StrAppend(&prefix, "..", cfg.splits.back());
  if (cfg.dir == 0) absl::StrAppend(&prefix, ".q", q);
  absl::StrAppend(&prefix, ".");
  return RunChain(ctx, run, prefix, inst, make);
}

// dist tail sizes: for every tile row in range, min(rows − row·tile_rows, tile_rows) > 0
// (and likewise for columns). Exact by definition; positive is the claim. One query per
// axis covers every configuration (the map does not enter).
absl::StatusOr<std::optional<ConfigOutcome>> ProveTails(const Box& box,
                                                        QueryRunner& run) {
  for (int axis = 0; axis < 2; ++axis) {
    Context ctx;
    const Grid grid = MakeGrid(ctx, box);
    const Term extent = axis == 0 ? grid.rows : grid.cols;
    const Term tile = axis == 0 ? grid.tile_rows : grid.tile_cols;
    const Term count = axis == 0 ? grid.R : grid.C;
    const Term index = ctx.IntVar(axis == 0 ? "row" : "col");
    std::vector<Term> q = grid.exact;
    q.push_back(index >= 0);
    q.push_back(index < count);
    q.push_back(!(smt::Min(extent - index * tile, tile) > 0));
    const std::string name =
        absl::StrCat(BuiltinName(box.fn), axis == 0 ? ".tail_rows" : ".tail_cols");
    ASSIGN_OR_RETURN(smt::SolverResult r, run.Run(ctx, name, q));
    if (r.result == SatResult::kUnsat) continue;
    ConfigOutcome o;
    if (r.result == SatResult::kUnknown) {
      o.kind = ConfigOutcome::Kind::kUnknown;
      o.reason = internal::UnknownReason(r);
      return o;
    }
    return absl::InternalError(absl::StrCat("swizzle2d prove: query '", name,
                                            "' found a non-positive tail size, which the "
                                            "definition of cdiv excludes"));
  }
  return std::nullopt;
}

// Replaces the model's witness by the smallest counterexample of the box, found by the
// enumeration sweep over every point with at most `witness.tiles` tiles.
absl::Status Minimise(const BuiltinSweep& sweep, const Box& box, const ConfigOutcome& o,
                      const SwizzleProveOptions& options, SwizzleProof* proof) {
  proof->counterexample = o.witness;
  proof->minimised = false;
  if (!options.minimise) return absl::OkStatus();
  const int64_t T = o.tiles;
  if (T > options.max_minimise_tiles) {
    proof->notes.push_back(
        absl::StrCat("counterexample not minimised: its ", T,
                     " tiles exceed max_minimise_tiles = ", options.max_minimise_tiles));
    return absl::OkStatus();
  }
  BuiltinSweep s = sweep;
  auto cap = [](const ParamRange& r, int64_t hi) {
    return ParamRange{r.lo, std::max(r.lo, std::min(r.hi, hi))};
  };
  if (box.by_counts) {
    s.row_tiles = cap(box.row_tiles, T);
    s.col_tiles = cap(box.col_tiles, T);
  } else {
    s.rows = cap(box.rows, internal::SatMul(T, box.tile_rows.hi));
    s.cols = cap(box.cols, internal::SatMul(T, box.tile_cols.hi));
  }
  absl::StatusOr<sim::swizzle::CheckResult> r =
      sim::swizzle::Sweep(s, options.minimise_sweep);
  if (!r.ok() || r->verdict == Verdict::kInconclusive) {
    proof->notes.push_back(absl::StrCat(
        "counterexample not minimised: the enumeration sweep over at most ", T,
        " tiles stopped: ", r.ok() ? r->reason : std::string(r.status().message())));
    return absl::OkStatus();
  }
  if (r->verdict == Verdict::kHolds) {
    return absl::InternalError(absl::StrCat(
        "swizzle2d prove: Z3 found ", o.witness.ToString(),
        " but enumeration of every point with at most ", T, " tiles finds no violation"));
  }
  proof->counterexample = r->counterexample;
  proof->minimised = true;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SwizzleProof> ProveBuiltin(const BuiltinSweep& sweep,
                                          const SwizzleProveOptions& options) {
  ASSIGN_OR_RETURN(Box box, ResolveBox(sweep));
  const std::vector<Config> configs = Configs(box);
  if (static_cast<int64_t>(configs.size()) > options.max_configs) {
    return absl::ResourceExhaustedError(
        absl::StrCat("swizzle2d prove of ", BuiltinName(box.fn), ": ", configs.size(),
                     " configurations of the enumerated parameters exceed max_configs = ",
                     options.max_configs));
  }
  SwizzleProof proof;
  QueryRunner run(options, &proof);
  // One Z3 context for the whole proof; every query still gets a fresh solver. (A context
  // per configuration measured the same.)
  Context ctx;
  std::optional<ConfigOutcome> unknown;
  std::optional<ConfigOutcome> violated;
  if (IsDist(box.fn) && !box.by_counts) {
    ASSIGN_OR_RETURN(std::optional<ConfigOutcome> tails, ProveTails(box, run));
    if (tails.has_value()) unknown = tails;
  }
  for (const Config& cfg : configs) {
    absl::StatusOr<ConfigOutcome> o = IsDist(box.fn)
                                          ? ProveDistConfig(ctx, box, cfg, run)
                                          : ProveGemmConfig(ctx, box, cfg, run);
    if (!o.ok()) return o.status();
    proof.configs += 1;
    if (o->kind == ConfigOutcome::Kind::kViolated && !cfg.splits.empty()) {
      // The abstraction of π admits more than π itself: decide each split with the
      // definition (never needed for the built-ins, where it holds; kept for safety).
      for (int64_t p : cfg.splits) {
        Config concrete = cfg;
        concrete.p = p;
        concrete.splits.clear();
        o = ProveDistConfig(ctx, box, concrete, run);
        if (!o.ok()) return o.status();
        proof.configs += 1;
        if (o->kind != ConfigOutcome::Kind::kHolds) break;
      }
    }
    if (o->kind == ConfigOutcome::Kind::kViolated) {
      violated = *std::move(o);
      break;
    }
    if (o->kind == ConfigOutcome::Kind::kUnknown && !unknown.has_value()) unknown = *o;
  }
  if (violated.has_value()) {
    proof.verdict = Verdict::kViolated;
    RETURN_IF_ERROR(Minimise(sweep, box, *violated, options, &proof));
  } else if (unknown.has_value()) {
    proof.verdict = Verdict::kInconclusive;
    proof.reason = unknown->reason;
  }
  return proof;
}

}  // namespace warpcheck::verify
