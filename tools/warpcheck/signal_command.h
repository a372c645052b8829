// `warpcheck signal run | replay | lint` (shared/design/CLI.md, "Distributed signaling").
#ifndef WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

std::set<std::string> SignalRunValueFlags();
int RunSignalRun(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report);
int RunSignalReplay(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                    Report* report);
int RunSignalLint(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_
