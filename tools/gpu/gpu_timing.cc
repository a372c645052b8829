#include "tools/gpu/gpu_timing.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/json.h"

namespace warpcheck::gpu {

const char kGpuRunUsage[] =
    "usage: warpcheck_gpu_run [--dump-dir=DIR] LAUNCH.textproto...\n"
    "       warpcheck_gpu_run --time [--grid-x=528] [--iters=2000] [--warmup=5] "
    "[--reps=20] [--min-ms=50]\n"
    "                         LAUNCH.textproto...\n"
    "\n"
    "Options:\n"
    "  --dump-dir=DIR  write each buffer's final bytes to DIR/<spec stem>.<buffer>.bin\n"
    "  --time          time the specs side by side (interleaved), one JSON line each\n"
    "  --grid-x=N      with --time: CTAs per launch (default 528)\n"
    "  --iters=N       with --time: value of the spec's u32 `iters` parameter (default "
    "2000)\n"
    "  --warmup=N      with --time: untimed rounds over all specs first (default 5)\n"
    "  --reps=N        with --time: timed rounds over all specs (default 20)\n"
    "  --min-ms=N      with --time: more timed rounds (up to 10000) until every spec has\n"
    "                  N ms of timed launches, for short kernels (default 50; 0: off)\n";

namespace {

absl::Status Usage(const std::string& what) { return absl::InvalidArgumentError(what); }

}  // namespace

absl::StatusOr<GpuRunArgs> ParseGpuRunArgs(const std::vector<std::string>& args) {
  GpuRunArgs out;
  bool timing_flag = false;
  struct Numeric {
    const char* name;
    uint32_t* value;
    bool may_be_zero;
  };
  const Numeric numeric[] = {{"grid-x", &out.timing.grid_x, false},
                             {"iters", &out.timing.iters, false},
                             {"warmup", &out.timing.warmup, true},
                             {"reps", &out.timing.reps, false},
                             {"min-ms", &out.timing.min_ms, true}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out.help = true;
      continue;
    }
    if (a == "--time") {
      out.time = true;
      continue;
    }
    if (a.size() < 2 || a.compare(0, 2, "--") != 0) {
      if (!a.empty() && a[0] == '-') return Usage(absl::StrCat("unknown flag ", a));
      out.files.push_back(a);
      continue;
    }
    // --name=value or --name value.
    std::string name = a.substr(2), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto take_value = [&]() -> absl::Status {
      if (has_value) return absl::OkStatus();
      if (i + 1 >= args.size()) return Usage(absl::StrCat("--", name, " needs a value"));
      value = args[++i];
      return absl::OkStatus();
    };
    if (name == "dump-dir") {
      if (absl::Status s = take_value(); !s.ok()) return s;
      if (value.empty()) return Usage("--dump-dir needs a folder");
      out.dump_dir = value;
      continue;
    }
    const Numeric* n = nullptr;
    for (const Numeric& candidate : numeric) {
      if (name == candidate.name) n = &candidate;
    }
    if (n == nullptr) return Usage(absl::StrCat("unknown flag --", name));
    if (absl::Status s = take_value(); !s.ok()) return s;
    uint32_t v = 0;
    if (!absl::SimpleAtoi(value, &v) || (v == 0 && !n->may_be_zero)) {
      return Usage(absl::StrCat(
          "--", name, "=", value, ": expected ",
          n->may_be_zero ? "a whole number" : "a positive whole number", " below 2^32"));
    }
    *n->value = v;
    timing_flag = true;
  }
  if (out.help) return out;
  if (timing_flag && !out.time) {
    return Usage("--grid-x, --iters, --warmup, --reps and --min-ms only apply with --time");
  }
  if (out.time && !out.dump_dir.empty()) {
    return Usage(
        "--dump-dir does not apply with --time (the check's buffers are hashed)");
  }
  if (out.files.empty()) return Usage("expected one or more LAUNCH.textproto");
  return out;
}

absl::StatusOr<int> ItersParamIndex(const LaunchSpec& spec, const std::string& where) {
  int index = -1, count = 0;
  for (int i = 0; i < spec.param_size(); ++i) {
    if (spec.param(i).kind_case() != Param::kU32) continue;
    if (index < 0) index = i;
    ++count;
  }
  if (count != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": --time sets the kernel's u32 `iters` parameter, but the spec has ",
        count, " u32 parameters, and a round-trip harness has exactly one"));
  }
  return index;
}

