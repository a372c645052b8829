// Parsing and validation of TTGIR layout attributes (ParseEncoding, ParseTtgir) and
// the module cross-checks (CheckAgainstModule).
//
// Parsing happens in two steps, as in Triton: the text after `#ttg.<mnemonic><` is
// first read as a generic MLIR value (a dictionary of integers, booleans, arrays and
// nested attributes, each remembering its byte offset), and then interpreted by one
// Build* function per attribute kind, which checks the fields the way Triton 3.6's
// parsers and verifiers do (shared/spec/linear-layouts.md §3.3). Every error names the
// position of the token at fault, the attribute and the field:
//
//     argument:1:39: #ttg.blocked: threadsPerWarp: has 3 entries, but sizePerThread has 2
//
// Syntax follows Triton 3.6 (checked against the triton==3.6.0 wheel): keys in any order,
// `4 : i32` integers (but not inside #ttg.dot_op, whose struct syntax takes plain
// integers, nor for shared_linear's alignment), no space between `#ttg.blocked` and `<`,
// duplicate keys rejected, legacy CTAsPerCGA/CTASplitNum/CTAOrder and #triton_gpu.
// rejected. Also accepted: `0x10` integers and `//` comments, as MLIR does.
//
// Where warpcheck is stricter than Triton 3.6 (Triton accepts the text but cannot lower
// it, silently changes it, or aborts on it), the message says what is needed:
//   * unknown keys are errors in every attribute (Triton ignores them in slice, linear,
//     nvidia_mma, amd_mfma, amd_wmma and the long form of padded_shared);
//   * integers must fit in int32 (Triton truncates 4294967300 to 4);
//   * nvidia_mma: versionMajor 2 or 3 only; instrShape required, [16, 8] / [1, 16, 8] for
//     v2 and [16, N, K] (N a power of two in 8..256, K in {8, 16, 32}) for v3; warps of
//     rank 2 or 3 (v3: 2), powers of two (Triton 3.6 verifies none of this);
//   * amd_mfma: version required, instrShape has 3 entries; amd_mfma and amd_wmma:
//     tilesPerWarp has the rank of warpsPerCTA, warps and tiles are powers of two, rank 2
//     or 3;
//   * swizzled/rotating shared: vec, perPhase, maxPhase all present (Triton defaults a
//     missing one to 0) and powers of two; amd_rotating_shared's order is a permutation;
//   * nvmma_shared: swizzlingByteWidth in {0, 32, 64, 128} and elementBitWidth a power of
//     two, both required (Triton 3.6 reads uninitialised values when they are missing);
//   * dot_op: a non-zero kWidth is a power of two; the parent has rank >= 2;
//   * non-surjective CGALayout, linear, shared_linear and padded_shared components are
//     errors (Triton aborts).
// And more lenient in one place: nvmma_shared takes its rank from a non-empty CGALayout
// when `rank` is absent, as Triton's later parsers do; Triton 3.6 prints a rank-3
// nvmma_shared with a CGALayout that way but cannot parse its own print.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "sim/base/bits.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"
#include "sim/layout/attr_lexer.h"
#include "sim/layout/encoding.h"
#include "sim/layout/f2_matrix.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim {
namespace {

using attr::Lexer;
using attr::Positions;
using attr::Token;
using attr::TokenKind;

// Nesting limit for attributes inside attributes and arrays inside arrays. Real
// layouts nest at most ~4 deep (slice of dot_op of mma; bases in an array).
constexpr int kMaxDepth = 32;
// Basis entries must stay below 2^30 so that inferred out sizes fit in int32, and an
// in-dim may have at most 30 bases (size 2^30).
constexpr int64_t kMaxBasisEntry = int64_t{1} << 30;
constexpr int kMaxBasesPerDim = 30;

constexpr absl::string_view kKnownMnemonics[] = {
    "blocked",      "slice",           "linear",
    "nvidia_mma",   "dot_op",          "amd_mfma",
    "amd_wmma",     "swizzled_shared", "amd_rotating_shared",
    "nvmma_shared", "padded_shared",   "shared_linear"};

std::string KnownEncodingList() {
  std::vector<std::string> names;
  for (absl::string_view m : kKnownMnemonics) names.push_back(absl::StrCat("#ttg.", m));
  return absl::StrJoin(names, ", ");
}

std::string FormatArray(const std::vector<int32_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

std::string FormatBases(const std::vector<std::vector<int32_t>>& bases) {
  std::vector<std::string> parts;
  for (const auto& b : bases) parts.push_back(FormatArray(b));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

// Name of an encoding's attribute, for messages: "#ttg.blocked", ...
std::string KindName(const Encoding& e) {
  struct Visitor {
    std::string operator()(const BlockedEncoding&) const { return "#ttg.blocked"; }
    std::string operator()(const SliceEncoding&) const { return "#ttg.slice"; }
    std::string operator()(const LinearEncoding&) const { return "#ttg.linear"; }
    std::string operator()(const NvidiaMmaEncoding&) const { return "#ttg.nvidia_mma"; }
    std::string operator()(const DotOperandEncoding&) const { return "#ttg.dot_op"; }
    std::string operator()(const AmdMfmaEncoding&) const { return "#ttg.amd_mfma"; }
    std::string operator()(const AmdWmmaEncoding&) const { return "#ttg.amd_wmma"; }
    std::string operator()(const SwizzledSharedEncoding& s) const {
      return s.amd_rotating ? "#ttg.amd_rotating_shared" : "#ttg.swizzled_shared";
    }
    std::string operator()(const NvmmaSharedEncoding&) const {
      return "#ttg.nvmma_shared";
    }
    std::string operator()(const PaddedSharedEncoding&) const {
      return "#ttg.padded_shared";
    }
    std::string operator()(const SharedLinearEncoding&) const {
      return "#ttg.shared_linear";
    }
  };
  return std::visit(Visitor{}, e.kind);
}

// Levenshtein distance, for "did you mean" hints on unknown keys.
int EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// ---- F2 rank of a set of basis vectors
// -------------------------------------------------

// Out sizes inferred as Triton does: the smallest power of two strictly greater than
// every entry of that dim (at least 1).
// Requires: entries in [0, 2^30).
std::vector<int32_t> InferOutSizes(const std::vector<std::vector<int32_t>>& bases,
                                   int rank) {
  std::vector<int32_t> sizes(rank, 1);
  for (const auto& b : bases) {
    for (int d = 0; d < rank; ++d) {
      sizes[d] = std::max<int32_t>(sizes[d], NextPowerOf2Above(b[d]));
    }
  }
  return sizes;
}

// Ensures: the rank over F2 of the bases read as bit vectors (dim 0 = low bits),
//          computed by f2::Rank on whichever matrix fits its 64 columns: one row per
//          basis when the dims have at most 64 bits in all; else, when every basis
//          moves at most one dim, the sum of the per-dim ranks (each dim has at most 30
//          bits); else the transpose, one row per bit and one column per basis.
// Requires: every basis has `sizes.size()` entries, each below its size (powers of
//           two); with more than 64 bits in all, at most 64 bases or one dim per basis.
int F2Rank(const std::vector<std::vector<int32_t>>& bases,
           const std::vector<int32_t>& sizes) {
  std::vector<int> shift(sizes.size() + 1, 0);
  for (size_t d = 0; d < sizes.size(); ++d) shift[d + 1] = shift[d] + Log2(sizes[d]);
  const int total_bits = shift.back();
  if (total_bits <= 64) {
    f2::Matrix rows;
    for (const auto& b : bases) {
      uint64_t row = 0;
      for (size_t d = 0; d < sizes.size(); ++d) {
        row |= static_cast<uint64_t>(b[d]) << shift[d];
      }
      rows.push_back(row);
    }
    return f2::Rank(std::move(rows), total_bits);
  }
  const bool one_dim_each = std::all_of(bases.begin(), bases.end(), [](const auto& b) {
    return std::count_if(b.begin(), b.end(), [](int32_t x) { return x != 0; }) <= 1;
  });
  if (one_dim_each) {
    int rank = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      f2::Matrix rows;
      for (const auto& b : bases) rows.push_back(static_cast<uint64_t>(b[d]));
      rank += f2::Rank(std::move(rows), Log2(sizes[d]));
    }
    return rank;
  }
  WARPCHECK_CHECK(bases.size() <= 64) << bases.size() << " bases of " << total_bits
                                      << " bits";
  f2::Matrix columns(total_bits, 0);
  for (size_t i = 0; i < bases.size(); ++i) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      for (int bit = shift[d]; bit < shift[d + 1]; ++bit) {
        if ((bases[i][d] >> (bit - shift[d])) & 1) columns[bit] |= uint64_t{1} << i;
      }
    }
  }
  return f2::Rank(std::move(columns), static_cast<int>(bases.size()));
}

