// CUDA emission of a SignalProgram for the GPU differential test (shared/spec/signaling.md
// §5): one self-contained CUDA C++ source (host main + kernels) that runs the program on
// real GPUs with the NVIDIA lowering of §1 as inline PTX, a watchdog that snapshots
// per-agent progress records and every signal word before raising an abort word, and
// optional perturbation. Build: `nvcc -O2 -std=c++17 -arch=sm_90 OUT.cu -o OUT`.
//
// Tiers:
//  * "cta":  every rank is a group of CTAs of one grid on GPU 0; each rank's symmetric
//            heap is a slice of an [N][...] array; sys scopes become gpu scopes.
//  * "gpus": rank r runs on GPU r (N GPUs, peer access both ways, raw peer pointers),
//            system-scope fences/atomics/polls, one non-blocking stream per GPU,
//            waiters (highest rank first) launched before notifiers.
//
// The binary prints one JSON line per run:
//   {"outcome":"completes|deadlock","blocked":["rank1.cta0@wait#1",...],
//    "values":{"SIG@1[0]":2,...},"mismatches":0,"oob":0,"agents":[...],"run":0,...}
// with the simulator's naming: agent "rank<R>.cta<C>" (programs with several kernels:
// "rank<R>.<kernel>.cta<C>"; host streams "rank<R>.<stream>"), word "OBJ@<rank>[<i>]",
// site = the op's `site` or "<lowercase kind>#<n>" (1-based per kind, textual pre-order
// over kernels then streams). `values` lists words of signal objects (objects that no
// data op touches) that differ from their initial value. Run-time flags of the binary:
// --runs=K --timeout-ms=T --jitter-ns=J --seed=S (defaults baked in from the options).
// Exit 0 after the runs; 3 when a run could not be aborted or CUDA failed; 77 when the
// tier's GPUs are missing.
#ifndef WARPCHECK_SIM_SIGNAL_CUDA_EMIT_H_
#define WARPCHECK_SIM_SIGNAL_CUDA_EMIT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/signal.pb.h"

namespace warpcheck::sim::signal {

struct CudaEmitOptions {
  std::string tier = "cta";  // "cta" | "gpus"
  int timeout_ms = 300;      // watchdog: a run not finished after this is a deadlock
  int runs = 1;              // run 0 unperturbed, runs >= 1 perturbed
  int jitter_ns = 2000;      // perturbed runs: __nanosleep(hash % jitter) before signal ops
  int stagger_ns = 10000;    // perturbed runs: CTA start stagger
  uint64_t seed = 1;         // perturbation seed (combined with the run number)
};

// Ensures: the CUDA source, or InvalidArgument naming the op site for what the GPU
// lowering cannot express (unknown object, invalid PTX such as a release wait, a WAIT
// in divergent code, an unsupported host op, AMD backend, ...).
absl::StatusOr<std::string> EmitSignalCuda(const warpcheck::SignalProgram& p,
                                           const CudaEmitOptions& opt);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_CUDA_EMIT_H_
