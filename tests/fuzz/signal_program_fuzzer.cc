// Fuzz target: SignalProgram text proto -> compiled signal::Program -> Machine, lint
// (sim/signal/program.h, driver.h).
//
// Properties checked on every input:
//   * parsing, compiling, building the machine and linting never crash, hang or run out
//     of memory; a rejection is an input error "fuzz.textproto..." (fuzz_check.h).
// Seeds: corpus/fuzz/signal_program/ (corpus/signal programs).
#include <cstddef>
#include <cstdint>
#include <string>

#include "proto/signal.pb.h"
#include "sim/base/text_proto.h"
#include "sim/signal/driver.h"
#include "sim/signal/machine.h"
#include "sim/signal/program.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpcheck;
  const std::string text(reinterpret_cast<const char*>(data), size);
  SignalProgram proto;
  if (auto s = sim::base::ParseTextProto(text, "fuzz.textproto", &proto); !s.ok()) {
    fuzz::RequireInputError(s, "fuzz.textproto");
    return 0;
  }
  auto program = sim::signal::CompileProgram(proto, "fuzz.textproto");
  if (!program.ok()) {
    fuzz::RequireInputError(program.status(), "fuzz.textproto");
    return 0;
  }
  auto machine = sim::signal::Machine::Create(*program);
  if (!machine.ok()) {
    fuzz::RequireInputError(machine.status(), "");
    return 0;
  }
  auto lint = sim::signal::LintProgram(*program);
  if (!lint.ok()) fuzz::RequireInputError(lint.status(), "");
  return 0;
}
