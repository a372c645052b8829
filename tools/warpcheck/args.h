// A small argument parser scoped to one subcommand (Bloaty's TryParseFlag idea): flags
// are `--name=value` or `--name value`, booleans `--name`; everything else is
// positional. Unknown flags are usage errors (exit 1), which the caller reports.
#ifndef WARPCHECK_TOOLS_WARPCHECK_ARGS_H_
#define WARPCHECK_TOOLS_WARPCHECK_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::cli {

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // flag name (without --) -> value
  std::set<std::string> switches;             // boolean flags given

  bool Has(const std::string& name) const {
    return values.count(name) > 0 || switches.count(name) > 0;
  }
  std::optional<std::string> Get(const std::string& name) const;

  // The one way to read an integer flag: decimal as absl::SimpleAtoi reads it, within
  // [min, max]. Requires: min <= max.
  // Ensures: nullopt when the flag is absent; the value; or InvalidArgument
  //          "--NAME=TEXT: expected an integer in [MIN, MAX]" ("... expected a
  //          non-negative integer" when the range is [0, INT64_MAX]; "... expected an
  //          integer >= MIN" for [MIN, INT64_MAX]). The caller picks the exit code: usage
  //          for run options, input error for layout parameters.
  absl::StatusOr<std::optional<int64_t>> GetInt(const std::string& name, int64_t min,
                                                int64_t max) const;
};

// `value_flags` take a value, `switch_flags` do not. `--help`/`-h` is always accepted as
// a switch named "help". Returns InvalidArgument (a usage error) for an unknown flag or
// a value flag without a value.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::set<std::string>& value_flags,
                                     const std::set<std::string>& switch_flags);

// "64x64", "128", "2x64x32" -> {64, 64}. InvalidArgument for anything else (positive
// integers up to 2^30 only).
absl::StatusOr<std::vector<int32_t>> ParseShape(absl::string_view text);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_ARGS_H_
