#include "tools/warpcheck/args.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::cli {
namespace {

ParsedArgs Parse(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {"ranks", "seed"}, {});
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return *parsed;
}

TEST(GetIntTest, AbsentFlagIsNullopt) {
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> v, Parse({}).GetInt("ranks", 1, 8));
  EXPECT_FALSE(v.has_value());
}

TEST(GetIntTest, ReadsValuesInRangeIncludingTheBounds) {
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> lo,
                       Parse({"--ranks=1"}).GetInt("ranks", 1, 8));
  EXPECT_EQ(lo, 1);
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> hi,
                       Parse({"--ranks", "8"}).GetInt("ranks", 1, 8));
  EXPECT_EQ(hi, 8);
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> big,
                       Parse({"--seed=9223372036854775807"})
                           .GetInt("seed", 0, std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(big, std::numeric_limits<int64_t>::max());
}

TEST(GetIntTest, RejectsOutOfRangeAndNonIntegersNamingFlagValueAndRange) {
  EXPECT_THAT(Parse({"--ranks=0"}).GetInt("ranks", 1, 1024),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--ranks=0: expected an integer in [1, 1024]"));
  EXPECT_THAT(Parse({"--ranks=1025"}).GetInt("ranks", 1, 1024),
              StatusIs(absl::StatusCode::kInvalidArgument, "--ranks=1025: expected"));
  EXPECT_THAT(Parse({"--ranks=x"}).GetInt("ranks", 1, 1024),
              StatusIs(absl::StatusCode::kInvalidArgument, "--ranks=x: expected"));
  EXPECT_THAT(Parse({"--seed=-1x"}).GetInt("seed", 0, 100),
              StatusIs(absl::StatusCode::kInvalidArgument, "--seed=-1x: expected"));
  EXPECT_THAT(
      Parse({"--seed=99999999999999999999"}).GetInt("seed", 0, 100),
      StatusIs(absl::StatusCode::kInvalidArgument, "expected an integer in [0, 100]"));
  EXPECT_THAT(Parse({"--seed="}).GetInt("seed", 0, 100),
              StatusIs(absl::StatusCode::kInvalidArgument, "--seed=: expected"));
  // Unbounded above: no INT64_MAX in the message.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(Parse({"--seed=-1"}).GetInt("seed", 0, kMax),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--seed=-1: expected a non-negative integer"));
  EXPECT_THAT(Parse({"--ranks=0"}).GetInt("ranks", 1, kMax),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--ranks=0: expected an integer >= 1"));
}

}  // namespace
}  // namespace warpcheck::cli
