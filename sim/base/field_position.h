// Positions for errors about values that parse but are wrong.
//
// A text-proto reader fails in two ways. A syntax error has its line and column from
// protobuf's tokenizer (text_proto.h). A value that parses but is out of bounds — 10^6
// ranks, a 2^40-byte buffer, a grid of 10^18 CTAs — is found later, by code that holds
// the message, not the text, and knows the value only by its *field path*:
//
//   ranks    kernels[2].threads    param[1].buffer.size_bytes    grid
//
// (field names as in the .proto, `[i]` after a repeated field). Such code attaches the
// path to its error with WithField; the message itself stays as it was. The reader that
// still knows the file turns the path into a position with LocateInTextProtoFile, which
// parses the file once more, this time recording where every field starts (protobuf's
// ParseInfoTree), and writes the error the way every reader writes one:
//
//   run.textproto:7:3: ranks: must be 1..1024
//
// Re-reading costs one parse, and only on the error path; threading positions through
// every validator instead would touch every function between the reader and the check.
// A path the text does not spell out (a field left at its default) falls back to its
// nearest ancestor that the text does spell out; a path with no such ancestor leaves
// the error as it was, never with a made-up position.
#ifndef WARPCHECK_SIM_BASE_FIELD_POSITION_H_
#define WARPCHECK_SIM_BASE_FIELD_POSITION_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace warpcheck::sim::base {

// `status` with `path` attached (OK stays OK; a path already attached is kept, since
// the innermost check knows the field best).
absl::Status WithField(absl::Status status, absl::string_view path);

// `status` with its message replaced and its payloads (the field path) kept.
absl::Status WithMessage(const absl::Status& status, absl::string_view message);

// The path WithField attached, if any.
std::optional<std::string> FieldOf(const absl::Status& status);

struct TextPosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// Where the field at `path` (or its nearest spelled-out ancestor) starts in `text`, a
// text proto of `prototype`'s type. nullopt when the text does not parse, the path does
// not name a field of the type, or nothing on it is spelled out.
std::optional<TextPosition> FindField(absl::string_view text,
                                      const google::protobuf::Message& prototype,
                                      absl::string_view path);

// For an error with a field path about `text`, a text proto of `prototype`'s type read
// from `origin`:
//   "<origin>: <what>" or "<what>"  ->  "<origin>:<line>:<col>: <what>"
// (same code, path kept). `prefix` goes in front of the attached path, for a message
// nested in the one the text spells ("program." for a trace's inline program). Any
// other status, or a path that cannot be placed, comes back unchanged.
absl::Status LocateInTextProto(absl::Status status, absl::string_view text,
                               absl::string_view origin,
                               const google::protobuf::Message& prototype,
                               absl::string_view prefix = "");

// The same for the text in file `file` (read again; unreadable: unchanged).
absl::Status LocateInTextProtoFile(absl::Status status, const std::string& file,
                                   const google::protobuf::Message& prototype,
                                   absl::string_view prefix = "");

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_FIELD_POSITION_H_
