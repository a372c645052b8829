// `warpcheck corpus check` (shared/design/CLI.md): every case of every corpus file,
// compared with the expectation written inside the file.
//
// A corpus file says what it holds in its `# proto-message:` header; the header is the
// key of one table (CorpusKinds), and each entry is one check that runs the file through
// the library that owns it and returns one CaseResult per case:
//
//   warpcheck.LayoutCorpus    sim/layout  CheckLayoutCase, per case
//   warpcheck.SwizzleProblem  sim/swizzle LoadProblemFile + verify CheckSwizzle
//   warpcheck.LaunchSpec      sim/machine RunLaunchSpecFile + CheckSimExpect
//   warpcheck.SignalProgram   sim/signal  CheckCorpusFile (RunProgram + CheckExpectation)
//   warpcheck.SignalTrace     〃 (LoadTraceFile + Replay)
//
// Adding a kind is adding a row. A check returns an error (absl::Status) only for a file
// it cannot run (malformed, unreadable); a case that does not meet its expectation is a
// CaseResult with ok = false.
#ifndef WARPCHECK_TOOLS_WARPCHECK_CORPUS_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_CORPUS_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// The cases of one corpus file, checked. Each CaseResult names the file and the case.
using CorpusCheck = absl::StatusOr<std::vector<CaseResult>> (*)(const std::string& path);

struct CorpusKind {
  const char* proto_message;  // the `# proto-message:` value, e.g. "warpcheck.LaunchSpec"
  CorpusCheck check;
};

// The table, in the order the unknown-header error lists the kinds.
const std::vector<CorpusKind>& CorpusKinds();

// The `# proto-message:` header of a corpus file's text, or "" when its leading comment
// lines have none.
std::string ProtoMessageHeader(const std::string& text);

// Checks one corpus file with the entry its header names.
// Ensures: the file's cases; InvalidArgument "<path>: cannot read file", or
//          "<path>:1:1: a corpus file starts with '# proto-message: ' and one of <the
//          table's kinds> (found '<header>')" (or "(no header found)"); else the check's.
absl::StatusOr<std::vector<CaseResult>> CheckCorpusFile(const std::string& path);

// `corpus check [PATH...] [--format=...] [--verbose]`; returns the exit code: 0 all pass,
// 10 a case fails, 2 a file could not be checked (that wins).
int RunCorpusCheck(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_CORPUS_COMMAND_H_
