// sim/signal/cuda_emit: the CUDA source of the GPU differential test. No GPU needed; when
// /usr/local/cuda/bin/nvcc exists, the emitted sources are also compiled (-c).
#include "sim/signal/cuda_emit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tools/warpcheck/args.h"
#include "tools/warpcheck/signal_gpu_command.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SignalProgram Parse(const std::string& text) {
  SignalProgram p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &p)) << text;
  return p;
}

// C01: two CTAs of rank 0 add 1 to SIG@1[0]; rank 1 waits == 1.
constexpr char kC01[] = R"pb(
  name: "C01_overshoot"
  ranks: 2
  objects { name: "SIG" dtype: U64 size: "1" }
  kernels {
    name: "k"
    grid: "select(r == 0, 2, 1)"
    body {
      kind: IF
      cond: "r == 0"
      body { kind: NOTIFY object: "SIG" rank: "1" sig_op: ADD scope: INTRA_NODE }
      else_body { kind: WAIT object: "SIG" value: "1" scope: SYS sem: ACQUIRE }
    }
  }
)pb";

// Nearly every device op, with expressions using // and %.
constexpr char kAllOps[] = R"pb(
  name: "all_ops"
  ranks: 2
  ctas: 2
  iterations: 2
  params { name: "P" value: 3 }
  objects { name: "SIG" dtype: U64 size: "N" }
  objects { name: "F32" dtype: U32 size: "4" }
  objects { name: "D" dtype: F32 size: "64" }
  objects { name: "CNT" dtype: I32 size: "N" }
  kernels {
    name: "k"
    threads: 64
    body {
      kind: FOR
      var: "e"
      from: "1"
      to: "E + 1"
      body { kind: STORE object: "D" rank: "(r + 1) % N" count: "64" tag: "e" }
      body { kind: SYNCTHREADS }
      body { kind: NOTIFY object: "SIG" rank: "(r + 1) % N" index: "r" value: "e" scope: INTRA_NODE }
      body { kind: WAIT object: "SIG" count: "N" value: "e" lane_if: "l != r" scope: SYS sem: ACQUIRE token: "t" }
      body { kind: LOAD object: "D" count: "64" after: "t" expect: "e" }
      body { kind: ATOMIC_ADD object: "CNT" result: "old" sem: RELEASE scope: GPU }
      body {
        kind: IF
        cond: "old == G - 1 && (P // 2) == 1"
        body { kind: ST_SIGNAL object: "F32" value: "e" sem: RELEASE scope: SYS }
      }
      body { kind: WAIT_UNTIL object: "F32" cmp: GE value: "e - (P % 2)" by: THREAD0 }
      body { kind: FENCE scope: SYS }
      body { kind: GRID_BARRIER }
      body { kind: BARRIER_ALL }
      body { kind: PUTSIG object: "D" rank: "(r + 1) % N" count: "8" signal_object: "SIG" signal_index: "r" signal_value: "e" signal_op: ADD }
      body { kind: GET object: "D" rank: "(r + 1) % N" count: "8" }
      body { kind: PUT object: "D" rank: "(r + 1) % N" index: "8" count: "8" }
      body { kind: SIGNAL_OP object: "SIG" rank: "(r + 1) % N" index: "r" sig_op: SET value: "e" }
      body { kind: ATOMIC_CAS object: "CNT" index: "1" compare: "0" value: "0" spin: true }
      body { kind: NVSHMEM_FENCE }
      body { kind: QUIET }
    }
    body { kind: EXIT }
  }
)pb";

