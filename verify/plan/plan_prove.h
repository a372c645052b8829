// ProvePlan: Z3 proofs that a conversion plan (sim/plan) is right, over the F2 maps.
//
// What a plan proof states
// ------------------------
// A `ConversionPlan` is a straight-line `Program` over 32-bit words that every thread
// (lane l, warp w; %tid.x = l + 32 w) runs. The proof states, for every thread at once:
//
//   delivers          every destination word holds, byte for byte, the element the
//                     destination layout wants there (an element, not a value: any copy
//                     of a broadcast element is the same element);
//   store.injective   no two live shared stores (store op, thread) touch one byte;
//   store.once        no element byte is stored twice (broadcast copies are stored once);
//   store.every       every element is stored, by a live store;
//   barrier.scope     a bar.warp.sync plan only loads what its own warp stored;
//   vector.aligned    every vector access is 1, 2 or 4 words of at most 16 bytes,
//                     aligned to its size and inside the buffer;
//   bank.store/load   the wavefronts and bank conflicts the cost model predicts
//                     (`plan.cost`) are those the accesses cause in sim/bank's model.
//
// Each obligation is one or a few named Z3 queries whose unsat is the proof; sat is a
// counterexample, decoded in user terms (thread = lane + 32·warp, register / word,
// element (r, c)) and re-checked by running the program concretely (plan_concrete.h)
// before it is reported; unknown (rlimit) is inconclusive, never a guess.
//
// How a plan is encoded
// ---------------------
// Data are tracked by *tags*, not values: the program only moves bytes (selp, shfl,
// prmt, st/ld.shared, stmatrix/ldmatrix), so a byte holds "byte b of element e" for
// every input exactly when it does for distinct tags. A tag is a bit-vector e·8 + b
// (element bits, then 3 byte bits); bytes a word does not use (an unpacked 16-bit
// element's upper half) hold a junk tag no element has.
//
//   * The thread is one symbolic bit-vector `tid` (5 lane bits, then the warp bits).
//     A layout's F2 map is XOR/AND terms over bits: element(r, tid) = src.reg(r) ^
//     XOR_j (tid_j ? src.tid_j : 0), the flat row-major index of what the thread holds.
//   * Setup values are the same maps over tid (kTidLinear, kSmemAddr = bytes·(map ^ c)),
//     predicates are parities and masks of tid.
//   * A word is four byte tags, a function of the thread that computes it. Shuffles
//     evaluate their input word in another thread: bfly in tid ^ imm, idx in the lane the
//     setup value names (same warp). The evaluation is memoised per (word, thread term),
//     so a select tree or a shuffle is built once per thread term it is read in.
//   * Registers are symbolic too where the program is a table: the destination word u
//     is a bit-vector, the delivered word an if-then-else over the program's outputs, the
//     wanted element the destination layout's F2 map of u's register bits. A store or
//     load op index k is a bit-vector over a table of (address setup, immediate, size).
//   * Shared memory is not an array. The delivery query follows each destination byte to
//     the address it loads and asks whether the *canonical holder* of the element it
//     wants — (register, thread) = src⁻¹(element), the F2 pseudo-inverse with broadcast
//     bits 0, the copy the planner stores — stores that byte there, live; with
//     store.injective nothing else writes it, so the load reads it. The pseudo-inverse
//     is linear algebra on the bases (F2Span), not a search. A plan that stores another
//     copy instead is not refuted: the concrete re-check then finds the byte delivered,
//     and the verdict is inconclusive with that reason.
//   * stmatrix / ldmatrix (.x1/.x2/.x4, .trans): byte j of a lane's word i lies in the
//     row of matrix i whose address lane 8i + row of the same warp supplies, at a column
//     byte (plan_concrete.h's MatrixByte, the PTX fragment layout): row and column are
//     bit fields of the lane and j, so the byte's address is the address setup evaluated
//     at the providing lane, plus the column. The data obligations follow those bytes;
//     store.injective and vector.aligned see one 16-byte row per providing lane (the
//     rows of a matrix are exactly its 32 lanes' bytes); banks price each op's rows with
//     sim/bank's MatrixRequestCost.
//   * Banks: sim/bank's cost of one warp-wide request depends only on which lanes share
//     a 4-byte word and a bank, which XOR-ing every address of the request with one
//     constant preserves. Z3 proves, for every op and every warp (symbolic), that the
//     warp's 32 addresses are the reference warp's XOR one constant; the reference
//     request (32 concrete lanes) is then priced by sim/bank itself, once per op. Where
//     that lemma does not apply (an immediate that carries into the thread bits), the
//     op's warps are priced one by one (reported in the obligation's detail).
//
//   * A plan in shared-memory rounds (sim/plan/program.h ChunkSharedRounds: the stage's
//     `rounds` > 1) is proven as its one-round program (UnchunkSharedRounds: the round
//     index as the top offset bits): the same data flow, layout and banks. That the
//     rounds reuse the buffer safely (a barrier between a round's loads and the next
//     round's stores) is checked by roundtrip.buffers (round_trip_prove.h: a barrier
//     between every conflicting pair of accesses, on the programs as they run) and
//     where the emitted kernel is: the PTX proof of the harness (`convert compare
//     --prove`) and the simulator's race detection. A plan run component by component
//     (the stage's `components` > 1, InterleaveSharedComponents) is proven as its
//     one-phase program (SequenceSharedComponents: every store, one barrier, every
//     load), the same accesses; that each component's loads read only its own stores is
//     checked in the same places.
//
// Why this is not enumeration: no query names a thread, a register or an element; each
// is one formula over the tid, word and op bit-vectors, and its size grows with the
// program (ops, words), not with the tensor (2^20 elements are 20 bits). The only
// concrete loops are over ops (bank references) and, for re-checking a counterexample,
// the interpreter.
#ifndef WARPCHECK_VERIFY_PLAN_PLAN_PROVE_H_
#define WARPCHECK_VERIFY_PLAN_PLAN_PROVE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/plan_proof.pb.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::plan {

