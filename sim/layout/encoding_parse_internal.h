// Internal to sim/layout's attribute parser (ParseEncoding, ParseTtgir): the pieces
// the parser's files share. Not for use outside encoding_*.cc.
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
// The files:
//   encoding_attr_syntax.cc         the generic reader (Parser: values, dictionaries,
//                                   attributes, aliases, padded_shared's and
//                                   shared_linear's special forms) and the Fields
//                                   accessors every builder uses
//   encoding_build_distributed.cc   blocked, slice, linear, nvidia_mma, dot_op,
//                                   amd_mfma, amd_wmma
//   encoding_build_shared.cc        swizzled_shared, amd_rotating_shared, nvmma_shared,
//                                   padded_shared, shared_linear
//   encoding_parse.cc               the public API, module cross-checks, TTGIR files
#ifndef WARPCHECK_SIM_LAYOUT_ENCODING_PARSE_INTERNAL_H_
#define WARPCHECK_SIM_LAYOUT_ENCODING_PARSE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/layout/attr_lexer.h"
#include "sim/layout/encoding.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout::encoding_parse {

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

// ---- Helpers for messages and bases (encoding_attr_syntax.cc)

std::string FormatArray(const std::vector<int32_t>& v);
std::string FormatBases(const std::vector<std::vector<int32_t>>& bases);
// Name of an encoding's attribute, for messages: "#ttg.blocked", ...
std::string KindName(const Encoding& e);

// Out sizes inferred as Triton does: the smallest power of two strictly greater than
// every entry of that dim (at least 1).
// Requires: entries in [0, 2^30).
std::vector<int32_t> InferOutSizes(const std::vector<std::vector<int32_t>>& bases,
                                   int rank);
// Ensures: the rank over F2 of the bases read as bit vectors (dim 0 = low bits).
// Requires: every basis has `sizes.size()` entries, each below its size (powers of
//           two); with more than 64 bits in all, at most 64 bases or one dim per basis.
int F2Rank(const std::vector<std::vector<int32_t>>& bases,
           const std::vector<int32_t>& sizes);
// Requires: every size is a power of two. Ensures: the sum of their log2.
int TotalLog2(const std::vector<int32_t>& sizes);

// ---- Generic MLIR attribute values

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


// "the integer 4", "an array", "the attribute #ttg.blocked", ... for messages.
std::string DescribeValue(const Value& v);

// ---- The reader and the fields of one attribute

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
  // The `{key = value, ...}` of attribute `attr_name`; a missing '{' is
  // "<attr_name>: expected <what>, got <token>".
  absl::StatusOr<Value> ParseAttributeDict(const std::string& attr_name,
                                           absl::string_view what, int depth);
  // The '>' that ends attribute `attr_name` written as `attr_name<form>`; otherwise
  // "<attr_name>: expected '>' to close <attr_name><form>, got <token>".
  absl::Status ExpectClose(const std::string& attr_name, absl::string_view form);
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


EncodingPtr MakeEncoding(
    std::variant<BlockedEncoding, SliceEncoding, LinearEncoding, NvidiaMmaEncoding,
                 DotOperandEncoding, AmdMfmaEncoding, AmdWmmaEncoding,
                 SwizzledSharedEncoding, NvmmaSharedEncoding, PaddedSharedEncoding,
                 SharedLinearEncoding>
        kind,
    std::map<std::string, std::string> positions);

// Error at the basis of `field` (the array `v`) that moves more than one dim.
absl::Status CheckOneDimPerBasis(const Fields& f, const Value& v, absl::string_view field,
                                 const std::vector<std::vector<int32_t>>& bases,
                                 absl::string_view why);

// ---- Builders: one per attribute kind, from the attribute's fields
//
// Where warpcheck is stricter than Triton 3.6 (Triton accepts the text but cannot lower
// it, silently changes it, or aborts on it), the message says what is needed:
//   * unknown keys are errors in every attribute (Triton ignores them in slice, linear,
//     nvidia_mma, amd_mfma, amd_wmma and the long form of padded_shared);
//   * integers must fit in int32 (Triton truncates 4294967300 to 4);
//   * nvidia_mma: versionMajor 2 or 3 only; instrShape required, [16, 8] / [1, 16, 8] for
//     v2 and [16, N, K] (N a power of two in 8..256, K in {8, 16, 32}) for v3; warps of
//     rank 2 or 3, powers of two (Triton 3.6 verifies none of this);
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

// encoding_build_distributed.cc
absl::StatusOr<EncodingPtr> BuildBlocked(Fields& f);
absl::StatusOr<EncodingPtr> BuildSlice(Fields& f);
absl::StatusOr<EncodingPtr> BuildLinear(Fields& f);
absl::StatusOr<EncodingPtr> BuildNvidiaMma(Fields& f);
absl::StatusOr<EncodingPtr> BuildDotOperand(Fields& f);
absl::StatusOr<EncodingPtr> BuildAmdMfma(Fields& f);
absl::StatusOr<EncodingPtr> BuildAmdWmma(Fields& f);

// encoding_build_shared.cc
absl::StatusOr<EncodingPtr> BuildSwizzledShared(Fields& f, bool amd_rotating);
absl::StatusOr<EncodingPtr> BuildNvmmaShared(Fields& f);
// One `interval:+padding` of #ttg.padded_shared<[...] {...}>, as read.
struct PaddingPair {
  Value interval, padding;
};
absl::StatusOr<EncodingPtr> BuildPaddedShared(Fields& f,
                                              const std::vector<PaddingPair>& pairs);
// `alignment` is the value written after the braces, `alignment_position` the
// position of its key.
absl::StatusOr<EncodingPtr> BuildSharedLinear(Fields& f, const Value& alignment,
                                              std::string alignment_position);

}  // namespace warpcheck::sim::layout::encoding_parse

#endif  // WARPCHECK_SIM_LAYOUT_ENCODING_PARSE_INTERNAL_H_
