// Corpus expectations of signal programs and traces: whether a finished run is what a
// corpus file's `expect` (proto/signal.proto SignalExpect) and, for a trace,
// `expect_reproduced` say it should be.
//
// Example: a SignalProgram expecting {outcome: DEADLOCK, cause: "missing_notify"} whose
// run completes gives the mismatches {"outcome completes, expected deadlock", "cause
// (none), expected missing_notify"}, and `corpus check` reports them joined by "; ".
#ifndef WARPCHECK_SIM_SIGNAL_EXPECT_H_
#define WARPCHECK_SIM_SIGNAL_EXPECT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "proto/signal.pb.h"

namespace warpcheck::sim::signal {

// The unmet expectations of `expect` in `report`, in this order: outcome (when set),
// cause (when set), each blocked agent (rank, cta, and site when set), each text the
// explanation must contain, then the replay (when `expect_reproduced` is set: whether
// the report's replay is `reproduced`).
// Ensures: one line per unmet expectation, e.g. "outcome completes, expected deadlock",
//          "cause (none), expected cycle", "rank 1 cta 0 not blocked at wait#2",
//          "explanation lacks \"x\"", "replay diverged, expected reproduced"; empty when
//          every expectation is met.
std::vector<std::string> ExpectationMismatches(const SignalExpect& expect,
                                               const SignalReport& report,
                                               std::optional<bool> expect_reproduced);

// A corpus file's verdict: `ok`, or `detail` saying what differs.
struct ExpectCheck {
  bool ok = false;
  // Empty when ok; else the mismatches joined by "; ", then "\n    " and the report's
  // explanation text.
  std::string detail;
};

// Ensures: ExpectationMismatches as a verdict (ok iff there are none).
ExpectCheck CheckExpectation(const SignalExpect& expect, const SignalReport& report,
                             std::optional<bool> expect_reproduced);

// Runs a corpus file and checks it: a SignalProgram (`trace` false; explored with the
// default options, `expect.outcome` required) or a SignalTrace (`trace` true; replayed
// with the nearby exploration, `expect_reproduced` checked too).
// Ensures: the verdict, or the file's load/compile error, InvalidArgument "<path>:
//          expect.outcome is required in a corpus file (COMPLETES, DEADLOCK, ...)", or
//          the run's error.
absl::StatusOr<ExpectCheck> CheckCorpusFile(const std::string& path, bool trace);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_EXPECT_H_
