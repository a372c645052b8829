// `warpcheck convert plan|emit|check` (shared/design/CLI.md, "Layout conversions").
#ifndef WARPCHECK_TOOLS_WARPCHECK_CONVERT_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_CONVERT_COMMAND_H_

#include <ostream>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

enum class ConvertAction { kPlan, kEmit, kCheck, kCompare };

// Returns the exit code; stores the printed report in `report` when non-null.
int RunConvert(ConvertAction action, const ParsedArgs& args, std::ostream& out,
               std::ostream& err, Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_CONVERT_COMMAND_H_
