// Unit tests (literal expectations, mostly from shared/spec/linear-layouts.md §1) and
// exhaustive property tests (one per `Ensures:` line of linear_layout.h where it makes
// sense) for LinearLayout. Random layouts come from a fixed-seed generator and every
// law is checked on every input of the (small) domain.
#include "sim/layout/linear_layout.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

using Basis = LinearLayout::Basis;
using BasesT = LinearLayout::BasesT;
using OutDimsT = LinearLayout::OutDimsT;
using Point = LinearLayout::Point;

// ---- Helpers
// ---------------------------------------------------------------------------

LinearLayout L(absl::string_view text) {
  absl::StatusOr<LinearLayout> l = LinearLayout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status() << "\n  parsing " << text;
  return l.ok() ? *l : LinearLayout();
}

// The input point of `layout` whose flat value (first in-dim = low bits) is x.
Point InPoint(const LinearLayout& layout, int64_t x) {
  Point p;
  int shift = 0;
  for (const auto& [name, dim_bases] : layout.bases()) {
    const int k = static_cast<int>(dim_bases.size());
    p.emplace_back(name, static_cast<int32_t>((x >> shift) & ((int64_t{1} << k) - 1)));
    shift += k;
  }
  return p;
}

// The output point of `layout` whose flat value (first out-dim = low bits) is y.
Point OutPoint(const LinearLayout& layout, int64_t y) {
  Point p;
  int shift = 0;
  for (const auto& [name, size] : layout.out_dims()) {
    const int k = __builtin_ctz(static_cast<uint32_t>(size));
    p.emplace_back(name, static_cast<int32_t>((y >> shift) & ((int64_t{1} << k) - 1)));
    shift += k;
  }
  return p;
}

// Reorders a point's entries into the order of `names`.
Point Reorder(const Point& p, const std::vector<std::string>& names) {
  Point out;
  for (const std::string& n : names) {
    for (const auto& [name, v] : p) {
      if (name == n) out.emplace_back(name, v);
    }
  }
  return out;
}

// Fixed-seed generator of small random layouts.
class RandomLayouts {
 public:
  explicit RandomLayouts(uint32_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  // A random subsequence of `names` (order kept).
  std::vector<std::string> Subsequence(const std::vector<std::string>& names,
                                       int min = 0) {
    std::vector<std::string> out;
    do {
      out.clear();
      for (const std::string& n : names) {
        if (Coin(0.6)) out.push_back(n);
      }
    } while (static_cast<int>(out.size()) < min);
    return out;
  }

  template <typename T>
  std::vector<T> Shuffled(std::vector<T> xs) {
    std::shuffle(xs.begin(), xs.end(), rng_);
    return xs;
  }

  // Random bases (entries uniform below each size; some bases zero), explicit sizes.
  LinearLayout Layout(const std::vector<std::pair<std::string, int>>& ins,
                      const OutDimsT& outs, double zero_prob = 0.15) {
    BasesT bases;
    for (const auto& [name, k] : ins) {
      std::vector<Basis> dim_bases;
      for (int i = 0; i < k; ++i) {
        Basis b;
        for (const auto& [out_name, size] : outs) {
          b.push_back(Coin(zero_prob) ? 0 : Uniform(0, size - 1));
        }
        dim_bases.push_back(std::move(b));
      }
      bases.emplace_back(name, std::move(dim_bases));
    }
    return LinearLayout(std::move(bases), outs, /*require_surjective=*/false);
  }

  // Random in/out dims drawn from the pools, total input bits <= max_in_bits.
  LinearLayout Any(const std::vector<std::string>& in_pool,
                   const std::vector<std::string>& out_pool, int max_in_bits = 8,
                   int max_out_log2 = 3) {
    std::vector<std::pair<std::string, int>> ins;
    int budget = max_in_bits;
    for (const std::string& n : Subsequence(in_pool)) {
      const int k = Uniform(0, std::min(3, budget));
      budget -= k;
      ins.emplace_back(n, k);
    }
    OutDimsT outs;
    for (const std::string& n : Subsequence(out_pool)) {
      outs.emplace_back(n, 1 << Uniform(0, max_out_log2));
    }
    return Layout(ins, outs);
  }

  // A surjective layout over the given out-dims, with enough input bits.
  LinearLayout Surjective(const std::vector<std::string>& in_names, const OutDimsT& outs,
                          int extra_bits = 2) {
    int out_bits = 0;
    for (const auto& [n, s] : outs) out_bits += __builtin_ctz(static_cast<uint32_t>(s));
    for (int attempt = 0; attempt < 1000; ++attempt) {
      std::vector<std::pair<std::string, int>> ins;
      int total = out_bits + Uniform(0, extra_bits);
      for (size_t i = 0; i < in_names.size(); ++i) {
        const int k = i + 1 == in_names.size() ? total : Uniform(0, total);
        ins.emplace_back(in_names[i], k);
        total -= k;
      }
      LinearLayout l = Layout(ins, outs);
      if (l.IsSurjective()) return l;
    }
    ADD_FAILURE() << "no surjective layout found";
    return LinearLayout();
  }

  // A bijective layout: a random invertible matrix.
  LinearLayout Bijective(const std::vector<std::string>& in_names, const OutDimsT& outs) {
    while (true) {
      LinearLayout l = Surjective(in_names, outs, /*extra_bits=*/0);
      if (l.IsInvertible()) return l;
    }
  }

  OutDimsT Outs(const std::vector<std::string>& names, int max_log2 = 3,
                int min_log2 = 0) {
    OutDimsT outs;
    for (const std::string& n : names)
      outs.emplace_back(n, 1 << Uniform(min_log2, max_log2));
    return outs;
  }

 private:
  std::mt19937 rng_;
};

const std::vector<std::string> kDist = {"register", "lane", "warp", "block"};
const std::vector<std::string> kDims = {"dim0", "dim1", "dim2"};

// ---- Construction, validation, observers
// -----------------------------------------------

TEST(LinearLayoutTest, EmptyHasNoDims) {
  const LinearLayout e = LinearLayout::Empty();
  EXPECT_EQ(e.num_in_dims(), 0);
  EXPECT_EQ(e.num_out_dims(), 0);
  EXPECT_EQ(e.ToString(), "{} -> {}");
  EXPECT_EQ(e, LinearLayout());
  EXPECT_TRUE(e.IsSurjective());
  EXPECT_TRUE(e.IsInjective());
  EXPECT_TRUE(e.IsInvertible());
  EXPECT_EQ(e.TotalInDimSize(), 1);
  EXPECT_EQ(e.TotalOutDimSize(), 1);
  EXPECT_THAT(e.GetFreeVariableMasks(), IsEmpty());
  EXPECT_EQ(e.GetNumConsecutiveInOut(), 1);
}

TEST(LinearLayoutTest, Identity1D) {
  EXPECT_EQ(LinearLayout::Identity1D(8, "lane", "dim1").ToString(),
            "{lane: [[1], [2], [4]]} -> {dim1: 8}");
  EXPECT_EQ(LinearLayout::Identity1D(1, "lane", "dim1").ToString(),
            "{lane: []} -> {dim1: 1}");
  EXPECT_EQ(LinearLayout::Identity1D(0, "lane", "dim1"), LinearLayout::Empty());
  const LinearLayout id = LinearLayout::Identity1D(32, "i", "o");
  EXPECT_TRUE(id.IsSurjective());
  EXPECT_TRUE(id.IsInjective());
  EXPECT_TRUE(id.IsInvertible());
}

TEST(LinearLayoutTest, Zeros1D) {
  const LinearLayout z = LinearLayout::Zeros1D(4, "warp", "dim0");
  EXPECT_EQ(z.ToString(), "{warp: [[0], [0]]} -> {dim0: 1}");
  EXPECT_TRUE(z.IsSurjective());
  EXPECT_FALSE(z.IsInjective());
  const LinearLayout z8 = LinearLayout::Zeros1D(4, "warp", "dim0", 8);
  EXPECT_EQ(z8.ToString(), "{warp: [[0], [0]]} -> {dim0: 8}");
  EXPECT_FALSE(z8.IsSurjective());
  EXPECT_EQ(LinearLayout::Zeros1D(0, "warp", "dim0"), LinearLayout::Empty());
}

TEST(LinearLayoutTest, Strided1D) {
  const LinearLayout s = LinearLayout::Strided1D(4, 2, "offset", "dim0");
  EXPECT_EQ(s.ToString(), "{offset: [[2], [4]]} -> {dim0: 8}");
  EXPECT_FALSE(s.IsSurjective());
  EXPECT_TRUE(s.IsInjective());
  EXPECT_EQ(LinearLayout::Strided1D(1, 4, "offset", "dim0").ToString(),
            "{offset: []} -> {dim0: 4}");
  EXPECT_TRUE(LinearLayout::Strided1D(8, 1, "offset", "dim0").IsSurjective());
}

TEST(LinearLayoutTest, ConstructorInfersOutSizesAsNextPowerOfTwoStrictlyGreater) {
  // Entry 4 gives size 8 (not 4); an all-zero dim gets size 1.
  const LinearLayout l({{"register", {{4, 0}, {1, 0}, {2, 0}}}}, {"dim0", "dim1"});
  EXPECT_THAT(l.out_dims(), ElementsAre(Pair("dim0", 8), Pair("dim1", 1)));
  const LinearLayout mma({{"register", {{0, 1}, {8, 0}}},
                          {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}},
                          {"warp", {}},
                          {"block", {}}},
                         {"dim0", "dim1"});
  EXPECT_EQ(
      mma.ToString(),
      "{register: [[0, 1], [8, 0]], lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
      "warp: [], block: []} -> {dim0: 16, dim1: 8}");
  EXPECT_TRUE(mma.IsInvertible());
}

