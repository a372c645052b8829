// The one mapping from results to exit codes (shared/design/CLI.md).
//
// sim/ and verify/ return typed results (a Report proto filled from them, or an
// absl::Status for input they reject); they never pick an exit code. Every command in
// tools/warpcheck ends with one of the two functions below, so the table lives here
// and nowhere else:
//
//   0  ok / holds / completes          5  inconclusive (solver unknown, a bound hit)
//   1  usage error (flags)             6  internal error (our bug, surfaced as data)
//   2  input error (file, attribute)  10  violated / a fault / a finding
//
// 77 (skip: no GPU) is the GPU commands' own and is not a result.
#ifndef WARPCHECK_TOOLS_WARPCHECK_EXIT_CODE_H_
#define WARPCHECK_TOOLS_WARPCHECK_EXIT_CODE_H_

#include "absl/status/status.h"
#include "proto/report.pb.h"

namespace warpcheck::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitInputError = 2;
inline constexpr int kExitInconclusive = 5;
inline constexpr int kExitInternal = 6;
inline constexpr int kExitViolated = 10;
inline constexpr int kExitSkip = 77;

// The exit code of a command that failed before it had a result: InvalidArgument,
// NotFound, FailedPrecondition, OutOfRange, Unimplemented, DataLoss, AlreadyExists,
// PermissionDenied and ResourceExhausted (input past a fixed limit) are the user's input
// (2); DeadlineExceeded is a budget (5); anything else is ours (6).
// Requires: !status.ok().
int ExitCodeFor(const absl::Status& status);

// The exit code of a finished command, from the one result its Report holds.
// Ensures: 0, 5 or 10 (or 2 for a corpus run whose files could not be read).
int ExitCodeFor(const Report& report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_EXIT_CODE_H_
