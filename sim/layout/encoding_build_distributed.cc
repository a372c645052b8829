// Builders of the distributed encodings: blocked, slice, linear, nvidia_mma, dot_op,
// amd_mfma, amd_wmma (where they are stricter than Triton: encoding_parse_internal.h).
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

absl::StatusOr<EncodingPtr> BuildBlocked(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys(
      {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CGALayout"}));
  RETURN_IF_ERROR(f.Require({"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"},
                            "Triton 3.6 needs sizePerThread, threadsPerWarp, warpsPerCTA "
                            "and order, all of the same rank"));
  BlockedEncoding b;
  ASSIGN_OR_RETURN(b.size_per_thread,
                   f.IntArray(f.Find("sizePerThread")->value, "sizePerThread"));
  ASSIGN_OR_RETURN(b.threads_per_warp,
                   f.IntArray(f.Find("threadsPerWarp")->value, "threadsPerWarp"));
  ASSIGN_OR_RETURN(b.warps_per_cta,
                   f.IntArray(f.Find("warpsPerCTA")->value, "warpsPerCTA"));
  ASSIGN_OR_RETURN(b.order, f.IntArray(f.Find("order")->value, "order"));
  const size_t rank = b.size_per_thread.size();
  RETURN_IF_ERROR(
      f.Rank("threadsPerWarp", b.threads_per_warp.size(), rank, "sizePerThread"));
  RETURN_IF_ERROR(f.Rank("warpsPerCTA", b.warps_per_cta.size(), rank, "sizePerThread"));
  RETURN_IF_ERROR(f.Rank("order", b.order.size(), rank, "sizePerThread"));
  RETURN_IF_ERROR(
      f.PowerOfTwoArray(f.Find("sizePerThread")->value, "sizePerThread").status());
  RETURN_IF_ERROR(
      f.PowerOfTwoArray(f.Find("threadsPerWarp")->value, "threadsPerWarp").status());
  RETURN_IF_ERROR(
      f.PowerOfTwoArray(f.Find("warpsPerCTA")->value, "warpsPerCTA").status());
  RETURN_IF_ERROR(f.Permutation(f.Find("order")->value, "order", b.order));
  ASSIGN_OR_RETURN(b.cga, f.Cga(static_cast<int>(rank)));
  return MakeEncoding(std::move(b), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildSlice(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"dim", "parent"}));
  RETURN_IF_ERROR(f.Require({"dim", "parent"}, ""));
  SliceEncoding s;
  const Value& dim = f.Find("dim")->value;
  const Value& parent = f.Find("parent")->value;
  ASSIGN_OR_RETURN(s.dim, f.Int(dim, "dim"));
  ASSIGN_OR_RETURN(s.parent, f.Attribute(parent, "parent"));
  if (s.parent->IsShared()) {
    return f.Error(
        parent.offset, "parent",
        absl::StrCat(KindName(*s.parent),
                     " is a shared-memory layout, but the parent of a slice must be "
                     "a distributed layout"));
  }
  const int parent_rank = s.parent->Rank();
  if (parent_rank < 2) {
    return f.Error(parent.offset, "parent",
                   absl::StrCat("has rank ", parent_rank,
                                ", but a slice needs a parent of rank >= 2"));
  }
  if (s.dim >= parent_rank) {
    return f.Error(dim.offset, "dim",
                   absl::StrCat(s.dim, " is out of range: the parent has rank ",
                                parent_rank, ", so dim must be < ", parent_rank));
  }
  return MakeEncoding(std::move(s), f.PositionMap());
}

// Requires every basis to move at most one dim (one non-zero entry).
absl::StatusOr<EncodingPtr> BuildLinear(Fields& f) {
  static constexpr absl::string_view kDims[] = {"register", "lane", "warp", "block"};
  RETURN_IF_ERROR(f.CheckKeys({"register", "lane", "warp", "block"}));
  RETURN_IF_ERROR(
      f.Require({"register", "lane", "warp", "block"},
                "a #ttg.linear lists the bases of all four in-dims register, lane, "
                "warp and block, even when empty (block = [])"));
  int rank = -1;
  std::string rank_origin;
  LinearLayout::BasesT bases;
  std::vector<std::vector<int32_t>> all;
  for (absl::string_view d : kDims) {
    const Value& v = f.Find(d)->value;
    ASSIGN_OR_RETURN(auto b, f.Bases(v, d, &rank, &rank_origin));
    RETURN_IF_ERROR(CheckOneDimPerBasis(f, v, d, b,
                                        "each basis of a #ttg.linear may move at "
                                        "most one dim"));
    all.insert(all.end(), b.begin(), b.end());
    bases.emplace_back(std::string(d), std::move(b));
  }
  if (rank <= 0) {
    return f.AttrError(
        "every basis list is empty, so the rank is unknown (Triton: Empty Layout not "
        "supported)");
  }
  std::vector<int32_t> sizes = InferOutSizes(all, rank);
  if (F2Rank(all, sizes) != TotalLog2(sizes)) {
    return f.AttrError(absl::StrCat(
        "not surjective: with the inferred out sizes ", FormatArray(sizes),
        " some tensor coordinates are reached by no (register, lane, warp, block); a "
        "#ttg.linear must be surjective"));
  }
  std::vector<std::string> names;
  for (int i = 0; i < rank; ++i) names.push_back(absl::StrCat("dim", i));
  auto layout = LinearLayout::Create(std::move(bases), names);
  if (!layout.ok()) return f.AttrError(layout.status().message());
  return MakeEncoding(LinearEncoding{*std::move(layout)}, f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildNvidiaMma(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys(
      {"versionMajor", "versionMinor", "warpsPerCTA", "CGALayout", "instrShape"}));
  RETURN_IF_ERROR(f.Require({"versionMajor", "warpsPerCTA", "instrShape"}, ""));
  NvidiaMmaEncoding m;
  const Value& major = f.Find("versionMajor")->value;
  ASSIGN_OR_RETURN(m.version_major, f.Int(major, "versionMajor"));
  if (const Entry* minor = f.Find("versionMinor")) {
    ASSIGN_OR_RETURN(m.version_minor, f.Int(minor->value, "versionMinor"));
  }
  const Value& warps = f.Find("warpsPerCTA")->value;
  const Value& instr = f.Find("instrShape")->value;
  ASSIGN_OR_RETURN(m.warps_per_cta, f.PowerOfTwoArray(warps, "warpsPerCTA"));
  ASSIGN_OR_RETURN(m.instr_shape, f.IntArray(instr, "instrShape"));
  if (m.version_major != 2 && m.version_major != 3) {
    return f.Error(major.offset, "versionMajor",
                   absl::StrCat(m.version_major,
                                " is not supported: Triton 3.6 lays out only 2 (Ampere "
                                "mma.sync) and 3 (Hopper wgmma)"));
  }
  const size_t rank = m.warps_per_cta.size();
  const size_t instr_key = f.Find("instrShape")->key_offset;
  if (m.version_major == 2) {
    if (rank != 2 && rank != 3) {
      return f.Error(
          f.Find("warpsPerCTA")->key_offset, "warpsPerCTA",
          absl::StrCat("has ", rank, " entries; an mma v2 layout has rank 2 or 3"));
    }
    const std::vector<int32_t> want =
        rank == 2 ? std::vector<int32_t>{16, 8} : std::vector<int32_t>{1, 16, 8};
    if (m.instr_shape != want) {
      return f.Error(
          instr_key, "instrShape",
          absl::StrCat(FormatArray(m.instr_shape), " is not valid for versionMajor = 2",
                       " with rank ", rank, ": mma.sync tiles are ", FormatArray(want)));
    }
  } else {
    // Rank 3 (a batch dim first) parses, as in Triton 3.6: it is usable as the parent of
    // a dot operand (and a slice of one), not as an accumulator (encoding_to_linear.cc).
    if (rank != 2 && rank != 3) {
      return f.Error(
          f.Find("warpsPerCTA")->key_offset, "warpsPerCTA",
          absl::StrCat("has ", rank, " entries; a Hopper (v3) mma layout has rank 2 or 3"));
    }
    const auto& s = m.instr_shape;
    const bool ok = s.size() == 3 && s[0] == 16 && s[1] >= 8 && s[1] <= 256 &&
                    base::IsPowerOf2(s[1]) && (s[2] == 8 || s[2] == 16 || s[2] == 32);
    if (!ok) {
      return f.Error(
          instr_key, "instrShape",
          absl::StrCat(FormatArray(s),
                       " is not a valid wgmma shape for versionMajor = 3: expected "
                       "[16, N, K] with N a power of two in 8..256 and K in {8, 16, "
                       "32}"));
    }
  }
  ASSIGN_OR_RETURN(m.cga, f.Cga(static_cast<int>(rank)));
  return MakeEncoding(std::move(m), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildDotOperand(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"opIdx", "parent", "kWidth"}));
  RETURN_IF_ERROR(f.Require({"opIdx", "parent"}, ""));
  DotOperandEncoding d;
  const Value& op_idx = f.Find("opIdx")->value;
  const Value& parent = f.Find("parent")->value;
  // #ttg.dot_op uses MLIR's struct syntax, whose integers take no type suffix.
  for (const char* key : {"opIdx", "kWidth"}) {
    const Entry* e = f.Find(key);
    if (e != nullptr && e->value.kind == Value::Kind::kInteger &&
        e->value.type_offset != 0) {
      return f.Error(
          e->value.type_offset, key,
          "a type suffix is not accepted here: #ttg.dot_op reads a plain integer "
          "(write opIdx = 0, not opIdx = 0 : i32)");
    }
  }
  ASSIGN_OR_RETURN(d.op_idx, f.Int(op_idx, "opIdx"));
  ASSIGN_OR_RETURN(d.parent, f.Attribute(parent, "parent"));
  const Entry* k_width = f.Find("kWidth");
  if (k_width != nullptr) {
    ASSIGN_OR_RETURN(d.k_width, f.Int(k_width->value, "kWidth"));
  }
  if (d.op_idx != 0 && d.op_idx != 1) {
    return f.Error(
        op_idx.offset, "opIdx",
        absl::StrCat(d.op_idx, " is out of range: 0 is operand A, 1 is operand B"));
  }
  const size_t k_offset = k_width ? k_width->value.offset : f.attr_offset();
  auto k_error = [&](absl::string_view what) {
    return k_width ? f.Error(k_offset, "kWidth", what)
                   : f.AttrError(absl::StrCat("kWidth: ", what));
  };
  const Encoding& p = *d.parent;
  if (const auto* mma = std::get_if<NvidiaMmaEncoding>(&p.kind)) {
    if (d.k_width == 0) {
      return k_error(
          "missing: kWidth is mandatory when the parent is an Ampere or Hopper "
          "#ttg.nvidia_mma");
    }
    if (d.op_idx != 0 && mma->version_major == 3) {
      return f.Error(
          op_idx.offset, "opIdx",
          "must be 0 for a Hopper (versionMajor = 3) parent: wgmma reads operand B "
          "from shared memory");
    }
  } else if (std::holds_alternative<AmdMfmaEncoding>(p.kind)) {
    if (d.k_width == 0) {
      return k_error("missing: kWidth is mandatory when the parent is #ttg.amd_mfma");
    }
  } else if (const auto* wmma = std::get_if<AmdWmmaEncoding>(&p.kind)) {
    if (wmma->version == 1 && d.k_width != 8 && d.k_width != 16) {
      return k_error(
          absl::StrCat(d.k_width, " is not valid: WMMA v1 needs kWidth 8 or 16"));
    }
    if (wmma->version == 2 && d.k_width != 4 && d.k_width != 8 && d.k_width != 16) {
      return k_error(
          absl::StrCat(d.k_width, " is not valid: WMMA v2 needs kWidth 4, 8 or 16"));
    }
    if (wmma->version == 3 && d.k_width == 0) {
      return k_error("missing: kWidth is mandatory when the parent is WMMA v3");
    }
  } else if (std::holds_alternative<BlockedEncoding>(p.kind)) {
    if (d.k_width != 0) {
      return f.Error(
          k_offset, "kWidth",
          "is not supported when the parent is #ttg.blocked (FMA dot operands hold "
          "all of K)");
    }
  } else {
    return f.Error(parent.offset, "parent",
                   absl::StrCat(KindName(p),
                                " cannot be the parent of a dot operand; expected "
                                "#ttg.nvidia_mma, #ttg.amd_mfma, #ttg.amd_wmma or "
                                "#ttg.blocked"));
  }
  if (d.k_width != 0 && !base::IsPowerOf2(d.k_width)) {
    return f.Error(
        k_offset, "kWidth",
        absl::StrCat(d.k_width, " is not a power of two (a linear layout needs one)"));
  }
  if (p.Rank() < 2) {
    return f.Error(parent.offset, "parent",
                   absl::StrCat("has rank ", p.Rank(),
                                ", but a dot operand needs rank >= 2 "
                                "(M/N and K)"));
  }
  return MakeEncoding(std::move(d), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildAmdMfma(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"version", "warpsPerCTA", "instrShape", "isTransposed",
                               "CGALayout", "tilesPerWarp", "elementBitWidth"}));
  RETURN_IF_ERROR(f.Require({"version", "warpsPerCTA", "instrShape"}, ""));
  AmdMfmaEncoding m;
  const Value& version = f.Find("version")->value;
  ASSIGN_OR_RETURN(m.version, f.Int(version, "version"));
  const Entry* warps = f.Find("warpsPerCTA");
  ASSIGN_OR_RETURN(m.warps_per_cta, f.PowerOfTwoArray(warps->value, "warpsPerCTA"));
  const Entry* instr = f.Find("instrShape");
  ASSIGN_OR_RETURN(m.instr_shape, f.IntArray(instr->value, "instrShape"));
  if (const Entry* t = f.Find("isTransposed")) {
    ASSIGN_OR_RETURN(m.is_transposed, f.Bool(t->value, "isTransposed"));
  }
  const Entry* tiles = f.Find("tilesPerWarp");
  if (tiles != nullptr) {
    ASSIGN_OR_RETURN(m.tiles_per_warp, f.PowerOfTwoArray(tiles->value, "tilesPerWarp"));
  }
  const Entry* width = f.Find("elementBitWidth");
  if (width != nullptr) {
    ASSIGN_OR_RETURN(m.element_bit_width, f.Int(width->value, "elementBitWidth"));
  }
  if (m.version > 4) {
    return f.Error(version.offset, "version",
                   absl::StrCat(m.version, " is out of range: MFMA versions are 0..4"));
  }
  const size_t rank = m.warps_per_cta.size();
  if (rank != 2 && rank != 3) {
    return f.Error(
        warps->key_offset, "warpsPerCTA",
        absl::StrCat("has ", rank, " entries; an MFMA layout has rank 2 or 3"));
  }
  if (m.instr_shape.size() != 3) {
    return f.Error(instr->key_offset, "instrShape",
                   absl::StrCat(FormatArray(m.instr_shape), " has ", m.instr_shape.size(),
                                " entries; expected [M, N, K]"));
  }
  const std::pair<int32_t, int32_t> mn{m.instr_shape[0], m.instr_shape[1]};
  if (mn != std::pair<int32_t, int32_t>{32, 32} &&
      mn != std::pair<int32_t, int32_t>{16, 16} &&
      mn != std::pair<int32_t, int32_t>{64, 4} &&
      mn != std::pair<int32_t, int32_t>{4, 64}) {
    return f.Error(
        instr->key_offset, "instrShape",
        absl::StrCat("(M, N) = (", mn.first, ", ", mn.second,
                     ") is not an MFMA shape; expected (32, 32), (16, 16), (64, 4) "
                     "or (4, 64)"));
  }
  if (tiles != nullptr) {
    RETURN_IF_ERROR(f.Rank("tilesPerWarp", m.tiles_per_warp.size(), rank, "warpsPerCTA"));
    if (std::all_of(m.tiles_per_warp.begin(), m.tiles_per_warp.end(),
                    [](int32_t t) { return t == 1; })) {
      m.tiles_per_warp.clear();  // all ones = the default
    }
  }
  if (m.element_bit_width != 32 && m.element_bit_width != 64) {
    return f.Error(
        width->value.offset, "elementBitWidth",
        absl::StrCat(m.element_bit_width, " is not supported: must be 32 or 64"));
  }
  ASSIGN_OR_RETURN(m.cga, f.Cga(static_cast<int>(rank)));
  return MakeEncoding(std::move(m), f.PositionMap());
}

