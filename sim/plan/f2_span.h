// F2Span: the span of a few bit vectors over F2, with solutions that say which of the
// generators combine to a target (private to sim/plan).
//
// The planners ask two questions again and again: "is this tensor direction held by a
// combination of these register/lane bases?" and "which combination?". Both are one
// Gaussian elimination over at most 32 generators of at most 32 bits, kept in echelon
// form together with the generator mask that produced each row. Solve() returns the
// combination whose free generators are 0, so the answer is the same linear choice
// Triton's pseudo-inverse makes (free variables 0), and Solve is linear in the target.
#ifndef WARPCHECK_SIM_PLAN_F2_SPAN_H_
#define WARPCHECK_SIM_PLAN_F2_SPAN_H_

#include <bit>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/base/check.h"

namespace warpcheck::sim::plan {

class F2Span {
 public:
  F2Span() = default;
  // Requires: generators.size() <= 32.
  explicit F2Span(const std::vector<uint32_t>& generators) {
    for (uint32_t g : generators) Add(g);
  }

  // Appends a generator (index = number of generators added before).
  // Ensures: returns whether it was independent of the earlier ones. Any number may be
  // added for rank and membership (the planners test 32 lanes and more for independence);
  // the combinations Solve returns have one bit a generator, so only the first 32 get
  // one (a generator past them adds nothing to a combination; Solve requires count() <=
  // 32). Shifting 1u by 32 was undefined behaviour that UBSan found (plan_test).
  bool Add(uint32_t v) {
    uint32_t combo = count_ < 32 ? uint32_t{1} << count_ : 0;
    ++count_;
    Reduce(v, combo);
    if (v == 0) return false;
    const uint32_t pivot = v & (~v + 1);  // lowest set bit
    // Keep the rows fully reduced on the new pivot.
    for (uint32_t m = pivots_; m != 0; m &= m - 1) {
      Row& r = rows_[std::countr_zero(m)];
      if (r.value & pivot) {
        r.value ^= v;
        r.combo ^= combo;
      }
    }
    rows_[std::countr_zero(pivot)] = Row{v, combo};
    pivots_ |= pivot;
    ++rank_;
    return true;
  }

  int rank() const { return rank_; }
  int count() const { return count_; }

  // Ensures: a mask of generators whose XOR is `target` (the free generators, those that
  //          are combinations of earlier ones, are 0), or nullopt when outside the span.
  //          Requires: count() <= 32.
  std::optional<uint32_t> Solve(uint32_t target) const {
    WARPCHECK_CHECK(count_ <= 32) << "F2Span::Solve: " << count_ << " generators, combinations name 32";
    uint32_t combo = 0;
    Reduce(target, combo);
    if (target != 0) return std::nullopt;
    return combo;
  }
  bool Contains(uint32_t v) const {
    uint32_t combo = 0;
    Reduce(v, combo);
    return v == 0;
  }

 private:
  // A row of the reduced span: its value (lowest set bit: its pivot, which no other row
  // has) and the generators whose XOR it is.
  struct Row {
    uint32_t value;
    uint32_t combo;
  };
  // v ^= the rows whose pivot v has, combo ^= their combinations. The rows are fully
  // reduced (no row has another's pivot), so XORing one changes no other pivot bit of v:
  // the rows taken are those of v's pivot bits on entry, one step each.
  void Reduce(uint32_t& v, uint32_t& combo) const {
    for (uint32_t m = v & pivots_; m != 0; m &= m - 1) {
      const Row& r = rows_[std::countr_zero(m)];
      v ^= r.value;
      combo ^= r.combo;
    }
  }
  Row rows_[32];         // rows_[b]: the row whose pivot is bit b, for the bits of pivots_
  uint32_t pivots_ = 0;  // (on the stack: the planners build many spans)
  int rank_ = 0;
  int count_ = 0;
};

// Independence only: whether a vector is outside the span of those added before, without
// F2Span's fully reduced rows and combinations. Both bank searches build their base
// orders with it (dozens of candidate vectors per order, a few orders per candidate).
// Rows are kept by their lowest set bit, not reduced against each other: XORing row b
// clears bit b of v and changes only higher bits, so v reduces to 0 exactly when it is
// in the span.
class F2Independent {
 public:
  // Ensures: whether v is independent of the vectors added before (0 never is); if so,
  // it is added.
  bool Add(uint32_t v) { return AddPivot(v) != 0; }
  // As Add; ensures: the lowest bit of the row v adds (v reduced by the rows before it,
  // until it has no row's lowest bit), 0 when v is dependent. The rows' lowest bits are
  // distinct, one a row.
  uint32_t AddPivot(uint32_t v) {
    for (uint32_t m = v & pivots_; m != 0; m = v & pivots_) v ^= rows_[std::countr_zero(m)];
    if (v == 0) return 0;
    const uint32_t pivot = v & (~v + 1);
    // (The row's index from v, not pivot: the same lowest bit, and gcc 12 sees that v is
    // not 0 here but not that pivot is, and warned of rows_[32].)
    rows_[std::countr_zero(v)] = v;
    pivots_ |= pivot;
    return pivot;
  }