absl::StatusOr<LaunchSpec> TimedSpec(const LaunchSpec& spec, const std::string& where,
                                     uint32_t grid_x, uint32_t iters) {
  absl::StatusOr<int> index = ItersParamIndex(spec, where);
  if (!index.ok()) return index.status();
  LaunchSpec timed = spec;
  timed.mutable_grid()->set_x(grid_x);
  timed.mutable_param(*index)->set_u32(iters);
  return timed;
}

bool WantsAnotherSample(const TimingOptions& options, uint32_t samples, double total_ms) {
  if (samples < options.reps) return true;
  if (samples >= std::max(options.reps, kMaxTimedRounds)) return false;
  return total_ms < options.min_ms;
}

TimingStats Summarize(const std::vector<double>& samples_ms) {
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  TimingStats stats;
  const size_t n = sorted.size();
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  stats.median_ms = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double sum = 0;
  for (double v : sorted) sum += v;
  stats.mean_ms = sum / static_cast<double>(n);
  return stats;
}

std::string TimingJson(const TimingResult& r) {
  using sim::base::JsonQuote;
  if (!r.error.empty()) {
    return absl::StrCat("{\"file\": ", JsonQuote(r.file),
                        ", \"error\": ", JsonQuote(r.error), "}");
  }
  std::string json =
      absl::StrCat("{\"file\": ", JsonQuote(r.file),
                   ", \"device\": ", JsonQuote(r.device), ", \"grid_x\": ", r.grid_x,
                   ", \"block_x\": ", r.block_x, ", \"iters\": ", r.options.iters,
                   ", \"warmup\": ", r.options.warmup, ", \"reps\": ", r.options.reps,
                   ", \"min_total_ms\": ", r.options.min_ms, ", \"timed\": ", r.samples_ms.size());
  if (!r.buffers_from.empty()) {
    absl::StrAppend(&json, ", \"buffers_from\": ", JsonQuote(r.buffers_from));
  }
  if (!r.samples_ms.empty()) {
    const TimingStats s = Summarize(r.samples_ms);
    absl::StrAppend(
        &json, absl::StrFormat(", \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": "
                               "%.6f, \"ns_per_round_trip\": %.3f",
                               s.median_ms, s.min_ms, s.max_ms,
                               s.median_ms * 1e6 / r.options.iters));
  }
  absl::StrAppend(&json, ", \"samples_ms\": [");
  for (size_t i = 0; i < r.samples_ms.size(); ++i) {
    absl::StrAppend(&json, i ? ", " : "", absl::StrFormat("%.6f", r.samples_ms[i]));
  }
  absl::StrAppend(&json, "], \"ok\": ", r.check.ok() ? "true" : "false",
                  ", \"check\": ", sim::base::ToJson(r.check), "}");
  return json;
}

GpuTimeReport ToGpuTimeReport(const std::vector<TimingResult>& results,
                              const TimingOptions& options) {
  GpuTimeReport report;
  report.set_grid_x(options.grid_x);
  report.set_iters(options.iters);
  report.set_warmup(options.warmup);
  report.set_reps(options.reps);
  double first_median_ns = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const TimingResult& r = results[i];
    GpuTimeReport::Kernel* k = report.add_kernels();
    k->set_file(r.file);
    if (!r.error.empty()) {
      k->set_error(r.error);
      continue;
    }
    if (report.device().empty()) report.set_device(r.device);
    k->set_block_x(r.block_x);
    k->set_ok(r.check.ok());
    *k->mutable_check() = r.check;
    if (r.samples_ms.empty()) continue;
    const TimingStats s = Summarize(r.samples_ms);
    k->set_min_ns(s.min_ms * 1e6);
    k->set_median_ns(s.median_ms * 1e6);
    k->set_mean_ns(s.mean_ms * 1e6);
    k->set_max_ns(s.max_ms * 1e6);
    k->set_ns_per_round_trip(s.median_ms * 1e6 / r.options.iters);
    for (double ms : r.samples_ms) k->add_samples_ns(ms * 1e6);
    if (i == 0) first_median_ns = k->median_ns();
    if (first_median_ns > 0) k->set_ratio_to_first(k->median_ns() / first_median_ns);
  }
  return report;
}

}  // namespace warpcheck::gpu
