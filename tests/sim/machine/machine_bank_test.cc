// The bank model (shared/spec/ptx-subset.md "Counters and the bank model") on
// hand-written access patterns: conflict-free, 2-way, 32-way, broadcast, sub-word,
// 8-byte and 16-byte vectors, partial warps, ldmatrix/stmatrix rows; and the same
// numbers through the machine's counters.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/bank/bank_model.h"
#include "sim/machine/machine.h"
#include "tests/sim/machine/machine_test_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::machine {
using bank::BankCost;
using bank::MatrixRequestCost;
using bank::SharedRequestCost;
namespace {

using testing::BodyOptions;
using testing::BodyRun;
using testing::RunBody;

BankCost Pattern(uint32_t bytes, uint32_t mask, uint32_t (*addr)(uint32_t lane)) {
  uint32_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = addr(l);
  return SharedRequestCost(a, mask, bytes);
}

// The model as the spec words it, by sorting each group's words (the model counts
// distinct words per bank without sorting).
BankCost ReferenceCost(const uint32_t addr[32], uint32_t mask, uint32_t bytes) {
  const uint32_t group = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  const uint32_t words_per_lane = bytes <= 4 ? 1 : bytes / 4;
  BankCost cost;
  for (uint32_t g = 0; g < 32; g += group) {
    std::vector<uint32_t> words;
    for (uint32_t l = g; l < g + group; ++l) {
      if (!((mask >> l) & 1)) continue;
      for (uint32_t k = 0; k < words_per_lane; ++k) words.push_back(addr[l] / 4 + k);
    }
    if (words.empty()) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    uint32_t per_bank[32] = {}, worst = 1;
    for (uint32_t w : words) worst = std::max(worst, ++per_bank[w % 32]);
    cost.wavefronts += worst;
    cost.minimum += 1;
  }
  return cost;
}

TEST(MachineBankTest, RandomRequestsMatchTheSortingReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t bytes = 1u << (rng() % 5);
    // Few distinct words so that banks collide and words repeat (broadcasts).
    const uint32_t span = 1u << (rng() % 12);
    uint32_t addr[32];
    for (uint32_t& a : addr) a = (rng() % span) * bytes;
    const uint32_t mask = trial % 3 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
    BankCost want = ReferenceCost(addr, mask, bytes);
    BankCost got = SharedRequestCost(addr, mask, bytes);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
}

// Requests whose lanes (or wide lanes' bank blocks) fall in distinct banks, which the
// model answers without counting (one wavefront per group), and the same requests with
// one lane moved onto another lane's bank (a conflict) or word (a broadcast).
TEST(MachineBankTest, ConflictFreeRequestsMatchTheSortingReference) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t bytes = 1u << (rng() % 5);
    const uint32_t units = bytes <= 4 ? 32 : 128 / bytes;  // distinct slots per bank row
    uint32_t perm[32];
    for (uint32_t l = 0; l < 32; ++l) perm[l] = l % units;
    std::shuffle(perm, perm + 32, rng);
    uint32_t addr[32];
    for (uint32_t l = 0; l < 32; ++l) addr[l] = (perm[l] + units * (rng() % 64)) * bytes;
    if (trial % 4 == 1) addr[rng() % 32] = addr[rng() % 32] + 128 * (1 + rng() % 8);
    if (trial % 4 == 2) addr[rng() % 32] = addr[rng() % 32];
    const uint32_t mask = trial % 3 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
    BankCost want = ReferenceCost(addr, mask, bytes);
    BankCost got = SharedRequestCost(addr, mask, bytes);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
}

