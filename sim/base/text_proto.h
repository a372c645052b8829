// Reading text protos with positioned errors, the one way every loader does it.
#ifndef WARPCHECK_SIM_BASE_TEXT_PROTO_H_
#define WARPCHECK_SIM_BASE_TEXT_PROTO_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace warpcheck::sim::base {

// Messages nested deeper than this are a parse error ("<origin>:<line>:<col>: Message is
// too deep ..."), not a stack overflow.
inline constexpr int kTextProtoMaxDepth = 200;

// Text longer than this is a parse error at the first byte past it (text_limit.h):
// protobuf holds the whole text and a copy, and the biggest corpus file is ~100 KB.
inline constexpr size_t kTextProtoMaxBytes = size_t{32} << 20;

// Parses `text` into *msg.
// Ensures: OK, or InvalidArgument "<origin>:<line>:<col>: <what>" for the first parse
//          error (1-based; nesting deeper than kTextProtoMaxDepth is one, text longer
//          than kTextProtoMaxBytes another; text with no field at all — empty, or only
//          whitespace and comments — is "<origin>:1:1: empty input: ..."), or
//          "<origin>: not a <message type>" when protobuf gives none.
absl::Status ParseTextProto(absl::string_view text, absl::string_view origin,
                            google::protobuf::Message* msg);

// Reads the file at `path` and parses it (errors name the path).
absl::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* msg);

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_TEXT_PROTO_H_
