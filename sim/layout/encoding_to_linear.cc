// ToLinearLayout: TTGIR layout attributes -> LinearLayout, as Triton 3.6.0 computes them.
//
// Each encoding is converted in Triton's two steps (shared/spec/linear-layouts.md §2):
// build the CTA tile from the attribute's parameters, then fit it to the tensor shape
// with CombineCtaCgaWithShape (repeat through new register/offset bases where the
// tensor is larger, broadcast by zeroing the largest bases where it is smaller, put the
// CGA block bases on top). The functions below follow Triton's
// LinearLayoutConversions.cpp function by function, including the order in which
// factors are multiplied, because that order decides which basis gets which index.
//
// Where Triton would assert or call report_fatal_error on a bad (encoding, shape) pair,
// we return InvalidArgument "<encoding>: <what>, <why>" instead. Where the 3.6 release
// differs from the spec text, the behaviour of the 3.6.0 wheel wins; those places are
// marked "Triton 3.6:" below.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/base/bits.h"
#include "sim/base/status_macros.h"
#include "sim/layout/encoding.h"
#include "sim/layout/layout_utils.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {

constexpr absl::string_view kRegister = "register";
constexpr absl::string_view kLane = "lane";
constexpr absl::string_view kWarp = "warp";
constexpr absl::string_view kBlock = "block";
constexpr absl::string_view kOffset = "offset";

constexpr absl::string_view kBlockedName = "#ttg.blocked";
constexpr absl::string_view kSliceName = "#ttg.slice";
constexpr absl::string_view kLinearName = "#ttg.linear";
constexpr absl::string_view kNvidiaMmaName = "#ttg.nvidia_mma";
constexpr absl::string_view kDotName = "#ttg.dot_op";
constexpr absl::string_view kMfmaName = "#ttg.amd_mfma";
constexpr absl::string_view kWmmaName = "#ttg.amd_wmma";
constexpr absl::string_view kSwizzledName = "#ttg.swizzled_shared";
constexpr absl::string_view kRotatingName = "#ttg.amd_rotating_shared";
constexpr absl::string_view kNvmmaName = "#ttg.nvmma_shared";
constexpr absl::string_view kPaddedName = "#ttg.padded_shared";
constexpr absl::string_view kSharedLinearName = "#ttg.shared_linear";

// Largest extent we accept along one dim: out-dim sizes are int32_t.
constexpr int64_t kMaxExtent = int64_t{1} << 30;
// AMD CDNA wavefronts have 64 lanes, RDNA (WMMA) wavefronts 32.
constexpr int32_t kMfmaWarpSize = 64;
constexpr int32_t kWmmaWarpSize = 32;

using Shape = absl::Span<const int64_t>;


template <typename T>
std::string FormatList(absl::Span<const T> v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}
std::string FormatList(const std::vector<int32_t>& v) {
  return FormatList(absl::Span<const int32_t>(v));
}

absl::Status Invalid(absl::string_view encoding, absl::string_view what,
                     absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(encoding, ": ", what, ", ", why));
}

