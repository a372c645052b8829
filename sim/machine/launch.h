// Running a launch spec (proto/launch.proto; shared/design/CLI.md "Simulator").
//
//   warpcheck sim run LAUNCH.textproto [--trace=FILE]
//
// is RunLaunchSpecFile below: load the text proto (with its `# proto-message:
// warpcheck.LaunchSpec` header), read the PTX file named relative to the spec, decode the
// kernel, allocate and fill the buffers, run the grid, evaluate the expectations and
// report counters, faults and a SHA-256 of every buffer.
//
// Errors in the *input* (unreadable or malformed spec or PTX, a parameter that does not
// match the kernel's signature, an instruction outside the subset) are InvalidArgument or
// NotFound statuses with `file:line:column`; a buffer past the size limit is
// ResourceExhausted; a trace that cannot be committed is Internal. Faults of the
// *program* (races, bad addresses, deadlocks, ...) are data: SimReport.ok = false with
// the faults listed. Nothing here picks an exit code (tools/warpcheck/sim_command.cc).
//
// Loading, validation, buffer fills (ZERO, POISON, IOTA, RANDOM = SplitMix64, FILE),
// expectations and SHA-256 are sim/launch's, shared with the GPU runner (tools/gpu), so
// both start from the same bytes and judge results the same way. Buffers live at
// distinct 1 MiB-aligned fake addresses from 0x7000'0000'0000 in parameter order; a
// null_ptr parameter is 0.
#ifndef WARPCHECK_SIM_MACHINE_LAUNCH_H_
#define WARPCHECK_SIM_MACHINE_LAUNCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "proto/report.pb.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/program.h"
#include "sim/ptx/ast.h"

namespace warpcheck::sim::machine {

class SharedCostMemo;  // machine.h

struct RunOptions {
  // Write one line per executed warp instruction here (empty: no trace).
  std::string trace_path;
  // 0: the spec's max_instructions_per_thread, or 10^8.
  uint64_t max_instructions_per_thread = 0;
  uint32_t max_resident_ctas = 132;
  bool detect_races = true;
  // Options::fast_ldst (machine.h): false only in tests, as the general path.
  bool fast_ldst = true;
  // Options::fast_straight_line (machine.h): false only in tests, as the general path.
  bool fast_straight_line = true;
  // Options::zero_every_register (machine.h): true only in tests, as the reference.
  bool zero_every_register = false;
  // Options::poison_unzeroed_registers: tests only.
  bool poison_unzeroed_registers = false;
  // Report the last global store to this byte: (buffer name, byte offset). Empty name:
  // none. See LaunchResult::watch.
  std::string watch_buffer;
  uint64_t watch_offset = 0;
  // SHA-256 of every buffer into SimReport.buffers[].sha256. False: the names only (the
  // sha256 fields stay empty); for callers that only read ok, faults and counters (the
  // fuzzer, benchmarks), where hashing would cost more than a small kernel's run.
  bool hash_buffers = true;
  // SimReport.counters filled. False: left empty, and shared-memory requests are not
  // costed at all (Options::count_banks); for callers that read only ok and faults (the
  // fuzzer's launches other than the one it measures), where the ~35 map entries cost
  // as much as a small kernel's bank counting.
  bool report_counters = true;
  // Options::shared_cost_memo (machine.h): a memo of bank costs kept across launches by
  // the caller (the fuzzer: one per harness, for its fills). Null: the launch's own.
  SharedCostMemo* shared_cost_memo = nullptr;
  // Options::count_banks_below_pc: with report_counters, the shared-memory figures of the
  // instructions below this pc only (the fuzzer's check harness: its forward conversion).
  uint32_t count_banks_below_pc = UINT32_MAX;
};

// A buffer's final bytes by name (the type every runner shares, sim/launch).
using BufferBytes = sim::launch::NamedBuffer;

struct LaunchResult {
  warpcheck::SimReport report;
  // Final contents of every buffer parameter, in parameter order (for GPU diffs).
  std::vector<BufferBytes> buffers;
  // With RunOptions::watch_buffer: the last store that wrote the watched byte, rendered
  // as "CTA (x,y,z) thread T (warp W, lane L), line N: <instruction>, element E (<reg>)";
  // empty when nothing stored there.
  std::string watch;
};



// Runs `spec` (its ptx_file is read relative to `base_dir`).
absl::StatusOr<LaunchResult> RunLaunchSpec(const warpcheck::LaunchSpec& spec,
                                           const std::string& base_dir,
                                           const RunOptions& options);

// Runs `spec` on an already parsed module (codegen and tests; spec.ptx_file is ignored).
absl::StatusOr<LaunchResult> RunLaunchSpecOnModule(const warpcheck::LaunchSpec& spec,
                                                   const ptx::Module& module,
                                                   const std::string& base_dir,
                                                   const RunOptions& options);

// The same on a kernel decoded once (program.h Decode) for several launches: the
// fuzzer runs each harness on random data and on distinct tags. RunLaunchSpecOnModule is
// FindKernel + Decode + this, so both give the same result for the same kernel.
// Requires: the module `program` was decoded from outlives the call (fault texts).
// Ensures: InvalidArgument when spec.kernel() is set and names another kernel.
absl::StatusOr<LaunchResult> RunLaunchSpecOnProgram(const warpcheck::LaunchSpec& spec,
                                                    const Program& program,
                                                    const std::string& base_dir,
                                                    const RunOptions& options);

// LoadLaunchSpec + RunLaunchSpec with the spec's folder as base_dir.
absl::StatusOr<warpcheck::SimReport> RunLaunchSpecFile(const std::string& path,
                                                       const RunOptions& options);
absl::StatusOr<LaunchResult> RunLaunchSpecFileWithBuffers(const std::string& path,
                                                          const RunOptions& options);

// Checks a report against the spec's sim_expect (corpus use): OK when `report.ok`
// equals sim_expect.ok (default true) and, when fault_kind is set, a fault of that kind
// was reported; otherwise FailedPrecondition saying what differs.
absl::Status CheckSimExpect(const warpcheck::LaunchSpec& spec,
                            const warpcheck::SimReport& report);

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_LAUNCH_H_
