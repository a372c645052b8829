#include "sim/launch/launch_spec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::launch {
namespace {

using ::testing::HasSubstr;

constexpr char kSpec[] = R"pb(
  # proto-file: proto/launch.proto
  # proto-message: warpcheck.LaunchSpec
  ptx_file: "kernel.ptx"
  kernel: "kernel"
  grid { x: 1 }
  block { x: 128 }
  dynamic_shared_bytes: 16384
  param { buffer { name: "in" size_bytes: 8192 fill: IOTA element_bytes: 2 } }
  param { buffer { name: "out" size_bytes: 8192 fill: POISON } }
  param { u32: 1 }
  param { null_ptr {} }
  param { null_ptr {} }
  expect { buffers_equal { a: "in" b: "out" } }
)pb";

TEST(LaunchSpecTest, ParsesTheContractExample) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec spec, ParseLaunchSpec(kSpec, "x.textproto"));
  EXPECT_EQ(spec.param_size(), 5);
  EXPECT_EQ(DimOr1(spec.grid().y()), 1u);
  EXPECT_EQ(spec.block().x(), 128u);
  EXPECT_EQ(ExpectationName(spec.expect(0)), "buffers_equal(in, out)");
}

TEST(LaunchSpecTest, ParseErrorsCarryFileLineColumn) {
  EXPECT_THAT(ParseLaunchSpec("ptx_file: \"k.ptx\"\nblok { x: 1 }\n", "a.textproto"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "a.textproto:2:6: Message type \"warpcheck.LaunchSpec\" has no "
                       "field named \"blok\""));
}

TEST(LaunchSpecTest, ValidationRejectsBadSpecs) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec good, ParseLaunchSpec(kSpec, "x"));
  LaunchSpec s = good;
  s.mutable_param(1)->mutable_buffer()->set_name("in");
  EXPECT_THAT(ValidateLaunchSpec(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "used twice"));
  s = good;
  s.mutable_expect(0)->mutable_buffers_equal()->set_b("nope");
  EXPECT_THAT(ValidateLaunchSpec(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "\"nope\""));
  s = good;
  s.mutable_block()->set_x(2048);
  EXPECT_THAT(ValidateLaunchSpec(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "1024"));
  s = good;
  s.mutable_param(0)->mutable_buffer()->set_size_bytes(8191);
  EXPECT_THAT(ValidateLaunchSpec(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "multiple"));
  s = good;
  s.add_param();
  EXPECT_THAT(ValidateLaunchSpec(s),
              StatusIs(absl::StatusCode::kInvalidArgument, "no kind"));
}

TEST(LaunchSpecTest, EvaluatesBuffersEqual) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec spec, ParseLaunchSpec(kSpec, "x"));
  std::vector<NamedBuffer> same = {{"in", {1, 2, 3}}, {"out", {1, 2, 3}}};
  std::vector<SimExpectationResult> r = EvaluateExpectations(spec, same);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].ok());
  EXPECT_EQ(r[0].name(), "buffers_equal(in, out)");

  std::vector<NamedBuffer> differ = {{"in", {1, 2, 3}}, {"out", {1, 0xA5, 0xA5}}};
  r = EvaluateExpectations(spec, differ);
  EXPECT_FALSE(r[0].ok());
  EXPECT_THAT(r[0].detail(),
              HasSubstr("2 of 3 bytes differ; first at byte 1: in=0x02 out=0xa5"));

  std::vector<NamedBuffer> missing = {{"in", {1}}};
  EXPECT_FALSE(EvaluateExpectations(spec, missing)[0].ok());
}