TEST(LinearLayoutTest, ObserversOfTheMmaExample) {
  const LinearLayout l =
      L("{register: [[0, 1], [8, 0]], lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
        "warp: [], block: []} -> {dim0: 16, dim1: 8}");
  EXPECT_THAT(l.InDimNames(), ElementsAre("register", "lane", "warp", "block"));
  EXPECT_THAT(l.OutDimNames(), ElementsAre("dim0", "dim1"));
  EXPECT_TRUE(l.HasInDim("lane"));
  EXPECT_FALSE(l.HasInDim("dim0"));
  EXPECT_TRUE(l.HasOutDim("dim1"));
  EXPECT_EQ(l.InDimSizeLog2("lane"), 5);
  EXPECT_EQ(l.InDimSize("lane"), 32);
  EXPECT_EQ(l.InDimSize("warp"), 1);
  EXPECT_EQ(l.OutDimSizeLog2("dim0"), 4);
  EXPECT_EQ(l.OutDimSize("dim1"), 8);
  EXPECT_EQ(l.TotalInDimSizeLog2(), 7);
  EXPECT_EQ(l.TotalOutDimSize(), 128);
  EXPECT_THAT(l.GetBasis("register", 1), ElementsAre(8, 0));
  EXPECT_EQ(l.GetBasis("lane", 2, "dim0"), 1);
  EXPECT_EQ(l.Rank(), 7);
  // The header's worked example: lane 5, register 3 hold element (9, 3).
  EXPECT_THAT(l.Apply({{"lane", 5}, {"register", 3}, {"warp", 0}, {"block", 0}}),
              ElementsAre(Pair("dim0", 9), Pair("dim1", 3)));
  // Flat: input = register + lane * 4; output = dim0 + dim1 * 16.
  EXPECT_EQ(l.ApplyFlat(3 + 5 * 4), 9 + 3 * 16);
}

TEST(LinearLayoutTest, ApplyIgnoresBitsAboveTheInDimSize) {
  const LinearLayout l = L("{r: [[1], [2]]} -> {o: 4}");
  EXPECT_THAT(l.Apply({{"r", 4 + 3}}), ElementsAre(Pair("o", 3)));
}

TEST(LinearLayoutTest, CreateRejectsInvalidBases) {
  EXPECT_THAT(LinearLayout::Create({{"lane", {{-1}}}}, {{"dim0", 4}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "negative entry -1"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{4}}}}, {{"dim0", 4}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "in-dim 'lane' basis 0 has entry 4 for out-dim 'dim0'"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{1}}}}, {{"dim0", 6}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "size 6"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{1}}}}, {{"dim0", 0}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a power of two"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{1, 0}}}}, {{"dim0", 2}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "has 2 entries"));
  EXPECT_THAT(
      LinearLayout::Create({{"lane", {}}, {"lane", {}}}, {{"dim0", 1}}, false),
      StatusIs(absl::StatusCode::kInvalidArgument, "in-dim 'lane' is listed twice"));
  EXPECT_THAT(
      LinearLayout::Create({{"lane", {}}}, {{"d", 1}, {"d", 1}}, false),
      StatusIs(absl::StatusCode::kInvalidArgument, "out-dim 'd' is listed twice"));
  EXPECT_THAT(LinearLayout::Create({{"", {}}}, {{"d", 1}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "empty name"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{1}}}}, {{"dim0", 4}}, true),
              StatusIs(absl::StatusCode::kInvalidArgument, "not surjective"));
  EXPECT_OK(LinearLayout::Create({{"lane", {{1}}}}, {{"dim0", 4}}, false));
  // The name-only variant infers sizes and requires surjectivity.
  EXPECT_THAT(LinearLayout::Create({{"lane", {{3}}}}, {"dim0"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "not surjective"));
  EXPECT_THAT(LinearLayout::Create({{"lane", {{1 << 30}}}}, {"dim0"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "too large"));
  ASSERT_OK_AND_ASSIGN(LinearLayout ok,
                       LinearLayout::Create({{"lane", {{2}, {1}}}}, {"d"}));
  EXPECT_EQ(ok.ToString(), "{lane: [[2], [1]]} -> {d: 4}");
}

TEST(LinearLayoutTest, ValidateChecksEveryInvariant) {
  EXPECT_OK(
      LinearLayout::Validate({{"r", {{1, 0}, {0, 1}}}}, {{"a", 2}, {"b", 2}}, true));
  EXPECT_THAT(LinearLayout::Validate({{"r", {{1, 0}}}}, {{"a", 2}, {"b", 2}}, true),
              StatusIs(absl::StatusCode::kInvalidArgument, "not surjective"));
  EXPECT_OK(LinearLayout::Validate({{"r", {{1, 0}}}}, {{"a", 2}, {"b", 2}}, false));
  std::vector<Basis> too_many(31, Basis{0});
  EXPECT_THAT(LinearLayout::Validate({{"r", too_many}}, {{"a", 1}}, false),
              StatusIs(absl::StatusCode::kInvalidArgument, "31 bases"));
}

TEST(LinearLayoutTest, SizeOneDimsAreKept) {
  const LinearLayout l = L("{register: [], lane: [[1, 0]]} -> {dim0: 2, dim1: 1}");
  EXPECT_EQ(l.InDimSize("register"), 1);
  EXPECT_EQ(l.OutDimSize("dim1"), 1);
  EXPECT_TRUE(l.IsInvertible());
  EXPECT_THAT(l.Apply({{"register", 0}, {"lane", 1}}),
              ElementsAre(Pair("dim0", 1), Pair("dim1", 0)));
}

// ---- Text
// ---------------------------------------------------------------------------------

TEST(LinearLayoutTest, ToStringUsesTheCanonicalNotation) {
  const LinearLayout l(
      {{"register", {{0, 1}, {8, 0}}}, {"lane", {{1, 0}}}, {"warp", {}}, {"block", {}}},
      {{"dim0", 16}, {"dim1", 8}}, false);
  EXPECT_EQ(l.ToString(),
            "{register: [[0, 1], [8, 0]], lane: [[1, 0]], warp: [], block: []} -> "
            "{dim0: 16, dim1: 8}");
  std::ostringstream os;
  os << l;
  EXPECT_EQ(os.str(), l.ToString());
  // No out-dims: every basis is an empty vector.
  EXPECT_EQ(L("{r: [[], []]} -> {}").ToString(), "{r: [[], []]} -> {}");
  EXPECT_EQ(L("{r: [[], []]} -> {}").InDimSize("r"), 4);
  // No in-dims.
  EXPECT_EQ(L("{} -> {o: 1}").ToString(), "{} -> {o: 1}");
}

TEST(LinearLayoutTest, ParseToleratesWhitespace) {
  const LinearLayout l =
      L(" \n{ register :[ [0,1] ,[8 , 0]],lane:[[1,0]]\t,warp:[],block:[ ]}"
        "->{dim0:16 ,\n dim1 : 8 }  ");
  EXPECT_EQ(l.ToString(),
            "{register: [[0, 1], [8, 0]], lane: [[1, 0]], warp: [], block: []} -> "
            "{dim0: 16, dim1: 8}");
}

TEST(LinearLayoutTest, ParseQuotesNamesThatAreNotIdentifiers) {
  const LinearLayout l({{"my dim", {{1}}}, {"9lives", {}}}, {{"a\"b\\c", 2}}, true);
  EXPECT_EQ(l.ToString(), R"({"my dim": [[1]], "9lives": []} -> {"a\"b\\c": 2})");
  ASSERT_OK_AND_ASSIGN(LinearLayout back, LinearLayout::Parse(l.ToString()));
  EXPECT_EQ(back, l);
}

