// Every fault kind of the machine is triggered by a small program, with the thread, pc,
// line and text it reports; and the near misses (ordered accesses, same-value broadcast
// stores) are not faults.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sim/machine/machine_test_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

using testing::BodyOptions;
using testing::BodyRun;
using ::testing::HasSubstr;
using testing::RunBody;

const SimFault& First(const BodyRun& r, const std::string& kind) {
  for (const SimFault& f : r.report.faults()) {
    if (f.kind() == kind) return f;
  }
  static SimFault none;
  ADD_FAILURE() << "no " << kind << " fault; got:\n" << r.Faults();
  return none;
}

// The PTX line of `needle` in the wrapped body (see machine_test_util.h).
uint32_t LineOf(const std::string& body, const std::string& needle,
                const BodyOptions& o = {}) {
  std::string text = testing::WrapBody(body, o);
  size_t at = text.find(needle);
  return static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n') + 1);
}

BodyOptions Smem(uint32_t threads = 64) {
  BodyOptions o;
  o.threads = threads;
  o.stride = 4;
  o.extra_decls = ".shared .align 16 .b8 smem[1024];";
  return o;
}

TEST(MachineFaultTest, Misaligned) {
  std::string body = "  ld.global.u32 %r1, [%rd1+2];";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  EXPECT_FALSE(r.report.ok());
  const SimFault& f = First(r, "misaligned");
  EXPECT_EQ(f.thread(), 0u);
  EXPECT_EQ(f.line(), LineOf(body, "ld.global.u32 %r1"));
  EXPECT_THAT(f.text(), HasSubstr("not 4-byte aligned"));
  EXPECT_THAT(f.cta(), ::testing::ElementsAre(0, 0, 0));
  // Vector accesses align to their total size; ldmatrix rows to 16 bytes.
  ASSERT_OK_AND_ASSIGN(
      r,
      RunBody("  mov.u32 %r1, smem;\n  ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1+8];",
              Smem()));
  EXPECT_THAT(First(r, "misaligned").text(), HasSubstr("16-byte"));
  ASSERT_OK_AND_ASSIGN(r,
                       RunBody("  mov.u32 %r1, smem;\n  mad.lo.u32 %r1, %r0, 8, %r1;\n"
                               "  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];",
                               Smem(32)));
  EXPECT_EQ(First(r, "misaligned").thread(), 1u);
}

TEST(MachineFaultTest, OutOfBounds) {
  // Null pointer.
  ASSERT_OK_AND_ASSIGN(BodyRun r,
                       RunBody("  mov.u64 %rd3, 0;\n  ld.global.u32 %r1, [%rd3];"));
  EXPECT_THAT(First(r, "out_of_bounds").text(), HasSubstr("null pointer"));
  // Past the end of a buffer (the out buffer is 32 * 8 bytes).
  ASSERT_OK_AND_ASSIGN(r, RunBody("  st.global.u32 [%rd0+256], %r0;"));
  EXPECT_EQ(First(r, "out_of_bounds").thread(), 0u);
  // A straddling access.
  ASSERT_OK_AND_ASSIGN(r, RunBody("  st.global.u64 [%rd0+252], %rd0;"));
  EXPECT_FALSE(r.report.ok());
  ASSERT_OK_AND_ASSIGN(r, RunBody("  st.global.u32 [%rd0+248], %r0;"));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
  // Shared memory past the window.
  ASSERT_OK_AND_ASSIGN(
      r, RunBody("  mov.u32 %r1, smem;\n  st.shared.u32 [%r1+1024], %r0;", Smem()));
  EXPECT_THAT(First(r, "out_of_bounds").text(), HasSubstr("1024-byte shared window"));
  // Generic address nowhere.
  ASSERT_OK_AND_ASSIGN(r, RunBody("  mov.u64 %rd3, 0x12345678;\n  ld.u32 %r1, [%rd3];"));
  EXPECT_FALSE(r.report.ok());
  EXPECT_TRUE(r.HasFault("out_of_bounds"));
}

