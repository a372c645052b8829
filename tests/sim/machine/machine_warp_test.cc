// Warp-level behaviour: shfl.sync in all modes with the clamp/segmask rules of
// shared/spec/ptx-subset.md, vote, activemask, divergence and reconvergence, per-lane
// loops, and ldmatrix/stmatrix layouts (x1/x2/x4, with and without .trans).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sim/machine/machine_test_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
namespace {

using testing::BodyOptions;
using testing::BodyRun;
using testing::RunBody;

// Reference shfl: returns the source lane, or -1 when invalid. As the PTX manual and the
// H200 (testdata/hw): `up` is valid when j >= maxLane' (the spec's ">= minLane" agrees
// only when c & 0x1f == 0).
int ShflSource(const std::string& mode, int lane, uint32_t b, uint32_t c) {
  uint32_t bval = b & 31, max_lane = c & 0x1f, seg = (c >> 8) & 0x1f;
  int min_lane = lane & seg;
  int max2 = min_lane | (max_lane & ~seg);
  int j;
  bool valid;
  if (mode == "idx") {
    j = min_lane | (bval & ~seg);
    valid = j <= max2;
  } else if (mode == "up") {
    j = lane - int(bval);
    valid = j >= max2;
  } else if (mode == "down") {
    j = lane + int(bval);
    valid = j <= max2;
  } else {
    j = lane ^ int(bval);
    valid = j <= max2;
  }
  return valid ? j : -1;
}

struct ShflCase {
  std::string mode;
  std::string b;  // PTX operand: an immediate, or %r3 = (7 * lane + 3) & 31
  uint32_t c;
};

TEST(MachineWarpTest, ShflAllModesClampAndSegmask) {
  std::vector<ShflCase> cases;
  for (const char* mode : {"idx", "up", "down", "bfly"}) {
    for (const char* b : {"0", "1", "2", "5", "13", "31", "%r3"}) {
      for (uint32_t c :
           {0x1fu, 0x0u, 0x181fu, 0x1800u, 0x1c03u, 0x0007u, 0x1f1fu, 0x100fu}) {
        cases.push_back({mode, b, c});
      }
    }
  }
  std::string body =
      "  mad.lo.u32 %r3, %r0, 7, 3;\n  and.b32 %r3, %r3, 31;\n"
      "  mad.lo.u32 %r1, %r0, 4096, 5;\n";
  for (size_t k = 0; k < cases.size(); ++k) {
    absl::StrAppend(&body, "  shfl.sync.", cases[k].mode, ".b32 %r4|%p1, %r1, ",
                    cases[k].b, ", ", cases[k].c, ", -1;\n  selp.u32 %r5, 1, 0, %p1;\n",
                    "  st.global.v2.u32 [%rd2+", 8 * k, "], {%r4, %r5};\n");
  }
  BodyOptions o;
  o.threads = 32;
  o.stride = static_cast<uint32_t>(8 * cases.size());
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.Counter("shfl"), static_cast<int64_t>(cases.size()));
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int lane = 0; lane < 32; ++lane) {
      uint32_t b = cases[k].b == "%r3" ? (7 * lane + 3) & 31 : std::stoul(cases[k].b);
      int j = ShflSource(cases[k].mode, lane, b, cases[k].c);
      uint32_t want = (j < 0 ? lane : j) * 4096 + 5;
      size_t word = (lane * cases.size() + k) * 2;
      ASSERT_EQ(r.At<uint32_t>(word), want)
          << cases[k].mode << " b=" << cases[k].b << " c=0x" << std::hex << cases[k].c
          << std::dec << " lane " << lane;
      ASSERT_EQ(r.At<uint32_t>(word + 1), j >= 0 ? 1u : 0u)
          << cases[k].mode << " lane " << lane;
    }
  }
}

