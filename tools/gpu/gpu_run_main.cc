// warpcheck_gpu_run: runs launch specs on the GPU and prints one JSON line per spec.
//
//   warpcheck_gpu_run [--dump-dir=DIR] LAUNCH.textproto...
//   warpcheck_gpu_run --time [--grid-x=528] [--iters=2000] [--warmup=5] [--reps=20]
//                     LAUNCH.textproto...
//
// Each line: {"file": ..., "device": ..., "kernel_ms": ..., "gpu": <SimReport JSON>}
// (SimReport as in `warpcheck sim run --format=json`: ok, faults, expectations, buffers
// with sha256), or {"file": ..., "error": ...} when the spec cannot run. --dump-dir
// writes each buffer's final bytes to DIR/<spec stem>.<buffer>.bin for byte-level diffs.
// A stand-alone tool for the device machine (tools/gpu/device_evidence.sh); the
// `warpcheck gpu run|diff` subcommands use the same library.
//
// --time is the timing mode (tools/gpu/gpu_timing.h): all specs measured in this one
// process, interleaved, one JSON line each (tools/gpu/README.md "Timing mode").
//
// A device fault leaves CUDA unusable in the process (gpu_runner.h), so after one the
// tool re-executes itself for the remaining specs; the output stream simply continues.
//
// Exit: 0 every spec ok · 10 some spec not ok (fault or failed expectation) · 2 some spec
// could not run (input error) · 1 usage · 77 no GPU or driver.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/base/file.h"
#include "sim/base/json.h"
#include "sim/launch/launch_spec.h"
#include "tools/gpu/gpu_runner.h"
#include "tools/gpu/gpu_timing.h"

namespace {

std::string Stem(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

// --time: every spec loaded first (an unreadable one is an error line, exit 2), then
// timed together.
int TimeSpecs(const warpcheck::gpu::GpuRunArgs& args) {
  int exit_code = 0;
  std::vector<warpcheck::gpu::TimingInput> inputs;
  for (const std::string& file : args.files) {
    absl::StatusOr<warpcheck::LaunchSpec> spec = warpcheck::sim::launch::LoadLaunchSpec(file);
    if (!spec.ok()) {
      warpcheck::gpu::TimingResult r;
      r.file = file;
      r.error = spec.status().ToString();
      std::printf("%s\n", warpcheck::gpu::TimingJson(r).c_str());
      std::fprintf(stderr, "warpcheck_gpu_run: error: %s\n", r.error.c_str());
      exit_code = 2;
      continue;
    }
    inputs.push_back({file, *std::move(spec), warpcheck::sim::launch::SpecDir(file)});
  }
  absl::StatusOr<std::vector<warpcheck::gpu::TimingResult>> results =
      warpcheck::gpu::TimeOnGpu(inputs, args.timing);
  if (!results.ok()) {
    std::fprintf(stderr, "warpcheck_gpu_run: error: %s\n",
                 results.status().ToString().c_str());
    return 6;
  }
  for (const warpcheck::gpu::TimingResult& r : *results) {
    std::printf("%s\n", warpcheck::gpu::TimingJson(r).c_str());
    if (!r.error.empty()) {
      std::fprintf(stderr, "warpcheck_gpu_run: error: %s\n", r.error.c_str());
      exit_code = 2;
    } else if (!r.check.ok() && exit_code == 0) {
      exit_code = 10;
    }
  }
  std::fflush(stdout);
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<warpcheck::gpu::GpuRunArgs> parsed =
      warpcheck::gpu::ParseGpuRunArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    std::fprintf(stderr, "warpcheck_gpu_run: error: %s\n%s",
                 std::string(parsed.status().message()).c_str(),
                 warpcheck::gpu::kGpuRunUsage);
    return 1;
  }
  if (parsed->help) {
    std::printf("%s", warpcheck::gpu::kGpuRunUsage);
    return 0;
  }
  const std::string& dump_dir = parsed->dump_dir;
  const std::vector<std::string>& files = parsed->files;
  if (absl::Status s = warpcheck::gpu::GpuAvailable(); !s.ok()) {
    std::fprintf(stderr, "warpcheck_gpu_run: %s\n", std::string(s.message()).c_str());
    return 77;
  }
  if (parsed->time) return TimeSpecs(*parsed);
  // Carried over from before a re-execution (see below).
  int exit_code = 0;
  if (const char* prior = std::getenv("WARPCHECK_GPU_RUN_EXIT"))
    exit_code = std::atoi(prior);
  for (size_t k = 0; k < files.size(); ++k) {
    const std::string& file = files[k];
    if (warpcheck::gpu::GpuContextLost()) {
      // Go on in a fresh process image with the specs not yet run.
      std::fflush(stdout);
      std::vector<std::string> args = {argv[0]};
      if (!dump_dir.empty()) args.push_back("--dump-dir=" + dump_dir);
      args.insert(args.end(), files.begin() + k, files.end());
      std::vector<char*> cargs;
      for (std::string& a : args) cargs.push_back(a.data());
      cargs.push_back(nullptr);
      setenv("WARPCHECK_GPU_RUN_EXIT", std::to_string(exit_code).c_str(), 1);
      execv("/proc/self/exe", cargs.data());
      std::fprintf(stderr, "warpcheck_gpu_run: cannot re-execute after a device fault\n");
      return exit_code == 0 ? 2 : exit_code;
    }
    absl::StatusOr<warpcheck::gpu::GpuRunResult> r =
        warpcheck::gpu::RunLaunchFileOnGpu(file);
    if (!r.ok()) {
      std::printf("{\"file\": %s, \"error\": %s}\n", warpcheck::sim::base::JsonQuote(file).c_str(),
                  warpcheck::sim::base::JsonQuote(r.status().ToString()).c_str());
      std::fprintf(stderr, "warpcheck_gpu_run: error: %s\n",
                   r.status().ToString().c_str());
      exit_code = 2;
      std::fflush(stdout);
      continue;
    }
    const std::string json = warpcheck::sim::base::ToJson(warpcheck::gpu::ToSimReport(*r));
    std::printf("{\"file\": %s, \"device\": %s, \"kernel_ms\": %.6f, \"gpu\": %s}\n",
                warpcheck::sim::base::JsonQuote(file).c_str(),
                warpcheck::sim::base::JsonQuote(r->device).c_str(), r->kernel_ms, json.c_str());
    std::fflush(stdout);
    if (!r->ok && exit_code == 0) exit_code = 10;
    if (!dump_dir.empty()) {
      for (const warpcheck::gpu::GpuBuffer& b : r->buffers) {
        std::string path = absl::StrCat(dump_dir, "/", Stem(file), ".", b.name, ".bin");
        if (!warpcheck::sim::base::WriteFileAtomically(
                 path, absl::string_view(reinterpret_cast<const char*>(b.bytes.data()),
                                         b.bytes.size()))
                 .ok())
          std::fprintf(stderr, "warpcheck_gpu_run: cannot write %s\n", path.c_str());
      }
    }
  }
  return exit_code;
}
