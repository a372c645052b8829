// The shared-memory planners' bank costs (sim/plan/lane_cost.h) against the bank model
// itself: the closed form (rank of the keys' span over rank of their banks) must give
// the bank model's wavefronts and minimum for every linear access, and the accesses it
// does not take (lane masks of another form, misaligned wide accesses) must still get
// the bank model's figure.
#include "sim/plan/lane_cost.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "sim/bank/bank_model.h"
#include "sim/plan/f2_span.h"

namespace warpcheck::sim::plan {
namespace {

// The bank model's cost of the access, lane by lane (the definition LaneRequestCost
// states).
bank::BankCost ModelLaneCost(const uint32_t lanes[5], uint32_t mask, uint32_t bytes,
                             uint32_t element_bytes) {
  uint32_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t offset = 0;
    for (int j = 0; j < 5; ++j) if ((l >> j) & 1) offset ^= lanes[j];
    addr[l] = offset * element_bytes;
  }
  return bank::SharedRequestCost(addr, mask, bytes);
}

uint32_t LanesWithout(uint32_t z) {
  uint32_t mask = 0;
  for (uint32_t l = 0; l < 32; ++l) if ((l & z) == 0) mask |= 1u << l;
  return mask;
}

TEST(LaneCost, ClosedFormIsTheBankModel) {
  std::mt19937 rng(7);
  int closed = 0;
  for (int t = 0; t < 20000; ++t) {
    uint32_t lanes[5];
    // Small offsets so that lanes share banks and words often; sometimes a zero image.
    const uint32_t range = 1u << (4 + rng() % 10);
    for (uint32_t& v : lanes) v = rng() % 5 == 0 ? 0 : rng() % range;
    const uint32_t eb = 1u << (rng() % 4);
    uint32_t bytes = eb << (rng() % 3);
    if (bytes > 16) bytes = 16;
    if (bytes > 4 && rng() % 2 == 0) {
      for (uint32_t& v : lanes) v &= ~((bytes / eb) - 1);  // aligned wide accesses
    }
    const uint32_t mask = rng() % 8 == 0 ? static_cast<uint32_t>(rng()) : LanesWithout(rng() % 32);
    const bank::BankCost want = ModelLaneCost(lanes, mask, bytes, eb);
    const bank::BankCost got = LaneRequestCost(lanes, mask, bytes, eb);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << t;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << t;
    closed += LinearLaneRequestCost(lanes, mask, bytes, eb).has_value();
  }
  EXPECT_GT(closed, 10000);  // most trials exercise the closed form
}

// The helpers the bank searches' bounds use (ActiveLanes, ActiveGroups: the least
// wavefronts of an access) against their definitions and the bank model.
TEST(LaneCost, ActiveLanesAndGroupsAreTheBankModelsMinimum) {
  std::mt19937 rng(11);
  for (uint32_t z = 0; z < 1024; ++z) EXPECT_EQ(ActiveLanes(z), LanesWithout(z)) << z;
  for (int t = 0; t < 5000; ++t) {
    uint32_t lanes[5];
    for (uint32_t& v : lanes) v = (rng() % 64) * 4;  // 16-byte aligned for every width
    const uint32_t mask = t % 3 == 0 ? static_cast<uint32_t>(rng()) : ActiveLanes(rng() % 32);
    for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u}) {
      const bank::BankCost model = ModelLaneCost(lanes, mask, bytes, 4);
      ASSERT_EQ(ActiveGroups(mask, bytes), model.minimum) << "trial " << t << ", " << bytes;
      ASSERT_GE(model.wavefronts, ActiveGroups(mask, bytes));
    }
  }
  EXPECT_EQ(ActiveGroups(0, 16), 0u);
  EXPECT_EQ(ActiveGroups(1u << 31, 16), 1u);
  EXPECT_EQ(ActiveGroups(0x01010101u, 16), 4u);
  EXPECT_EQ(ActiveGroups(0x01010101u, 8), 2u);
}

TEST(LaneCost, PopcountCountsBits) {
  std::mt19937 rng(5);
  for (int t = 0; t < 10000; ++t) {
    const uint32_t x = static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng());
    int want = 0;
    for (int b = 0; b < 32; ++b) want += (x >> b) & 1;
    ASSERT_EQ(Popcount(x), want) << x;
  }
}

