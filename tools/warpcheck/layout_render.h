// Human renderings of a layout over a tensor: the text table of `layout show` and the
// SVG picture.
//
// Both are computed from the holder map: for every tensor element, the hardware
// positions (block, warp, lane, register) -- or shared-memory (block, offset) -- that
// hold it. Distributed layouts print one table per warp (and block), each cell `T3:1` =
// lane 3, register 1; a warp that holds exactly what an earlier one holds is reported as
// a copy instead of printed again. Shared layouts print the offset of each element.
#ifndef WARPCHECK_TOOLS_WARPCHECK_LAYOUT_RENDER_H_
#define WARPCHECK_TOOLS_WARPCHECK_LAYOUT_RENDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/layout/linear_layout.h"
#include "tools/warpcheck/svg.h"

namespace warpcheck::cli {

// One hardware position. For shared layouts `lane` holds the offset and register/warp
// are 0.
struct Holder {
  int32_t block = 0;
  int32_t warp = 0;
  int32_t lane = 0;
  int32_t reg = 0;
};

// holders[e] for every element e, flattened row-major over the out-dims
// (dim0 slowest). Requires: out-dims dim0..dim{r-1}.
std::vector<std::vector<Holder>> ComputeHolders(const sim::layout::LinearLayout& layout);

// The text table (see above). Requires: out-dims dim0..dim{r-1}.
std::string RenderTable(const sim::layout::LinearLayout& layout);

// An SVG picture: tensor grid (leading dims stacked as row blocks), cells coloured by
// warp (shared: by 4-byte bank of a 16-bit element) and labelled lane:register (shared:
// offset). `title` is printed above the grid.
std::string RenderSvg(const sim::layout::LinearLayout& layout, const std::string& title);

// The same picture drawn into `doc` with its top-left corner at (x0, y0): `title`, the
// key line, the grid and the warp legend. At most `max_rows` x `max_cols` cells (the
// top-left corner of the tensor; the key says so when cut). Ensures: returns the box it
// drew, so a caller can place what follows (`convert plan --svg` draws two).
svg::Box DrawLayoutGrid(svg::Document& doc, const sim::layout::LinearLayout& layout,
                        double x0, double y0, const std::string& title, int64_t max_rows,
                        int64_t max_cols);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_LAYOUT_RENDER_H_
