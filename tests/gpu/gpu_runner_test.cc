// GPU runner tests (label `gpu`). Exits 77 (ctest SKIP_RETURN_CODE) when there is no CUDA
// driver or device, so they skip cleanly on machines without a GPU.
#include "tools/gpu/gpu_runner.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"
#include "sim/launch/sha256.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::gpu {
namespace {

using ::testing::HasSubstr;

// Three small kernels written by hand for sm_90:
//   reverse_add(in, out, u32 add): out[i] = in[n-1-i] + add through dynamic shared
//     memory and bar.sync (n = block size, u32 elements);
//   write_past(out, u32 size): thread 0 writes one byte at out + size (out of bounds);
//   misaligned(out): every thread loads a u32 from out + 1 (a device fault).
constexpr char kPtx[] = R"(
.version 8.0
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 smem[];

.visible .entry reverse_add(.param .u64 in_ptr, .param .u64 out_ptr, .param .u32 add)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in_ptr];
  ld.param.u64 %rd2, [out_ptr];
  ld.param.u32 %r1, [add];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  add.u32 %r4, %r4, %r1;
  shl.b32 %r5, %r2, 2;
  mov.u32 %r6, smem;
  add.u32 %r7, %r6, %r5;
  st.shared.u32 [%r7], %r4;
  bar.sync 0;
  sub.u32 %r8, %r3, 1;
  sub.u32 %r8, %r8, %r2;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r6, %r8;
  ld.shared.u32 %r9, [%r8];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r9;
  ret;
}

.visible .entry write_past(.param .u64 out_ptr, .param .u32 size)
{
  .reg .pred %p1;
  .reg .b16 %h1;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [out_ptr];
  ld.param.u32 %r2, [size];
  cvta.to.global.u64 %rd1, %rd1;
  cvt.u64.u32 %rd2, %r2;
  add.s64 %rd3, %rd1, %rd2;
  mov.u16 %h1, 1;
  st.global.u8 [%rd3], %h1;
DONE:
  ret;
}

.visible .entry misaligned(.param .u64 out_ptr)
{
  .reg .b32 %r1;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_ptr];
  cvta.to.global.u64 %rd1, %rd1;
  add.s64 %rd2, %rd1, 1;
  ld.global.u32 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

class GpuRunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir();
    if (!dir_.empty() && dir_.back() == '/') dir_.pop_back();
    std::ofstream(dir_ + "/gpu_runner_test.ptx") << kPtx;
  }

  static LaunchSpec ReverseAddSpec(uint32_t add) {
    LaunchSpec spec;
    spec.set_ptx_file("gpu_runner_test.ptx");
    spec.set_kernel("reverse_add");
    spec.mutable_grid()->set_x(1);
    spec.mutable_block()->set_x(64);
    spec.set_dynamic_shared_bytes(64 * 4);
    BufferParam* in = spec.add_param()->mutable_buffer();
    in->set_name("in");
    in->set_size_bytes(64 * 4);
    in->set_fill(BufferParam::IOTA);
    in->set_element_bytes(4);
    BufferParam* out = spec.add_param()->mutable_buffer();
    out->set_name("out");
    out->set_size_bytes(64 * 4);
    out->set_fill(BufferParam::POISON);
    spec.add_param()->set_u32(add);
    Expectation* e = spec.add_expect();
    e->mutable_buffers_equal()->set_a("in");
    e->mutable_buffers_equal()->set_b("out");
    return spec;
  }

  static std::string dir_;
};

std::string GpuRunnerTest::dir_;

uint32_t Word(const std::vector<uint8_t>& bytes, int i) {
  return uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 |
         uint32_t{bytes[4 * i + 2]} << 16 | uint32_t{bytes[4 * i + 3]} << 24;
}

TEST_F(GpuRunnerTest, HandWrittenKernelComputesExactly) {
  ASSERT_OK_AND_ASSIGN(GpuRunResult r, RunOnGpu(ReverseAddSpec(7), dir_));
  EXPECT_THAT(r.device, HasSubstr("sm_"));
  EXPECT_EQ(r.fault_kind, "") << r.fault;
  ASSERT_EQ(r.buffers.size(), 2u);
  EXPECT_EQ(r.buffers[0].name, "in");
  EXPECT_EQ(r.buffers[1].name, "out");
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(Word(r.buffers[0].bytes, i), uint32_t(i));
    EXPECT_EQ(Word(r.buffers[1].bytes, i), uint32_t(63 - i + 7)) << "element " << i;
  }
  // in != out, so the expectation fails and says where.
  ASSERT_EQ(r.expectations.size(), 1u);
  EXPECT_FALSE(r.expectations[0].ok());
  EXPECT_EQ(r.expectations[0].name(), "buffers_equal(in, out)");
  EXPECT_THAT(r.expectations[0].detail(), HasSubstr("first at byte 0: in=0x00 out=0x46"));
  EXPECT_FALSE(r.ok);
}

