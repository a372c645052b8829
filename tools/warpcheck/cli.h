// The warpcheck command-line interface (shared/design/CLI.md).
//
// One binary, subcommands dispatched from an explicit table (rr's Command idea without
// static registration). Each command's run() returns the exit code; a Report proto is
// built and printed as text, JSON or text proto. Exceptions never cross this boundary.
#ifndef WARPCHECK_TOOLS_WARPCHECK_CLI_H_
#define WARPCHECK_TOOLS_WARPCHECK_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace warpcheck::cli {

// Exit codes (CBMC-aligned; README.md repeats them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitInputError = 2;
inline constexpr int kExitInconclusive = 5;
inline constexpr int kExitInternal = 6;
inline constexpr int kExitViolated = 10;

// Runs `args` (args[0] is the program name) and returns the exit code. Results go to
// `out`, diagnostics ("warpcheck: error: <where>: <what>") to `err`. When `report` is
// non-null it receives the Report that was printed (for in-process tests).
int RunWarpcheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 Report* report = nullptr);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_CLI_H_