TEST(MachineWarpTest, ShflLiteralCudaIdioms) {
  // __shfl_sync(v, 3, width 8), __shfl_up_sync(v, 2, 8), __shfl_down_sync(v, 2, 8),
  // __shfl_xor_sync(v, 4, 8).
  std::string body = R"(
  shfl.sync.idx.b32 %r1, %r0, 3, 0x181f, -1;
  shfl.sync.up.b32 %r2|%p1, %r0, 2, 0x1800, -1;
  shfl.sync.down.b32 %r3|%p2, %r0, 2, 0x181f, -1;
  shfl.sync.bfly.b32 %r4, %r0, 4, 0x181f, -1;
  st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
)";
  BodyOptions o;
  o.stride = 16;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  EXPECT_EQ(r.At<uint32_t>(13 * 4 + 0), 11u);  // lane 13: segment 8..15, lane 3 of it
  EXPECT_EQ(r.At<uint32_t>(9 * 4 + 1), 9u);    // lane 9: 7 is outside its segment -> own
  EXPECT_EQ(r.At<uint32_t>(10 * 4 + 1), 8u);
  EXPECT_EQ(r.At<uint32_t>(14 * 4 + 2), 14u);  // 16 is past the segment -> own
  EXPECT_EQ(r.At<uint32_t>(13 * 4 + 2), 15u);
  EXPECT_EQ(r.At<uint32_t>(3 * 4 + 3), 7u);
}

TEST(MachineWarpTest, ShflWithPerHalfMembermasks) {
  // Lanes 0-15 and 16-31 synchronise separately (non-uniform member masks).
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 16;
  selp.b32 %r1, 0x0000FFFF, 0xFFFF0000, %p1;
  shfl.sync.bfly.b32 %r2, %r0, 1, 0x1f, %r1;
  st.global.u32 [%rd2], %r2;
)";
  BodyOptions o;
  o.stride = 4;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.At<uint32_t>(l), l ^ 1);
}

TEST(MachineWarpTest, ShflInDivergentCodeWaitsForTheWholeMask) {
  // Even lanes reach the shfl first and wait; odd lanes take a detour placed after it
  // and come back: the shfl runs once, for all 32 lanes, with the odd lanes' new values.
  std::string body = R"(
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, %r0;
  @!%p1 bra ODD;
JOIN:
  shfl.sync.bfly.b32 %r3, %r2, 1, 0x1f, -1;
  st.global.u32 [%rd2], %r3;
  bra END;
ODD:
  add.u32 %r2, %r2, 100;
  bra JOIN;
END:
)";
  BodyOptions o;
  o.stride = 4;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t src = l ^ 1;
    EXPECT_EQ(r.At<uint32_t>(l), src + ((src & 1) ? 100 : 0)) << l;
  }
}

TEST(MachineWarpTest, Vote) {
  std::string body = R"(
  setp.lt.u32 %p1, %r0, 5;
  vote.sync.all.pred %p2, %p1, -1;
  vote.sync.any.pred %p3, %p1, -1;
  vote.sync.uni.pred %p4, %p1, -1;
  vote.sync.ballot.b32 %r1, %p1, -1;
  vote.sync.ballot.b32 %r2, !%p1, -1;
  setp.eq.u32 %p6, 1, 1;
  vote.sync.uni.pred %p5, %p6, -1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p4;
  selp.u32 %r6, 1, 0, %p5;
  st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
  st.global.v2.u32 [%rd2+16], {%r1, %r2};
)";
  BodyOptions o;
  o.stride = 32;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.At<uint32_t>(8 * l + 0), 0u);
    EXPECT_EQ(r.At<uint32_t>(8 * l + 1), 1u);
    EXPECT_EQ(r.At<uint32_t>(8 * l + 2), 0u);
    EXPECT_EQ(r.At<uint32_t>(8 * l + 3), 1u);
    EXPECT_EQ(r.At<uint32_t>(8 * l + 4), 0x1Fu);
    EXPECT_EQ(r.At<uint32_t>(8 * l + 5), 0xFFFFFFE0u);
  }
}

TEST(MachineWarpTest, DivergenceAndReconvergence) {
  std::string body = R"(
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra EVEN;
  mov.u32 %r2, 100;
  activemask.b32 %r4;
  bra JOIN;
EVEN:
  mov.u32 %r2, 200;
  activemask.b32 %r4;
JOIN:
  add.u32 %r2, %r2, %r0;
  activemask.b32 %r3;
  st.global.v4.u32 [%rd2], {%r2, %r3, %r4, 0};
)";
  BodyOptions o;
  o.stride = 16;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.At<uint32_t>(4 * l), l + ((l & 1) ? 100 : 200));
    EXPECT_EQ(r.At<uint32_t>(4 * l + 1), 0xFFFFFFFFu) << "reconverged at JOIN";
    EXPECT_EQ(r.At<uint32_t>(4 * l + 2), (l & 1) ? 0xAAAAAAAAu : 0x55555555u);
  }
}