std::vector<int64_t> ToI64(absl::Span<const int32_t> v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

std::vector<std::string> PermuteNames(const std::vector<std::string>& names,
                                      absl::Span<const int32_t> order) {
  std::vector<std::string> out;
  out.reserve(order.size());
  for (int32_t i : order) out.push_back(names[i]);
  return out;
}

LinearLayout Id(int64_t size, absl::string_view in, absl::string_view out) {
  return LinearLayout::Identity1D(static_cast<int32_t>(size), in, out);
}
LinearLayout Zeros(int64_t size, absl::string_view in, absl::string_view out) {
  return LinearLayout::Zeros1D(static_cast<int32_t>(size), in, out);
}

// ---- Validation of untrusted encoding fields and shapes -------------------------------

absl::Status CheckShape(absl::string_view enc, Shape shape, int rank) {
  if (static_cast<int>(shape.size()) != rank) {
    return Invalid(enc,
                   absl::StrCat("shape ", FormatList(shape), " has rank ", shape.size(),
                                " but the encoding has rank ", rank),
                   "and a layout maps onto tensors of exactly its own rank");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      return Invalid(enc,
                     absl::StrCat("extent ", shape[i], " of dim ", i, " in shape ",
                                  FormatList(shape), " is not positive"),
                     "and every tensor dim holds at least one element");
    }
    if (!base::IsPowerOf2(shape[i])) {
      return Invalid(enc,
                     absl::StrCat("extent ", shape[i], " of dim ", i, " in shape ",
                                  FormatList(shape), " is not a power of two"),
                     "and linear layouts over F2 only describe power-of-two extents");
    }
    if (shape[i] > kMaxExtent) {
      return Invalid(enc,
                     absl::StrCat("extent ", shape[i], " of dim ", i, " in shape ",
                                  FormatList(shape), " exceeds 2^30"),
                     "and layout dim sizes are 32-bit");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPow2List(absl::string_view enc, absl::string_view field,
                           absl::Span<const int32_t> v, size_t rank) {
  if (v.size() != rank) {
    return Invalid(enc,
                   absl::StrCat(field, " = ", FormatList(v), " has ", v.size(),
                                " entries but the encoding has rank ", rank),
                   "and every per-dim field needs one entry per tensor dim");
  }
  for (int32_t x : v) {
    if (!base::IsPowerOf2(x) || x > kMaxExtent) {
      return Invalid(enc, absl::StrCat(field, " = ", FormatList(v), " has entry ", x),
                     "but every entry must be a positive power of two");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOrder(absl::string_view enc, absl::string_view field,
                        absl::Span<const int32_t> order, size_t rank) {
  std::vector<bool> seen(rank, false);
  bool ok = order.size() == rank;
  for (int32_t d : order) {
    if (!ok || d < 0 || d >= static_cast<int32_t>(rank) || seen[d]) {
      ok = false;
      break;
    }
    seen[d] = true;
  }
  if (!ok) {
    return Invalid(enc,
                   absl::StrCat(field, " = ", FormatList(order),
                                " is not a permutation of [0, ", rank, ")"),
                   "and an order must list every dim exactly once, fastest first");
  }
  return absl::OkStatus();
}

// Every nonzero basis entry must be a power of two: the fitting helpers halve sizes one
// basis at a time (Triton asserts this in ensureLayoutNotLargerThan).
absl::Status CheckOneHotEntries(absl::string_view enc, absl::string_view what,
                                const LinearLayout& l) {
  for (const auto& [in_dim, bases] : l.bases()) {
    for (size_t i = 0; i < bases.size(); ++i) {
      for (int32_t v : bases[i]) {
        if (v != 0 && !base::IsPowerOf2(v)) {
          return Invalid(enc,
                         absl::StrCat(what, " basis ", in_dim, "[", i,
                                      "] = ", FormatList(bases[i]), " has entry ", v),
                         "but each basis entry must be 0 or a power of two");
        }
      }
    }
  }
  return absl::OkStatus();
}

// The CGA layout block -> dim0.. (bases in units of whole per-CTA tiles).
absl::StatusOr<LinearLayout> MakeCgaLayout(absl::string_view enc, const CgaBases& cga,
                                           int rank) {
  for (size_t i = 0; i < cga.size(); ++i) {
    if (static_cast<int>(cga[i].size()) != rank) {
      return Invalid(
          enc,
          absl::StrCat("CGALayout basis ", i, " = ", FormatList(cga[i]), " has ",
                       cga[i].size(), " entries but the encoding has rank ", rank),
          "and every block basis needs one entry per tensor dim");
    }
    for (int32_t v : cga[i]) {
      if (v != 0 && (!base::IsPowerOf2(v) || v > kMaxExtent)) {
        return Invalid(enc,
                       absl::StrCat("CGALayout basis ", i, " = ", FormatList(cga[i]),
                                    " has entry ", v),
                       "but each CTA-id bit selects one power-of-two tile offset or 0");
      }
    }
  }
  for (size_t i = 0; i < cga.size(); ++i) {
    const int nonzero =
        std::count_if(cga[i].begin(), cga[i].end(), [](int32_t v) { return v; });
    const bool repeated =
        nonzero > 0 && std::find(cga.begin(), cga.begin() + i, cga[i]) != cga.begin() + i;
    if (nonzero > 1 || repeated) {
      return Invalid(enc,
                     absl::StrCat("CGALayout basis ", i, " = ", FormatList(cga[i]),
                                  nonzero > 1 ? " moves more than one dim"
                                              : " repeats an earlier basis"),
                     "but each CTA-id bit must select its own tile along one dim (or 0 "
                     "to broadcast)");
    }
  }
  LinearLayout::BasesT bases;
  bases.emplace_back(std::string(kBlock),
                     std::vector<LinearLayout::Basis>(cga.begin(), cga.end()));
  absl::StatusOr<LinearLayout> l =
      LinearLayout::Create(std::move(bases), StandardOutDimNames(rank));
  if (!l.ok()) {
    return Invalid(enc,
                   absl::StrCat("CGALayout is not a valid block layout (",
                                l.status().message(), ")"),
                   "and the CTA tiles must cover the cluster's tensor without gaps");
  }
  return l;
}

// Number of CTA tiles along each dim (getShapePerCTA's split count, clipped to shape).
std::vector<int64_t> ShapePerCta(const LinearLayout& cga, Shape shape) {
  std::vector<int64_t> out(shape.begin(), shape.end());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t split = cga.OutDimSize(StandardOutDimName(static_cast<int>(d)));
    out[d] = shape[d] / std::min<int64_t>(shape[d], split);
  }
  return out;
}

// Zeroing the largest bases (ensureLayoutNotLargerThan) is only well defined when every
// entry of a dim that must shrink is a power of two, and every basis whose entry is cut
// away moves that dim alone; otherwise Triton asserts (or leaves a non-surjective
// layout). Only amd_rotating_shared with a CGA that splits a swizzled dim gets here.
absl::Status CheckShrinkable(absl::string_view enc, const LinearLayout& cta,
                             absl::Span<const int64_t> cta_shape) {
  for (int o = 0; o < cta.num_out_dims(); ++o) {
    const auto& [name, size] = cta.out_dims()[o];
    int64_t target = 0;
    for (int i = 0; i < static_cast<int>(cta_shape.size()); ++i) {
      if (StandardOutDimName(i) == name) target = cta_shape[i];
    }
    if (size <= target) continue;
    for (const auto& [in_dim, bases] : cta.bases()) {
      for (const LinearLayout::Basis& b : bases) {
        const int32_t v = b[o];
        const int nonzero =
            std::count_if(b.begin(), b.end(), [](int32_t x) { return x; });
        if ((v != 0 && !base::IsPowerOf2(v)) || (v >= target && nonzero > 1)) {
          return Invalid(enc,
                         absl::StrCat("the per-CTA extent ", target, " of ", name,
                                      " cuts through the swizzled basis ", in_dim, " ",
                                      FormatList(b)),
                         "and Triton 3.6 cannot broadcast such a tile (it asserts)");
        }
      }
    }
  }
  return absl::OkStatus();
}

// ---- Encoding kinds -------------------------------------------------------------------

bool IsSharedKind(const Encoding& e) {
  return std::holds_alternative<SwizzledSharedEncoding>(e.kind) ||
         std::holds_alternative<NvmmaSharedEncoding>(e.kind) ||
         std::holds_alternative<PaddedSharedEncoding>(e.kind) ||
         std::holds_alternative<SharedLinearEncoding>(e.kind);
}

absl::StatusOr<int> RankOf(const Encoding& e) {
  if (const auto* b = std::get_if<BlockedEncoding>(&e.kind)) return b->order.size();
  if (const auto* s = std::get_if<SliceEncoding>(&e.kind)) {
    if (!s->parent) return Invalid(kSliceName, "has no parent", "and slice needs one");
    ASSIGN_OR_RETURN(int r, RankOf(*s->parent));
    return r - 1;
  }
  if (const auto* l = std::get_if<LinearEncoding>(&e.kind))
    return l->layout.num_out_dims();
  if (const auto* m = std::get_if<NvidiaMmaEncoding>(&e.kind))
    return m->warps_per_cta.size();
  if (const auto* d = std::get_if<DotOperandEncoding>(&e.kind)) {
    if (!d->parent) return Invalid(kDotName, "has no parent", "and dot_op needs one");
    return RankOf(*d->parent);
  }
  if (const auto* m = std::get_if<AmdMfmaEncoding>(&e.kind))
    return m->warps_per_cta.size();
  if (const auto* w = std::get_if<AmdWmmaEncoding>(&e.kind))
    return w->warps_per_cta.size();
  if (const auto* s = std::get_if<SwizzledSharedEncoding>(&e.kind))
    return s->order.size();
  if (const auto* n = std::get_if<NvmmaSharedEncoding>(&e.kind)) return n->rank;
  if (const auto* p = std::get_if<PaddedSharedEncoding>(&e.kind)) {
    return p->linear.num_out_dims();
  }
  return std::get<SharedLinearEncoding>(e.kind).layout.num_out_dims();
}

absl::StatusOr<LinearLayout> Convert(const Encoding& encoding, Shape shape);

// ---- #ttg.blocked (§2.1) --------------------------------------------------------------

absl::Status CheckBlocked(const BlockedEncoding& e) {
  const size_t rank = e.order.size();
  RETURN_IF_ERROR(CheckOrder(kBlockedName, "order", e.order, rank));
  RETURN_IF_ERROR(CheckPow2List(kBlockedName, "sizePerThread", e.size_per_thread, rank));
  RETURN_IF_ERROR(
      CheckPow2List(kBlockedName, "threadsPerWarp", e.threads_per_warp, rank));
  RETURN_IF_ERROR(CheckPow2List(kBlockedName, "warpsPerCTA", e.warps_per_cta, rank));
  return absl::OkStatus();
}

absl::StatusOr<LinearLayout> BlockedToLinear(const BlockedEncoding& e, Shape shape) {
  RETURN_IF_ERROR(CheckBlocked(e));
  const int rank = e.order.size();
  RETURN_IF_ERROR(CheckShape(kBlockedName, shape, rank));
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kBlockedName, e.cga, rank));
  LinearLayout cta = IdentityStandardND(kRegister, ToI64(e.size_per_thread), e.order) *
                     IdentityStandardND(kLane, ToI64(e.threads_per_warp), e.order) *
                     IdentityStandardND(kWarp, ToI64(e.warps_per_cta), e.order);
  return CombineCtaCgaWithShape(cta, cga, shape);
}

// ---- #ttg.nvidia_mma (§2.4) -----------------------------------------------------------

// Triton's nvidiaMmaTile: kWidth registers and 4 lanes along the inner dim, 8 lanes along
// the outer dim, then register repetitions (outer first). The out-dims are pre-seeded
// in repOrder so later fitting repeats dims in that order.
LinearLayout NvidiaMmaTile(absl::Span<const int64_t> tile_shape, int32_t k_width,
                           absl::Span<const int32_t> order,
                           absl::Span<const int32_t> rep_order) {
  const int rank = rep_order.size();
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  LinearLayout cta =
      IdentityStandardND(kRegister, std::vector<int64_t>(rank, 1), rep_order);
  const int32_t inner = order[0];
  const int32_t outer = order[1];
  const int64_t m = tile_shape[outer];
  const int64_t n = tile_shape[inner];
  return cta * Id(k_width, kRegister, dims[inner]) * Id(4, kLane, dims[inner]) *
         Id(8, kLane, dims[outer]) * Id(m / 8, kRegister, dims[outer]) *
         Id(n / (k_width * 4), kRegister, dims[inner]);
}

absl::Status CheckMmaTile(absl::string_view enc, absl::Span<const int64_t> tile_shape,
                          int32_t k_width, absl::Span<const int32_t> order) {
  const int64_t m = tile_shape[order[1]];
  const int64_t n = tile_shape[order[0]];
  if (!base::IsPowerOf2(m) || m % 8 != 0 || !base::IsPowerOf2(n) || n % (4 * k_width) != 0) {
    return Invalid(enc,
                   absl::StrCat("MMA tile ", FormatList(tile_shape), " with kWidth ",
                                k_width, " is not a multiple of 8 x ", 4 * k_width),
                   "and one mma.sync tile spans 8 rows of lanes by 4 lanes of kWidth "
                   "registers");
  }
  return absl::OkStatus();
}

// broadcastedDotOperandLayout: warps (or lanes) along `order`, zero along the K dim.
LinearLayout BroadcastedDotOperandLayout(absl::Span<const int64_t> shape,
                                         absl::Span<const int32_t> order, int k_dim,
                                         absl::string_view in_dim) {
  const std::vector<std::string> dims = StandardOutDimNames(shape.size());
  LinearLayout layout;
  for (int32_t d : order) {
    layout *=
        d == k_dim ? Zeros(shape[d], in_dim, dims[d]) : Id(shape[d], in_dim, dims[d]);
  }
  return layout;
}

absl::Status CheckNvidiaMma(const NvidiaMmaEncoding& e) {
  const size_t rank = e.warps_per_cta.size();
  RETURN_IF_ERROR(CheckPow2List(kNvidiaMmaName, "warpsPerCTA", e.warps_per_cta, rank));
  if (e.version_major == 2) {
    if (rank != 2 && rank != 3) {
      return Invalid(kNvidiaMmaName, absl::StrCat("versionMajor = 2 with rank ", rank),
                     "but Ampere mma layouts are 2-D or batched 3-D");
    }
    if (e.instr_shape.size() != rank) {
      return Invalid(
          kNvidiaMmaName,
          absl::StrCat("instrShape = ", FormatList(e.instr_shape), " has ",
                       e.instr_shape.size(), " entries but warpsPerCTA has ", rank),
          "and Ampere's instrShape is the [batch,] M, N tile shape");
    }
  } else if (e.version_major == 3) {
    if (rank != 2 && rank != 3) {
      return Invalid(kNvidiaMmaName, absl::StrCat("versionMajor = 3 with rank ", rank),
                     "but Hopper wgmma layouts are 2-D (or 3-D as a dot operand's parent)");
    }
    if (e.instr_shape.size() != 3) {
      return Invalid(kNvidiaMmaName,
                     absl::StrCat("instrShape = ", FormatList(e.instr_shape),
                                  " does not have 3 entries"),
                     "and Hopper's instrShape is [M, N, K]");
    }
  } else {
    return Invalid(kNvidiaMmaName,
                   absl::StrCat("versionMajor = ", e.version_major, " is not supported"),
                   "and Triton 3.6 converts only Ampere (2) and Hopper (3) mma layouts");
  }
  return absl::OkStatus();
}

std::vector<int64_t> NvidiaMmaTileShape(const NvidiaMmaEncoding& e) {
  if (e.version_major == 2) return ToI64(e.instr_shape);
  return {e.instr_shape[0], e.instr_shape[1]};
}

absl::StatusOr<LinearLayout> NvidiaMmaToLinear(const NvidiaMmaEncoding& e, Shape shape) {
  RETURN_IF_ERROR(CheckNvidiaMma(e));
  const int rank = e.warps_per_cta.size();
  if (e.version_major == 3 && rank != 2) {
    // Triton 3.6's nvidiaMmaTile asserts `tileShape.size() == rank` here: the v3 tile is
    // instrShape[0:2] whatever the rank, so a batched Hopper accumulator aborts the
    // compiler. Only its dot operands (NvidiaDotToLinear) have a layout.
    return Invalid(kNvidiaMmaName, absl::StrCat("versionMajor = 3 with rank ", rank),
                   "as an accumulator: Triton 3.6 aborts on it (nvidiaMmaTile: tileShape."
                   "size() == rank); a rank-3 Hopper mma is only a dot operand's parent");
  }
  RETURN_IF_ERROR(CheckShape(kNvidiaMmaName, shape, rank));
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kNvidiaMmaName, e.cga, rank));
  constexpr int32_t kAccKWidth = 2;  // the accumulator always holds pairs along N
  const std::vector<int64_t> tile_shape = NvidiaMmaTileShape(e);
  const std::vector<int32_t> order = GetMatrixOrder(rank, /*row_major=*/true);
  RETURN_IF_ERROR(CheckMmaTile(kNvidiaMmaName, tile_shape, kAccKWidth, order));
  LinearLayout cta = NvidiaMmaTile(tile_shape, kAccKWidth, order, order);
  // Ampere numbers warps row-major (dim1 fastest), Hopper column-major.
  const std::vector<int32_t> warp_order =
      GetMatrixOrder(rank, /*row_major=*/e.version_major != 3);
  cta *= IdentityStandardND(kWarp, ToI64(e.warps_per_cta), warp_order)
             .TransposeOuts(cta.OutDimNames());
  return CombineCtaCgaWithShape(cta, cga, shape);
}

// ---- #ttg.amd_mfma (§2.6) -------------------------------------------------------------

std::vector<int32_t> TilesPerWarp(const std::vector<int32_t>& tiles, size_t rank) {
  return tiles.empty() ? std::vector<int32_t>(rank, 1) : tiles;
}

absl::Status CheckMfma(const AmdMfmaEncoding& e) {
  const size_t rank = e.warps_per_cta.size();
  if (rank != 2 && rank != 3) {
    return Invalid(kMfmaName, absl::StrCat("warpsPerCTA has rank ", rank),
                   "but MFMA layouts are 2-D or batched 3-D");
  }
  RETURN_IF_ERROR(CheckPow2List(kMfmaName, "warpsPerCTA", e.warps_per_cta, rank));
  RETURN_IF_ERROR(CheckPow2List(kMfmaName, "tilesPerWarp",
                                TilesPerWarp(e.tiles_per_warp, rank), rank));
  if (e.instr_shape.size() < 2) {
    return Invalid(kMfmaName,
                   absl::StrCat("instrShape = ", FormatList(e.instr_shape),
                                " has fewer than 2 entries"),
                   "and the MFMA instruction shape is [M, N, K]");
  }
  const int32_t m = e.instr_shape[0];
  const int32_t n = e.instr_shape[1];
  const bool supported = (m == 32 && n == 32) || (m == 16 && n == 16) ||
                         (m == 64 && n == 4) || (m == 4 && n == 64);
  if (!supported) {
    return Invalid(kMfmaName,
                   absl::StrCat("instrShape M x N = ", m, " x ", n, " is not supported"),
                   "and MFMA output tiles are 32x32, 16x16, 64x4 or 4x64");
  }
  if (e.element_bit_width != 32 && e.element_bit_width != 64) {
    return Invalid(kMfmaName, absl::StrCat("elementBitWidth = ", e.element_bit_width),
                   "but MFMA accumulators are 32- or 64-bit");
  }
  return absl::OkStatus();
}

// Shared by amd_mfma and (Triton 3.6) amd_wmma: the C layout is defined globally along
// N (tiles, warps, then N repetitions) before any M repetition, because the AMD dot
// lowering assumes N-contiguous tiles across the whole tensor.
LinearLayout ExtendAmdTile(LinearLayout tile, int64_t n_dim_size,
                           absl::Span<const int32_t> warps,
                           absl::Span<const int32_t> tiles, Shape shape) {
  const int rank = shape.size();
  const bool batch = rank == 3;
  const int m_index = batch ? 1 : 0;
  const int n_index = batch ? 2 : 1;
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  const std::string& dim_m = dims[m_index];
  const std::string& dim_n = dims[n_index];
  tile *= Id(tiles[n_index], kRegister, dim_n);
  tile *= Id(warps[n_index], kWarp, dim_n);
  // Zero when N is smaller than one CTA tile: identity1D(0) is the empty layout.
  tile *= Id(shape[n_index] / (n_dim_size * warps[n_index] * tiles[n_index]), kRegister,
             dim_n);
  tile *= Id(tiles[m_index], kRegister, dim_m);
  tile *= Id(warps[m_index], kWarp, dim_m);
  if (batch) {
    tile *= Id(1, kRegister, dims[0]);
    tile *= Id(1, kLane, dims[0]);
    tile *= Id(warps[0], kWarp, dims[0]);
  }
  return tile;
}

absl::StatusOr<LinearLayout> MfmaToLinear(const AmdMfmaEncoding& e, Shape shape) {
  RETURN_IF_ERROR(CheckMfma(e));
  // Only the accumulator layout requires this; dot operands of a non-transposed 64x4
  // parent convert fine in Triton 3.6.
  if (e.instr_shape[0] == 64 && e.instr_shape[1] == 4 && !e.is_transposed) {
    return Invalid(kMfmaName, "a 64x4 MFMA accumulator layout is not transposed",
                   "and Triton 3.6 only converts 64x4 MFMA output as the transposed "
                   "4x64 one (it asserts)");
  }
  const int rank = e.warps_per_cta.size();
  RETURN_IF_ERROR(CheckShape(kMfmaName, shape, rank));
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kMfmaName, e.cga, rank));
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  const std::vector<int32_t> order = GetMatrixOrder(rank, /*row_major=*/true);
  const std::string& dim_m = dims[order[1]];
  const std::string& dim_n = dims[order[0]];
  const int32_t m_size = e.instr_shape[0];
  const int32_t n_size = e.instr_shape[1];
  const int32_t height = e.element_bit_width == 64 ? 1 : 4;
  const int32_t tiles = (m_size * n_size) / (kMfmaWarpSize * height);
  // Each lane holds `height` consecutive elements along M (N when transposed); lanes
  // cover N first, then M; `tiles` register repetitions complete the instruction tile.
  const std::string& reg_dim = e.is_transposed ? dim_n : dim_m;
  const std::string& lane_fast = e.is_transposed ? dim_m : dim_n;
  const int32_t lane_fast_size = e.is_transposed ? m_size : n_size;
  LinearLayout tile = Id(height, kRegister, reg_dim) *
                      (Id(lane_fast_size, kLane, lane_fast) *
                       Id(kMfmaWarpSize / lane_fast_size, kLane, reg_dim));
  if (tiles > 0) tile *= Id(tiles, kRegister, reg_dim);
  tile = tile.TransposeOuts({dim_n, dim_m});
  tile = ExtendAmdTile(std::move(tile), n_size, e.warps_per_cta,
                       TilesPerWarp(e.tiles_per_warp, rank), shape);
  return CombineCtaCgaWithShape(tile, cga, shape);
}

