// Launch specs end to end: parsing with positions, parameter checks, buffer fills,
// SHA-256, expectations, exit codes, traces, determinism, multi-CTA scheduling.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "sim/launch/buffer_fill.h"
#include "sim/machine/launch.h"
#include "tests/sim/machine/machine_test_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

using ::testing::HasSubstr;

std::string SourceDir() {
  const char* env = std::getenv("WARPCHECK_SOURCE_DIR");
  return env != nullptr ? env : WARPCHECK_SOURCE_DIR;
}
std::string Sample(const std::string& name) {
  return SourceDir() + "/tests/sim/machine/testdata/" + name;
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("warpcheck_launch_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(n_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
  static inline int n_ = 0;
};

// A copy kernel: out[i] = in[i] for 4-byte words, one per thread.
constexpr char kCopyPtx[] = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry copy(.param .u64 out_ptr, .param .u64 in_ptr, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd0, [out_ptr];
  ld.param.u64 %rd1, [in_ptr];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r2, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r5, [%rd3];
  add.s64 %rd4, %rd0, %rd2;
  st.global.u32 [%rd4], %r5;
DONE:
  ret;
}
)";

std::string CopySpec(int n, int grid, int block, const std::string& extra = "") {
  return absl::StrCat(
      "# proto-file: proto/launch.proto\n# proto-message: warpcheck.LaunchSpec\n"
      "ptx_file: \"copy.ptx\"\n"
      "grid { x: ",
      grid, " }\nblock { x: ", block,
      " }\n"
      "param { buffer { name: \"out\" size_bytes: ",
      4 * n,
      " fill: POISON } }\n"
      "param { buffer { name: \"in\" size_bytes: ",
      4 * n,
      " fill: RANDOM seed: 3 } }\n"
      "param { u32: ",
      n,
      " }\n"
      "expect { buffers_equal { a: \"in\" b: \"out\" } }\n",
      extra);
}

TEST(MachineLaunchTest, CopyKernelAcrossCtas) {
  TempDir dir;
  dir.Write("copy.ptx", kCopyPtx);
  std::string spec = dir.Write("copy.textproto", CopySpec(1000, 8, 128));
  ASSERT_OK_AND_ASSIGN(LaunchResult r, RunLaunchSpecFileWithBuffers(spec, RunOptions{}));
  EXPECT_TRUE(r.report.ok());
  ASSERT_EQ(r.report.buffers_size(), 2);
  EXPECT_EQ(r.report.buffers(0).name(), "out");
  EXPECT_EQ(r.report.buffers(0).sha256(), r.report.buffers(1).sha256());
  EXPECT_EQ(r.buffers[0].bytes, r.buffers[1].bytes);
  EXPECT_EQ(r.report.counters().at("global_bytes.load"), 4000);
  // Fewer resident CTAs than the grid: same result.
  RunOptions one;
  one.max_resident_ctas = 1;
  ASSERT_OK_AND_ASSIGN(SimReport r1, RunLaunchSpecFile(spec, one));
  EXPECT_TRUE(r1.ok());
  EXPECT_EQ(r1.buffers(0).sha256(), r.report.buffers(0).sha256());
}

TEST(MachineLaunchTest, FailedExpectationIsDataWithADetail) {
  TempDir dir;
  dir.Write("copy.ptx", kCopyPtx);
  // n = 10 copies only 40 of the 400 bytes.
  std::string text = CopySpec(100, 1, 128);
  text.replace(text.find("u32: 100"), 8, "u32: 10");
  std::string spec = dir.Write("copy.textproto", text);
  ASSERT_OK_AND_ASSIGN(SimReport r, RunLaunchSpecFile(spec, RunOptions{}));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.faults_size(), 0);
  ASSERT_EQ(r.expectations_size(), 1);
  EXPECT_EQ(r.expectations(0).name(), "buffers_equal(in, out)");
  EXPECT_FALSE(r.expectations(0).ok());
  EXPECT_THAT(r.expectations(0).detail(), HasSubstr("first at byte 40"));
}

