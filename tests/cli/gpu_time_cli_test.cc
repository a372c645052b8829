// `warpcheck gpu time` (tools/warpcheck/gpu_time_command.h) where no GPU is needed: its
// argument errors, input errors found before the GPU is asked for, and the no-GPU answer.
// The timed run itself is the `gpu`-labelled ctest gpu_time_cli (tests/gpu).
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/exit_code.h"
#ifdef WARPCHECK_WITH_CUDA
#include "tools/gpu/gpu_runner.h"
#endif

namespace warpcheck::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::RunCli;
using testing::TempPath;

std::string Triton(const std::string& name) {
  return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/triton/" + name;
}

TEST(GpuTimeCliTest, HelpNamesTheOptions) {
  Result r = RunCli({"gpu", "time", "--help"});
  EXPECT_EQ(r.code, kExitOk);
  for (const char* flag :
       {"--warmup=N", "--reps=N", "--iters=N", "--grid-x=N", "--format"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
  EXPECT_THAT(RunCli({"help"}).out, HasSubstr("gpu time"));
}

TEST(GpuTimeCliTest, ArgumentErrorsAreUsageErrorsSayingWhich) {
  const std::string spec = Triton("lit_l1549_16x16_i32_w1.textproto");
  struct Case {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{"gpu", "time"}, "expected one or more LAUNCH.textproto"},
      {{"gpu", "time", spec, "--reps=0"}, "--reps=0"},
      {{"gpu", "time", spec, "--iters=0"}, "--iters=0"},
      {{"gpu", "time", spec, "--grid-x=-3"}, "--grid-x=-3"},
      {{"gpu", "time", spec, "--warmup=x"}, "--warmup=x"},
      {{"gpu", "time", spec, "--reps=4294967296"}, "--reps=4294967296"},
      {{"gpu", "time", spec, "--format=xml"}, "xml"},
      {{"gpu", "time", spec, "--time"}, "--time"},
      {{"gpu", "time", spec, "--reps"}, "--reps"},
  };
  for (const Case& c : cases) {
    Result r = RunCli(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.message << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
  }
}

#ifdef WARPCHECK_WITH_CUDA

// A spec that cannot be read, or is not a round-trip harness (no single u32 `iters`),
// is an input error on any machine, named in the message.
TEST(GpuTimeCliTest, SpecsThatCannotBeTimedAreInputErrorsBeforeTheGpu) {
  Result missing = RunCli({"gpu", "time", "/nonexistent/a.textproto"});
  EXPECT_EQ(missing.code, kExitInputError) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/a.textproto"));

  const std::string path = TempPath("two_u32.textproto");
  {
    std::ofstream f(path);
    f << "ptx_file: \"" << Triton("lit_l1549_16x16_i32_w1.ptx") << "\"\n"
      << "grid { x: 1 } block { x: 32 }\n"
      << "param { buffer { name: \"in\" size_bytes: 1024 fill: IOTA\n"
      << "                 element_bytes: 4 } }\n"
      << "param { buffer { name: \"out\" size_bytes: 1024 fill: POISON } }\n"
      << "param { u32: 1 } param { u32: 2 } param { null_ptr {} }\n";
  }
  Result two = RunCli({"gpu", "time", Triton("lit_l1549_16x16_i32_w1.textproto"), path});
  std::filesystem::remove(path);
  EXPECT_EQ(two.code, kExitInputError) << two.err;
  EXPECT_THAT(two.err, HasSubstr("has 2 u32 parameters"));
}

// Without a GPU: exit 77 (skip) with the reason; with one: both kernels timed, the first
// the reference of the ratios.
TEST(GpuTimeCliTest, NoGpuIsASkipWithTheReasonElseBothAreTimed) {
  Result r = RunCli({"gpu", "time", Triton("lit_l1549_16x16_i32_w1.textproto"),
                     Triton("cvt2d_l0037_64x64_f16_w4.textproto"), "--grid-x=132",
                     "--iters=20", "--warmup=1", "--reps=3", "--format=json"});
  if (!gpu::GpuAvailable().ok()) {
    EXPECT_EQ(r.code, kExitSkip) << r.err;
    EXPECT_THAT(r.err, HasSubstr("gpu time: no usable GPU"));
    EXPECT_EQ(r.out, "");
    return;
  }
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const GpuTimeReport& t = r.report.gpu_time();
  ASSERT_EQ(t.kernels_size(), 2);
  EXPECT_EQ(t.reps(), 3u);
  EXPECT_EQ(t.kernels(0).ratio_to_first(), 1.0);
  EXPECT_EQ(t.kernels(1).samples_ns_size(), 3);
  EXPECT_LE(t.kernels(1).min_ns(), t.kernels(1).median_ns());
  EXPECT_THAT(r.out, HasSubstr("\"gpu_time\""));
}

#else

TEST(GpuTimeCliTest, WithoutCudaItSaysSo) {
  Result r = RunCli({"gpu", "time", Triton("lit_l1549_16x16_i32_w1.textproto")});
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_THAT(r.err, HasSubstr("built without the CUDA Toolkit"));
}

#endif

}  // namespace
}  // namespace warpcheck::cli
