// `warpcheck fuzz layouts` (shared/design/CLI.md, "Fuzzing, corpus, GPU").
#ifndef WARPCHECK_TOOLS_WARPCHECK_FUZZ_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_FUZZ_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

const std::set<std::string>& FuzzValueFlags();

// Returns the exit code: 0 no failure, 10 failures found (each shrunk, printed and
// written under --corpus-out), 1 usage, 2 input error.
int RunFuzzLayouts(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report_out);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_FUZZ_COMMAND_H_