// ---- #ttg.amd_wmma (§2.7) -------------------------------------------------------------

absl::Status CheckWmma(const AmdWmmaEncoding& e) {
  const size_t rank = e.warps_per_cta.size();
  if (rank != 2 && rank != 3) {
    return Invalid(kWmmaName, absl::StrCat("warpsPerCTA has rank ", rank),
                   "but WMMA layouts are 2-D or batched 3-D");
  }
  RETURN_IF_ERROR(CheckPow2List(kWmmaName, "warpsPerCTA", e.warps_per_cta, rank));
  RETURN_IF_ERROR(CheckPow2List(kWmmaName, "tilesPerWarp",
                                TilesPerWarp(e.tiles_per_warp, rank), rank));
  if (e.version < 1 || e.version > 3) {
    return Invalid(kWmmaName, absl::StrCat("version = ", e.version),
                   "but Triton 3.6 knows WMMA versions 1 to 3");
  }
  if (e.instr_shape.size() != 3 || e.instr_shape[0] != 16 || e.instr_shape[1] != 16 ||
      !base::IsPowerOf2(e.instr_shape[2])) {
    return Invalid(kWmmaName,
                   absl::StrCat("instrShape = ", FormatList(e.instr_shape),
                                " is not [16, 16, K] with K a power of two"),
                   "and Triton 3.6's WMMA layouts describe 16x16 output tiles");
  }
  return absl::OkStatus();
}

