// PTX from conversion plans (sim/plan): the harness kernels of shared/design/CLI.md.
//
//   kernel(u64 in, u64 out, u32 iters)
//     words = load `in` (row-major in global memory) in the src layout
//     roundtrip: iters x { words = convert src->dst; words = convert dst->src }
//                store `out` in the src layout
//     once:      words = convert src->dst; store `out` in the dst layout
//
// The tensor comes back row-major either way, so `out == in` is the whole check. The
// fuzzer and `convert check` run a third kernel, the two in one (one load of `in`, one
// decode, one launch per fill instead of two):
//
//   kernel(u64 in, u64 out, u32 iters, u64 mid)
//     check:     words = load `in` in the src layout
//                store (convert src->dst of words) to `mid` in the dst layout; barrier
//                then the round trip's loop and store, exactly as above
//
// so `mid == in` checks the forward conversion alone, as the once harness does, and
// `out == in` the round trip, as the round-trip harness does; the once harness's
// conversion is the check harness's first (the same ops from the same loaded words),
// and it is the only shared-memory traffic before the loop (CheckLoopPc). Every
// value a conversion needs that depends only on the thread (lane predicates, shared
// addresses, shuffle lanes) is computed once before the loop (the plan's setup values),
// so the loop body is exactly the plans' ops plus the loop counter. Each direction of a
// round trip owns a shared buffer, so the only barrier a conversion needs is the one
// between its stores and its loads (the next store into a buffer comes after the other
// direction's barrier, which every thread reaches only after its loads), and, for a
// conversion in rounds (sim/plan/program.h ChunkSharedRounds), one between rounds.
//
// The loop-carried words are renamed so that the second conversion writes straight into
// the registers the first one read (no copies at the back edge unless a word is still
// live there).
#ifndef WARPCHECK_SIM_PTX_CODEGEN_H_
#define WARPCHECK_SIM_PTX_CODEGEN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/ast.h"

namespace warpcheck::sim::ptx {

enum class Harness { kRoundTrip, kOnce, kCheck };
const char* HarnessName(Harness harness);  // "roundtrip", "once", "check"

// The code generator records the harness once (instructions with their operands as
// register numbers and immediates) and makes from that record either the tree (ast.h),
// the one the parser reads from the text, or the text itself: the simulator and the
// prover run the tree, `convert emit` writes the text. The text is written straight
// from the record (building ~1 KiB statements only to print them was two thirds of
// emitting), so tests/sim/ptx/ptx_printer_test.cc checks, on every corpus pair and both
// harnesses, that it is byte for byte PrintModule of the tree, and on a sample that
// parsing it gives the same tree, positions included: what runs and what is written are
// the same program, and nothing is printed and parsed again on the way to the simulator.
//
// Requires: `forward` plans problem; for kRoundTrip `backward` plans problem.Reversed()
// with the same packing and buffer 1 (PlanRoundTrip does this).
// Ensures: a module with one `.entry kernel` (sm_90, ptxas-clean), file "<emitted>",
// every statement at the line PrintModule writes it (LocateAsPrinted).
Module EmitHarnessModule(const plan::ConversionProblem& problem,
                         const plan::ConversionPlan& forward,
                         const plan::ConversionPlan* backward, Harness harness);
// Ensures: PrintModule(EmitHarnessModule(...)), written without building the tree.
std::string EmitHarness(const plan::ConversionProblem& problem,
                        const plan::ConversionPlan& forward,
                        const plan::ConversionPlan* backward, Harness harness);

// The harness as the simulator decodes it without its tree (sim/machine DecodeStream):
// EmitHarnessModule's frame (the module, the kernel's parameters and registers, the
// body's opening declarations) and the body's statements made one at a time into one
// Instruction, each equal to the tree's (ptx_printer_test checks every statement of every
// harness on a sample of pairs). Building the tree's ~440-byte statements (allocations
// for the operands and long opcodes) only to decode and free them made the fuzz
// command's emit stage 0.081 ms a pair on seed 1; streamed, it is 0.024 ms, and a pair
// 5.13 M instead of 5.25 M instructions (verify/fuzz/README.md, "Rate pass 7").
class HarnessStream {
 public:
  struct Impl;
  ~HarnessStream();
  HarnessStream(const HarnessStream&) = delete;
  HarnessStream& operator=(const HarnessStream&) = delete;