TEST(MachineWarpTest, PerLaneLoopTripCounts) {
  // Lane l loops l times: sum = l*(l-1)/2; lanes leave the loop one by one.
  std::string body = R"(
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
  setp.eq.u32 %p1, %r0, 0;
  @%p1 bra DONE;
LOOP:
  add.u32 %r1, %r1, %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, %r0;
  @%p2 bra LOOP;
DONE:
  activemask.b32 %r3;
  st.global.v2.u32 [%rd2], {%r1, %r3};
)";
  BodyOptions o;
  o.stride = 8;
  o.threads = 40;  // a partial second warp
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t t = 0; t < 40; ++t) {
    EXPECT_EQ(r.At<uint32_t>(2 * t), t * (t - 1) / 2) << t;
    EXPECT_EQ(r.At<uint32_t>(2 * t + 1), t < 32 ? 0xFFFFFFFFu : 0xFFu);
  }
}

TEST(MachineWarpTest, PredicatedExitAndPartialWarps) {
  std::string body = R"(
  setp.ge.u32 %p1, %r0, 20;
  @%p1 exit;
  shfl.sync.idx.b32 %r1, %r0, 19, 0x1f, 0xFFFFF;
  bar.sync 0;
  st.global.u32 [%rd2], %r1;
)";
  BodyOptions o;
  o.threads = 48;
  o.stride = 4;
  ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
  ASSERT_TRUE(r.report.ok()) << r.Faults();
  for (uint32_t t = 0; t < 20; ++t) EXPECT_EQ(r.At<uint32_t>(t), 19u);
  for (uint32_t t = 20; t < 48; ++t) EXPECT_EQ(r.At<uint32_t>(t), 0u);
}

// ---- ldmatrix / stmatrix -------------------------------------------------------------

// Shared memory holds u16 element e at byte 2e (copied from the IOTA input). Lane
// 8i + r points at row r of matrix i: rows are 16 bytes, placed at `row_stride`.
std::string LoadMatrixBody(int num, bool trans, uint32_t row_stride) {
  std::string regs, store;
  for (int i = 0; i < num; ++i) {
    absl::StrAppend(&regs, i ? ", " : "", "%r", 10 + i);
    absl::StrAppend(&store, "  st.global.u32 [%rd2+", 4 * i, "], %r", 10 + i, ";\n");
  }
  return absl::StrCat(R"(
  // Copy 4096 bytes of IOTA into shared memory: thread t copies 128 bytes.
  mov.u32 %r1, 0;
COPY:
  mad.lo.u32 %r2, %r0, 128, %r1;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r3, [%rd4];
  mov.u32 %r6, smem;
  add.u32 %r6, %r6, %r2;
  st.shared.u32 [%r6], %r3;
  add.u32 %r1, %r1, 4;
  setp.lt.u32 %p1, %r1, 128;
  @%p1 bra COPY;
  bar.sync 0;
)",
                      "  mul.lo.u32 %r4, %r0, ", row_stride, ";\n  mov.u32 %r5, smem;\n",
                      "  add.u32 %r4, %r4, %r5;\n  ldmatrix.sync.aligned.m8n8.x", num,
                      trans ? ".trans" : "", ".shared.b16 {", regs, "}, [%r4];\n", store);
}

