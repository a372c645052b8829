// The built-in swizzles: the spec's worked example as literal expectations, small
// hand-computed cases of every built-in, and parameter validation messages.
#include "sim/swizzle/swizzle2d.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::swizzle {
namespace {

using ::testing::ElementsAreArray;
using Pair = std::pair<int64_t, int64_t>;

std::vector<Pair> GemmOrder(int64_t rows, int64_t cols, int64_t tile_rows,
                            int64_t tile_cols, int64_t s, int64_t direction) {
  std::vector<Pair> out;
  const int64_t n = ((rows - 1) / tile_rows + 1) * ((cols - 1) / tile_cols + 1);
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<GemmTile> t =
        GemmSwizzle2d(i, rows, cols, tile_rows, tile_cols, s, direction);
    EXPECT_TRUE(t.ok()) << t.status();
    if (t.ok()) out.push_back({t->row, t->col});
  }
  return out;
}

// shared/spec/swizzle2d.md: "R = 3, C = 10, s = 7, direction 1 — iterations 0–20 visit
// columns 0–6 with rows going 0 → 1 → 2 (row-major inside the group), iterations 21–29
// visit columns 7–9 with rows going 2 → 1 → 0."
const std::vector<Pair> kWorkedExample = {
    {0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6},  // 0..6
    {1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6},  // 7..13
    {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6},  // 14..20
    {2, 7}, {2, 8}, {2, 9},                                  // 21..23
    {1, 7}, {1, 8}, {1, 9},                                  // 24..26
    {0, 7}, {0, 8}, {0, 9},                                  // 27..29
};

TEST(Swizzle2dTest, WorkedExampleDirection1) {
  EXPECT_THAT(GemmOrder(3, 10, 1, 1, 7, 1), ElementsAreArray(kWorkedExample));
  // The same grid from data and tile shapes (96 x 640 in 32 x 64 tiles, and with
  // partial edge tiles 70 x 600 in 32 x 64).
  EXPECT_THAT(GemmOrder(96, 640, 32, 64, 7, 1), ElementsAreArray(kWorkedExample));
  EXPECT_THAT(GemmOrder(70, 600, 32, 64, 7, 1), ElementsAreArray(kWorkedExample));
  // gemm_swizzle2d_Nz is direction 1; the default offset is 7, the default direction 1.
  for (int64_t i = 0; i < 30; ++i) {
    ASSERT_OK_AND_ASSIGN(GemmTile nz, GemmSwizzle2dNz(i, 3, 10, 1, 1));
    ASSERT_OK_AND_ASSIGN(GemmTile d, GemmSwizzle2d(i, 3, 10, 1, 1));
    EXPECT_EQ(nz, (GemmTile{kWorkedExample[i].first, kWorkedExample[i].second}));
    EXPECT_EQ(d, nz);
  }
}

TEST(Swizzle2dTest, WorkedExampleDirection0IsTheTranspose) {
  std::vector<Pair> transposed;
  for (const auto& [r, c] : kWorkedExample) transposed.push_back({c, r});
  EXPECT_THAT(GemmOrder(10, 3, 1, 1, 7, 0), ElementsAreArray(transposed));
}

TEST(Swizzle2dTest, SmallGemmCases) {
  // s = 2 on 3 x 3, direction 1: groups {0,1} (rows down) and {2} (rows up).
  EXPECT_THAT(
      GemmOrder(3, 3, 1, 1, 2, 1),
      ElementsAreArray(std::vector<Pair>{
          {0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}}));
  // s = 1: a plain serpentine over columns.
  EXPECT_THAT(GemmOrder(2, 3, 1, 1, 1, 1),
              ElementsAreArray(
                  std::vector<Pair>{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}, {1, 2}}));
  // Direction 0, s = 2 on 3 x 2: groups of rows {0,1} (columns left to right) and {2}
  // (right to left).
  EXPECT_THAT(GemmOrder(3, 2, 1, 1, 2, 0),
              ElementsAreArray(
                  std::vector<Pair>{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 1}, {2, 0}}));
}