  // The module with the kernel: its body holds the opening declarations only.
  const Module& frame() const;
  // The body's statements after its opening declarations.
  size_t size() const;
  // Statement i (< size()) as the tree's body has it after the declarations: a label's
  // name, or nullptr with the instruction written into *insn (any Instruction; its
  // storage is reused).
  const char* Statement(size_t i, Instruction* insn) const;
  // Statement i's label name; nullptr when it is an instruction.
  const char* Label(size_t i) const;
  // Instruction number pc (labels not counted) as PrintInstruction prints the tree's.
  std::string InstructionText(size_t pc) const;

 private:
  explicit HarnessStream(std::unique_ptr<Impl> impl);
  friend std::shared_ptr<const HarnessStream> StreamHarness(const plan::ConversionProblem&,
                                                            const plan::ConversionPlan&,
                                                            const plan::ConversionPlan*,
                                                            Harness);
  std::unique_ptr<Impl> impl_;
};
// Requires: as EmitHarnessModule.
std::shared_ptr<const HarnessStream> StreamHarness(const plan::ConversionProblem& problem,
                                                   const plan::ConversionPlan& forward,
                                                   const plan::ConversionPlan* backward,
                                                   Harness harness);

// Plans both directions of a round trip with one packing (the cheaper in total).
struct RoundTrip {
  plan::ConversionPlan forward, backward;
};
// `narrow_one_warp`: the last step, NarrowOneWarpTrip (below); off for a caller that
// runs only the forward conversion (`convert emit --harness=once`), since what it buys is
// measured on the round trip's loop.
absl::StatusOr<RoundTrip> PlanRoundTrip(const plan::ConversionProblem& problem,
                                        const plan::PlanOptions& options,
                                        bool narrow_one_warp = true);

// One-warp round trips through shared memory with 16-byte accesses on every side
// (PlanRoundTrip's last step). On the H200 such a kernel is bound by the shared-memory
// pipe's queue, not by its instructions: Nsight Compute on corpus line 583 (64x64 f16,
// one warp, 528 CTAs = 4 warps an SM) measured 16.4 cycles per issued instruction, 8.3 of
// them MIO throttle, against Triton's 8.0 with twice the instructions
// (corpus/plan/README.md, exp_2026-12-02b). Splitting one direction's accesses into
// 8-byte ones keeps the wavefronts, adds instructions, and ran faster: on the 30 corpus
// pairs this applies to, geomean 0.944 of the 16-byte kernel's time, 27 faster, the worst
// 1.037 (exp_2026-12-03); 8-byte accesses on 32x32 one-warp kernels measured no faster
// (exp_2026-12-02c), hence kNarrowMinBytesPerWarp. Both variants are planned (the same
// word views and buffers, one direction capped at 8-byte vectors) and the one with fewer
// warp instructions is kept — only when it has no more wavefronts than `chosen` and, with
// our loop bookkeeping, no more warp instructions than Triton's own kernel
// (TritonSharedRoundTripFloor), so the round trip never costs more than Triton's.
// nullopt: keep `chosen` (not such a trip, an option that fixes the accesses, or neither
// variant qualifies).
inline constexpr int64_t kNarrowMinBytesPerWarp = 8192;
std::optional<RoundTrip> NarrowOneWarpTrip(const plan::ConversionProblem& problem,
                                           const plan::PlanOptions& options,
                                           const RoundTrip& chosen);

// A launch spec for the harness: grid 1, one CTA of the problem's threads, `in` filled
// with `fill` (RANDOM uses `seed`), `out` POISON, `iters`, expect out == in; kCheck also
// `mid` POISON, expect mid == in (first).
warpcheck::LaunchSpec HarnessLaunchSpec(const plan::ConversionProblem& problem,
                                        const std::string& ptx_file,
                                        warpcheck::BufferParam::Fill fill, uint64_t seed,
                                        uint32_t iters, Harness harness = Harness::kRoundTrip);

// The check harness's first instruction of the loop (its index among the kernel's
// instructions, as the simulator counts pcs): before it, the load, the forward conversion
// alone, its store to `mid`, the barrier and the loop's entry test, so the shared-memory
// figures of the instructions below it are the forward conversion's (what the once
// harness measures). nullopt when `kernel` has no loop (the once harness).
std::optional<uint32_t> CheckLoopPc(const Kernel& kernel);
std::optional<uint32_t> CheckLoopPc(const HarnessStream& stream);  // the same, streamed

}  // namespace warpcheck::sim::ptx

#endif  // WARPCHECK_SIM_PTX_CODEGEN_H_
