// The global-store watch behind `warpcheck gpu diff`'s attribution: which thread and
// register wrote a given byte of a buffer.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/machine/launch.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSpec = std::string(WARPCHECK_SOURCE_DIR) +
                          "/corpus/triton/cvt1d_l0687_128_i32_w4.textproto";

TEST(MachineWatchTest, NamesTheStoringThreadAndRegister) {
  // 128 x i32; the kernel stores 4 consecutive elements per thread with one
  // st.global.v4.b32, so element 37 (bytes 148..151) is element 37 % 4 = 1 of thread
  // 37 / 4 = 9's vector, i.e. its second register.
  RunOptions options;
  options.watch_buffer = "out";
  options.watch_offset = 37 * 4 + 2;
  ASSERT_OK_AND_ASSIGN(LaunchResult r, RunLaunchSpecFileWithBuffers(kSpec, options));
  EXPECT_THAT(r.watch, HasSubstr("st.global"));
  EXPECT_THAT(r.watch, HasSubstr("thread 9 (warp 0, lane 9)"));
  EXPECT_THAT(r.watch, HasSubstr("element 1 (%r2)"));
  // The same run without a watch reports nothing and produces the same bytes.
  ASSERT_OK_AND_ASSIGN(LaunchResult plain, RunLaunchSpecFileWithBuffers(kSpec, {}));
  EXPECT_THAT(plain.watch, IsEmpty());
  ASSERT_EQ(plain.buffers.size(), r.buffers.size());
  for (size_t i = 0; i < r.buffers.size(); ++i) {
    EXPECT_EQ(plain.buffers[i].bytes, r.buffers[i].bytes);
  }
}

TEST(MachineWatchTest, InputBufferIsNeverStored) {
  RunOptions options;
  options.watch_buffer = "in";
  options.watch_offset = 0;
  ASSERT_OK_AND_ASSIGN(LaunchResult r, RunLaunchSpecFileWithBuffers(kSpec, options));
  EXPECT_THAT(r.watch, IsEmpty());
}

}  // namespace
}  // namespace warpcheck::sim::machine