TEST_F(GpuRunnerTest, HashesAreTheSimulatorsHashes) {
  LaunchSpec spec = ReverseAddSpec(0);
  ASSERT_OK_AND_ASSIGN(GpuRunResult r, RunOnGpu(spec, dir_));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> in,
                       sim::launch::FillBuffer(spec.param(0).buffer(), dir_));
  EXPECT_EQ(r.buffers[0].sha256, sim::launch::Sha256Hex(in));
  EXPECT_EQ(r.buffers[1].sha256, sim::launch::Sha256Hex(r.buffers[1].bytes));
  SimReport report = ToSimReport(r);
  EXPECT_EQ(report.buffers_size(), 2);
  EXPECT_EQ(report.buffers(0).sha256(), sim::launch::Sha256Hex(in));
  EXPECT_EQ(report.ok(), r.ok);
}

TEST_F(GpuRunnerTest, WriteOutsideABufferIsAFault) {
  LaunchSpec spec;
  spec.set_ptx_file("gpu_runner_test.ptx");
  spec.set_kernel("write_past");
  spec.mutable_grid()->set_x(1);
  spec.mutable_block()->set_x(32);
  BufferParam* out = spec.add_param()->mutable_buffer();
  out->set_name("out");
  out->set_size_bytes(100);
  spec.add_param()->set_u32(100);
  ASSERT_OK_AND_ASSIGN(GpuRunResult r, RunOnGpu(spec, dir_));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fault_kind, "out_of_bounds");
  EXPECT_THAT(r.fault, HasSubstr("wrote byte 100"));
}

// A device fault is a result, but it leaves CUDA unusable in the process, so this runs in
// a child process (a "threadsafe" death test re-executes the binary for just this test).
using GpuRunnerDeathTest = GpuRunnerTest;

