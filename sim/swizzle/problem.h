// Swizzle problems: which map to check over which box of parameter points.
//
// A problem comes from one of three places, and this file turns each into the same
// resolved `Problem` (no solver here; verify/swizzle_check.h runs it):
//
//   * a built-in and ranges by parameter name (`swizzle2d prove --fn=gemm
//     --row-tiles=1..64`): `BuiltinProblem`, then `SetRange` per flag, then
//     `FillBuiltinDefaults` (the documented default box);
//   * a bare `.swz` spec (`--spec=FILE.swz --params=n=1..8`): `SpecProblem`, then
//     `SetRange` per `--params` item (`ParseParamList`);
//   * a corpus `warpcheck.SwizzleProblem` text proto (`--spec=FILE.textproto`, `corpus
//     check`): `LoadProblemFile`, spec files relative to the problem file.
//
// Example: corpus/swizzle/builtin_gemm.textproto (`builtin: "gemm"`, two ranges,
// `engine: "both"`) resolves to {builtin = kGemm, builtin_sweep = the two ranges plus
// swizzle_offset 1..7 and swizzle_direction 0..1, engine = "both", name = "gemm_swizzle2d"}.
#ifndef WARPCHECK_SIM_SWIZZLE_PROBLEM_H_
#define WARPCHECK_SIM_SWIZZLE_PROBLEM_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/swizzle.pb.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"

namespace warpcheck::sim::swizzle {

// Which engine decides a problem (verify/swizzle_check.h says what each one runs).
enum class Engine : uint8_t { kAuto, kSymbolic, kEnumerated, kBoth };
// Ensures: the engine named "auto", "symbolic", "enumerated" or "both", else
//          InvalidArgument "--engine: expected symbolic, enumerated, both or auto".
absl::StatusOr<Engine> ParseEngine(absl::string_view name);

// A swizzle problem ready to check: a built-in box, or a spec with range overrides.
struct Problem {
  std::optional<Builtin> builtin;  // set iff the map is a built-in
  BuiltinSweep builtin_sweep;      // built-ins: the box
  std::optional<SwizzleSpec> spec; // set iff the map is a user spec
  SpecSweep spec_sweep;            // specs: overrides of the declared ranges
  // The engine the problem file asks for, as written ("auto" when it names none). Kept
  // as text: the command validates it only after `--engine` had its say.
  std::string engine = "auto";
  std::string name;  // for messages: the API name, or the spec / problem file path
};

// The built-in parameters, as (CLI flag, parameter name) pairs in the CLI's order:
// ("row-tiles", "row_tiles"), ... ("comm-data-split", "comm_data_split").
const std::vector<std::pair<std::string, std::string>>& BuiltinParamFlags();

// Ensures: a problem for `fn` with an empty box (no ranges yet), named by its API name.
Problem BuiltinProblem(Builtin fn);
// Ensures: a problem for `spec` with no overrides, named `name`.
Problem SpecProblem(SwizzleSpec spec, std::string name);

// Sets the range of parameter `name` (a built-in's parameter name, or a spec `param`).
// Ensures: OK, or InvalidArgument "<problem name> has no parameter '<name>'" for a
//          built-in (spec names are checked when the spec is instantiated).
absl::Status SetRange(Problem& problem, const std::string& name, ParamRange range);

// The documented default box of `prove` for a built-in, for the ranges still unset: every
// grid up to 2^16 x 2^16, every offset and direction, ranks up to 64 with every split.
void FillBuiltinDefaults(BuiltinSweep& sweep);

// Parses the `--params` syntax `name=A..B,name=V` into ranges by name, in order.
// Ensures: the list ("" gives none), else InvalidArgument "--params: ...".
absl::StatusOr<std::vector<std::pair<std::string, ParamRange>>> ParseParamList(
    absl::string_view text);

// Resolves a SwizzleProblem proto. `base_dir` is where spec_file is relative to; `where`
// names the proto in messages (and in the inline spec's source name).
// Ensures: the problem (built-in boxes *without* the defaults filled), or InvalidArgument
//          "<where>: ..." for a missing map or an inverted range, or the spec's own error.
absl::StatusOr<Problem> ResolveProblem(const ::warpcheck::SwizzleProblem& proto,
                                       const std::string& base_dir, const std::string& where);

// Reads a warpcheck.SwizzleProblem text proto and resolves it (spec files relative to
// it, built-in boxes with their defaults filled). When `proto` is non-null it receives
// the parsed message (for its `expect`).
// Ensures: the problem, or InvalidArgument "<path>: cannot read file" /
//          "<path>:<line>:<col>: <what>" (sim/base/text_proto.h), or ResolveProblem's error.
absl::StatusOr<Problem> LoadProblemFile(const std::string& path,
                                        ::warpcheck::SwizzleProblem* proto = nullptr);

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_PROBLEM_H_