absl::StatusOr<LinearLayout> WmmaToLinear(const AmdWmmaEncoding& e, Shape shape) {
  RETURN_IF_ERROR(CheckWmma(e));
  const int rank = e.warps_per_cta.size();
  RETURN_IF_ERROR(CheckShape(kWmmaName, shape, rank));
  const bool batch = rank == 3;
  const int m_index = batch ? 1 : 0;
  const int n_index = batch ? 2 : 1;
  for (int i : {m_index, n_index}) {
    if (shape[i] != 1 && shape[i] < e.instr_shape[i - m_index]) {
      return Invalid(kWmmaName,
                     absl::StrCat("shape ", FormatList(shape), " has extent ", shape[i],
                                  " along dim ", i),
                     "but Triton 3.6 requires each of M and N to be 1 or at least the "
                     "16-wide WMMA tile");
    }
  }
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kWmmaName, e.cga, rank));
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  const std::vector<int32_t> thread_order =
      GetMatrixOrder(rank, /*row_major=*/!e.is_transpose);
  // Bases are written as (thread_order[0], thread_order[1]) coordinates.
  LinearLayout::BasesT bases;
  if (e.version == 1) {
    bases = {{std::string(kRegister), {{0, 2}, {0, 4}, {0, 8}}},
             {std::string(kLane), {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 1}}}};
  } else {
    bases = {{std::string(kRegister), {{0, 1}, {0, 2}, {0, 4}}},
             {std::string(kLane), {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}}};
  }
  LinearLayout tile(std::move(bases), {dims[thread_order[0]], dims[thread_order[1]]});
  tile = tile.TransposeOuts({dims[n_index], dims[m_index]});
  // Triton 3.6: WMMA has tilesPerWarp and extends its tile exactly like MFMA (N tiles,
  // N warps, N repetitions, M tiles, M warps), not like the spec's §2.7 (warps
  // multiplied in rep order, all repetitions left to the fitting step).
  tile = ExtendAmdTile(std::move(tile), e.instr_shape[1], e.warps_per_cta,
                       TilesPerWarp(e.tiles_per_warp, rank), shape);
  return CombineCtaCgaWithShape(tile, cga, shape);
}

// ---- #ttg.dot_op (§2.5) ---------------------------------------------------------------

// DotOperandEncodingAttr::getCGALayout: the parent's CGA with every block basis's K entry
// zeroed, so CTAs that split K in the result hold copies of the operand. Triton 3.6 uses
// it for blocked and nvidia_mma parents; the AMD conversions use the parent's CGA as is.
CgaBases DotCga(const CgaBases& parent_cga, int rank, int op_idx) {
  CgaBases cga = parent_cga;
  const int k_dim = op_idx == 0 ? rank - 1 : rank - 2;
  for (auto& basis : cga) {
    if (k_dim >= 0 && k_dim < static_cast<int>(basis.size())) basis[k_dim] = 0;
  }
  return cga;
}

absl::StatusOr<LinearLayout> FmaDotToLinear(const DotOperandEncoding& dot,
                                            const BlockedEncoding& blocked, Shape shape) {
  RETURN_IF_ERROR(CheckBlocked(blocked));
  const int rank = blocked.order.size();
  RETURN_IF_ERROR(CheckShape(kDotName, shape, rank));
  if (rank < 2) {
    return Invalid(kDotName, absl::StrCat("the blocked parent has rank ", rank),
                   "but a dot operand is at least a 2-D matrix");
  }
  RETURN_IF_ERROR(MakeCgaLayout(kDotName, blocked.cga, rank).status());
  ASSIGN_OR_RETURN(LinearLayout cga,
                   MakeCgaLayout(kDotName, DotCga(blocked.cga, rank, dot.op_idx), rank));
  const int k_dim = dot.op_idx == 0 ? rank - 1 : rank - 2;
  std::vector<int64_t> thread_size = ToI64(blocked.size_per_thread);
  thread_size[k_dim] = shape[k_dim];  // each thread holds the whole K extent
  const std::vector<std::string> rep_dims =
      PermuteNames(StandardOutDimNames(rank), blocked.order);
  LinearLayout regs = IdentityStandardND(kRegister, thread_size, blocked.order);
  LinearLayout lanes = BroadcastedDotOperandLayout(ToI64(blocked.threads_per_warp),
                                                   blocked.order, k_dim, kLane);
  LinearLayout warps = BroadcastedDotOperandLayout(ToI64(blocked.warps_per_cta),
                                                   blocked.order, k_dim, kWarp);
  LinearLayout cta = regs.TransposeOuts(rep_dims) * lanes.TransposeOuts(rep_dims) *
                     warps.TransposeOuts(rep_dims);
  return CombineCtaCgaWithShape(cta, cga, shape);
}