// What SharedCostMemo relies on: moving every lane by one multiple of 128 bytes keeps
// the cost (aligned, misaligned and sub-word requests, any mask); and the memo itself,
// over runs of requests at a few pcs where most are such shifted repeats of the last or
// of an earlier request (a hit in one of a set's ways, or a miss once evicted) and the
// rest differ in one lane, the mask or the size (a miss), always answers as the model.
TEST(MachineBankTest, ShiftedRequestsCostTheSame) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t bytes = 1u << (rng() % 5);
    const uint32_t span = 1u << (rng() % 12);
    const uint32_t unit = trial % 2 == 0 ? bytes : std::min<uint32_t>(bytes, 4);
    uint32_t addr[32], moved[32];
    const uint32_t shift = 128 * (rng() % 1024);
    for (uint32_t l = 0; l < 32; ++l) {
      addr[l] = (rng() % span) * unit;
      moved[l] = addr[l] + shift;
    }
    const uint32_t mask = trial % 3 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
    const BankCost want = SharedRequestCost(addr, mask, bytes);
    const BankCost got = SharedRequestCost(moved, mask, bytes);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
  SharedCostMemo memo;
  int hits_possible = 0;
  struct Request {
    uint32_t addr[32];
    uint32_t mask, bytes;
  };
  Request r{{}, 0xFFFFFFFFu, 4};
  for (uint32_t& a : r.addr) a = (rng() % 256) * 4;
  std::vector<Request> earlier;  // the last few requests made by case 0
  for (int trial = 0; trial < 50000; ++trial) {
    // Mostly one instruction; sometimes others (16 sets: pcs 7, 23, 39, ... share one).
    const uint32_t pc = rng() % 4 == 0 ? rng() % 100 : 7;
    switch (rng() % 8) {
      case 0:  // another request
        r.bytes = 1u << (rng() % 5);
        for (uint32_t& a : r.addr) a = (rng() % (1u << (rng() % 10))) * r.bytes;
        r.mask = rng() % 2 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
        earlier.push_back(r);
        if (earlier.size() > 6) earlier.erase(earlier.begin());
        break;
      case 1:  // one lane elsewhere
        r.addr[rng() % 32] = (rng() % 64) * r.bytes;
        break;
      case 2:  // one lane more or less
        r.mask ^= 1u << (rng() % 32);
        break;
      case 3:  // an earlier request again (another way of the set, or evicted), shifted
        if (!earlier.empty()) {
          ++hits_possible;
          r = earlier[rng() % earlier.size()];
          const uint32_t shift = 128 * (rng() % 64);
          for (uint32_t& a : r.addr) a += shift;
        }
        break;
      default:  // the same request shifted, sometimes by a non-multiple of 128
        ++hits_possible;
        const uint32_t shift = rng() % 4 == 0 ? r.bytes * (rng() % 32) : 128 * (rng() % 64);
        for (uint32_t& a : r.addr) a += shift;
        break;
    }
    const BankCost want = SharedRequestCost(r.addr, r.mask, r.bytes);
    const BankCost got = memo.Cost(pc, r.addr, r.mask, r.bytes);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
  EXPECT_GT(hits_possible, 20000);
}

// Misaligned wide accesses (outside SharedRequestCost's contract, which the aligned
// fast path relies on) still get the per-word figure.
TEST(MachineBankTest, RandomMisalignedRequestsMatchTheSortingReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t bytes = 8u << (rng() % 2);
    const uint32_t span = 1u << (rng() % 12);
    uint32_t addr[32];
    for (uint32_t& a : addr) a = (rng() % span) * 4;
    const uint32_t mask = trial % 3 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
    BankCost want = ReferenceCost(addr, mask, bytes);
    BankCost got = SharedRequestCost(addr, mask, bytes);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
}

// Each 8x8 matrix is the group of 8 lanes reading 16 bytes at its row addresses, with
// 16-byte aligned rows (the fast path) and 4-byte aligned ones.
TEST(MachineBankTest, RandomMatrixRowsMatchTheSortingReference) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 20000; ++trial) {
    const int matrices = 1 << (rng() % 3);
    const uint32_t align = trial % 2 == 0 ? 16 : 4;
    const uint32_t span = 1u << (rng() % 10);
    uint32_t rows[32];
    for (uint32_t& r : rows) r = (rng() % span) * align;
    BankCost want;
    for (int i = 0; i < matrices; ++i) {
      BankCost m = ReferenceCost(rows + 8 * i, 0xFFu, 16);
      want.wavefronts += m.wavefronts;
      want.minimum += m.minimum;
    }
    BankCost got = MatrixRequestCost(rows, matrices);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << trial;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << trial;
  }
}