TEST(LinearLayoutTest, ParseErrorsNameTheOffsetAndWhatWasExpected) {
  EXPECT_THAT(LinearLayout::Parse(""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 0: expected '{' opening the in-dims, found end of input"));
  EXPECT_THAT(LinearLayout::Parse("{register [[1]]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 10: expected ':' after in-dim name, found '['"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1]]} {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 11: expected '->' between in-dims and out-dims"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1]]} -> {o: 2} x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 21: expected end of input after the layout, found 'x'"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1, ]]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 9: expected an integer basis entry"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "offset 8: expected ',' or ']' after a basis, found '}'"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1]]} -> {o: two}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "expected an out-dim size"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[99999999999]]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "fits in 32 bits"));
  EXPECT_THAT(LinearLayout::Parse("{\"r: [[1]]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "closing a quoted dim name"));
  // Syntactically fine but invalid as a layout.
  EXPECT_THAT(LinearLayout::Parse("{r: [[4]]} -> {o: 4}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "invalid layout: in-dim 'r'"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[1]]} -> {o: 3}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a power of two"));
  EXPECT_THAT(LinearLayout::Parse("{r: [[-1]]} -> {o: 2}"),
              StatusIs(absl::StatusCode::kInvalidArgument, "negative"));
}

TEST(LinearLayoutTest, ParseAcceptsNonSurjectiveLayouts) {
  ASSERT_OK_AND_ASSIGN(LinearLayout l, LinearLayout::Parse("{r: [[2]]} -> {o: 8}"));
  EXPECT_FALSE(l.IsSurjective());
}

TEST(LinearLayoutPropertyTest, ParseOfToStringIsTheSameLayout) {
  RandomLayouts gen(1);
  for (int t = 0; t < 300; ++t) {
    const LinearLayout l =
        gen.Any({"register", "lane", "warp", "block", "offset"}, kDims);
    ASSERT_OK_AND_ASSIGN(LinearLayout back, LinearLayout::Parse(l.ToString()));
    EXPECT_EQ(back, l) << l;
    EXPECT_EQ(back.ToString(), l.ToString());
    EXPECT_EQ(back.IsSurjective(), l.IsSurjective());
  }
}

// ---- Rank, surjectivity, injectivity, free variables
// -----------------------------------

TEST(LinearLayoutTest, FreeVariableMasksOfTheSpecExample) {
  // A free bit need not have a zero basis: a's bit 2 is zero, but b's bit 1 is a's
  // bit 0 plus b's bit 0.
  const LinearLayout l({{"a", {{1, 1}, {2, 2}, {0, 0}}}, {"b", {{1, 0}, {0, 1}, {2, 0}}}},
                       {"dim0", "dim1"});
  EXPECT_THAT(l.GetFreeVariableMasks(), ElementsAre(Pair("a", 0b100), Pair("b", 0b10)));
  EXPECT_FALSE(l.IsInjective());
  EXPECT_EQ(l.Rank(), 4);
}

TEST(LinearLayoutTest, FreeVariableMasksOfBroadcastLanes) {
  const LinearLayout l = L("{register: [[1]], lane: [[0], [0], [2]]} -> {dim0: 4}");
  EXPECT_THAT(l.GetFreeVariableMasks(),
              ElementsAre(Pair("register", 0), Pair("lane", 0b11)));
}

TEST(LinearLayoutPropertyTest, RankSurjectivityAndInjectivityMatchEnumeration) {
  RandomLayouts gen(2);
  for (int t = 0; t < 300; ++t) {
    const LinearLayout l = gen.Any(kDist, kDims, /*max_in_bits=*/9);
    std::set<int64_t> image;
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) image.insert(l.ApplyFlat(x));
    const int64_t image_size = static_cast<int64_t>(image.size());
    EXPECT_EQ(int64_t{1} << l.Rank(), image_size) << l;
    // Ensures: IsSurjective iff Rank == total out bits; IsInjective iff Rank == in bits.
    EXPECT_EQ(l.IsSurjective(), image_size == l.TotalOutDimSize()) << l;
    EXPECT_EQ(l.IsInjective(), image_size == l.TotalInDimSize()) << l;
    EXPECT_EQ(l.IsInvertible(), l.IsSurjective() && l.IsInjective()) << l;
  }
}

TEST(LinearLayoutPropertyTest, FreeVariableMasksAreZeroIffInjective) {
  RandomLayouts gen(3);
  for (int t = 0; t < 300; ++t) {
    const LinearLayout l = gen.Any(kDist, kDims, 9);
    int free_bits = 0;
    bool all_zero = true;
    std::vector<std::string> names;
    for (const auto& [name, mask] : l.GetFreeVariableMasks()) {
      names.push_back(name);
      free_bits += __builtin_popcount(mask);
      all_zero = all_zero && mask == 0;
    }
    EXPECT_EQ(names, l.InDimNames());
    EXPECT_EQ(all_zero, l.IsInjective()) << l;
    EXPECT_EQ(free_bits, l.TotalInDimSizeLog2() - l.Rank()) << l;
    // Clearing the free bits of every input loses no output (the basic bits alone reach
    // the whole image).
    std::set<int64_t> image, basic_image;
    int64_t free_flat = 0;
    int shift = 0;
    for (const auto& [name, mask] : l.GetFreeVariableMasks()) {
      free_flat |= static_cast<int64_t>(mask) << shift;
      shift += l.InDimSizeLog2(name);
    }
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) {
      image.insert(l.ApplyFlat(x));
      if ((x & free_flat) == 0) basic_image.insert(l.ApplyFlat(x));
    }
    EXPECT_EQ(image, basic_image) << l;
    EXPECT_EQ(basic_image.size(), size_t{1} << l.Rank()) << l;
  }
}

// ---- Transpose, reshape, flatten, sublayout, concat
// ------------------------------------

TEST(LinearLayoutTest, TransposeIns) {
  const LinearLayout l = L("{r: [[1, 0]], l: [[0, 1], [0, 2]]} -> {a: 2, b: 4}");
  EXPECT_EQ(l.TransposeIns({"l", "r"}).ToString(),
            "{l: [[0, 1], [0, 2]], r: [[1, 0]]} -> {a: 2, b: 4}");
}

TEST(LinearLayoutTest, TransposeOutsPermutesEveryBasis) {
  const LinearLayout l = L("{r: [[1, 0]], l: [[0, 1], [0, 2]]} -> {a: 2, b: 4}");
  EXPECT_EQ(l.TransposeOuts({"b", "a"}).ToString(),
            "{r: [[0, 1]], l: [[1, 0], [2, 0]]} -> {b: 4, a: 2}");
}

TEST(LinearLayoutTest, ReshapeIns) {
  const LinearLayout l = L("{a: [[1], [2]], b: [[4]]} -> {o: 8}");
  EXPECT_EQ(l.ReshapeIns({{"x", 2}, {"y", 4}}).ToString(),
            "{x: [[1]], y: [[2], [4]]} -> {o: 8}");
  EXPECT_EQ(l.ReshapeIns({{"x", 8}, {"y", 1}}).ToString(),
            "{x: [[1], [2], [4]], y: []} -> {o: 8}");
}

TEST(LinearLayoutTest, ReshapeOutsSplitsTheFlatValue) {
  // Bases flattened with the first out-dim as the low bits, then split mixed-radix.
  const LinearLayout l = L("{r: [[1, 0], [0, 1], [0, 2]]} -> {a: 2, b: 4}");
  EXPECT_EQ(l.ReshapeOuts({{"o", 8}}).ToString(), "{r: [[1], [2], [4]]} -> {o: 8}");
  EXPECT_EQ(l.ReshapeOuts({{"x", 4}, {"y", 2}}).ToString(),
            "{r: [[1, 0], [2, 0], [0, 1]]} -> {x: 4, y: 2}");
}

TEST(LinearLayoutTest, FlattenInsAndOuts) {
  const LinearLayout l = L("{r: [[1, 0]], l: [[0, 1], [0, 2]]} -> {a: 2, b: 4}");
  EXPECT_EQ(l.FlattenIns().ToString(), "{r: [[1, 0], [0, 1], [0, 2]]} -> {a: 2, b: 4}");
  EXPECT_EQ(l.FlattenOuts().ToString(), "{r: [[1]], l: [[2], [4]]} -> {a: 8}");
  EXPECT_EQ(LinearLayout::Empty().FlattenIns(), LinearLayout::Empty());
  EXPECT_EQ(LinearLayout::Empty().FlattenOuts(), LinearLayout::Empty());
  EXPECT_EQ(L("{} -> {o: 4}").FlattenIns().ToString(), "{} -> {o: 4}");
}

