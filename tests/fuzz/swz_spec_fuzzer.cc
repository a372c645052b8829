// Fuzz target: .swz text -> expression program -> SwizzleSpec (sim/swizzle/spec.h,
// sim/expr/parser.h), then a few iterations at the parameters' lower bounds.
//
// Properties checked on every input:
//   * parsing never crashes, hangs or runs out of memory; a rejection is an input error
//     "fuzz.swz:<line>:<col>: ..." (fuzz_check.h);
//   * an accepted spec instantiates at its lower bounds or says why (an input error),
//     and evaluating its first iterations never crashes (errors are outcomes).
// Seeds: corpus/fuzz/swz_spec/ (the corpus/swizzle/*.swz files).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/swizzle/spec.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = sim::swizzle::SwizzleSpec::Parse("fuzz.swz", text);
  if (!spec.ok()) {
    fuzz::RequireInputError(spec.status(), "fuzz.swz:");
    return 0;
  }
  std::vector<int64_t> lows;
  for (const auto* p : spec->params()) lows.push_back(p->lo);
  auto instance = spec->Instantiate(lows);
  if (!instance.ok()) {
    fuzz::RequireInputError(instance.status(), "fuzz.swz");
    return 0;
  }
  std::vector<int64_t> coords(instance->coordinates().size());
  const int64_t n = std::min<int64_t>(instance->domain(), 16);
  for (int64_t i = 0; i < n; ++i) {
    instance->Map(i, coords.data());
    auto point = instance->Explain(i);
    if (!point.ok()) fuzz::RequireInputError(point.status(), "fuzz.swz");
  }
  return 0;
}
