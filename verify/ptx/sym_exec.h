// Symbolic execution of a PTX kernel launch: every input byte a variable, every thread
// concrete.
//
// What runs: the launch spec's kernel over its grid, with the *same parsed program* the
// simulator runs (sim/ptx's Module; sim/machine's decoder first accepts or rejects it,
// so both engines see the same subset). Each thread is executed concretely — its pc,
// thread id, addresses, loop counters and predicates are numbers — while the data it
// moves are symbolic words of bit atoms (sym_value.h). When a branch, a predicate guard,
// an address, a shuffle lane or a shift amount turns out to depend on the data, the run
// stops with `inconclusive` and the instruction that made it so: the proof covers
// data-independent control flow and addressing only, and says so instead of guessing.
//
// Why concrete threads rather than one symbolic lane: conversion kernels index with
// thread-id arithmetic (`mad`, `bfe`, `and`, shifts) whose symbolic form would put
// nonlinear lane terms into every shared-memory address, so the select-over-store
// memory model would grow with the number of stores squared; with concrete threads,
// memory is a plain array of atoms, a shuffle is a lookup, and the only solver query is
// the final comparison. A 4-warp kernel is 128 short straight-line threads; executing
// them one by one costs milliseconds.
//
// Schedule: threads run one at a time until they reach a warp-level instruction
// (shfl, vote, bar.warp.sync, ldmatrix, stmatrix) or a CTA barrier; a warp-level
// instruction runs once all live lanes of the warp wait at it; a barrier releases when
// its thread count has arrived. This is one legal schedule. The proof therefore assumes
// the run is race-free (then every legal schedule computes the same result) — the
// simulator's race detector is what checks that (`convert check` runs both), and the
// report says it assumes it.
//
// Faults (out-of-bounds or misaligned addresses, a shuffle reading an exited or
// non-member lane, a deadlock) happen for every input, because addresses and control
// do not depend on data: they end the run with `fault` and the instruction.
#ifndef WARPCHECK_VERIFY_PTX_SYM_EXEC_H_
#define WARPCHECK_VERIFY_PTX_SYM_EXEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "sim/ptx/ast.h"
#include "verify/ptx/sym_value.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::ptx {

struct SymExecOptions {
  // Executed instructions per thread before the run is inconclusive (a bound).
  uint64_t max_steps_per_thread = 1'000'000;
  // Opaque Z3 terms before the run is inconclusive (memory bound).
  uint32_t max_opaque_terms = 1u << 20;
  // Largest total of buffer + shared bytes the prover takes symbolically.
  uint64_t max_input_bytes = 64ull << 20;
};

// One region of the input space: a buffer's initial bytes or a CTA's shared memory.
struct InputRegion {
  std::string name;          // buffer name, or "shared(cta N)"
  uint64_t first_bit = 0;    // its first input bit (atom kInputBase + first_bit)
  uint64_t bytes = 0;
  uint32_t element_bytes = 1;  // Z3 variable granularity (buffer's element_bytes)
  bool is_buffer = true;
  int param = -1;            // launch parameter index (buffers)
};

// Who last stored a byte of a global buffer.
struct StoreSite {
  int32_t thread = -1;  // linear thread id in its CTA; -1: never stored
  uint32_t cta = 0;     // linear CTA id
  uint32_t line = 0;    // PTX line
  uint32_t pc = 0;      // instruction index
  uint8_t elem = 0;     // vector element of the stored operand
};

// A buffer's final state.
struct SymBuffer {
  std::string name;
  int param = -1;
  uint32_t element_bytes = 1;
  std::vector<Atom> bits;         // 8 atoms per byte
  std::vector<StoreSite> stores;  // per byte
};

enum class RunStatus : uint8_t { kOk, kFault, kInconclusive };

struct SymRunResult {
  RunStatus status = RunStatus::kOk;
  std::string reason;   // fault kind + text, or why inconclusive
  uint32_t line = 0;    // PTX line of the instruction (0 when none)
  std::string insn;     // its text
  std::vector<SymBuffer> buffers;  // buffer params in parameter order
  uint64_t thread_steps = 0;       // executed thread-instructions
  uint64_t symbolic_ops = 0;       // operations that built a Z3 term
  uint32_t threads = 0;
};

// The state of one symbolic launch. Not copyable; the Context must outlive it.
class SymbolicLaunch {
 public:
  ~SymbolicLaunch();
  // Requires: `module` outlives the object.
  // Ensures: InvalidArgument for an input the simulator would reject too (the kernel is
  // decoded by sim/machine first; a bad spec) and for an input too large for the prover.
  static absl::StatusOr<std::unique_ptr<SymbolicLaunch>> Create(
      const warpcheck::LaunchSpec& spec, const sim::ptx::Module& module,
      smt::Context* ctx, const SymExecOptions& options);

  // Runs the grid. Ensures: a result (faults and bounds are results, not errors).
  SymRunResult Run();

  // The input space, for building terms and reading models.
  const std::vector<InputRegion>& inputs() const;
  // Ensures: the Z3 term of `v` (input bytes become extracts of their element's
  // variable "<region>[<element>]", opaque bits extracts of their term).
  smt::Term ToTerm(const Value& v);
  // Ensures: the region holding input bit `bit`.
  const InputRegion& RegionOf(uint64_t bit) const;
  // Ensures: the variable of element `element` of `region` (created on first use).
  smt::Term ElementVar(size_t region, uint64_t element);
  // Ensures: every element variable created so far: (region, element, variable).
  struct ElementVarRef {
    size_t region;
    uint64_t element;
    smt::Term var;
  };
  std::vector<ElementVarRef> ElementVars() const;

  struct Impl;

 private:
  explicit SymbolicLaunch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpcheck::verify::ptx

#endif  // WARPCHECK_VERIFY_PTX_SYM_EXEC_H_