TEST(LinearLayoutTest, SublayoutKeepsTheOriginalOrderAndSizes) {
  const LinearLayout l = L("{r: [[1, 0]], l: [[0, 1], [1, 2]], w: []} -> {a: 2, b: 4}");
  const LinearLayout s = l.Sublayout({"w", "l"}, {"b"});
  EXPECT_EQ(s.ToString(), "{l: [[1], [2]], w: []} -> {b: 4}");
  // Out sizes are kept, so a sublayout need not be surjective.
  const LinearLayout r = l.Sublayout({"r"}, {"a", "b"});
  EXPECT_EQ(r.ToString(), "{r: [[1, 0]]} -> {a: 2, b: 4}");
  EXPECT_FALSE(r.IsSurjective());
  EXPECT_EQ(l.Sublayout({}, {}), LinearLayout::Empty());
  EXPECT_TRUE(l.SublayoutIsZero({"r"}, {"b"}));
  EXPECT_FALSE(l.SublayoutIsZero({"l"}, {"a"}));
  EXPECT_TRUE(l.SublayoutIsZero({"w"}, {"a", "b"}));
  EXPECT_TRUE(l.SublayoutIsZero({}, {"a"}));
}

TEST(LinearLayoutTest, ConcatInsAndOuts) {
  const LinearLayout a = L("{r: [[1]]} -> {o: 4}");
  const LinearLayout b = L("{l: [[2]]} -> {o: 4}");
  EXPECT_EQ(a.ConcatIns(b).ToString(), "{r: [[1]], l: [[2]]} -> {o: 4}");
  const LinearLayout c = L("{r: [[3]]} -> {p: 4}");
  const LinearLayout ac = a.ConcatOuts(c);
  EXPECT_EQ(ac.ToString(), "{r: [[1, 3]]} -> {o: 4, p: 4}");
  EXPECT_FALSE(ac.IsSurjective());
}

TEST(LinearLayoutTest, RemoveZeroBasesAlongDimKeepsOutSizes) {
  const LinearLayout l =
      L("{r: [[0, 0], [1, 0], [0, 0]], l: [[0, 0], [0, 1]]} -> {a: 2, b: 2}");
  EXPECT_EQ(l.RemoveZeroBasesAlongDim("r").ToString(),
            "{r: [[1, 0]], l: [[0, 0], [0, 1]]} -> {a: 2, b: 2}");
  EXPECT_EQ(L("{r: [[0]]} -> {a: 8}").RemoveZeroBasesAlongDim("r").ToString(),
            "{r: []} -> {a: 8}");
}

TEST(LinearLayoutTest, UnsqueezeRemovesSizeOneDims) {
  const LinearLayout l = L("{r: [[1, 0]], w: []} -> {a: 2, b: 1}");
  EXPECT_EQ(l.UnsqueezeIn("w").ToString(), "{r: [[1, 0]]} -> {a: 2, b: 1}");
  EXPECT_EQ(l.UnsqueezeOut("b").ToString(), "{r: [[1]], w: []} -> {a: 2}");
}

TEST(LinearLayoutPropertyTest, TransposesRoundTripAndPermuteCoordinates) {
  RandomLayouts gen(4);
  for (int t = 0; t < 200; ++t) {
    const LinearLayout l = gen.Any(kDist, kDims, 8);
    const std::vector<std::string> ins = gen.Shuffled(l.InDimNames());
    const std::vector<std::string> outs = gen.Shuffled(l.OutDimNames());
    const LinearLayout ti = l.TransposeIns(ins);
    const LinearLayout to = l.TransposeOuts(outs);
    EXPECT_EQ(ti.TransposeIns(l.InDimNames()), l);
    EXPECT_EQ(to.TransposeOuts(l.OutDimNames()), l);
    EXPECT_EQ(to.IsSurjective(), l.IsSurjective());
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) {
      const Point p = InPoint(l, x);
      const Point expected = l.Apply(p);
      EXPECT_EQ(ti.Apply(p), expected);
      EXPECT_EQ(to.Apply(p), Reorder(expected, outs));
    }
  }
}

TEST(LinearLayoutPropertyTest, ReshapesRoundTripAndKeepTheFlatFunction) {
  RandomLayouts gen(5);
  for (int t = 0; t < 200; ++t) {
    const LinearLayout l = gen.Any(kDist, kDims, 8);
    // Random regrouping of the input bits and of the output bits.
    OutDimsT new_ins, new_outs;
    int in_bits = l.TotalInDimSizeLog2(), out_bits = l.TotalOutDimSizeLog2();
    for (int i = 0; in_bits > 0 || i == 0; ++i) {
      const int k = gen.Uniform(0, in_bits);
      new_ins.emplace_back("in" + std::to_string(i), 1 << k);
      in_bits -= k;
    }
    for (int i = 0; out_bits > 0 || i == 0; ++i) {
      const int k = gen.Uniform(0, out_bits);
      new_outs.emplace_back("out" + std::to_string(i), 1 << k);
      out_bits -= k;
    }
    const LinearLayout ri = l.ReshapeIns(new_ins);
    const LinearLayout ro = l.ReshapeOuts(new_outs);
    OutDimsT old_ins;
    for (const auto& [name, b] : l.bases()) old_ins.emplace_back(name, l.InDimSize(name));
    EXPECT_EQ(ri.ReshapeIns(old_ins), l);
    EXPECT_EQ(ro.ReshapeOuts(l.out_dims()), l);
    EXPECT_EQ(l.FlattenIns().FlattenOuts().ReshapeIns(old_ins).ReshapeOuts(l.out_dims()),
              l);
    EXPECT_EQ(ro.IsSurjective(), l.IsSurjective());
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) {
      EXPECT_EQ(ri.ApplyFlat(x), l.ApplyFlat(x));
      EXPECT_EQ(ro.ApplyFlat(x), l.ApplyFlat(x));
    }
  }
}

// ---- Product
// ---------------------------------------------------------------------------

TEST(LinearLayoutTest, ProductExamplesFromTheSpec) {
  using LL = LinearLayout;
  EXPECT_EQ(LL::Identity1D(4, "i", "o") * LL::Identity1D(8, "i", "o"),
            LL::Identity1D(32, "i", "o"));
  EXPECT_EQ((LL::Identity1D(4, "i", "o") * LL::Zeros1D(2, "i", "o")).ToString(),
            "{i: [[1], [2], [0]]} -> {o: 4}");
  EXPECT_EQ((LL::Zeros1D(2, "i", "o") * LL::Identity1D(4, "i", "o")).ToString(),
            "{i: [[0], [1], [2]]} -> {o: 4}");
  EXPECT_EQ((LL::Identity1D(4, "i", "o1") * LL::Identity1D(8, "i", "o2")).ToString(),
            "{i: [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]} -> {o1: 4, o2: 8}");
  // Not commutative.
  EXPECT_NE(LL::Identity1D(4, "i", "o1") * LL::Identity1D(8, "i", "o2"),
            LL::Identity1D(8, "i", "o2") * LL::Identity1D(4, "i", "o1"));
}

TEST(LinearLayoutTest, ProductShiftsTheOuterFactorAboveTheInnerInEverySharedDim) {
  const LinearLayout inner =
      L("{register: [[1, 0]], lane: [[0, 1]]} -> {dim0: 2, dim1: 2}");
  const LinearLayout outer = L("{lane: [[1]], warp: [[2]]} -> {dim0: 4}");
  EXPECT_EQ((inner * outer).ToString(),
            "{register: [[1, 0]], lane: [[0, 1], [2, 0]], warp: [[4, 0]]} -> "
            "{dim0: 8, dim1: 2}");
}

TEST(LinearLayoutTest, ProductMergesDimListsBySupremum) {
  // [a, b] * [b, a] keeps a first (Triton's supremum is biased toward the inner list).
  const LinearLayout x = L("{a: [[1]], b: [[2]]} -> {o: 4}");
  const LinearLayout y = L("{b: [[1]], a: [[2]]} -> {o: 4}");
  EXPECT_EQ((x * y).ToString(), "{a: [[1], [8]], b: [[2], [4]]} -> {o: 16}");
  const LinearLayout p = L("{a: [[1, 0]]} -> {o1: 2, o2: 1}");
  const LinearLayout q = L("{a: [[1, 0]]} -> {o2: 2, o1: 1}");
  EXPECT_EQ((p * q).ToString(), "{a: [[1, 0], [0, 1]]} -> {o1: 2, o2: 2}");
}