TEST(MachineLaunchTest, InputErrors) {
  TempDir dir;
  dir.Write("copy.ptx", kCopyPtx);
  struct Bad {
    std::string spec;
    absl::StatusCode code;
    std::string what;
  };
  std::vector<Bad> cases = {
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1 }\n  block { x: 32 \n",
       absl::StatusCode::kInvalidArgument, "bad.textproto:4:1:"},
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1 }\nblok { x: 32 }\n",
       absl::StatusCode::kInvalidArgument, "bad.textproto:3:"},
      {"ptx_file: \"missing.ptx\"\ngrid { x: 1 }\nblock { x: 32 }\n",
       absl::StatusCode::kNotFound, "missing.ptx"},
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1 }\nblock { x: 32 }\nparam { u32: 1 }\n",
       absl::StatusCode::kInvalidArgument,
       "the spec has 1 params; kernel 'copy' takes 3"},
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1 }\nblock { x: 32 }\nparam { u32: 1 }\nparam "
       "{ null_ptr {} }\n"
       "param { u32: 1 }\n",
       absl::StatusCode::kInvalidArgument,
       "param 1 ('out_ptr'): the kernel declares .u64"},
      {"ptx_file: \"copy.ptx\"\nkernel: \"nope\"\ngrid { x: 1 }\nblock { x: 32 }\n",
       absl::StatusCode::kInvalidArgument, "bad.textproto:2:1: copy.ptx: no kernel named 'nope'"},
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1 }\nblock { x: 2048 }\n",
       absl::StatusCode::kInvalidArgument, "bad.textproto:3:1: block has 2048 threads; at most 1024 are allowed"},
      {"ptx_file: \"copy.ptx\"\nblock { x: 32 }\n", absl::StatusCode::kInvalidArgument,
       "grid.x must be at least 1"},
      // A run-time check of the spec names the spec's file (hostile input, issue 12).
      {"ptx_file: \"copy.ptx\"\ngrid { x: 1000000 y: 1000000 z: 1000000 }\n"
       "block { x: 32 }\n",
       absl::StatusCode::kInvalidArgument, "bad.textproto:2:1: launch spec: grid too large"},
  };
  cases.push_back(
      {CopySpec(8, 1, 32, "expect { buffers_equal { a: \"in\" b: \"nope\" } }\n"),
       absl::StatusCode::kInvalidArgument, "names unknown buffer \"nope\""});
  std::string iota = CopySpec(8, 1, 32);
  iota.replace(iota.find("fill: RANDOM seed: 3"), 20, "fill: IOTA element_bytes: 3");
  cases.push_back(
      {iota, absl::StatusCode::kInvalidArgument, "element_bytes must be 1, 2, 4 or 8"});
  for (const Bad& b : cases) {
    std::string path = dir.Write("bad.textproto", b.spec);
    absl::StatusOr<SimReport> r = RunLaunchSpecFile(path, RunOptions{});
    EXPECT_THAT(r, StatusIs(b.code, b.what)) << b.spec;
  }
  // An unsupported instruction in the PTX is an input error with its position.
  std::string bad_ptx = kCopyPtx;
  bad_ptx.replace(bad_ptx.find("  ret;"), 6, "  trap;");
  dir.Write("copy.ptx", bad_ptx);
  std::string path = dir.Write("bad.textproto", CopySpec(8, 1, 32));
  EXPECT_THAT(
      RunLaunchSpecFile(path, RunOptions{}),
      StatusIs(absl::StatusCode::kInvalidArgument, "copy.ptx:24:3: instruction 'trap'"));
}

TEST(MachineLaunchTest, ReqntidMustMatchTheBlock) {
  ASSERT_OK_AND_ASSIGN(LaunchSpec spec, launch::LoadLaunchSpec(Sample("shuffle_i32.textproto")));
  spec.mutable_block()->set_x(64);
  EXPECT_THAT(
      RunLaunchSpec(spec, SourceDir() + "/tests/sim/machine/testdata", RunOptions{}),
      StatusIs(absl::StatusCode::kInvalidArgument, "requires .reqntid 32,1,1"));
}

TEST(MachineLaunchTest, BufferFills) {
  BufferParam b;
  b.set_size_bytes(8);
  b.set_fill(BufferParam::IOTA);
  b.set_element_bytes(2);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> iota, launch::FillBuffer(b, "."));
  EXPECT_EQ(iota, (std::vector<uint8_t>{0, 0, 1, 0, 2, 0, 3, 0}));
  b.set_element_bytes(0);
  b.set_size_bytes(300);
  ASSERT_OK_AND_ASSIGN(iota, launch::FillBuffer(b, "."));
  EXPECT_EQ(iota[255], 255);
  EXPECT_EQ(iota[256], 0);  // element i = i mod 2^8
  b.set_fill(BufferParam::POISON);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> poison, launch::FillBuffer(b, "."));
  EXPECT_EQ(poison[17], 0xA5);
  b.set_fill(BufferParam::RANDOM);
  b.set_seed(0);
  b.set_size_bytes(12);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> rnd, launch::FillBuffer(b, "."));
  // SplitMix64(0): first output 0xE220A8397B1DCDAF, little-endian.
  EXPECT_EQ(rnd[0], 0xAF);
  EXPECT_EQ(rnd[7], 0xE2);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> again, launch::FillBuffer(b, "."));
  EXPECT_EQ(rnd, again);
  TempDir dir;
  dir.Write("data.bin", "hello");
  b.set_fill(BufferParam::FILE);
  b.set_path("data.bin");
  b.set_size_bytes(5);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, launch::FillBuffer(b, dir.path()));
  EXPECT_EQ(std::string(file.begin(), file.end()), "hello");
  b.set_size_bytes(6);
  EXPECT_THAT(launch::FillBuffer(b, dir.path()),
              StatusIs(absl::StatusCode::kInvalidArgument, "has 5 bytes"));
}

