// `warpcheck swizzle2d show` and `warpcheck swizzle2d prove` (shared/design/CLI.md).
#ifndef WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// Flags both subcommands take (values).
const std::set<std::string>& SwizzleValueFlags();

// Each returns the exit code; the report is stored in `report` when non-null.
int RunSwizzleShow(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report);
int RunSwizzleProve(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                    Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_COMMAND_H_
