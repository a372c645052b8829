// The JSON form of a Report (`--format=json`), by proto reflection.
//
// The JSON is a contract (shared/design/CLI.md): scripts read `"verdict": "holds"`,
// `"states": 17`, `"counters": {"shfl": 128}`. Protobuf's own JSON printer almost fits,
// but proto3 JSON quotes 64-bit integers ("17") and prints an enum by its value name, so
// counts would have to be doubles and verdicts strings. This printer keeps protobuf's
// JSON form exactly (compact, proto field names, every primitive field printed even at
// its default, unset message fields left out, the same string escaping and double
// formatting) with two differences that make typed results possible:
//
//   - int64/uint64 fields print as bare numbers: `"states":17`, not `"states":"17"`;
//   - an enum value prints as its name, and the value 0 (by convention `*_UNSET` in
//     proto/report.proto) prints as "" — exactly what the string field it replaced
//     printed when nothing had set it. protobuf's JSON parser reads such JSON back
//     with JsonParseOptions::ignore_unknown_fields (the "" value is skipped: unset).
//
// Well-known types print as protobuf prints them (a ListValue as an array, a Value as
// its value, a wrapper as its bare value). Field order is protobuf's (declaration order, then the set
// members of oneofs and proto3 `optional` fields by number); map entries are sorted by key, so the output of
// one Report is always the same bytes.
#ifndef WARPCHECK_SIM_BASE_JSON_H_
#define WARPCHECK_SIM_BASE_JSON_H_

#include <string>

#include "google/protobuf/message.h"

namespace warpcheck::sim::base {

// Ensures: valid JSON (RFC 8259) for any message; one line, no trailing newline.
std::string ToJson(const google::protobuf::Message& message);

// A JSON string literal for `s` (with its quotes), escaped as protobuf escapes:
// `"` and `\`, control characters, `<` and `>` (\u003c, \u003e), DEL and the Unicode
// format and separator characters as \uXXXX; other UTF-8 is copied.
std::string JsonQuote(const std::string& s);

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_JSON_H_