// Host streams: RESET + BARRIER_ALL + LAUNCH in a loop, stream wait/write, copy, collective.
constexpr char kStreams[] = R"pb(
  name: "streams"
  ranks: 2
  iterations: 2
  cta_slots: 4
  objects { name: "SIG" dtype: U64 size: "2" }
  objects { name: "D" dtype: F32 size: "16" }
  kernels {
    name: "k"
    grid: "2"
    body { kind: NOTIFY object: "SIG" rank: "(r + 1) % N" value: "1" scope: INTRA_NODE }
    body { kind: WAIT object: "SIG" value: "1" scope: SYS sem: ACQUIRE }
  }
  streams {
    name: "main"
    body {
      kind: FOR
      var: "e"
      from: "0"
      to: "E"
      body { kind: RESET object: "SIG" }
      body { kind: BARRIER_ALL }
      body { kind: LAUNCH kernel: "k" }
    }
    body { kind: STREAM_WRITE object: "SIG" index: "1" value: "5" }
    body { kind: STREAM_WAIT object: "SIG" index: "1" value: "5" cmp: EQ }
    body { kind: COPY object: "D" src_rank: "(r + 1) % N" count: "4" }
    body { kind: HOST_COLLECTIVE name: "all_reduce" }
  }
)pb";

std::string Emit(const std::string& text, const std::string& tier = "cta") {
  CudaEmitOptions opt;
  opt.tier = tier;
  auto src = EmitSignalCuda(Parse(text), opt);
  EXPECT_TRUE(src.ok()) << src.status();
  return src.ok() ? *src : "";
}

TEST(CudaEmitTest, TierCtaUsesGpuScopeAndTheNvidiaLowering) {
  std::string src = Emit(kC01, "cta");
  EXPECT_THAT(src, HasSubstr("ld.acquire.gpu.global.b64"));
  EXPECT_THAT(src, HasSubstr("setp.eq.u64"));
  EXPECT_THAT(src, HasSubstr("bar.warp.sync 0xffffffff;"));
  EXPECT_THAT(src, HasSubstr("atom.relaxed.gpu.global.add.u64"));
  EXPECT_THAT(src, Not(HasSubstr(".sys.global")));
  // membar.gl comes right before the notify's atomic.
  size_t fence = src.find("asm volatile(\"membar.gl;\"");
  size_t atom = src.find("atom.relaxed.gpu.global.add.u64");
  ASSERT_NE(fence, std::string::npos);
  EXPECT_LT(fence, atom);
  size_t next = src.find("membar.gl", fence + std::string("asm volatile(\"membar.gl;\"").size());
  EXPECT_TRUE(next == std::string::npos || next > atom);
  // The 32-lane cap with an unsigned count, the site table and agent names.
  EXPECT_THAT(src, HasSubstr("unsigned cnt = (unsigned)("));
  EXPECT_THAT(src, HasSubstr("(threadIdx.x & 31) < cnt"));
  EXPECT_THAT(src, HasSubstr("kSite[] = {\"if#1\", \"notify#1\", \"wait#1\"}"));
  EXPECT_THAT(src, HasSubstr("\"rank0.cta0\", \"rank0.cta1\", \"rank1.cta0\""));
  EXPECT_THAT(src, HasSubstr("#define WC_TIER_GPUS 0"));
}

