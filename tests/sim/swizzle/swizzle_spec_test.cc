// SwizzleSpec: the swizzle dialect's structure checks, instantiation, and the corpus
// transcriptions of the built-ins agreeing with the C++ built-ins on every point of a
// sweep.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/expr/printer.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/swizzle2d.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/sanitized.h"

namespace warpcheck::sim::swizzle {
namespace {

using ::testing::ElementsAre;

std::string CorpusPath(const std::string& name) {
  return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/swizzle/" + name;
}

SwizzleSpec LoadOrDie(const std::string& name) {
  absl::StatusOr<SwizzleSpec> s = SwizzleSpec::Load(CorpusPath(name));
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

constexpr char kSmall[] = R"(param n in 1..4;
param m in 1..4;
require n <= m;
let span = n * m;
domain = span;
grid row = n;
grid col = m;
let r = iter // m;
out row = r;
out col = iter % m;
out size = min(10 - row * 3, 3);
tail size = min(10 - row * 3, 3);
skip n == 3 && iter == 0;
)";

TEST(SwizzleSpecTest, ParsesAndInstantiates) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("small.swz", kSmall));
  EXPECT_THAT(spec.coordinates(), ElementsAre("row", "col"));
  EXPECT_FALSE(spec.has_ranks());
  ASSERT_EQ(spec.params().size(), 2u);
  EXPECT_EQ(spec.params()[1]->name, "m");
  EXPECT_EQ(expr::Print(*spec.domain().value), "span");
  ASSERT_OK_AND_ASSIGN(SpecInstance inst, spec.Instantiate({2, 3}));
  EXPECT_EQ(inst.domain(), 6);
  EXPECT_THAT(inst.extents(), ElementsAre(2, 3));
  EXPECT_EQ(inst.tiles(), 6);
  EXPECT_EQ(inst.ranks(), 1);
  EXPECT_THAT(inst.params(), ElementsAre(NamedValue{"n", 2}, NamedValue{"m", 3}));
  int64_t c[2];
  EXPECT_EQ(inst.Map(4, c), PointOutcome::kTile);
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[1], 1);
  ASSERT_OK_AND_ASSIGN(int64_t size, inst.Value("size"));
  EXPECT_EQ(size, 3);
  ASSERT_OK_AND_ASSIGN(SpecInstance::Point p, inst.Explain(5));
  EXPECT_FALSE(p.skipped);
  EXPECT_THAT(p.outputs, ElementsAre(NamedValue{"row", 1}, NamedValue{"col", 2},
                                     NamedValue{"size", 3}));
  EXPECT_THAT(p.coords, ElementsAre(1, 2));
  EXPECT_EQ(p.tail_error, "");
  // n = 3: iteration 0 is skipped.
  ASSERT_OK_AND_ASSIGN(SpecInstance three, spec.Instantiate({3, 4}));
  EXPECT_EQ(three.Map(0, c), PointOutcome::kSkip);
  ASSERT_OK_AND_ASSIGN(p, three.Explain(0));
  EXPECT_TRUE(p.skipped);
  EXPECT_EQ(three.Map(11, c), PointOutcome::kTile);
  ASSERT_OK_AND_ASSIGN(size, three.Value("size"));
  EXPECT_EQ(size, 3);
}

