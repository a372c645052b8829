// How big a text input any reader takes, and where the error points when one is bigger.
//
// Every reader of user text (text protos, PTX, .swz programs, TTGIR dumps) is linear or
// nearly so in its input, but linear in a hostile 1 GB file is still gigabytes of tokens
// and syntax tree. So each one has a byte limit far above any real input (documented
// where it is defined), checked before any work, and the error points at the first byte
// past the limit — a real position a user can jump to:
//
//   big.ptx:400001:17: the text goes on past 33554432 bytes, the most a PTX module may
//   have
#ifndef WARPCHECK_SIM_BASE_TEXT_LIMIT_H_
#define WARPCHECK_SIM_BASE_TEXT_LIMIT_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::base {

// Ensures: OK when text.size() <= max_bytes; else InvalidArgument
//          "<origin>:<line>:<col>: the text goes on past <max_bytes> bytes, the most
//          <what> may have", at the 1-based position of byte max_bytes (the first one
//          past the limit; a column counts bytes).
absl::Status CheckTextSize(absl::string_view text, absl::string_view origin,
                           size_t max_bytes, absl::string_view what);

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_TEXT_LIMIT_H_
