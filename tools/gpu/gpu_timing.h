// Timing mode of the GPU runner: how long one convert_layout round trip takes on the
// device, for several kernels measured side by side in one process.
//
//   warpcheck_gpu_run --time [--grid-x=528] [--iters=2000] [--warmup=5] [--reps=20]
//                     A.textproto B.textproto ...
//
// Every spec is a round-trip harness `kernel(in, out, u32 iters, ...)` (shared/design/
// CLI.md `convert emit --harness=roundtrip`, and Triton's corpus/triton kernels). Timing
// overrides two things in each spec: grid.x (default 528 = 4 CTAs on each of the H200's
// 132 SMs, so the GPU is full) and the value of the spec's one u32 parameter, `iters`
// (default 2000, so a launch lasts long enough for events to resolve it). Then:
//
//   1. warm-up: `warmup` rounds, each launching every spec once (A B C A B C ...);
//   2. `reps` rounds of the same interleaved order, each launch timed alone with
//      cuEventRecord before and after it and cuEventElapsedTime (the stream is
//      synchronised after each launch, so launches never overlap); then more rounds
//      for the specs that have fewer than `min_ms` milliseconds of timed launches, up
//      to kMaxTimedRounds samples each (WantsAnotherSample). A kernel of about 10 us (a conversion that moves nothing, whose time
//      is its launch) varies by tens of percent from launch to launch on the H200: the
//      same two kernels (jsonl line 476, ours and Triton's) measured 18.8 and 6.6 ns per
//      round trip in one run of 20 rounds and 5.0 and 4.5 in another of 30;
//   3. the check: every buffer refilled from the spec, one launch with iters = 1 (same
//      grid), buffers read back and judged by the spec's expectations, as `gpu run` does.
//
// Interleaving puts clock and thermal drift on every kernel alike, so the ratio of two
// kernels' medians is fair even when the absolute numbers drift. Specs whose buffers
// match (name and size, in the first such spec: ours and Triton's kernel of one pair)
// are timed on one set of buffers, the first spec's, so that where the buffers lie in
// memory is the same for both (the check of step 3 uses each spec's own): on their own
// buffers, a copy of one kernel timed against itself came out 1.21x apart (line 497) and
// 0.92x (line 539), on shared ones within 1% (corpus/plan/h200/exp_2026-12-03b/aa_*).
//
// Reported per spec: median / min / max milliseconds over the `reps` timed launches
// (median of an even count = mean of the two middle ones) and
// ns_per_round_trip = median_ms * 1e6 / iters: nanoseconds per iteration of the loop for
// the whole grid, i.e. per round trip (two conversions) per CTA-wave when all CTAs are
// resident at once (528 CTAs of up to 4 warps on 132 SMs); the loop's own few
// instructions and the one load and store of the tensor are included, amortised over
// `iters`.
//
// This file is the part that needs no GPU (arguments, spec overrides, statistics, JSON);
// TimeOnGpu in gpu_runner.h runs it.
#ifndef WARPCHECK_TOOLS_GPU_GPU_TIMING_H_
#define WARPCHECK_TOOLS_GPU_GPU_TIMING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "proto/report.pb.h"

namespace warpcheck::gpu {

struct TimingOptions {
  uint32_t grid_x = 528;
  uint32_t iters = 2000;
  uint32_t warmup = 5;
  uint32_t reps = 20;
  uint32_t min_ms = 50;  // 0: exactly `reps` rounds
};

// The most timed rounds `min_ms` may add up to (a 2 us kernel would otherwise need 25 000).
inline constexpr uint32_t kMaxTimedRounds = 10000;

// warpcheck_gpu_run's command line (without argv[0]).
struct GpuRunArgs {
  bool help = false;
  std::string dump_dir;
  bool time = false;
  TimingOptions timing;
  std::vector<std::string> files;
};

// Flags take `--name=value` or `--name value`. Errors (InvalidArgument, exit 1 in the
// tool): an unknown flag, a missing or non-numeric value, --grid-x/--iters/--reps of 0,
// a timing flag without --time, --dump-dir with --time, no spec file (unless --help).
[[nodiscard]] absl::StatusOr<GpuRunArgs> ParseGpuRunArgs(
    const std::vector<std::string>& args);

extern const char kGpuRunUsage[];

// The index of the spec's one u32 parameter (the harness's `iters`).
// Errors: InvalidArgument "<where>: ..." when the spec has no u32 parameter or several.
[[nodiscard]] absl::StatusOr<int> ItersParamIndex(const LaunchSpec& spec,
                                                  const std::string& where);

// `spec` with grid.x = grid_x and its iters parameter = iters.
// Requires: nothing. Errors: as ItersParamIndex.
[[nodiscard]] absl::StatusOr<LaunchSpec> TimedSpec(const LaunchSpec& spec,
                                                   const std::string& where,
                                                   uint32_t grid_x, uint32_t iters);

// Whether TimeOnGpu times a spec again, given its samples so far and their total
// milliseconds: yes below `reps`; no at max(reps, kMaxTimedRounds); in between, while
// the total is below `min_ms`. Each spec decides for itself: a round launches only the
// specs that want another sample, so a 5 us kernel's thousands of rounds do not repeat
// a 35 ms kernel timed in the same process (they did in the first version, which ran
// rounds of all specs: one batch of 8 pairs took 152 s on the H200).
[[nodiscard]] bool WantsAnotherSample(const TimingOptions& options, uint32_t samples,
                                      double total_ms);

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
};

// Requires: !samples_ms.empty().
[[nodiscard]] TimingStats Summarize(const std::vector<double>& samples_ms);

// One spec's timing. `error` set: the spec could not be timed (input error, launch
// refused, context lost by another spec's fault); nothing else but `file` is meaningful.
struct TimingResult {
  std::string file;
  std::string error;
  std::string device;
  uint32_t grid_x = 0;
  uint32_t block_x = 0;
  TimingOptions options;
  // One per timed repetition, in order. Empty when the kernel faulted while timing.
  std::vector<double> samples_ms;
  // The spec whose buffers the timed launches used (TimeOnGpu: specs with the same
  // buffers, by name and size, share the first one's); empty: its own.
  std::string buffers_from;
  // The final iters = 1 launch (or the faulting timed launch): ok, faults, expectations,
  // buffer hashes, as `warpcheck gpu run` reports them.
  SimReport check;
};

// One JSON object, one line (tools/gpu/README.md "Timing mode"):
//   {"file": s, "device": s, "grid_x": n, "block_x": n, "iters": n, "warmup": n,
//    "reps": n, "min_total_ms": n, "timed": n (samples taken), "median_ms": x,
//    "min_ms": x, "max_ms": x, "ns_per_round_trip": x,
//    "samples_ms": [x, ...], "ok": b, "check": <SimReport JSON>}
// with "buffers_from": s after "timed" when the spec was timed on another's buffers;
// without the four statistics when there are no samples; {"file": s, "error": s} when
// `error` is set.
[[nodiscard]] std::string TimingJson(const TimingResult& result);

// The results of one timing session (in command-line order) as `warpcheck gpu time`'s
// report: per kernel min/median/mean/max ns of a launch, ns_per_round_trip, and
// ratio_to_first = median / the first result's median (0 when either has no samples).
// device, grid_x and the options from the first result without `error`.
[[nodiscard]] GpuTimeReport ToGpuTimeReport(const std::vector<TimingResult>& results,
                                            const TimingOptions& options);

}  // namespace warpcheck::gpu

#endif  // WARPCHECK_TOOLS_GPU_GPU_TIMING_H_