TEST(Swizzle2dTest, DistSmallCases) {
  // N = 2, a 3 x 2 matrix in 2 x 2 tiles: R = 2, C = 1, D = 2, p = 1.
  std::vector<DistTile> got;
  for (int64_t i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(DistTile t, DistSwizzle2d(i, 2, 3, 2, 2, 2));
    got.push_back(t);
    ASSERT_OK_AND_ASSIGN(DistTile nz, DistSwizzle2dNz(i, 2, 3, 2, 2, 2));
    EXPECT_EQ(nz, t) << "p = 1: dist_Nz is dist direction 1";
  }
  EXPECT_THAT(got,
              ElementsAreArray(std::vector<DistTile>{
                  {0, 0, 0, 2, 2}, {1, 0, 1, 1, 2}, {0, 0, 1, 2, 2}, {1, 0, 0, 1, 2}}));
  // N = 4, p = 2, one tile: pi(k) = (2k mod 4) + 2k // 4 gives ranks 0, 2, 1, 3; the
  // shipped _Nz remap (2k mod 2) + 2k // 4 = k // 2 gives 0, 0, 1, 1.
  std::vector<int64_t> dist_ranks, nz_ranks;
  for (int64_t i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(DistTile t, DistSwizzle2d(i, 4, 1, 1, 1, 1, 2));
    ASSERT_OK_AND_ASSIGN(DistTile nz, DistSwizzle2dNz(i, 4, 1, 1, 1, 1, 2));
    dist_ranks.push_back(t.rank);
    nz_ranks.push_back(nz.rank);
  }
  EXPECT_THAT(dist_ranks, ElementsAreArray({0, 2, 1, 3}));
  EXPECT_THAT(nz_ranks, ElementsAreArray({0, 0, 1, 1}));
  // Direction 0, q = 2, N = 2, D = 3 (1 x 3 tiles): groups of data tiles {0,1} and {2}.
  std::vector<std::vector<int64_t>> d0;
  for (int64_t i = 0; i < 6; ++i) {
    ASSERT_OK_AND_ASSIGN(DistTile t, DistSwizzle2d(i, 2, 1, 3, 1, 1, 1, 2, 0));
    d0.push_back({t.row, t.col, t.rank});
  }
  EXPECT_THAT(d0, ElementsAreArray(std::vector<std::vector<int64_t>>{
                      {0, 0, 0}, {0, 1, 1}, {0, 0, 1}, {0, 1, 0}, {0, 2, 0}, {0, 2, 1}}));
  // comm_data_split beyond the number of tiles behaves as q = D.
  for (int64_t i = 0; i < 6; ++i) {
    ASSERT_OK_AND_ASSIGN(DistTile a, DistSwizzle2d(i, 2, 1, 3, 1, 1, 1, 3, 0));
    ASSERT_OK_AND_ASSIGN(DistTile b, DistSwizzle2d(i, 2, 1, 3, 1, 1, 1, 1000, 0));
    EXPECT_EQ(a, b);
  }
}

TEST(Swizzle2dTest, ApplyAndNames) {
  Swizzle2dParams p{.fn = Builtin::kDist,
                    .shape = {5, 7, 2, 3},
                    .rank_size = 4,
                    .comm_npu_split = 2,
                    .comm_data_split = 3};
  EXPECT_EQ(p.DomainSize(), 4 * 3 * 3);
  EXPECT_EQ(
      p.ToString(),
      "dist(rows=5, cols=7, tile_rows=2, tile_cols=3, rank_size=4, comm_npu_split=2, "
      "comm_data_split=3, swizzle_direction=1)");
  Swizzle2dParams g{.fn = Builtin::kGemmNz, .shape = Shape2d::FromTileCounts(3, 10)};
  EXPECT_EQ(g.ToString(), "gemm_nz(row_tiles=3, col_tiles=10, swizzle_offset=7)");
  ASSERT_OK_AND_ASSIGN(Swizzle2dResult r, Apply(g, 29));
  EXPECT_EQ(r, (Swizzle2dResult{0, 9, 0, 1, 1}));
  EXPECT_EQ(BuiltinApiName(Builtin::kDistNz), "dist_swizzle2d_Nz");
  ASSERT_OK_AND_ASSIGN(Builtin fn, ParseBuiltin("gemm_swizzle2d_Nz"));
  EXPECT_EQ(fn, Builtin::kGemmNz);
  ASSERT_OK_AND_ASSIGN(fn, ParseBuiltin("dist"));
  EXPECT_EQ(fn, Builtin::kDist);
  EXPECT_THAT(
      ParseBuiltin("gemm2"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "unknown swizzle function 'gemm2' (expected gemm, gemm_nz, dist or "
               "dist_nz)"));
}