absl::StatusOr<EncodingPtr> BuildAmdWmma(Fields& f) {
  RETURN_IF_ERROR(f.CheckKeys({"version", "isTranspose", "warpsPerCTA", "CGALayout",
                               "tilesPerWarp", "instrShape"}));
  RETURN_IF_ERROR(f.Require({"version", "warpsPerCTA"}, ""));
  AmdWmmaEncoding w;
  const Value& version = f.Find("version")->value;
  ASSIGN_OR_RETURN(w.version, f.Int(version, "version"));
  if (const Entry* t = f.Find("isTranspose")) {
    ASSIGN_OR_RETURN(w.is_transpose, f.Bool(t->value, "isTranspose"));
  }
  const Entry* warps = f.Find("warpsPerCTA");
  ASSIGN_OR_RETURN(w.warps_per_cta, f.PowerOfTwoArray(warps->value, "warpsPerCTA"));
  const Entry* tiles = f.Find("tilesPerWarp");
  if (tiles != nullptr) {
    ASSIGN_OR_RETURN(w.tiles_per_warp, f.PowerOfTwoArray(tiles->value, "tilesPerWarp"));
  }
  const Entry* instr = f.Find("instrShape");
  if (instr != nullptr) {
    ASSIGN_OR_RETURN(w.instr_shape, f.IntArray(instr->value, "instrShape"));
  }
  if (w.version < 1 || w.version > 3) {
    return f.Error(version.offset, "version",
                   absl::StrCat(w.version, " is out of range: WMMA versions are 1..3"));
  }
  const size_t rank = w.warps_per_cta.size();
  if (rank != 2 && rank != 3) {
    return f.Error(warps->key_offset, "warpsPerCTA",
                   absl::StrCat("has ", rank, " entries; a WMMA layout has rank 2 or 3"));
  }
  if (tiles != nullptr) {
    RETURN_IF_ERROR(f.Rank("tilesPerWarp", w.tiles_per_warp.size(), rank, "warpsPerCTA"));
    if (std::all_of(w.tiles_per_warp.begin(), w.tiles_per_warp.end(),
                    [](int32_t t) { return t == 1; })) {
      w.tiles_per_warp.clear();  // all ones = the default
    }
  }
  using Shape = std::vector<int32_t>;
  std::vector<Shape> valid;
  if (w.version == 1) valid = {{16, 16, 16}};
  if (w.version == 2) valid = {{16, 16, 16}, {16, 16, 32}};
  if (w.version == 3) valid = {{16, 16, 4}, {16, 16, 32}, {16, 16, 64}, {16, 16, 128}};
  if (std::find(valid.begin(), valid.end(), w.instr_shape) == valid.end()) {
    std::vector<std::string> names;
    for (const Shape& s : valid) names.push_back(FormatArray(s));
    return f.Error(instr ? instr->key_offset : f.attr_offset(), "instrShape",
                   absl::StrCat(FormatArray(w.instr_shape), " is not valid for WMMA v",
                                w.version, "; expected ", absl::StrJoin(names, " or ")));
  }
  ASSIGN_OR_RETURN(w.cga, f.Cga(static_cast<int>(rank)));
  return MakeEncoding(std::move(w), f.PositionMap());
}

}  // namespace warpcheck::sim::layout::encoding_parse
