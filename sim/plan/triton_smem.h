// A model of Triton 3.6's shared-memory lowering of `ttg.convert_layout` (NVIDIA, sm_90).
//
// Why
// ---
// The Triton floor (triton_floor.h) compares the planner's candidates with a reference for
// Triton's mechanism. For the shared-memory mechanism that reference is our own plan,
// which can be cheaper than the kernel Triton really emits: Triton splits the tensor into
// `nReps` repetitions over a smaller scratch buffer and synchronises 2*nReps-1 times per
// conversion, and it vectorises only as its chosen shared layout allows. This model
// computes what Triton's kernel does, from the layouts alone, so that a floor can use
// Triton's real counts. It is a model and nothing else: it emits no code.
//
// What it follows (shared/spec/triton-convert-layout.md §3, §4)
// -------------------------------------------------------------
// Everything works on the tensor's flat offset bits in Triton's order (dim0 most minor,
// unlike ConversionProblem's row-major flat index; the choice of swizzle depends on the
// order because the algorithm sorts basis vectors by value).
//   1. Preprocessing (§3.1): register broadcast (zero register bases) is dropped on both
//      sides; sub-byte types were already widened to bytes by the problem.
//   2. Instruction tiles (getSrcDstTiles, sm_90): ld/st.shared always; stmatrix (store) and
//      ldmatrix (load) for elements of at most 32 bits; their .trans forms for 16 bits.
//   3. For each (store, load) tile pair: the common contiguous 16-byte "vector" tile
//      (optimalSwizzlingTile), the wavefront address tiles (getTile), the shared layout
//      smem = (vector | bank | segment | reps) of the core routine (computeSegment puts
//      the XOR swizzle into the segment, bank is the complement, buildReps moves segment
//      vectors that are registers on both sides into reps, keeping the first two when both
//      instructions are matrix ones), and its read and write bank conflicts. The pair with
//      the fewest read+write conflicts wins, ties to more reps (first pair in tile order on
//      a full tie).
//   3'. No feasible pair: plain ld/st (optimalSwizzlingLdSt). The vector is the registers
//      common to both sides; below one 32-bit word it is filled with registers of one side
//      that are warps of the other, then warps of both, then warps of either (a warp bit
//      in the first word costs no conflict), and the bank bases that are registers of the
//      filling side move to the front of the bank so that side vectorises further.
//      NB: this is the Triton 3.6 form (getVecBasisLdSt), not the getVbasis the spec
//      describes in §3.2: with getVbasis the model matched Triton's instruction counts on
//      753 of the 1148 shared-memory pairs of corpus/plan/triton_costs.tsv, with this form
//      on all of them (sim/plan/README.md).
//   4. Emission (§3.3, §3.4, §3.7): nReps rounds of {store tile, barrier, load tile} with a
//      barrier between rounds; ld/st vectorise as largestVectorisation finds (registers
//      that are the lowest offsets 1, 2, 4, ... of the shared layout, nothing else touching
//      those bits); ldmatrix/stmatrix move min(128 bits, a round's registers) per thread
//      per instruction. Barriers are warp-level (bar.warp.sync) when isCvtWarpSync holds,
//      CTA barriers otherwise. Wavefronts: each instruction's lanes address the lanes'
//      offsets XOR a per-register constant, which only permutes banks, so every
//      instruction of a side costs what its first does under sim/bank's model (for
//      ldmatrix/stmatrix.trans with the row register that conflicts least, as Triton's
//      row-bit search picks).
//   5. Scratch (§3.5): numel / nReps elements of max(bits, 8) / 8 bytes.
//
// Known approximations: the pseudo-inverse that maps an element back to a hardware
// position sets free bits (zero bases, and bases that repeat earlier ones) to 0, as
// Triton's does for zero bases; the model assumes the chosen ldmatrix/stmatrix lowering
// succeeds, as Triton asserts.
#ifndef WARPCHECK_SIM_PLAN_TRITON_SMEM_H_
#define WARPCHECK_SIM_PLAN_TRITON_SMEM_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "sim/plan/problem.h"

namespace warpcheck::sim::plan {

// The instruction of one side: index 0, 1, 2 of Triton's tile lists.
enum class TritonSmemInstr { kLdSt, kMatrix, kMatrixTrans };

// "st.shared"/"ld.shared", "stmatrix"/"ldmatrix", "stmatrix.trans"/"ldmatrix.trans".
std::string TritonSmemInstrName(TritonSmemInstr i, bool store);

// Triton's lowering of one conversion (one direction) through shared memory.
struct TritonSmemLowering {
  TritonSmemInstr store = TritonSmemInstr::kLdSt, load = TritonSmemInstr::kLdSt;
  bool fallback = false;          // no instruction-tile pair fitted: optimalSwizzlingLdSt
  int store_vec_elems = 1;        // elements one thread moves per store instruction
  int load_vec_elems = 1;         // ... per load instruction
  int reps = 1;                   // nReps: rounds over the scratch buffer
  int64_t scratch_bytes = 0;      // the op's scratch allocation
  int64_t store_instructions = 0; // shared store instructions per warp (all rounds)
  int64_t load_instructions = 0;  // shared load instructions per warp (all rounds)
  int64_t store_wavefronts = 0;   // shared wavefronts of the stores per warp (all rounds)
  int64_t load_wavefronts = 0;    // ... of the loads
  int barriers = 0;               // 2*reps-1 inside the op (Membar adds the outer ones)
  bool warp_sync = false;         // barriers are bar.warp.sync (isCvtWarpSync), else CTA
  int read_conflicts = 0, write_conflicts = 0;  // Triton's analytic count for the choice
};

// Requires: p describes one CTA (MakeProblem's contract); the caller decides whether
// Triton takes the shared-memory path (TritonStrategy). Ensures: Triton 3.6's choices
// for converting p.src -> p.dst through shared memory on sm_90. InvalidArgument when a
// step Triton asserts on does not hold (a layout that does not cover the tensor, a round
// that cannot be split off); `leave_reps` false models the pre-#8655 buildReps that moves
// every common register segment vector into reps.
absl::StatusOr<TritonSmemLowering> TritonSharedMemoryLowering(const ConversionProblem& p,
                                                              bool leave_reps = true);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_TRITON_SMEM_H_
