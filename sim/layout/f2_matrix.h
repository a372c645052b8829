// Gaussian elimination over F2 on small bit matrices (private to sim/layout).
//
// A matrix is a vector of rows; each row is one uint64_t whose bit c is the entry in
// column c, so a matrix has at most 64 columns. LinearLayout's matrix view (§1.3 of
// shared/spec/linear-layouts.md) has one row per output bit and one column per input
// bit; layouts have far fewer than 64 input bits, so one word per row suffices.
//
// The reduced row-echelon form (RREF) over a field is unique, so the result does not
// depend on how it is computed; "pivot" below always means the lowest set bit of a
// row, which is what Triton's f2reduce produces:
//
//     before            after ReduceToRref (columns printed low bit first)
//     row0: 1 1 0 1     row0: 1 0 0 1   pivot column 0
//     row1: 0 1 0 0     row1: 0 1 0 0   pivot column 1
//     row2: 1 0 0 1     row2: 0 0 0 0
#ifndef WARPCHECK_SIM_LAYOUT_F2_MATRIX_H_
#define WARPCHECK_SIM_LAYOUT_F2_MATRIX_H_

#include <cstdint>
#include <vector>

namespace warpcheck::sim::layout::f2 {

using Matrix = std::vector<uint64_t>;

// Brings `rows` into reduced row-echelon form in place: every non-zero row has a pivot
// (its lowest set bit), pivots increase from row to row, each pivot column is zero in
// every other row, and zero rows come last.
// Requires: num_cols <= 64 and no row has a bit at or above num_cols.
// Ensures: returns the rank (the number of non-zero rows).
int ReduceToRref(Matrix& rows, int num_cols);

// Ensures: the rank of `rows` (rows are taken by value and reduced).
int Rank(Matrix rows, int num_cols);

// Ensures: a mask with bit c set iff column c is a pivot column of the RREF, i.e. iff
//          column c is not a linear combination of columns 0..c-1.
uint64_t PivotColumns(Matrix rows, int num_cols);

}  // namespace warpcheck::sim::layout::f2

#endif  // WARPCHECK_SIM_LAYOUT_F2_MATRIX_H_