TEST(LaneCost, StrideTwoWordsIsTwoWavefronts) {
  // Lane l reads 4 bytes at 8 l: banks 0, 2, ..., 30 twice each (the bank model's example).
  const uint32_t lanes[5] = {2, 4, 8, 16, 32};
  const bank::BankCost c = LaneRequestCost(lanes, 0xffffffffu, 4, 4);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.minimum, 1u);
  ASSERT_TRUE(LinearLaneRequestCost(lanes, 0xffffffffu, 4, 4).has_value());
}

TEST(LaneCost, MatrixClosedFormIsTheBankModel) {
  std::mt19937 rng(11);
  for (int t = 0; t < 20000; ++t) {
    uint32_t rows[3], sel[2];
    const uint32_t range = 1u << (3 + rng() % 10);
    const bool aligned = rng() % 4 != 0;
    for (uint32_t& v : rows) v = (rng() % range) & (aligned ? ~7u : ~0u);
    for (uint32_t& v : sel) v = (rng() % range) & (aligned ? ~7u : ~0u);
    const int sels = static_cast<int>(rng() % 3);
    const uint32_t eb = 2;
    uint32_t addr[32] = {};
    for (int i = 0; i < (1 << sels); ++i) {
      for (uint32_t r = 0; r < 8; ++r) {
        uint32_t o = 0;
        for (int k = 0; k < 3; ++k) if ((r >> k) & 1) o ^= rows[k];
        for (int k = 0; k < 2; ++k) if ((i >> k) & 1) o ^= sel[k];
        addr[8 * i + r] = o * eb;
      }
    }
    const bank::BankCost want = bank::MatrixRequestCost(addr, 1 << sels);
    const bank::BankCost got = MatrixRowsCost(rows, sel, sels, eb);
    ASSERT_EQ(got.wavefronts, want.wavefronts) << "trial " << t;
    ASSERT_EQ(got.minimum, want.minimum) << "trial " << t;
  }
}

// The memo's entries are not cleared when it is made (a bit per entry says which hold a
// cost): a fresh memo must compute every key it has not seen, whatever its storage held,
// and return the stored cost only for the same (key, a, b).
TEST(LaneCost, MemoComputesUnseenKeysAndReturnsStoredOnes) {
  for (uint32_t round = 0; round < 3; ++round) {
    BankCostMemo<64> memo;  // on the stack: its entries hold whatever was there
    int computed = 0;
    auto cost_of = [&](uint32_t w) {
      return [&computed, w] {
        ++computed;
        return bank::BankCost{w, w / 2};
      };
    };
    std::mt19937 rng(11 + round);
    std::vector<std::array<uint32_t, 7>> seen;
    for (int t = 0; t < 200; ++t) {
      std::array<uint32_t, 7> k;
      for (uint32_t& x : k) x = rng() % 2;  // 128 keys: hits and collisions
      // Each round's costs differ, so an entry left by an earlier round's memo in the same
      // storage would show.
      const uint32_t w = 1000 * round + k[0] + 2 * k[1] + 4 * k[2] + 8 * k[3] + 16 * k[4] +
                         32 * k[5] + 64 * k[6];
      const int before = computed;
      const bank::BankCost c = memo.Get(k.data(), k[5], k[6], cost_of(w));
      EXPECT_EQ(c.wavefronts, w);
      EXPECT_EQ(c.minimum, w / 2);
      if (std::find(seen.begin(), seen.end(), k) == seen.end()) {
        EXPECT_EQ(computed, before + 1) << "an unseen key must be computed";
        seen.push_back(k);
      }
    }
    EXPECT_LT(computed, 200);  // some were served from the memo
  }
}