TEST(LinearLayoutTest, ProductIsAssociativeOnlyUpToDimOrder) {
  // Supremum is not associative: sup(sup([warp], [register]), [register, warp]) is
  // [warp, register] but sup([warp], sup([register], [register, warp])) is
  // [register, warp]. Bases and sizes agree once the dims are put in one order.
  const LinearLayout a = L("{warp: [[1]]} -> {o: 2}");
  const LinearLayout b = L("{register: [[1]]} -> {o: 2}");
  const LinearLayout c = L("{register: [[1]], warp: [[1]]} -> {o: 2}");
  EXPECT_EQ(((a * b) * c).ToString(),
            "{warp: [[1], [4]], register: [[2], [4]]} -> {o: 8}");
  EXPECT_EQ((a * (b * c)).ToString(),
            "{register: [[2], [4]], warp: [[1], [4]]} -> {o: 8}");
}

TEST(LinearLayoutTest, SupremumExamples) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Supremum(V{"a", "b"}, V{"a", "c"}), (V{"a", "b", "c"}));
  EXPECT_EQ(Supremum(V{"a", "b"}, V{"b", "c"}), (V{"a", "b", "c"}));
  EXPECT_EQ(Supremum(V{"a", "b", "c"}, V{"a", "d"}), (V{"a", "b", "c", "d"}));
  EXPECT_EQ(Supremum(V{"a", "b"}, V{"b", "a"}), (V{"a", "b"}));
  EXPECT_EQ(Supremum(V{"c", "a"}, V{"a", "b", "c"}), (V{"a", "b", "c"}));
  EXPECT_EQ(Supremum(V{}, V{"x"}), (V{"x"}));
  EXPECT_EQ(Supremum(V{"x"}, V{}), (V{"x"}));
  EXPECT_EQ(Supremum(V{"register", "warp"}, V{"lane", "warp", "block"}),
            (V{"register", "lane", "warp", "block"}));
}

TEST(LinearLayoutPropertyTest, ProductIsAssociativeWithEmptyAsIdentity) {
  RandomLayouts gen(6);
  for (int t = 0; t < 300; ++t) {
    // Dim lists are subsequences of one master order, as products of layouts are.
    const LinearLayout a = gen.Any(kDist, kDims, 4, 2);
    const LinearLayout b = gen.Any(kDist, kDims, 4, 2);
    const LinearLayout c = gen.Any(kDist, kDims, 4, 2);
    // Associative up to the order of dims (see ProductIsAssociativeOnlyUpToDimOrder).
    const LinearLayout left = (a * b) * c;
    const LinearLayout right = a * (b * c);
    EXPECT_EQ(left,
              right.TransposeIns(left.InDimNames()).TransposeOuts(left.OutDimNames()))
        << a << "\n"
        << b << "\n"
        << c;
    EXPECT_EQ(LinearLayout::Empty() * a, a);
    EXPECT_EQ(a * LinearLayout::Empty(), a);
    LinearLayout acc = a;
    acc *= b;
    EXPECT_EQ(acc, a * b);
  }
}

TEST(LinearLayoutPropertyTest, ProductIsTheDirectSum) {
  RandomLayouts gen(7);
  for (int t = 0; t < 200; ++t) {
    const LinearLayout a = gen.Any(kDist, kDims, 4, 2);
    const LinearLayout b = gen.Any(kDist, kDims, 4, 2);
    const LinearLayout ab = a * b;
    // Ensures: log2 sizes add.
    for (const std::string& d : ab.InDimNames()) {
      EXPECT_EQ(ab.InDimSizeLog2(d), (a.HasInDim(d) ? a.InDimSizeLog2(d) : 0) +
                                         (b.HasInDim(d) ? b.InDimSizeLog2(d) : 0));
    }
    for (const std::string& o : ab.OutDimNames()) {
      EXPECT_EQ(ab.OutDimSizeLog2(o), (a.HasOutDim(o) ? a.OutDimSizeLog2(o) : 0) +
                                          (b.HasOutDim(o) ? b.OutDimSizeLog2(o) : 0));
    }
    // Ensures: surjective if both factors are.
    if (a.IsSurjective() && b.IsSurjective()) {
      EXPECT_TRUE(ab.IsSurjective());
    }
    // ab(x) = a(low bits of x) XOR (b(high bits of x) << a's out size), per dim.
    for (int64_t x = 0; x < ab.TotalInDimSize(); ++x) {
      const Point p = InPoint(ab, x);
      Point pa, pb;
      for (const auto& [name, v] : p) {
        const int ka = a.HasInDim(name) ? a.InDimSizeLog2(name) : 0;
        if (a.HasInDim(name)) pa.emplace_back(name, v & ((1 << ka) - 1));
        if (b.HasInDim(name)) pb.emplace_back(name, v >> ka);
      }
      const Point ya = a.Apply(pa), yb = b.Apply(pb);
      for (const auto& [o, v] : ab.Apply(p)) {
        int32_t expected = 0;
        for (const auto& [name, av] : ya) {
          if (name == o) expected ^= av;
        }
        for (const auto& [name, bv] : yb) {
          if (name == o) expected ^= bv << (a.HasOutDim(o) ? a.OutDimSizeLog2(o) : 0);
        }
        ASSERT_EQ(v, expected) << a << " * " << b << " at x=" << x;
      }
    }
  }
}

// ---- Compose
// -----------------------------------------------------------------------------

TEST(LinearLayoutTest, ComposeTakesTheOuterOutSizes) {
  const LinearLayout a = L("{x: [[1], [2]]} -> {o: 4}");
  const LinearLayout b = L("{o: [[1], [0], [2]]} -> {p: 4}");
  const LinearLayout c = a.Compose(b);
  EXPECT_EQ(c.ToString(), "{x: [[1], [0]]} -> {p: 4}");
  EXPECT_FALSE(c.IsSurjective());
  // Swizzled shared memory composed with its inverse is the identity.
  const LinearLayout s =
      L("{offset: [[0, 1], [0, 2], [1, 2], [2, 1]]} -> {dim0: 4, dim1: 4}");
  EXPECT_EQ(s.Compose(s.Invert()).ToString(),
            "{offset: [[1], [2], [4], [8]]} -> {offset: 16}");
}

TEST(LinearLayoutPropertyTest, ComposeIsApplyThenApply) {
  RandomLayouts gen(8);
  for (int t = 0; t < 200; ++t) {
    const LinearLayout a = gen.Any(kDist, {"m0", "m1", "m2"}, 9);
    // b's in-dims are a's out-dims in a random order, each at least as large.
    std::vector<std::pair<std::string, int>> b_ins;
    for (const std::string& m : gen.Shuffled(a.OutDimNames())) {
      b_ins.emplace_back(m, a.OutDimSizeLog2(m) + gen.Uniform(0, 1));
    }
    const LinearLayout b = gen.Layout(b_ins, gen.Outs(gen.Subsequence(kDims)));
    const LinearLayout ab = a.Compose(b);
    EXPECT_EQ(ab.InDimNames(), a.InDimNames());
    EXPECT_EQ(ab.out_dims(), b.out_dims());
    for (int64_t x = 0; x < a.TotalInDimSize(); ++x) {
      const Point p = InPoint(a, x);
      ASSERT_EQ(ab.Apply(p), b.Apply(a.Apply(p))) << a << "\n" << b;
    }
  }
}

// ---- InvertAndCompose, Pseudoinvert, Invert ------------------------------------------

TEST(LinearLayoutTest, InvertAndComposeLiteralCases) {
  // Results recorded from Triton 3.6.0.
  EXPECT_EQ(L("{x: [[4], [1]]} -> {o: 8}")
                .InvertAndCompose(L("{r: [[1], [4]]} -> {o: 8}"))
                .ToString(),
            "{x: [[2], [1]]} -> {r: 4}");
  EXPECT_EQ(L("{x: [[1], [2]]} -> {o: 4}")
                .InvertAndCompose(L("{r: [[2], [1], [4]]} -> {o: 8}"))
                .ToString(),
            "{x: [[2], [1]]} -> {r: 8}");
  // Identical warp sublayouts (bases and out sizes) map warp to itself ...
  EXPECT_EQ(L("{reg: [[1], [2]], warp: [[0]]} -> {o: 8}")
                .InvertAndCompose(L("{reg: [[2], [1], [4]], warp: [[0]]} -> {o: 8}"))
                .ToString(),
            "{reg: [[2, 0], [1, 0]], warp: [[0, 1]]} -> {reg: 8, warp: 2}");
  // ... but not when the out sizes differ: then warp is solved too, and the broadcast
  // bit goes to the smallest preimage, 0.
  EXPECT_EQ(L("{reg: [[1], [2]], warp: [[0]]} -> {o: 4}")
                .InvertAndCompose(L("{reg: [[2], [1], [4]], warp: [[0]]} -> {o: 8}"))
                .ToString(),
            "{reg: [[2, 0], [1, 0]], warp: [[0, 0]]} -> {reg: 8, warp: 2}");
  // A layout converted to itself is the identity on every dim.
  const LinearLayout mma =
      L("{register: [[0, 1], [8, 0]], lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
        "warp: [[0, 0]], block: []} -> {dim0: 16, dim1: 8}");
  EXPECT_EQ(
      mma.InvertAndCompose(mma).ToString(),
      "{register: [[1, 0, 0, 0], [2, 0, 0, 0]], lane: [[0, 1, 0, 0], [0, 2, 0, 0], "
      "[0, 4, 0, 0], [0, 8, 0, 0], [0, 16, 0, 0]], warp: [[0, 0, 1, 0]], block: []} -> "
      "{register: 4, lane: 32, warp: 2, block: 1}");
}

