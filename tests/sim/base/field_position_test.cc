#include "sim/base/field_position.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/launch.pb.h"
#include "proto/signal.pb.h"

namespace warpcheck::sim::base {
namespace {

// Line 1 is a comment, so the positions below are not all line 1 by accident.
constexpr char kSpec[] =
    "# a launch spec\n"
    "ptx_file: \"k.ptx\"\n"
    "grid { x: 4294967295 y: 7 }\n"
    "block { x: 128 }\n"
    "param { u32: 1 }\n"
    "param {\n"
    "  buffer { name: \"in\" size_bytes: 8 }\n"
    "}\n";

TEST(FindFieldTest, TopLevelNestedAndRepeatedFields) {
  const warpcheck::LaunchSpec proto;
  auto at = [&](const char* path) { return FindField(kSpec, proto, path); };
  ASSERT_TRUE(at("ptx_file").has_value());
  EXPECT_EQ(at("ptx_file")->line, 2);
  EXPECT_EQ(at("ptx_file")->column, 1);
  ASSERT_TRUE(at("grid.y").has_value());
  EXPECT_EQ(at("grid.y")->line, 3);
  EXPECT_EQ(at("grid.y")->column, 22);
  ASSERT_TRUE(at("param[1].buffer.size_bytes").has_value());
  EXPECT_EQ(at("param[1].buffer.size_bytes")->line, 7);
  EXPECT_EQ(at("param[1].buffer.size_bytes")->column, 23);
  EXPECT_EQ(at("param[0]")->line, 5);
}

// A field left at its default is not in the text: its nearest spelled-out ancestor is
// the answer; with none, there is no answer (never a made-up position).
TEST(FindFieldTest, AbsentFieldFallsBackToItsAncestorOnly) {
  const warpcheck::LaunchSpec proto;
  ASSERT_TRUE(FindField(kSpec, proto, "block.z").has_value());
  EXPECT_EQ(FindField(kSpec, proto, "block.z")->line, 4);
  EXPECT_FALSE(FindField(kSpec, proto, "dynamic_shared_bytes").has_value());
  EXPECT_FALSE(FindField(kSpec, proto, "param[5]").has_value());
}

TEST(FindFieldTest, BadPathsAndBadTextHaveNoPosition) {
  const warpcheck::LaunchSpec proto;
  EXPECT_FALSE(FindField(kSpec, proto, "no_such_field").has_value());
  EXPECT_FALSE(FindField(kSpec, proto, "param").has_value());       // repeated, no index
  EXPECT_FALSE(FindField(kSpec, proto, "grid[0]").has_value());     // not repeated
  EXPECT_FALSE(FindField(kSpec, proto, "param[x]").has_value());
  EXPECT_FALSE(FindField(kSpec, proto, "").has_value());
  EXPECT_FALSE(FindField("grid { x: ", proto, "grid").has_value());  // does not parse
}

TEST(WithFieldTest, AttachesOnceAndKeepsTheMessage) {
  absl::Status s = WithField(absl::InvalidArgumentError("grid too large"), "grid");
  EXPECT_EQ(s.message(), "grid too large");
  EXPECT_EQ(FieldOf(s), "grid");
  EXPECT_EQ(FieldOf(WithField(s, "block")), "grid");  // the innermost check wins
  EXPECT_TRUE(WithField(absl::OkStatus(), "grid").ok());
  EXPECT_FALSE(FieldOf(absl::InvalidArgumentError("x")).has_value());
  absl::Status reworded = WithMessage(s, "a.textproto: grid too large");
  EXPECT_EQ(reworded.message(), "a.textproto: grid too large");
  EXPECT_EQ(reworded.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FieldOf(reworded), "grid");
}

TEST(LocateTest, OriginPrefixBecomesAPosition) {
  const warpcheck::LaunchSpec proto;
  absl::Status s = LocateInTextProto(
      WithField(absl::InvalidArgumentError("a.textproto: launch spec: grid too large"),
                "grid"),
      kSpec, "a.textproto", proto);
  EXPECT_EQ(s.message(), "a.textproto:3:1: launch spec: grid too large");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // Without a field, or one the text does not have, nothing changes.
  absl::Status plain = absl::InvalidArgumentError("a.textproto: no field");
  EXPECT_EQ(LocateInTextProto(plain, kSpec, "a.textproto", proto), plain);
  absl::Status absent =
      WithField(absl::InvalidArgumentError("a.textproto: shared"), "dynamic_shared_bytes");
  EXPECT_EQ(LocateInTextProto(absent, kSpec, "a.textproto", proto).message(),
            "a.textproto: shared");
}

TEST(LocateTest, PrefixPlacesANestedMessageAndFilesAreReadAgain) {
  const std::string path = ::testing::TempDir() + "/field_position_trace.textproto";
  {
    std::ofstream f(path);
    f << "format_version: 1\nprogram {\n  ranks: 1000000\n}\n";
  }
  const warpcheck::SignalTrace trace;
  absl::Status s = LocateInTextProtoFile(
      WithField(absl::InvalidArgumentError(path + ": ranks: must be 1..1024"), "ranks"), path,
      trace, "program.");
  EXPECT_EQ(s.message(), path + ":3:3: ranks: must be 1..1024");
  absl::Status unreadable =
      WithField(absl::InvalidArgumentError("gone: ranks: bad"), "ranks");
  EXPECT_EQ(LocateInTextProtoFile(unreadable, "/nonexistent/gone", trace, "program."),
            unreadable);
}

}  // namespace
}  // namespace warpcheck::sim::base
