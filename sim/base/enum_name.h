// The printed name of a value of a report enum (proto/report.proto).
//
// Those enums name their values with the lowercase strings that the JSON and the text
// output have always contained ("deadlock", "missing_notify", "error"), so the name of
// a value is what the user sees; value 0 is "unset" and prints as the empty string, as
// the string fields they replaced did (sim/base/json.h prints them the same way).
#ifndef WARPCHECK_SIM_BASE_ENUM_NAME_H_
#define WARPCHECK_SIM_BASE_ENUM_NAME_H_

#include <string>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace warpcheck::sim::base {

// Requires: E is a generated protobuf enum.
// Ensures: "" when v == 0; otherwise the value's name as declared in the .proto.
template <typename E>
std::string EnumName(E v) {
  if (static_cast<int>(v) == 0) return "";
  const google::protobuf::EnumValueDescriptor* d =
      google::protobuf::GetEnumDescriptor<E>()->FindValueByNumber(static_cast<int>(v));
  return d == nullptr ? "" : d->name();
}

}  // namespace warpcheck::sim::base

#endif  // WARPCHECK_SIM_BASE_ENUM_NAME_H_
