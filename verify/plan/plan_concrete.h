// The concrete side of plan proofs: what each word byte of a view holds, an interpreter
// that runs a Program for every thread of the CTA on tags, and the warp-wide shared
// requests of its access ops. Also read by `warpcheck convert plan --svg`
// (tools/warpcheck/plan_render), which draws what this computes.
//
// A tag names "byte b of element e" as e * 8 + b. The interpreter runs the ops in order,
// all threads in lockstep (the program is straight-line and warp-uniform), with shared
// memory as a byte array of tags. It is the re-check of every counterexample the solver
// finds: a violation is reported only when this run shows it.
#ifndef WARPCHECK_VERIFY_PLAN_PLAN_CONCRETE_H_
#define WARPCHECK_VERIFY_PLAN_PLAN_CONCRETE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/bank/bank_model.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/plan/program.h"

namespace warpcheck::verify::plan {

inline constexpr uint32_t kJunkTag = 0xFFFFFFFEu;      // a byte no element has
inline constexpr uint32_t kUnwrittenTag = 0xFFFFFFFDu;  // shared memory never stored
inline uint32_t Tag(uint32_t element, uint32_t byte) { return element * 8 + byte; }

// Which (register, byte of its element) byte j of word `word` of a view holds; nullopt
// for bytes the view leaves unused (above an unpacked 8/16-bit element).
// Requires: word < view.words(), j < 4.
std::optional<std::pair<uint32_t, uint32_t>> WordByte(const sim::plan::WordView& view,
                                                      int element_bytes, uint32_t word,
                                                      int j);

// ldmatrix / stmatrix .m8n8 .b16 (PTX ISA fragment layout; sim/machine/sem_warp.cc is
// the reference): byte j of lane `lane`'s word i is byte `col` of row `row` of matrix i,
// whose 16-byte row address lane 8i + row supplies. Without .trans the lane holds row
// lane/4, columns 2(lane%4) and 2(lane%4)+1 (4 bytes of one row); with .trans the
// halves come from rows 2(lane%4) and 2(lane%4)+1, column lane/4 (2 bytes of each).
struct MatrixPiece {
  uint32_t row, col;  // row 0..7 of the matrix, byte 0..15 of the row
};
MatrixPiece MatrixByte(bool trans, uint32_t lane, int j);
inline bool IsMatrix(const sim::plan::Op& op) {
  return op.kind == sim::plan::OpKind::kStMatrix || op.kind == sim::plan::OpKind::kLdMatrix;
}
// Matrices of a matrix op (.x1/.x2/.x4): its words.
inline int MatrixCount(const sim::plan::Op& op) {
  return static_cast<int>(op.kind == sim::plan::OpKind::kStMatrix ? op.in.size()
                                                                  : op.out.size());
}
// Bytes of one word a shared access moves: 4 for matrix ops, elem_bytes (≤ 4) otherwise.
inline int WordBytesOf(const sim::plan::Op& op) { return IsMatrix(op) ? 4 : op.elem_bytes; }

bool IsStore(const sim::plan::Op& op);       // st.shared, stmatrix
bool IsLoad(const sim::plan::Op& op);        // ld.shared, ldmatrix
bool IsAccess(const sim::plan::Op& op);      // either
// Bytes one thread's access covers at its address: the vector, or for a matrix op the
// 16-byte row the lane addresses (the rows of an op are its whole footprint: each row
// is written or read, 4 bytes per lane, by the lanes MatrixByte maps there).
int AccessBytes(const sim::plan::Op& op);
// "st.shared", "ld.shared", "stmatrix.x4.trans", ...
std::string OpName(const sim::plan::Op& op);

// u32 value of a kTidLinear / kSmemAddr setup value at thread `tid` (kSmemAddr relative
// to its buffer: bytes * (map ^ constant)); predicates as 0/1.
uint32_t SetupAt(const sim::plan::SetupValue& v, uint32_t tid);

// One warp-wide shared request of access op `k` in warp `warp`: each lane's byte address
// in the buffer (matrix ops: the row lane l supplies), the lanes whose predicate lets them
// take part, and sim/bank's price (matrix ops: one 8-lane group per matrix; no lane taking
// part: zero). Requires: IsAccess(p.ops[k]). The bank obligations and `convert plan
// --svg`'s bank map read requests this way.
struct WarpRequest {
  uint32_t addr[32] = {};
  uint32_t mask = 0;
  sim::bank::BankCost cost;
};
WarpRequest RequestOf(const sim::plan::Program& p, int k, uint32_t warp);

struct ConcreteRun {
  int threads = 0;
  // words[tid * num_words + id]: the four byte tags of word `id` in thread `tid`.
  std::vector<std::array<uint32_t, 4>> words;
  int num_words = 0;
  // Shared memory (one buffer): byte tags and how many live stores wrote each byte.
  std::vector<uint32_t> smem;
  std::vector<uint16_t> writers;
  // The first out-of-bounds access (op index, thread), if any.
  std::optional<std::pair<int, int>> out_of_bounds;

  const std::array<uint32_t, 4>& Word(int tid, int id) const {
    return words[static_cast<size_t>(tid) * num_words + id];
  }
};

// Runs `plan.program` for every thread on the source layout's tags.
// Ensures: InvalidArgument when the program does not fit the problem.
absl::StatusOr<ConcreteRun> RunConcrete(const sim::plan::ConversionProblem& problem,
                                        const sim::plan::ConversionPlan& plan);

}  // namespace warpcheck::verify::plan

#endif  // WARPCHECK_VERIFY_PLAN_PLAN_CONCRETE_H_
