// Tests for the shape-fitting helpers (shared/spec/linear-layouts.md §1.6, §2.0), with
// the spec's worked examples (Triton's LinearLayoutConversionsTest cases) as literals.
#include "sim/layout/layout_utils.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {

using ::testing::ElementsAre;

LinearLayout L(absl::string_view text) {
  absl::StatusOr<LinearLayout> l = LinearLayout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status() << "\n  parsing " << text;
  return l.ok() ? *l : LinearLayout();
}

// The CTA tile of #ttg.blocked (§2.1): registers, then lanes, then warps, each
// enumerating dims in `order`.
LinearLayout BlockedTile(const std::vector<int64_t>& size_per_thread,
                         const std::vector<int64_t>& threads_per_warp,
                         const std::vector<int64_t>& warps_per_cta,
                         const std::vector<int32_t>& order) {
  return IdentityStandardND("register", size_per_thread, order) *
         IdentityStandardND("lane", threads_per_warp, order) *
         IdentityStandardND("warp", warps_per_cta, order);
}

TEST(LayoutUtilsTest, StandardOutDimNames) {
  EXPECT_THAT(StandardOutDimNames(3), ElementsAre("dim0", "dim1", "dim2"));
  EXPECT_THAT(StandardOutDimNames(0), ElementsAre());
  EXPECT_EQ(StandardOutDimName(7), "dim7");
}

TEST(LayoutUtilsTest, IdentityStandardNDListsOutDimsInOrder) {
  EXPECT_EQ(IdentityStandardND("register", {2, 4}, {1, 0}).ToString(),
            "{register: [[1, 0], [2, 0], [0, 1]]} -> {dim1: 4, dim0: 2}");
  EXPECT_EQ(IdentityStandardND("offset", {4, 1, 2}, {0, 1, 2}).ToString(),
            "{offset: [[1, 0, 0], [2, 0, 0], [0, 0, 1]]} -> {dim0: 4, dim1: 1, dim2: 2}");
}

TEST(LayoutUtilsTest, MatrixAndDotOperandOrders) {
  EXPECT_THAT(GetMatrixOrder(2, true), ElementsAre(1, 0));
  EXPECT_THAT(GetMatrixOrder(2, false), ElementsAre(0, 1));
  EXPECT_THAT(GetMatrixOrder(3, true), ElementsAre(2, 1, 0));
  EXPECT_THAT(GetMatrixOrder(3, false), ElementsAre(1, 2, 0));
  EXPECT_THAT(GetMatrixOrder(1, true), ElementsAre(0));
  // K contiguous: operand A has K = last dim fastest, operand B K = dim rank-2 fastest.
  EXPECT_THAT(GetOrderForDotOperand(0, 2, true), ElementsAre(1, 0));
  EXPECT_THAT(GetOrderForDotOperand(1, 2, true), ElementsAre(0, 1));
  EXPECT_THAT(GetOrderForDotOperand(0, 3, true), ElementsAre(2, 1, 0));
  EXPECT_THAT(GetOrderForDotOperand(1, 3, true), ElementsAre(1, 2, 0));
  EXPECT_THAT(GetOrderForDotOperand(0, 2, false), ElementsAre(0, 1));
}

TEST(LayoutUtilsTest, EnsureLayoutNotSmallerThanRepeatsInTheFirstInDim) {
  EXPECT_EQ(
      EnsureLayoutNotSmallerThan(L("{register: [[1]], lane: [[2]]} -> {dim0: 4}"), {16})
          .ToString(),
      "{register: [[1], [4], [8]], lane: [[2]]} -> {dim0: 16}");
  // Out-dims are visited in the layout's order (dim1 first here).
  EXPECT_EQ(EnsureLayoutNotSmallerThan(
                L("{offset: [[1, 0], [0, 1]]} -> {dim1: 2, dim0: 2}"), {4, 4})
                .ToString(),
            "{offset: [[1, 0], [0, 1], [2, 0], [0, 2]]} -> {dim1: 4, dim0: 4}");
  // Already large enough: unchanged.
  const LinearLayout big = L("{register: [[1], [2], [4]]} -> {dim0: 8}");
  EXPECT_EQ(EnsureLayoutNotSmallerThan(big, {2}), big);
}

TEST(LayoutUtilsTest, EnsureLayoutNotLargerThanZeroesTheLargestBases) {
  // 1-D blocked 4/4/4 covers 64; shape 8 broadcasts warps first, then the top lane.
  const LinearLayout l =
      L("{register: [[1], [2]], lane: [[4], [8]], warp: [[16], [32]], block: []} -> "
        "{dim0: 64}");
  EXPECT_EQ(EnsureLayoutNotLargerThan(l, {8}).ToString(),
            "{register: [[1], [2]], lane: [[4], [0]], warp: [[0], [0]], block: []} -> "
            "{dim0: 8}");
  EXPECT_EQ(EnsureLayoutNotLargerThan(l, {64}), l);
}