TEST(MachineLaunchTest, DeterministicReportsAndTraces) {
  TempDir dir;
  for (const char* name :
       {"mma_f16.textproto", "shuffle_i8.textproto", "smem_i64.textproto"}) {
    RunOptions a, b;
    a.trace_path = dir.path() + "/a.trace";
    b.trace_path = dir.path() + "/b.trace";
    ASSERT_OK_AND_ASSIGN(SimReport ra, RunLaunchSpecFile(Sample(name), a));
    ASSERT_OK_AND_ASSIGN(SimReport rb, RunLaunchSpecFile(Sample(name), b));
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(ra, rb)) << name;
    std::ifstream fa(a.trace_path), fb(b.trace_path);
    std::stringstream sa, sb;
    sa << fa.rdbuf();
    sb << fb.rdbuf();
    EXPECT_EQ(sa.str(), sb.str());
    // Only the two traces: no temporary left behind.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                            std::filesystem::directory_iterator()),
              2);
    // One header line plus one line per warp instruction.
    std::string trace = sa.str();
    size_t lines = std::count(trace.begin(), trace.end(), '\n');
    EXPECT_EQ(lines, size_t(ra.counters().at("warp_instructions")) + 1) << name;
  }
}

TEST(MachineLaunchTest, TraceLineFormat) {
  TempDir dir;
  RunOptions o;
  o.trace_path = dir.path() + "/t.trace";
  ASSERT_OK_AND_ASSIGN(SimReport r,
                       RunLaunchSpecFile(Sample("shuffle_i32.textproto"), o));
  EXPECT_TRUE(r.ok());
  std::ifstream in(o.trace_path);
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_THAT(header, HasSubstr("warpcheck sim trace v1"));
  EXPECT_EQ(
      first,
      "cta 0,0,0 warp 0 pc 0 line 28 mask ffffffff  ld.param.b32 %r43, [kernel_param_2]");
  EXPECT_THAT(second, ::testing::StartsWith(
                          "cta 0,0,0 warp 0 pc 1 line 29 mask ffffffff  ld.param.b64"));
}

TEST(MachineLaunchTest, CtasSignalThroughGlobalMemoryWhenCoResident) {
  // CTA 0 spins until CTA 1 sets a flag: fine when both are resident, an endless loop
  // (instruction budget) when CTAs run one after another.
  constexpr char kPtx[] = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 flag_ptr)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [flag_ptr];
  mov.u32 %r0, %ctaid.x;
  setp.eq.u32 %p0, %r0, 1;
  @%p0 bra SIGNAL;
WAIT:
  ld.volatile.global.u32 %r1, [%rd0];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  ret;
SIGNAL:
  st.relaxed.gpu.global.u32 [%rd0], 1;
  ret;
}
)";
  TempDir dir;
  dir.Write("k.ptx", kPtx);
  std::string spec = dir.Write("k.textproto",
                               "ptx_file: \"k.ptx\"\ngrid { x: 2 }\nblock { x: 1 "
                               "}\nmax_instructions_per_thread: 100000\n"
                               "param { buffer { name: \"flag\" size_bytes: 4 } }\n");
  ASSERT_OK_AND_ASSIGN(SimReport r, RunLaunchSpecFile(spec, RunOptions{}));
  EXPECT_TRUE(r.ok());
  RunOptions one;
  one.max_resident_ctas = 1;
  ASSERT_OK_AND_ASSIGN(r, RunLaunchSpecFile(spec, one));
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.faults_size(), 1);
  EXPECT_EQ(r.faults(0).kind(), "instruction_budget");
}

TEST(MachineLaunchTest, CheckSimExpect) {
  LaunchSpec spec;
  SimReport ok_report;
  ok_report.set_ok(true);
  EXPECT_OK(CheckSimExpect(spec, ok_report));
  SimReport race;
  race.add_faults()->set_kind("shared_race");
  spec.mutable_sim_expect()->set_ok(false);
  spec.mutable_sim_expect()->set_fault_kind("shared_race");
  EXPECT_OK(CheckSimExpect(spec, race));
  spec.mutable_sim_expect()->set_fault_kind("misaligned");
  EXPECT_THAT(CheckSimExpect(spec, race), StatusIs(absl::StatusCode::kFailedPrecondition,
                                                   "expected a misaligned fault"));
  EXPECT_THAT(
      CheckSimExpect(LaunchSpec{}, race),
      StatusIs(absl::StatusCode::kFailedPrecondition, "expected ok: true, got false"));
}

TEST(MachineLaunchTest, RunLaunchSpecFileReportsSampleAndMissingFile) {
  ASSERT_OK_AND_ASSIGN(SimReport r,
                       RunLaunchSpecFile(Sample("smem_f32.textproto"), RunOptions{}));
  EXPECT_TRUE(r.ok());
  EXPECT_GT(r.counters().at("barriers"), 0);
  EXPECT_THAT(RunLaunchSpecFile("/nonexistent/x.textproto", RunOptions{}),
              StatusIs(absl::StatusCode::kNotFound, "/nonexistent/x.textproto"));
}

}  // namespace
}  // namespace warpcheck::sim::machine
