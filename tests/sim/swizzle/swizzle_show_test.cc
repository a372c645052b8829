// The grid `swizzle2d show` draws: built-in and spec maps at one point.
#include "sim/swizzle/show.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::swizzle {
namespace {


// (iter, row, col, rank) of every visit, for compact expectations.
std::vector<std::vector<int64_t>> Visits(const Grid& g) {
  std::vector<std::vector<int64_t>> out;
  for (const GridVisit& v : g.visits) out.push_back({v.iter, v.row, v.col, v.rank});
  return out;
}

TEST(SwizzleShowTest, GemmVisitsEveryTileRowMajorAtOffsetSeven) {
  ASSERT_OK_AND_ASSIGN(Swizzle2dParams p,
                       BuiltinShowParams(Builtin::kGemm, {{"row_tiles", 2}, {"col_tiles", 3}}));
  ASSERT_OK_AND_ASSIGN(Grid g, ShowBuiltin(p));
  EXPECT_EQ(g.row_tiles, 2);
  EXPECT_EQ(g.col_tiles, 3);
  EXPECT_EQ(g.ranks, 1);
  EXPECT_FALSE(g.has_rank);
  EXPECT_FALSE(g.has_tails);
  EXPECT_EQ(Visits(g), (std::vector<std::vector<int64_t>>{
                           {0, 0, 0, 0}, {1, 0, 1, 0}, {2, 0, 2, 0},
                           {3, 1, 0, 0}, {4, 1, 1, 0}, {5, 1, 2, 0}}));
}

TEST(SwizzleShowTest, DistHasRanksAndTails) {
  ASSERT_OK_AND_ASSIGN(
      Swizzle2dParams p,
      BuiltinShowParams(Builtin::kDist, {{"row_tiles", 2}, {"col_tiles", 2}, {"rank_size", 2}}));
  ASSERT_OK_AND_ASSIGN(Grid g, ShowBuiltin(p));
  EXPECT_TRUE(g.has_rank);
  EXPECT_TRUE(g.has_tails);
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(Visits(g), (std::vector<std::vector<int64_t>>{{0, 0, 0, 0},
                                                          {1, 0, 1, 1},
                                                          {2, 1, 0, 0},
                                                          {3, 1, 1, 1},
                                                          {4, 0, 0, 1},
                                                          {5, 0, 1, 0},
                                                          {6, 1, 0, 1},
                                                          {7, 1, 1, 0}}));
  EXPECT_EQ(g.visits[0].rows, 1);
  EXPECT_EQ(g.visits[0].cols, 1);
}

TEST(SwizzleShowTest, BuiltinParamErrorsNameTheFlags) {
  EXPECT_THAT(BuiltinShowParams(Builtin::kDist, {{"row_tiles", 2}, {"col_tiles", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "--rank-size is required"));
  EXPECT_THAT(BuiltinShowParams(Builtin::kGemm, {{"row_tiles", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "give both --row-tiles and --col-tiles"));
  EXPECT_THAT(BuiltinShowParams(Builtin::kGemm, {{"row_tiles", 2}, {"rows", 4}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "two ways"));
  EXPECT_THAT(BuiltinShowParams(Builtin::kGemm, {{"rows", 4}, {"cols", 4}, {"tile_rows", 2}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "--tile-cols is missing"));
  EXPECT_THAT(BuiltinShowParams(Builtin::kGemm, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "the grid is missing"));
}

TEST(SwizzleShowTest, TooManyIterations) {
  ASSERT_OK_AND_ASSIGN(
      Swizzle2dParams p,
      BuiltinShowParams(Builtin::kGemm, {{"row_tiles", 2048}, {"col_tiles", 1024}}));
  EXPECT_THAT(ShowBuiltin(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                       "too many to show"));
}

constexpr char kSpec[] = R"(param n in 1..4;
param m in 1..4;
domain = n * m;
grid row = n;
grid col = m;
out row = iter % n;
out col = iter // n;
skip iter == 1;
)";

TEST(SwizzleShowTest, SpecColumnMajorWithASkip) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("col.swz", kSpec));
  ASSERT_OK_AND_ASSIGN(Grid g, ShowSpec(spec, {{"n", ParamRange{2, 2}}, {"m", ParamRange{2, 2}}}));
  EXPECT_EQ(g.row_tiles, 2);
  EXPECT_EQ(g.col_tiles, 2);
  EXPECT_FALSE(g.has_rank);
  EXPECT_EQ(Visits(g), (std::vector<std::vector<int64_t>>{
                           {0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 1, 0}, {3, 1, 1, 0}}));
  EXPECT_FALSE(g.visits[0].skipped);
  EXPECT_TRUE(g.visits[1].skipped);
}

TEST(SwizzleShowTest, SpecParamErrors) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("col.swz", kSpec));
  EXPECT_THAT(ShowSpec(spec, {{"n", ParamRange{2, 2}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--params: parameter 'm' of col.swz has no value (give --params=m=V,...)"));
  EXPECT_THAT(ShowSpec(spec, {{"n", ParamRange{1, 2}}, {"m", ParamRange{2, 2}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--params: n: show needs one value, not a range"));
  EXPECT_THAT(ShowSpec(spec, {{"n", ParamRange{2, 2}}, {"m", ParamRange{2, 2}},
                              {"k", ParamRange{1, 1}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--params: col.swz has no parameter 'k'"));
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
