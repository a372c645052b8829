// Shared output helpers of the CLI: diagnostics, --format, printing a Report.
#ifndef WARPCHECK_TOOLS_WARPCHECK_OUTPUT_H_
#define WARPCHECK_TOOLS_WARPCHECK_OUTPUT_H_

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// "warpcheck: error: <message>" on its own line.
void PrintError(std::ostream& err, absl::string_view message);

// How a command prints its Report (--format). Options are flags, parsed by
// tools/warpcheck/args; there is no options proto (it held only this enum and two
// messages nothing read, so it went).
enum class OutputFormat { kText, kJson, kTextproto };

// Writes `text` to `path` atomically (sim/base/file.h). On failure prints
// "warpcheck: error: <path>: cannot write[ <what>]" and returns false.
bool WriteOutputFile(const std::string& path, const std::string& text,
                     absl::string_view what, std::ostream& err);

// --format=text|json|textproto (default text); InvalidArgument otherwise.
absl::StatusOr<OutputFormat> ParseFormatFlag(const ParsedArgs& args);

// Prints the report as JSON (proto field names preserved) or text proto and returns
// true; returns false for text, which each command renders itself.
bool PrintMachineReport(const Report& report, OutputFormat format, std::ostream& out);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_OUTPUT_H_
