// Families of shared layouts: names, ranges, parameters per encoding, and building one
// point (Instantiate) with sim/layout.
#include <algorithm>
#include <memory>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/base/bits.h"
#include "sim/base/status_macros.h"
#include "verify/layout/layout_prove.h"

namespace warpcheck::verify::layout {

namespace sl = ::warpcheck::sim::layout;
using sim::base::IsPowerOf2;

absl::string_view PropertyName(Property p) {
  switch (p) {
    case Property::kInjective: return "injective";
    case Property::kSurjective: return "surjective";
    case Property::kBijective: return "bijective";
    case Property::kBankConflictFree: return "bank-conflict-free";
  }
  return "?";
}

absl::string_view AccessName(Access a) {
  switch (a) {
    case Access::kNone: return "none";
    case Access::kV4: return "v4";
    case Access::kLdmatrix: return "ldmatrix";
    case Access::kStmatrix: return "stmatrix";
  }
  return "?";
}

absl::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kViolated: return "violated";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

absl::StatusOr<Property> ParseProperty(absl::string_view text) {
  for (Property p : {Property::kInjective, Property::kSurjective, Property::kBijective,
                     Property::kBankConflictFree}) {
    if (text == PropertyName(p)) return p;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--property: '", text,
      "' is not a property; expected injective, surjective, bijective or "
      "bank-conflict-free"));
}

absl::StatusOr<Access> ParseAccess(absl::string_view text) {
  for (Access a : {Access::kV4, Access::kLdmatrix, Access::kStmatrix}) {
    if (text == AccessName(a)) return a;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--access: '", text, "' is not an access; expected v4, ldmatrix or stmatrix"));
}

std::vector<int64_t> Range::Values() const {
  std::vector<int64_t> out;
  if (lo == hi) return {lo};
  if (lo == 0) out.push_back(0);
  for (int64_t v = std::max<int64_t>(lo, 1); v <= hi; v *= 2) out.push_back(v);
  return out;
}

std::string Range::ToString() const {
  return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "..", hi);
}

absl::StatusOr<Range> ParseRange(absl::string_view what, absl::string_view text,
                                 int64_t max, int64_t min) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, "..");
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": '", text, "' ", why));
  };
  if (parts.size() > 2) return bad("has more than one '..'; expected V or A..B");
  Range r;
  if (!absl::SimpleAtoi(parts[0], &r.lo) ||
      (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &r.hi))) {
    return bad("is not an integer or a range A..B of integers");
  }
  if (parts.size() == 1) r.hi = r.lo;
  if (r.lo < min || r.hi > max) {
    return bad(absl::StrCat("is outside [", min, ", ", max,
                            "], the values this parameter takes"));
  }
  if (r.lo > r.hi) return bad("is empty: the lower end is above the upper end");
  if (r.lo != r.hi && ((r.lo != 0 && !IsPowerOf2(r.lo)) || !IsPowerOf2(r.hi))) {
    return bad("has an end that is not a power of two, and a range A..B means the powers "
               "of two from A to B");
  }
  return r;
}

namespace {

const char* Mnemonic(const sl::Encoding& e) {
  if (const auto* s = std::get_if<sl::SwizzledSharedEncoding>(&e.kind)) {
    return s->amd_rotating ? "#ttg.amd_rotating_shared" : "#ttg.swizzled_shared";
  }
  if (std::holds_alternative<sl::NvmmaSharedEncoding>(e.kind)) return "#ttg.nvmma_shared";
  if (std::holds_alternative<sl::PaddedSharedEncoding>(e.kind)) return "#ttg.padded_shared";
  return "#ttg.shared_linear";
}

// The encoding's own parameters with the attribute's values.
std::vector<Param> EncodingParams(const sl::Encoding& e) {
  if (const auto* s = std::get_if<sl::SwizzledSharedEncoding>(&e.kind)) {
    return {{"vec", {s->vec, s->vec}},
            {"per-phase", {s->per_phase, s->per_phase}},
            {"max-phase", {s->max_phase, s->max_phase}}};
  }
  if (const auto* n = std::get_if<sl::NvmmaSharedEncoding>(&e.kind)) {
    return {{"swizzle-bytes", {n->swizzling_byte_width, n->swizzling_byte_width}}};
  }
  return {};
}

int64_t ParamValue(const std::vector<std::pair<std::string, int64_t>>& params,
                   absl::string_view name, int64_t otherwise) {
  for (const auto& [n, v] : params) {
    if (n == name) return v;
  }
  return otherwise;
}

}  // namespace