// ld.param through a register address: parameter memory is out_ptr, in_ptr (16 bytes).
// RunBody runs every body lane by lane and on the one-range-check path (sem_mem.cc
// FastLdSt, which takes parameter loads): the edges must agree.
TEST(MachineFaultTest, ParamLoadsThroughRegisterAddresses) {
  // Lanes alternate between the two params (the last 8 bytes included): in bounds.
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(R"(
  and.b32 %r1, %r0, 1;
  mul.wide.u32 %rd3, %r1, 8;
  ld.param.u64 %rd4, [%rd3];
  st.global.u64 [%rd2], %rd4;)"));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_NE(r.At<uint64_t>(0), r.At<uint64_t>(1));
  EXPECT_EQ(r.At<uint64_t>(0), r.At<uint64_t>(2));
  // Lane l reads offset 8 * l: lane 2 is the first past the end.
  std::string body = R"(
  mul.wide.u32 %rd3, %r0, 8;
  ld.param.u64 %rd4, [%rd3];)";
  ASSERT_OK_AND_ASSIGN(r, RunBody(body));
  const SimFault& f = First(r, "out_of_bounds");
  EXPECT_EQ(f.thread(), 2u);
  EXPECT_THAT(f.text(), HasSubstr("param offset 0x10 is outside the 16 bytes"));
  // A straddling vector load and a misaligned one.
  ASSERT_OK_AND_ASSIGN(r, RunBody("  mov.u64 %rd3, 8;\n  ld.param.v2.u64 {%rd4, %rd5}, [%rd3];"));
  EXPECT_TRUE(r.HasFault("misaligned")) << r.Faults();
  ASSERT_OK_AND_ASSIGN(r, RunBody("  mov.u64 %rd3, 4;\n  ld.param.u64 %rd4, [%rd3];"));
  EXPECT_TRUE(r.HasFault("misaligned")) << r.Faults();
  ASSERT_OK_AND_ASSIGN(r, RunBody("  mov.u64 %rd3, 12;\n  ld.param.u32 %r1, [%rd3+4];"));
  EXPECT_THAT(First(r, "out_of_bounds").text(), HasSubstr("param offset 0x10"));
}

TEST(MachineFaultTest, RangeChecksInBuffersOfOtherSizes) {
  // FastLdSt's one-pass range test ORs the lanes' offsets into the first lane's buffer,
  // which proves only power-of-two buffers: here the offsets are in bounds but their OR is
  // not, so the exact pass decides (RunBody also runs every body lane by lane).
  BodyOptions o;
  o.in_bytes = 0x1800;
  // Lane l reads element 0x7f0 + l (offsets 0xfe0..0x101e: OR 0x1ffe, past the end).
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(R"(
  mul.wide.u32 %rd3, %r0, 2;
  add.s64 %rd3, %rd1, %rd3;
  ld.global.u16 %h1, [%rd3+0xfe0];
  st.global.u16 [%rd2], %h1;)",
                                          o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.At<uint16_t>(4 * l), 0x7f0 + l) << l;
  // Odd lanes only (a partial mask), and lane 16 the first past the end.
  ASSERT_OK_AND_ASSIGN(r, RunBody(R"(
  mul.wide.u32 %rd3, %r0, 2;
  add.s64 %rd3, %rd1, %rd3;
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 ld.global.u16 %h1, [%rd3+0xfe0];
  ld.global.u16 %h2, [%rd3+0x17e0];)",
                                  o));
  const SimFault& f = First(r, "out_of_bounds");
  EXPECT_EQ(f.thread(), 16u);
  EXPECT_THAT(f.text(), HasSubstr("global address"));
  // A 96-byte shared array: 24 lanes store and load words 0..23 (OR 0x7c, past 92).
  BodyOptions s = Smem(32);
  s.extra_decls = ".shared .align 16 .b8 smem[96];";
  ASSERT_OK_AND_ASSIGN(r, RunBody(R"(
  mov.u32 %r1, smem;
  shl.b32 %r2, %r0, 2;
  add.u32 %r1, %r1, %r2;
  setp.lt.u32 %p1, %r0, 24;
  @%p1 st.shared.u32 [%r1], %r0;
  bar.sync 0;
  @%p1 ld.shared.u32 %r3, [%r1];
  st.global.u32 [%rd2], %r3;)",
                                  s));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.At<uint32_t>(l), l < 24 ? l : 0) << l;
}

