// Replays the golden vectors that tools/oracle/algebra_oracle.py recorded from Triton
// 3.6.0's C++ LinearLayout (tests/sim/layout/testdata/algebra_golden.txt) against
// warpcheck's LinearLayout. Every line is one vector; a failure names its line number.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/layout/linear_layout.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::layout {
namespace {

struct Vector {
  int line = 0;
  std::string op;
  std::string arg1;
  std::string arg2;
  std::string expected;
};

std::string GoldenPath() {
  const char* env = std::getenv("WARPCHECK_SOURCE_DIR");
  std::string root = env != nullptr ? env : WARPCHECK_SOURCE_DIR;
  return root + "/tests/sim/layout/testdata/algebra_golden.txt";
}

std::vector<Vector> LoadVectors() {
  std::ifstream in(GoldenPath());
  std::vector<Vector> vectors;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 4) {
      ADD_FAILURE() << "line " << n << ": expected 4 tab-separated fields";
      continue;
    }
    vectors.push_back({n, fields[0], fields[1], fields[2], fields[3]});
  }
  return vectors;
}

LinearLayout MustParse(absl::string_view text) {
  absl::StatusOr<LinearLayout> l = LinearLayout::Parse(text);
  EXPECT_TRUE(l.ok()) << l.status() << " parsing " << text;
  return l.ok() ? *l : LinearLayout();
}

std::vector<std::string> Words(absl::string_view s) {
  return absl::StrSplit(s, ' ', absl::SkipEmpty());
}

int32_t Int(absl::string_view s) {
  int32_t v = 0;
  EXPECT_TRUE(absl::SimpleAtoi(s, &v)) << s;
  return v;
}

// "register=3, lane=5" -> {{"register", 3}, {"lane", 5}}.
LinearLayout::Point ParsePoint(absl::string_view s) {
  LinearLayout::Point p;
  for (absl::string_view item : absl::StrSplit(s, ", ", absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, '=');
    p.emplace_back(kv.first, Int(kv.second));
  }
  return p;
}

std::string FormatPoint(const LinearLayout::Point& p) {
  std::vector<std::string> items;
  for (const auto& [name, v] : p) items.push_back(absl::StrCat(name, "=", v));
  return absl::StrJoin(items, ", ");
}

