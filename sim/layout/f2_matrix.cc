#include "sim/layout/f2_matrix.h"

#include <utility>

#include "sim/base/check.h"

namespace warpcheck::sim::layout::f2 {

int ReduceToRref(Matrix& rows, int num_cols) {
  WARPCHECK_CHECK(num_cols >= 0 && num_cols <= 64) << "num_cols = " << num_cols;
  const int num_rows = static_cast<int>(rows.size());
  int rank = 0;
  for (int col = 0; col < num_cols && rank < num_rows; ++col) {
    const uint64_t bit = uint64_t{1} << col;
    int pivot_row = -1;
    for (int r = rank; r < num_rows; ++r) {
      if (rows[r] & bit) {
        pivot_row = r;
        break;
      }
    }
    if (pivot_row < 0) continue;
    std::swap(rows[rank], rows[pivot_row]);
    const uint64_t pivot = rows[rank];
    for (int r = 0; r < num_rows; ++r) {
      if (r != rank && (rows[r] & bit)) rows[r] ^= pivot;
    }
    ++rank;
  }
  return rank;
}

int Rank(Matrix rows, int num_cols) { return ReduceToRref(rows, num_cols); }

uint64_t PivotColumns(Matrix rows, int num_cols) {
  const int rank = ReduceToRref(rows, num_cols);
  uint64_t mask = 0;
  for (int r = 0; r < rank; ++r) {
    mask |= rows[r] & (~rows[r] + 1);  // lowest set bit
  }
  return mask;
}

}  // namespace warpcheck::sim::layout::f2