TEST(LayoutUtilsTest, EnsureLayoutNotLargerThanCanDropRegisters) {
  const LinearLayout l = L("{register: [[1], [2]], lane: [[4]]} -> {dim0: 8}");
  EXPECT_EQ(EnsureLayoutNotLargerThan(l, {2}, /*broadcast_registers=*/true).ToString(),
            "{register: [[1], [0]], lane: [[0]]} -> {dim0: 2}");
  EXPECT_EQ(EnsureLayoutNotLargerThan(l, {2}, /*broadcast_registers=*/false).ToString(),
            "{register: [[1]], lane: [[0]]} -> {dim0: 2}");
}

TEST(LayoutUtilsTest, CombineCtaCgaWithShapeOneDimTooLargeAnotherTooSmall) {
  // blocked 1x4 / 8x4 / 4x1, order [1, 0], CGA [[0, 0], [1, 0]], shape 128x16: the
  // 32x16 tile repeats once in registers along dim0 (per-CTA shape 64x16) and the
  // second CTA bit splits dim0 above that.
  const LinearLayout tile = BlockedTile({1, 4}, {8, 4}, {4, 1}, {1, 0});
  const LinearLayout cga = L("{block: [[0, 0], [1, 0]]} -> {dim0: 2, dim1: 1}");
  EXPECT_EQ(
      CombineCtaCgaWithShape(tile, cga, {128, 16}).ToString(),
      "{register: [[0, 1], [0, 2], [32, 0]], lane: [[0, 4], [0, 8], [1, 0], [2, 0], "
      "[4, 0]], warp: [[8, 0], [16, 0]], block: [[0, 0], [64, 0]]} -> "
      "{dim0: 128, dim1: 16}");
}

TEST(LayoutUtilsTest, CombineCtaCgaWithShapeSmallerThanLayout) {
  const LinearLayout tile = BlockedTile({4}, {4}, {4}, {0});
  const std::string expected =
      "{register: [[1], [2]], lane: [[4], [0]], warp: [[0], [0]], block: []} -> {dim0: "
      "8}";
  EXPECT_EQ(CombineCtaCgaWithShape(tile, L("{block: []} -> {dim0: 1}"), {8}).ToString(),
            expected);
  // An Empty() CGA layout means one CTA.
  EXPECT_EQ(CombineCtaCgaWithShape(tile, LinearLayout::Empty(), {8}).ToString(),
            expected);
}

TEST(LayoutUtilsTest, CombineCtaCgaWithShapeBroadcastsCtasBeyondTheShape) {
  // Two CTAs split dim0, but the tensor has a single row: the CTA bit broadcasts.
  const LinearLayout tile = BlockedTile({1}, {2}, {1}, {0});
  EXPECT_EQ(
      CombineCtaCgaWithShape(tile, L("{block: [[1]]} -> {dim0: 2}"), {1}).ToString(),
      "{register: [], lane: [[0]], warp: [], block: [[0]]} -> {dim0: 1}");
}

TEST(LayoutUtilsTest, ReshapeLayoutIsRowMajor) {
  // Row-major identity on 4x8 (dim1 fastest) reshaped to 2x2x8 is row-major again.
  const LinearLayout l =
      IdentityStandardND("offset", {4, 8}, {1, 0}).TransposeOuts(StandardOutDimNames(2));
  EXPECT_EQ(l.ToString(),
            "{offset: [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]} -> {dim0: 4, dim1: 8}");
  EXPECT_EQ(ReshapeLayout(l, {2, 2, 8}).ToString(),
            "{offset: [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 1, 0], [1, 0, 0]]} -> "
            "{dim0: 2, dim1: 2, dim2: 8}");
  EXPECT_EQ(ReshapeLayout(ReshapeLayout(l, {2, 2, 8}), {4, 8}), l);
}

TEST(LayoutUtilsTest, TransposeLinearLayoutPermutesEntriesAndReinfersSizes) {
  const LinearLayout l = L("{offset: [[0, 1], [0, 2], [1, 0]]} -> {dim0: 2, dim1: 4}");
  EXPECT_EQ(TransposeLinearLayout(l, {1, 0}).ToString(),
            "{offset: [[1, 0], [2, 0], [0, 1]]} -> {dim0: 4, dim1: 2}");
}

}  // namespace
}  // namespace warpcheck::sim::layout