TEST(MachineFaultTest, SharedRaceWithoutBarrier) {
  // Warp 0 writes, warp 1 reads the same words: no barrier in between.
  std::string body = R"(
  mov.u32 %r1, smem;
  and.b32 %r2, %r0, 31;
  shl.b32 %r2, %r2, 2;
  add.u32 %r1, %r1, %r2;
  setp.lt.u32 %p1, %r0, 32;
  @%p1 st.shared.u32 [%r1], %r0;
  @!%p1 ld.shared.u32 %r3, [%r1];
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, Smem()));
  EXPECT_FALSE(r.report.ok());
  const SimFault& f = First(r, "shared_race");
  EXPECT_EQ(f.thread(), 32u);
  EXPECT_EQ(f.line(), LineOf(body, "@!%p1 ld.shared"));
  EXPECT_THAT(f.text(), HasSubstr("thread 32 reads shared byte 0x400"));
  EXPECT_THAT(f.text(), HasSubstr("thread 0 wrote it"));
  // Races do not stop the run; they are capped.
  EXPECT_LE(r.report.faults_size(), 8);
  // The same with a barrier: no race.
  std::string fixed = body;
  fixed.replace(fixed.find("  @!%p1 ld"), 0, "  bar.sync 0;\n");
  ASSERT_OK_AND_ASSIGN(r, RunBody(fixed, Smem()));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
}

TEST(MachineFaultTest, SharedRaceWriteAfterRead) {
  // Every lane reads a word, then lane 5 overwrites it (many readers), or lane 3 reads
  // and lane 5 writes (one reader).
  for (const char* reader : {"", "  setp.eq.u32 %p2, %r0, 3;\n  @%p2 "}) {
    std::string body = absl::StrCat("  mov.u32 %r1, smem;\n", reader,
                                    "ld.shared.u32 %r3, [%r1+4];\n"
                                    "  setp.eq.u32 %p1, %r0, 5;\n"
                                    "  @%p1 st.shared.u32 [%r1+4], %r0;\n");
    if (*reader == 0) body.replace(body.find("ld.shared"), 0, "  ");
    ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, Smem(32)));
    const SimFault& f = First(r, "shared_race");
    EXPECT_EQ(f.thread(), 5u);
    EXPECT_THAT(f.text(), HasSubstr("writes shared byte 0x404"));
    EXPECT_THAT(f.text(), HasSubstr("read it"));
  }
}

TEST(MachineFaultTest, SharedRaceWriteWriteDifferentValuesOnly) {
  // Every lane stores its own tid to one word: different values race.
  ASSERT_OK_AND_ASSIGN(
      BodyRun r, RunBody("  mov.u32 %r1, smem;\n  st.shared.u32 [%r1], %r0;", Smem(32)));
  EXPECT_EQ(First(r, "shared_race").thread(), 1u);
  // Every lane stores the same value (a broadcast layout): counted, not a fault.
  ASSERT_OK_AND_ASSIGN(
      r, RunBody("  mov.u32 %r1, smem;\n  st.shared.u32 [%r1], 7;", Smem(64)));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.Counter("shared_same_value_write_races"), 63);  // per word
}

TEST(MachineFaultTest, WarpSynchronisationOrdersLanesOfOneWarp) {
  // Lane 0 writes, lane 1 reads: a race without bar.warp.sync, none with it.
  std::string racy = R"(
  mov.u32 %r1, smem;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 st.shared.u32 [%r1], 5;
  setp.eq.u32 %p2, %r0, 1;
  @%p2 ld.shared.u32 %r2, [%r1];
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(racy, Smem(32)));
  EXPECT_EQ(First(r, "shared_race").thread(), 1u);
  std::string synced = racy;
  synced.replace(synced.find("  setp.eq.u32 %p2"), 0, "  bar.warp.sync -1;\n");
  ASSERT_OK_AND_ASSIGN(r, RunBody(synced, Smem(32)));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
  // A warp-level sync does not order two different warps.
  std::string cross = R"(
  mov.u32 %r1, smem;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 st.shared.u32 [%r1], 5;
  bar.warp.sync -1;
  setp.eq.u32 %p2, %r0, 32;
  @%p2 ld.shared.u32 %r2, [%r1];
)";
  ASSERT_OK_AND_ASSIGN(r, RunBody(cross, Smem(64)));
  EXPECT_EQ(First(r, "shared_race").thread(), 32u);
}

