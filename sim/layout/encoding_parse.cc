// Parsing of TTGIR layout attributes and files (ParseEncoding, ParseTtgir) and the
// module cross-checks (CheckAgainstModule). How attributes are read and checked, and
// where warpcheck is stricter than Triton: encoding_parse_internal.h.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_limit.h"
#include "sim/layout/attr_lexer.h"
#include "sim/layout/encoding.h"
#include "sim/layout/encoding_parse_internal.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {

using encoding_parse::DescribeValue;
using encoding_parse::KindName;
using encoding_parse::kMaxDepth;
using encoding_parse::Lexer;
using encoding_parse::Parser;
using encoding_parse::Token;
using encoding_parse::TokenKind;
using encoding_parse::Value;

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
  RETURN_IF_ERROR(base::CheckTextSize(text, where.source, kMaxTtgirBytes, "a TTGIR file"));
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

}  // namespace warpcheck::sim::layout