absl::StatusOr<Family> MakeFamily(sl::EncodingPtr encoding, const std::vector<Range>& shape,
                                  const std::vector<Param>& overrides, Property property) {
  if (!encoding->IsShared()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ATTR: ", sl::PrintEncoding(*encoding).substr(0, 24),
        "... is a distributed layout, and prove layout takes a shared encoding "
        "(swizzled_shared, amd_rotating_shared, nvmma_shared, padded_shared, "
        "shared_linear)"));
  }
  const int rank = encoding->Rank();
  if (static_cast<int>(shape.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shape: ", shape.size(), " dims given, but ", Mnemonic(*encoding),
                     " describes rank-", rank, " tensors"));
  }
  Family f;
  f.encoding = encoding;
  for (int d = 0; d < rank; ++d) f.params.push_back({absl::StrCat("dim", d), shape[d]});
  for (Param& p : EncodingParams(*encoding)) f.params.push_back(p);
  const auto* nvmma = std::get_if<sl::NvmmaSharedEncoding>(&encoding->kind);
  if (property == Property::kBankConflictFree || nvmma != nullptr) {
    const int64_t bits = nvmma != nullptr ? nvmma->element_bit_width : 16;
    f.params.push_back({"element-bits", {bits, bits}});
  }
  for (const Param& o : overrides) {
    auto it = std::find_if(f.params.begin(), f.params.end(),
                           [&](const Param& p) { return p.name == o.name; });
    if (it == f.params.end()) {
      std::vector<std::string> names;
      for (const Param& p : f.params) {
        if (!absl::StartsWith(p.name, "dim")) names.push_back(p.name);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "--", o.name, ": this family has no parameter ", o.name, " (", Mnemonic(*encoding),
          names.empty() ? " has none besides the shape"
                        : absl::StrCat(" for this property has ", absl::StrJoin(names, ", ")),
          o.name == "element-bits" ? "; element bits matter only to bank-conflict-free"
                                   : "",
          ")"));
    }
    it->range = o.range;
  }
  return f;
}

absl::StatusOr<Instance> Instantiate(const Family& family,
                                     const std::vector<int64_t>& values) {
  Instance in;
  for (size_t k = 0; k < family.params.size(); ++k) {
    in.params.emplace_back(family.params[k].name, values[k]);
    if (absl::StartsWith(family.params[k].name, "dim")) in.shape.push_back(values[k]);
  }
  auto e = std::make_shared<sl::Encoding>(*family.encoding);
  in.element_bits = static_cast<int>(ParamValue(in.params, "element-bits", 16));
  if (auto* s = std::get_if<sl::SwizzledSharedEncoding>(&e->kind)) {
    s->vec = static_cast<int32_t>(ParamValue(in.params, "vec", s->vec));
    s->per_phase = static_cast<int32_t>(ParamValue(in.params, "per-phase", s->per_phase));
    s->max_phase = static_cast<int32_t>(ParamValue(in.params, "max-phase", s->max_phase));
    in.fast_dim = s->order.empty() ? 0 : s->order[0];
  } else if (auto* n = std::get_if<sl::NvmmaSharedEncoding>(&e->kind)) {
    n->swizzling_byte_width =
        static_cast<int32_t>(ParamValue(in.params, "swizzle-bytes", n->swizzling_byte_width));
    n->element_bit_width = in.element_bits;
    in.fast_dim = n->transposed ? 0 : n->rank - 1;
  } else if (auto* p = std::get_if<sl::PaddedSharedEncoding>(&e->kind)) {
    for (const auto& [interval, pad] : p->interval_padding) {
      in.padding.emplace_back(interval, pad);
    }
  }
  in.encoding = e;
  ASSIGN_OR_RETURN(in.layout, sl::ToLinearLayout(*e, in.shape));
  if (!std::holds_alternative<sl::SwizzledSharedEncoding>(e->kind) &&
      !std::holds_alternative<sl::NvmmaSharedEncoding>(e->kind) &&
      in.layout.InDimSizeLog2("offset") > 0) {
    // padded_shared, shared_linear: the dim the first offset bit walks along.
    const sl::LinearLayout::Basis& b = in.layout.GetBasis("offset", 0);
    for (size_t d = 0; d < b.size(); ++d) {
      if (b[d] != 0) {
        in.fast_dim = static_cast<int>(d);
        break;
      }
    }
  }
  return in;
}

absl::Status AccessAdmits(const Instance& in, Access access) {
  auto no = [](absl::string_view why) { return absl::InvalidArgumentError(why); };
  if (in.shape.size() != 2) return no("the access patterns are defined for rank-2 tensors");
  if (in.layout.InDimSizeLog2("block") != 0) return no("the layout spans more than one CTA");
  if (in.element_bits < 8 || in.element_bits > 64 || !IsPowerOf2(in.element_bits)) {
    return no("element bits must be 8, 16, 32 or 64 for a 16-byte access");
  }
  const int64_t vec = 128 / in.element_bits;
  if (in.shape[in.fast_dim] < vec) {
    return no(absl::StrCat("the fast dim holds ", in.shape[in.fast_dim],
                           " elements, fewer than one 16-byte vector of ", vec));
  }
  for (const auto& [interval, pad] : in.padding) {
    if (!IsPowerOf2(interval) || pad < 0) {
      return no("padding intervals must be powers of two and pads non-negative");
    }
  }
  if ((access == Access::kLdmatrix || access == Access::kStmatrix) &&
      in.shape[1 - in.fast_dim] < 8) {
    return no("an 8x8 matrix needs at least 8 rows");
  }
  return absl::OkStatus();
}

}  // namespace warpcheck::verify::layout