int TotalLog2(const std::vector<int32_t>& sizes) {
  int total = 0;
  for (int32_t s : sizes) total += Log2(s);
  return total;
}

// ---- Generic MLIR attribute values
// ------------------------------------------------------

struct Entry;

// One MLIR attribute value with the byte range it came from.
struct Value {
  enum class Kind { kInteger, kBool, kString, kArray, kDict, kEncoding, kUnit };
  Kind kind = Kind::kUnit;
  size_t offset = 0;            // first byte of the value
  int64_t integer = 0;          // kInteger (saturated at +-2^62)
  bool fits_int32 = true;       // kInteger
  size_t type_offset = 0;       // kInteger: offset of the ':' of a `: i32` suffix, or 0
  bool boolean = false;         // kBool
  std::string text;             // kString contents; spelling of integers and bools
  std::vector<Value> elements;  // kArray
  std::vector<Entry> entries;   // kDict, in source order
  EncodingPtr encoding;         // kEncoding
  std::string encoding_name;    // kEncoding: "#ttg.blocked" or "#blocked"
};

struct Entry {
  std::string key;
  size_t key_offset = 0;
  Value value;  // kUnit when written without `= value`
};

std::string DescribeValue(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kInteger:
      return absl::StrCat("the integer ", v.text);
    case Value::Kind::kBool:
      return absl::StrCat("the bool ", v.text);
    case Value::Kind::kString:
      return absl::StrCat("the string \"", v.text, "\"");
    case Value::Kind::kArray:
      return "an array";
    case Value::Kind::kDict:
      return "a dictionary";
    case Value::Kind::kEncoding:
      return absl::StrCat("the attribute ", v.encoding_name);
    case Value::Kind::kUnit:
      return "no value";
  }
  return "a value";
}

// ---- The parser
// -------------------------------------------------------------------------

class Parser;

// The fields of one attribute's dictionary, with the checks every Build* function
// shares. Errors read "<pos>: <attr>: <field>: <what>".
class Fields {
 public:
  Fields(Parser* parser, std::string attr, size_t attr_offset,
         const std::vector<Entry>* entries)
      : parser_(parser),
        attr_(std::move(attr)),
        attr_offset_(attr_offset),
        entries_(entries) {}

  const std::string& attr() const { return attr_; }
  size_t attr_offset() const { return attr_offset_; }

  // Unknown keys are errors (legacy CTA keys get a 3.6 hint).
  absl::Status CheckKeys(std::initializer_list<absl::string_view> allowed);
  const Entry* Find(absl::string_view key) const;
  // Error at the attribute when a required key is missing.
  absl::Status Require(std::initializer_list<absl::string_view> keys,
                       absl::string_view why);

  absl::Status Error(size_t offset, absl::string_view field,
                     absl::string_view what) const;
  absl::Status AttrError(absl::string_view what) const;

  // Value conversions; `field` names the key in messages.
  absl::StatusOr<int32_t> Int(const Value& v, absl::string_view field) const;
  absl::StatusOr<int32_t> PowerOfTwo(const Value& v, absl::string_view field) const;
  absl::StatusOr<bool> Bool(const Value& v, absl::string_view field) const;
  absl::StatusOr<std::vector<int32_t>> IntArray(const Value& v,
                                                absl::string_view field) const;
  absl::StatusOr<std::vector<int32_t>> PowerOfTwoArray(const Value& v,
                                                       absl::string_view field) const;
  // Array of arrays of non-negative ints below 2^30 (linear bases); `rank` is set from
  // the first non-empty basis when it is -1, and every basis must then have that rank.
  absl::StatusOr<std::vector<std::vector<int32_t>>> Bases(const Value& v,
                                                          absl::string_view field,
                                                          int* rank,
                                                          std::string* rank_origin) const;
  absl::StatusOr<EncodingPtr> Attribute(const Value& v, absl::string_view field) const;
  // Requires the array (already an IntArray of `field`) to be a permutation of 0..n-1.
  absl::Status Permutation(const Value& v, absl::string_view field,
                           const std::vector<int32_t>& order) const;
  // Checks that `field` has `rank` entries (whole-field error at the key).
  absl::Status Rank(absl::string_view field, size_t size, size_t rank,
                    absl::string_view rank_origin) const;
  // CGALayout = [[...], ...] of the given rank; empty when absent.
  absl::StatusOr<CgaBases> Cga(int rank) const;

  // Positions for Encoding::positions: "" and every key present.
  std::map<std::string, std::string> PositionMap() const;

 private:
  Parser* parser_;
  std::string attr_;
  size_t attr_offset_;
  const std::vector<Entry>* entries_;
};

class Parser {
 public:
  Parser(absl::string_view text, const SourceLocation& where, const TtgirFile* context)
      : text_(text), lexer_(text), positions_(text, where), aliases_(context) {}

  Lexer& lexer() { return lexer_; }
  std::string PositionAt(size_t offset) const { return positions_.At(offset); }
  absl::Status ErrorAt(size_t offset, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(positions_.At(offset), ": ", what));
  }
  // ErrorAt, with the innermost attribute and the keys inside it that are being parsed
  // ("#ttg.blocked: order: ") put in front of `what`.
  absl::Status SyntaxError(size_t offset, absl::string_view what) const {
    size_t start = 0;
    for (size_t i = 0; i < context_.size(); ++i) {
      if (context_[i].is_attribute) start = i;
    }
    std::string prefix;
    for (size_t i = start; i < context_.size(); ++i) {
      absl::StrAppend(&prefix, context_[i].name, ": ");
    }
    return ErrorAt(offset, absl::StrCat(prefix, what));
  }

  // Names an attribute or key for SyntaxError while it is being parsed.
  class Context {
   public:
    Context(Parser* p, bool is_attribute, absl::string_view name) : p_(p) {
      p_->context_.push_back({is_attribute, std::string(name)});
    }
    ~Context() { p_->context_.pop_back(); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

   private:
    Parser* p_;
  };

  // One layout attribute (or #alias) starting at the next token.
  absl::StatusOr<EncodingPtr> ParseAttribute(int depth);
  // One generic value starting at the next token.
  absl::StatusOr<Value> ParseValue(int depth);
  // `{ key = value, ... }` (the '{' is the next token).
  absl::StatusOr<Value> ParseDict(int depth);
  // Skips one value of a module attribute we do not interpret.
  absl::Status SkipValue();

  // Expects the next token to be `kind`; error "<context>: expected <what>, got X".
  absl::StatusOr<Token> Expect(TokenKind kind, absl::string_view what,
                               absl::string_view context);

 private:
  absl::StatusOr<Value> ParseInteger(const Token& t);
  absl::StatusOr<EncodingPtr> ParseDictAttribute(const Token& name,
                                                 absl::string_view mnemonic, int depth);
  absl::StatusOr<EncodingPtr> ParsePaddedShared(const Token& name, int depth);
  absl::StatusOr<EncodingPtr> ParseSharedLinear(const Token& name, int depth);

  struct Frame {
    bool is_attribute;
    std::string name;
  };

  absl::string_view text_;
  Lexer lexer_;
  Positions positions_;
  const TtgirFile* aliases_;
  std::vector<Frame> context_;
};

// ---- Fields
// ------------------------------------------------------------------------------

absl::Status Fields::Error(size_t offset, absl::string_view field,
                           absl::string_view what) const {
  if (field.empty()) return parser_->ErrorAt(offset, absl::StrCat(attr_, ": ", what));
  return parser_->ErrorAt(offset, absl::StrCat(attr_, ": ", field, ": ", what));
}

absl::Status Fields::AttrError(absl::string_view what) const {
  return parser_->ErrorAt(attr_offset_, absl::StrCat(attr_, ": ", what));
}

