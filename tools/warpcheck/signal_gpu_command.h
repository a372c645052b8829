// `warpcheck signal cuda`: emits the GPU differential-test program of a SignalProgram
// (sim/signal/cuda_emit.h; shared/spec/signaling.md §5).
#ifndef WARPCHECK_TOOLS_WARPCHECK_SIGNAL_GPU_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_SIGNAL_GPU_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// Flags of `signal cuda` for ParseArgs.
inline const std::set<std::string> kSignalCudaValueFlags = {
    "o", "tier", "timeout-ms", "runs", "jitter-ns", "stagger-ns", "seed", "ranks", "ctas", "iterations"};
inline const std::set<std::string> kSignalCudaSwitchFlags = {};

// warpcheck signal cuda PROGRAM.textproto -o OUT.cu [--tier=cta|gpus] [--timeout-ms=300]
//   [--runs=K] [--jitter-ns=2000] [--stagger-ns=10000] [--seed=1] [--ranks=N] [--ctas=G]
//   [--iterations=E]
// Exit 0 (written), 1 usage, 2 bad input (unreadable/malformed program, or a program the
// GPU lowering cannot express: the message names the op site).
int RunSignalCuda(const ParsedArgs& args, std::ostream& out, std::ostream& err);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_SIGNAL_GPU_COMMAND_H_
