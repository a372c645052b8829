#include "sim/layout/layout_case.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::layout {

ModuleInfo ModuleInfoFromProto(const ModuleAttrs& proto) {
  ModuleInfo m;
  if (proto.has_num_warps()) m.num_warps = proto.num_warps();
  if (proto.has_threads_per_warp()) m.threads_per_warp = proto.threads_per_warp();
  if (proto.has_num_ctas()) m.num_ctas = proto.num_ctas();
  return m;
}

absl::StatusOr<ResolvedLayout> ResolveLayout(absl::string_view attr,
                                             const SourceLocation& where,
                                             const std::vector<int64_t>& shape,
                                             const ModuleInfo& module,
                                             const TtgirFile* ttgir) {
  ModuleInfo merged = ttgir ? ttgir->module : ModuleInfo{};
  if (module.num_warps) merged.num_warps = module.num_warps;
  if (module.threads_per_warp) merged.threads_per_warp = module.threads_per_warp;
  if (module.num_ctas) merged.num_ctas = module.num_ctas;

  ASSIGN_OR_RETURN(EncodingPtr encoding, ParseEncoding(attr, where, ttgir));
  // CheckAgainstModule's messages already carry the position of the field at fault.
  RETURN_IF_ERROR(CheckAgainstModule(*encoding, merged));
  auto layout = ToLinearLayout(*encoding, shape);
  if (!layout.ok()) {
    std::string shape_text;
    for (size_t i = 0; i < shape.size(); ++i) {
      absl::StrAppend(&shape_text, i ? "x" : "", shape[i]);
    }
    return absl::InvalidArgumentError(absl::StrCat("--shape=", shape_text, ": ",
                                                   layout.status().message()));
  }
  return ResolvedLayout{std::move(encoding), *std::move(layout), merged};
}

namespace {

// A per-in-dim description of how two layouts differ, for failure messages.
std::string DescribeDifference(const LinearLayout& got, const LinearLayout& want) {
  std::string out;
  if (got.OutDimNames() != want.OutDimNames() || got.out_dims() != want.out_dims()) {
    absl::StrAppend(&out, "out-dims differ; ");
  }
  for (const auto& [name, bases] : want.bases()) {
    if (!got.HasInDim(name)) {
      absl::StrAppend(&out, "missing in-dim ", name, "; ");
      continue;
    }
    const auto& got_bases = *std::find_if(got.bases().begin(), got.bases().end(),
                                          [&name = name](const auto& p) { return p.first == name; });
    if (got_bases.second != bases) absl::StrAppend(&out, name, " bases differ; ");
  }
  return absl::StrCat(out, "got ", got.ToString(), ", want ", want.ToString());
}

}  // namespace

CaseOutcome CheckLayoutCase(const LayoutCase& c) {
  CaseOutcome outcome;
  TtgirFile ttgir;
  const TtgirFile* context = nullptr;
  if (!c.ttgir().empty()) {
    auto parsed = ParseTtgir(c.ttgir(), SourceLocation{"ttgir", 1, 1});
    if (!parsed.ok()) {
      if (c.expect().has_error()) {
        ttgir = TtgirFile{};
      } else {
        outcome.detail = absl::StrCat("ttgir does not parse: ", parsed.status().message());
        return outcome;
      }
    } else {
      ttgir = *std::move(parsed);
    }
    context = &ttgir;
  }
  std::vector<int64_t> shape(c.shape().begin(), c.shape().end());
  auto resolved = ResolveLayout(c.attr(), SourceLocation{"argument", 1, 1}, shape,
                                ModuleInfoFromProto(c.module()), context);

  const LayoutExpectation& expect = c.expect();
  if (expect.has_error()) {
    if (resolved.ok()) {
      outcome.detail = absl::StrCat("expected an input error, but got layout ",
                                    resolved->layout.ToString());
      return outcome;
    }
    const absl::Status& s = resolved.status();
    if (s.code() != absl::StatusCode::kInvalidArgument) {
      outcome.detail = absl::StrCat("expected InvalidArgument, got ", s.ToString());
      return outcome;
    }
    if (!expect.error().where().empty() &&
        !absl::StartsWith(s.message(), absl::StrCat(expect.error().where(), ": "))) {
      outcome.detail = absl::StrCat("error should start with '", expect.error().where(),
                                    ": ' but is '", s.message(), "'");
      return outcome;
    }
    if (!absl::StrContains(s.message(), expect.error().message_substr())) {
      outcome.detail = absl::StrCat("error should mention '",
                                    expect.error().message_substr(), "' but is '",
                                    s.message(), "'");
      return outcome;
    }
    outcome.ok = true;
    return outcome;
  }

  if (!resolved.ok()) {
    outcome.detail = absl::StrCat("unexpected error: ", resolved.status().message());
    return outcome;
  }
  if (!expect.canonical_attr().empty()) {
    std::string printed = PrintEncoding(*resolved->encoding);
    if (printed != expect.canonical_attr()) {
      outcome.detail = absl::StrCat("printer gives '", printed, "', want '",
                                    expect.canonical_attr(), "'");
      return outcome;
    }
  }
  if (expect.kind_case() == LayoutExpectation::kLayout) {
    auto want = LinearLayout::Parse(expect.layout());
    if (!want.ok()) {
      outcome.detail =
          absl::StrCat("expected layout does not parse: ", want.status().message());
      return outcome;
    }
    if (!(resolved->layout == *want)) {
      outcome.detail = DescribeDifference(resolved->layout, *want);
      return outcome;
    }
  }
  outcome.ok = true;
  return outcome;
}

}  // namespace warpcheck::sim::layout
