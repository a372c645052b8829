// `warpcheck prove conversion LAUNCH.textproto` (shared/design/CLI.md "Proofs"): the
// launch spec's buffers_equal expectations proven for every input with Z3
// (verify/ptx/prove_conversion.h); --cex-out writes a failing input as a launch spec.
#ifndef WARPCHECK_TOOLS_WARPCHECK_PROVE_CONVERSION_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_PROVE_CONVERSION_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

const std::set<std::string>& ProveConversionValueFlags();
int RunProveConversion(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                       Report* report_out);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_PROVE_CONVERSION_COMMAND_H_
