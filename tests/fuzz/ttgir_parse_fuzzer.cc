// Fuzz target: a TTGIR dump -> aliases and module attributes (sim/layout/encoding.h
// ParseTtgir), then every alias printed and its layout built for a small shape.
//
// Properties checked on every input:
//   * nothing crashes, hangs or runs out of memory; a rejection is an input error
//     "fuzz.ttgir:<line>:<col>: ..." (fuzz_check.h);
//   * every accepted alias prints, and `#name` resolves through the file to the same
//     print.
// Seeds: corpus/fuzz/ttgir_parse/ (the ttgir fields of corpus/layout cases).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/layout/encoding.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck::sim::layout;
  namespace fuzz = warpcheck::fuzz;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto file = ParseTtgir(text, SourceLocation{"fuzz.ttgir", 1, 1});
  if (!file.ok()) {
    fuzz::RequireInputError(file.status(), "fuzz.ttgir:");
    return 0;
  }
  for (const auto& [name, encoding] : file->aliases) {
    const std::string printed = PrintEncoding(*encoding);
    auto by_name = ParseEncoding(name, SourceLocation{}, &*file);
    fuzz::Require(by_name.ok() && PrintEncoding(**by_name) == printed,
                  "an alias resolves to what it defines");
    (void)CheckAgainstModule(*encoding, file->module);
    const int rank = encoding->Rank();
    if (rank < 1 || rank > 4) continue;
    (void)ToLinearLayout(*encoding, std::vector<int64_t>(rank, 16));
  }
  return 0;
}
