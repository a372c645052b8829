// Builders of the shared-memory encodings: swizzled_shared, amd_rotating_shared,
// nvmma_shared, padded_shared, shared_linear (where they are stricter than Triton:
// encoding_parse_internal.h).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "sim/base/bits.h"
#include "sim/base/status_macros.h"
#include "sim/layout/encoding.h"
#include "sim/layout/encoding_parse_internal.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout::encoding_parse {

absl::StatusOr<EncodingPtr> BuildSwizzledShared(Fields& f, bool amd_rotating) {
  RETURN_IF_ERROR(f.CheckKeys({"vec", "perPhase", "maxPhase", "order", "CGALayout"}));
  RETURN_IF_ERROR(f.Require({"vec", "perPhase", "maxPhase", "order"}, ""));
  SwizzledSharedEncoding s;
  s.amd_rotating = amd_rotating;
  ASSIGN_OR_RETURN(s.vec, f.PowerOfTwo(f.Find("vec")->value, "vec"));
  ASSIGN_OR_RETURN(s.per_phase, f.PowerOfTwo(f.Find("perPhase")->value, "perPhase"));
  ASSIGN_OR_RETURN(s.max_phase, f.PowerOfTwo(f.Find("maxPhase")->value, "maxPhase"));
  const Value& order = f.Find("order")->value;
  ASSIGN_OR_RETURN(s.order, f.IntArray(order, "order"));
  if (s.order.empty()) {
    return f.Error(order.offset, "order", "is empty; a shared layout has rank >= 1");
  }
  RETURN_IF_ERROR(f.Permutation(order, "order", s.order));
  ASSIGN_OR_RETURN(s.cga, f.Cga(static_cast<int>(s.order.size())));
  return MakeEncoding(std::move(s), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildNvmmaShared(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"swizzlingByteWidth", "transposed", "elementBitWidth",
                               "fp4Padded", "CGALayout", "rank"}));
  RETURN_IF_ERROR(f.Require({"swizzlingByteWidth", "elementBitWidth"}, ""));
  NvmmaSharedEncoding n;
  const Value& swizzle = f.Find("swizzlingByteWidth")->value;
  ASSIGN_OR_RETURN(n.swizzling_byte_width, f.Int(swizzle, "swizzlingByteWidth"));
  if (const Entry* t = f.Find("transposed")) {
    ASSIGN_OR_RETURN(n.transposed, f.Bool(t->value, "transposed"));
  }
  const Value& width = f.Find("elementBitWidth")->value;
  ASSIGN_OR_RETURN(n.element_bit_width, f.Int(width, "elementBitWidth"));
  if (const Entry* p = f.Find("fp4Padded")) {
    ASSIGN_OR_RETURN(n.fp4_padded, f.Bool(p->value, "fp4Padded"));
  }
  const int32_t sw = n.swizzling_byte_width;
  if (sw != 0 && sw != 32 && sw != 64 && sw != 128) {
    return f.Error(swizzle.offset, "swizzlingByteWidth",
                   absl::StrCat(sw, " is not supported: must be 0, 32, 64 or 128"));
  }
  if (!base::IsPowerOf2(n.element_bit_width)) {
    return f.Error(
        width.offset, "elementBitWidth",
        absl::StrCat(n.element_bit_width,
                     " is not a power of two (element sizes are 8, 16, 32 or 64 "
                     "bits)"));
  }
  const Entry* rank = f.Find("rank");
  const Entry* cga = f.Find("CGALayout");
  if (rank != nullptr) {
    ASSIGN_OR_RETURN(n.rank, f.Int(rank->value, "rank"));
    if (n.rank < 1) {
      return f.Error(rank->value.offset, "rank", "must be >= 1");
    }
  } else if (cga != nullptr && cga->value.kind == Value::Kind::kArray &&
             !cga->value.elements.empty() &&
             cga->value.elements[0].kind == Value::Kind::kArray) {
    // As Triton: without `rank`, a non-empty CGALayout gives the rank.
    n.rank = static_cast<int32_t>(cga->value.elements[0].elements.size());
    if (n.rank < 1) {
      return f.Error(cga->value.elements[0].offset, "CGALayout",
                     "entry [] is empty; each entry needs one integer per dim");
    }
  }
  ASSIGN_OR_RETURN(n.cga, f.Cga(n.rank));
  return MakeEncoding(std::move(n), f.PositionMap());
}

