// Conversions between LinearLayout and its wire form, warpcheck.LinearLayoutProto.
#ifndef WARPCHECK_SIM_LAYOUT_LAYOUT_PROTO_H_
#define WARPCHECK_SIM_LAYOUT_LAYOUT_PROTO_H_

#include "absl/status/statusor.h"
#include "proto/layout.pb.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {

// Ensures: FromProto(ToProto(l)) == l.
LinearLayoutProto ToProto(const LinearLayout& layout);

// InvalidArgument when the proto violates a LinearLayout invariant (non-integer entries,
// wrong basis length, non-power-of-two sizes, entries out of range).
absl::StatusOr<LinearLayout> FromProto(const LinearLayoutProto& proto);

}  // namespace warpcheck::sim::layout

#endif  // WARPCHECK_SIM_LAYOUT_LAYOUT_PROTO_H_
