// Translation validation of data-movement kernels: `warpcheck prove conversion`.
//
// Given a launch spec (kernel, grid, parameters, `expect { buffers_equal { a b } }`), the
// prover runs the kernel symbolically (sym_exec.h: every input byte a variable, every
// thread concrete) and asks Z3 one question per launch:
//
//     is there an input for which some element of `a` differs from the same element
//     of `b` after the kernel ran?
//
// unsat: the expectations hold for every value of every buffer the kernel reads (and of
// the shared memory it reads before writing) and every thread — `holds`. sat: the model
// is an input that breaks it — `violated`, with the first element that differs, who
// stored it (thread, lane, warp, line, register) and what it holds instead (which input
// element, or a mix), and the input bytes, so that the tool can write a launch spec the
// simulator then runs and fails. unknown, a bound, or control/addresses that depend on
// the data — `inconclusive`, with the reason and the instruction; never a guess.
//
// Elements whose final bits are the very atoms of the element they must equal are equal
// for every input without asking (the two Z3 terms would be one term); they are counted
// as `elements_syntactic`. Only the others enter the query.
//
// Assumptions, stated in every result: the run is race-free (the simulator checks this;
// `convert check` runs both) and parameters are the spec's (a loop runs the spec's
// `iters` times, unrolled).
#ifndef WARPCHECK_VERIFY_PTX_PROVE_CONVERSION_H_
#define WARPCHECK_VERIFY_PTX_PROVE_CONVERSION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/launch.pb.h"
#include "sim/ptx/ast.h"
#include "verify/ptx/sym_exec.h"

namespace warpcheck::verify::ptx {

enum class ProofVerdict : uint8_t { kHolds, kViolated, kInconclusive };
const char* ProofVerdictName(ProofVerdict v);  // "holds", "violated", "inconclusive"

struct ConversionProofOptions {
  uint64_t rlimit = 200'000'000;  // for the one query (deterministic)
  SymExecOptions exec;
  // Optional, for messages: the tensor shape (row-major dims) to print element
  // coordinates as (r, c) instead of flat indices.
  std::vector<int64_t> shape;
};

// One input byte of a counterexample (the model's value; other bytes keep the spec's
// fill).
struct CexByte {
  std::string buffer;
  uint64_t offset = 0;
  uint8_t value = 0;
};

struct ConversionCounterexample {
  std::string expectation;  // "buffers_equal(in, out)"
  std::string buffer;       // the buffer whose element is wrong (b of buffers_equal)
  int64_t element = -1;     // flat element index
  std::string coords;       // "(12, 3)" with a shape, else "12"
  int32_t thread = -1;      // the thread that stored it (-1: never stored)
  uint32_t cta = 0;
  uint32_t line = 0;
  std::string instruction;  // the store's opcode text
  std::string reg;          // the stored register
  int64_t holds_element = -1;  // the `a` element it holds instead (-1: not one element)
  std::string holds_coords;
  uint64_t expected = 0, actual = 0;  // the element's values in the model
  std::string text;                   // the whole story in one line
  std::vector<CexByte> input;         // model values of the input bytes involved
};

struct ConversionProof {
  ProofVerdict verdict = ProofVerdict::kInconclusive;
  std::string reason;        // why violated / inconclusive
  uint32_t line = 0;         // instruction that made it inconclusive or faulted
  std::string instruction;
  int queries = 0;
  double solver_ms = 0;
  uint64_t elements = 0;            // compared elements, all expectations
  uint64_t elements_syntactic = 0;  // equal without the solver
  uint64_t thread_steps = 0;
  uint64_t symbolic_ops = 0;
  uint32_t threads = 0;
  std::vector<std::string> assumptions;
  ConversionCounterexample counterexample;  // when violated by a wrong element
};

// Requires: `module` is the parsed PTX of spec.ptx_file.
// Ensures: InvalidArgument for input errors (bad spec, a kernel outside the subset, a
// spec without buffers_equal expectations); a verdict otherwise.
absl::StatusOr<ConversionProof> ProveLaunch(const warpcheck::LaunchSpec& spec,
                                            const sim::ptx::Module& module,
                                            const ConversionProofOptions& options);

// The final buffers for concrete inputs (buffer params in parameter order, full bytes),
// evaluated from the symbolic run: the differential check against the simulator. nullopt
// when a buffer holds an opaque term's bits or the run was not ok.
// Requires: `inputs` has the initial bytes of every buffer param, in order.
absl::StatusOr<std::vector<std::vector<uint8_t>>> EvaluateOnInputs(
    const warpcheck::LaunchSpec& spec, const sim::ptx::Module& module,
    const std::vector<std::vector<uint8_t>>& inputs, const SymExecOptions& options);

}  // namespace warpcheck::verify::ptx

#endif  // WARPCHECK_VERIFY_PTX_PROVE_CONVERSION_H_