// Regression (UBSan, tools/sanitize.sh): the planners add more than 32 generators to a
// span to test independence (FindCosetPattern: all 32 lanes of a kernel, then more); the
// 33rd shifted 1u by 32. Rank and membership must stay right past 32, and the solutions
// of a span of at most 32 generators must still name them.
TEST(F2SpanTest, MoreThan32GeneratorsKeepRankAndMembership) {
  F2Span span;
  int independent = 0;
  for (uint32_t v = 1; v <= 40; ++v) independent += span.Add(v * 0x9e3779b1u) ? 1 : 0;
  EXPECT_EQ(span.count(), 40);
  EXPECT_EQ(span.rank(), independent);
  EXPECT_LE(span.rank(), 32);
  for (uint32_t v = 1; v <= 40; ++v) EXPECT_TRUE(span.Contains(v * 0x9e3779b1u)) << v;

  F2Span low;
  for (uint32_t b = 0; b < 5; ++b) low.Add(1u << b);
  for (uint32_t b = 0; b < 40; ++b) low.Add(b & 31);  // dependent on the first five
  EXPECT_EQ(low.rank(), 5);
  EXPECT_TRUE(low.Contains(31));
  EXPECT_FALSE(low.Contains(32));

  F2Span small(std::vector<uint32_t>{0b011, 0b110, 0b101, 0b1000});
  ASSERT_TRUE(small.Solve(0b1011).has_value());
  EXPECT_EQ(*small.Solve(0b1011), 0b1001u);  // 0b011 ^ 0b1000; the dependent 0b101 is 0
  EXPECT_FALSE(small.Solve(0b10000).has_value());
}

// OffsetMoves::With (SmemPlanner's MoveKeeps reads the moved images' bits off it) must
// name exactly the entries whose offset has the bit, after any sequence of moves.
TEST(OffsetMovesTest, WithNamesTheEntriesThatHaveTheBitAfterMoves) {
  std::mt19937 rng(11);
  for (int t = 0; t < 200; ++t) {
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<uint32_t> v(static_cast<size_t>(n));
    for (uint32_t& o : v) o = rng() % 4096;
    OffsetMoves moves(v.data(), n);
    ASSERT_TRUE(moves.tracked());
    for (int m = 0; m < 20; ++m) {
      const int j = static_cast<int>(rng() % 12);
      const int k = static_cast<int>(rng() % 12);
      if (j == k) continue;
      moves.Move(v.data(), n, j, k);
      for (int b = 0; b < 12; ++b) {
        uint64_t want = 0;
        for (int i = 0; i < n; ++i) if ((v[static_cast<size_t>(i)] >> b) & 1) want |= uint64_t{1} << i;
        ASSERT_EQ(moves.With(b), want) << "trial " << t << " move " << m << " bit " << b;
      }
    }
  }
  std::vector<uint32_t> many(65, 1);
  EXPECT_FALSE(OffsetMoves(many.data(), 65).tracked());
}

// OffsetMap (both bank searches invert every basis they price with it) must be the
// inverse of the basis: the combination it gives for an offset makes that offset. Bases
// of the kind the planners make (n directions below 2^n, invertible): unit vectors in
// any order under random swizzle moves (the sparse rows of the fast path), dense ones
// after many moves, and 32 directions (the F2Span fallback).
TEST(OffsetMapTest, GivesTheCombinationThatMakesEachOffset) {
  std::mt19937 rng(7);
  for (int t = 0; t < 600; ++t) {
    const int n = t % 50 == 0 ? 32 : 1 + static_cast<int>(rng() % 16);
    std::vector<uint32_t> basis(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) basis[static_cast<size_t>(i)] = 1u << i;
    std::shuffle(basis.begin(), basis.end(), rng);
    const int moves = t % 3 == 0 ? 4 * n * n : static_cast<int>(rng() % 8);
    for (int m = 0; m < moves && n > 1; ++m) {
      const size_t j = rng() % static_cast<size_t>(n), k = rng() % static_cast<size_t>(n);
      if (j != k) basis[k] ^= basis[j];  // keeps the rank
    }
    const OffsetMap map(basis);
    const uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
    for (int e = 0; e < n; ++e) {
      ASSERT_EQ(ApplyBasis(basis, map(1u << e)), 1u << e) << "trial " << t << " bit " << e;
    }
    for (int r = 0; r < 8; ++r) {
      const uint32_t o = static_cast<uint32_t>(rng()) & all;
      ASSERT_EQ(ApplyBasis(basis, map(o)), o) << "trial " << t;
    }
  }
}

}  // namespace
}  // namespace warpcheck::sim::plan
