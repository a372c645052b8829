// The GPU runner's timing mode without a GPU (label `unit`): arguments, spec overrides,
// statistics and the JSON line (tools/gpu/gpu_timing.h). The timed runs themselves are in
// gpu_runner_test (label `gpu`).
#include "tools/gpu/gpu_timing.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<GpuRunArgs> Parse(std::vector<std::string> args) {
  return ParseGpuRunArgs(args);
}

TEST(ParseGpuRunArgsTest, PlainRunKeepsItsFlags) {
  ASSERT_OK_AND_ASSIGN(GpuRunArgs a,
                       Parse({"--dump-dir", "/tmp/d", "a.textproto", "b.textproto"}));
  EXPECT_FALSE(a.time);
  EXPECT_EQ(a.dump_dir, "/tmp/d");
  EXPECT_THAT(a.files, ElementsAre("a.textproto", "b.textproto"));
  ASSERT_OK_AND_ASSIGN(a, Parse({"--dump-dir=/x", "a.textproto"}));
  EXPECT_EQ(a.dump_dir, "/x");
}

TEST(ParseGpuRunArgsTest, TimeDefaults) {
  ASSERT_OK_AND_ASSIGN(GpuRunArgs a,
                       Parse({"--time", "ours.textproto", "triton.textproto"}));
  EXPECT_TRUE(a.time);
  EXPECT_EQ(a.timing.grid_x, 528u);
  EXPECT_EQ(a.timing.iters, 2000u);
  EXPECT_EQ(a.timing.warmup, 5u);
  EXPECT_EQ(a.timing.reps, 20u);
  EXPECT_EQ(a.timing.min_ms, 50u);
  EXPECT_THAT(a.files, ElementsAre("ours.textproto", "triton.textproto"));
}

TEST(ParseGpuRunArgsTest, TimeFlagsInBothForms) {
  ASSERT_OK_AND_ASSIGN(GpuRunArgs a,
                       Parse({"a.textproto", "--grid-x=132", "--time", "--iters", "7",
                              "--warmup=0", "--reps", "3", "--min-ms=0"}));
  EXPECT_TRUE(a.time);
  EXPECT_EQ(a.timing.grid_x, 132u);
  EXPECT_EQ(a.timing.iters, 7u);
  EXPECT_EQ(a.timing.warmup, 0u);
  EXPECT_EQ(a.timing.reps, 3u);
  EXPECT_EQ(a.timing.min_ms, 0u);
  EXPECT_THAT(a.files, ElementsAre("a.textproto"));
}

// Each spec decides alone: a short kernel takes samples past `reps` until it has min_ms,
// a long one stops at `reps` whatever the others do; nothing passes
// max(reps, kMaxTimedRounds).
TEST(WantsAnotherSampleTest, RepsThenMinimumTimeThenCap) {
  TimingOptions o;
  o.reps = 20;
  o.min_ms = 50;
  EXPECT_TRUE(WantsAnotherSample(o, 0, 0.0));
  EXPECT_TRUE(WantsAnotherSample(o, 19, 700.0));    // reps first, however long
  EXPECT_FALSE(WantsAnotherSample(o, 20, 700.0));   // a 35 ms kernel: done at reps
  EXPECT_FALSE(WantsAnotherSample(o, 20, 50.0));
  EXPECT_TRUE(WantsAnotherSample(o, 20, 0.1));      // a 5 us kernel: keeps going
  EXPECT_TRUE(WantsAnotherSample(o, kMaxTimedRounds - 1, 49.9));
  EXPECT_FALSE(WantsAnotherSample(o, kMaxTimedRounds, 49.9));
  o.min_ms = 0;
  EXPECT_FALSE(WantsAnotherSample(o, 20, 0.0));
  o.reps = kMaxTimedRounds + 5;
  EXPECT_TRUE(WantsAnotherSample(o, kMaxTimedRounds + 4, 0.0));
  EXPECT_FALSE(WantsAnotherSample(o, kMaxTimedRounds + 5, 0.0));
}

TEST(ParseGpuRunArgsTest, HelpNeedsNoFiles) {
  ASSERT_OK_AND_ASSIGN(GpuRunArgs a, Parse({"--help"}));
  EXPECT_TRUE(a.help);
}