TEST(LaunchSpecTest, JudgeRunHashesBuffersAndFoldsTheVerdict) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec spec, ParseLaunchSpec(kSpec, "x"));
  std::vector<NamedBuffer> same = {{"in", {}}, {"out", {}}};
  RunVerdict v = JudgeRun(spec, same, /*faulted=*/false);
  ASSERT_EQ(v.buffers.size(), 2u);
  EXPECT_EQ(v.buffers[1].name(), "out");
  // SHA-256 of the empty string.
  EXPECT_EQ(v.buffers[1].sha256(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  ASSERT_EQ(v.expectations.size(), 1u);
  EXPECT_TRUE(v.ok);
  EXPECT_FALSE(JudgeRun(spec, same, /*faulted=*/true).ok);
  std::vector<NamedBuffer> differ = {{"in", {1}}, {"out", {2}}};
  EXPECT_FALSE(JudgeRun(spec, differ, /*faulted=*/false).ok);
}

TEST(LaunchSpecTest, JudgeRunWithoutHashingKeepsNamesAndVerdict) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec spec, ParseLaunchSpec(kSpec, "x"));
  std::vector<NamedBuffer> same = {{"in", {7}}, {"out", {7}}};
  RunVerdict v = JudgeRun(spec, same, /*faulted=*/false, /*hash_buffers=*/false);
  ASSERT_EQ(v.buffers.size(), 2u);
  EXPECT_EQ(v.buffers[0].name(), "in");
  EXPECT_TRUE(v.buffers[0].sha256().empty());
  EXPECT_TRUE(v.ok);
  std::vector<NamedBuffer> differ = {{"in", {1}}, {"out", {2}}};
  RunVerdict d = JudgeRun(spec, differ, /*faulted=*/false, /*hash_buffers=*/false);
  EXPECT_FALSE(d.ok);
  ASSERT_EQ(d.expectations.size(), 1u);
  EXPECT_EQ(d.expectations[0].detail(),
            JudgeRun(spec, differ, /*faulted=*/false).expectations[0].detail());
}

TEST(LaunchSpecTest, EncodeParamGivesTheKernelsBytes) {
  Param p;
  p.set_s32(-1);
  EXPECT_EQ(EncodeParam(p, 0).bits, 0xFFFFFFFFu);
  EXPECT_EQ(EncodeParam(p, 0).size, 4u);
  p.set_f32(1.0f);
  EXPECT_EQ(EncodeParam(p, 0).bits, 0x3F800000u);
  p.set_s64(-2);
  EXPECT_EQ(EncodeParam(p, 0).bits, ~uint64_t{1});
  EXPECT_EQ(EncodeParam(p, 0).size, 8u);
  p.mutable_buffer()->set_name("in");
  EXPECT_EQ(EncodeParam(p, 0x1000).bits, 0x1000u);
  EXPECT_EQ(EncodeParam(p, 0x1000).size, 8u);
  p.mutable_null_ptr();
  EXPECT_EQ(EncodeParam(p, 0x1000).bits, 0u);
  EXPECT_EQ(EncodeParam(Param{}, 0).size, 0u);
}

TEST(LaunchSpecTest, SpecDirAndFirstDifference) {
  EXPECT_EQ(SpecDir("corpus/triton/a.textproto"), "corpus/triton");
  EXPECT_EQ(SpecDir("a.textproto"), "");
  EXPECT_EQ(SpecDir("/a.textproto"), "/");
  std::vector<uint8_t> a = {1, 2}, b = {1, 2}, c = {1, 2, 3};
  EXPECT_EQ(FirstDifference(a, b), -1);
  EXPECT_EQ(FirstDifference(a, c), 2);
  // Long equal prefixes (compared with memcmp first), a difference in the last byte,
  // and one buffer a prefix of the other.
  std::vector<uint8_t> big(5000, 0x5A), big2 = big;
  EXPECT_EQ(FirstDifference(big, big2), -1);
  big2.back() = 0;
  EXPECT_EQ(FirstDifference(big, big2), 4999);
  std::vector<uint8_t> shorter(big.begin(), big.begin() + 4000);
  EXPECT_EQ(FirstDifference(big, shorter), 4000);
  EXPECT_EQ(FirstDifference(shorter, big), 4000);
}

TEST(LaunchSpecTest, CompareBuffersByName) {
  std::vector<NamedBuffer> gpu = {{"in", {1, 2, 3}}, {"out", {1, 2, 3}}};
  std::vector<NamedBuffer> sim = {
      {"out", {1, 9, 3, 4}}, {"in", {1, 2, 3}}, {"extra", {}}};
  std::vector<BufferComparison> c = CompareBuffers(gpu, sim);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name, "in");
  EXPECT_TRUE(c[0].equal);
  EXPECT_EQ(c[0].sha256_a, c[0].sha256_b);
  EXPECT_EQ(c[1].name, "out");
  EXPECT_FALSE(c[1].equal);
  EXPECT_EQ(c[1].first_difference, 1);
  EXPECT_EQ(c[1].differing_bytes, 2u);  // byte 1, and the extra byte
  EXPECT_NE(c[1].sha256_a, c[1].sha256_b);
  EXPECT_EQ(c[2].name, "extra");
  EXPECT_FALSE(c[2].equal);
  EXPECT_EQ(c[2].sha256_a, "");
}

}  // namespace
}  // namespace warpcheck::sim::launch