TEST(LinearLayoutTest, InvertAndComposeChoosesTheSmallestPreimage) {
  // B broadcasts lane bit 0; A's element 1 is held by B's lanes 2 and 3: lane 2 wins.
  const LinearLayout b = L("{lane: [[0], [1], [2]]} -> {o: 4}");
  const LinearLayout a = L("{register: [[1], [2]]} -> {o: 4}");
  EXPECT_EQ(a.InvertAndCompose(b).ToString(), "{register: [[2], [4]]} -> {lane: 8}");
}

TEST(LinearLayoutTest, TryInvertAndComposeReportsBrokenPreconditions) {
  EXPECT_THAT(
      L("{lane: [[2]]} -> {dim0: 8}")
          .TryInvertAndCompose(L("{register: [[1], [4]]} -> {dim0: 8}")),
      StatusIs(absl::StatusCode::kFailedPrecondition, "is not contained in the image"));
  EXPECT_THAT(L("{x: [[1], [2], [4]]} -> {o: 8}")
                  .TryInvertAndCompose(L("{y: [[1], [2]]} -> {o: 4}")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "has size 8"));
  EXPECT_THAT(L("{x: [[1]]} -> {o: 2}").TryInvertAndCompose(L("{x: [[1]]} -> {p: 2}")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "out-dims differ"));
  // After setting aside identical dims one side must not be left empty (Triton asserts).
  EXPECT_THAT(
      L("{r: [[1], [2]]} -> {o: 4}")
          .TryInvertAndCompose(L("{r: [[1], [2]], l: [[0]]} -> {o: 4}")),
      StatusIs(absl::StatusCode::kFailedPrecondition, "one side has no dims left"));
}

TEST(LinearLayoutDeathTest, InvertAndComposeAbortsOnBrokenPreconditions) {
  EXPECT_DEATH(
      {
        (void)L("{lane: [[2]]} -> {dim0: 8}")
            .InvertAndCompose(L("{register: [[1], [4]]} -> {dim0: 8}"));
      },
      "not contained");
}

TEST(LinearLayoutPropertyTest, InvertAndComposeSolvesTheEquationForEveryInput) {
  RandomLayouts gen(9);
  int solved = 0;
  for (int t = 0; t < 2000; ++t) {
    // B: random over dist in-dims; surjective half of the time, otherwise arbitrary
    // (possibly broadcasting and non-surjective).
    const OutDimsT outs = gen.Outs(gen.Subsequence(kDims, 1), 3);
    const std::vector<std::string> b_ins = gen.Subsequence(kDist, 1);
    const LinearLayout b = gen.Coin(0.5)
                               ? gen.Surjective(b_ins, outs)
                               : gen.Layout({{b_ins[0], gen.Uniform(0, 4)}}, outs);
    // A: bases drawn from the image of B (so Im A is inside Im B), out-dims in another
    // order, sometimes with smaller sizes; sometimes sharing dims with B.
    OutDimsT a_outs;
    for (const auto& [name, size] : b.out_dims()) {
      a_outs.emplace_back(name, gen.Coin(0.8) ? size : std::max(1, size / 2));
    }
    std::vector<std::string> a_out_order;
    for (const auto& [name, size] : a_outs) a_out_order.push_back(name);
    a_out_order = gen.Shuffled(a_out_order);
    OutDimsT a_outs_ordered;
    for (const std::string& n : a_out_order) {
      for (const auto& p : a_outs) {
        if (p.first == n) a_outs_ordered.push_back(p);
      }
    }
    const std::vector<std::string> a_in_names =
        gen.Coin(0.3) ? std::vector<std::string>{"offset"} : gen.Subsequence(kDist, 1);
    BasesT a_bases;
    for (const std::string& name : a_in_names) {
      const int bi = gen.Coin(0.3) ? -1 : 0;
      std::vector<Basis> dim_bases;
      const int k = gen.Uniform(0, 3);
      for (int i = 0; i < k; ++i) {
        Basis basis(a_outs_ordered.size(), 0);
        for (int attempt = 0; attempt < 30 && bi == 0; ++attempt) {
          const Point y = Reorder(
              b.Apply(InPoint(b, gen.Uniform(0, b.TotalInDimSize() - 1))), a_out_order);
          bool fits = true;
          for (size_t o = 0; o < y.size(); ++o)
            fits &= y[o].second < a_outs_ordered[o].second;
          if (fits) {
            for (size_t o = 0; o < y.size(); ++o) basis[o] = y[o].second;
            break;
          }
        }
        dim_bases.push_back(std::move(basis));
      }
      a_bases.emplace_back(name, std::move(dim_bases));
    }
    // Half of the time, copy B's dims verbatim into A (identity-dim heuristic).
    if (gen.Coin(0.5) && a_outs_ordered.size() == b.out_dims().size()) {
      const LinearLayout b_like_a = b.TransposeOuts(a_out_order);
      for (const auto& [name, dim_bases] : b_like_a.bases()) {
        bool present = false;
        for (auto& [an, ab] : a_bases) {
          if (an == name) {
            ab = dim_bases;
            present = true;
          }
        }
        if (!present && gen.Coin(0.5)) a_bases.emplace_back(name, dim_bases);
      }
    }
    absl::StatusOr<LinearLayout> a_or =
        LinearLayout::Create(a_bases, a_outs_ordered, /*require_surjective=*/false);
    if (!a_or.ok()) continue;  // a copied basis may not fit a halved size
    const LinearLayout& a = *a_or;
    absl::StatusOr<LinearLayout> c_or = a.TryInvertAndCompose(b);
    if (!c_or.ok()) {
      // Only the identity-dim heuristic may fail on these inputs: it can leave one side
      // without dims, or strip B of the dims A's remaining image needs.
      EXPECT_THAT(c_or.status().message(),
                  ::testing::AnyOf(HasSubstr("one side has no dims left"),
                                   HasSubstr("is not contained")))
          << a << "\n"
          << b;
      continue;
    }
    const LinearLayout& c = *c_or;
    ++solved;
    // Ensures: C has A's in-dims and B's in-dims (with B's sizes) as out-dims.
    EXPECT_EQ(c.InDimNames(), a.InDimNames());
    std::vector<std::pair<std::string, int32_t>> expected_outs;
    for (const auto& [name, dim_bases] : b.bases()) {
      expected_outs.emplace_back(name, b.InDimSize(name));
    }
    EXPECT_EQ(c.out_dims(), expected_outs);
    // Ensures: B(C(x)) == A(x) for every x.
    const LinearLayout bc = c.Compose(b);
    for (int64_t x = 0; x < a.TotalInDimSize(); ++x) {
      const Point p = InPoint(a, x);
      ASSERT_EQ(Reorder(bc.Apply(p), a.OutDimNames()), a.Apply(p))
          << "A " << a << "\nB " << b << "\nC " << c << "\nx " << x;
    }
  }
  EXPECT_GE(solved, 1000);
  RecordProperty("solved", solved);
}

TEST(LinearLayoutPropertyTest, InvertAndComposeWhenBIsSurjectiveAlwaysSucceeds) {
  RandomLayouts gen(10);
  for (int t = 0; t < 300; ++t) {
    const OutDimsT outs = gen.Outs({"dim0", "dim1"}, 3);
    const LinearLayout b = gen.Surjective({"register", "lane"}, outs, 3);
    const LinearLayout a = gen.Layout({{"offset", gen.Uniform(0, 6)}}, outs);
    const LinearLayout c = a.InvertAndCompose(b);
    const LinearLayout bc = c.Compose(b);
    for (int64_t x = 0; x < a.TotalInDimSize(); ++x) {
      const Point p = InPoint(a, x);
      ASSERT_EQ(bc.Apply(p), a.Apply(p)) << a << "\n" << b;
    }
    // Free variables are zero: C's image avoids B's free input bits.
    int64_t free_flat = 0;
    int shift = 0;
    for (const auto& [name, mask] : b.GetFreeVariableMasks()) {
      free_flat |= static_cast<int64_t>(mask) << shift;
      shift += b.InDimSizeLog2(name);
    }
    for (int64_t x = 0; x < a.TotalInDimSize(); ++x) {
      EXPECT_EQ(c.ApplyFlat(x) & free_flat, 0) << a << "\n" << b;
    }
  }
}

