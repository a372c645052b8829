// Shared-memory conversions with stmatrix / ldmatrix (16-bit elements), as Triton lowers
// them when its instruction tiles fit (shared/spec/triton-convert-layout.md §3.2, §3.7).
//
// One `stmatrix/ldmatrix .m8n8 .x4 .b16` moves four 8x8 matrices of 16-bit elements: 16
// bytes a lane, where a plain `st/ld.shared.v4.b32` needs those 16 bytes in one thread's
// registers. The matrix instructions spread each 16-byte row over four lanes, so they
// vectorise layouts whose registers are not contiguous enough for v4 accesses (mma
// accumulators, dot operands) — fewer instructions for the same wavefronts.
//
// In terms of the shared layout (offset bit j -> tensor direction basis[j], elements):
//   * non-trans: lane t's word i holds row t/4, columns 2(t%4), 2(t%4)+1 of matrix i, so
//     offset bits 0, 1, 2 ("cols") are the word's pack direction and lane bits 0, 1; the
//     row is lane bits 2, 3, 4 ("rows");
//   * .trans: rows and columns swap: cols = lane bits 2, 3, 4, rows = pack, lane 0, lane 1;
//   * lane 8i + r gives the address of row r of matrix i: the row directions for r, the
//     register bits that pick word i ("select", one or two: x2 / x4), the warp, and an
//     immediate for the other registers. Every row must be 16-byte aligned: no direction
//     but the cols reaches offset bits 0-2.
// One side may use a plain vector access instead (as the smem planner's, planner.cc),
// the other a matrix instruction, or both matrix instructions. The rest of the basis is a
// few base orders and a hill climb over XOR swizzles above the 16-byte rows, scored by
// the exact bank model (sim/bank: one wavefront group per 8x8 matrix), as for plain
// accesses.
//
// Scope: 16-bit elements, both views packed two to a word (pack bit); broadcast copies
// (registers, lanes or warps that hold copies) anywhere but in the pack bit, the cols
// and the select bits.
#ifndef WARPCHECK_SIM_PLAN_MATRIX_H_
#define WARPCHECK_SIM_PLAN_MATRIX_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "proto/plan.pb.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/plan/program.h"

namespace warpcheck::sim::plan {

struct MatrixSmemPlan {
  Program program;
  int64_t wavefronts_store = 0, wavefronts_load = 0, min_store = 0, min_load = 0;
  bool cta_barrier = true;
};

// Requires: sv, dv views of p's layouts. Ensures: a program that stores (stmatrix or
// st.shared), synchronises as `options` says and loads (ldmatrix or ld.shared), with
// at least one matrix side, every element converted; its wavefronts are the bank model's
// for the emitted addresses. InvalidArgument (why) when no such plan fits.
absl::StatusOr<MatrixSmemPlan> PlanMatrixSmem(const ConversionProblem& p, const WordView& sv,
                                              const WordView& dv, const PlanOptions& options,
                                              SmemStage* stage);

// Ensures: (w, i) with w <= the wavefronts (store + load) and i <= the accesses a thread
// (stores + loads, no barriers) of every plan PlanMatrixSmem can return for (sv, dv):
// the least of each over the side kinds that fit; nullopt when no side kind fits (then
// PlanMatrixSmem fails without a search).
std::optional<std::pair<int64_t, int64_t>> MatrixSmemAccessBound(const ConversionProblem& p,
                                                                 const WordView& sv,
                                                                 const WordView& dv,
                                                                 const PlanOptions& options);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_MATRIX_H_