absl::StatusOr<LinearLayout> NvidiaDotToLinear(const DotOperandEncoding& dot,
                                               const NvidiaMmaEncoding& mma,
                                               Shape shape) {
  RETURN_IF_ERROR(CheckNvidiaMma(mma));
  const int rank = mma.warps_per_cta.size();
  RETURN_IF_ERROR(CheckShape(kDotName, shape, rank));
  if (dot.k_width <= 0 || !base::IsPowerOf2(dot.k_width)) {
    return Invalid(kDotName,
                   absl::StrCat("kWidth = ", dot.k_width, " with an nvidia_mma parent"),
                   "but MMA operands need a power-of-two kWidth (the number of "
                   "consecutive K elements per register group)");
  }
  const bool is_a = dot.op_idx == 0;
  if (!is_a && mma.version_major == 3) {
    return Invalid(kDotName, "opIdx = 1 with a Hopper (versionMajor = 3) parent",
                   "but wgmma reads its B operand from shared memory, so it has no "
                   "register layout");
  }
  RETURN_IF_ERROR(MakeCgaLayout(kDotName, mma.cga, rank).status());
  ASSIGN_OR_RETURN(LinearLayout cga,
                   MakeCgaLayout(kDotName, DotCga(mma.cga, rank, dot.op_idx), rank));
  std::vector<int64_t> tile_shape(rank, 1);
  tile_shape[rank - 2] = is_a ? 16 : 8 * dot.k_width;
  tile_shape[rank - 1] = is_a ? 8 * dot.k_width : 8;
  const std::vector<int32_t> order =
      GetOrderForDotOperand(dot.op_idx, rank, /*k_contig=*/true);
  RETURN_IF_ERROR(CheckMmaTile(kDotName, tile_shape, dot.k_width, order));
  LinearLayout cta = NvidiaMmaTile(tile_shape, dot.k_width, order, order);
  const int k_dim = is_a ? rank - 1 : rank - 2;
  // mma.getWarpOrder(): getMatrixOrder(rank, rowMajor = !Hopper); for a batched Hopper
  // parent that is [1, 2, 0] (M, then K, then the batch), as Triton 3.6 lays out
  // dot_op<{opIdx = 0, parent = nvidia_mma v3 [w0, w1, w2]}> (corpus/layout, dot_op).
  const std::vector<int32_t> warp_order =
      GetMatrixOrder(rank, /*row_major=*/mma.version_major != 3);
  cta *= BroadcastedDotOperandLayout(ToI64(mma.warps_per_cta), warp_order, k_dim, kWarp)
             .TransposeOuts(cta.OutDimNames());
  return CombineCtaCgaWithShape(cta, cga, shape);
}

absl::StatusOr<LinearLayout> MfmaDotToLinear(const DotOperandEncoding& dot,
                                             const AmdMfmaEncoding& mfma, Shape shape) {
  RETURN_IF_ERROR(CheckMfma(mfma));
  const int rank = mfma.warps_per_cta.size();
  RETURN_IF_ERROR(CheckShape(kDotName, shape, rank));
  if (dot.k_width <= 0 || !base::IsPowerOf2(dot.k_width)) {
    return Invalid(kDotName,
                   absl::StrCat("kWidth = ", dot.k_width, " with an amd_mfma parent"),
                   "but MFMA operands need a power-of-two kWidth");
  }
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kDotName, mfma.cga, rank));
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  const int op_idx = dot.op_idx;
  const int non_k_index = op_idx == 0 ? rank - 2 : rank - 1;
  const int k_index = op_idx == 0 ? rank - 1 : rank - 2;
  const std::vector<int32_t> tiles = TilesPerWarp(mfma.tiles_per_warp, rank);
  const int32_t m_size = mfma.instr_shape[0];
  const int32_t n_size = mfma.instr_shape[1];
  const int32_t non_k_size = op_idx == 0 ? m_size : n_size;
  const std::vector<int32_t> order = GetOrderForDotOperand(op_idx, rank, true);
  const std::string& dim_k = dims[order[0]];
  const std::string& dim_non_k = dims[order[1]];
  // kWidth consecutive K values per lane; lanes cover the non-K dim, then K.
  LinearLayout tile =
      Id(dot.k_width, kRegister, dim_k) *
      (Id(non_k_size, kLane, dim_non_k) * Id(kMfmaWarpSize / non_k_size, kLane, dim_k));
  int64_t k_tile = int64_t{kMfmaWarpSize} / non_k_size * dot.k_width;
  // The 64x64 operand of a 4x64 / 64x4 MFMA repeats the tile 16 times along K.
  if ((m_size == 64 && n_size == 4 && op_idx == 0) ||
      (m_size == 4 && n_size == 64 && op_idx == 1)) {
    tile *= Id(16, kRegister, dim_k);
    k_tile *= 16;
  }
  if (shape[k_index] > k_tile) tile *= Id(shape[k_index] / k_tile, kRegister, dim_k);
  tile *= Id(tiles[non_k_index], kRegister, dim_non_k);
  tile = tile.TransposeOuts({dim_k, dim_non_k});
  if (rank == 3) {
    tile *= Id(1, kRegister, dims[order[2]]);
    tile *= Id(1, kLane, dims[order[2]]);
  }
  // Identity warps: the K-warps land beyond shape[K] and the fitting step zeroes them.
  LinearLayout warps = IdentityStandardND(kWarp, ToI64(mfma.warps_per_cta),
                                          GetMatrixOrder(rank, /*row_major=*/true));
  return CombineCtaCgaWithShape(tile * warps, cga, shape);
}

absl::StatusOr<LinearLayout> WmmaDotToLinear(const DotOperandEncoding& dot,
                                             const AmdWmmaEncoding& wmma, Shape shape) {
  RETURN_IF_ERROR(CheckWmma(wmma));
  const int rank = wmma.warps_per_cta.size();
  RETURN_IF_ERROR(CheckShape(kDotName, shape, rank));
  if (dot.k_width <= 0 || !base::IsPowerOf2(dot.k_width)) {
    return Invalid(kDotName,
                   absl::StrCat("kWidth = ", dot.k_width, " with an amd_wmma parent"),
                   "but WMMA operands need a power-of-two kWidth");
  }
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kDotName, wmma.cga, rank));
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  const int op_idx = dot.op_idx;
  const int non_k_index = op_idx == 0 ? rank - 2 : rank - 1;
  const int k_index = op_idx == 0 ? rank - 1 : rank - 2;
  const std::vector<int32_t> order = GetOrderForDotOperand(op_idx, rank, true);
  const std::string& dim_k = dims[order[0]];
  const std::string& dim_non_k = dims[order[1]];
  const int32_t k_instr = wmma.instr_shape[2];
  const int32_t non_k_size = op_idx == 0 ? wmma.instr_shape[0] : wmma.instr_shape[1];
  const int32_t depth = kWmmaWarpSize / non_k_size;
  // kWidth registers along K, 16 lanes along the non-K dim, then `depth` lane groups
  // along K (version 1 duplicates them instead), then K repetitions to fill instrK.
  LinearLayout tile =
      Id(dot.k_width, kRegister, dim_k) * Id(non_k_size, kLane, dim_non_k);
  tile *= wmma.version == 1 ? Zeros(depth, kLane, dim_k) : Id(depth, kLane, dim_k);
  tile *= Id(k_instr / (depth * dot.k_width), kRegister, dim_k);
  // Triton 3.6: the K repetitions over the per-CTA shape (MFMA operands use the whole
  // shape) and the tilesPerWarp repetitions of the non-K dim are registers of the tile,
  // so they come before the warps.
  const int64_t k_tile = tile.OutDimSize(dim_k);
  const int64_t k_size = ShapePerCta(cga, shape)[k_index];
  if (k_size > k_tile) tile *= Id(k_size / k_tile, kRegister, dim_k);
  tile *= Id(TilesPerWarp(wmma.tiles_per_warp, rank)[non_k_index], kRegister, dim_non_k);
  if (rank == 3) {
    tile *= Id(1, kRegister, dims[order[2]]);
    tile *= Id(1, kLane, dims[order[2]]);
  }
  LinearLayout warps = BroadcastedDotOperandLayout(
      ToI64(wmma.warps_per_cta), GetMatrixOrder(rank, /*row_major=*/true), k_index,
      kWarp);
  const std::vector<std::string> rep_dims = PermuteNames(dims, order);
  LinearLayout cta = tile.TransposeOuts(rep_dims) * warps.TransposeOuts(rep_dims);
  return CombineCtaCgaWithShape(cta, cga, shape);
}

