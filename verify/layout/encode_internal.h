// Internal to verify/layout: a layout map as bit-vector terms (layout_prove.h says how
// each encoding is encoded), and the queries built on it.
#ifndef WARPCHECK_VERIFY_LAYOUT_ENCODE_INTERNAL_H_
#define WARPCHECK_VERIFY_LAYOUT_ENCODE_INTERNAL_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verify/layout/layout_prove.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::layout {

inline constexpr int kWidth = 32;  // every term: offsets, coordinates, byte addresses

// A map (one point, or a box of points with symbolic log2 parameters) as terms.
struct MapTerms {
  std::vector<smt::Term> dim_log;  // log2 of each dim's extent
  smt::Term in_log;                // log2 of the number of offsets (x blocks)
  smt::Term bytes_log;             // log2 of the element size in bytes
  int fast = 1;                    // the fast dim (rank 2)
  // offset -> element (one term per dim).
  std::function<std::vector<smt::Term>(smt::Term)> forward;
  // element -> offset: a candidate right inverse (empty: none; see layout_prove.h).
  std::function<smt::Term(const std::vector<smt::Term>&)> inverse;
  // offset -> byte address (padding included).
  std::function<smt::Term(smt::Term)> address;
  std::vector<smt::Term> box;  // constraints on the symbolic parameters (empty: a point)
  // Symbolic parameters: family param index -> its log2 variable.
  std::vector<std::pair<size_t, smt::Term>> symbols;
};

// One point's LinearLayout (sim/layout), basis by basis.
MapTerms EncodeInstance(smt::Context& ctx, const Instance& in);

// Ensures: whether the swizzled closed form covers the whole family (swizzled or
//          rotating, rank 2, one CTA, every parameter a power of two).
bool SwizzledClosedFormApplies(const Family& family);
// Requires: SwizzledClosedFormApplies(family).
MapTerms EncodeSwizzledFamily(smt::Context& ctx, const Family& family);

// One named query: its assertions are satisfiable iff the property fails somewhere.
struct Query {
  std::string name;
  std::vector<smt::Term> assertions;
};

// Ensures: the queries deciding `property` (bank: injective, surjective, vector,
//          conflict) over the map's points; for a bank property the box also requires
//          the access to apply. Empty `inverse`: no surjective query (the caller
//          decides surjectivity by enumeration).
std::vector<Query> BuildQueries(smt::Context& ctx, const MapTerms& map, Property property,
                                Access access);

}  // namespace warpcheck::verify::layout

#endif  // WARPCHECK_VERIFY_LAYOUT_ENCODE_INTERNAL_H_
