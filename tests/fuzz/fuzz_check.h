// What every fuzz target checks about a rejected input, in one place.
//
// A reader may reject anything, but only as an input error the CLI turns into exit 2
// (tools/warpcheck/exit_code.cc: InvalidArgument, NotFound, FailedPrecondition,
// OutOfRange, Unimplemented, ResourceExhausted, ...) whose message starts with the
// origin it was given ("fuzz.ptx:3:7: ..."), so the user sees where. Internal, Unknown
// or an empty message is our bug: the target aborts, and libFuzzer reports the input.
#ifndef WARPCHECK_TESTS_FUZZ_FUZZ_CHECK_H_
#define WARPCHECK_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace warpcheck::fuzz {

inline bool IsInputErrorCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

// Requires: !status.ok(). Aborts unless `status` is an input error whose message starts
// with `origin`.
inline void RequireInputError(const absl::Status& status, absl::string_view origin) {
  if (IsInputErrorCode(status.code()) && absl::StartsWith(status.message(), origin)) {
    return;
  }
  std::fprintf(stderr, "fuzz: not an input error naming '%s': %s\n",
               std::string(origin).c_str(), status.ToString().c_str());
  std::abort();
}

// Aborts with `what` when `cond` is false (a property of an accepted input).
inline void Require(bool cond, const char* what) {
  if (cond) return;
  std::fprintf(stderr, "fuzz: property violated: %s\n", what);
  std::abort();
}

}  // namespace warpcheck::fuzz

#endif  // WARPCHECK_TESTS_FUZZ_FUZZ_CHECK_H_
