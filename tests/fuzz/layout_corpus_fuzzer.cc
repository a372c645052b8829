// Fuzz target: LayoutCorpus text proto -> every case checked (sim/layout/layout_case.h),
// exactly what `corpus check` does with a layout corpus file: the attribute parsed, the
// TTGIR context parsed, the module cross-checked and the layout built for the case's
// shape.
//
// Properties checked on every input:
//   * nothing crashes, hangs or runs out of memory — in particular a case's shape
//     (2^40 extents, thousands of dims) must be rejected, not allocated; a rejection of
//     the file is an input error "fuzz.textproto..." (fuzz_check.h); a case that does not
//     meet its expectation says why.
// Seeds: corpus/fuzz/layout_corpus/ (cases cut from corpus/layout).
#include <cstddef>
#include <cstdint>
#include <string>

#include "proto/layout.pb.h"
#include "sim/base/text_proto.h"
#include "sim/layout/layout_case.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string origin = "fuzz.textproto";
  LayoutCorpus corpus;
  if (auto s = sim::base::ParseTextProto(text, origin, &corpus); !s.ok()) {
    fuzz::RequireInputError(s, origin);
    return 0;
  }
  for (const LayoutCase& c : corpus.cases()) {
    sim::layout::CaseOutcome outcome = sim::layout::CheckLayoutCase(c);
    fuzz::Require(outcome.ok || !outcome.detail.empty(), "a failed case says why");
  }
  return 0;
}
