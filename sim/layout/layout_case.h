// Resolving a layout request (attribute text + shape + module attributes, optionally in
// the context of a TTGIR dump) to a LinearLayout, and checking a corpus LayoutCase.
//
// This is the one path shared by `warpcheck layout show` and `warpcheck corpus check`,
// so the corpus tests exactly what users run.
#ifndef WARPCHECK_SIM_LAYOUT_LAYOUT_CASE_H_
#define WARPCHECK_SIM_LAYOUT_LAYOUT_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/layout.pb.h"
#include "sim/layout/encoding.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {

struct ResolvedLayout {
  EncodingPtr encoding;
  LinearLayout layout;
  ModuleInfo module;  // the module attributes that were checked
};

// Parses `attr` (aliases resolved through `ttgir` when non-null), checks it against the
// module attributes (fields set in `module` override those of `ttgir`), and converts it
// for `shape`. Errors are InvalidArgument with "<where>: <what>".
absl::StatusOr<ResolvedLayout> ResolveLayout(absl::string_view attr,
                                             const SourceLocation& where,
                                             const std::vector<int64_t>& shape,
                                             const ModuleInfo& module,
                                             const TtgirFile* ttgir);

ModuleInfo ModuleInfoFromProto(const ModuleAttrs& proto);

struct CaseOutcome {
  bool ok = false;
  std::string detail;  // why it failed; empty when ok
};

// Runs one corpus case and compares with its expectation: the expected layout (exact
// equality, with a per-dim diff on mismatch), the canonical print, or the expected
// error (where-prefix and message substring). The attribute is parsed as if it were the
// command-line argument, so positions read "argument:1:<col>".
CaseOutcome CheckLayoutCase(const LayoutCase& c);

}  // namespace warpcheck::sim::layout

#endif  // WARPCHECK_SIM_LAYOUT_LAYOUT_CASE_H_
