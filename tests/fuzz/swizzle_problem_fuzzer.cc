// Fuzz target: SwizzleProblem text proto -> resolved swizzle Problem
// (sim/swizzle/problem.h), as `corpus check` and `swizzle2d prove --spec` read one; an
// inline spec goes through the .swz parser.
//
// Properties checked on every input:
//   * nothing crashes, hangs or runs out of memory; a rejection is an input error
//     "fuzz.textproto..." (fuzz_check.h). spec_file is resolved against a folder that
//     does not exist, so it is always a NotFound/InvalidArgument, never a real read.
// Seeds: corpus/fuzz/swizzle_problem/ (corpus/swizzle problems).
#include <cstddef>
#include <cstdint>
#include <string>

#include "proto/swizzle.pb.h"
#include "sim/base/text_proto.h"
#include "sim/swizzle/problem.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string origin = "fuzz.textproto";
  SwizzleProblem proto;
  if (auto s = sim::base::ParseTextProto(text, origin, &proto); !s.ok()) {
    fuzz::RequireInputError(s, origin);
    return 0;
  }
  auto problem = sim::swizzle::ResolveProblem(proto, "/nonexistent-fuzz-dir", origin);
  if (!problem.ok()) {
    fuzz::RequireInputError(problem.status(), "");
    return 0;
  }
  if (problem->builtin) sim::swizzle::FillBuiltinDefaults(problem->builtin_sweep);
  return 0;
}
