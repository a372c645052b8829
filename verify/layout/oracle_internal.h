// Internal to verify/layout: the concrete map and access geometry the oracle and the
// encodings share, so both read the access definition (README.md) from one place.
#ifndef WARPCHECK_VERIFY_LAYOUT_ORACLE_INTERNAL_H_
#define WARPCHECK_VERIFY_LAYOUT_ORACLE_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "verify/layout/layout_prove.h"

namespace warpcheck::verify::layout {

// One instance's map as XOR tables: offset -> element, element <-> row-major key,
// offset -> byte address (padding included).
class ConcreteMap {
 public:
  explicit ConcreteMap(const Instance& in);
  int64_t offsets() const { return offsets_; }
  int64_t elements() const { return elements_; }
  std::vector<int64_t> Element(int64_t offset) const;
  int64_t Key(const std::vector<int64_t>& element) const;  // row-major, last dim fastest
  std::vector<int64_t> Unkey(int64_t key) const;
  int64_t Address(int64_t offset) const;  // bytes

 private:
  std::vector<int64_t> shape_, strides_;
  std::vector<std::vector<int32_t>> bits_;
  std::vector<std::pair<int64_t, int64_t>> padding_;
  int64_t elements_ = 1, offsets_ = 1;
  int bytes_ = 2;
};

// Which elements an access reads (README.md, "Access patterns"): rows along the slow
// dim, columns along the fast dim, `vec` elements = 16 bytes per lane.
//   v4:       request q, lane l reads vector n = 32q + l in row-major vector order:
//             row n / (cols/vec), columns (n % (cols/vec)) * vec + [0, vec).
//   ldmatrix, stmatrix: matrix q (row-major over the (rows/8) x (cols/vec) grid), row
//             r in 0..7 (supplied by lane 8i + r of an x4 request) reads row
//             8 (q / (cols/vec)) + r, columns (q % (cols/vec)) * vec + [0, vec).
struct AccessGeometry {
  AccessGeometry(const Instance& in, Access access);
  std::vector<int64_t> Element(int64_t row, int64_t col) const;
  // Ensures: the active lanes' (row, first column) of request q; returns their number.
  int Lanes(int64_t request, std::vector<int64_t>* row, std::vector<int64_t>* col) const;

  Access access;
  int fast = 1, slow = 0;
  int64_t rows = 0, cols = 0, vec = 8, bytes = 2, requests = 0;
};

}  // namespace warpcheck::verify::layout

#endif  // WARPCHECK_VERIFY_LAYOUT_ORACLE_INTERNAL_H_
