// Fuzz target: LaunchSpec text proto -> validated LaunchSpec (sim/launch/launch_spec.h).
//
// Properties checked on every input:
//   * parsing and validation never crash, hang or run out of memory; a rejection is an
//     input error "fuzz.textproto..." (fuzz_check.h);
//   * for an accepted spec, every expectation has a name and judging a run with no
//     buffers never crashes (a missing buffer fails its expectation).
// Seeds: corpus/fuzz/launch_spec/ (the corpus/triton launch specs).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/launch/launch_spec.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = sim::launch::ParseLaunchSpec(text, "fuzz.textproto");
  if (!spec.ok()) {
    fuzz::RequireInputError(spec.status(), "fuzz.textproto");
    return 0;
  }
  for (const auto& e : spec->expect()) {
    fuzz::Require(!sim::launch::ExpectationName(e).empty(), "every expectation has a name");
  }
  auto verdict = sim::launch::JudgeRun(*spec, {}, /*faulted=*/false);
  fuzz::Require(verdict.expectations.size() == static_cast<size_t>(spec->expect_size()),
                "one result per expectation");
  return 0;
}
