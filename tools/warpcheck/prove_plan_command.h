// `warpcheck prove plan` (verify/plan/plan_prove.h): plans a conversion as `convert plan`
// does and proves the plan with Z3 over the F2 maps.
#ifndef WARPCHECK_TOOLS_WARPCHECK_PROVE_PLAN_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_PROVE_PLAN_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

const std::set<std::string>& ProvePlanValueFlags();

// Returns the exit code (0 holds, 10 violated, 5 inconclusive, 1 usage, 2 input error);
// stores the printed report in `report` when non-null.
int RunProvePlan(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                 Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_PROVE_PLAN_COMMAND_H_
