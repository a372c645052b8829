// Encoding: a parsed TTGIR layout attribute, and its conversion to a LinearLayout.
//
// Triton attaches a layout attribute to every tensor type in TTGIR:
//
//     tensor<128x64xf16, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8],
//                                     warpsPerCTA = [4, 1], order = [1, 0]}>>
//
// An Encoding is that attribute as data (one struct per attribute kind), independent of
// the tensor shape. ToLinearLayout(encoding, shape) then produces exactly the
// LinearLayout that Triton 3.6's `toLinearLayout(shape, attr)` produces
// (shared/spec/linear-layouts.md §2): the CTA tile of the encoding, fitted to the shape
// by repeating in registers where the tensor is larger and broadcasting where it is
// smaller, with the CGA (cluster) layout on top.
//
// Distributed encodings (blocked, slice, linear, nvidia_mma, dot_op, amd_mfma, amd_wmma)
// give layouts with in-dims register, lane, warp, block; shared encodings
// (swizzled_shared, amd_rotating_shared, nvmma_shared, padded_shared, shared_linear)
// give offset, block. Out-dims are always dim0..dim{rank-1} with sizes equal to shape.
//
// Text: ParseEncoding accepts the attribute syntax Triton 3.6 prints and parses
// (§3): `#ttg.<mnemonic><{key = value, ...}>`, keys in any order, `4 : i32` integers,
// nested attributes inline or as `#alias` resolved through a TtgirFile. PrintEncoding
// emits Triton's canonical form (canonical key order, defaults omitted where Triton
// omits them), so Print(Parse(Print(e))) == Print(e). Errors are InvalidArgument
// with "<source>:<line>:<column>: <what>, and why".
#ifndef WARPCHECK_SIM_LAYOUT_ENCODING_H_
#define WARPCHECK_SIM_LAYOUT_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {

struct Encoding;
using EncodingPtr = std::shared_ptr<const Encoding>;

// CGALayout = [[...], ...]: the block bases (one rank-r vector per CTA-id bit), in units
// of whole per-CTA tiles. Empty = one CTA (the default, not printed).
using CgaBases = std::vector<std::vector<int32_t>>;

// #ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order [, CGALayout]}>
struct BlockedEncoding {
  std::vector<int32_t> size_per_thread;
  std::vector<int32_t> threads_per_warp;
  std::vector<int32_t> warps_per_cta;
  std::vector<int32_t> order;
  CgaBases cga;
};

// #ttg.slice<{dim, parent}>
struct SliceEncoding {
  int32_t dim = 0;
  EncodingPtr parent;
};

// #ttg.linear<{register, lane, warp, block}>: the attribute is itself a layout; out-dims
// dim0.. with inferred sizes.
struct LinearEncoding {
  LinearLayout layout;
};

// #ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA [, CGALayout], instrShape}>
struct NvidiaMmaEncoding {
  int32_t version_major = 0;
  int32_t version_minor = 0;
  std::vector<int32_t> warps_per_cta;
  CgaBases cga;
  std::vector<int32_t> instr_shape;
};

// #ttg.dot_op<{opIdx, parent, kWidth}>
struct DotOperandEncoding {
  int32_t op_idx = 0;
  EncodingPtr parent;
  int32_t k_width = 0;  // 0 = not given (printed only when != 0)
};

// #ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed [, CGALayout]
//                [, tilesPerWarp] [, elementBitWidth]}>
struct AmdMfmaEncoding {
  int32_t version = 0;
  std::vector<int32_t> warps_per_cta;
  std::vector<int32_t> instr_shape;  // [M, N, K]
  bool is_transposed = false;
  CgaBases cga;
  std::vector<int32_t> tiles_per_warp;  // empty = all ones
  int32_t element_bit_width = 32;
};

// #ttg.amd_wmma<{version, isTranspose, warpsPerCTA [, CGALayout] [, tilesPerWarp]
//                [, instrShape]}>
struct AmdWmmaEncoding {
  int32_t version = 0;
  bool is_transpose = false;
  std::vector<int32_t> warps_per_cta;
  CgaBases cga;
  std::vector<int32_t> instr_shape = {16, 16, 16};
  // Triton 3.6 prints it after CGALayout, only when not all ones, e.g.
  // `warpsPerCTA = [2, 2], CGALayout = [[0, 1]], tilesPerWarp = [2, 1],
  //  instrShape = [16, 16, 32]`.
  std::vector<int32_t> tiles_per_warp;  // empty = all ones
};

// #ttg.swizzled_shared / #ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order
//                                                 [, CGALayout]}>
struct SwizzledSharedEncoding {
  int32_t vec = 1;
  int32_t per_phase = 1;
  int32_t max_phase = 1;
  std::vector<int32_t> order;
  CgaBases cga;
  bool amd_rotating = false;  // true for #ttg.amd_rotating_shared
};