TEST_F(GpuRunnerDeathTest, DeviceFaultIsAResultAndLaterRunsAreRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  LaunchSpec spec;
  spec.set_ptx_file("gpu_runner_test.ptx");
  spec.set_kernel("misaligned");
  spec.mutable_grid()->set_x(1);
  spec.mutable_block()->set_x(32);
  BufferParam* out = spec.add_param()->mutable_buffer();
  out->set_name("out");
  out->set_size_bytes(64);
  EXPECT_EXIT(
      {
        absl::StatusOr<GpuRunResult> r = RunOnGpu(spec, dir_);
        bool fault_ok = r.ok() && !r->ok && r->fault_kind == "cuda_error" &&
                        r->fault.find("MISALIGNED") != std::string::npos &&
                        GpuContextLost();
        absl::StatusOr<GpuRunResult> again = RunOnGpu(ReverseAddSpec(1), dir_);
        bool refused = again.status().code() == absl::StatusCode::kFailedPrecondition &&
                       again.status().message().find("MISALIGNED") != std::string::npos;
        std::fprintf(stderr, "fault: %s / %s; next run: %s\n",
                     r.ok() ? r->fault_kind.c_str() : r.status().ToString().c_str(),
                     r.ok() ? r->fault.c_str() : "", again.status().ToString().c_str());
        std::exit(fault_ok && refused ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(GpuRunnerTest, InputErrorsAreStatuses) {
  LaunchSpec spec = ReverseAddSpec(0);
  spec.clear_kernel();  // three .entry in the module
  EXPECT_THAT(RunOnGpu(spec, dir_),
              StatusIs(absl::StatusCode::kInvalidArgument, "3 .entry"));
  spec = ReverseAddSpec(0);
  spec.mutable_param()->RemoveLast();  // drop `add`
  EXPECT_THAT(RunOnGpu(spec, dir_),
              StatusIs(absl::StatusCode::kInvalidArgument, "parameters"));
  spec = ReverseAddSpec(0);
  spec.mutable_param(2)->set_u64(0);  // 8 bytes where the kernel has 4
  EXPECT_THAT(RunOnGpu(spec, dir_),
              StatusIs(absl::StatusCode::kInvalidArgument, "4 bytes"));
  spec = ReverseAddSpec(0);
  spec.set_ptx_file("no_such.ptx");
  EXPECT_THAT(RunOnGpu(spec, dir_), StatusIs(absl::StatusCode::kNotFound, "no_such.ptx"));
  std::ofstream(dir_ + "/bad.ptx")
      << ".version 8.0\n.target sm_90\n.address_size 64\nbogus;\n";
  spec.set_ptx_file("bad.ptx");
  EXPECT_THAT(RunOnGpu(spec, dir_),
              StatusIs(absl::StatusCode::kInvalidArgument, "the driver rejects the PTX"));
}

// Triton's own PTX from the corpus, one per lowering path: the round trip must be exact.
TEST_F(GpuRunnerTest, TritonCorpusKernelsRoundTrip) {
  const char* env_root = std::getenv("WARPCHECK_SOURCE_DIR");  // set by ctest
  const std::string root =
      std::string(env_root != nullptr ? env_root : WARPCHECK_SOURCE_DIR) +
      "/corpus/triton/";
  for (const char* name : {"lit_l1549_16x16_i32_w1",       // shuffle
                           "lit_l1552_32x32_f32_w4",       // st/ld.shared
                           "cvt2d_l0037_64x64_f16_w4",     // stmatrix/ldmatrix
                           "bug_l1554_16x8_f8e5m2_w1"}) {  // 8-bit prmt packing
    SCOPED_TRACE(name);
    std::string path = root + name + ".textproto";
    if (!std::ifstream(path)) {
      ADD_FAILURE() << "missing corpus file " << path;
      continue;
    }
    ASSERT_OK_AND_ASSIGN(GpuRunResult r, RunLaunchFileOnGpu(path));
    EXPECT_TRUE(r.ok) << r.fault
                      << (r.expectations.empty() ? "" : r.expectations[0].detail());
    ASSERT_EQ(r.buffers.size(), 2u);
    EXPECT_EQ(r.buffers[0].sha256, r.buffers[1].sha256);
  }
}

// The timing input of corpus/triton/<name>.textproto.
absl::StatusOr<TimingInput> CorpusTimingInput(const std::string& name) {
  const char* env_root = std::getenv("WARPCHECK_SOURCE_DIR");  // set by ctest
  const std::string path = std::string(env_root != nullptr ? env_root : WARPCHECK_SOURCE_DIR) +
                           "/corpus/triton/" + name + ".textproto";
  ASSIGN_OR_RETURN(LaunchSpec spec, sim::launch::LoadLaunchSpec(path));
  return TimingInput{path, spec, sim::launch::SpecDir(path)};
}

// Timing mode: two corpus kernels interleaved, plus one spec that cannot run (its PTX is
// missing), which must not stop the others.
TEST_F(GpuRunnerTest, TimeOnGpuInterleavesAndChecks) {
  std::vector<TimingInput> inputs;
  for (const char* name : {"lit_l1549_16x16_i32_w1", "cvt2d_l0037_64x64_f16_w4"}) {
    ASSERT_OK_AND_ASSIGN(TimingInput input, CorpusTimingInput(name));
    inputs.push_back(std::move(input));
  }
  TimingInput missing = inputs[0];
  missing.file = "missing.textproto";
  missing.spec.set_ptx_file("no_such.ptx");
  inputs.insert(inputs.begin() + 1, missing);
  TimingOptions options;
  options.grid_x = 132;
  options.iters = 100;
  options.warmup = 1;
  options.reps = 3;
  options.min_ms = 0;  // exactly `reps` samples (the default adds rounds up to 50 ms)
  ASSERT_OK_AND_ASSIGN(std::vector<TimingResult> results, TimeOnGpu(inputs, options));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_THAT(results[1].error, HasSubstr("no_such.ptx"));
  for (size_t i : {size_t{0}, size_t{2}}) {
    const TimingResult& r = results[i];
    SCOPED_TRACE(r.file);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.grid_x, 132u);
    ASSERT_EQ(r.samples_ms.size(), 3u);
    for (double ms : r.samples_ms) EXPECT_GT(ms, 0);
    EXPECT_TRUE(r.check.ok());
    ASSERT_EQ(r.check.buffers_size(), 2);
    EXPECT_EQ(r.check.buffers(0).sha256(), r.check.buffers(1).sha256());  // out == in
  }
}

// Specs with the same buffers are timed on the first one's (the second says whose) and
// still checked on their own: the check's buffers hold what that spec's own launch
// wrote. A spec with other buffers keeps its own.
TEST_F(GpuRunnerTest, TimeOnGpuSharesBuffersOfTheSameShapeAndChecksOnItsOwn) {
  std::vector<TimingInput> inputs;
  for (const char* name : {"cvt2d_l0037_64x64_f16_w4", "lit_l1549_16x16_i32_w1",
                           "cvt2d_l0037_64x64_f16_w4"}) {
    ASSERT_OK_AND_ASSIGN(TimingInput input, CorpusTimingInput(name));
    inputs.push_back(std::move(input));
  }
  inputs[2].file = "second copy";
  TimingOptions options;
  options.grid_x = 132;
  options.iters = 100;
  options.warmup = 1;
  options.reps = 3;
  options.min_ms = 0;  // exactly `reps` samples (the default adds rounds up to 50 ms)
  ASSERT_OK_AND_ASSIGN(std::vector<TimingResult> results, TimeOnGpu(inputs, options));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].buffers_from, "");
  EXPECT_EQ(results[1].buffers_from, "");  // other sizes
  EXPECT_EQ(results[2].buffers_from, inputs[0].file);
  EXPECT_THAT(TimingJson(results[2]), HasSubstr("\"buffers_from\": "));
  for (const TimingResult& r : results) {
    SCOPED_TRACE(r.file);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.samples_ms.size(), 3u);
    EXPECT_TRUE(r.check.ok());
    ASSERT_EQ(r.check.buffers_size(), 2);
    EXPECT_EQ(r.check.buffers(0).sha256(), r.check.buffers(1).sha256());  // out == in
  }
}

}  // namespace
}  // namespace warpcheck::gpu

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (absl::Status s = warpcheck::gpu::GpuAvailable(); !s.ok()) {
    std::fprintf(stderr, "gpu_runner_test: skipped: %s\n",
                 std::string(s.message()).c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
