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
#include "tools/warpcheck/exit_code.h"

namespace warpcheck::cli {


// Runs `args` (args[0] is the program name) and returns the exit code. Results go to
// `out`, diagnostics ("warpcheck: error: <where>: <what>") to `err`. When `report` is
// non-null it receives the Report that was printed (for in-process tests).
int RunWarpcheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 Report* report = nullptr);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_CLI_H_