// #ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth [, fp4Padded]
//                   [, CGALayout] [, rank]}>
struct NvmmaSharedEncoding {
  int32_t swizzling_byte_width = 0;
  bool transposed = false;
  int32_t element_bit_width = 16;
  bool fp4_padded = false;
  CgaBases cga;
  int32_t rank = 2;
};

// #ttg.padded_shared<[I1:+P1, ...] {order = [...], shape = [...]}> or
// #ttg.padded_shared<[I1:+P1, ...] {offset = [...], block = [...]}>
struct PaddedSharedEncoding {
  std::vector<std::pair<int32_t, int32_t>> interval_padding;
  // The linear component offset, block -> dim0.. (invertible).
  LinearLayout linear;
};

// #ttg.shared_linear<{offset = [...] [, block = [...]]}, alignment = A>
struct SharedLinearEncoding {
  LinearLayout layout;  // in-dims offset, block; out-dims dim0..
  int32_t alignment = 0;
};

struct Encoding {
  std::variant<BlockedEncoding, SliceEncoding, LinearEncoding, NvidiaMmaEncoding,
               DotOperandEncoding, AmdMfmaEncoding, AmdWmmaEncoding,
               SwizzledSharedEncoding, NvmmaSharedEncoding, PaddedSharedEncoding,
               SharedLinearEncoding>
      kind;

  // Where a parsed encoding came from, as "<source>:<line>:<column>": key "" is the
  // attribute's leading '#', a field name (e.g. "threadsPerWarp") the start of that
  // field's value. Empty for encodings built in code. Checks made after parsing
  // (CheckAgainstModule, ToLinearLayout) use it to point at the text at fault.
  std::map<std::string, std::string> positions = {};

  // Ensures: true for swizzled/rotating/nvmma/padded shared and shared_linear.
  bool IsShared() const;
  // The tensor rank this encoding describes (for slice: parent rank - 1).
  int Rank() const;
  // Ensures: positions[field] if recorded, else positions[""], else "".
  std::string PositionOf(absl::string_view field) const;
};

// Module attributes (ttg.num-warps, ttg.threads-per-warp, ttg.num-ctas). Unset =
// unknown: nothing is cross-checked against it.
struct ModuleInfo {
  std::optional<int32_t> num_warps;
  std::optional<int32_t> threads_per_warp;
  std::optional<int32_t> num_ctas;
};

// Where text came from, for diagnostics: "argument", a file path, or a corpus case.
// `line` and `column` are 1-based positions of the first character of the text inside
// that source, so an attribute cut out of a TTGIR file reports file positions.
struct SourceLocation {
  std::string source = "argument";
  int line = 1;
  int column = 1;
};

// A TTGIR file (or fragment): alias definitions `#name = <attr>` and module attributes.
struct TtgirFile {
  std::map<std::string, EncodingPtr> aliases;  // "#blocked" -> encoding
  ModuleInfo module;
};

// Parses a TTGIR dump: every top-level `#name = #ttg.<...>` alias (aliases may refer to
// earlier aliases) and the `module attributes {...}` dictionary. Everything else
// (operations, functions) is skipped. Alias definitions of non-layout attributes
// (e.g. `#smem = #ttg.shared_memory`, `#loc = loc(...)`) are skipped.
// Text past kMaxTtgirBytes is an error at the first byte over (sim/base/text_limit.h).
inline constexpr size_t kMaxTtgirBytes = size_t{64} << 20;
absl::StatusOr<TtgirFile> ParseTtgir(absl::string_view text,
                                     const SourceLocation& where);

// Parses one layout attribute. `aliases` (may be null) resolves `#name` references,
// including a bare `#name` as the whole text. Trailing text is an error.
absl::StatusOr<EncodingPtr> ParseEncoding(absl::string_view text, const SourceLocation& where,
                                          const TtgirFile* context = nullptr);

// Triton 3.6's canonical print, nested attributes inline.
std::string PrintEncoding(const Encoding& encoding);

// Checks the encoding against module attributes (warps, threads per warp, CTAs) when
// they are known, recursing into slice/dot_op parents. InvalidArgument naming the
// field at fault; for a parsed encoding the message starts with that field's
// "<source>:<line>:<column>: " (Encoding::positions), so callers must not add another.
absl::Status CheckAgainstModule(const Encoding& encoding, const ModuleInfo& module);

// The most elements a shape may have: 2^30, so that no in-dim of a layout built for it
// needs more than 30 bases (LinearLayout's limit). Real CTA tiles are far smaller.
inline constexpr int kMaxShapeElementsLog2 = 30;

// Triton 3.6's toLinearLayout(shape, attr) (shared/spec/linear-layouts.md §2).
// InvalidArgument when the shape does not fit the encoding (rank mismatch, a
// non-power-of-two extent, more than 2^kMaxShapeElementsLog2 elements, a shared_linear
// whose shape differs, ...).
absl::StatusOr<LinearLayout> ToLinearLayout(const Encoding& encoding,
                                            absl::Span<const int64_t> shape);

}  // namespace warpcheck::sim::layout

#endif  // WARPCHECK_SIM_LAYOUT_ENCODING_H_