TEST(MachineBankTest, FourByteAccesses) {
  BankCost c = Pattern(4, ~0u, [](uint32_t l) { return 4 * l; });
  EXPECT_EQ(c.wavefronts, 1u);
  EXPECT_EQ(c.conflicts(), 0u);
  c = Pattern(4, ~0u, [](uint32_t l) { return 8 * l; });  // stride 2 words
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.conflicts(), 1u);
  c = Pattern(4, ~0u, [](uint32_t l) { return 128 * l; });  // one bank
  EXPECT_EQ(c.wavefronts, 32u);
  EXPECT_EQ(c.conflicts(), 31u);
  c = Pattern(4, ~0u, [](uint32_t l) { return 12 * l; });  // odd stride: conflict-free
  EXPECT_EQ(c.wavefronts, 1u);
  c = Pattern(4, ~0u, [](uint32_t) { return 64u; });  // broadcast
  EXPECT_EQ(c.wavefronts, 1u);
  EXPECT_EQ(c.conflicts(), 0u);
  c = Pattern(4, ~0u,
              [](uint32_t l) { return 4 * (l / 2) + 128 * (l % 2) * 0; });  // pairs share
  EXPECT_EQ(c.wavefronts, 1u);
  c = Pattern(4, ~0u,
              [](uint32_t l) { return (l % 2) ? 128u : 0u; });  // two words, one bank
  EXPECT_EQ(c.wavefronts, 2u);
  // Swizzled column of a 32x32 f32 tile: word (l, l ^ col) -> conflict-free.
  c = Pattern(4, ~0u, [](uint32_t l) { return 128 * l + 4 * (l ^ 5); });
  EXPECT_EQ(c.wavefronts, 1u);
}

TEST(MachineBankTest, SubWordAccesses) {
  EXPECT_EQ(Pattern(2, ~0u, [](uint32_t l) { return 2 * l; }).wavefronts, 1u);
  EXPECT_EQ(Pattern(1, ~0u, [](uint32_t l) { return l; }).wavefronts, 1u);
  // Two bytes in different words of one bank.
  EXPECT_EQ(Pattern(1, ~0u, [](uint32_t l) { return l < 16 ? 0u : 129u; }).wavefronts,
            2u);
}

TEST(MachineBankTest, EightAndSixteenByteAccesses) {
  BankCost c = Pattern(8, ~0u, [](uint32_t l) { return 8 * l; });
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.minimum, 2u);
  EXPECT_EQ(c.conflicts(), 0u);
  c = Pattern(8, ~0u, [](uint32_t l) { return 16 * l; });
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.conflicts(), 2u);
  c = Pattern(16, ~0u, [](uint32_t l) { return 16 * l; });
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.minimum, 4u);
  EXPECT_EQ(c.conflicts(), 0u);
  c = Pattern(16, ~0u, [](uint32_t l) { return 32 * l; });
  EXPECT_EQ(c.wavefronts, 8u);
  EXPECT_EQ(c.conflicts(), 4u);
  // Only lanes 0-7 take part: one group.
  c = Pattern(16, 0xFFu, [](uint32_t l) { return 16 * l; });
  EXPECT_EQ(c.wavefronts, 1u);
  EXPECT_EQ(c.minimum, 1u);
  // Broadcast of one 16-byte vector to all lanes: one wavefront per group.
  c = Pattern(16, ~0u, [](uint32_t) { return 0u; });
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.conflicts(), 0u);
}

TEST(MachineBankTest, MatrixRows) {
  uint32_t rows[32];
  for (uint32_t r = 0; r < 32; ++r) rows[r] = 16 * r;  // contiguous 8x16-byte matrices
  BankCost c = MatrixRequestCost(rows, 4);
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.conflicts(), 0u);
  for (uint32_t r = 0; r < 32; ++r) rows[r] = 128 * r;  // every row at bank 0
  c = MatrixRequestCost(rows, 4);
  EXPECT_EQ(c.wavefronts, 32u);
  EXPECT_EQ(c.conflicts(), 28u);
  for (uint32_t r = 0; r < 32; ++r) rows[r] = 128 * r + 16 * ((r % 8) ^ 0);  // swizzled
  c = MatrixRequestCost(rows, 2);
  EXPECT_EQ(c.wavefronts, 2u);
}

// The machine's counters for one warp-level st.shared and one ld.shared.
struct Counted {
  int64_t wavefronts, conflicts, requests;
};
Counted RunPattern(const std::string& addr_code, const std::string& type, int vec) {
  std::string regs = vec == 1   ? "%r10"
                     : vec == 2 ? "{%r10, %r11}"
                                : "{%r10, %r11, %r12, %r13}";
  if (type == "b64") regs = vec == 1 ? "%rd10" : "{%rd10, %rd11}";
  if (type == "b16") regs = "%h10";
  std::string vs = vec == 1 ? "" : absl::StrCat(".v", vec);
  std::string body =
      absl::StrCat("  mov.u32 %r1, smem;\n", addr_code, "\n  add.u32 %r1, %r1, %r2;\n",
                   "  ld.shared", vs, ".", type, " ", regs, ", [%r1];\n");
  BodyOptions o;
  o.extra_decls = ".shared .align 16 .b8 smem[8192];";
  absl::StatusOr<BodyRun> r = RunBody(body, o);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_TRUE(r->report.ok()) << r->Faults();
  return {r->Counter("smem_wavefronts.load"), r->Counter("bank_conflicts.load"),
          r->Counter("smem_requests.load")};
}