absl::StatusOr<LinearLayout> DotToLinear(const DotOperandEncoding& dot, Shape shape) {
  if (!dot.parent) return Invalid(kDotName, "has no parent", "and dot_op needs one");
  if (dot.op_idx != 0 && dot.op_idx != 1) {
    return Invalid(kDotName, absl::StrCat("opIdx = ", dot.op_idx),
                   "but a dot has only operands A (0) and B (1)");
  }
  const auto& kind = dot.parent->kind;
  if (const auto* b = std::get_if<BlockedEncoding>(&kind)) {
    return FmaDotToLinear(dot, *b, shape);
  }
  if (const auto* m = std::get_if<NvidiaMmaEncoding>(&kind)) {
    return NvidiaDotToLinear(dot, *m, shape);
  }
  if (const auto* m = std::get_if<AmdMfmaEncoding>(&kind)) {
    return MfmaDotToLinear(dot, *m, shape);
  }
  if (const auto* w = std::get_if<AmdWmmaEncoding>(&kind)) {
    return WmmaDotToLinear(dot, *w, shape);
  }
  return Invalid(kDotName, "the parent is not blocked, nvidia_mma, amd_mfma or amd_wmma",
                 "and Triton 3.6 defines dot operands only for those parents");
}

// ---- #ttg.slice (§2.2) ----------------------------------------------------------------

absl::StatusOr<LinearLayout> SliceToLinear(const SliceEncoding& e, Shape shape) {
  if (!e.parent) return Invalid(kSliceName, "has no parent", "and slice needs one");
  if (IsSharedKind(*e.parent)) {
    return Invalid(kSliceName, "the parent is a shared-memory encoding",
                   "but only distributed (register) layouts can be sliced");
  }
  ASSIGN_OR_RETURN(const int parent_rank, RankOf(*e.parent));
  if (parent_rank < 2 || e.dim < 0 || e.dim >= parent_rank) {
    return Invalid(kSliceName,
                   absl::StrCat("dim = ", e.dim, " with a rank-", parent_rank, " parent"),
                   "but the sliced dim must be one of the parent's dims and the parent "
                   "needs rank >= 2");
  }
  RETURN_IF_ERROR(CheckShape(kSliceName, shape, parent_rank - 1));
  std::vector<int64_t> parent_shape(shape.begin(), shape.end());
  parent_shape.insert(parent_shape.begin() + e.dim, 1);
  absl::StatusOr<LinearLayout> parent = Convert(*e.parent, parent_shape);
  if (!parent.ok()) {
    return absl::Status(
        parent.status().code(),
        absl::StrCat(kSliceName, ": parent: ", parent.status().message()));
  }
  // Drop out-dim `dim` (the parent was fitted to size 1 there, so those entries are 0)
  // and remove the register bases that became zero; lanes/warps keep theirs.
  LinearLayout::BasesT bases;
  for (const auto& [in_dim, in_bases] : parent->bases()) {
    std::vector<LinearLayout::Basis> kept;
    for (LinearLayout::Basis basis : in_bases) {
      basis.erase(basis.begin() + e.dim);
      const bool zero =
          std::all_of(basis.begin(), basis.end(), [](int32_t v) { return v == 0; });
      if (in_dim == kRegister && zero) continue;
      kept.push_back(std::move(basis));
    }
    bases.emplace_back(in_dim, std::move(kept));
  }
  return LinearLayout(std::move(bases), StandardOutDimNames(parent_rank - 1));
}

// ---- #ttg.linear (§2.3) ---------------------------------------------------------------

absl::StatusOr<LinearLayout> LinearToLinear(const LinearEncoding& e, Shape shape) {
  const LinearLayout& ll = e.layout;
  const std::vector<std::string> expected_ins = {std::string(kRegister),
                                                 std::string(kLane), std::string(kWarp),
                                                 std::string(kBlock)};
  if (ll.InDimNames() != expected_ins) {
    return Invalid(
        kLinearName,
        absl::StrCat("in-dims are [", absl::StrJoin(ll.InDimNames(), ", "), "]"),
        "but a distributed linear layout has exactly register, lane, warp, "
        "block");
  }
  const int rank = ll.num_out_dims();
  if (rank < 1 || ll.OutDimNames() != StandardOutDimNames(rank)) {
    return Invalid(
        kLinearName,
        absl::StrCat("out-dims are [", absl::StrJoin(ll.OutDimNames(), ", "), "]"),
        "but they must be dim0, dim1, ... in order");
  }
  RETURN_IF_ERROR(CheckOneHotEntries(kLinearName, "layout", ll));
  for (const auto& [in_dim, in_bases] : ll.bases()) {
    for (size_t i = 0; i < in_bases.size(); ++i) {
      const auto& b = in_bases[i];
      if (std::count_if(b.begin(), b.end(), [](int32_t v) { return v; }) > 1) {
        return Invalid(kLinearName,
                       absl::StrCat("basis ", in_dim, "[", i, "] = ", FormatList(b),
                                    " moves more than one dim"),
                       "but Triton's verifier allows each basis to move at most one dim");
      }
    }
  }
  RETURN_IF_ERROR(CheckShape(kLinearName, shape, rank));
  // repOrder = getOrder(): dims in order of first appearance among the register bases,
  // then the rest in [rank-1, ..., 0] order.
  std::vector<int32_t> order;
  auto add = [&order](int32_t d) {
    if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
  };
  for (const LinearLayout::Basis& b : ll.bases().front().second) {
    auto it = std::find_if(b.begin(), b.end(), [](int32_t v) { return v != 0; });
    if (it != b.end()) add(static_cast<int32_t>(it - b.begin()));
  }
  for (int d = rank - 1; d >= 0; --d) add(d);
  const std::vector<std::string> canonical = StandardOutDimNames(rank);
  LinearLayout out = ll.TransposeOuts(PermuteNames(canonical, order));
  out = EnsureLayoutNotSmallerThan(out, shape);
  out = EnsureLayoutNotLargerThan(out, shape, /*broadcast_registers=*/false);
  return out.TransposeOuts(canonical);
}

// ---- #ttg.swizzled_shared / #ttg.amd_rotating_shared (§2.8, §2.10) --------------------