TEST(MachineFaultTest, NamedBarrierOrdersOnlyItsWarps) {
  // Warps 0 and 1 meet at barrier 1 (64 threads); warp 2 does not.
  std::string body = R"(
  mov.u32 %r1, smem;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 st.shared.u32 [%r1], 5;
  setp.lt.u32 %p3, %r0, 64;
  @!%p3 bra SKIP;
  bar.sync 1, 64;
  setp.eq.u32 %p2, %r0, 33;
  @%p2 ld.shared.u32 %r2, [%r1];
SKIP:
  setp.eq.u32 %p4, %r0, 70;
  @%p4 ld.shared.u32 %r2, [%r1];
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, Smem(96)));
  ASSERT_EQ(r.report.faults_size(), 1) << r.Faults();
  EXPECT_EQ(First(r, "shared_race").thread(), 70u);
}

TEST(MachineFaultTest, DivergentShfl) {
  // Even lanes reach one shfl, odd lanes another: both name the whole warp.
  std::string body = R"(
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra EVEN;
  shfl.sync.bfly.b32 %r2, %r0, 1, 0x1f, -1;
  bra END;
EVEN:
  shfl.sync.bfly.b32 %r2, %r0, 2, 0x1f, -1;
END:
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  EXPECT_FALSE(r.report.ok());
  const SimFault& f = First(r, "divergent_sync");
  EXPECT_THAT(f.text(), HasSubstr("waits at a warp-level instruction"));
}

TEST(MachineFaultTest, ShflWhileAMemberWaitsAtABarrier) {
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 16;
  @%p1 bra LOW;
  bar.sync 0;
  bra END;
LOW:
  shfl.sync.idx.b32 %r2, %r0, 0, 0x1f, -1;
END:
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  const SimFault& f = First(r, "divergent_sync");
  EXPECT_THAT(f.text(), HasSubstr("waits at barrier 0"));
}

TEST(MachineFaultTest, BarrierAtTwoInstructions) {
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 32;
  @%p1 bra A;
  bar.sync 0;
  bra END;
A:
  bar.sync 0;
END:
)";
  BodyOptions o;
  o.threads = 64;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  const SimFault& f = First(r, "divergent_sync");
  EXPECT_THAT(f.text(), HasSubstr("two different instructions"));
  // barrier.sync (not .aligned) may be reached from different instructions.
  std::string relaxed = body;
  while (relaxed.find("bar.sync 0") != std::string::npos) {
    relaxed.replace(relaxed.find("bar.sync 0"), 10, "barrier.sync 0");
  }
  ASSERT_OK_AND_ASSIGN(r, RunBody(relaxed, o));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.Counter("barriers"), 1);
}

TEST(MachineFaultTest, BarrierDeadlock) {
  // Warp 0 waits at barrier 0, warp 1 at barrier 1: each needs every thread.
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 32;
  @%p1 bra A;
  barrier.sync 1;
  bra END;
A:
  barrier.sync 0;
END:
)";
  BodyOptions o;
  o.threads = 64;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  EXPECT_FALSE(r.report.ok());
  const SimFault& f = First(r, "barrier_deadlock");
  EXPECT_THAT(f.text(), HasSubstr("waits for 64 threads but only 32 arrived"));
  EXPECT_THAT(f.text(), HasSubstr("waits at barrier 1"));
  // A count that can never be reached once the other warp exits.
  std::string count = R"(
  setp.ge.u32 %p1, %r0, 32;
  @%p1 exit;
  bar.sync 1, 64;
)";
  ASSERT_OK_AND_ASSIGN(r, RunBody(count, o));
  EXPECT_THAT(First(r, "barrier_deadlock").text(), HasSubstr("waits for 64 threads"));
  // Exited threads do not count for bar.sync 0.
  std::string exits = R"(
  setp.ge.u32 %p1, %r0, 32;
  @%p1 exit;
  bar.sync 0;
)";
  ASSERT_OK_AND_ASSIGN(r, RunBody(exits, o));
  EXPECT_TRUE(r.report.ok()) << r.Faults();
}

TEST(MachineFaultTest, NonMemberLane) {
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 16;
  @!%p1 bra END;
  shfl.sync.idx.b32 %r2, %r0, 20, 0x1f, 0xFFFF;
END:
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  const SimFault& f = First(r, "non_member_lane");
  EXPECT_EQ(f.thread(), 0u);
  EXPECT_THAT(f.text(),
              HasSubstr("lane 0 reads lane 20, which is not in membermask 0x0000ffff"));
  EXPECT_EQ(f.line(), LineOf(body, "shfl.sync.idx"));
}

