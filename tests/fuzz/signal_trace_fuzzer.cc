// Fuzz target: SignalTrace text proto -> format check, inline program compiled,
// events validated against the machine (sim/signal/driver.h), as `signal replay` reads
// a trace before replaying it.
//
// Properties checked on every input:
//   * nothing crashes, hangs or runs out of memory; a rejection is an input error
//     "fuzz.textproto..." (fuzz_check.h);
//   * an accepted trace renders every event as one line.
// Seeds: corpus/fuzz/signal_trace/ (corpus/signal traces with the program inline).
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
  namespace sig = sim::signal;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string origin = "fuzz.textproto";
  SignalTrace trace;
  if (auto s = sim::base::ParseTextProto(text, origin, &trace); !s.ok()) {
    fuzz::RequireInputError(s, origin);
    return 0;
  }
  if (auto s = sig::CheckTraceFormatVersion(trace, origin); !s.ok()) {
    fuzz::RequireInputError(s, origin);
    return 0;
  }
  auto program = sig::CompileProgram(trace.program(), origin);
  if (!program.ok()) {
    fuzz::RequireInputError(program.status(), origin);
    return 0;
  }
  auto machine = sig::Machine::Create(*program);
  if (!machine.ok()) {
    fuzz::RequireInputError(machine.status(), "");
    return 0;
  }
  if (auto s = sig::ValidateTrace(*machine, trace, origin); !s.ok()) {
    fuzz::RequireInputError(s, origin);
    return 0;
  }
  for (const auto& e : trace.events()) {
    const std::string line = sig::RenderEvent(e);
    fuzz::Require(line.find('\n') == std::string::npos, "one line per event");
  }
  return 0;
}