TEST(LinearLayoutPropertyTest, InvertAndComposeMapsIdenticalDimsToThemselves) {
  RandomLayouts gen(11);
  for (int t = 0; t < 200; ++t) {
    const OutDimsT outs = gen.Outs({"dim0", "dim1"}, 3, 1);
    const LinearLayout shared = gen.Layout({{"warp", gen.Uniform(0, 2)}}, outs, 0.5);
    const LinearLayout b = gen.Surjective({"register", "lane"}, outs).ConcatIns(shared);
    const LinearLayout a =
        gen.Layout({{"register", gen.Uniform(0, 3)}}, outs).ConcatIns(shared);
    // If a's register happens to equal b's, only b keeps a dim (lane): Triton rejects.
    absl::StatusOr<LinearLayout> c_or = a.TryInvertAndCompose(b);
    if (!c_or.ok()) {
      EXPECT_EQ(a.Sublayout({"register"}, a.OutDimNames()),
                b.Sublayout({"register"}, b.OutDimNames()));
      continue;
    }
    const LinearLayout& c = *c_or;
    const int k = c.InDimSizeLog2("warp");
    for (int i = 0; i < k; ++i) {
      for (const auto& [out, size] : c.out_dims()) {
        EXPECT_EQ(c.GetBasis("warp", i, out), out == "warp" ? (1 << i) : 0) << c;
      }
    }
    EXPECT_TRUE(c.SublayoutIsZero({"register"}, {"warp"}));
  }
}

TEST(LinearLayoutTest, PseudoinvertAndInvertLiterals) {
  EXPECT_EQ(L("{r: [[1], [0], [2]]} -> {o: 4}").Pseudoinvert().ToString(),
            "{o: [[1], [4]]} -> {r: 8}");
  EXPECT_EQ(L("{r: [[2], [1], [4]]} -> {o: 8}").Invert().ToString(),
            "{o: [[2], [1], [4]]} -> {r: 8}");
  // An in-dim named like an out-dim with the same sublayout is an identity dim.
  EXPECT_EQ(L("{o: [[2], [1]], r: [[1]]} -> {o: 4}").Pseudoinvert().ToString(),
            "{o: [[2, 0], [1, 0]]} -> {o: 4, r: 2}");
}

TEST(LinearLayoutDeathTest, InvertNeedsAnInvertibleLayout) {
  EXPECT_DEATH((void)L("{r: [[1], [0], [2]]} -> {o: 4}").Invert(), "invertible");
}

TEST(LinearLayoutPropertyTest, PseudoinvertIsARightInverseOnTheImage) {
  RandomLayouts gen(12);
  for (int t = 0; t < 300; ++t) {
    const OutDimsT outs = gen.Outs(gen.Subsequence(kDims, 1), 3);
    const LinearLayout l = gen.Surjective(gen.Subsequence(kDist, 1), outs, 3);
    const LinearLayout pinv = l.Pseudoinvert();
    EXPECT_EQ(pinv.InDimNames(), l.OutDimNames());
    for (int64_t y = 0; y < l.TotalOutDimSize(); ++y) {
      const Point py = OutPoint(l, y);
      ASSERT_EQ(l.Apply(pinv.Apply(py)), py) << l << "\npinv " << pinv;
    }
  }
}

TEST(LinearLayoutPropertyTest, InvertIsATwoSidedInverse) {
  RandomLayouts gen(13);
  for (int t = 0; t < 300; ++t) {
    const OutDimsT outs = gen.Outs(gen.Subsequence(kDims, 1), 3);
    const LinearLayout l = gen.Bijective(gen.Subsequence(kDist, 1), outs);
    const LinearLayout inv = l.Invert();
    EXPECT_TRUE(inv.IsInvertible());
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) {
      const Point p = InPoint(l, x);
      ASSERT_EQ(inv.Apply(l.Apply(p)), p) << l;  // Invert after L is the identity
      const Point q = OutPoint(l, x);
      ASSERT_EQ(l.Apply(inv.Apply(q)), q) << l;
    }
    // Invert composed after L, as a layout, is the identity on L's in-dims.
    LinearLayout id = LinearLayout::Empty();
    for (const auto& [name, b] : l.bases()) {
      id *= LinearLayout::Identity1D(l.InDimSize(name), name, name);
    }
    EXPECT_EQ(l.Compose(inv), id);
  }
}

// ---- Division, quotient
// ------------------------------------------------------------------

TEST(LinearLayoutTest, DivideLeftAndRightLiterals) {
  using LL = LinearLayout;
  const LL a = LL::Identity1D(32, "i", "o");
  ASSERT_OK_AND_ASSIGN(LL c, [&]() -> absl::StatusOr<LL> {
    auto r = DivideLeft(a, LL::Identity1D(4, "i", "o"));
    if (!r) return absl::NotFoundError("no quotient");
    return *r;
  }());
  EXPECT_EQ(c, LL::Identity1D(8, "i", "o"));
  EXPECT_EQ(DivideRight(a, LL::Identity1D(4, "i", "o")), LL::Identity1D(8, "i", "o"));
  // A register layout repeated 2x along dim0: divide off the tile from the left.
  const LL tile = L("{register: [[0, 1]], lane: [[1, 0]]} -> {dim0: 2, dim1: 2}");
  const LL rep = tile * L("{register: [[1, 0]]} -> {dim0: 2, dim1: 1}");
  EXPECT_EQ(rep.ToString(),
            "{register: [[0, 1], [2, 0]], lane: [[1, 0]]} -> {dim0: 4, dim1: 2}");
  EXPECT_EQ(DivideLeft(rep, tile),
            L("{register: [[1, 0]], lane: []} -> {dim0: 2, dim1: 1}"));
  // Not a multiple: the first basis does not match.
  EXPECT_EQ(DivideLeft(rep, L("{register: [[1, 0]]} -> {dim0: 2, dim1: 1}")),
            std::nullopt);
  // B larger than A.
  EXPECT_EQ(DivideLeft(tile, rep), std::nullopt);
  // A dim of B missing from A.
  EXPECT_EQ(DivideLeft(tile, L("{warp: []} -> {dim0: 1}")), std::nullopt);
  EXPECT_EQ(DivideRight(rep, L("{register: [[1, 0]]} -> {dim0: 2, dim1: 1}")), tile);
  EXPECT_EQ(DivideRight(rep, tile), std::nullopt);
}

TEST(LinearLayoutPropertyTest, DivisionUndoesTheProduct) {
  RandomLayouts gen(14);
  for (int t = 0; t < 300; ++t) {
    // C spans the full dim lists, B a subsequence of them (as for register tiles).
    const std::vector<std::string> ins = gen.Subsequence(kDist, 1);
    const std::vector<std::string> outs = gen.Subsequence(kDims, 1);
    std::vector<std::pair<std::string, int>> c_ins, b_ins;
    for (const std::string& n : ins) c_ins.emplace_back(n, gen.Uniform(0, 2));
    for (const std::string& n : gen.Subsequence(ins))
      b_ins.emplace_back(n, gen.Uniform(0, 2));
    const LinearLayout c = gen.Layout(c_ins, gen.Outs(outs, 2));
    const LinearLayout b = gen.Layout(b_ins, gen.Outs(gen.Subsequence(outs), 2));
    // Ensures: B * C == A -> DivideLeft(A, B) == C; C * B == A -> DivideRight(A, B) == C.
    EXPECT_EQ(DivideLeft(b * c, b), c) << b << " * " << c;
    EXPECT_EQ(DivideRight(c * b, b), c) << c << " * " << b;
    const std::optional<LinearLayout> q = DivideLeft(c, b);
    if (q.has_value()) {
      EXPECT_EQ(b * *q, c);
    }
    const std::optional<LinearLayout> r = DivideRight(c, b);
    if (r.has_value()) {
      EXPECT_EQ(*r * b, c);
    }
  }
}

