#include "sim/swizzle/show.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::swizzle {

absl::StatusOr<Swizzle2dParams> BuiltinShowParams(
    Builtin fn, const std::map<std::string, int64_t>& values) {
  Swizzle2dParams p;
  p.fn = fn;
  auto has = [&](const char* name) { return values.count(name) > 0; };
  auto at = [&](const char* name) { return values.at(name); };
  bool tiles = has("row_tiles") || has("col_tiles");
  bool shapes = has("rows") || has("cols") || has("tile_rows") || has("tile_cols");
  if (tiles && shapes) {
    return absl::InvalidArgumentError(
        "--row-tiles/--col-tiles and --rows/--cols/--tile-rows/--tile-cols are two ways "
        "to give the grid; use one");
  }
  if (tiles) {
    if (!has("row_tiles") || !has("col_tiles")) {
      return absl::InvalidArgumentError("give both --row-tiles and --col-tiles");
    }
    p.shape = Shape2d::FromTileCounts(at("row_tiles"), at("col_tiles"));
  } else if (shapes) {
    for (const char* n : {"rows", "cols", "tile_rows", "tile_cols"}) {
      if (!has(n)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", absl::StrReplaceAll(n, {{"_", "-"}}),
                         " is missing (data and tile shapes go together)"));
      }
    }
    p.shape = Shape2d{at("rows"), at("cols"), at("tile_rows"), at("tile_cols")};
  } else {
    return absl::InvalidArgumentError(
        "the grid is missing: give --row-tiles and --col-tiles (or --rows, --cols, "
        "--tile-rows, --tile-cols)");
  }
  if (has("swizzle_offset")) p.swizzle_offset = at("swizzle_offset");
  if (has("swizzle_direction")) p.direction = at("swizzle_direction");
  if (has("rank_size")) p.rank_size = at("rank_size");
  if (has("comm_npu_split")) p.comm_npu_split = at("comm_npu_split");
  if (has("comm_data_split")) p.comm_data_split = at("comm_data_split");
  if (fn == Builtin::kDist || fn == Builtin::kDistNz) {
    if (!has("rank_size")) return absl::InvalidArgumentError("--rank-size is required");
  }
  RETURN_IF_ERROR(p.Validate());
  return p;
}

absl::StatusOr<Grid> ShowBuiltin(const Swizzle2dParams& p) {
  Grid g;
  g.row_tiles = p.shape.row_tiles();
  g.col_tiles = p.shape.col_tiles();
  g.has_rank = g.has_tails = IsDist(p.fn);
  g.ranks = g.has_rank ? p.rank_size : 1;
  if (p.DomainSize() > kMaxShowPoints) {
    return absl::InvalidArgumentError(absl::StrCat(
        "swizzle2d show: ", p.DomainSize(), " iterations is too many to show (limit ",
        kMaxShowPoints, "); use `swizzle2d prove` for large grids"));
  }
  for (int64_t i = 0; i < p.DomainSize(); ++i) {
    ASSIGN_OR_RETURN(Swizzle2dResult r, Apply(p, i));
    g.visits.push_back(GridVisit{i, r.row, r.col, r.rank, r.comm_row_size, r.comm_col_size});
  }
  return g;
}

namespace {

// The value of each declared param of `spec` from `given`, in declaration order.
absl::StatusOr<std::vector<int64_t>> SpecPoint(
    const SwizzleSpec& spec, const std::vector<std::pair<std::string, ParamRange>>& given) {
  std::vector<int64_t> values;
  for (const expr::Stmt* param : spec.params()) {
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto& kv) { return kv.first == param->name; });
    if (it == given.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--params: parameter '", param->name, "' of ", spec.source_name(),
          " has no value (give --params=", param->name, "=V,...)"));
    }
    if (it->second.lo != it->second.hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--params: ", param->name, ": show needs one value, not a range"));
    }
    values.push_back(it->second.lo);
  }
  for (const auto& [name, range] : given) {
    bool known = std::any_of(spec.params().begin(), spec.params().end(),
                             [&name = name](const expr::Stmt* s) { return s->name == name; });
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("--params: ", spec.source_name(), " has no parameter '", name, "'"));
    }
  }
  return values;
}

}  // namespace

absl::StatusOr<Grid> ShowSpec(const SwizzleSpec& spec,
                              const std::vector<std::pair<std::string, ParamRange>>& given) {
  ASSIGN_OR_RETURN(std::vector<int64_t> values, SpecPoint(spec, given));
  ASSIGN_OR_RETURN(SpecInstance inst, spec.Instantiate(values));
  if (inst.domain() > kMaxShowPoints) {
    return absl::InvalidArgumentError(absl::StrCat(
        "swizzle2d show: ", inst.domain(), " iterations is too many to show"));
  }
  Grid g;
  const auto& coords = inst.coordinates();
  auto index_of = [&](absl::string_view n) -> int {
    for (size_t i = 0; i < coords.size(); ++i) {
      if (coords[i] == n) return static_cast<int>(i);
    }
    return -1;
  };
  int ri = index_of("row"), ci = index_of("col"), ki = index_of("rank");
  if (ri < 0 || ci < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        spec.source_name(), ": show draws `grid row` x `grid col`; this spec has grids ",
        absl::StrJoin(coords, ", ")));
  }
  g.row_tiles = inst.extents()[ri];
  g.col_tiles = inst.extents()[ci];
  g.has_rank = ki >= 0;
  g.ranks = g.has_rank ? inst.extents()[ki] : 1;
  std::vector<int64_t> c(coords.size());
  for (int64_t i = 0; i < inst.domain(); ++i) {
    PointOutcome o = inst.Map(i, c.data());
    if (o == PointOutcome::kError) {
      auto explained = inst.Explain(i);
      return absl::InvalidArgumentError(absl::StrCat(
          spec.source_name(), ": iteration ", i, " fails to evaluate: ",
          explained.ok() ? "unknown error" : explained.status().message()));
    }
    GridVisit v{i, 0, 0, 0, 0, 0, o == PointOutcome::kSkip};
    if (!v.skipped) {
      v.row = c[ri];
      v.col = c[ci];
      v.rank = ki >= 0 ? c[ki] : 0;
    }
    g.visits.push_back(v);
  }
  return g;
}

}  // namespace warpcheck::sim::swizzle
