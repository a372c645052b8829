// Running a launch spec's PTX on a real GPU, through the CUDA driver API.
//
// This is the hardware side of `warpcheck gpu run` / `warpcheck gpu diff`: the same
// LaunchSpec the simulator runs (proto/launch.proto) is loaded here with the driver's own
// PTX JIT (cuModuleLoadDataEx), its buffers filled by the same code the simulator uses
// (sim/launch/buffer_fill.h), the kernel launched once with the spec's grid, block,
// dynamic shared memory and parameters in order, and the buffers copied back, hashed
// (sim/launch/sha256.h) and judged (sim/launch/launch_spec.h), so a GPU result and a
// simulator result can be compared byte for byte and hash for hash.
//
//   ASSIGN_OR_RETURN(LaunchSpec spec, sim::launch::LoadLaunchSpec(path));
//   ASSIGN_OR_RETURN(GpuRunResult r, gpu::RunOnGpu(spec, sim::launch::SpecDir(path)));
//   // r.ok, r.fault, r.buffers[i].{name, bytes, sha256}, r.expectations
//
// The driver library (libcuda.so.1) is opened at run time with dlopen rather than linked,
// so a binary built WITH_CUDA still starts on a machine without a GPU or driver: every
// entry point then returns Unavailable (tests skip with 77 on that).
//
// Faults are values. A kernel that fails on the device (misaligned or illegal address,
// trap) or writes outside a buffer (each buffer sits between two 256-byte guard bands
// that are checked after the run) gives ok = false with `fault`/`fault_kind` set; it is
// not an error Status. Errors are for what prevents the run: no device (Unavailable), an
// unreadable PTX file (NotFound), PTX the driver rejects or parameters that do not match
// the kernel's (InvalidArgument), a launch the device refuses (FailedPrecondition).
//
// A device fault ("cuda_error") is sticky: on an H200 with driver 580 CUDA stays broken
// in the process even after cuDevicePrimaryCtxReset. After one, GpuContextLost() is true
// and every later RunOnGpu returns FailedPrecondition; a caller running many specs should
// go on in a fresh process (warpcheck_gpu_run re-executes itself for the remaining
// specs).
//
// Not thread-safe: one run at a time per process (the runner keeps one CUDA context).
#ifndef WARPCHECK_TOOLS_GPU_GPU_RUNNER_H_
#define WARPCHECK_TOOLS_GPU_GPU_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "proto/report.pb.h"
#include "sim/launch/launch_spec.h"
#include "tools/gpu/gpu_timing.h"

namespace warpcheck::gpu {

struct GpuBuffer {
  std::string name;
  std::vector<uint8_t> bytes;  // contents after the kernel ran
  std::string sha256;          // sim::launch::Sha256Hex(bytes)
};

struct GpuRunResult {
  // e.g. "NVIDIA H200 (sm_90), driver 13.0"
  std::string device;
  // The kernel ran without fault and every expectation holds.
  bool ok = false;
  // "" when none; else "cuda_error" (the launch failed on the device; `fault` has the
  // driver's error name and text) or "out_of_bounds" (a guard band was overwritten).
  std::string fault_kind;
  std::string fault;
  // Buffer params in param order (empty after a cuda_error fault: the context is lost).
  std::vector<GpuBuffer> buffers;
  std::vector<SimExpectationResult> expectations;
  // Kernel time from CUDA events around the one launch (includes launch overhead).
  double kernel_ms = 0;
};

// Ok when the driver loads, cuInit succeeds and there is at least one device; otherwise
// Unavailable with the reason (no libcuda.so.1, cuInit's error, no device).
absl::Status GpuAvailable();

// True after a run in this process ended in a "cuda_error" fault (see above).
bool GpuContextLost();

// Runs `spec` once on device 0 (CUDA_VISIBLE_DEVICES picks it). Relative paths in the
// spec (ptx_file, FILE buffers) are resolved against `spec_dir` ("" = current folder).
// Requires: nothing; the spec is validated (sim::launch::ValidateLaunchSpec) first.
// Ensures: on success, one GpuBuffer per buffer param unless fault_kind == "cuda_error";
//   ok == (fault_kind.empty() && every expectation ok).
[[nodiscard]] absl::StatusOr<GpuRunResult> RunOnGpu(const LaunchSpec& spec,
                                                    const std::string& spec_dir);

// LoadLaunchSpec(path) + RunOnGpu(spec, SpecDir(path)).
[[nodiscard]] absl::StatusOr<GpuRunResult> RunLaunchFileOnGpu(const std::string& path);

// The GPU result in the `sim` report's shape (CLI.md "Simulator"), so `gpu run` prints
// the same JSON fields as `sim run`: ok, faults (kind + text), expectations, buffers
// (name + sha256). No counters: the GPU run measures none.
[[nodiscard]] SimReport ToSimReport(const GpuRunResult& result);

// One spec for TimeOnGpu: `file` names it in the results and errors; relative paths in
// the spec are resolved against `spec_dir`.
struct TimingInput {
  std::string file;
  LaunchSpec spec;
  std::string spec_dir;
};

// The timing mode (gpu_timing.h): every input with grid.x and `iters` overridden, warm-up
// rounds, `reps` timed rounds interleaved across the inputs (A B C A B C ...), each launch
// between two events, then the check launch (buffers refilled, iters = 1). One result per
// input, in order. A spec that cannot be prepared (input error, launch refused) gets
// `error` and the others go on. A device fault while timing is that spec's result
// (check.ok = false, fault kind "cuda_error"); the context is lost with it, so the
// specs not yet finished get `error` saying so.
// Errors: Unavailable without a GPU; FailedPrecondition when the context was lost before.
[[nodiscard]] absl::StatusOr<std::vector<TimingResult>> TimeOnGpu(
    const std::vector<TimingInput>& inputs, const TimingOptions& options);

}  // namespace warpcheck::gpu

#endif  // WARPCHECK_TOOLS_GPU_GPU_RUNNER_H_
