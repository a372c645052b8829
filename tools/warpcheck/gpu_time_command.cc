#include "tools/warpcheck/gpu_time_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/launch/launch_spec.h"
#include "tools/gpu/gpu_timing.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#ifdef WARPCHECK_WITH_CUDA
#include "tools/gpu/gpu_runner.h"
#endif

namespace warpcheck::cli {
namespace {

constexpr char kUsage[] =
    "usage: warpcheck gpu time A.launch.textproto [B.launch.textproto ...] [options]\n"
    "\n"
    "Times round-trip harness kernels (`kernel(in, out, u32 iters, ...)`: ours from\n"
    "`convert emit --harness=roundtrip --launch-out=...`, Triton's as in corpus/triton)\n"
    "side by side on one GPU, in one process: warm-up rounds, then timed rounds\n"
    "launching the kernels interleaved (A B C A B C ...), each launch alone between two\n"
    "CUDA events; then one check launch each (iters = 1, buffers judged as `gpu run`\n"
    "does).\n"
    "Each spec's grid.x and its one u32 parameter (iters) are overridden. Reports per\n"
    "kernel the min, median and mean ns of one launch, ns per round trip (median /\n"
    "iters) and the ratio of its median to the first kernel's.\n"
    "\n"
    "Options:\n"
    "  --warmup=N     untimed rounds over all kernels first (default 5)\n"
    "  --reps=N       timed rounds over all kernels (default 20)\n"
    "  --min-ms=N     then more rounds (at most 10000) until each kernel has N ms of\n"
    "                 timed launches: short kernels vary a lot (default 50; 0: off)\n"
    "  --iters=N      the kernels' iters parameter (default 2000)\n"
    "  --grid-x=N     CTAs per launch (default 528: 4 on each of the H200's 132 SMs)\n"
    "  --format=text|json|textproto\n"
    "\n"
    "Needs a build with the CUDA Toolkit and a GPU; exit 77 when there is none.\n"
    "Exit 0 all timed and checked ok, 10 a check failed, 2 a spec could not be timed.\n";

}  // namespace

const std::set<std::string>& GpuTimeValueFlags() {
  static const std::set<std::string> kFlags = {"format", "warmup", "reps", "iters",
                                               "grid-x", "min-ms"};
  return kFlags;
}

#ifdef WARPCHECK_WITH_CUDA
namespace {

void PrintGpuTimeText(const GpuTimeReport& r, std::ostream& out) {
  out << r.device() << ": grid.x " << r.grid_x() << ", iters " << r.iters() << ", warmup "
      << r.warmup() << ", reps " << r.reps() << " (ns of one launch)\n";
  out << absl::StrFormat("%12s %12s %12s %12s %8s %6s  %s\n", "min", "median", "mean",
                         "ns/trip", "ratio", "check", "kernel");
  for (const GpuTimeReport::Kernel& k : r.kernels()) {
    if (!k.error().empty()) {
      out << absl::StrFormat("%12s %12s %12s %12s %8s %6s  %s: %s\n", "-", "-", "-", "-",
                             "-", "-", k.file(), k.error());
      continue;
    }
    out << absl::StrFormat("%12.0f %12.0f %12.0f %12.1f %8.3f %6s  %s\n", k.min_ns(),
                           k.median_ns(), k.mean_ns(), k.ns_per_round_trip(),
                           k.ratio_to_first(), k.ok() ? "ok" : "FAILS", k.file());
  }
}

}  // namespace
#endif

int RunGpuTime(const ParsedArgs& args, std::ostream& out, std::ostream& err,
               Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (args.positional.empty()) {
    PrintError(err, "gpu time: expected one or more LAUNCH.textproto");
    err << kUsage;
    return kExitUsage;
  }
  // The timing options (defaults: tools/gpu/gpu_timing.h; it needs no CUDA).
  gpu::TimingOptions options;
  struct Flag {
    const char* name;
    int64_t min;
    uint32_t* value;
  } flags[] = {{"warmup", 0, &options.warmup},
               {"reps", 1, &options.reps},
               {"iters", 1, &options.iters},
               {"grid-x", 1, &options.grid_x},
               {"min-ms", 0, &options.min_ms}};
  for (const Flag& f : flags) {
    auto v = args.GetInt(f.name, f.min, UINT32_MAX);
    if (!v.ok()) {
      PrintError(err, absl::StrCat("gpu time: ", v.status().message()));
      return kExitUsage;
    }
    if (v->has_value()) *f.value = static_cast<uint32_t>(**v);
  }
#ifndef WARPCHECK_WITH_CUDA
  PrintError(err,
             "gpu time: this warpcheck was built without the CUDA Toolkit; rebuild with "
             "-DWITH_CUDA=ON");
  return kExitInputError;
#else
  // Every spec is loaded and its iters parameter found before the GPU is asked for, so
  // input errors are reported on any machine.
  int exit_code = kExitOk;
  std::vector<gpu::TimingResult> results(args.positional.size());
  std::vector<gpu::TimingInput> inputs;
  std::vector<size_t> timed;  // index into results of each input
  for (size_t i = 0; i < args.positional.size(); ++i) {
    const std::string& file = args.positional[i];
    results[i].file = file;
    absl::StatusOr<LaunchSpec> spec = sim::launch::LoadLaunchSpec(file);
    absl::Status st =
        spec.ok() ? gpu::ItersParamIndex(*spec, file).status() : spec.status();
    if (!st.ok()) {
      results[i].error = std::string(st.message());
      PrintError(err, results[i].error);
      exit_code = kExitInputError;
      continue;
    }
    inputs.push_back({file, *std::move(spec), sim::launch::SpecDir(file)});
    timed.push_back(i);
  }
  if (inputs.empty()) return exit_code;
  if (absl::Status available = gpu::GpuAvailable(); !available.ok()) {
    PrintError(err, absl::StrCat("gpu time: no usable GPU: ", available.message()));
    return exit_code == kExitOk ? kExitSkip : exit_code;
  }
  auto measured = gpu::TimeOnGpu(inputs, options);
  if (!measured.ok()) {
    PrintError(err, absl::StrCat("gpu time: ", measured.status().message()));
    return kExitInternal;
  }
  for (size_t j = 0; j < timed.size(); ++j) {
    const gpu::TimingResult& r = (*measured)[j];
    if (!r.error.empty()) {
      PrintError(err, r.error);
      exit_code = kExitInputError;
    } else if (!r.check.ok() && exit_code == kExitOk) {
      exit_code = kExitViolated;
    }
    results[timed[j]] = r;
  }
  Report report;
  *report.mutable_gpu_time() = gpu::ToGpuTimeReport(results, options);
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintGpuTimeText(report.gpu_time(), out);
  return exit_code;
#endif
}

}  // namespace warpcheck::cli