namespace {

// Linear component of #ttg.padded_shared / layout of #ttg.shared_linear: in-dims
// offset, block (block optional when `block_optional`).
struct SharedBases {
  std::vector<std::vector<int32_t>> offset;
  std::vector<std::vector<int32_t>> block;
  int rank = -1;
};

absl::StatusOr<SharedBases> ParseSharedBases(Fields& f, bool block_optional) {
  RETURN_IF_ERROR(f.CheckKeys({"offset", "block"}));
  if (block_optional) {
    RETURN_IF_ERROR(f.Require({"offset"}, ""));
  } else {
    RETURN_IF_ERROR(f.Require({"offset", "block"},
                              "the long form lists both offset and block bases"));
  }
  SharedBases s;
  std::string rank_origin;
  ASSIGN_OR_RETURN(s.offset,
                   f.Bases(f.Find("offset")->value, "offset", &s.rank, &rank_origin));
  if (const Entry* b = f.Find("block")) {
    ASSIGN_OR_RETURN(s.block, f.Bases(b->value, "block", &s.rank, &rank_origin));
  }
  if (s.rank <= 0) {
    return f.AttrError(
        "every basis list is empty, so the rank is unknown (Triton: Empty Layout not "
        "supported)");
  }
  return s;
}

absl::StatusOr<LinearLayout> MakeSharedLayout(const Fields& f, SharedBases s) {
  std::vector<std::string> names;
  for (int i = 0; i < s.rank; ++i) names.push_back(absl::StrCat("dim", i));
  LinearLayout::BasesT bases;
  bases.emplace_back("offset", std::move(s.offset));
  bases.emplace_back("block", std::move(s.block));
  auto layout = LinearLayout::Create(std::move(bases), names);
  if (!layout.ok()) return f.AttrError(layout.status().message());
  return *std::move(layout);
}

// The interval:+padding pairs: powers of two, intervals distinct.
absl::StatusOr<std::vector<std::pair<int32_t, int32_t>>> PaddingIntervals(
    const Fields& f, const std::vector<PaddingPair>& pairs) {
  std::vector<std::pair<int32_t, int32_t>> out;
  std::set<int32_t> intervals;
  for (const PaddingPair& pair : pairs) {
    ASSIGN_OR_RETURN(int32_t interval, f.Int(pair.interval, "interval"));
    ASSIGN_OR_RETURN(int32_t padding, f.Int(pair.padding, "padding"));
    if (!base::IsPowerOf2(interval)) {
      return f.Error(pair.interval.offset, "interval",
                     absl::StrCat(interval, " is not a power of two"));
    }
    if (!base::IsPowerOf2(padding)) {
      return f.Error(pair.padding.offset, "padding",
                     absl::StrCat(padding, " is not a power of two"));
    }
    if (!intervals.insert(interval).second) {
      return f.Error(
          pair.interval.offset, "interval",
          absl::StrCat(interval, " appears twice; intervals must be distinct"));
    }
    out.emplace_back(interval, padding);
  }

  return out;
}

// The long form's linear component, {offset = [...], block = [...]}: bases that each
// move at most one dim by a power of two, independent offsets, surjective.
absl::StatusOr<LinearLayout> PaddedLongForm(Fields& f) {
  ASSIGN_OR_RETURN(SharedBases s, ParseSharedBases(f, /*block_optional=*/false));
  // Each basis: at most one non-zero entry, a power of two (no swizzling).
  for (absl::string_view d : {"offset", "block"}) {
    const Value& v = f.Find(d)->value;
    const auto& bases = d == "offset" ? s.offset : s.block;
    RETURN_IF_ERROR(CheckOneDimPerBasis(
        f, v, d, bases, "each basis of a #ttg.padded_shared may move at most one dim"));
    for (size_t i = 0; i < bases.size(); ++i) {
      for (int32_t x : bases[i]) {
        if (x != 0 && !base::IsPowerOf2(x)) {
          return f.Error(v.elements[i].offset, d,
                         absl::StrCat("basis ", FormatArray(bases[i]),
                                      " is not 0 or a power of two in its dim (padding "
                                      "rearranges whole rows, it does not swizzle)"));
        }
      }
    }
  }
  std::vector<std::vector<int32_t>> all = s.offset;
  all.insert(all.end(), s.block.begin(), s.block.end());
  std::vector<int32_t> sizes = InferOutSizes(all, s.rank);
  std::vector<int32_t> offset_sizes = InferOutSizes(s.offset, s.rank);
  if (F2Rank(s.offset, offset_sizes) != static_cast<int>(s.offset.size())) {
    return f.Error(
        f.Find("offset")->key_offset, "offset",
        "bases repeat or are zero: broadcasting in the offset dim is not supported");
  }
  if (F2Rank(all, sizes) != TotalLog2(sizes)) {
    return f.AttrError(absl::StrCat("the linear component is not surjective onto ",
                                    FormatArray(sizes)));
  }
  return MakeSharedLayout(f, std::move(s));
}

// The short form's linear component, {order = [...], shape = [...]}: the identity over
// `shape` in `order` (Triton's identityStandardND).
absl::StatusOr<LinearLayout> PaddedShortForm(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"order", "shape"}));
  RETURN_IF_ERROR(f.Require({"order", "shape"},
                            "the short form is {order = [...], shape = [...]}"));
  const Value& order_v = f.Find("order")->value;
  const Value& shape_v = f.Find("shape")->value;
  ASSIGN_OR_RETURN(std::vector<int32_t> order, f.IntArray(order_v, "order"));
  ASSIGN_OR_RETURN(std::vector<int32_t> shape, f.PowerOfTwoArray(shape_v, "shape"));
  if (order.empty()) {
    return f.Error(order_v.offset, "order", "is empty; a shared layout has rank >= 1");
  }
  RETURN_IF_ERROR(f.Rank("shape", shape.size(), order.size(), "order"));
  RETURN_IF_ERROR(f.Permutation(order_v, "order", order));
  int total = 0;
  for (int32_t s : shape) total += base::Log2(s);
  if (total > kMaxBasesPerDim) {
    return f.Error(f.Find("shape")->key_offset, "shape",
                   absl::StrCat("has 2^", total, " elements; at most 2^",
                                kMaxBasesPerDim, " are supported"));
  }
  // identityStandardND(offset, shape, order), out-dims in standard order.
  SharedBases s;
  s.rank = static_cast<int>(order.size());
  for (int32_t d : order) {
    for (int32_t x = 1; x < shape[d]; x *= 2) {
      std::vector<int32_t> basis(s.rank, 0);
      basis[d] = x;
      s.offset.push_back(std::move(basis));
    }
  }
  std::vector<std::string> names;
  for (int i = 0; i < s.rank; ++i) names.push_back(absl::StrCat("dim", i));
  LinearLayout::OutDimsT out_dims;
  for (int i = 0; i < s.rank; ++i) out_dims.emplace_back(names[i], shape[i]);
  LinearLayout::BasesT bases;
  bases.emplace_back("offset", std::move(s.offset));
  bases.emplace_back("block", std::vector<LinearLayout::Basis>{});
  auto layout = LinearLayout::Create(std::move(bases), std::move(out_dims),
                                     /*require_surjective=*/true);
  if (!layout.ok()) return f.AttrError(layout.status().message());
  return *std::move(layout);
}

}  // namespace

