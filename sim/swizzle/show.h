// The grid `swizzle2d show` draws: one swizzle evaluated at one parameter point, every
// iteration mapped to the tile (and, for dist maps, the rank) it visits.
//
// Example: gemm with row_tiles 2, col_tiles 2 (offset 7, direction 1) gives a 2 x 2 grid,
// ranks 1, and visits {0 -> (0,0), 1 -> (1,0), 2 -> (0,1), 3 -> (1,1)} (iteration ->
// (row, col)). Rendering (text, SVG) is the command's; nothing here prints.
#ifndef WARPCHECK_SIM_SWIZZLE_SHOW_H_
#define WARPCHECK_SIM_SWIZZLE_SHOW_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {

// One iteration and the tile it visits.
struct GridVisit {
  int64_t iter = 0;
  int64_t row = 0, col = 0, rank = 0;
  int64_t rows = 0, cols = 0;  // the dist tails (comm row/col size); 0 when not applicable
  bool skipped = false;        // a spec's `skip`: no tile (row, col, rank are 0)
};

// Every iteration of one swizzle at one point, in iteration order.
struct Grid {
  int64_t row_tiles = 1, col_tiles = 1, ranks = 1;
  bool has_rank = false;   // the map has a rank coordinate (dist, or a spec `grid rank`)
  bool has_tails = false;  // the visits carry rows/cols (dist built-ins)
  std::vector<GridVisit> visits;
};

// The most iterations a grid holds (larger grids are for `swizzle2d prove`).
inline constexpr int64_t kMaxShowPoints = int64_t{1} << 20;

// A built-in's parameters at one point from values by parameter name (the names of
// BuiltinParamFlags: "row_tiles", ..., "comm_data_split"); messages name the CLI flags.
// Requires: every value in `values` is keyed by one of those names.
// Ensures: the validated parameters, or InvalidArgument when the grid is given both ways
//          or incompletely or not at all, when a dist map lacks rank_size, or
//          Swizzle2dParams::Validate's error.
absl::StatusOr<Swizzle2dParams> BuiltinShowParams(Builtin fn,
                                                  const std::map<std::string, int64_t>& values);

// Ensures: the grid of `p` (one visit per iteration; has_rank and has_tails for dist
//          maps), or InvalidArgument "swizzle2d show: N iterations is too many to show
//          (limit ...)" past kMaxShowPoints, or the map's own error at an iteration.
absl::StatusOr<Grid> ShowBuiltin(const Swizzle2dParams& p);

// The grid of `spec` at the point `given` (one value per declared param, by name).
// Ensures: the grid (its row_tiles/col_tiles/ranks are the extents of `grid row`, `grid
//          col` and `grid rank`), or InvalidArgument "--params: ..." for a missing,
//          ranged or unknown parameter, "<spec>: show draws `grid row` x `grid col`; ..."
//          for a spec without them, "<spec>: iteration I fails to evaluate: ..." or the
//          too-many-iterations error.
absl::StatusOr<Grid> ShowSpec(const SwizzleSpec& spec,
                              const std::vector<std::pair<std::string, ParamRange>>& given);

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_SHOW_H_