const Entry* Fields::Find(absl::string_view key) const {
  for (const Entry& e : *entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

absl::Status Fields::CheckKeys(std::initializer_list<absl::string_view> allowed) {
  for (const Entry& e : *entries_) {
    if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
    if (e.key == "CTAsPerCGA" || e.key == "CTASplitNum" || e.key == "CTAOrder") {
      return Error(
          e.key_offset, e.key,
          "unexpected key: the legacy CTA keys CTAsPerCGA/CTASplitNum/CTAOrder were "
          "removed; Triton 3.6 uses CGALayout = [[...], ...] (one block basis per "
          "CTA-id bit, in units of CTA tiles)");
    }
    std::string hint;
    int best = 3;
    for (absl::string_view a : allowed) {
      int d = EditDistance(e.key, a);
      if (d < best) {
        best = d;
        hint = absl::StrCat("; did you mean ", a, "?");
      }
    }
    if (hint.empty()) {
      hint = absl::StrCat("; ", attr_, " takes ", absl::StrJoin(allowed, ", "));
    }
    return parser_->ErrorAt(e.key_offset,
                            absl::StrCat(attr_, ": unexpected key: ", e.key, hint));
  }
  return absl::OkStatus();
}

absl::Status Fields::Require(std::initializer_list<absl::string_view> keys,
                             absl::string_view why) {
  for (absl::string_view k : keys) {
    if (Find(k) == nullptr) {
      return AttrError(absl::StrCat(k, ": missing required field",
                                    why.empty() ? "" : " (", why,
                                    why.empty() ? "" : ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int32_t> Fields::Int(const Value& v, absl::string_view field) const {
  if (v.kind != Value::Kind::kInteger) {
    return Error(v.offset, field,
                 absl::StrCat("expected an integer, got ", DescribeValue(v)));
  }
  if (v.integer < 0) {
    return Error(v.offset, field,
                 absl::StrCat("expected a non-negative integer, got ", v.text));
  }
  if (!v.fits_int32) {
    return Error(v.offset, field,
                 absl::StrCat(v.text, " does not fit in 32 bits (at most 2147483647)"));
  }
  return static_cast<int32_t>(v.integer);
}

absl::StatusOr<int32_t> Fields::PowerOfTwo(const Value& v,
                                           absl::string_view field) const {
  ASSIGN_OR_RETURN(int32_t x, Int(v, field));
  if (!IsPowerOf2(x)) {
    return Error(v.offset, field, absl::StrCat(x, " is not a power of two"));
  }
  return x;
}

absl::StatusOr<bool> Fields::Bool(const Value& v, absl::string_view field) const {
  if (v.kind != Value::Kind::kBool) {
    return Error(v.offset, field,
                 absl::StrCat("expected true or false, got ", DescribeValue(v)));
  }
  return v.boolean;
}

absl::StatusOr<std::vector<int32_t>> Fields::IntArray(const Value& v,
                                                      absl::string_view field) const {
  if (v.kind != Value::Kind::kArray) {
    return Error(v.offset, field,
                 absl::StrCat("expected an array of integers like [1, 0], got ",
                              DescribeValue(v)));
  }
  std::vector<int32_t> out;
  for (const Value& e : v.elements) {
    ASSIGN_OR_RETURN(int32_t x, Int(e, field));
    out.push_back(x);
  }
  return out;
}

absl::StatusOr<std::vector<int32_t>> Fields::PowerOfTwoArray(
    const Value& v, absl::string_view field) const {
  ASSIGN_OR_RETURN(std::vector<int32_t> out, IntArray(v, field));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!IsPowerOf2(out[i])) {
      return Error(v.elements[i].offset, field,
                   absl::StrCat("entry ", i, " is ", out[i],
                                ", but every entry must be a power of two"));
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<int32_t>>> Fields::Bases(
    const Value& v, absl::string_view field, int* rank, std::string* rank_origin) const {
  if (v.kind != Value::Kind::kArray) {
    return Error(v.offset, field,
                 absl::StrCat("expected an array of bases like [[0, 1], [1, 0]], got ",
                              DescribeValue(v)));
  }
  if (v.elements.size() > static_cast<size_t>(kMaxBasesPerDim)) {
    return Error(
        v.offset, field,
        absl::StrCat("has ", v.elements.size(), " bases; at most ", kMaxBasesPerDim,
                     " are supported (a dim of size 2^", kMaxBasesPerDim, ")"));
  }
  std::vector<std::vector<int32_t>> out;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    const Value& b = v.elements[i];
    if (b.kind != Value::Kind::kArray) {
      return Error(b.offset, field,
                   absl::StrCat("expected basis ", i, " to be an array of integers, got ",
                                DescribeValue(b)));
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> basis, IntArray(b, field));
    for (size_t j = 0; j < basis.size(); ++j) {
      if (basis[j] >= kMaxBasisEntry) {
        return Error(
            b.elements[j].offset, field,
            absl::StrCat("basis entry ", basis[j], " is too large (must be below 2^30)"));
      }
    }
    if (basis.empty()) {
      return Error(
          b.offset, field,
          absl::StrCat("basis ", i, " is [], but a basis has one entry per tensor dim"));
    }
    if (*rank < 0) {
      *rank = static_cast<int>(basis.size());
      *rank_origin = absl::StrCat(field, "[", i, "]");
    }
    if (*rank >= 0 && static_cast<int>(basis.size()) != *rank) {
      return Error(b.offset, field,
                   absl::StrCat("basis ", FormatArray(basis), " has ", basis.size(),
                                " entries, but the layout has rank ", *rank, " (from ",
                                *rank_origin, ")"));
    }
    out.push_back(std::move(basis));
  }
  return out;
}

absl::StatusOr<EncodingPtr> Fields::Attribute(const Value& v,
                                              absl::string_view field) const {
  if (v.kind != Value::Kind::kEncoding) {
    return Error(
        v.offset, field,
        absl::StrCat("expected a layout attribute (#ttg.<...> or an #alias), got ",
                     DescribeValue(v)));
  }
  return v.encoding;
}

absl::Status Fields::Permutation(const Value& v, absl::string_view field,
                                 const std::vector<int32_t>& order) const {
  std::vector<bool> seen(order.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    const int32_t d = order[i];
    if (d >= static_cast<int32_t>(order.size())) {
      return Error(v.elements[i].offset, field,
                   absl::StrCat(FormatArray(order), " is not a permutation of 0..",
                                order.size() - 1, ": ", d, " is out of range for rank ",
                                order.size()));
    }
    if (seen[d]) {
      return Error(v.elements[i].offset, field,
                   absl::StrCat(FormatArray(order), " is not a permutation of 0..",
                                order.size() - 1, ": ", d, " appears twice"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status Fields::Rank(absl::string_view field, size_t size, size_t rank,
                          absl::string_view rank_origin) const {
  if (size == rank) return absl::OkStatus();
  const Entry* e = Find(field);
  return Error(e ? e->key_offset : attr_offset_, field,
               absl::StrCat("has ", size, " entries, but ", rank_origin, " has ", rank,
                            "; the arrays must all have the same rank"));
}

absl::StatusOr<CgaBases> Fields::Cga(int rank) const {
  const Entry* e = Find("CGALayout");
  if (e == nullptr) return CgaBases{};
  const Value& v = e->value;
  if (v.kind != Value::Kind::kArray) {
    return Error(v.offset, "CGALayout",
                 absl::StrCat("expected an array of block bases like [[1, 0]], got ",
                              DescribeValue(v)));
  }
  if (v.elements.size() > static_cast<size_t>(kMaxBasesPerDim)) {
    return Error(v.offset, "CGALayout",
                 absl::StrCat("has more than ", kMaxBasesPerDim, " bases"));
  }
  CgaBases bases;
  for (const Value& b : v.elements) {
    if (b.kind != Value::Kind::kArray) {
      return Error(b.offset, "CGALayout",
                   absl::StrCat("expected each entry to be an array of ", rank,
                                " integers, got ", DescribeValue(b)));
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> basis, IntArray(b, "CGALayout"));
    if (static_cast<int>(basis.size()) != rank) {
      return Error(b.offset, "CGALayout",
                   absl::StrCat("entry ", FormatArray(basis), " has ", basis.size(),
                                " entries, but the layout has rank ", rank));
    }
    for (size_t j = 0; j < basis.size(); ++j) {
      if (basis[j] >= kMaxBasisEntry) {
        return Error(
            b.elements[j].offset, "CGALayout",
            absl::StrCat("entry ", basis[j], " is too large (must be below 2^30)"));
      }
    }
    bases.push_back(std::move(basis));
  }
  std::vector<int32_t> sizes = InferOutSizes(bases, rank);
  if (F2Rank(bases, sizes) != TotalLog2(sizes)) {
    return Error(
        e->key_offset, "CGALayout",
        absl::StrCat("the block bases ", FormatBases(bases),
                     " are not surjective onto the CTA-tile grid ", FormatArray(sizes),
                     " (each tile must be held by some CTA)"));
  }
  return bases;
}

std::map<std::string, std::string> Fields::PositionMap() const {
  std::map<std::string, std::string> m;
  m[""] = parser_->PositionAt(attr_offset_);
  for (const Entry& e : *entries_) m[e.key] = parser_->PositionAt(e.key_offset);
  return m;
}

EncodingPtr MakeEncoding(
    std::variant<BlockedEncoding, SliceEncoding, LinearEncoding, NvidiaMmaEncoding,
                 DotOperandEncoding, AmdMfmaEncoding, AmdWmmaEncoding,
                 SwizzledSharedEncoding, NvmmaSharedEncoding, PaddedSharedEncoding,
                 SharedLinearEncoding>
        kind,
    std::map<std::string, std::string> positions) {
  auto e = std::make_shared<Encoding>();
  e->kind = std::move(kind);
  e->positions = std::move(positions);
  return e;
}

// ---- Build functions (one per attribute kind) -----------------------------------------

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
absl::Status CheckOneDimPerBasis(const Fields& f, const Value& v, absl::string_view field,
                                 const std::vector<std::vector<int32_t>>& bases,
                                 absl::string_view why) {
  for (size_t i = 0; i < bases.size(); ++i) {
    std::vector<int> moved;
    for (size_t d = 0; d < bases[i].size(); ++d) {
      if (bases[i][d] != 0) moved.push_back(static_cast<int>(d));
    }
    if (moved.size() > 1) {
      return f.Error(
          v.elements[i].offset, field,
          absl::StrCat("basis ", FormatArray(bases[i]), " moves ", moved.size(),
                       " dims (dim", moved[0], " and dim", moved[1], "); ", why));
    }
  }
  return absl::OkStatus();
}

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
    if (rank != 2) {
      return f.Error(
          f.Find("warpsPerCTA")->key_offset, "warpsPerCTA",
          absl::StrCat("has ", rank, " entries; a Hopper (v3) mma layout has rank 2"));
    }
    const auto& s = m.instr_shape;
    const bool ok = s.size() == 3 && s[0] == 16 && s[1] >= 8 && s[1] <= 256 &&
                    IsPowerOf2(s[1]) && (s[2] == 8 || s[2] == 16 || s[2] == 32);
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
  if (d.k_width != 0 && !IsPowerOf2(d.k_width)) {
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
  if (!IsPowerOf2(n.element_bit_width)) {
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

// ---- Parser ---------------------------------------------------------------------------

absl::StatusOr<Token> Parser::Expect(TokenKind kind, absl::string_view what,
                                     absl::string_view context) {
  Token t = lexer_.Next();
  if (t.kind != kind) {
    return ErrorAt(t.offset,
                   absl::StrCat(context, context.empty() ? "" : ": ", "expected ", what,
                                ", got ", attr::Describe(t)));
  }
  return t;
}

absl::StatusOr<Value> Parser::ParseInteger(const Token& t) {
  Value v;
  v.kind = Value::Kind::kInteger;
  v.offset = t.offset;
  v.text = std::string(t.text);
  absl::string_view digits = t.text;
  const bool negative = absl::ConsumePrefix(&digits, "-");
  const bool hex = absl::ConsumePrefix(&digits, "0x");
  constexpr int64_t kSaturate = int64_t{1} << 62;
  int64_t magnitude = 0;
  for (char c : digits) {
    int d = c >= '0' && c <= '9' ? c - '0'
                                 : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10);
    const int base = hex ? 16 : 10;
    magnitude = magnitude > (kSaturate - d) / base ? kSaturate : magnitude * base + d;
  }
  v.integer = negative ? -magnitude : magnitude;
  v.fits_int32 = v.integer >= std::numeric_limits<int32_t>::min() &&
                 v.integer <= std::numeric_limits<int32_t>::max();
  // Optional type suffix: `4 : i32`.
  if (lexer_.Peek().kind == TokenKind::kColon) {
    size_t saved = lexer_.offset();
    Token colon = lexer_.Next();
    Token type = lexer_.Next();
    if (type.kind != TokenKind::kIdent) {
      // Not a type: leave the ':' for the caller (e.g. padded_shared's `128:+4`).
      lexer_.Seek(saved);
      return v;
    }
    absl::string_view name = type.text;
    bool is_signed = absl::ConsumePrefix(&name, "si");
    bool is_unsigned = !is_signed && absl::ConsumePrefix(&name, "ui");
    if (!is_signed && !is_unsigned && !absl::ConsumePrefix(&name, "i") &&
        name != "index") {
      return SyntaxError(type.offset,
                         absl::StrCat("expected an integer type like i32 after ':', "
                                      "got '",
                                      type.text, "'"));
    }
    int width = 64;
    if (name != "index") {
      width = 0;
      for (char c : name) {
        if (c < '0' || c > '9' || width > 1000) {
          return SyntaxError(type.offset,
                             absl::StrCat("'", type.text, "' is not an integer type"));
        }
        width = width * 10 + (c - '0');
      }
      if (width < 1 || width > 64) {
        return SyntaxError(type.offset, absl::StrCat("integer type '", type.text,
                                                     "' is not supported (i1..i64)"));
      }
    }
    v.type_offset = colon.offset;
    if (is_unsigned && v.integer < 0) {
      return SyntaxError(
          t.offset, absl::StrCat(t.text, " is negative, but its type is ", type.text));
    }
    const int64_t lo = is_unsigned ? 0 : -(int64_t{1} << std::min(width - 1, 62));
    const int64_t hi = is_signed ? (int64_t{1} << std::min(width - 1, 62)) - 1
                                 : (int64_t{1} << std::min(width, 62)) - 1;
    if (v.integer < lo || v.integer > hi) {
      return SyntaxError(t.offset, absl::StrCat("integer ", t.text,
                                                " does not fit in type ", type.text));
    }
    if (width == 1 && !is_signed && !is_unsigned) {
      // `1 : i1` is MLIR's BoolAttr.
      v.kind = Value::Kind::kBool;
      v.boolean = v.integer != 0;
    }
  }
  return v;
}

absl::StatusOr<Value> Parser::ParseValue(int depth) {
  Token t = lexer_.Peek();
  if (depth > kMaxDepth) {
    return SyntaxError(
        t.offset, absl::StrCat("nesting is too deep (more than ", kMaxDepth, " levels)"));
  }
  Value v;
  v.offset = t.offset;
  switch (t.kind) {
    case TokenKind::kLSquare: {
      lexer_.Next();
      v.kind = Value::Kind::kArray;
      if (lexer_.Peek().kind == TokenKind::kRSquare) {
        lexer_.Next();
        return v;
      }
      while (true) {
        ASSIGN_OR_RETURN(Value e, ParseValue(depth + 1));
        v.elements.push_back(std::move(e));
        Token sep = lexer_.Next();
        if (sep.kind == TokenKind::kRSquare) return v;
        if (sep.kind != TokenKind::kComma) {
          return SyntaxError(
              sep.offset,
              absl::StrCat("expected ',' or ']' in the array that starts "
                           "at ",
                           PositionAt(t.offset), ", got ", attr::Describe(sep)));
        }
      }
    }
    case TokenKind::kLBrace:
      return ParseDict(depth);
    case TokenKind::kInteger:
      lexer_.Next();
      return ParseInteger(t);
    case TokenKind::kFloat:
      return SyntaxError(t.offset,
                         absl::StrCat("expected an integer, got the float ", t.text));
    case TokenKind::kString:
      lexer_.Next();
      v.kind = Value::Kind::kString;
      v.text = std::string(t.text.substr(1, t.text.size() - 2));
      return v;
    case TokenKind::kIdent:
      if (t.text == "true" || t.text == "false") {
        lexer_.Next();
        v.kind = Value::Kind::kBool;
        v.boolean = t.text == "true";
        v.text = std::string(t.text);
        return v;
      }
      return SyntaxError(t.offset,
                         absl::StrCat("expected a value (an integer, [array], true/false "
                                      "or #attribute), got '",
                                      t.text, "'"));
    case TokenKind::kHashIdent: {
      ASSIGN_OR_RETURN(v.encoding, ParseAttribute(depth + 1));
      v.kind = Value::Kind::kEncoding;
      v.encoding_name = std::string(t.text);
      return v;
    }
    default:
      return SyntaxError(t.offset,
                         absl::StrCat("expected a value, got ", attr::Describe(t)));
  }
}

absl::StatusOr<Value> Parser::ParseDict(int depth) {
  Value v;
  v.kind = Value::Kind::kDict;
  ASSIGN_OR_RETURN(Token open, Expect(TokenKind::kLBrace, "'{'", ""));
  v.offset = open.offset;
  if (lexer_.Peek().kind == TokenKind::kRBrace) {
    lexer_.Next();
    return v;
  }
  while (true) {
    Token key = lexer_.Next();
    Entry e;
    e.key_offset = key.offset;
    if (key.kind == TokenKind::kIdent) {
      e.key = std::string(key.text);
    } else if (key.kind == TokenKind::kString) {
      e.key = std::string(key.text.substr(1, key.text.size() - 2));
    } else {
      return SyntaxError(
          key.offset,
          absl::StrCat("expected a key (like sizePerThread) in the dictionary that "
                       "starts at ",
                       PositionAt(open.offset), ", got ", attr::Describe(key)));
    }
    for (const Entry& prev : v.entries) {
      if (prev.key == e.key) {
        return SyntaxError(key.offset, absl::StrCat("duplicate key '", e.key,
                                                    "' in the dictionary (first at ",
                                                    PositionAt(prev.key_offset), ")"));
      }
    }
    if (lexer_.Peek().kind == TokenKind::kEqual) {
      lexer_.Next();
      Context key_context(this, /*is_attribute=*/false, e.key);
      ASSIGN_OR_RETURN(e.value, ParseValue(depth + 1));
    } else {
      e.value.kind = Value::Kind::kUnit;
      e.value.offset = key.offset;
    }
    v.entries.push_back(std::move(e));
    Token sep = lexer_.Next();
    if (sep.kind == TokenKind::kRBrace) return v;
    if (sep.kind != TokenKind::kComma) {
      return SyntaxError(
          sep.offset, absl::StrCat("expected ',' or '}' after the value of '",
                                   v.entries.back().key, "', got ", attr::Describe(sep)));
    }
  }
}

absl::Status Parser::SkipValue() {
  int depth = 0;
  int angle = 0;
  while (true) {
    Token t = lexer_.Peek();
    switch (t.kind) {
      case TokenKind::kEof:
        return ErrorAt(t.offset, "unexpected end of input inside the module attributes");
      case TokenKind::kLBrace:
      case TokenKind::kLSquare:
      case TokenKind::kLParen:
        ++depth;
        break;
      case TokenKind::kRBrace:
      case TokenKind::kRSquare:
      case TokenKind::kRParen:
        if (depth == 0 && angle == 0) return absl::OkStatus();
        --depth;
        if (depth < 0)
          return ErrorAt(t.offset, absl::StrCat("unbalanced ", attr::Describe(t)));
        break;
      case TokenKind::kLess:
        ++angle;
        break;
      case TokenKind::kGreater:
        if (angle > 0) --angle;
        break;
      case TokenKind::kComma:
        if (depth == 0 && angle == 0) return absl::OkStatus();
        break;
      default:
        break;
    }
    lexer_.Next();
  }
}

absl::StatusOr<EncodingPtr> Parser::ParseAttribute(int depth) {
  Token t = lexer_.Next();
  if (depth > kMaxDepth) {
    return ErrorAt(t.offset, absl::StrCat("attributes are nested too deeply (more than ",
                                          kMaxDepth, " levels)"));
  }
  if (t.kind == TokenKind::kEof) {
    return ErrorAt(
        t.offset,
        "expected a layout attribute (#ttg.<name><{...}> or an #alias), got end of "
        "input");
  }
  if (t.kind != TokenKind::kHashIdent) {
    return ErrorAt(t.offset,
                   absl::StrCat("expected a layout attribute (#ttg.<name><{...}> or "
                                "an #alias), got ",
                                attr::Describe(t)));
  }
  const absl::string_view name = t.text;
  const size_t dot = name.find('.');
  if (dot == absl::string_view::npos) {
    // An alias such as #blocked.
    Token next = lexer_.Peek();
    if (next.kind == TokenKind::kLess && next.offset == t.end()) {
      return ErrorAt(t.offset, absl::StrCat(name,
                                            ": an alias takes no parameters; did you "
                                            "mean #ttg.",
                                            name.substr(1), "<...>?"));
    }
    if (aliases_ == nullptr) {
      return ErrorAt(t.offset, absl::StrCat(name,
                                            ": undefined alias (no TTGIR definitions "
                                            "were given; write the attribute inline or "
                                            "define ",
                                            name, " = #ttg.<...>)"));
    }
    auto it = aliases_->aliases.find(std::string(name));
    if (it == aliases_->aliases.end()) {
      std::vector<std::string> known;
      for (const auto& [alias, unused] : aliases_->aliases) known.push_back(alias);
      return ErrorAt(
          t.offset,
          absl::StrCat(
              name, ": undefined alias",
              known.empty()
                  ? std::string(" (no aliases are defined)")
                  : absl::StrCat(" (defined: ", absl::StrJoin(known, ", "), ")")));
    }
    return it->second;
  }
  const absl::string_view dialect = name.substr(1, dot - 1);
  const absl::string_view mnemonic = name.substr(dot + 1);
  if (dialect == "triton_gpu") {
    return ErrorAt(t.offset,
                   absl::StrCat(name,
                                ": the dialect was renamed to #ttg. (late 2024); "
                                "Triton 3.6 accepts #ttg.",
                                mnemonic));
  }
  if (dialect != "ttg") {
    return ErrorAt(t.offset, absl::StrCat(name,
                                          ": not a TritonGPU layout attribute; expected "
                                          "one of ",
                                          KnownEncodingList()));
  }
  if (std::find(std::begin(kKnownMnemonics), std::end(kKnownMnemonics), mnemonic) ==
      std::end(kKnownMnemonics)) {
    std::string hint;
    if (mnemonic == "shared") {
      hint =
          " (#ttg.shared was split into #ttg.swizzled_shared and #ttg.nvmma_shared in "
          "early 2025)";
    } else if (mnemonic == "shared_memory") {
      hint = " (#ttg.shared_memory is a memory space, not a layout)";
    } else if (mnemonic == "mma" || mnemonic == "mfma" || mnemonic == "wmma") {
      hint = " (the MMA layouts are #ttg.nvidia_mma, #ttg.amd_mfma and #ttg.amd_wmma)";
    }
    return ErrorAt(t.offset, absl::StrCat(name, ": unknown layout encoding", hint,
                                          "; known: ", KnownEncodingList()));
  }
  Token less = lexer_.Next();
  if (less.kind != TokenKind::kLess) {
    return ErrorAt(less.offset, absl::StrCat(name, ": expected '<' after ", name,
                                             ", got ", attr::Describe(less)));
  }
  if (less.offset != t.end()) {
    return ErrorAt(less.offset, absl::StrCat(name, ": '<' must follow ", name,
                                             " without a space (MLIR reads `", name,
                                             " <` as a bare attribute)"));
  }
  if (mnemonic == "padded_shared") return ParsePaddedShared(t, depth);
  if (mnemonic == "shared_linear") return ParseSharedLinear(t, depth);
  return ParseDictAttribute(t, mnemonic, depth);
}

absl::StatusOr<EncodingPtr> Parser::ParseDictAttribute(const Token& name,
                                                       absl::string_view mnemonic,
                                                       int depth) {
  const std::string attr_name(name.text);
  if (lexer_.Peek().kind != TokenKind::kLBrace) {
    Token t = lexer_.Peek();
    return ErrorAt(t.offset, absl::StrCat(attr_name, ": expected '{' after '<', got ",
                                          attr::Describe(t)));
  }
  Value dict;
  {
    Context attr_context(this, /*is_attribute=*/true, attr_name);
    ASSIGN_OR_RETURN(dict, ParseDict(depth));
  }
  Token close = lexer_.Next();
  if (close.kind != TokenKind::kGreater) {
    return ErrorAt(close.offset,
                   absl::StrCat(attr_name, ": expected '>' to close ", attr_name,
                                "<{...}, got ", attr::Describe(close)));
  }
  Fields f(this, attr_name, name.offset, &dict.entries);
  if (mnemonic == "blocked") return BuildBlocked(f);
  if (mnemonic == "slice") return BuildSlice(f);
  if (mnemonic == "linear") return BuildLinear(f);
  if (mnemonic == "nvidia_mma") return BuildNvidiaMma(f);
  if (mnemonic == "dot_op") return BuildDotOperand(f);
  if (mnemonic == "amd_mfma") return BuildAmdMfma(f);
  if (mnemonic == "amd_wmma") return BuildAmdWmma(f);
  if (mnemonic == "swizzled_shared")
    return BuildSwizzledShared(f, /*amd_rotating=*/false);
  if (mnemonic == "amd_rotating_shared")
    return BuildSwizzledShared(f, /*amd_rotating=*/true);
  if (mnemonic == "nvmma_shared") return BuildNvmmaShared(f);
  return ErrorAt(name.offset, absl::StrCat(attr_name, ": internal: no builder"));
}

absl::StatusOr<EncodingPtr> Parser::ParsePaddedShared(const Token& name, int depth) {
  const std::string attr_name(name.text);
  ASSIGN_OR_RETURN(Token open, Expect(TokenKind::kLSquare,
                                      "'[' starting the interval:+padding "
                                      "pairs",
                                      attr_name));
  struct Pair {
    Value interval, padding;
  };
  std::vector<Pair> pairs;
  if (lexer_.Peek().kind == TokenKind::kRSquare) {
    return ErrorAt(lexer_.Peek().offset,
                   absl::StrCat(attr_name,
                                ": needs at least one interval:+padding pair, like "
                                "[128:+4]"));
  }
  while (true) {
    Pair p;
    Token it = lexer_.Next();
    if (it.kind != TokenKind::kInteger) {
      return ErrorAt(it.offset, absl::StrCat(attr_name,
                                             ": expected an interval (an integer, as "
                                             "in 128:+4), got ",
                                             attr::Describe(it)));
    }
    ASSIGN_OR_RETURN(p.interval, ParseInteger(it));
    RETURN_IF_ERROR(
        Expect(TokenKind::kColon, "':' between interval and padding (128:+4)", attr_name)
            .status());
    RETURN_IF_ERROR(
        Expect(TokenKind::kPlus, "'+' before the padding (128:+4)", attr_name).status());
    Token pad = lexer_.Next();
    if (pad.kind != TokenKind::kInteger) {
      return ErrorAt(pad.offset, absl::StrCat(attr_name,
                                              ": expected a padding (an integer, as "
                                              "in 128:+4), got ",
                                              attr::Describe(pad)));
    }
    ASSIGN_OR_RETURN(p.padding, ParseInteger(pad));
    pairs.push_back(std::move(p));
    Token sep = lexer_.Next();
    if (sep.kind == TokenKind::kRSquare) break;
    if (sep.kind != TokenKind::kComma) {
      return ErrorAt(sep.offset, absl::StrCat(attr_name,
                                              ": expected ',' or ']' after a "
                                              "padding, got ",
                                              attr::Describe(sep)));
    }
  }
  if (lexer_.Peek().kind != TokenKind::kLBrace) {
    Token t = lexer_.Peek();
    return ErrorAt(t.offset,
                   absl::StrCat(attr_name,
                                ": expected '{' with {order, shape} or {offset, "
                                "block} after the pairs, got ",
                                attr::Describe(t)));
  }
  Value dict;
  {
    Context attr_context(this, /*is_attribute=*/true, attr_name);
    ASSIGN_OR_RETURN(dict, ParseDict(depth));
  }
  Token close = lexer_.Next();
  if (close.kind != TokenKind::kGreater) {
    return ErrorAt(close.offset,
                   absl::StrCat(attr_name, ": expected '>' to close ", attr_name,
                                "<[...] {...}, got ", attr::Describe(close)));
  }
  (void)open;

  Fields f(this, attr_name, name.offset, &dict.entries);
  PaddedSharedEncoding p;
  std::set<int32_t> intervals;
  for (const Pair& pair : pairs) {
    ASSIGN_OR_RETURN(int32_t interval, f.Int(pair.interval, "interval"));
    ASSIGN_OR_RETURN(int32_t padding, f.Int(pair.padding, "padding"));
    if (!IsPowerOf2(interval)) {
      return f.Error(pair.interval.offset, "interval",
                     absl::StrCat(interval, " is not a power of two"));
    }
    if (!IsPowerOf2(padding)) {
      return f.Error(pair.padding.offset, "padding",
                     absl::StrCat(padding, " is not a power of two"));
    }
    if (!intervals.insert(interval).second) {
      return f.Error(
          pair.interval.offset, "interval",
          absl::StrCat(interval, " appears twice; intervals must be distinct"));
    }
    p.interval_padding.emplace_back(interval, padding);
  }

  const bool long_form = f.Find("offset") != nullptr || f.Find("block") != nullptr;
  if (long_form) {
    ASSIGN_OR_RETURN(SharedBases s, ParseSharedBases(f, /*block_optional=*/false));
    // Each basis: at most one non-zero entry, a power of two (no swizzling).
    for (absl::string_view d : {"offset", "block"}) {
      const Value& v = f.Find(d)->value;
      const auto& bases = d == "offset" ? s.offset : s.block;
      RETURN_IF_ERROR(CheckOneDimPerBasis(
          f, v, d, bases, "each basis of a #ttg.padded_shared may move at most one dim"));
      for (size_t i = 0; i < bases.size(); ++i) {
        for (int32_t x : bases[i]) {
          if (x != 0 && !IsPowerOf2(x)) {
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
    ASSIGN_OR_RETURN(p.linear, MakeSharedLayout(f, std::move(s)));
  } else {
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
    for (int32_t s : shape) total += Log2(s);
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
    p.linear = *std::move(layout);
  }
  return MakeEncoding(std::move(p), f.PositionMap());
}

absl::StatusOr<EncodingPtr> Parser::ParseSharedLinear(const Token& name, int depth) {
  const std::string attr_name(name.text);
  if (lexer_.Peek().kind != TokenKind::kLBrace) {
    Token t = lexer_.Peek();
    return ErrorAt(t.offset, absl::StrCat(attr_name, ": expected '{' after '<', got ",
                                          attr::Describe(t)));
  }
  Value dict;
  {
    Context attr_context(this, /*is_attribute=*/true, attr_name);
    ASSIGN_OR_RETURN(dict, ParseDict(depth));
  }
  Fields f(this, attr_name, name.offset, &dict.entries);
  if (const Entry* a = f.Find("alignment")) {
    return f.Error(
        a->key_offset, "alignment",
        "must be written outside the braces: #ttg.shared_linear<{offset = [...]}, "
        "alignment = 16>");
  }
  // `, alignment = A>`
  Token comma = lexer_.Next();
  if (comma.kind != TokenKind::kComma) {
    return ErrorAt(comma.offset, absl::StrCat(attr_name,
                                              ": expected ', alignment = <int>' after "
                                              "the bases, got ",
                                              attr::Describe(comma)));
  }
  Token key = lexer_.Next();
  if (key.kind != TokenKind::kIdent || key.text != "alignment") {
    return ErrorAt(key.offset, absl::StrCat(attr_name, ": expected 'alignment', got ",
                                            attr::Describe(key)));
  }
  RETURN_IF_ERROR(
      Expect(TokenKind::kEqual, "'='", absl::StrCat(attr_name, ": alignment")).status());
  Token value = lexer_.Next();
  if (value.kind != TokenKind::kInteger) {
    return ErrorAt(value.offset,
                   absl::StrCat(attr_name, ": alignment: expected an integer, got ",
                                attr::Describe(value)));
  }
  Value align_v;
  align_v.kind = Value::Kind::kInteger;
  {
    // Triton reads a plain integer here (no `: i32`), so do not take a type suffix.
    Lexer saved = lexer_;
    ASSIGN_OR_RETURN(align_v, ParseInteger(value));
    if (lexer_.offset() != saved.offset()) {
      return ErrorAt(saved.Peek().offset,
                     absl::StrCat(attr_name,
                                  ": alignment: a type suffix is not accepted here "
                                  "(Triton reads a plain integer)"));
    }
  }
  Token close = lexer_.Next();
  if (close.kind != TokenKind::kGreater) {
    return ErrorAt(close.offset,
                   absl::StrCat(attr_name, ": expected '>' to close ", attr_name,
                                "<{...}, alignment = ...>, got ", attr::Describe(close)));
  }
  SharedLinearEncoding s;
  ASSIGN_OR_RETURN(SharedBases bases, ParseSharedBases(f, /*block_optional=*/true));
  ASSIGN_OR_RETURN(s.alignment, f.Int(align_v, "alignment"));
  if (!IsPowerOf2(s.alignment)) {
    return f.Error(align_v.offset, "alignment",
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
  positions["alignment"] = PositionAt(key.offset);
  return MakeEncoding(std::move(s), std::move(positions));
}

// ---- Module attribute checks
// -----------------------------------------------------------

absl::Status ModuleError(const Encoding& e, absl::string_view field,
                         absl::string_view what) {
  std::string pos = e.PositionOf(field);
  return absl::InvalidArgumentError(absl::StrCat(pos, pos.empty() ? "" : ": ",
                                                 KindName(e), ": ", field,
                                                 field.empty() ? "" : ": ", what));
}

int64_t Product(const std::vector<int32_t>& v) {
  int64_t p = 1;
  for (int32_t x : v) {
    p *= x;
    if (p > (int64_t{1} << 40)) p = int64_t{1} << 40;
  }
  return p;
}

std::string Plural(int64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

absl::Status CheckWarps(const Encoding& e, const std::vector<int32_t>& warps,
                        const ModuleInfo& m) {
  if (!m.num_warps) return absl::OkStatus();
  const int64_t p = Product(warps);
  if (p != *m.num_warps) {
    return ModuleError(e, "warpsPerCTA",
                       absl::StrCat("product is ", p, ", but the module has ",
                                    Plural(*m.num_warps, "warp", "warps"),
                                    " (ttg.num-warps = ", *m.num_warps, ")"));
  }
  return absl::OkStatus();
}

// The number of block bases (CGALayout entries or `block` in-dim bases) must be
// log2(num-ctas).
absl::Status CheckCtas(const Encoding& e, absl::string_view field, size_t num_bases,
                       const ModuleInfo& m) {
  if (!m.num_ctas) return absl::OkStatus();
  const int64_t ctas = int64_t{1} << std::min<size_t>(num_bases, 40);
  if (ctas != *m.num_ctas) {
    return ModuleError(
        e, field,
        absl::StrCat(
            "has ", Plural(static_cast<int64_t>(num_bases), "block basis", "block bases"),
            " (", Plural(ctas, "CTA", "CTAs"), "), but the module has ",
            Plural(*m.num_ctas, "CTA", "CTAs"), " (ttg.num-ctas = ", *m.num_ctas, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckLanesOfMma(const Encoding& e, int32_t needed, absl::string_view what,
                             const ModuleInfo& m) {
  if (!m.threads_per_warp || *m.threads_per_warp == needed) return absl::OkStatus();
  return ModuleError(
      e, "",
      absl::StrCat(what, " needs ", needed, " threads per warp, but the module has ",
                   *m.threads_per_warp, " (ttg.threads-per-warp = ", *m.threads_per_warp,
                   ")"));
}

size_t NumBases(const LinearLayout& l, absl::string_view dim) {
  for (const auto& [name, bases] : l.bases()) {
    if (name == dim) return bases.size();
  }
  return 0;
}

absl::Status CheckLinearDim(const Encoding& e, const LinearLayout& l,
                            absl::string_view dim, std::optional<int32_t> expected,
                            absl::string_view unit_one, absl::string_view unit_many,
                            absl::string_view module_key) {
  if (!expected) return absl::OkStatus();
  const size_t n = NumBases(l, dim);
  const int64_t size = int64_t{1} << std::min<size_t>(n, 40);
  if (size != *expected) {
    return ModuleError(
        e, dim,
        absl::StrCat("has ", Plural(static_cast<int64_t>(n), "basis", "bases"), " (",
                     Plural(size, unit_one, unit_many), "), but the module has ",
                     Plural(*expected, unit_one, unit_many), " (", module_key, " = ",
                     *expected, ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckModule(const Encoding& e, const ModuleInfo& m, int depth) {
  if (depth > kMaxDepth) return absl::OkStatus();
  if (const auto* b = std::get_if<BlockedEncoding>(&e.kind)) {
    if (m.threads_per_warp) {
      const int64_t p = Product(b->threads_per_warp);
      if (p != *m.threads_per_warp) {
        return ModuleError(
            e, "threadsPerWarp",
            absl::StrCat("product is ", p, ", but a warp has ", *m.threads_per_warp,
                         " threads (ttg.threads-per-warp = ", *m.threads_per_warp, ")"));
      }
    }
    RETURN_IF_ERROR(CheckWarps(e, b->warps_per_cta, m));
    return CheckCtas(e, "CGALayout", b->cga.size(), m);
  }
  if (const auto* s = std::get_if<SliceEncoding>(&e.kind)) {
    return CheckModule(*s->parent, m, depth + 1);
  }
  if (const auto* d = std::get_if<DotOperandEncoding>(&e.kind)) {
    return CheckModule(*d->parent, m, depth + 1);
  }
  if (const auto* l = std::get_if<LinearEncoding>(&e.kind)) {
    RETURN_IF_ERROR(CheckLinearDim(e, l->layout, "lane", m.threads_per_warp, "thread",
                                   "threads", "ttg.threads-per-warp"));
    RETURN_IF_ERROR(CheckLinearDim(e, l->layout, "warp", m.num_warps, "warp", "warps",
                                   "ttg.num-warps"));
    return CheckLinearDim(e, l->layout, "block", m.num_ctas, "CTA", "CTAs",
                          "ttg.num-ctas");
  }
  if (const auto* mma = std::get_if<NvidiaMmaEncoding>(&e.kind)) {
    RETURN_IF_ERROR(CheckLanesOfMma(e, 32, "NVIDIA MMA", m));
    RETURN_IF_ERROR(CheckWarps(e, mma->warps_per_cta, m));
    return CheckCtas(e, "CGALayout", mma->cga.size(), m);
  }
  if (const auto* mfma = std::get_if<AmdMfmaEncoding>(&e.kind)) {
    RETURN_IF_ERROR(CheckLanesOfMma(e, 64, "MFMA (CDNA wavefronts)", m));
    RETURN_IF_ERROR(CheckWarps(e, mfma->warps_per_cta, m));
    return CheckCtas(e, "CGALayout", mfma->cga.size(), m);
  }
  if (const auto* wmma = std::get_if<AmdWmmaEncoding>(&e.kind)) {
    RETURN_IF_ERROR(CheckLanesOfMma(e, 32, "WMMA (RDNA wave32)", m));
    RETURN_IF_ERROR(CheckWarps(e, wmma->warps_per_cta, m));
    return CheckCtas(e, "CGALayout", wmma->cga.size(), m);
  }
  if (const auto* s = std::get_if<SwizzledSharedEncoding>(&e.kind)) {
    return CheckCtas(e, "CGALayout", s->cga.size(), m);
  }
  if (const auto* n = std::get_if<NvmmaSharedEncoding>(&e.kind)) {
    return CheckCtas(e, "CGALayout", n->cga.size(), m);
  }
  if (const auto* p = std::get_if<PaddedSharedEncoding>(&e.kind)) {
    return CheckCtas(e, "block", NumBases(p->linear, "block"), m);
  }
  if (const auto* s = std::get_if<SharedLinearEncoding>(&e.kind)) {
    return CheckCtas(e, "block", NumBases(s->layout, "block"), m);
  }
  return absl::OkStatus();
}

// ---- TTGIR files
// -----------------------------------------------------------------------

bool IsBlank(absl::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') return true;
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

absl::Status ParseModuleAttributes(Parser& p, ModuleInfo* module) {
  Lexer& lex = p.lexer();
  ASSIGN_OR_RETURN(Token open, p.Expect(TokenKind::kLBrace, "'{'", "module attributes"));
  (void)open;
  if (lex.Peek().kind == TokenKind::kRBrace) {
    lex.Next();
    return absl::OkStatus();
  }
  while (true) {
    Token key = lex.Next();
    std::string name;
    if (key.kind == TokenKind::kIdent) {
      name = std::string(key.text);
    } else if (key.kind == TokenKind::kString) {
      name = std::string(key.text.substr(1, key.text.size() - 2));
    } else {
      return p.ErrorAt(key.offset, absl::StrCat("module attributes: expected a key, got ",
                                                attr::Describe(key)));
    }
    std::optional<int32_t>* target = nullptr;
    if (name == "ttg.num-warps") target = &module->num_warps;
    if (name == "ttg.threads-per-warp") target = &module->threads_per_warp;
    if (name == "ttg.num-ctas") target = &module->num_ctas;
    if (absl::StartsWith(name, "triton_gpu.")) {
      return p.ErrorAt(
          key.offset,
          absl::StrCat("module attribute \"", name,
                       "\": the dialect was renamed to ttg. (late 2024); Triton 3.6 "
                       "reads \"ttg.",
                       name.substr(std::string("triton_gpu.").size()), "\""));
    }
    if (lex.Peek().kind == TokenKind::kEqual) {
      lex.Next();
      if (target != nullptr) {
        ASSIGN_OR_RETURN(Value v, p.ParseValue(1));
        if (v.kind != Value::Kind::kInteger) {
          return p.ErrorAt(
              v.offset, absl::StrCat("module attribute \"", name,
                                     "\": expected an integer, got ", DescribeValue(v)));
        }
        if (v.integer <= 0 || !v.fits_int32) {
          return p.ErrorAt(v.offset,
                           absl::StrCat("module attribute \"", name, "\": ", v.text,
                                        " is not a positive 32-bit integer"));
        }
        *target = static_cast<int32_t>(v.integer);
      } else {
        RETURN_IF_ERROR(p.SkipValue());
      }
    } else if (target != nullptr) {
      return p.ErrorAt(key.offset, absl::StrCat("module attribute \"", name,
                                                "\": expected '= <integer> : i32'"));
    }
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kRBrace) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return p.ErrorAt(sep.offset,
                       absl::StrCat("module attributes: expected ',' or '}', got ",
                                    attr::Describe(sep)));
    }
  }
}

}  // namespace

// ---- Public API
// --------------------------------------------------------------------------

bool Encoding::IsShared() const {
  return std::holds_alternative<SwizzledSharedEncoding>(kind) ||
         std::holds_alternative<NvmmaSharedEncoding>(kind) ||
         std::holds_alternative<PaddedSharedEncoding>(kind) ||
         std::holds_alternative<SharedLinearEncoding>(kind);
}

int Encoding::Rank() const {
  struct Visitor {
    int operator()(const BlockedEncoding& b) const {
      return static_cast<int>(b.size_per_thread.size());
    }
    int operator()(const SliceEncoding& s) const {
      return s.parent ? s.parent->Rank() - 1 : 0;
    }
    int operator()(const LinearEncoding& l) const { return l.layout.num_out_dims(); }
    int operator()(const NvidiaMmaEncoding& m) const {
      return static_cast<int>(m.warps_per_cta.size());
    }
    int operator()(const DotOperandEncoding& d) const {
      return d.parent ? d.parent->Rank() : 0;
    }
    int operator()(const AmdMfmaEncoding& m) const {
      return static_cast<int>(m.warps_per_cta.size());
    }
    int operator()(const AmdWmmaEncoding& w) const {
      return static_cast<int>(w.warps_per_cta.size());
    }
    int operator()(const SwizzledSharedEncoding& s) const {
      return static_cast<int>(s.order.size());
    }
    int operator()(const NvmmaSharedEncoding& n) const { return n.rank; }
    int operator()(const PaddedSharedEncoding& p) const {
      return p.linear.num_out_dims();
    }
    int operator()(const SharedLinearEncoding& s) const {
      return s.layout.num_out_dims();
    }
  };
  return std::visit(Visitor{}, kind);
}

std::string Encoding::PositionOf(absl::string_view field) const {
  auto it = positions.find(std::string(field));
  if (it != positions.end()) return it->second;
  it = positions.find("");
  return it != positions.end() ? it->second : std::string();
}

absl::StatusOr<EncodingPtr> ParseEncoding(absl::string_view text,
                                          const SourceLocation& where,
                                          const TtgirFile* context) {
  Parser p(text, where, context);
  ASSIGN_OR_RETURN(EncodingPtr e, p.ParseAttribute(0));
  Token trailing = p.lexer().Next();
  if (trailing.kind != TokenKind::kEof) {
    return p.ErrorAt(trailing.offset, absl::StrCat("trailing text after the attribute: ",
                                                   attr::Describe(trailing),
                                                   " (one attribute per argument)"));
  }
  return e;
}

absl::Status CheckAgainstModule(const Encoding& encoding, const ModuleInfo& module) {
  return CheckModule(encoding, module, 0);
}

absl::StatusOr<TtgirFile> ParseTtgir(absl::string_view text,
                                     const SourceLocation& where) {
  TtgirFile file;
  Parser p(text, where, &file);
  Lexer& lex = p.lexer();
  bool module_seen = false;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == absl::string_view::npos) line_end = text.size();
    size_t i = line_start;
    while (i < line_end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    size_t next_line = line_end + 1;
    const absl::string_view line = text.substr(i, line_end - i);
    if (absl::StartsWith(line, "#")) {
      lex.Seek(i);
      Token name = lex.Next();
      const bool is_alias_def = name.kind == TokenKind::kHashIdent &&
                                name.text.find('.') == absl::string_view::npos &&
                                lex.Peek().kind == TokenKind::kEqual;
      if (is_alias_def) {
        lex.Next();  // '='
        Token rhs = lex.Peek();
        const bool ttg = rhs.kind == TokenKind::kHashIdent &&
                         (absl::StartsWith(rhs.text, "#ttg.") ||
                          absl::StartsWith(rhs.text, "#triton_gpu."));
        std::optional<EncodingPtr> defined;
        if (ttg && rhs.text != "#ttg.shared_memory") {
          ASSIGN_OR_RETURN(EncodingPtr e, p.ParseAttribute(0));
          defined = std::move(e);
        } else if (rhs.kind == TokenKind::kHashIdent &&
                   rhs.text.find('.') == absl::string_view::npos &&
                   file.aliases.count(std::string(rhs.text))) {
          lex.Next();
          defined = file.aliases[std::string(rhs.text)];
        }
        if (defined) {
          // Nothing but a comment may follow on the line where the attribute ends.
          size_t end = lex.offset();
          size_t end_line = text.find('\n', end);
          if (end_line == absl::string_view::npos) end_line = text.size();
          if (!IsBlank(text.substr(end, end_line - end))) {
            size_t k = end;
            while (k < end_line && (text[k] == ' ' || text[k] == '\t')) ++k;
            return p.ErrorAt(
                k, absl::StrCat("trailing text after the definition of ", name.text));
          }
          const std::string alias(name.text);
          if (file.aliases.count(alias)) {
            return p.ErrorAt(name.offset, absl::StrCat("redefinition of alias ", alias));
          }
          file.aliases[alias] = *std::move(defined);
          next_line = end_line + 1;
        }
      }
    } else if (!module_seen && absl::StartsWith(line, "module")) {
      lex.Seek(i);
      Token module_kw = lex.Next();
      if (module_kw.text == "module") {
        size_t k = lex.offset();
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
        if (k < text.size() && text[k] == '@') {  // module @name
          ++k;
          while (k < text.size() &&
                 (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_' ||
                  text[k] == '$' || text[k] == '.')) {
            ++k;
          }
          lex.Seek(k);
        }
        Token kw = lex.Next();
        if (kw.kind == TokenKind::kIdent && kw.text == "attributes") {
          module_seen = true;
          RETURN_IF_ERROR(ParseModuleAttributes(p, &file.module));
          size_t end_line = text.find('\n', lex.offset());
          next_line = end_line == absl::string_view::npos ? text.size() : end_line + 1;
        }
      }
    }
    line_start = next_line;
  }
  return file;
}

}  // namespace warpcheck::sim