absl::StatusOr<EncodingPtr> BuildPaddedShared(Fields& f,
                                              const std::vector<PaddingPair>& pairs) {
  PaddedSharedEncoding p;
  ASSIGN_OR_RETURN(p.interval_padding, PaddingIntervals(f, pairs));
  const bool long_form = f.Find("offset") != nullptr || f.Find("block") != nullptr;
  ASSIGN_OR_RETURN(p.linear, long_form ? PaddedLongForm(f) : PaddedShortForm(f));
  return MakeEncoding(std::move(p), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildSharedLinear(Fields& f, const Value& alignment,
                                              std::string alignment_position) {
  SharedLinearEncoding s;
  ASSIGN_OR_RETURN(SharedBases bases, ParseSharedBases(f, /*block_optional=*/true));
  ASSIGN_OR_RETURN(s.alignment, f.Int(alignment, "alignment"));
  if (!base::IsPowerOf2(s.alignment)) {
    return f.Error(alignment.offset, "alignment",
                   absl::StrCat(s.alignment, " is not a positive power of two"));
  }
  std::vector<std::vector<int32_t>> all = bases.offset;
  all.insert(all.end(), bases.block.begin(), bases.block.end());
  std::vector<int32_t> sizes = InferOutSizes(all, bases.rank);
  if (F2Rank(all, sizes) != TotalLog2(sizes)) {
    return f.AttrError(absl::StrCat("not surjective: with the inferred out sizes ",
                                    FormatArray(sizes),
                                    " some tensor coordinates have no offset; a "
                                    "#ttg.shared_linear must be surjective"));
  }
  std::vector<std::vector<int32_t>> non_zero;
  for (const auto& b : all) {
    if (std::any_of(b.begin(), b.end(), [](int32_t x) { return x != 0; }))
      non_zero.push_back(b);
  }
  if (static_cast<int>(non_zero.size()) != TotalLog2(sizes)) {
    return f.AttrError(absl::StrCat(
        "after removing zero bases the layout must be bijective, but ", non_zero.size(),
        " non-zero bases map onto ", TotalLog2(sizes), " bits of ", FormatArray(sizes),
        " (two offsets hold the same element)"));
  }
  ASSIGN_OR_RETURN(s.layout, MakeSharedLayout(f, std::move(bases)));
  std::map<std::string, std::string> positions = f.PositionMap();
  positions["alignment"] = std::move(alignment_position);
  return MakeEncoding(std::move(s), std::move(positions));
}


}  // namespace warpcheck::sim::layout::encoding_parse
