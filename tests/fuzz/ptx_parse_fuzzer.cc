// Fuzz target: PTX text -> ptx::Module (sim/ptx/parser.h).
//
// Properties checked on every input:
//   * parsing never crashes, hangs or runs out of memory; a rejection is an input error
//     "fuzz.ptx:<line>:<col>: ..." (fuzz_check.h);
//   * an accepted module prints (sim/ptx/printer.h) without crashing, and the print
//     parses again.
// Seeds: corpus/fuzz/ptx_parse/ (cut from corpus/triton and the tests' PTX).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/ptx/parser.h"
#include "sim/ptx/printer.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto module = sim::ptx::ParseModule(text, "fuzz.ptx");
  if (!module.ok()) {
    fuzz::RequireInputError(module.status(), "fuzz.ptx:");
    return 0;
  }
  const std::string printed = sim::ptx::PrintModule(*module);
  auto reparsed = sim::ptx::ParseModule(printed, "printed.ptx");
  fuzz::Require(reparsed.ok(), "the print of an accepted module parses");
  return 0;
}
