// Whole jobs over a signal program: lint, schedule, classify, explain, and the trace
// round trip (a trail written as a SignalTrace, and replay of a SignalTrace).
//
// Outcome of `run` (over every terminal state the schedule reached):
//   static_error      a lint of severity error (nothing is scheduled)
//   fault             a simulated fault (out of bounds, NULL peer pointer, bad launch)
//   deadlock          every terminal state deadlocks (explore), or the one run did
//   nondeterministic  some terminal states deadlock and some complete
//   race              none deadlocks, but a data race or stale read is reachable
//   completes         otherwise
//   inconclusive      the state bound or the memory budget was hit before a verdict that
//                     needs the whole space: deadlock, race and completes become
//                     inconclusive (a deadlock or race found is still explained, with its
//                     trail, and the text gives the figure); fault and nondeterministic
//                     stand, shown by their witnesses
// The exit code of each is tools/warpcheck/exit_code.cc's; nothing here picks one.
#ifndef WARPCHECK_SIM_SIGNAL_DRIVER_H_
#define WARPCHECK_SIM_SIGNAL_DRIVER_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "proto/signal.pb.h"
#include "sim/signal/explore.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

struct RunOptions {
  std::string schedule = "explore";
  uint64_t seed = 1;
  int64_t max_states = 0;  // 0: the program's
  int64_t max_memory_bytes = 0;  // 0: kDefaultMaxMemory (explore.h)
  bool reduce = true;
  bool counters = true;  // the counter abstraction (ExploreOptions::counters)
  bool sync_guards = true;  // barrier and launch guards (ExploreOptions::sync_guards)
  bool value_guards = true;  // grid-barrier and value guards (ExploreOptions::value_guards)
  bool lane_first = true;  // a satisfied lane reads first (ExploreOptions::lane_first)
  bool symmetry = true;  // explore: reduce by the rank symmetry found (symmetry.h)
};

struct RunResult {
  SignalReport report;
  bool has_trace = false;
  SignalTrace trace;  // the trail to the reported state, replayable
};

absl::StatusOr<RunResult> RunProgram(const Program& p, const RunOptions& opt);

// Lint only. Ensures: outcome static_error when a lint of severity error exists, else ok.
absl::StatusOr<RunResult> LintProgram(const Program& p);

// The SignalTrace format this warpcheck writes and the newest it reads
// (SignalTrace.format_version in proto/signal.proto).
inline constexpr int32_t kSignalTraceFormatVersion = 1;

// The trail of a terminal as a SignalTrace (program inline, events, hang snapshot,
// format_version kSignalTraceFormatVersion).
SignalTrace MakeTrace(const Machine& m, const Terminal& t);

// Ensures: OK when this warpcheck reads t's format (format_version 0, meaning absent, or
//          1..kSignalTraceFormatVersion); else InvalidArgument
//          "<origin>: format_version N is newer than this warpcheck reads (1)".
absl::Status CheckTraceFormatVersion(const SignalTrace& t, const std::string& origin);

// Validates a trace against its program: every event names an existing agent, object and
// word; sequence numbers increase per agent. Ensures: OK or InvalidArgument "<path>: what".
absl::Status ValidateTrace(const Machine& m, const SignalTrace& t, const std::string& origin);

// One line per event, e.g. "rank0.cta1 #3 notify#1 write SIG@1[0] = 2 (mo 2)".
std::string RenderEvent(const SignalEvent& e);

// Reads a SignalTrace text proto and compiles its program: the inline `program`, or
// `program_file` relative to the trace's folder.
// Ensures: (program, trace), or the parse error of either file, CheckTraceFormatVersion's
//          error, InvalidArgument "<path>: a trace needs `program` or `program_file`", or
//          CompileProgram's error.
absl::StatusOr<std::pair<Program, SignalTrace>> LoadTraceFile(const std::string& path,
                                                              const LoadOverrides& o = {});

struct ReplayOptions {
  bool explore_nearby = false;
  int64_t max_states = 0;
};

// Replays `trace` (its program already compiled as p): constrains the scheduler to the
// recorded per-word modification order, reports whether the hang is reproduced or where
// the replay diverges, and optionally whether nearby interleavings always hang.
absl::StatusOr<RunResult> Replay(const Program& p, const SignalTrace& trace,
                                 const std::string& origin, const ReplayOptions& opt);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_DRIVER_H_
