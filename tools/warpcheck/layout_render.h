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

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_LAYOUT_RENDER_H_
