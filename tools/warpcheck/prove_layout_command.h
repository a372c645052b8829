// `warpcheck prove layout ATTR --shape=RxC [--property=...]` (shared/design/CLI.md):
// shared-memory layout properties over parameter families (verify/layout).
#ifndef WARPCHECK_TOOLS_WARPCHECK_PROVE_LAYOUT_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_PROVE_LAYOUT_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

const std::set<std::string>& ProveLayoutValueFlags();

// Ensures: the exit code (0 holds, 10 violated, 5 inconclusive, 1 usage, 2 input, 6
//          internal); the report is stored in `report` when non-null.
int RunProveLayout(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_PROVE_LAYOUT_COMMAND_H_
