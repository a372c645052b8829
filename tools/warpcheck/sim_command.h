// `warpcheck sim run`, `warpcheck gpu run` and `warpcheck gpu diff` (shared/design/CLI.md).
#ifndef WARPCHECK_TOOLS_WARPCHECK_SIM_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_SIM_COMMAND_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// Each returns the exit code and stores the printed report in `report` when non-null.
int RunSimRun(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report);
// diff = false: `gpu run`; true: `gpu diff`. Exit 77 when no GPU is usable.
int RunGpu(const ParsedArgs& args, bool diff, std::ostream& out, std::ostream& err,
           Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SIM_COMMAND_H_
