// The conversion program: what a plan lowers to, before it is printed as PTX.
//
// A conversion is straight-line code over 32-bit *words* (packed 8/16-bit elements, a
// 32-bit element, or one half of a 64-bit element). Everything that depends only on the
// thread id (lane predicates, shared addresses, shuffle source lanes) is a `SetupValue`,
// computed once per thread before any conversion runs; the `ops` are what runs each time
// the conversion runs, and are what the cost model counts. Word ids are SSA: every op
// defines new words; `inputs` are the source words in source-word order and `outputs`
// the destination words in destination-word order (an output may be an input: renaming
// costs nothing).
//
// sim/ptx/codegen prints a Program as PTX; the planner (planner.h) builds it.
#ifndef WARPCHECK_SIM_PLAN_PROGRAM_H_
#define WARPCHECK_SIM_PLAN_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace warpcheck::sim::plan {

struct SetupValue {
  enum class Kind {
    // u32 = XOR over thread-id bits b of (bit b of %tid.x ? coeff[b] : 0) ^ constant.
    kTidLinear,
    // predicate: parity(%tid.x & mask) == 1.
    kTidParity,
    // predicate: (%tid.x & mask) == 0.
    kTidMaskZero,
    // u32 shared byte address: buffer base + element_bytes * (kTidLinear value).
    kSmemAddr,
  };
  Kind kind = Kind::kTidLinear;
  std::vector<uint32_t> coeff;  // one per %tid.x bit (5 lane bits, then warp bits)
  uint32_t constant = 0;
  uint32_t mask = 0;
  int buffer = 0;         // kSmemAddr: which conversion buffer
  int element_bytes = 1;  // kSmemAddr: scale

  // The members' equality; the coefficients last (AddSetup compares every new value with
  // the setup so far, and most differ in their constant).
  bool operator==(const SetupValue& o) const {
    return kind == o.kind && constant == o.constant && mask == o.mask && buffer == o.buffer &&
           element_bytes == o.element_bytes && coeff == o.coeff;
  }
};

// A shared address's constant part, split for registers. A kSmemAddr value is
// e(T ^ c), T the thread part (the XOR of the coefficients %tid.x selects), and the bits
// of c that no coefficient has cannot meet T's: T ^ c = (T ^ (c & reach)) + (c & ~reach).
// So only c & reach needs a setup value of its own (a register live across the
// harness's loop); the rest is the access's immediate. Splitting at the highest bit T can
// reach instead (what the planner did before) gave corpus line 354 (64x128 f16, 4 warps)
// 114 address registers where 12 do, on top of 256 data words: ptxas spilled 332 bytes a
// thread and the kernel ran 1.107x Triton's time on the H200 (sim/plan/README.md
// "Address registers").
struct AddressSplit {
  uint32_t xor_bits = 0;  // c & reach: the setup value's constant
  uint32_t add = 0;       // c & ~reach: added (element units)
};
// Ensures: (t ^ c) == (t ^ xor_bits) + add for every t with (t & ~reach) == 0.
inline AddressSplit SplitAddressConstant(uint32_t c, uint32_t reach) {
  return AddressSplit{c & reach, c & ~reach};
}

enum class OpKind {
  kSelp,      // out[0] = pred ? in[0] : in[1]
  kShflBfly,  // out[0] = in[0] of lane (lane ^ imm)
  kShflIdx,   // out[0] = in[0] of lane (setup `addr` & 31)
  kPrmt,      // out[0] = prmt(in[0], in[1], imm)
  kStShared,  // [setup addr + imm] = in (vector of `in.size()` elements of elem_bytes)
  kLdShared,  // out = [setup addr + imm]
  kBarSync,   // bar.sync 0
  kBarWarp,   // bar.warp.sync 0xffffffff
  // stmatrix / ldmatrix .m8n8 .x{in,out}.size() .b16 (matrix.h): `addr` is this lane's row
  // address (lane 8i + r: row r of matrix i), plus imm; word i is matrix i's.
  kStMatrix,  // [rows] = in
  kLdMatrix,  // out = [rows]
};

// Word lists of one op: at most four words but for vector accesses, kept inline (the
// planner builds and drops thousands of ops per conversion).
using Words = absl::InlinedVector<int, 4>;

struct Op {
  OpKind kind = OpKind::kSelp;
  Words out;
  Words in;
  int pred = -1;  // setup id (predicate) or -1
  int addr = -1;  // setup id (address / lane index) or -1
  uint32_t imm = 0;
  int elem_bytes = 4;  // kStShared/kLdShared: bytes per vector element (1, 2, 4, 8)
  bool trans = false;  // kStMatrix/kLdMatrix: the .trans variant
};

struct Program {
  std::vector<SetupValue> setup;
  int num_words = 0;  // word ids are 0 .. num_words-1
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<Op> ops;
  int64_t smem_bytes = 0;  // per buffer

  int NewWord() { return num_words++; }
  // Ensures: the id of an equal setup value (added when new).
  int AddSetup(const SetupValue& v);
};

// Static counts of a program's ops by kind (movs are never emitted inside a conversion).
// st_shared/ld_shared count plain accesses only; stmatrix/ldmatrix their own.
struct OpCounts {
  int64_t shfl = 0, selp = 0, prmt = 0, st_shared = 0, ld_shared = 0, stmatrix = 0,
          ldmatrix = 0, bar = 0;
  int64_t total() const {
    return shfl + selp + prmt + st_shared + ld_shared + stmatrix + ldmatrix + bar;
  }
};
OpCounts CountOps(const Program& p);