 private:
  uint32_t rows_[32];     // rows_[b]: the row whose lowest bit is b, for the bits of pivots_
  uint32_t pivots_ = 0;   // (left uninitialised otherwise: on the stack, made by the dozen)
};

// The linear map tensor direction -> offset of an offset basis (offset bit j holds
// tensor direction basis[j]): the basis's inverse, as the images of the direction bits.
// The shared-memory planners invert every basis they price, so the usual case (a basis
// of n directions below 2^n, invertible: the bases end with the unit vectors and the
// swizzle moves keep the rank) is Gauss-Jordan on the stack; anything else falls back to
// F2Span. Either way col[i] is the unique solution, so both give the same map.
class OffsetMap {
 public:
  explicit OffsetMap(const std::vector<uint32_t>& basis) {
    const int n = static_cast<int>(basis.size());
    // Row j: the value (low 32 bits) and the combination of basis vectors that makes it
    // (high 32 bits), eliminated together. holders[b]: the rows whose value has bit b.
    // The bases are sparse (mostly unit vectors and a few XORs of two), so a pivot is
    // XORed into the rows that hold its bit only, found from `holders`, and the rows stay
    // where they are (pivot_row[i]: the row that pivots on bit i).
    uint64_t row[32];
    uint32_t holders[32] = {};
    for (int j = 0; j < n; ++j) {
      if (n >= 32 || (basis[j] >> n) != 0) {
        SlowInverse(basis);
        return;
      }
      row[j] = basis[j] | (uint64_t{1} << (32 + j));
      for (uint32_t v = basis[j]; v != 0; v &= v - 1) holders[std::countr_zero(v)] |= 1u << j;
    }
    int pivot_row[32];
    uint32_t used = 0;
    for (int i = 0; i < n; ++i) {
      const uint32_t candidates = holders[i] & ~used;
      if (candidates == 0) {
        SlowInverse(basis);
        return;
      }
      const int r = std::countr_zero(candidates);
      used |= 1u << r;
      pivot_row[i] = r;
      const uint64_t pivot = row[r];
      const uint32_t others = holders[i] & ~(1u << r);
      for (uint32_t q = others; q != 0; q &= q - 1) row[std::countr_zero(q)] ^= pivot;
      for (uint32_t b = static_cast<uint32_t>(pivot); b != 0; b &= b - 1) {
        holders[std::countr_zero(b)] ^= others;
      }
    }
    // Every bit is a pivot: row pivot_row[i] holds 1 << i and the combination making it.
    for (int i = 0; i < n; ++i) col_[i] = static_cast<uint32_t>(row[pivot_row[i]] >> 32);
  }

  // The offset of tensor direction (element index) e.
  uint32_t operator()(uint32_t e) const {
    uint32_t o = 0;
    for (; e != 0; e &= e - 1) o ^= col_[std::countr_zero(e)];
    return o;
  }

 private:
  void SlowInverse(const std::vector<uint32_t>& basis) {
    F2Span span(basis);
    for (size_t i = 0; i < basis.size(); ++i) col_[i] = *span.Solve(1u << i);
  }
  uint32_t col_[32] = {};
};

// The swizzle move basis[k] ^= basis[j] (j != k) of an offset basis maps every offset o
// of its OffsetMap to this: the planners keep offsets current under a move instead of
// inverting the moved basis. An involution.
inline uint32_t SwizzleMove(uint32_t o, int j, int k) { return o ^ (((o >> k) & 1u) << j); }

// A list of offsets kept current under swizzle moves, touching only the entries a move
// changes: by_bit[b] holds the entries whose offset has bit b (lists of at most 64; a
// longer list moves every entry). Both bank searches (planner.cc, matrix.cc) price
// thousands of moves on lists of 20-30 offsets.
class OffsetMoves {
 public:
  // Requires: v[0..n) the offsets, as Move will be given them.
  OffsetMoves(const uint32_t* v, int n) : tracked_(n <= 64) {
    if (!tracked_) return;
    for (int i = 0; i < n; ++i) {
      for (uint32_t o = v[i]; o != 0; o &= o - 1) by_bit_[std::countr_zero(o)] |= uint64_t{1} << i;
    }
  }
  OffsetMoves() = default;
  // Ensures: v[i] = SwizzleMove(v[i], j, k) for every i < n (an involution).
  void Move(uint32_t* v, int n, int j, int k) {
    if (!tracked_) {
      for (int i = 0; i < n; ++i) v[i] = SwizzleMove(v[i], j, k);
      return;
    }
    const uint64_t h = by_bit_[k];
    for (uint64_t e = h; e != 0; e &= e - 1) v[std::countr_zero(e)] ^= 1u << j;
    by_bit_[j] ^= h;
  }
  // Whether With answers (the list had at most 64 entries).
  bool tracked() const { return tracked_; }
  // Requires: tracked(). Ensures: the entries (bit i: v[i]) whose offset has bit b.
  uint64_t With(int b) const { return by_bit_[b]; }

 private:
  bool tracked_ = true;
  uint64_t by_bit_[32] = {};
};

// XOR of the entries of `basis` selected by the set bits of `x`.
inline uint32_t ApplyBasis(const std::vector<uint32_t>& basis, uint32_t x) {
  uint32_t v = 0;
  for (size_t i = 0; x != 0 && i < basis.size(); ++i, x >>= 1) {
    if (x & 1) v ^= basis[i];
  }
  return v;
}

// (Folded by hand: without -mpopcnt, std::popcount is a library call.)
constexpr int Popcount(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}
static_assert(Popcount(0) == 0 && Popcount(0xffffffffu) == 32 && Popcount(0x80000001u) == 2);

// std::has_single_bit without the library popcount.
constexpr bool SingleBit(uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }
static_assert(SingleBit(1) && SingleBit(0x80000000u) && !SingleBit(0) && !SingleBit(6));

constexpr bool Parity(uint32_t x) {
  x ^= x >> 16;
  x ^= x >> 8;
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return (x & 1) != 0;
}

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_F2_SPAN_H_
