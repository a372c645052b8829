// The picture of `warpcheck convert plan --svg=FILE`: who sends what to whom in a
// conversion plan, and which shared-memory bank each lane's access hits.
//
// From top to bottom:
//
//   header     the pair, the strategy, the instruction counts and the cost model's
//              shared-memory figures (the text output's first lines);
//   ownership  the source and the destination layout as `layout show --svg` draws them
//              (layout_render.h: cell = lane:register, colour = warp), each cut to its
//              top-left 64 x 64 elements;
//   steps      the program of one thread, op by op, drawn for warp 0 (the program is
//              warp-uniform; the other warps differ by a constant in their addresses):
//                registers  (a registers-only plan) each destination word and the source
//                           words it is made of, thread 0, arrows from source to
//                           destination word (a prmt has two);
//                selp/prmt  one line per run of them (which word a lane sends or keeps);
//                shfl       one lane map per round: 32 sender lanes above 32 receivers,
//                           an arrow from the lane each receiver reads (grey: itself);
//                           the tooltip names the element that travels;
//                st/ld      the bank map of the warp-wide request: one row per lane group
//                           the bank model serves separately (all 32 lanes for accesses
//                           up to 4 bytes, 16 for 8, 8 for 16, one matrix for stmatrix/
//                           ldmatrix), one cell per bank. A cell holds the lane that hits
//                           it, or "xK" when K > 1 distinct 4-byte words meet in it: a
//                           conflict, drawn red, and the group takes max K wavefronts;
//                           the tooltip lists the lanes and the elements they move;
//                bar        one line;
//   totals     per CTA, over every request of every warp (priced by sim/bank through
//              verify/plan RequestOf): wavefronts and conflicts of the stores and the
//              loads, next to the plan's own (cost-model) figures, and whether every warp
//              has warp 0's bank pattern.
//
// Size bounds: at most 16 shuffle rounds, 48 bank-map rows and 64 register words are
// drawn; what is left out is counted in a line (the totals always cover everything).
// A 4-warp 64x64 pair stays a few thousand units on a side.
#ifndef WARPCHECK_TOOLS_WARPCHECK_PLAN_RENDER_H_
#define WARPCHECK_TOOLS_WARPCHECK_PLAN_RENDER_H_

#include <string>

#include "absl/status/statusor.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"

namespace warpcheck::cli {

// Requires: `plan` planned for `problem` (PlanConversion).
// Ensures: a standalone SVG document (above); InvalidArgument when the program does not
// fit the problem (verify/plan RunConcrete).
absl::StatusOr<std::string> RenderPlanSvg(const sim::plan::ConversionProblem& problem,
                                          const sim::plan::ConversionPlan& plan);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_PLAN_RENDER_H_
