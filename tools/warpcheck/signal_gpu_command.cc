#include "tools/warpcheck/signal_gpu_command.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "proto/signal.pb.h"
#include "sim/base/text_proto.h"
#include "sim/signal/cuda_emit.h"
#include "tools/warpcheck/cli.h"
#include "tools/warpcheck/output.h"

namespace warpcheck::cli {
namespace {

constexpr char kSignalCudaUsage[] =
    "usage: warpcheck signal cuda PROGRAM.textproto -o OUT.cu [options]\n"
    "\n"
    "Writes one self-contained CUDA C++ program that runs the SignalProgram on real GPUs\n"
    "with the NVIDIA lowering (inline PTX), a watchdog (abort word, progress records,\n"
    "snapshot before abort) and perturbation. Build and run it with\n"
    "  nvcc -O2 -std=c++17 -arch=sm_90 OUT.cu -o prog && ./prog [--runs=K]\n"
    "It prints one JSON line per run: outcome, blocked agents, signal values, mismatches.\n"
    "\n"
    "Options:\n"
    "  --tier=cta|gpus     cta: ranks are CTA groups of one grid on one GPU (default);\n"
    "                      gpus: rank r on GPU r, peer access, system scope\n"
    "  --timeout-ms=300    watchdog timeout per run (deadlock after it)\n"
    "  --runs=1            runs per execution (run 0 unperturbed, later runs perturbed)\n"
    "  --jitter-ns=2000    perturbed runs: __nanosleep jitter before signal ops\n"
    "  --stagger-ns=10000  perturbed runs: CTA start stagger\n"
    "  --seed=1            perturbation seed\n"
    "  --ranks=N --ctas=G --iterations=E   override the program's N, G, E\n";


bool IntFlag(const ParsedArgs& args, const std::string& name, int64_t lo, int64_t hi, int64_t* v,
             std::ostream& err) {
  absl::StatusOr<std::optional<int64_t>> parsed = args.GetInt(name, lo, hi);
  if (!parsed.ok()) {
    PrintError(err, absl::StrCat("signal cuda: ", parsed.status().message()));
    return false;
  }
  if (parsed->has_value()) *v = **parsed;
  return true;
}

}  // namespace

int RunSignalCuda(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.Has("help")) {
    out << kSignalCudaUsage;
    return kExitOk;
  }
  if (args.positional.size() != 1 || !args.Get("o")) {
    PrintError(err, "signal cuda: expected one PROGRAM.textproto and -o OUT.cu");
    err << kSignalCudaUsage;
    return kExitUsage;
  }
  sim::signal::CudaEmitOptions opt;
  opt.tier = args.Get("tier").value_or("cta");
  if (opt.tier != "cta" && opt.tier != "gpus") {
    PrintError(err, absl::StrCat("signal cuda: --tier=", opt.tier, ": expected cta or gpus"));
    return kExitUsage;
  }
  int64_t timeout = opt.timeout_ms, runs = opt.runs, jitter = opt.jitter_ns, stagger = opt.stagger_ns,
          seed = static_cast<int64_t>(opt.seed), ranks = 0, ctas = 0, iterations = 0;
  if (!IntFlag(args, "timeout-ms", 1, 600000, &timeout, err) || !IntFlag(args, "runs", 1, 100000, &runs, err) ||
      !IntFlag(args, "jitter-ns", 0, 1000000, &jitter, err) ||
      !IntFlag(args, "stagger-ns", 0, 10000000, &stagger, err) ||
      !IntFlag(args, "seed", 0, INT64_MAX, &seed, err) || !IntFlag(args, "ranks", 1, 64, &ranks, err) ||
      !IntFlag(args, "ctas", 1, 4096, &ctas, err) || !IntFlag(args, "iterations", 1, 1000000, &iterations, err)) {
    return kExitUsage;
  }
  opt.timeout_ms = static_cast<int>(timeout);
  opt.runs = static_cast<int>(runs);
  opt.jitter_ns = static_cast<int>(jitter);
  opt.stagger_ns = static_cast<int>(stagger);
  opt.seed = static_cast<uint64_t>(seed);

  const std::string& path = args.positional[0];
  SignalProgram program;
  if (absl::Status parsed = sim::base::ParseTextProtoFile(path, &program); !parsed.ok()) {
    PrintError(err, parsed.message());
    return kExitInputError;
  }
  if (ranks > 0) program.set_ranks(static_cast<int32_t>(ranks));
  if (ctas > 0) program.set_ctas(static_cast<int32_t>(ctas));
  if (iterations > 0) program.set_iterations(static_cast<int32_t>(iterations));
  absl::StatusOr<std::string> source = sim::signal::EmitSignalCuda(program, opt);
  if (!source.ok()) {
    PrintError(err, absl::StrCat(path, ": ", source.status().message()));
    return kExitInputError;
  }
  const std::string out_path = *args.Get("o");
  if (!WriteOutputFile(out_path, *source, "file", err)) return kExitInputError;
  out << "wrote " << out_path << " (tier " << opt.tier << ", " << opt.runs << " run"
      << (opt.runs == 1 ? "" : "s") << ")\n";
  return kExitOk;
}

}  // namespace warpcheck::cli