TEST(MachineWarpTest, LdmatrixLayouts) {
  for (int num : {1, 2, 4}) {
    for (bool trans : {false, true}) {
      for (uint32_t row_stride : {16u, 48u}) {
        std::string body = LoadMatrixBody(num, trans, row_stride);
        BodyOptions o;
        o.stride = 16;
        o.extra_decls = ".shared .align 16 .b8 smem[4096];";
        SCOPED_TRACE(
            absl::StrCat("x", num, trans ? ".trans" : "", " stride ", row_stride));
        ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
        ASSERT_TRUE(r.report.ok()) << r.Faults();
        // Element (row, col) of matrix i is u16 number (8i + row) * row_stride / 2 + col.
        auto elem = [&](int i, int row, int col) {
          return uint32_t((8 * i + row) * row_stride / 2 + col);
        };
        for (int t = 0; t < 32; ++t) {
          for (int i = 0; i < num; ++i) {
            uint32_t got = r.At<uint32_t>(4 * t + i);
            uint32_t lo, hi;
            if (!trans) {
              lo = elem(i, t / 4, 2 * (t % 4));
              hi = elem(i, t / 4, 2 * (t % 4) + 1);
            } else {
              lo = elem(i, 2 * (t % 4), t / 4);
              hi = elem(i, 2 * (t % 4) + 1, t / 4);
            }
            ASSERT_EQ(got, (hi << 16) | lo) << "lane " << t << " reg " << i;
          }
        }
        EXPECT_EQ(r.Counter("class.ldmatrix"), 1);
      }
    }
  }
}

TEST(MachineWarpTest, StmatrixIsTheInverseOfLdmatrix) {
  for (int num : {1, 2, 4}) {
    for (bool trans : {false, true}) {
      std::string regs;
      for (int i = 0; i < num; ++i) absl::StrAppend(&regs, i ? ", " : "", "%r", 10 + i);
      // Registers hold distinct values; stmatrix writes them, ldmatrix reads them back;
      // a plain load shows the layout in memory.
      std::string body = absl::StrCat(
          "  mad.lo.u32 %r10, %r0, 0x00010001, 0x01000100;\n"
          "  add.u32 %r11, %r10, 0x00200020;\n  add.u32 %r12, %r10, 0x00400040;\n"
          "  add.u32 %r13, %r10, 0x00600060;\n"
          "  mul.lo.u32 %r4, %r0, 16;\n  mov.u32 %r5, smem;\n  add.u32 %r4, %r4, %r5;\n"
          "  stmatrix.sync.aligned.m8n8.x",
          num, trans ? ".trans" : "", ".shared.b16 [%r4], {", regs,
          "};\n"
          "  ldmatrix.sync.aligned.m8n8.x",
          num, trans ? ".trans" : "", ".shared.b16 {%r20", num > 1 ? ", %r21" : "",
          num > 2 ? ", %r22, %r23" : "", "}, [%r4];\n",
          "  st.global.v4.u32 [%rd2], {%r20, %r21, %r22, %r23};\n"
          "  mul.lo.u32 %r6, %r0, 4;\n  add.u32 %r6, %r6, %r5;\n  ld.shared.u32 %r7, "
          "[%r6];\n"
          "  st.global.u32 [%rd2+16], %r7;\n");
      BodyOptions o;
      o.stride = 32;
      o.extra_decls = ".shared .align 16 .b8 smem[512];";
      SCOPED_TRACE(absl::StrCat("x", num, trans ? ".trans" : ""));
      ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
      ASSERT_TRUE(r.report.ok()) << r.Faults();
      for (uint32_t t = 0; t < 32; ++t) {
        uint32_t r10 = t * 0x00010001u + 0x01000100u;
        uint32_t want[4] = {r10, r10 + 0x00200020u, r10 + 0x00400040u, r10 + 0x00600060u};
        for (int i = 0; i < num; ++i) EXPECT_EQ(r.At<uint32_t>(8 * t + i), want[i]) << t;
      }
      if (!trans) {
        // Word w of matrix 0 (row w/4, columns 2(w%4)..) comes from lane w's register 0.
        for (uint32_t w = 0; w < 32; ++w) {
          EXPECT_EQ(r.At<uint32_t>(8 * w + 4), w * 0x00010001u + 0x01000100u);
        }
      } else {
        // Element (row, col) of matrix 0 comes from lane 4*col + row/2, half row%2.
        for (uint32_t w = 0; w < 32; ++w) {
          uint32_t row = w / 4, col0 = 2 * (w % 4);
          auto half = [&](uint32_t col) {
            uint32_t lane = 4 * col + row / 2;
            uint32_t v = lane * 0x00010001u + 0x01000100u;
            return (row % 2) ? v >> 16 : v & 0xFFFF;
          };
          EXPECT_EQ(r.At<uint32_t>(8 * w + 4), half(col0) | half(col0 + 1) << 16) << w;
        }
      }
    }
  }
}

}  // namespace
}  // namespace warpcheck::sim::machine