absl::StatusOr<LinearLayout> SwizzledToLinear(const SwizzledSharedEncoding& e,
                                              Shape shape) {
  const absl::string_view name = e.amd_rotating ? kRotatingName : kSwizzledName;
  const int rank = e.order.size();
  RETURN_IF_ERROR(CheckOrder(name, "order", e.order, rank));
  if (rank < 1) return Invalid(name, "order is empty", "and a tensor has rank >= 1");
  if (e.vec < 1 || e.per_phase < 1 || e.max_phase < 1) {
    return Invalid(name,
                   absl::StrCat("vec = ", e.vec, ", perPhase = ", e.per_phase,
                                ", maxPhase = ", e.max_phase),
                   "but all three must be positive");
  }
  RETURN_IF_ERROR(CheckShape(name, shape, rank));
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(name, e.cga, rank));
  const std::vector<int64_t> per_cta = ShapePerCta(cga, shape);
  const std::vector<std::string> dims = StandardOutDimNames(rank);
  if (rank == 1) {
    return CombineCtaCgaWithShape(Id(per_cta[0], kOffset, dims[0]), cga, shape);
  }
  // Triton 3.6 builds the rotating tile from the full shape, not the per-CTA shape
  // (the fitting step then broadcasts the excess); swizzled uses the per-CTA shape.
  const std::vector<int64_t> tile_shape =
      e.amd_rotating ? std::vector<int64_t>(shape.begin(), shape.end()) : per_cta;
  const int32_t col_dim = e.order[0];
  const int32_t row_dim = e.order[1];
  const int64_t num_cols = tile_shape[col_dim];
  const int64_t num_rows = tile_shape[row_dim];
  // Bases are (row, col): the column bits are the identity, each row bit XORs its phase
  // into the column: col ^= (vec * phase(row)) mod numCols.
  std::vector<LinearLayout::Basis> bases2d;
  for (int64_t col = 1; col < num_cols; col *= 2) {
    bases2d.push_back({0, static_cast<int32_t>(col)});
  }
  for (int64_t row = 1; row < num_rows; row *= 2) {
    int64_t phase = (row / e.per_phase) % e.max_phase;
    if (e.amd_rotating) {
      const int64_t block_no = row / e.max_phase / e.per_phase % e.max_phase;
      phase ^= block_no;
    }
    bases2d.push_back(
        {static_cast<int32_t>(row), static_cast<int32_t>((e.vec * phase) % num_cols)});
  }
  LinearLayout::BasesT bases;
  bases.emplace_back(std::string(kOffset), std::move(bases2d));
  LinearLayout cta(std::move(bases), {dims[row_dim], dims[col_dim]});
  for (int i = 2; i < rank; ++i) {
    cta *= Id(tile_shape[e.order[i]], kOffset, dims[e.order[i]]);
  }
  if (e.amd_rotating) RETURN_IF_ERROR(CheckShrinkable(name, cta, per_cta));
  return CombineCtaCgaWithShape(cta, cga, shape);
}

// ---- #ttg.nvmma_shared (§2.9) ---------------------------------------------------------

// getCoreMatrixLinearLayout: one 8-row swizzle atom on out-dims (dim0 = row, dim1 = col).
LinearLayout NvmmaCoreMatrix(const NvmmaSharedEncoding& e) {
  const int32_t swizzle = e.swizzling_byte_width;
  const int32_t vec = swizzle == 0 ? 1 : 128 / e.element_bit_width;
  const int32_t per_phase = swizzle == 0 ? 1 : 128 / swizzle;
  const int32_t max_phase = swizzle == 0 ? 1 : swizzle / 16;
  const int32_t tile_rows = 8;
  const int32_t tile_cols = 8 * std::max(16, swizzle) / e.element_bit_width;
  // fp4Padded: each 16 offsets hold 8 real and 8 padding bytes; the padding aliases the
  // real coordinates (column c -> (c / 16) * 8 + c % 8).
  auto pack = [&e](int32_t c) { return e.fp4_padded ? c / 16 * 8 + c % 8 : c; };
  std::vector<LinearLayout::Basis> bases2d;
  for (int32_t col = 1; col < tile_cols; col *= 2) bases2d.push_back({0, pack(col)});
  for (int32_t row = 1; row < tile_rows; row *= 2) {
    bases2d.push_back({row, pack(vec * ((row / per_phase) % max_phase))});
  }
  LinearLayout::BasesT bases;
  bases.emplace_back(std::string(kOffset), std::move(bases2d));
  return LinearLayout(std::move(bases), StandardOutDimNames(2));
}

absl::StatusOr<LinearLayout> NvmmaToLinear(const NvmmaSharedEncoding& e, Shape shape) {
  const int rank = e.rank;
  const int32_t swizzle = e.swizzling_byte_width;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) {
    return Invalid(kNvmmaName, absl::StrCat("swizzlingByteWidth = ", swizzle),
                   "but TMA/wgmma swizzles are 0, 32, 64 or 128 bytes");
  }
  if (!base::IsPowerOf2(e.element_bit_width) || e.element_bit_width > 64) {
    return Invalid(kNvmmaName, absl::StrCat("elementBitWidth = ", e.element_bit_width),
                   "but elements are 1 to 64 bits wide, in powers of two");
  }
  if (rank < 1) return Invalid(kNvmmaName, absl::StrCat("rank = ", rank), "must be >= 1");
  RETURN_IF_ERROR(CheckShape(kNvmmaName, shape, rank));
  ASSIGN_OR_RETURN(LinearLayout cga, MakeCgaLayout(kNvmmaName, e.cga, rank));
  const std::vector<int64_t> per_cta = ShapePerCta(cga, shape);
  const std::vector<std::string> dims = StandardOutDimNames(rank);

  // getTMABlockShape(packedSize = true).
  std::vector<int64_t> tma = per_cta;
  const int contig = e.transposed ? 0 : rank - 1;
  if (e.fp4_padded) tma[contig] *= 2;
  for (int64_t& s : tma) s = std::min<int64_t>(s, 256);
  if (swizzle != 0) {
    const int64_t contig_size = int64_t{8} * swizzle / e.element_bit_width;
    if (tma[contig] < contig_size) {
      return Invalid(
          kNvmmaName,
          absl::StrCat("the contiguous dim ", contig, " of the per-CTA shape ",
                       FormatList(absl::Span<const int64_t>(per_cta)), " holds ",
                       tma[contig], e.fp4_padded ? " padded elements" : " elements",
                       ", fewer than the ", contig_size, " of one ", swizzle,
                       "-byte swizzle row"),
          "and a TMA box must span whole swizzle rows");
    }
    tma[contig] = contig_size;
  }
  if (e.fp4_padded) tma[contig] /= 2;

  if (swizzle == 0) {
    // Row-major over the TMA box (last dim fastest), then repeat the box.
    LinearLayout layout = Id(tma[rank - 1], kOffset, dims[rank - 1]);
    for (int i = rank - 2; i >= 0; --i) layout *= Id(tma[i], kOffset, dims[i]);
    layout = EnsureLayoutNotSmallerThan(layout, per_cta);
    return CombineCtaCgaWithShape(layout, cga, shape);
  }
  if (rank < 2) {
    return Invalid(kNvmmaName, "a swizzled layout has rank 1",
                   "but a swizzle atom needs rows and columns");
  }
  // Collapse the TMA box to 2-D [rows, cols] (swapped when transposed).
  std::vector<int64_t> collapsed = {1, tma[rank - 1]};
  for (int i = 0; i + 1 < rank; ++i) collapsed[0] *= tma[i];
  if (e.transposed) std::swap(collapsed[0], collapsed[1]);
  LinearLayout tile = NvmmaCoreMatrix(e);
  const int64_t tile_rows = tile.OutDimSize(dims[0]);
  const int64_t tile_cols = tile.OutDimSize(StandardOutDimName(1));
  const int64_t packing = e.fp4_padded ? 2 : 1;
  if (collapsed[1] * packing < tile_cols || collapsed[0] < tile_rows) {
    return Invalid(kNvmmaName,
                   absl::StrCat("the TMA box collapses to [", collapsed[0], ", ",
                                collapsed[1], "], smaller than the [", tile_rows, ", ",
                                tile_cols / packing, "] swizzle atom"),
                   "and the shared layout is built from whole swizzle atoms");
  }
  LinearLayout layout = EnsureLayoutNotSmallerThan(tile, collapsed);
  std::vector<int64_t> target = tma;
  if (e.transposed) std::rotate(target.begin(), target.begin() + 1, target.end());
  int64_t target_size = 1;
  for (int64_t s : target) target_size *= s;
  if (layout.TotalOutDimSize() != target_size) {
    return Invalid(
        kNvmmaName,
        absl::StrCat("the grown swizzle atom covers ", layout.TotalOutDimSize(),
                     " elements but the TMA box ",
                     FormatList(absl::Span<const int64_t>(tma)), " has ", target_size),
        "so the atom cannot be reshaped onto the box (Triton asserts here)");
  }
  LinearLayout reshaped = ReshapeLayout(layout, target);
  if (e.transposed) {
    std::vector<int32_t> order = {rank - 1};
    for (int i = 0; i < rank - 1; ++i) order.push_back(i);
    reshaped = TransposeLinearLayout(reshaped, order);
  }
  reshaped = EnsureLayoutNotSmallerThan(reshaped, per_cta);
  return CombineCtaCgaWithShape(reshaped, cga, shape);
}

