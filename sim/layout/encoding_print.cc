// PrintEncoding: Triton 3.6's canonical text for every layout attribute, nested
// attributes printed inline. Key order, separators and the rules for omitting defaults
// follow the `print` methods of Triton's TritonGPU attributes (Dialect.cpp):
//
//   #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
//                 order = [1, 0]}>                      CGALayout last, only if non-empty
//   #ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA[, CGALayout], instrShape}>
//   #ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[, CGALayout]
//                  [, tilesPerWarp if not all 1][, elementBitWidth if != 32]}>
//   #ttg.amd_wmma<{version, isTranspose, warpsPerCTA[, CGALayout]
//                  [, tilesPerWarp if not all 1][, instrShape if != [16, 16, 16]]}>
//   #ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, fp4Padded =
//   true]
//                      [, CGALayout | , rank if != 2 and no CGALayout]}>
//   #ttg.padded_shared<[I:+P, ...] {order = [...], shape = [...]}>   identity component
//   #ttg.padded_shared<[I:+P, ...] {offset = [...], block = [...]}>  anything else
//   #ttg.shared_linear<{offset = [...][, block = [...] if non-empty]}, alignment = A>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/layout/encoding.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {

std::string Array(const std::vector<int32_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

std::string Bases(const std::vector<std::vector<int32_t>>& bases) {
  std::vector<std::string> parts;
  parts.reserve(bases.size());
  for (const auto& b : bases) parts.push_back(Array(b));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// ", CGALayout = [[...]]" when there is at least one block basis.
std::string MaybeCga(const CgaBases& cga) {
  if (cga.empty()) return "";
  return absl::StrCat(", CGALayout = ", Bases(cga));
}

// "register = [...], lane = [...]" for every in-dim, in the layout's order; in-dims
// without bases are skipped when `skip_empty`.
std::string LayoutBases(const LinearLayout& l, bool skip_empty) {
  std::vector<std::string> parts;
  for (const auto& [name, bases] : l.bases()) {
    if (skip_empty && bases.empty()) continue;
    parts.push_back(absl::StrCat(name, " = ", Bases(bases)));
  }
  return absl::StrJoin(parts, ", ");
}

const std::vector<LinearLayout::Basis>* FindBases(const LinearLayout& l,
                                                  const char* dim) {
  for (const auto& [name, bases] : l.bases()) {
    if (name == dim) return &bases;
  }
  return nullptr;
}

// The {order, shape} short form of a padded_shared linear component, if it has one:
// no block bases, and the offset bases are identityStandardND(offset, shape, order)
// where order lists dims by first appearance among the offset bases, then the rest
// from rank-1 down to 0 (Triton's PaddedSharedEncodingAttr::getOrder).
bool ShortPaddedForm(const LinearLayout& l, std::vector<int32_t>* order,
                     std::vector<int32_t>* shape) {
  const auto* offset = FindBases(l, "offset");
  const auto* block = FindBases(l, "block");
  if (offset == nullptr || (block != nullptr && !block->empty())) return false;
  const int rank = l.num_out_dims();
  shape->clear();
  for (const auto& [name, size] : l.out_dims()) shape->push_back(size);
  order->clear();
  std::vector<bool> seen(rank, false);
  for (const auto& b : *offset) {
    for (int d = 0; d < rank && d < static_cast<int>(b.size()); ++d) {
      if (b[d] != 0) {
        if (!seen[d]) order->push_back(d);
        seen[d] = true;
        break;
      }
    }
  }
  for (int d = rank - 1; d >= 0; --d) {
    if (!seen[d]) order->push_back(d);
  }
  std::vector<std::vector<int32_t>> identity;
  for (int32_t d : *order) {
    for (int32_t x = 1; x < (*shape)[d]; x *= 2) {
      std::vector<int32_t> basis(rank, 0);
      basis[d] = x;
      identity.push_back(std::move(basis));
    }
  }
  return identity == *offset;
}

struct Printer {
  std::string operator()(const BlockedEncoding& b) const {
    return absl::StrCat("#ttg.blocked<{sizePerThread = ", Array(b.size_per_thread),
                        ", threadsPerWarp = ", Array(b.threads_per_warp),
                        ", warpsPerCTA = ", Array(b.warps_per_cta),
                        ", order = ", Array(b.order), MaybeCga(b.cga), "}>");
  }
  std::string operator()(const SliceEncoding& s) const {
    return absl::StrCat("#ttg.slice<{dim = ", s.dim,
                        ", parent = ", s.parent ? PrintEncoding(*s.parent) : "<null>",
                        "}>");
  }
  std::string operator()(const LinearEncoding& l) const {
    return absl::StrCat("#ttg.linear<{", LayoutBases(l.layout, /*skip_empty=*/false),
                        "}>");
  }
  std::string operator()(const NvidiaMmaEncoding& m) const {
    return absl::StrCat("#ttg.nvidia_mma<{versionMajor = ", m.version_major,
                        ", versionMinor = ", m.version_minor,
                        ", warpsPerCTA = ", Array(m.warps_per_cta), MaybeCga(m.cga),
                        ", instrShape = ", Array(m.instr_shape), "}>");
  }
  std::string operator()(const DotOperandEncoding& d) const {
    std::string out =
        absl::StrCat("#ttg.dot_op<{opIdx = ", d.op_idx,
                     ", parent = ", d.parent ? PrintEncoding(*d.parent) : "<null>");
    if (d.k_width != 0) absl::StrAppend(&out, ", kWidth = ", d.k_width);
    return absl::StrCat(out, "}>");
  }
  std::string operator()(const AmdMfmaEncoding& m) const {
    std::string out =
        absl::StrCat("#ttg.amd_mfma<{version = ", m.version,
                     ", warpsPerCTA = ", Array(m.warps_per_cta),
                     ", instrShape = ", Array(m.instr_shape),
                     ", isTransposed = ", Bool(m.is_transposed), MaybeCga(m.cga));
    bool unit_tiles = true;
    for (int32_t t : m.tiles_per_warp) unit_tiles = unit_tiles && t == 1;
    if (!unit_tiles) absl::StrAppend(&out, ", tilesPerWarp = ", Array(m.tiles_per_warp));
    if (m.element_bit_width != 32) {
      absl::StrAppend(&out, ", elementBitWidth = ", m.element_bit_width);
    }
    return absl::StrCat(out, "}>");
  }
  std::string operator()(const AmdWmmaEncoding& w) const {
    std::string out = absl::StrCat(
        "#ttg.amd_wmma<{version = ", w.version, ", isTranspose = ", Bool(w.is_transpose),
        ", warpsPerCTA = ", Array(w.warps_per_cta), MaybeCga(w.cga));
    bool unit_tiles = true;
    for (int32_t t : w.tiles_per_warp) unit_tiles = unit_tiles && t == 1;
    if (!unit_tiles) absl::StrAppend(&out, ", tilesPerWarp = ", Array(w.tiles_per_warp));
    if (w.instr_shape != std::vector<int32_t>{16, 16, 16}) {
      absl::StrAppend(&out, ", instrShape = ", Array(w.instr_shape));
    }
    return absl::StrCat(out, "}>");
  }
  std::string operator()(const SwizzledSharedEncoding& s) const {
    return absl::StrCat(
        s.amd_rotating ? "#ttg.amd_rotating_shared" : "#ttg.swizzled_shared",
        "<{vec = ", s.vec, ", perPhase = ", s.per_phase, ", maxPhase = ", s.max_phase,
        ", order = ", Array(s.order), MaybeCga(s.cga), "}>");
  }
  std::string operator()(const NvmmaSharedEncoding& n) const {
    std::string out =
        absl::StrCat("#ttg.nvmma_shared<{swizzlingByteWidth = ", n.swizzling_byte_width,
                     ", transposed = ", Bool(n.transposed),
                     ", elementBitWidth = ", n.element_bit_width);
    if (n.fp4_padded) absl::StrAppend(&out, ", fp4Padded = true");
    if (n.cga.empty()) {
      if (n.rank != 2) absl::StrAppend(&out, ", rank = ", n.rank);
    } else {
      absl::StrAppend(&out, MaybeCga(n.cga));
    }
    return absl::StrCat(out, "}>");
  }
  std::string operator()(const PaddedSharedEncoding& p) const {
    std::vector<std::string> pairs;
    for (const auto& [interval, padding] : p.interval_padding) {
      pairs.push_back(absl::StrCat(interval, ":+", padding));
    }
    std::string out =
        absl::StrCat("#ttg.padded_shared<[", absl::StrJoin(pairs, ", "), "] {");
    std::vector<int32_t> order, shape;
    if (ShortPaddedForm(p.linear, &order, &shape)) {
      absl::StrAppend(&out, "order = ", Array(order), ", shape = ", Array(shape));
    } else {
      absl::StrAppend(&out, LayoutBases(p.linear, /*skip_empty=*/false));
    }
    return absl::StrCat(out, "}>");
  }
  std::string operator()(const SharedLinearEncoding& s) const {
    // Triton drops the block bases only when there are none.
    std::string bases;
    for (const auto& [name, b] : s.layout.bases()) {
      if (name == "block" && b.empty()) continue;
      absl::StrAppend(&bases, bases.empty() ? "" : ", ", name, " = ", Bases(b));
    }
    return absl::StrCat("#ttg.shared_linear<{", bases, "}, alignment = ", s.alignment,
                        ">");
  }
};

}  // namespace

std::string PrintEncoding(const Encoding& encoding) {
  return std::visit(Printer{}, encoding.kind);
}

}  // namespace warpcheck::sim::layout