TEST(MachineFaultTest, ExitedLane) {
  std::string body = R"(
  setp.ge.u32 %p1, %r0, 16;
  @%p1 exit;
  shfl.sync.idx.b32 %r2, %r0, 20, 0x1f, -1;
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  EXPECT_THAT(First(r, "exited_lane").text(),
              HasSubstr("reads lane 20, which has exited"));
  // A lane that does not exist (block of 24 threads).
  BodyOptions o;
  o.threads = 24;
  ASSERT_OK_AND_ASSIGN(r, RunBody("  shfl.sync.idx.b32 %r2, %r0, 30, 0x1f, -1;", o));
  EXPECT_THAT(First(r, "exited_lane").text(), HasSubstr("does not exist"));
}

TEST(MachineFaultTest, InstructionBudget) {
  std::string body = "LOOP:\n  add.u32 %r1, %r1, 1;\n  bra LOOP;";
  BodyOptions o;
  o.budget = 1000;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  const SimFault& f = First(r, "instruction_budget");
  EXPECT_THAT(f.text(), HasSubstr("more than 1000 instructions"));
  // Diverged lanes are counted one by one.
  std::string diverged = R"(
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra DONE;
LOOP:
  bra LOOP;
DONE:
)";
  ASSERT_OK_AND_ASSIGN(r, RunBody(diverged, o));
  EXPECT_EQ(First(r, "instruction_budget").thread(), 1u);
}

// Converged straight-line code runs in RunWarp's own loop (machine.cc); RunBody runs every
// body through it and through the general step and requires the same report. These put
// the loop's two edges where a miscount shows: the budget, and the end of a quantum.
std::string Adds(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "  add.u32 %r4, %r4, 1;\n";
  return s;
}

TEST(MachineFaultTest, InstructionBudgetInStraightLineCode) {
  // The prologue is pcs 0-4 (WrapBody), the adds pcs 5-34: a budget of 20 lets pcs 0-19
  // run and faults at the 21st issue, pc 20.
  BodyOptions o;
  o.budget = 20;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(Adds(30), o));
  const SimFault& f = First(r, "instruction_budget");
  EXPECT_EQ(f.pc(), 20u);
  EXPECT_EQ(f.thread(), 0u);
  EXPECT_EQ(r.Counter("warp_instructions"), 20);
  EXPECT_EQ(r.Counter("instructions"), 20 * 32);
}

TEST(MachineFaultTest, QuantumEndInStraightLineCode) {
  // Thread 32 (warp 1) reads a word at pc 8; thread 0 (warp 0) writes it after K adds.
  // Warps take turns of 4096 warp instructions (pcs 0-4095 in the first turn), so a
  // store at pc 4095 comes before warp 1's read (the read finds the race) and one at pc
  // 4096 after it (the write finds it).
  auto body = [](int adds) {
    return "  mov.u32 %r1, smem;\n  setp.eq.u32 %p1, %r0, 0;\n  setp.eq.u32 %p2, %r0, 32;\n"
           "  @%p2 ld.shared.u32 %r3, [%r1];\n" +
           Adds(adds) + "  @%p1 st.shared.u32 [%r1], %r0;\n";
  };
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body(4086), Smem()));
  const SimFault& read = First(r, "shared_race");
  EXPECT_EQ(read.pc(), 8u);
  EXPECT_EQ(read.thread(), 32u);
  ASSERT_OK_AND_ASSIGN(r, RunBody(body(4087), Smem()));
  const SimFault& write = First(r, "shared_race");
  EXPECT_EQ(write.pc(), 4096u);
  EXPECT_EQ(write.thread(), 0u);
}

TEST(MachineFaultTest, InvalidBarrierOperand) {
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody("  mov.u32 %r1, 20;\n  bar.sync %r1;"));
  EXPECT_TRUE(r.HasFault("invalid_operand")) << r.Faults();
}

TEST(MachineFaultTest, FaultStopsTheLaunch) {
  // The fault in thread 0 stops everything: the store after it never happens.
  std::string body = R"(
  mov.u64 %rd3, 0;
  ld.global.u32 %r1, [%rd3];
  st.global.u32 [%rd2], 1;
)";
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body));
  EXPECT_EQ(r.report.faults_size(), 1);
  EXPECT_EQ(r.At<uint32_t>(0), 0u);
}

}  // namespace
}  // namespace warpcheck::sim::machine
