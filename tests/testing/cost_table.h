// The rows of corpus/plan/triton_costs.tsv (Triton 3.6's cost per round trip, one row per
// pair it compiles) as the planner tests read them: the row's numbers by column name and
// the pair's ConversionProblem. One reader for the tests that compare against the table
// (triton_floor_test, triton_smem_test).
#ifndef WARPCHECK_TESTS_TESTING_COST_TABLE_H_
#define WARPCHECK_TESTS_TESTING_COST_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/plan/problem.h"

namespace warpcheck::testing {

struct CostTableRow {
  int line = 0;
  std::string category;  // Triton's mechanism: registers, shuffle, smem, ldst_matrix
  absl::flat_hash_map<std::string, int64_t> num;  // every numeric column but line
  absl::StatusOr<sim::plan::ConversionProblem> problem;

  // Ensures: the column's value (a test failure when the table lacks it).
  int64_t operator[](const std::string& column) const {
    auto it = num.find(column);
    EXPECT_TRUE(it != num.end()) << column;
    return it == num.end() ? 0 : it->second;
  }
};

// The table's rows with status ok, their problems made with `planner_scope` (MakeProblem).
inline std::vector<CostTableRow> ReadCostTable(bool planner_scope) {
  auto t = sim::base::ReadTsvFile(
      absl::StrCat(WARPCHECK_SOURCE_DIR, "/corpus/plan/triton_costs.tsv"));
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<CostTableRow> out;
  if (!t.ok()) return out;
  for (const auto& c : t->rows) {
    if (t->Cell(c, "status") != "ok") continue;
    CostTableRow r;
    r.category = std::string(t->Cell(c, "category"));
    for (const char* col : {"line", "num_warps", "smem_bytes", "warp_instructions",
                            "smem_requests_store", "smem_requests_load", "smem_wavefronts_store",
                            "smem_wavefronts_load", "barriers"}) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(t->Cell(c, col), &v)) << col;
      r.num[col] = v;
    }
    r.line = static_cast<int>(r.num["line"]);
    std::vector<int64_t> shape;
    for (absl::string_view s : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(s, &v));
      shape.push_back(v);
    }
    auto dtype = sim::plan::ParseDType(t->Cell(c, "dtype"));
    EXPECT_TRUE(dtype.ok());
    r.problem = sim::plan::MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), shape, *dtype,
                                       static_cast<int>(r.num["num_warps"]), planner_scope);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace warpcheck::testing

#endif  // WARPCHECK_TESTS_TESTING_COST_TABLE_H_
