// The generic reader of TTGIR layout attributes and the Fields accessors the builders
// use (see encoding_parse_internal.h for how the parser's files fit together).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
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
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "sim/base/bits.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"
#include "sim/layout/encoding.h"
#include "sim/layout/encoding_parse_internal.h"
#include "sim/layout/f2_matrix.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout::encoding_parse {
namespace {

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

}  // namespace

// ---- Helpers for messages and bases

std::string FormatArray(const std::vector<int32_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

std::string FormatBases(const std::vector<std::vector<int32_t>>& bases) {
  std::vector<std::string> parts;
  for (const auto& b : bases) parts.push_back(FormatArray(b));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

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

// ---- F2 rank of a set of basis vectors

std::vector<int32_t> InferOutSizes(const std::vector<std::vector<int32_t>>& bases,
                                   int rank) {
  std::vector<int32_t> sizes(rank, 1);
  for (const auto& b : bases) {
    for (int d = 0; d < rank; ++d) {
      sizes[d] = std::max<int32_t>(sizes[d], base::NextPowerOf2Above(b[d]));
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
  for (size_t d = 0; d < sizes.size(); ++d) shift[d + 1] = shift[d] + base::Log2(sizes[d]);
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
      rank += f2::Rank(std::move(rows), base::Log2(sizes[d]));
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
  for (int32_t s : sizes) total += base::Log2(s);
  return total;
}

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
  if (!base::IsPowerOf2(x)) {
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
    if (!base::IsPowerOf2(out[i])) {
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

absl::StatusOr<Value> Parser::ParseAttributeDict(const std::string& attr_name,
                                                 absl::string_view what, int depth) {
  if (lexer_.Peek().kind != TokenKind::kLBrace) {
    Token t = lexer_.Peek();
    return ErrorAt(t.offset,
                   absl::StrCat(attr_name, ": expected ", what, ", got ", attr::Describe(t)));
  }
  Context attr_context(this, /*is_attribute=*/true, attr_name);
  return ParseDict(depth);
}

absl::Status Parser::ExpectClose(const std::string& attr_name, absl::string_view form) {
  Token close = lexer_.Next();
  if (close.kind == TokenKind::kGreater) return absl::OkStatus();
  return ErrorAt(close.offset, absl::StrCat(attr_name, ": expected '>' to close ", attr_name,
                                            "<", form, ", got ", attr::Describe(close)));
}

absl::StatusOr<EncodingPtr> Parser::ParseDictAttribute(const Token& name,
                                                       absl::string_view mnemonic,
                                                       int depth) {
  const std::string attr_name(name.text);
  ASSIGN_OR_RETURN(Value dict, ParseAttributeDict(attr_name, "'{' after '<'", depth));
  RETURN_IF_ERROR(ExpectClose(attr_name, "{...}"));
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
  std::vector<PaddingPair> pairs;
  if (lexer_.Peek().kind == TokenKind::kRSquare) {
    return ErrorAt(lexer_.Peek().offset,
                   absl::StrCat(attr_name,
                                ": needs at least one interval:+padding pair, like "
                                "[128:+4]"));
  }
  while (true) {
    PaddingPair p;
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
  ASSIGN_OR_RETURN(
      Value dict,
      ParseAttributeDict(attr_name,
                         "'{' with {order, shape} or {offset, block} after the pairs",
                         depth));
  RETURN_IF_ERROR(ExpectClose(attr_name, "[...] {...}"));
  (void)open;

  Fields f(this, attr_name, name.offset, &dict.entries);
  return BuildPaddedShared(f, pairs);
}

absl::StatusOr<EncodingPtr> Parser::ParseSharedLinear(const Token& name, int depth) {
  const std::string attr_name(name.text);
  ASSIGN_OR_RETURN(Value dict, ParseAttributeDict(attr_name, "'{' after '<'", depth));
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
  RETURN_IF_ERROR(ExpectClose(attr_name, "{...}, alignment = ...>"));
  return BuildSharedLinear(f, align_v, PositionAt(key.offset));
}

}  // namespace warpcheck::sim::layout::encoding_parse