// Names reach the source as C string literals (absl::CEscape) and in a `//` comment. The
// literal must hold the name exactly: control characters were once dropped, so the
// program name the binary printed was not the program's; a newline must not end the
// comment and turn the rest of the name into code.
TEST(CudaEmitTest, NamesAreEscapedAsCStringLiterals) {
  SignalProgram p = Parse(kC01);
  p.set_name("a\"b\\c\td\nint x;");
  CudaEmitOptions opt;
  opt.tier = "cta";
  absl::StatusOr<std::string> src = EmitSignalCuda(p, opt);
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_THAT(*src, HasSubstr(R"(kProgramName = "a\"b\\c\td\nint x;";)"));
  EXPECT_THAT(*src, HasSubstr(R"(from SignalProgram 'a\"b\\c\td\nint x;'.)"));
  EXPECT_THAT(*src, Not(HasSubstr("\nint x;")));
}

TEST(CudaEmitTest, TierGpusUsesSystemScope) {
  std::string src = Emit(kC01, "gpus");
  EXPECT_THAT(src, HasSubstr("ld.acquire.sys.global.b64"));
  EXPECT_THAT(src, HasSubstr("asm volatile(\"membar.sys;\""));
  EXPECT_THAT(src, HasSubstr("atom.relaxed.sys.global.add.u64"));
  EXPECT_THAT(src, HasSubstr("cudaDeviceEnablePeerAccess"));
  EXPECT_THAT(src, HasSubstr("#define WC_TIER_GPUS 1"));
}

TEST(CudaEmitTest, NotifyGpuScopeIgnoresTheRank) {
  std::string src = Emit(R"pb(
    objects { name: "SIG" dtype: U64 }
    kernels {
      name: "k"
      body { kind: NOTIFY object: "SIG" rank: "1 - r" scope: GPU }
    }
  )pb", "gpus");
  EXPECT_THAT(src, HasSubstr("long long rk = v_r;"));
  EXPECT_THAT(src, HasSubstr("membar.gl;"));
  EXPECT_THAT(src, HasSubstr("st.relaxed.gpu.global.b64"));
  EXPECT_THAT(src, Not(HasSubstr("(1LL) - v_r")));
}

TEST(CudaEmitTest, AllDeviceOpsAndFloorSemantics) {
  std::string src = Emit(kAllOps, "cta");
  EXPECT_THAT(src, HasSubstr("wc_fdiv(v_P, (2LL))"));
  EXPECT_THAT(src, HasSubstr("wc_mod((v_r + (1LL)), v_N)"));
  EXPECT_THAT(src, HasSubstr("atom.release.gpu.global.add.u32"));
  EXPECT_THAT(src, HasSubstr("st.release.gpu.global.b32"));
  EXPECT_THAT(src, HasSubstr("setp.ge.u32"));
  EXPECT_THAT(src, HasSubstr("atom.relaxed.gpu.global.cas.b32"));
  EXPECT_THAT(src, HasSubstr("fence.sc.gpu;"));
  EXPECT_THAT(src, HasSubstr("wc_grid_barrier(x, "));
  EXPECT_THAT(src, HasSubstr("wc_barrier_all(x, "));
  EXPECT_THAT(src, HasSubstr("(v_l != v_r)"));
  EXPECT_THAT(src, HasSubstr("long long v_old = 0;"));
}

TEST(CudaEmitTest, HostStreams) {
  std::string src = Emit(kStreams, "gpus");
  EXPECT_THAT(src, HasSubstr("wc_host_fill(S, 0,"));
  EXPECT_THAT(src, HasSubstr("wc_host_launch(S, 0, (int)v_r, hv);"));
  EXPECT_THAT(src, HasSubstr("wc_host_stream_wait(S, 0,"));
  EXPECT_THAT(src, HasSubstr("CU_STREAM_WAIT_VALUE_EQ"));
  EXPECT_THAT(src, HasSubstr("wc_host_barrier(S, "));
  EXPECT_THAT(src, HasSubstr("\"rank0.main\""));
  EXPECT_THAT(src, HasSubstr("#define WC_SLOTS 4"));
}

TEST(CudaEmitTest, UnsupportedGivesInvalidArgumentNamingTheSite) {
  struct Case {
    const char* text;
    const char* site;
  } cases[] = {
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" body { kind: WAIT object: "S" sem: RELEASE } })pb",
       "wait#1"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" body { kind: NOTIFY object: "S" } body { kind: WAIT object: "S" by: THREAD0 site: "w0" } })pb",
       "w0"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" body { kind: LAUNCH kernel: "k" } })pb",
       "launch#1"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" body { kind: NOTIFY object: "T" } })pb",
       "notify#1"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" body { kind: NOTIFY object: "S" value: "zz + 1" } })pb",
       "notify#1"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" }
            streams { name: "s" body { kind: LAUNCH kernel: "k" } body { kind: STREAM_WAIT object: "S" cmp: GT } })pb",
       "stream_wait#1"},
      {R"pb(objects { name: "S" dtype: U64 }
            kernels { name: "k" }
            streams { name: "s" body { kind: NOTIFY object: "S" } })pb",
       "notify#1"},
  };
  for (const Case& c : cases) {
    auto src = EmitSignalCuda(Parse(c.text), CudaEmitOptions{});
    ASSERT_FALSE(src.ok()) << c.text;
    EXPECT_EQ(src.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(src.status().message()), HasSubstr(c.site)) << src.status();
  }
  SignalProgram amd = Parse(kC01);
  amd.set_backend("amd");
  EXPECT_FALSE(EmitSignalCuda(amd, CudaEmitOptions{}).ok());
  CudaEmitOptions bad;
  bad.tier = "node";
  EXPECT_FALSE(EmitSignalCuda(Parse(kC01), bad).ok());
}

