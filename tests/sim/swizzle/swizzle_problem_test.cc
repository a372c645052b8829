// Swizzle problems: resolving built-ins, specs and SwizzleProblem files into one
// Problem, and the loader's positioned errors.
#include "sim/swizzle/problem.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::swizzle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::StartsWith;

std::string Src(const std::string& rel) { return std::string(WARPCHECK_SOURCE_DIR) + "/" + rel; }

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() /
                      (name + "." + std::to_string(::getpid()) + "." +
                       std::to_string(::testing::UnitTest::GetInstance()->random_seed())))
                         .string();
  std::ofstream(path) << text;
  return path;
}

TEST(SwizzleProblemTest, BuiltinFileGetsItsRangesAndTheDefaultBox) {
  ::warpcheck::SwizzleProblem proto;
  ASSERT_OK_AND_ASSIGN(Problem p,
                       LoadProblemFile(Src("corpus/swizzle/builtin_gemm.textproto"), &proto));
  ASSERT_TRUE(p.builtin.has_value());
  EXPECT_EQ(*p.builtin, Builtin::kGemm);
  EXPECT_EQ(p.name, "gemm_swizzle2d");
  EXPECT_EQ(p.engine, "both");
  EXPECT_EQ(p.builtin_sweep.row_tiles, (ParamRange{1, 24}));
  EXPECT_EQ(p.builtin_sweep.col_tiles, (ParamRange{1, 24}));
  EXPECT_EQ(p.builtin_sweep.swizzle_offset, (ParamRange{1, 7}));
  EXPECT_EQ(p.builtin_sweep.swizzle_direction, (ParamRange{0, 1}));
  EXPECT_FALSE(p.builtin_sweep.rank_size.has_value());
  EXPECT_EQ(proto.expect().verdict(), "holds");
}

TEST(SwizzleProblemTest, SpecFileIsRelativeToTheProblemFile) {
  ASSERT_OK_AND_ASSIGN(Problem p,
                       LoadProblemFile(Src("corpus/swizzle/gemm_d1.textproto")));
  EXPECT_FALSE(p.builtin.has_value());
  ASSERT_TRUE(p.spec.has_value());
  EXPECT_THAT(p.name, HasSubstr("corpus/swizzle/gemm_d1.swz"));
}

TEST(SwizzleProblemTest, MalformedFileGivesAPositionAndNoProtobufLog) {
  std::string path = WriteTemp("malformed_problem.textproto",
                               "# proto-message: warpcheck.SwizzleProblem\n"
                               "builtin: \"gemm\"\n"
                               "range { name: \"row_tiles\" lo: x }\n");
  ::testing::internal::CaptureStderr();
  absl::StatusOr<Problem> p = LoadProblemFile(path);
  std::string stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()), StartsWith(path + ":3:"));
  EXPECT_THAT(stderr_text, Not(HasSubstr("libprotobuf")));
  std::remove(path.c_str());
}

TEST(SwizzleProblemTest, UnreadableAndInvalidProblems) {
  absl::StatusOr<Problem> missing = LoadProblemFile("/no/such/problem.textproto");
  EXPECT_EQ(missing.status().message(), "/no/such/problem.textproto: cannot read file");

  ::warpcheck::SwizzleProblem proto;
  proto.set_builtin("gemm");
  auto* r = proto.add_range();
  r->set_name("row_tiles");
  r->set_lo(5);
  r->set_hi(2);
  EXPECT_EQ(ResolveProblem(proto, ".", "p").status().message(), "p: range row_tiles: lo 5 > hi 2");
  r->set_name("nope");
  r->set_hi(6);
  EXPECT_EQ(ResolveProblem(proto, ".", "p").status().message(),
            "gemm_swizzle2d has no parameter 'nope'");
  EXPECT_EQ(ResolveProblem(::warpcheck::SwizzleProblem(), ".", "p").status().message(),
            "p: one of builtin, spec_file, spec_text is required");
}

TEST(SwizzleProblemTest, DefaultsLeaveGivenRangesAlone) {
  Problem p = BuiltinProblem(Builtin::kDist);
  ASSERT_OK(SetRange(p, "rank_size", ParamRange{2, 4}));
  FillBuiltinDefaults(p.builtin_sweep);
  EXPECT_EQ(p.builtin_sweep.rank_size, (ParamRange{2, 4}));
  EXPECT_EQ(p.builtin_sweep.comm_npu_split, (ParamRange{1, 64}));
  EXPECT_EQ(p.builtin_sweep.comm_data_split, (ParamRange{1, 4}));
  EXPECT_EQ(p.builtin_sweep.row_tiles, (ParamRange{1, 65536}));
  EXPECT_FALSE(p.builtin_sweep.swizzle_offset.has_value());
}

TEST(SwizzleProblemTest, ParamListAndEngine) {
  ASSERT_OK_AND_ASSIGN(auto list, ParseParamList("a=1..4,b=7"));
  EXPECT_THAT(list, ElementsAre(Pair("a", ParamRange{1, 4}), Pair("b", ParamRange{7, 7})));
  ASSERT_OK_AND_ASSIGN(auto none, ParseParamList(""));
  EXPECT_THAT(none, IsEmpty());
  EXPECT_EQ(ParseParamList("a").status().message(), "--params: 'a' is not name=value or name=A..B");
  ASSERT_OK_AND_ASSIGN(Engine both, ParseEngine("both"));
  EXPECT_EQ(both, Engine::kBoth);
  ASSERT_OK_AND_ASSIGN(Engine automatic, ParseEngine("auto"));
  EXPECT_EQ(automatic, Engine::kAuto);
  EXPECT_FALSE(ParseEngine("").ok());
  EXPECT_FALSE(ParseEngine("z3").ok());
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
