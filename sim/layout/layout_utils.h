// Helpers that fit layouts to tensor shapes (shared/spec/linear-layouts.md §1.6, §2.0).
//
// Every TTGIR encoding is converted in two steps: build the CTA tile (the layout of one
// CTA's registers/lanes/warps over the smallest tensor it covers), then fit it to the
// tensor shape. Fitting *repeats* the tile through new register (or offset) bases where
// the tensor is larger, minor out-dim first, and *broadcasts* by zeroing the largest
// bases where the tensor is smaller. Triton does exactly this in LayoutUtils.cpp; the
// order in which dims are visited is the layout's own out-dim order, which is why
// IdentityStandardND returns its out-dims in `order` order and not in dim0.. order.
#ifndef WARPCHECK_SIM_LAYOUT_LAYOUT_UTILS_H_
#define WARPCHECK_SIM_LAYOUT_LAYOUT_UTILS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {

// dim0 ... dim{rank-1}.
std::vector<std::string> StandardOutDimNames(int rank);
std::string StandardOutDimName(int i);

// Π_i Identity1D(shape[order[i]], in_dim, dim{order[i]}); out-dims in `order` order.
// Requires: order a permutation of [0, shape.size()), shape entries powers of two.
LinearLayout IdentityStandardND(absl::string_view in_dim, absl::Span<const int64_t> shape,
                                absl::Span<const int32_t> order);

// Like IdentityStandardND but every factor is Zeros1D (used for broadcast warps).
// (Convenience; not in Triton's utils.)

// Repeats `layout` through new bases of its first in-dim (register or offset) until each
// out-dim o (in layout's out-dim order) has size >= shape[o]. `shape` is indexed by
// standard dim number (dim{i} -> shape[i]); out-dims must be named dim{i}.
// Requires: the first in-dim is "register" or "offset"; shape entries powers of two.
LinearLayout EnsureLayoutNotSmallerThan(const LinearLayout& layout,
                                        absl::Span<const int64_t> shape);

// Broadcasts: for each out-dim with size > shape[o], zeroes the largest entries (or,
// with broadcast_registers == false, removes the register bases) until it fits. Out
// sizes are re-inferred and equal shape afterwards.
LinearLayout EnsureLayoutNotLargerThan(const LinearLayout& layout,
                                       absl::Span<const int64_t> shape,
                                       bool broadcast_registers = true);

// Fits a CTA tile layout and a CGA layout (block -> dims, in units of whole CTA tiles)
// to `shape`; result out-dims are dim0.. in standard order (§2.0).
LinearLayout CombineCtaCgaWithShape(const LinearLayout& cta_layout,
                                    const LinearLayout& cga_layout,
                                    absl::Span<const int64_t> shape);

// Row-major reshape of the out-dims (used for nvmma_shared): reverse, reshapeOuts with
// the reversed shape, reverse back. Out-dims of the result are dim0.. of `shape`.
LinearLayout ReshapeLayout(const LinearLayout& layout, absl::Span<const int64_t> shape);

// Permutes the entries of every basis by `order` (dim names kept): new entry i =
// old entry order[i].
LinearLayout TransposeLinearLayout(const LinearLayout& layout,
                                   absl::Span<const int32_t> order);

// [rank-1, ..., 1, 0]; if !row_major the first two entries are swapped.
std::vector<int32_t> GetMatrixOrder(int rank, bool row_major);
// GetMatrixOrder(rank, row_major = (op_idx == 1) != k_contig).
std::vector<int32_t> GetOrderForDotOperand(int op_idx, int rank, bool k_contig);

}  // namespace warpcheck::sim::layout

#endif  // WARPCHECK_SIM_LAYOUT_LAYOUT_UTILS_H_