TEST(Swizzle2dTest, ValidationMessages) {
  using absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(GemmSwizzle2d(0, 3, 10, 1, 1, 8, 1),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d: swizzle_offset = 8 is outside [1, 7] (the group "
                       "width the API allows)"));
  EXPECT_THAT(GemmSwizzle2dNz(0, 3, 10, 1, 1, 0),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d_Nz: swizzle_offset = 0 is outside [1, 7]"));
  EXPECT_THAT(
      GemmSwizzle2d(0, 3, 10, 0, 1),
      StatusIs(kInvalidArgument,
               "gemm_swizzle2d: tile_rows = 0 must be positive (shapes are element "
               "counts, and an empty shape has no tiles to schedule)"));
  EXPECT_THAT(GemmSwizzle2d(0, -3, 10, 1, 1),
              StatusIs(kInvalidArgument, "gemm_swizzle2d: rows = -3 must be positive"));
  EXPECT_THAT(DistSwizzle2d(0, 2, 4, 0, 1, 1),
              StatusIs(kInvalidArgument, "dist_swizzle2d: cols = 0 must be positive"));
  EXPECT_THAT(GemmSwizzle2d(0, 3, 10, 1, 1, 7, 2),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d: swizzle_direction = 2 must be 0 (Zn: group rows) "
                       "or 1 (Nz: group columns)"));
  EXPECT_THAT(GemmSwizzle2d(30, 3, 10, 1, 1),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d: iter = 30 is outside the domain [0, 30) (R·C = "
                       "3·10; every iteration id must name one tile)"));
  EXPECT_THAT(
      GemmSwizzle2d(-1, 3, 10, 1, 1),
      StatusIs(kInvalidArgument, "gemm_swizzle2d: iter = -1 is outside the domain"));
  EXPECT_THAT(
      DistSwizzle2dNz(24, 2, 3, 4, 1, 1),
      StatusIs(kInvalidArgument,
               "dist_swizzle2d_Nz: iter = 24 is outside the domain [0, 24) (N·R·C "
               "= 2·3·4;"));
  EXPECT_THAT(
      DistSwizzle2d(0, 6, 4, 4, 1, 1, 4),
      StatusIs(kInvalidArgument,
               "dist_swizzle2d: rank_size = 6 is not a multiple of comm_npu_split "
               "= 4 (ranks are interleaved in groups of comm_npu_split, which must "
               "divide them)"));
  EXPECT_THAT(DistSwizzle2dNz(0, 4, 4, 4, 1, 1, 3),
              StatusIs(kInvalidArgument,
                       "dist_swizzle2d_Nz: rank_size = 4 is not a multiple of "
                       "comm_npu_split = 3"));
  EXPECT_THAT(
      DistSwizzle2d(0, 0, 4, 4, 1, 1),
      StatusIs(kInvalidArgument,
               "dist_swizzle2d: rank_size = 0 is outside [1, 2^31] (the number of "
               "ranks to schedule)"));
  EXPECT_THAT(DistSwizzle2d(0, 4, 4, 4, 1, 1, 0),
              StatusIs(kInvalidArgument,
                       "dist_swizzle2d: comm_npu_split = 0 must be at least 1"));
  EXPECT_THAT(DistSwizzle2d(0, 4, 4, 4, 1, 1, 1, 0),
              StatusIs(kInvalidArgument,
                       "dist_swizzle2d: comm_data_split = 0 must be at least 1"));
  EXPECT_THAT(DistSwizzle2d(0, 4, 4, 4, 1, 1, 1, 1, -1),
              StatusIs(kInvalidArgument, "dist_swizzle2d: swizzle_direction = -1"));
  EXPECT_THAT(
      Apply(Swizzle2dParams{.fn = Builtin::kGemm, .rank_size = 4}, 0),
      StatusIs(kInvalidArgument,
               "gemm_swizzle2d: rank_size = 4 does not apply (gemm swizzles have no "
               "ranks)"));
  EXPECT_THAT(Apply(Swizzle2dParams{.fn = Builtin::kDistNz, .comm_data_split = 2}, 0),
              StatusIs(kInvalidArgument,
                       "dist_swizzle2d_Nz: comm_data_split = 2 does not apply"));
  EXPECT_THAT(Apply(Swizzle2dParams{.fn = Builtin::kGemmNz, .direction = 0}, 0),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d_Nz: swizzle_direction = 0 does not apply "
                       "(gemm_swizzle2d_Nz is direction 1)"));
  EXPECT_THAT(
      Apply(Swizzle2dParams{.fn = Builtin::kDist, .swizzle_offset = 3}, 0),
      StatusIs(kInvalidArgument, "dist_swizzle2d: swizzle_offset = 3 does not apply"));
  EXPECT_THAT(GemmSwizzle2d(0, int64_t{1} << 40, int64_t{1} << 40, 1, 1),
              StatusIs(kInvalidArgument,
                       "gemm_swizzle2d: the domain R·C = 1099511627776·1099511627776 "
                       "exceeds 2^59"));
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