TEST(SwizzleSpecTest, InstantiateErrors) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("small.swz", kSmall));
  EXPECT_THAT(spec.Instantiate({3, 2}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "small.swz:3:1: parameters (n=3, m=2) violate require n <= m"));
  EXPECT_THAT(spec.Instantiate({5, 5}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "small.swz:1:7: parameter 'n' = 5 is outside its declared range "
                       "1..4"));
  EXPECT_THAT(spec.Instantiate({1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "small.swz: 1 parameter values for 2 parameters"));
  ASSERT_OK_AND_ASSIGN(SpecInstance wide, spec.InstantiateUnchecked({5, 5}));
  EXPECT_EQ(wide.domain(), 25);
  EXPECT_THAT(spec.InstantiateUnchecked({0, 5}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "small.swz:6:1: grid row = 0 is not positive; exclude such points "
                       "with a 'require' (at n=0, m=5)"));
  ASSERT_OK_AND_ASSIGN(SwizzleSpec div, SwizzleSpec::Parse("d.swz", R"(param n in 0..2;
let w = 4 // n;
domain = w;
grid x = w;
out x = iter;
)"));
  EXPECT_THAT(div.Instantiate({0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "d.swz:2:11: division by zero: 4 // n with n = 0 (at n=0)"));
  ASSERT_OK_AND_ASSIGN(SwizzleSpec neg, SwizzleSpec::Parse("n.swz", R"(param n in -2..2;
domain = n;
grid x = 1;
out x = 0;
)"));
  EXPECT_THAT(neg.Instantiate({-1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "n.swz:2:1: domain = -1 is negative (at n=-1)"));
}

struct BadSpec {
  const char* text;
  const char* error;
};
void PrintTo(const BadSpec& c, std::ostream* os) { *os << c.text; }

class SwizzleSpecErrorTest : public ::testing::TestWithParam<BadSpec> {};

TEST_P(SwizzleSpecErrorTest, RejectsMalformedSpecs) {
  absl::StatusOr<SwizzleSpec> s = SwizzleSpec::Parse("bad.swz", GetParam().text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, SwizzleSpecErrorTest,
    ::testing::Values(
        BadSpec{
            "grid x = 1;\nout x = iter;",
            "bad.swz:2:14: missing 'domain = ...;' (the number of iterations, e.g. domain = "
            "R * C;)"},
        BadSpec{
            "domain = 3;\nout x = iter;",
            "bad.swz:2:14: missing 'grid' clauses (the extent of each tile coordinate, e.g. "
            "grid row = R; grid col = C;)"},
        BadSpec{"domain = 3;\ngrid y = 3;\nout x = iter;",
                "bad.swz:2:6: 'grid y' has no matching 'out y = ...;' (a grid gives the "
                "extent of an output)"},
        BadSpec{
            "domain = 3;\ngrid x = 3;\ntail x = 1;\nout x = iter;",
            "bad.swz:3:6: 'tail x' needs an 'out x = ...;' above it (a tail states the "
            "exact value an output must have)"},
        BadSpec{"domain = 3;\nout x = 2;\ngrid x = x + 1;",
                "bad.swz:3:10: 'grid x' may use only parameters and values computed from "
                "them, not 'x', which is computed per iteration"},
        BadSpec{"domain = 3;\ngrid x = iter;\nout x = iter;",
                "bad.swz:2:10: 'grid x' may use only parameters and values computed from "
                "them, not the input 'iter'"},
        BadSpec{"domain = 3;\ngrid a = 1;\ngrid b = 1;\ngrid c = 1;\ngrid d = 1;\n"
                "grid e = 1;",
                "bad.swz:6:1: at most 4 'grid' coordinates are supported"},
        BadSpec{"domain = 3;\ngrid x = 3;\ngrid x = 2;\nout x = iter;",
                "bad.swz:3:6: 'grid x' is already given at 2:1"},
        BadSpec{"domain = 3;\ngrid x = 3;\nout x = iter;\nskip x;",
                "bad.swz:4:6: 'skip' needs a bool expression, got int"},
        BadSpec{"domain = 3;\ngrid x = 3;\nout x = iter < 2;",
                "bad.swz:3:9: 'out x' needs an int expression, got bool"},
        BadSpec{"param p in 1..2;\nrequire iter > 0;\ndomain = p;",
                "bad.swz:2:9: 'require' may use only parameters and values computed from "
                "them, not the input 'iter'"}));

TEST(SwizzleSpecTest, InverseClause) {
  ASSERT_OK_AND_ASSIGN(SwizzleSpec spec, SwizzleSpec::Parse("inv.swz", R"(
param R in 1..4;
param C in 1..4;
domain = R * C;
grid row = R;
grid col = C;
out row = iter // C;
out col = iter % C;
let back = row * C;
inverse iter = back + col;
)"));
  ASSERT_NE(spec.inverse(), nullptr);
  EXPECT_EQ(spec.inverse()->loc.line, 10);
  // The enumerator ignores it: the map is unchanged.
  ASSERT_OK_AND_ASSIGN(SpecInstance inst, spec.Instantiate({2, 3}));
  int64_t coords[2];
  EXPECT_EQ(inst.Map(4, coords), PointOutcome::kTile);
  EXPECT_EQ(coords[0], 1);
  EXPECT_EQ(coords[1], 1);
}

INSTANTIATE_TEST_SUITE_P(
    BadInverse, SwizzleSpecErrorTest,
    ::testing::Values(
        BadSpec{"param p in 1..2;\ndomain = p;\ngrid row = p;\nout row = iter;\n"
                "inverse row = row;",
                "bad.swz:5:9: 'inverse row': the inverse gives the iteration of a tile; "
                "write 'inverse iter = ...;'"},
        BadSpec{"param p in 1..2;\ndomain = p;\ngrid row = p;\nlet k = iter + 0;\n"
                "out row = k;\ninverse iter = row + k;",
                "bad.swz:6:22: 'inverse iter' may read the iteration only through the "
                "tile coordinates (row), not through 'k'"},
        BadSpec{"param p in 1..2;\ndomain = p;\ngrid row = p;\nout row = iter;\n"
                "inverse iter = iter;",
                "bad.swz:5:16: 'inverse iter' may read the iteration only through the "
                "tile coordinates (row), not through 'iter'"},
        BadSpec{"param p in 1..2;\ndomain = p;\ngrid row = p;\nout row = iter;\n"
                "inverse iter = row;\ninverse iter = row;",
                "bad.swz:6:9: 'inverse iter' is already given at 5:1"}));

TEST(SwizzleSpecTest, DialectKeywords) {
  const expr::Dialect& d = SwizzleDialect();
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].first, "iter");
  std::vector<std::string> words;
  for (const expr::ClauseSpec& c : d.clauses) words.push_back(c.keyword);
  EXPECT_THAT(words, ElementsAre("require", "domain", "grid", "out", "tail", "skip", "inverse"));
}

TEST(SwizzleSpecTest, LoadReportsMissingFiles) {
  EXPECT_THAT(SwizzleSpec::Load("/nonexistent/x.swz"),
              StatusIs(absl::StatusCode::kNotFound, "/nonexistent/x.swz: cannot open"));
}

// ---------------------------------------------------------------------------------------
// Every built-in's transcription agrees with the C++ built-in on every point.

// Compares the spec instance with Apply() on the whole domain; returns the points seen.
int64_t ExpectAgree(const SwizzleSpec& spec, const std::vector<int64_t>& values,
                    const Swizzle2dParams& params) {
  absl::StatusOr<SpecInstance> inst = spec.Instantiate(values);
  EXPECT_TRUE(inst.ok()) << inst.status();
  if (!inst.ok()) return 0;
  EXPECT_EQ(inst->domain(), params.DomainSize()) << params.ToString();
  const bool dist = IsDist(params.fn);
  int64_t c[3];
  for (int64_t i = 0; i < inst->domain(); ++i) {
    absl::StatusOr<Swizzle2dResult> want = Apply(params, i);
    EXPECT_TRUE(want.ok()) << want.status();
    PointOutcome o = inst->Map(i, c);
    if (o != PointOutcome::kTile || c[0] != want->row || c[1] != want->col ||
        (dist && c[2] != want->rank)) {
      ADD_FAILURE() << spec.source_name() << " disagrees with " << params.ToString()
                    << " at iter " << i << ": expr (" << c[0] << ", " << c[1]
                    << (dist ? ", " + std::to_string(c[2]) : "") << "), C++ ("
                    << want->row << ", " << want->col
                    << (dist ? ", " + std::to_string(want->rank) : "") << ")";
      return i;
    }
    if (dist) {
      EXPECT_EQ(*inst->Value("comm_row_size"), want->comm_row_size);
      EXPECT_EQ(*inst->Value("comm_col_size"), want->comm_col_size);
    }
  }
  return inst->domain();
}

TEST(SwizzleSpecAgreementTest, GemmBothDirections) {
  SwizzleSpec d1 = LoadOrDie("gemm_d1.swz");
  SwizzleSpec d0 = LoadOrDie("gemm_d0.swz");
  int64_t points = 0;
  for (int64_t R = 1; R <= 12; ++R) {
    for (int64_t C = 1; C <= 12; ++C) {
      for (int64_t s = 1; s <= 7; ++s) {
        for (int64_t dir : {0, 1}) {
          Swizzle2dParams p{.fn = Builtin::kGemm,
                            .shape = Shape2d::FromTileCounts(R, C),
                            .swizzle_offset = s,
                            .direction = dir};
          points += ExpectAgree(dir == 1 ? d1 : d0, {R, C, s}, p);
        }
      }
    }
  }
  EXPECT_EQ(points, 78 * 78 * 7 * 2);  // sum over R, C of R*C, times 7 offsets, 2 dirs
}

TEST(SwizzleSpecAgreementTest, GemmNzOnDataShapes) {
  SwizzleSpec nz = LoadOrDie("gemm_nz.swz");
  int64_t points = 0;
  for (int64_t rows = 1; rows <= 24; ++rows) {
    for (int64_t cols = 1; cols <= 24; ++cols) {
      for (int64_t tr = 1; tr <= 3; ++tr) {
        for (int64_t tc = 1; tc <= 3; ++tc) {
          for (int64_t s = 1; s <= 7; ++s) {
            Swizzle2dParams p{.fn = Builtin::kGemmNz,
                              .shape = {rows, cols, tr, tc},
                              .swizzle_offset = s};
            points += ExpectAgree(nz, {rows, cols, tr, tc, s}, p);
          }
        }
      }
    }
  }
  EXPECT_GT(points, 0);
}

// Grids up to 12 x 12 in unit tiles, and partial tiles (3 x 2 tiles over the same
// ranges); ranks 1..8 with every valid split; both directions; comm_data_split 1..4.
// In the sanitizer job's -O0 build (WARPCHECK_SANITIZED, tools/sanitize.sh) every third
// grid, with every rank count, split and direction: all of them took 54 s there (15 s
// sampled), more than the rest of swizzle_spec_test, running the same code on more grids.
constexpr int64_t kGridStride = warpcheck::testing::kSanitized ? 3 : 1;
TEST(SwizzleSpecAgreementTest, DistAllVariants) {
  SwizzleSpec d1 = LoadOrDie("dist_d1.swz");
  SwizzleSpec d0 = LoadOrDie("dist_d0.swz");
  SwizzleSpec nz = LoadOrDie("dist_nz.swz");
  int64_t checked = 0;
  for (auto [tr, tc] : {std::pair<int64_t, int64_t>{1, 1}, {3, 2}}) {
    for (int64_t rows = 1; rows <= 12; ++rows) {
      for (int64_t cols = 1; cols <= 12; ++cols) {
        if ((rows * 12 + cols) % kGridStride != 0) continue;
        for (int64_t n = 1; n <= 8; ++n) {
          for (int64_t p = 1; p <= n; ++p) {
            if (n % p != 0) continue;
            Swizzle2dParams base{
                .shape = {rows, cols, tr, tc}, .rank_size = n, .comm_npu_split = p};
            Swizzle2dParams a = base;
            a.fn = Builtin::kDist;
            checked += ExpectAgree(d1, {rows, cols, tr, tc, n, p}, a);
            Swizzle2dParams b = base;
            b.fn = Builtin::kDistNz;
            checked += ExpectAgree(nz, {rows, cols, tr, tc, n, p}, b);
            for (int64_t q = 1; q <= 4; ++q) {
              Swizzle2dParams c = a;
              c.direction = 0;
              c.comm_data_split = q;
              checked += ExpectAgree(d0, {rows, cols, tr, tc, n, p, q}, c);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace warpcheck::sim::swizzle