TEST(ParseGpuRunArgsTest, Errors) {
  using absl::StatusCode;
  EXPECT_THAT(Parse({}), StatusIs(StatusCode::kInvalidArgument, "expected one or more"));
  EXPECT_THAT(Parse({"--time"}),
              StatusIs(StatusCode::kInvalidArgument, "expected one or more"));
  EXPECT_THAT(Parse({"--bogus", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "unknown flag --bogus"));
  EXPECT_THAT(Parse({"-x", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "unknown flag -x"));
  EXPECT_THAT(Parse({"--time", "--iters=0", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "--iters=0: expected a positive"));
  EXPECT_THAT(Parse({"--time", "--reps=many", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "--reps=many"));
  EXPECT_THAT(Parse({"--time", "--grid-x=-1", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "--grid-x=-1"));
  EXPECT_THAT(Parse({"--time", "--warmup=4294967296", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "below 2^32"));
  EXPECT_THAT(Parse({"--time", "a", "--iters"}),
              StatusIs(StatusCode::kInvalidArgument, "--iters needs a value"));
  EXPECT_THAT(Parse({"--iters=5", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "only apply with --time"));
  EXPECT_THAT(Parse({"--time", "--dump-dir=/d", "a"}),
              StatusIs(StatusCode::kInvalidArgument, "--dump-dir does not apply"));
}

LaunchSpec SpecFromText(const std::string& text) {
  LaunchSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

// A corpus/triton spec: kernel(in, out, u32 iters, null, null).
constexpr char kRoundTrip[] = R"(
ptx_file: "k.ptx"
grid { x: 1 }
block { x: 128 }
dynamic_shared_bytes: 2048
param { buffer { name: "in" size_bytes: 8192 fill: IOTA element_bytes: 2 } }
param { buffer { name: "out" size_bytes: 8192 fill: POISON } }
param { u32: 1 }
param { null_ptr {} }
param { null_ptr {} }
expect { buffers_equal { a: "in" b: "out" } }
)";

TEST(TimedSpecTest, OverridesGridAndIters) {
  LaunchSpec spec = SpecFromText(kRoundTrip);
  ASSERT_OK_AND_ASSIGN(int index, ItersParamIndex(spec, "k.textproto"));
  EXPECT_EQ(index, 2);
  ASSERT_OK_AND_ASSIGN(LaunchSpec timed, TimedSpec(spec, "k.textproto", 528, 2000));
  EXPECT_EQ(timed.grid().x(), 528u);
  EXPECT_EQ(timed.param(2).u32(), 2000u);
  // Everything else as it was.
  LaunchSpec back = timed;
  back.mutable_grid()->set_x(1);
  back.mutable_param(2)->set_u32(1);
  EXPECT_EQ(back.SerializeAsString(), spec.SerializeAsString());
}

TEST(TimedSpecTest, NeedsExactlyOneU32) {
  LaunchSpec none = SpecFromText(kRoundTrip);
  none.mutable_param()->DeleteSubrange(2, 1);
  EXPECT_THAT(
      TimedSpec(none, "none.textproto", 528, 2000),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "none.textproto: --time sets the kernel's u32 `iters` parameter, but "
               "the spec has 0 u32 parameters"));
  LaunchSpec two = SpecFromText(kRoundTrip);
  two.add_param()->set_u32(3);
  EXPECT_THAT(ItersParamIndex(two, "two.textproto"),
              StatusIs(absl::StatusCode::kInvalidArgument, "has 2 u32 parameters"));
}

TEST(SummarizeTest, MedianMinMax) {
  TimingStats odd = Summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.median_ms, 2.0);
  EXPECT_EQ(odd.min_ms, 1.0);
  EXPECT_EQ(odd.max_ms, 3.0);
  TimingStats even = Summarize({4.0, 1.0, 2.0, 10.0});
  EXPECT_EQ(even.median_ms, 3.0);
  EXPECT_EQ(even.min_ms, 1.0);
  EXPECT_EQ(even.max_ms, 10.0);
  EXPECT_DOUBLE_EQ(even.mean_ms, 4.25);
  TimingStats one = Summarize({0.5});
  EXPECT_EQ(one.median_ms, 0.5);
  EXPECT_EQ(one.mean_ms, 0.5);
}

// `warpcheck gpu time`'s report: ns of one launch, and each kernel's median over the
// first kernel's; a kernel that could not be timed keeps only its file and error.
TEST(ToGpuTimeReportTest, NanosecondsAndRatioToTheFirst) {
  TimingOptions options;
  options.iters = 100;
  options.reps = 3;
  std::vector<TimingResult> results(4);
  results[0].file = "a";
  results[0].device = "H200";
  results[0].options = options;
  results[0].samples_ms = {0.002, 0.001, 0.003};
  results[0].check.set_ok(true);
  results[1].file = "b";
  results[1].error = "b: cannot read file";
  results[2].file = "c";
  results[2].options = options;
  results[2].samples_ms = {0.004, 0.005, 0.009};
  results[3].file = "d";  // faulted while timed: no samples
  results[3].options = options;
  GpuTimeReport r = ToGpuTimeReport(results, options);
  EXPECT_EQ(r.device(), "H200");
  EXPECT_EQ(r.iters(), 100u);
  EXPECT_EQ(r.reps(), 3u);
  ASSERT_EQ(r.kernels_size(), 4);
  EXPECT_DOUBLE_EQ(r.kernels(0).median_ns(), 2000);
  EXPECT_DOUBLE_EQ(r.kernels(0).min_ns(), 1000);
  EXPECT_DOUBLE_EQ(r.kernels(0).mean_ns(), 2000);
  EXPECT_DOUBLE_EQ(r.kernels(0).ns_per_round_trip(), 20);
  EXPECT_DOUBLE_EQ(r.kernels(0).ratio_to_first(), 1);
  EXPECT_TRUE(r.kernels(0).ok());
  EXPECT_EQ(r.kernels(0).samples_ns_size(), 3);
  EXPECT_EQ(r.kernels(1).error(), "b: cannot read file");
  EXPECT_EQ(r.kernels(1).median_ns(), 0);
  EXPECT_DOUBLE_EQ(r.kernels(2).median_ns(), 5000);
  EXPECT_DOUBLE_EQ(r.kernels(2).mean_ns(), 6000);
  EXPECT_DOUBLE_EQ(r.kernels(2).ratio_to_first(), 2.5);
  EXPECT_FALSE(r.kernels(2).ok());
  EXPECT_EQ(r.kernels(3).median_ns(), 0);
  EXPECT_EQ(r.kernels(3).ratio_to_first(), 0);
}

// The JSON line parsed back as a google.protobuf.Struct (so it is valid JSON).
google::protobuf::Struct ParseJson(const std::string& json) {
  google::protobuf::Struct s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &s).ok()) << json;
  EXPECT_EQ(json.find('\n'), std::string::npos);
  return s;
}

TEST(TimingJsonTest, Timed) {
  TimingResult r;
  r.file = "pairs/ours/a \"b\".textproto";
  r.device = "NVIDIA H200 (sm_90), driver 13.0";
  r.grid_x = 528;
  r.block_x = 128;
  r.options.iters = 2000;
  r.options.reps = 4;
  r.samples_ms = {1.5, 1.0, 2.0, 1.25};
  r.check.set_ok(true);
  SimBuffer* b = r.check.add_buffers();
  b->set_name("in");
  b->set_sha256("ab");
  const auto f = ParseJson(TimingJson(r)).fields();
  EXPECT_EQ(f.at("file").string_value(), r.file);
  EXPECT_EQ(f.at("device").string_value(), r.device);
  EXPECT_EQ(f.at("grid_x").number_value(), 528);
  EXPECT_EQ(f.at("block_x").number_value(), 128);
  EXPECT_EQ(f.at("iters").number_value(), 2000);
  EXPECT_EQ(f.at("warmup").number_value(), 5);
  EXPECT_EQ(f.at("reps").number_value(), 4);
  EXPECT_EQ(f.at("min_total_ms").number_value(), 50);
  EXPECT_EQ(f.at("timed").number_value(), 4);
  EXPECT_DOUBLE_EQ(f.at("median_ms").number_value(), 1.375);
  EXPECT_DOUBLE_EQ(f.at("min_ms").number_value(), 1.0);
  EXPECT_DOUBLE_EQ(f.at("max_ms").number_value(), 2.0);
  EXPECT_DOUBLE_EQ(f.at("ns_per_round_trip").number_value(), 687.5);  // 1.375e6 / 2000
  EXPECT_EQ(f.at("samples_ms").list_value().values_size(), 4);
  EXPECT_EQ(f.at("samples_ms").list_value().values(0).number_value(), 1.5);
  EXPECT_TRUE(f.at("ok").bool_value());
  EXPECT_EQ(f.count("buffers_from"), 0u);  // timed on its own buffers
  r.buffers_from = "pairs/triton/a.textproto";
  EXPECT_EQ(ParseJson(TimingJson(r)).fields().at("buffers_from").string_value(),
            r.buffers_from);
  const auto check = f.at("check").struct_value().fields();
  EXPECT_TRUE(check.at("ok").bool_value());
  EXPECT_EQ(check.at("buffers")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("sha256")
                .string_value(),
            "ab");
}

TEST(TimingJsonTest, FaultedWhileTimingHasNoStatistics) {
  TimingResult r;
  r.file = "a.textproto";
  r.options.iters = 2000;
  r.check.set_ok(false);
  SimFault* fault = r.check.add_faults();
  fault->set_kind("cuda_error");
  fault->set_text("CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address");
  const auto f = ParseJson(TimingJson(r)).fields();
  EXPECT_EQ(f.count("median_ms"), 0u);
  EXPECT_EQ(f.count("ns_per_round_trip"), 0u);
  EXPECT_EQ(f.at("samples_ms").list_value().values_size(), 0);
  EXPECT_FALSE(f.at("ok").bool_value());
  EXPECT_EQ(f.at("check")
                .struct_value()
                .fields()
                .at("faults")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("kind")
                .string_value(),
            "cuda_error");
}

TEST(TimingJsonTest, Error) {
  TimingResult r;
  r.file = "x.textproto";
  r.error = "INVALID_ARGUMENT: x.textproto: no u32";
  r.samples_ms = {1.0};  // ignored: an error line has only file and error
  const auto f = ParseJson(TimingJson(r)).fields();
  EXPECT_EQ(f.size(), 2u);
  EXPECT_EQ(f.at("file").string_value(), "x.textproto");
  EXPECT_THAT(f.at("error").string_value(), HasSubstr("no u32"));
}

}  // namespace
}  // namespace warpcheck::gpu