std::filesystem::path TempDir() {
  auto d = std::filesystem::temp_directory_path() / absl::StrCat("cuda_emit_test_", getpid());
  std::filesystem::create_directories(d);
  return d;
}

TEST(CudaEmitTest, CliWritesTheSource) {
  auto dir = TempDir();
  std::string prog = (dir / "c01.textproto").string();
  std::ofstream(prog) << kC01;
  std::string out_cu = (dir / "c01.cu").string();
  auto args = cli::ParseArgs({prog, "-o", out_cu, "--tier=gpus", "--runs=5", "--timeout-ms=200"},
                             cli::kSignalCudaValueFlags, cli::kSignalCudaSwitchFlags);
  ASSERT_TRUE(args.ok()) << args.status();
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunSignalCuda(*args, out, err), 0) << err.str();
  std::ifstream in(out_cu);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_THAT(ss.str(), HasSubstr("g_default_runs = 5, g_default_timeout_ms = 200"));
  EXPECT_THAT(ss.str(), HasSubstr("ld.acquire.sys"));

  auto bad_tier = cli::ParseArgs({prog, "-o", out_cu, "--tier=x"}, cli::kSignalCudaValueFlags,
                                 cli::kSignalCudaSwitchFlags);
  EXPECT_EQ(cli::RunSignalCuda(*bad_tier, out, err), 1);
  auto missing = cli::ParseArgs({(dir / "nope.textproto").string(), "-o", out_cu},
                                cli::kSignalCudaValueFlags, cli::kSignalCudaSwitchFlags);
  EXPECT_EQ(cli::RunSignalCuda(*missing, out, err), 2);
  std::string unsupported = (dir / "u.textproto").string();
  std::ofstream(unsupported) << R"pb(objects { name: "S" dtype: U64 }
      kernels { name: "k" body { kind: WAIT object: "S" sem: ACQ_REL } })pb";
  std::ostringstream err2;
  auto u = cli::ParseArgs({unsupported, "-o", out_cu}, cli::kSignalCudaValueFlags,
                          cli::kSignalCudaSwitchFlags);
  EXPECT_EQ(cli::RunSignalCuda(*u, out, err2), 2);
  EXPECT_THAT(err2.str(), HasSubstr("wait#1"));
  std::filesystem::remove_all(dir);
}

// The emitted sources compile (no GPU needed for -c).
TEST(CudaEmitTest, CompilesWithNvcc) {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "no nvcc";
  auto dir = TempDir();
  struct Src {
    const char* name;
    const char* text;
    const char* tier;
  } srcs[] = {{"c01_cta", kC01, "cta"}, {"allops_gpus", kAllOps, "gpus"}, {"streams_cta", kStreams, "cta"}};
  std::string cmd;
  for (const Src& s : srcs) {
    std::string cu = (dir / absl::StrCat(s.name, ".cu")).string();
    std::ofstream(cu) << Emit(s.text, s.tier);
    if (!cmd.empty()) cmd += " & ";
    cmd += absl::StrCat("(", nvcc, " -O2 -std=c++17 -arch=sm_90 -c ", cu, " -o ", cu, ".o > ", cu,
                        ".log 2>&1 || echo FAIL ", s.name, " >> ", (dir / "fail").string(), ")");
  }
  cmd += " & wait";
  ASSERT_EQ(std::system(absl::StrCat("bash -c '", cmd, "'").c_str()), 0);
  for (const Src& s : srcs) {
    std::string log = (dir / absl::StrCat(s.name, ".cu.log")).string();
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_TRUE(std::filesystem::exists(dir / absl::StrCat(s.name, ".cu.o"))) << s.name << ":\n" << ss.str();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace warpcheck::sim::signal