TEST(LinearLayoutTest, IsTrivialOverAndQuotient) {
  const LinearLayout l =
      L("{register: [[1, 0]], block: [[0, 1]]} -> {dim0: 2, block: 2}");
  EXPECT_TRUE(l.IsTrivialOver({"block"}));
  EXPECT_EQ(l.Quotient({"block"}), L("{register: [[1]]} -> {dim0: 2}"));
  EXPECT_TRUE(l.IsTrivialOver({}));
  EXPECT_EQ(l.Quotient({}), l);
  // block feeds dim0: not trivial.
  const LinearLayout m =
      L("{register: [[1, 0]], block: [[1, 1]]} -> {dim0: 2, block: 2}");
  EXPECT_FALSE(m.IsTrivialOver({"block"}));
  EXPECT_EQ(m.Quotient({"block"}), std::nullopt);
  // register reaches block: not trivial.
  const LinearLayout n =
      L("{register: [[1, 1]], block: [[0, 1]]} -> {dim0: 2, block: 2}");
  EXPECT_FALSE(n.IsTrivialOver({"block"}));
  // Not the identity, or sizes differ.
  EXPECT_FALSE(L("{block: [[0]]} -> {block: 1}").IsTrivialOver({"block"}));
  EXPECT_FALSE(L("{block: [[1]]} -> {block: 4}").IsTrivialOver({"block"}));
  // A dim missing on either side.
  EXPECT_FALSE(l.IsTrivialOver({"register"}));
  EXPECT_EQ(l.Quotient({"dim0"}), std::nullopt);
}

// ---- Consecutiveness, column actions, equality ----------------------------------------

TEST(LinearLayoutTest, GetNumConsecutiveInOut) {
  EXPECT_EQ(LinearLayout::Identity1D(8, "register", "dim0").GetNumConsecutiveInOut(), 8);
  EXPECT_EQ(
      L("{register: [[1, 0], [2, 0], [0, 1]], lane: [[4, 0]]} -> {dim0: 8, dim1: 2}")
          .GetNumConsecutiveInOut(),
      4);
  EXPECT_EQ(
      L("{register: [[1, 0], [2, 0], [0, 1]], lane: [[6, 0]]} -> {dim0: 8, dim1: 2}")
          .GetNumConsecutiveInOut(),
      2);
  EXPECT_EQ(
      L("{register: [[0, 1], [1, 0]]} -> {dim0: 2, dim1: 2}").GetNumConsecutiveInOut(),
      1);
  EXPECT_EQ(L("{register: []} -> {}").GetNumConsecutiveInOut(), 1);
}

TEST(LinearLayoutPropertyTest, NumConsecutiveInOutIsAContiguousRun) {
  RandomLayouts gen(16);
  for (int t = 0; t < 300; ++t) {
    // Identity-like low register bases make long runs likely.
    const OutDimsT outs = gen.Outs({"dim0", "dim1"}, 4, 1);
    LinearLayout l =
        LinearLayout::Identity1D(1 << gen.Uniform(0, 3), "register", "dim0") *
        gen.Layout({{"register", gen.Uniform(0, 2)}, {"lane", gen.Uniform(0, 3)}}, outs);
    const int32_t v = l.GetNumConsecutiveInOut();
    ASSERT_GE(v, 1);
    // Ensures: v consecutive values of the first in-dim map to v consecutive values of
    // the first out-dim ...
    for (int32_t x = 0; x < v; ++x) {
      Point p;
      for (const auto& [name, b] : l.bases())
        p.emplace_back(name, name == "register" ? x : 0);
      const Point y = l.Apply(p);
      EXPECT_EQ(y[0].second, x) << l;
      for (size_t o = 1; o < y.size(); ++o) EXPECT_EQ(y[o].second, 0) << l;
    }
    // ... and every other input leaves the low log2(v) bits of the first out-dim alone.
    for (int64_t x = 0; x < l.TotalInDimSize(); ++x) {
      if ((x % v) != 0) continue;
      EXPECT_EQ(l.Apply(InPoint(l, x))[0].second % v, 0) << l;
    }
  }
}

TEST(LinearLayoutPropertyTest, SublayoutIsTheRestriction) {
  RandomLayouts gen(17);
  for (int t = 0; t < 200; ++t) {
    const LinearLayout l = gen.Any(kDist, kDims, 8);
    const std::vector<std::string> ins = gen.Shuffled(gen.Subsequence(l.InDimNames()));
    const std::vector<std::string> outs = gen.Shuffled(gen.Subsequence(l.OutDimNames()));
    const LinearLayout s = l.Sublayout(ins, outs);
    // Ensures: dims kept in this layout's order, out sizes unchanged.
    for (size_t o = 0; o < s.out_dims().size(); ++o) {
      EXPECT_EQ(s.out_dims()[o].second, l.OutDimSize(s.out_dims()[o].first));
    }
    for (int64_t x = 0; x < s.TotalInDimSize(); ++x) {
      const Point ps = InPoint(s, x);
      Point pl;
      for (const auto& [name, b] : l.bases()) {
        int32_t v = 0;
        for (const auto& [n, sv] : ps) {
          if (n == name) v = sv;
        }
        pl.emplace_back(name, v);
      }
      EXPECT_EQ(s.Apply(ps), Reorder(l.Apply(pl), s.OutDimNames()));
    }
    bool all_zero = true;
    for (const auto& [name, dim_bases] : s.bases()) {
      for (const Basis& b : dim_bases) {
        for (int32_t v : b) all_zero &= v == 0;
      }
    }
    EXPECT_EQ(l.SublayoutIsZero(ins, outs), all_zero);
  }
}

TEST(LinearLayoutTest, ColumnActionPermutesAndDropsBases) {
  const LinearLayout l = L("{register: [[1], [2], [4]], lane: [[8]]} -> {dim0: 16}");
  const ColumnAction swap({2, 0, 1}, "register", 3);
  EXPECT_FALSE(swap.IsIdentity());
  EXPECT_EQ(swap.Apply(l).ToString(),
            "{register: [[4], [1], [2]], lane: [[8]]} -> {dim0: 16}");
  EXPECT_EQ(swap.ToString(), "ColumnAction([2, 0, 1], register, 3)");
  const ColumnAction drop({1}, "register", 3);
  EXPECT_EQ(drop.Apply(l).ToString(), "{register: [[2]], lane: [[8]]} -> {dim0: 16}");
  EXPECT_TRUE(ColumnAction({0, 1, 2}, "register", 3).IsIdentity());
  EXPECT_FALSE(ColumnAction({0, 1}, "register", 3).IsIdentity());
  EXPECT_THAT(
      ColumnAction({1, 0}, "register", 2).Apply(std::vector<char>{'a', 'b', 'c', 'd'}),
      ElementsAre('a', 'c', 'b', 'd'));
  EXPECT_THAT(
      ColumnAction({1}, "register", 2).Apply(std::vector<char>{'a', 'b', 'c', 'd'}),
      ElementsAre('a', 'c'));
}

TEST(LinearLayoutPropertyTest, ColumnActionOnLayoutsAndValuesAgree) {
  RandomLayouts gen(15);
  for (int t = 0; t < 200; ++t) {
    const int k = gen.Uniform(0, 5);
    const LinearLayout l = gen.Layout({{"register", k}, {"lane", gen.Uniform(0, 2)}},
                                      gen.Outs({"dim0", "dim1"}, 3));
    std::vector<int32_t> perm;
    for (int i = 0; i < k; ++i) {
      if (gen.Coin(0.8)) perm.push_back(i);
    }
    perm = gen.Shuffled(perm);
    const ColumnAction action(perm, "register", k);
    // values[i] = the element register i holds (lane 0).
    std::vector<Point> values;
    for (int32_t i = 0; i < (1 << k); ++i)
      values.push_back(l.Apply({{"register", i}, {"lane", 0}}));
    const std::vector<Point> moved = action.Apply(values);
    const LinearLayout permuted = action.Apply(l);
    ASSERT_EQ(moved.size(), size_t{1} << perm.size());
    for (int32_t j = 0; j < static_cast<int32_t>(moved.size()); ++j) {
      EXPECT_EQ(permuted.Apply({{"register", j}, {"lane", 0}}), moved[j]);
    }
  }
}

TEST(LinearLayoutTest, EqualityComparesNamesOrderBasesAndSizes) {
  const LinearLayout a = L("{r: [[1]], l: []} -> {o: 2}");
  EXPECT_EQ(a, L("{r: [[1]], l: []} -> {o: 2}"));
  EXPECT_NE(a, L("{l: [], r: [[1]]} -> {o: 2}"));
  EXPECT_NE(a, L("{r: [[1]]} -> {o: 2}"));
  EXPECT_NE(a, L("{r: [[1]], l: []} -> {o: 4}"));
  EXPECT_TRUE(a.EqualIgnoringOutDimSizes(L("{r: [[1]], l: []} -> {o: 4}")));
  EXPECT_FALSE(a.EqualIgnoringOutDimSizes(L("{r: [[1]], l: []} -> {p: 2}")));
}

}  // namespace
}  // namespace warpcheck::sim::layout
