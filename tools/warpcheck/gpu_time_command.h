// `warpcheck gpu time`: launch specs timed side by side on one GPU, interleaved, with
// CUDA events (the timing mode of tools/gpu/gpu_timing.h, as a subcommand).
#ifndef WARPCHECK_TOOLS_WARPCHECK_GPU_TIME_COMMAND_H_
#define WARPCHECK_TOOLS_WARPCHECK_GPU_TIME_COMMAND_H_

#include <ostream>
#include <set>
#include <string>

#include "proto/report.pb.h"
#include "tools/warpcheck/args.h"

namespace warpcheck::cli {

// Flags of `gpu time` for ParseArgs.
const std::set<std::string>& GpuTimeValueFlags();

// warpcheck gpu time A.launch.textproto [B.launch.textproto ...] [--warmup=N] [--reps=N]
//   [--iters=N] [--grid-x=N] [--format=...]
// Exit 0 every kernel timed and its check launch ok; 10 some check failed (fault or
// expectation); 2 some spec could not be loaded or timed (input error), or a build
// without CUDA; 1 usage; 6 the GPU failed for the whole session; 77 no usable GPU.
int RunGpuTime(const ParsedArgs& args, std::ostream& out, std::ostream& err,
               Report* report);

}  // namespace warpcheck::cli

#endif  // WARPCHECK_TOOLS_WARPCHECK_GPU_TIME_COMMAND_H_