TEST(MachineBankTest, CountersThroughTheMachine) {
  Counted c = RunPattern("  shl.b32 %r2, %r0, 2;", "b32", 1);
  EXPECT_EQ(c.requests, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.conflicts, 0);
  c = RunPattern("  shl.b32 %r2, %r0, 3;", "b32", 1);  // 2-way
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.conflicts, 1);
  c = RunPattern("  mov.u32 %r2, 0;", "b32", 1);  // broadcast
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.conflicts, 0);
  c = RunPattern("  shl.b32 %r2, %r0, 3;", "b32", 2);  // 8-byte vectors, contiguous
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.conflicts, 0);
  c = RunPattern("  shl.b32 %r2, %r0, 3;", "b64", 1);
  EXPECT_EQ(c.wavefronts, 2);
  c = RunPattern("  shl.b32 %r2, %r0, 4;", "b32", 4);  // 16-byte vectors, contiguous
  EXPECT_EQ(c.wavefronts, 4);
  EXPECT_EQ(c.conflicts, 0);
  c = RunPattern("  shl.b32 %r2, %r0, 5;", "b32", 4);  // 16-byte vectors, stride 32
  EXPECT_EQ(c.wavefronts, 8);
  EXPECT_EQ(c.conflicts, 4);
  c = RunPattern("  shl.b32 %r2, %r0, 7;", "b16", 1);  // 2-byte, every lane in bank 0
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.conflicts, 31);
}

TEST(MachineBankTest, PredicatedLanesAreNotPartOfTheRequest) {
  // Lane l reads word (l % 16) + 32 * (l / 16): the two half-warps hit the same banks
  // (2-way), unless only the first half loads.
  for (bool half : {false, true}) {
    std::string body = absl::StrCat(R"(
  mov.u32 %r1, smem;
  and.b32 %r2, %r0, 15;
  shr.u32 %r3, %r0, 4;
  mad.lo.u32 %r2, %r3, 32, %r2;
  shl.b32 %r2, %r2, 2;
  add.u32 %r1, %r1, %r2;
  setp.lt.u32 %p1, %r0, )",
                                    half ? 16 : 32, R"(;
  @%p1 ld.shared.u32 %r4, [%r1];
)");
    BodyOptions o;
    o.extra_decls = ".shared .align 16 .b8 smem[1024];";
    ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
    EXPECT_EQ(r.Counter("smem_wavefronts.load"), half ? 1 : 2);
    EXPECT_EQ(r.Counter("bank_conflicts"), half ? 0 : 1);
  }
}

TEST(MachineBankTest, LdmatrixCounters) {
  // Rows at stride 128 bytes: every row starts at bank 0 (8-way per matrix); with the
  // usual XOR swizzle (row r at column block r) they are conflict-free.
  for (bool swizzle : {false, true}) {
    std::string body = absl::StrCat(
        "  mov.u32 %r1, smem;\n  shl.b32 %r2, %r0, 7;\n",
        swizzle
            ? "  and.b32 %r3, %r0, 7;\n  shl.b32 %r3, %r3, 4;\n  add.u32 %r2, %r2, %r3;\n"
            : "",
        "  add.u32 %r1, %r1, %r2;\n"
        "  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r1];\n");
    BodyOptions o;
    o.extra_decls = ".shared .align 16 .b8 smem[8192];";
    ASSERT_OK_AND_ASSIGN(BodyRun r, RunBody(body, o));
    ASSERT_TRUE(r.report.ok()) << r.Faults();
    EXPECT_EQ(r.Counter("smem_wavefronts.load"), swizzle ? 4 : 32);
    EXPECT_EQ(r.Counter("bank_conflicts.load"), swizzle ? 0 : 28);
  }
}

}  // namespace
}  // namespace warpcheck::sim::machine
