// Internals of SymbolicLaunch shared by sym_exec.cc (state, memory, scheduler) and
// sym_semantics.cc / sym_warp.cc (one small semantic per opcode family).
#ifndef WARPCHECK_VERIFY_PTX_SYM_EXEC_INTERNAL_H_
#define WARPCHECK_VERIFY_PTX_SYM_EXEC_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "proto/launch.pb.h"
#include "sim/ptx/ast.h"
#include "verify/ptx/sym_exec.h"
#include "verify/ptx/sym_value.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::ptx {

namespace sp = ::warpcheck::sim::ptx;

enum class ThreadState : uint8_t { kRun, kWarpWait, kBarWait, kExited };

struct Thread {
  uint32_t tid = 0;  // linear id in the CTA
  uint32_t pc = 0;
  ThreadState state = ThreadState::kRun;
  uint8_t barrier = 0;
  uint32_t member = 0;  // warp-level wait: the member mask
  uint64_t steps = 0;
  uint32_t bars = 0;   // CTA barriers passed (race ordering)
  uint32_t wsync = 0;  // warp-level synchronisations taken part in (race ordering)
  std::vector<Value> regs;  // per kernel register
};

// One shared-memory access, for the race check.
struct Access {
  uint32_t tid = 0;
  uint32_t bars = 0;
  uint32_t wsync = 0;
  uint32_t pc = 0;
};

struct GlobalRegion {
  uint64_t base = 0;
  uint64_t size = 0;
  size_t buffer = 0;  // index into SymRunResult::buffers
};

struct SymbolicLaunch::Impl {
  warpcheck::LaunchSpec spec;
  const sp::Module* module = nullptr;
  const sp::Kernel* kernel = nullptr;
  smt::Context* ctx = nullptr;
  SymExecOptions options;

  std::vector<const sp::Instruction*> code;
  absl::flat_hash_map<std::string, uint32_t> labels;
  std::vector<int> reg_bits;  // per kernel register (1 for predicates)

  std::vector<uint8_t> params;
  absl::flat_hash_map<std::string, uint64_t> param_offset;
  absl::flat_hash_map<std::string, uint64_t> shared_symbols;  // address in shared space
  uint32_t shared_bytes = 0;
  uint32_t block[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};

  std::vector<GlobalRegion> regions;  // sorted by base
  std::vector<InputRegion> inputs;
  std::vector<smt::Term> opaque;
  absl::flat_hash_map<uint64_t, smt::Term> element_vars;  // region << 40 | element

  // The CTA being run.
  uint32_t cta_linear = 0;
  uint32_t cta_id[3] = {0, 0, 0};
  std::vector<Atom> shared;  // 8 atoms per byte
  // Race shadow per shared byte: the last write (tid == kNoAccess: none) and the reads
  // since. Two accesses of different threads conflict unless a CTA barrier or (same warp)
  // a warp-level synchronisation lies between them — the simulator's rule (race.h).
  std::vector<Access> last_write;
  std::vector<std::vector<Access>> reads;
  std::vector<Thread> threads;
  uint32_t bar_arrived[16] = {};  // bar.arrive counts per barrier
  uint32_t bar_expected[16] = {};

  SymRunResult result;
  bool stopped = false;

  // ---- sym_exec.cc -------------------------------------------------------------------
  // Ends the run with `status` at the instruction `pc` (first call wins).
  bool Stop(RunStatus status, uint32_t pc, std::string reason);
  bool Inconclusive(uint32_t pc, std::string why) {
    return Stop(RunStatus::kInconclusive, pc, std::move(why));
  }
  bool Fault(const Thread& t, uint32_t pc, const char* kind, std::string text);

  // Operand access. Read: the operand's value at `bits` (registers are truncated or
  // zero-extended; immediates converted as the simulator does for `type`).
  Value Read(const Thread& t, const sp::Operand& o, sp::Type type);
  // Write `v` to a register operand (zero-extended, or sign-extended when `sign`, to
  // the register's width); `_` drops it; a vector operand takes consecutive slices.
  void Write(Thread& t, const sp::Operand& o, const Value& v, bool sign = false);
  // The predicate operand's value (negation applied): 0, 1, or nullopt when symbolic
  // (after asking Z3's simplifier).
  std::optional<bool> Pred(const Thread& t, const sp::Operand& o);
  // A concrete value for control or addressing, or nullopt (then the caller stops the
  // run as inconclusive).
  std::optional<uint64_t> Concrete(const Value& v);
  // The address of an address operand [base+offset].
  std::optional<uint64_t> Address(const Thread& t, const sp::Operand& o, sp::Space space);

  // Memory: `bytes` bytes at `addr` in `space`; false after recording a fault.
  bool Load(const Thread& t, uint32_t pc, sp::Space space, uint64_t addr, uint32_t bytes,
            std::vector<Atom>* out);
  bool Store(const Thread& t, uint32_t pc, sp::Space space, uint64_t addr,
             const std::vector<Atom>& atoms, uint8_t elem);
  // The race check of a shared access of `bytes` bytes at offset `off` (writes: `data`
  // is what is written, 8 atoms per byte). False after recording a shared_race fault.
  bool CheckShared(const Thread& t, uint32_t pc, uint32_t off, uint32_t bytes, bool write,
                   const Atom* data);
  // Shared memory rows for ldmatrix/stmatrix (shared-space offsets, bounds checked).
  std::optional<uint32_t> SharedOffset(const Thread& t, uint32_t pc, uint64_t addr,
                                       uint32_t bytes, bool store);

  // Terms: a new opaque term of `width` bits for `term`.
  Value FromTerm(smt::Term term, int width, uint32_t pc);
  Value FromBool(smt::Term b, uint32_t pc);
  smt::Term TermOf(const Value& v);
  // The input region holding input bit `bit`, and the variable of one of its elements
  // (made on first use, "<region>[<element>]").
  size_t RegionIndex(uint64_t bit) const;
  smt::Term ElementVar(size_t region, uint64_t element);

  uint32_t SpecialValue(const Thread& t, sp::SpecialReg r, bool* ok) const;
  uint32_t Warps() const;

  // ---- sym_semantics.cc --------------------------------------------------------------
  // Runs one non-warp-level instruction of thread t (its guard already true). Returns
  // false when the run stopped.
  bool ExecPlain(Thread& t, const sp::Instruction& in);

  // ---- sym_warp.cc -------------------------------------------------------------------
  // Runs a warp-level instruction for `lanes` of warp `warp` (all waiting at `pc`).
  bool ExecWarp(uint32_t warp, uint32_t lanes, uint32_t pc);
};

// True for the instructions that wait for their warp (sym_warp.cc runs them).
bool IsWarpLevel(sp::Opcode op);

}  // namespace warpcheck::verify::ptx

#endif  // WARPCHECK_VERIFY_PTX_SYM_EXEC_INTERNAL_H_