// ---- #ttg.padded_shared, #ttg.shared_linear (§2.11) -----------------------------------

// Triton 3.6's toLinearLayout aborts on padded_shared ("unknown layout"). We return its
// linear component (offset, block -> dim0..), fitted to the shape the way every other
// shared encoding is fitted: extra offset bases repeat it where the shape is larger,
// zeroed bases broadcast it where the shape is smaller. When the shape equals the
// component's own shape (the normal case) this is the component unchanged.
absl::StatusOr<LinearLayout> PaddedToLinear(const PaddedSharedEncoding& e, Shape shape) {
  const LinearLayout& ll = e.linear;
  const std::vector<std::string> expected_ins = {std::string(kOffset),
                                                 std::string(kBlock)};
  if (ll.InDimNames() != expected_ins) {
    return Invalid(kPaddedName,
                   absl::StrCat("the linear component's in-dims are [",
                                absl::StrJoin(ll.InDimNames(), ", "), "]"),
                   "but a shared layout has exactly offset, block");
  }
  const int rank = ll.num_out_dims();
  if (rank < 1 || ll.OutDimNames() != StandardOutDimNames(rank)) {
    return Invalid(kPaddedName,
                   absl::StrCat("the linear component's out-dims are [",
                                absl::StrJoin(ll.OutDimNames(), ", "), "]"),
                   "but they must be dim0, dim1, ... in order");
  }
  RETURN_IF_ERROR(CheckOneHotEntries(kPaddedName, "linear component", ll));
  RETURN_IF_ERROR(CheckShape(kPaddedName, shape, rank));
  return EnsureLayoutNotLargerThan(EnsureLayoutNotSmallerThan(ll, shape), shape);
}

absl::StatusOr<LinearLayout> SharedLinearToLinear(const SharedLinearEncoding& e,
                                                  Shape shape) {
  const LinearLayout& ll = e.layout;
  const std::vector<std::string> ins = ll.InDimNames();
  const bool ins_ok =
      ins == std::vector<std::string>{std::string(kOffset)} ||
      ins == std::vector<std::string>{std::string(kOffset), std::string(kBlock)};
  if (!ins_ok) {
    return Invalid(kSharedLinearName,
                   absl::StrCat("in-dims are [", absl::StrJoin(ins, ", "), "]"),
                   "but a shared layout has offset and optionally block");
  }
  const int rank = ll.num_out_dims();
  if (rank < 1 || ll.OutDimNames() != StandardOutDimNames(rank)) {
    return Invalid(
        kSharedLinearName,
        absl::StrCat("out-dims are [", absl::StrJoin(ll.OutDimNames(), ", "), "]"),
        "but they must be dim0, dim1, ... in order");
  }
  RETURN_IF_ERROR(CheckShape(kSharedLinearName, shape, rank));
  std::vector<int64_t> own;
  for (const auto& [name, size] : ll.out_dims()) own.push_back(size);
  if (!std::equal(own.begin(), own.end(), shape.begin())) {
    return Invalid(
        kSharedLinearName,
        absl::StrCat("shape ", FormatList(shape), " differs from the layout's own ",
                     FormatList(absl::Span<const int64_t>(own))),
        "and shared_linear layouts are never broadcast or repeated");
  }
  if (ins.size() == 2) return ll;
  LinearLayout::BasesT bases = ll.bases();
  bases.emplace_back(std::string(kBlock), std::vector<LinearLayout::Basis>{});
  return LinearLayout(std::move(bases), ll.out_dims(), /*require_surjective=*/false);
}

// ---- Postconditions -------------------------------------------------------------------

absl::Status CheckResult(const Encoding& encoding, Shape shape, const LinearLayout& l) {
  const std::vector<std::string> expected_ins =
      IsSharedKind(encoding)
          ? std::vector<std::string>{std::string(kOffset), std::string(kBlock)}
          : std::vector<std::string>{std::string(kRegister), std::string(kLane),
                                     std::string(kWarp), std::string(kBlock)};
  bool ok = l.InDimNames() == expected_ins &&
            l.OutDimNames() == StandardOutDimNames(shape.size());
  for (size_t i = 0; ok && i < shape.size(); ++i) {
    ok = l.out_dims()[i].second == shape[i];
  }
  if (!ok) {
    return absl::InternalError(absl::StrCat(
        "ToLinearLayout produced ", l.ToString(), " for shape ", FormatList(shape),
        ", which does not have the required in-dims and out-dims (a warpcheck bug)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<LinearLayout> Convert(const Encoding& encoding, Shape shape) {
  return std::visit(
      [shape](const auto& e) -> absl::StatusOr<LinearLayout> {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, BlockedEncoding>) {
          return BlockedToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, SliceEncoding>) {
          return SliceToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, LinearEncoding>) {
          return LinearToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, NvidiaMmaEncoding>) {
          return NvidiaMmaToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, DotOperandEncoding>) {
          return DotToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, AmdMfmaEncoding>) {
          return MfmaToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, AmdWmmaEncoding>) {
          return WmmaToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, SwizzledSharedEncoding>) {
          return SwizzledToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, NvmmaSharedEncoding>) {
          return NvmmaToLinear(e, shape);
        } else if constexpr (std::is_same_v<T, PaddedSharedEncoding>) {
          return PaddedToLinear(e, shape);
        } else {
          static_assert(std::is_same_v<T, SharedLinearEncoding>);
          return SharedLinearToLinear(e, shape);
        }
      },
      encoding.kind);
}

}  // namespace

namespace {

// Ensures: OK, or InvalidArgument when the positive extents of `shape` multiply to more
//          than 2^kMaxShapeElementsLog2 (checked before anything is built: a 2^30 x 2^30
//          shape would otherwise ask LinearLayout for 60 register bases).
absl::Status CheckShapeSize(absl::Span<const int64_t> shape) {
  int bits = 0;
  for (int64_t extent : shape) {
    if (extent <= 0) return absl::OkStatus();  // Convert names the bad extent
    bits += std::bit_width(static_cast<uint64_t>(extent - 1));
  }
  if (bits <= kMaxShapeElementsLog2) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "shape ", FormatList(shape), " has about 2^", bits, " elements; a layout covers at most 2^",
      kMaxShapeElementsLog2, " (", kMaxShapeElementsLog2, " bases per in-dim)"));
}

}  // namespace

absl::StatusOr<LinearLayout> ToLinearLayout(const Encoding& encoding,
                                            absl::Span<const int64_t> shape) {
  absl::Status size = CheckShapeSize(shape);
  absl::StatusOr<LinearLayout> result =
      size.ok() ? Convert(encoding, shape) : absl::StatusOr<LinearLayout>(size);
  if (result.ok()) {
    absl::Status check = CheckResult(encoding, shape, *result);
    if (!check.ok() && std::holds_alternative<LinearEncoding>(encoding.kind)) {
      // A user-written linear layout with repeated bases can fail to shrink to the
      // shape (zeroing a repeated basis does not halve the extent); Triton asserts.
      check = Invalid(kLinearName,
                      absl::StrCat("the layout cannot be fitted to shape ",
                                   FormatList(shape), " (got ", result->ToString(), ")"),
                      "because repeated bases keep an out-dim larger than the shape");
    }
    if (check.ok()) return result;
    result = check;
  }
  // A parsed encoding points at its own text.
  const std::string where = encoding.PositionOf("");
  if (where.empty() || result.status().code() != absl::StatusCode::kInvalidArgument) {
    return result;
  }
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", result.status().message()));
}

}  // namespace warpcheck::sim::layout
