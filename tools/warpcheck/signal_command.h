// `warpcheck signal run | replay | lint` (shared/design/CLI.md, "Distributed signaling").
#ifndef WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

std::set<std::string> SignalRunValueFlags();
int RunSignalRun(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report);
int RunSignalReplay(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                    Report* report);
int RunSignalLint(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report);

// Corpus: a SignalProgram (its `expect`) or a SignalTrace (replay and its `expect`).
absl::Status CheckSignalCorpusFile(const std::string& path, bool trace, bool* ok,
                                   std::string* detail);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SIGNAL_COMMAND_H_