enum class Verdict { kHolds, kViolated, kInconclusive };
std::string VerdictName(Verdict v);  // "holds", "violated", "inconclusive"

struct PlanProveOptions {
  // Per query; the rlimit is the budget (unknown -> inconclusive). keep_smt2 keeps every
  // query's SMT-LIB text in PlanProof::smt2 (what `--smt-dump-dir` writes).
  smt::SolverOptions solver = [] {
    smt::SolverOptions o;
    o.bitvector = true;
    return o;
  }();
  // Stop at the first violated obligation (the rest are not run).
  bool stop_at_first_violation = true;
};

struct ObligationResult {
  std::string name;  // "delivers", "store.injective", ...
  Verdict verdict = Verdict::kInconclusive;
  int queries = 0;
  double solver_ms = 0;
  // Violated: what goes wrong; inconclusive: why; holds: how, when not purely symbolic.
  std::string detail;
};

// A violation in user terms. Fields that do not apply are -1 / empty.
struct PlanCounterexample {
  std::string obligation;
  int64_t thread = -1, lane = -1, warp = -1;
  int64_t dst_word = -1;  // destination word (register order of the dst view)
  int64_t reg = -1;       // destination (delivers) or source (stores) register
  std::vector<int64_t> expected_coords, actual_coords;  // elements, as tensor coordinates
  int64_t other_thread = -1;                            // the second store of a collision
  std::string text;  // one sentence, re-checked concretely
};

struct PlanProof {
  Verdict verdict = Verdict::kInconclusive;
  std::vector<ObligationResult> obligations;
  std::optional<PlanCounterexample> counterexample;
  std::string reason;  // inconclusive: why
  int64_t queries = 0;
  double solver_ms = 0;
  // (query name, SMT-LIB 2 text) of every query, with PlanProveOptions::solver.keep_smt2.
  std::vector<std::pair<std::string, std::string>> smt2;
};

// Requires: `plan` planned for `problem` (PlanConversion), possibly altered.
// Ensures: kHolds when every obligation is proven; kViolated with a counterexample that
//          the concrete run of the program confirms; kInconclusive when a query ran out
//          of its rlimit or a witness did not apply. InvalidArgument when the plan does
//          not fit the problem (word counts, setup ids), Unimplemented for programs the
//          encoding does not cover (shared memory mixed with shuffles, 8-byte words),
//          Internal when Z3 fails or a solver counterexample does not reproduce
//          concretely (an encoding bug, never reported as a violation).
absl::StatusOr<PlanProof> ProvePlan(const sim::plan::ConversionProblem& problem,
                                    const sim::plan::ConversionPlan& plan,
                                    const PlanProveOptions& options);

// One obligation as its report entry.
void ToProto(const ObligationResult& ob, PlanProofObligation* out);
PlanProofObligation::Verdict ToProto(Verdict v);

// The report of `prove plan` / `convert check --prove=plan`: the proof, and what was
// proven (strategy, attributes, shape, dtype, warps).
warpcheck::PlanProofReport ToProto(const PlanProof& proof,
                                   const sim::plan::ConversionProblem& problem,
                                   const sim::plan::ConversionPlan& plan);

}  // namespace warpcheck::verify::plan

#endif  // WARPCHECK_VERIFY_PLAN_PLAN_PROVE_H_
