#include "tools/warpcheck/sim_command.h"

#include <filesystem>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/launch.h"
#include "tools/warpcheck/cli.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#ifdef WARPCHECK_WITH_CUDA
#include "tools/gpu/gpu_runner.h"
#endif

namespace warpcheck::cli {
namespace {

constexpr char kSimRunUsage[] =
    "usage: warpcheck sim run LAUNCH.textproto [--trace=FILE] [--format=text|json|textproto]\n"
    "\n"
    "Runs a launch spec (proto/launch.proto: PTX file, grid, block, parameters, buffers,\n"
    "expectations) on the warp/CTA simulator and reports faults, counters, expectations\n"
    "and a SHA-256 of every buffer. Exit 0 when there is no fault and every expectation\n"
    "holds, 10 otherwise, 2 for bad input.\n"
    "\n"
    "Debugging options:\n"
    "  --trace=FILE   one line per executed warp instruction (CTA, warp, PC, line, mask)\n";

constexpr char kGpuUsage[] =
    "usage: warpcheck gpu run  LAUNCH.textproto [--format=...]\n"
    "       warpcheck gpu diff LAUNCH.textproto... [--format=...]\n"
    "\n"
    "run: the same launch spec on a real GPU through the CUDA driver API.\n"
    "diff: the simulator and the GPU on each spec; every buffer compared bit for bit.\n"
    "Needs a build with -DWITH_CUDA=ON and a GPU; exit 77 when there is none.\n";

void PrintSimText(const SimReport& sim, std::ostream& out) {
  out << (sim.ok() ? "ok" : "NOT ok") << "\n";
  for (const SimFault& f : sim.faults()) {
    out << "fault " << f.kind() << " at CTA (" << (f.cta_size() > 0 ? f.cta(0) : 0) << ","
        << (f.cta_size() > 1 ? f.cta(1) : 0) << "," << (f.cta_size() > 2 ? f.cta(2) : 0)
        << ") thread " << f.thread() << " pc " << f.pc() << " line " << f.line() << ": "
        << f.text() << "\n";
  }
  for (const SimExpectationResult& e : sim.expectations()) {
    out << "expect " << e.name() << ": " << (e.ok() ? "holds" : "FAILS");
    if (!e.detail().empty()) out << " (" << e.detail() << ")";
    out << "\n";
  }
  // Sorted, zeros left out (JSON has them all).
  std::map<std::string, uint64_t> counters(sim.counters().begin(), sim.counters().end());
  out << "counters:";
  for (const auto& [name, value] : counters) {
    if (value != 0) out << " " << name << "=" << value;
  }
  out << "\n";
  for (const SimBuffer& b : sim.buffers()) {
    out << "buffer " << b.name() << " sha256 " << b.sha256() << "\n";
  }
}

}  // namespace

int RunSimRun(const ParsedArgs& args, std::ostream& out, std::ostream& err,
              Report* report_out) {
  if (args.Has("help")) {
    out << kSimRunUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (args.positional.size() != 1) {
    PrintError(err, "sim run: expected exactly one LAUNCH.textproto");
    err << kSimRunUsage;
    return kExitUsage;
  }
  sim::machine::RunOptions options;
  options.trace_path = args.Get("trace").value_or("");
  absl::StatusOr<SimReport> simulated =
      sim::machine::RunLaunchSpecFile(args.positional[0], options);
  if (!simulated.ok()) {
    PrintError(err, simulated.status().message());
    return ExitCodeFor(simulated.status());
  }
  Report report;
  *report.mutable_sim() = *std::move(simulated);
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintSimText(report.sim(), out);
  return ExitCodeFor(report);
}

int RunGpu(const ParsedArgs& args, bool diff, std::ostream& out, std::ostream& err,
           Report* report_out) {
  if (args.Has("help")) {
    out << kGpuUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (args.positional.empty() || (!diff && args.positional.size() != 1)) {
    PrintError(err, diff ? "gpu diff: expected one or more LAUNCH.textproto"
                         : "gpu run: expected exactly one LAUNCH.textproto");
    err << kGpuUsage;
    return kExitUsage;
  }
#ifndef WARPCHECK_WITH_CUDA
  PrintError(err,
             "gpu: this warpcheck was built without the CUDA Toolkit; rebuild with "
             "-DWITH_CUDA=ON");
  return kExitInputError;
#else
  absl::Status available = gpu::GpuAvailable();
  if (!available.ok()) {
    PrintError(err, absl::StrCat("gpu: no usable GPU: ", available.message()));
    return 77;
  }
  if (!diff) {
    auto r = gpu::RunLaunchFileOnGpu(args.positional[0]);
    if (!r.ok()) {
      PrintError(err, r.status().message());
      return r.status().code() == absl::StatusCode::kInvalidArgument ||
                     r.status().code() == absl::StatusCode::kNotFound
                 ? kExitInputError
                 : kExitInternal;
    }
    Report report;
    *report.mutable_sim() = gpu::ToSimReport(*r);
    if (report_out) *report_out = report;
    if (!PrintMachineReport(report, *format, out)) {
      out << r->device << ", kernel " << absl::StrFormat("%.3f", r->kernel_ms) << " ms\n";
      PrintSimText(report.sim(), out);
    }
    return r->ok ? kExitOk : kExitViolated;
  }
  // diff: simulator vs GPU, spec by spec.
  int exit_code = kExitOk;
  int64_t agree = 0, disagree = 0;
  for (const std::string& path : args.positional) {
    auto simulated = sim::machine::RunLaunchSpecFileWithBuffers(path, {});
    if (!simulated.ok()) {
      PrintError(err, simulated.status().message());
      exit_code = kExitInputError;
      continue;
    }
    if (gpu::GpuContextLost()) {
      PrintError(err, absl::StrCat(path, ": skipped: the GPU context was lost after a device "
                                         "fault; run the remaining specs in a new process"));
      exit_code = kExitInternal;
      continue;
    }
    auto hw = gpu::RunLaunchFileOnGpu(path);
    if (!hw.ok()) {
      PrintError(err, absl::StrCat(path, ": ", hw.status().message()));
      exit_code = kExitInternal;
      continue;
    }
    std::vector<sim::launch::NamedBuffer> a, b;
    for (const auto& buf : simulated->buffers) a.push_back({buf.name, buf.bytes});
    for (const auto& buf : hw->buffers) b.push_back({buf.name, buf.bytes});
    bool same = simulated->report.ok() == hw->ok;
    std::string detail;
    for (const sim::launch::BufferComparison& c : sim::launch::CompareBuffers(a, b)) {
      if (c.equal) continue;
      same = false;
      absl::StrAppend(&detail, "\n  buffer ", c.name, ": ", c.differing_bytes,
                      " bytes differ, first at byte ", c.first_difference);
      if (c.first_difference < 0) continue;
      // Which element, which values, and who wrote it in the simulator.
      const uint64_t off = static_cast<uint64_t>(c.first_difference);
      auto byte_of = [&](const std::vector<sim::launch::NamedBuffer>& side) -> std::string {
        for (const auto& nb : side) {
          if (nb.name == c.name && off < nb.bytes.size()) {
            return absl::StrFormat("0x%02x", nb.bytes[off]);
          }
        }
        return "missing";
      };
      absl::StrAppend(&detail, " (sim ", byte_of(a), ", gpu ", byte_of(b), ")");
      sim::machine::RunOptions watch;
      watch.watch_buffer = c.name;
      watch.watch_offset = off;
      auto rerun = sim::machine::RunLaunchSpecFileWithBuffers(path, watch);
      if (rerun.ok()) {
        absl::StrAppend(&detail, "\n  in the simulator that byte was last written by ",
                        rerun->watch.empty() ? "no store (it kept its initial fill)"
                                             : rerun->watch);
      }
    }
    (same ? agree : disagree)++;
    out << (same ? "SAME " : "DIFF ") << path << ": sim "
        << (simulated->report.ok() ? "ok" : "not ok") << ", gpu " << (hw->ok ? "ok" : "not ok")
        << detail << "\n";
    if (!same && exit_code == kExitOk) exit_code = kExitViolated;
  }
  out << agree << " agree, " << disagree << " differ\n";
  return exit_code;
#endif
}

}  // namespace warpcheck::cli