// Runs one vector; returns "" on success or a description of the mismatch.
std::string Check(const Vector& v) {
  auto compare = [&](const LinearLayout& got) -> std::string {
    if (got.ToString() == v.expected && got == MustParse(v.expected)) return "";
    return absl::StrCat("got      ", got.ToString(), "\nexpected ", v.expected);
  };
  if (v.op == "product") return compare(MustParse(v.arg1) * MustParse(v.arg2));
  if (v.op == "compose") return compare(MustParse(v.arg1).Compose(MustParse(v.arg2)));
  if (v.op == "invert_and_compose") {
    const LinearLayout a = MustParse(v.arg1), b = MustParse(v.arg2);
    absl::StatusOr<LinearLayout> c = a.TryInvertAndCompose(b);
    if (!c.ok()) return absl::StrCat("unexpected error: ", c.status().ToString());
    return compare(*c);
  }
  if (v.op == "invert_and_compose_fails") {
    absl::StatusOr<LinearLayout> c =
        MustParse(v.arg1).TryInvertAndCompose(MustParse(v.arg2));
    if (c.ok()) return absl::StrCat("expected failure, got ", c->ToString());
    if (c.status().code() != absl::StatusCode::kFailedPrecondition) {
      return absl::StrCat("wrong status ", c.status().ToString());
    }
    return "";
  }
  if (v.op == "pseudoinvert") return compare(MustParse(v.arg1).Pseudoinvert());
  if (v.op == "pseudoinvert_fails") {
    // Pseudoinvert is I.InvertAndCompose(A) with I the identity on A's out-dims.
    const LinearLayout a = MustParse(v.arg1);
    LinearLayout identity;
    for (const auto& [name, size] : a.out_dims()) {
      identity *= LinearLayout::Identity1D(size, name, name);
    }
    if (identity.TryInvertAndCompose(a).ok()) return "expected failure";
    return "";
  }
  if (v.op == "invert") return compare(MustParse(v.arg1).Invert());
  if (v.op == "props") {
    const LinearLayout a = MustParse(v.arg1);
    const std::string got = absl::StrCat("surjective=", a.IsSurjective() ? 1 : 0,
                                         " injective=", a.IsInjective() ? 1 : 0,
                                         " invertible=", a.IsInvertible() ? 1 : 0);
    return got == v.expected ? "" : absl::StrCat("got ", got);
  }
  if (v.op == "apply") {
    const std::string got = FormatPoint(MustParse(v.arg1).Apply(ParsePoint(v.arg2)));
    return got == v.expected ? "" : absl::StrCat("got ", got);
  }
  if (v.op == "infer_sizes" || v.op == "infer_sizes_fails") {
    const LinearLayout placeholder = MustParse(v.arg1);
    absl::StatusOr<LinearLayout> l =
        LinearLayout::Create(placeholder.bases(), placeholder.OutDimNames());
    if (v.op == "infer_sizes_fails") {
      return l.ok() ? absl::StrCat("expected failure, got ", l->ToString()) : "";
    }
    if (!l.ok()) return absl::StrCat("unexpected error: ", l.status().ToString());
    return compare(*l);
  }
  const std::vector<std::string> w = Words(v.arg1);
  if (v.op == "identity_1d" && w.size() == 3) {
    return compare(LinearLayout::Identity1D(Int(w[0]), w[1], w[2]));
  }
  if (v.op == "zeros_1d" && w.size() == 4) {
    return compare(LinearLayout::Zeros1D(Int(w[0]), w[1], w[2], Int(w[3])));
  }
  if (v.op == "strided_1d" && w.size() == 4) {
    return compare(LinearLayout::Strided1D(Int(w[0]), Int(w[1]), w[2], w[3]));
  }
  return absl::StrCat("unknown op '", v.op, "'");
}

TEST(LinearLayoutOracleTest, ReplaysEveryTritonVector) {
  const std::vector<Vector> vectors = LoadVectors();
  ASSERT_GE(vectors.size(), 150u) << "golden file missing or truncated: " << GoldenPath();
  std::map<std::string, int> per_op;
  for (const Vector& v : vectors) {
    ++per_op[v.op];
    const std::string mismatch = Check(v);
    EXPECT_EQ(mismatch, "") << "line " << v.line << " (" << v.op << ")\n  arg1 " << v.arg1
                            << "\n  arg2 " << v.arg2 << "\n  " << mismatch;
  }
  // invertAndCompose must stay heavily represented.
  EXPECT_GE(per_op["invert_and_compose"], 100);
  EXPECT_GE(per_op["invert_and_compose_fails"], 5);
}

// Extra laws checked on the oracle's own inputs: the Triton result really is a
// solution of A(x) == B(C(x)) for every x.
TEST(LinearLayoutOracleTest, InvertAndComposeResultsSolveTheEquation) {
  for (const Vector& v : LoadVectors()) {
    if (v.op != "invert_and_compose") continue;
    const LinearLayout a = MustParse(v.arg1), b = MustParse(v.arg2);
    const LinearLayout c = a.InvertAndCompose(b);
    const LinearLayout bc = c.Compose(b).TransposeOuts(a.OutDimNames());
    for (int64_t x = 0; x < a.TotalInDimSize(); ++x) {
      // Compare coordinates, not flat values: b's out sizes may exceed a's.
      LinearLayout::Point p;
      int shift = 0;
      for (const auto& [name, dim_bases] : a.bases()) {
        p.emplace_back(name, static_cast<int32_t>(
                                 (x >> shift) & ((int64_t{1} << dim_bases.size()) - 1)));
        shift += static_cast<int>(dim_bases.size());
      }
      ASSERT_EQ(bc.Apply(p), a.Apply(p)) << "line " << v.line << " x=" << x << "\n  A "
                                         << v.arg1 << "\n  B " << v.arg2 << "\n  C " << c;
    }
  }
}

}  // namespace
}  // namespace warpcheck::sim::layout
