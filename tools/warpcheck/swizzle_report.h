// The Swizzle2dReport of `swizzle2d prove`, filled from verify's typed outcome.
//
// The proto enums' value names are the JSON contract ("holds", "duplicate", ...); the
// conversions below map sim/verify's enums onto them one to one (and
// tests/cli/swizzle_report_test.cc checks each name against VerdictName,
// ViolationKindName and CheckedByName, so the JSON cannot drift).
#ifndef WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_REPORT_H_
#define WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_REPORT_H_

#include "proto/report.pb.h"
#include "sim/swizzle/enumerate.h"
#include "verify/swizzle_check.h"
#include "verify/swizzle_prove.h"

namespace warpcheck::cli {

Swizzle2dReport::Verdict ToProto(sim::swizzle::Verdict v);
Swizzle2dReport::Checked ToProto(verify::CheckedBy c);
SwizzleCounterexample::Kind ToProto(sim::swizzle::ViolationKind k);

// Ensures: `out` holds the counterexample (params, kind, iteration ids, tile, text).
void FillCounterexample(const sim::swizzle::Counterexample& c, SwizzleCounterexample* out);

// Ensures: `out` holds the outcome: verdict, checked, solver_ms, param_points, queries,
//          and, when present, reason, enumerated_verdict, symbolic_verdict and the counterexample.
void FillSwizzleReport(const verify::SwizzleOutcome& outcome, Swizzle2dReport* out);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SWIZZLE_REPORT_H_
