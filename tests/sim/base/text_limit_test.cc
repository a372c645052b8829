// CheckTextSize: OK up to the limit, and past it an error at the first byte over.
#include "sim/base/text_limit.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sim/base/text_proto.h"
#include "proto/launch.pb.h"

namespace warpcheck::sim::base {
namespace {

TEST(TextLimitTest, AtTheLimitIsFine) {
  EXPECT_TRUE(CheckTextSize("abcd", "f", 4, "a file").ok());
  EXPECT_TRUE(CheckTextSize("", "f", 0, "a file").ok());
}

TEST(TextLimitTest, PastTheLimitPointsAtTheFirstByteOver) {
  // Byte 6 (0-based) is 'g' on line 2, column 3.
  absl::Status s = CheckTextSize("abc\ndefgh", "f.ptx", 6, "a PTX module");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "f.ptx:2:3: the text goes on past 6 bytes, the most a PTX module may have");
  // On the first line the column is the byte's 1-based offset.
  EXPECT_EQ(CheckTextSize("abcdef", "x", 2, "y").message(),
            "x:1:3: the text goes on past 2 bytes, the most y may have");
}

TEST(TextProtoLimitTest, EmptyAndCommentOnlyTextIsAnErrorAtOneOne) {
  LaunchSpec spec;
  for (const char* text : {"", "  \n\t\n", "# proto-message: warpcheck.LaunchSpec\n# x\n"}) {
    absl::Status s = ParseTextProto(text, "e.textproto", &spec);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(s.message(),
              "e.textproto:1:1: empty input: no fields of warpcheck.LaunchSpec (the text is "
              "empty or only comments)")
        << text;
  }
  EXPECT_TRUE(ParseTextProto("# c\nptx_file: \"k.ptx\"\n", "ok.textproto", &spec).ok());
}

TEST(TextProtoLimitTest, PastTheByteLimitIsAnErrorWithItsPosition) {
  std::string text(kTextProtoMaxBytes + 1, '\n');
  LaunchSpec spec;
  absl::Status s = ParseTextProto(text, "big.textproto", &spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            absl::StrCat("big.textproto:", kTextProtoMaxBytes + 1, ":1: the text goes on past ",
                         kTextProtoMaxBytes, " bytes, the most a warpcheck.LaunchSpec may have"));
}

}  // namespace
}  // namespace warpcheck::sim::base