// The program that runs `first` and then `second` on its outputs.
// Requires: second.inputs.size() == first.outputs.size().
// Ensures: inputs of first, outputs of second; equal setup values merged.
Program Compose(const Program& first, const Program& second);

// Simplifies a program in place, keeping what it computes: a select whose operand is a
// select on the same predicate takes that select's operand for its own branch
// (selp(p, selp(p, a, b), c) = selp(p, a, c)), a select of two equal words is that word,
// equal shuffles and selects are computed once, and ops whose words nothing reads are
// dropped (stores and barriers always stay). Running two conversions back to back
// (the round-trip harness) leaves selects that undo each other; this removes them, as
// LLVM's instcombine does for Triton's.
void Simplify(Program& p);

// Shared-memory rounds. A shared-memory conversion stores the whole tensor, waits, and
// loads it back: its buffer holds every element (128 KiB for 256x256 f16), which can
// leave room for one CTA per SM. Triton splits off the offset bits that both layouts
// keep in registers (its `reps`, shared/spec/triton-convert-layout.md §3.2) and runs
// the transfer once per value of them over a buffer that holds only the rest. The same
// works on any of our shared-memory programs, after planning:
//
//   * a round bit is an offset bit (element units) that no thread part of an address
//     reaches (no kSmemAddr coefficient has it), so every access op - one register of one
//     side - lies wholly in one round, the round its immediate and constant name; it is
//     at or above the 128-byte line (eb << bit >= 128) and above every access's bytes,
//     so one warp's addresses keep their banks, their lines stay distinct (the round bits
//     are equal across the warp) and the wavefronts are those of the plan;
//   * each address drops its round bits (the offset bits above shift down), the buffer
//     shrinks by 2^bits, and the ops run as {stores of round q; barrier; loads of round
//     q} for q = 0, 1, ..., with a barrier between rounds (the next round's stores
//     overwrite what this round's loads read), each of the plan's own barrier kind.
//
// Requires: `p` is one shared-memory conversion: barriers (from barrier_before_store),
// then its stores, one barrier, then its loads, all addressed by kSmemAddr setups.
// Ensures: unchanged when p.smem_bytes <= max_bytes or there is no round bit; else the
// highest round bits, as few as bring the buffer within max_bytes (or all there are), and
// returns the number of rounds (1 when unchanged); setup values made equal are merged.
int ChunkSharedRounds(Program& p, int64_t max_bytes);

// Requires: `p` from ChunkSharedRounds (or any program it left alone). Ensures: the
// one-round program of the same shared layout with the round index as the top offset
// bits (addresses + round * buffer bytes; the buffer times the rounds); every store
// before one barrier, every load after it. The plan prover (verify/plan) proves a plan
// in rounds as this program: the layout and the data flow are the same; the rounds
// themselves are checked where the emitted kernel is (the PTX proof, the simulator).
// Returns the number of rounds p had (1: p unchanged).
int UnchunkSharedRounds(Program& p);

// Shared-memory components. In a one-round shared conversion (stores, one barrier,
// loads), a store and a load touch a common byte only if their constant offsets differ
// by an element of V, the span of the addresses' thread coefficients and of the offsets
// inside one thread's access (element units). So the ops fall into components, the
// cosets of V their constant offsets lie in, and no op reads or overwrites another
// component's bytes. A warp-local conversion may then run component by component,
// {stores of q; bar.warp.sync; loads of q} for each q: the loads of one component are in
// flight while the next one's stores issue, instead of every load waiting behind every
// store. On the H200 this is what Triton's kernels do in rounds over a small buffer; on
// line 573 of the corpus (64x64 f16, one warp) the plan with stmatrix stores and eight
// components ran in 0.89x the time of the one-phase plain plan and 0.96x Triton's
// (corpus/plan/h200/exp_2026-12-03c). The buffer keeps its size: components are
// disjoint, so no barrier is needed between them.
//
// Ensures: false unless every access of p is addressed by a kSmemAddr setup of one
// element size; else keys[i] for each access op i (0 for other ops) such that two
// accesses with different keys touch no common byte (the coset of V their constant
// offset lies in, reduced to a canonical representative).
bool SharedComponentKeys(const Program& p, std::vector<uint32_t>* keys);
// Ensures: the number of components of a one-round shared conversion whose accesses are
// all addressed by kSmemAddr setups (1 for any other program).
int SharedComponents(const Program& p);
// Requires: nothing. Ensures: when p is such a conversion with a warp barrier and at least
// two components, its ops reordered as above (components in the order of their first
// store, each op's relative order kept) and the number of components; else p unchanged
// and 1. Only barriers are added: every access keeps its address.
int InterleaveSharedComponents(Program& p);
// Ensures: the inverse for p from InterleaveSharedComponents: every store (in order), one
// barrier, every load; the number of components p had (1: p unchanged). The plan prover
// proves an interleaved plan as this program (as it does rounds, UnchunkSharedRounds);
// the order itself is checked where the emitted kernel is (the PTX proof, the
// simulator's race detector).
int SequenceSharedComponents(Program& p);
// Ensures: the number of groups {stores; bar.warp.sync; loads} of p when it has the shape
// InterleaveSharedComponents leaves (>= 2 groups), else 1.
int InterleavedGroups(const Program& p);

// A readable listing (one op per line), for `convert plan` and test failures.
std::string ProgramToString(const Program& p);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_PROGRAM_H_
