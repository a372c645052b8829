// The SIMT machine: runs a decoded kernel over a grid of CTAs (shared/spec/ptx-subset.md,
// "Execution model").
//
// Threads and warps. Every thread has its own pc and runs independently between
// synchronising instructions. The scheduler is fixed and deterministic: within a warp it
// always runs the lanes at the *smallest* pc together (so lanes that branch apart meet
// again at the join point), and while all live lanes share one pc ("converged") the warp
// runs straight-line code as whole-warp loops over 32 lanes. Warps of a CTA take turns
// in index order, each running until it blocks, exits or uses its quantum; resident CTAs
// take turns the same way (all CTAs of the grid, up to Options::max_resident_ctas, are
// resident at once, so CTAs that signal each other through global memory make progress).
//
// Synchronisation.
//   - shfl.sync, vote.sync, bar.warp.sync, ldmatrix, stmatrix: a lane that reaches one
//     waits until every non-exited lane of its member mask waits at the same instruction,
//     then the instruction runs once for all of them. A member lane that waits elsewhere
//     (another warp-level instruction, a CTA barrier) is a `divergent_sync` fault.
//   - bar.sync / barrier.sync a[, b]: waits until b threads (default: every non-exited
//     thread of the CTA) arrived at barrier a; bar.arrive counts without waiting. The
//     aligned forms (bar.sync, barrier.sync.aligned) also require all waiters to be at
//     the same instruction (`divergent_sync`). When nothing can move, the waiters are a
//     `barrier_deadlock` (or `divergent_sync` when a warp-level wait is involved).
//
// Ordering (for races). A completed CTA barrier with every live thread starts a new
// epoch: all accesses of earlier epochs are ordered before all later ones. Warp-level
// synchronisation (bar.warp.sync, ldmatrix, stmatrix) joins the lanes' vector clocks;
// barriers among a subset of warps join warp clocks. Two shared-memory accesses to one
// byte by different threads, at least one a write, with none of these between them, are
// a `shared_race` fault (reported, execution continues). Exception: a write that races
// only with earlier writes of the *same value* (Triton stores broadcast data from every
// thread that holds it) is counted, not reported.
//
// Faults are values (`Fault`): out_of_bounds, misaligned, shared_race, divergent_sync,
// barrier_deadlock, non_member_lane, exited_lane, instruction_budget. Any fault but a
// race stops the launch.
#ifndef WARPCHECK_SIM_MACHINE_MACHINE_H_
#define WARPCHECK_SIM_MACHINE_MACHINE_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/bank/bank_model.h"
#include "sim/machine/memory.h"
#include "sim/machine/program.h"
#include "sim/machine/race.h"
#include "sim/ptx/op_table.h"

namespace warpcheck::sim::machine {

// Bits set in a lane mask. The build targets baseline x86-64 (no POPCNT), where
// __builtin_popcount is a call into libgcc; this is a few inline ALU operations, and the
// scheduler counts every warp instruction's lanes with it.
inline int Popcount32(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return int((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint32_t Count() const { return x * y * z; }
};

// bank::SharedRequestCost remembered per instruction: the last kWays distinct requests of
// each pc (its set is pc modulo the memo's sets, so pcs that far apart share one; a miss
// replaces the set's ways in turn). The cost is unchanged when every lane's address moves
// by the same multiple of 128 bytes (banks are address / 4 mod 32, so the banks, the
// distinct words and the alignment stay; MachineBankTest.ShiftedRequestsCostTheSame), so
// a request is kept as its addresses less (first lane's address rounded down to 128):
// the warps of a CTA that run one ld/st at different bases, and a loop's iterations, find
// their cost here instead of counting banks again. Several ways per pc because the warps
// of a CTA often alternate between a few patterns at one instruction (a swizzle that
// depends on the warp), which thrashed a single entry. Exactly SharedRequestCost's figures.
class SharedCostMemo {
 public:
  static constexpr uint32_t kWays = 4;
  // `sets` (>= 1) sets of kWays entries; the instruction at pc uses set pc % sets.
  explicit SharedCostMemo(uint32_t sets = 16)
      : entries_(size_t{sets} * kWays), next_(sets, 0) {}
  bank::BankCost Cost(uint32_t pc, const uint32_t addr[32], uint32_t mask, uint32_t bytes);

 private:
  struct Entry {
    // User-provided: a value-initialised vector of entries would otherwise zero every
    // `rel` first (10 KB per launch for the machine's own memo); an entry's `rel` is read
    // only once `pc` names an instruction, and then it was written.
    Entry() {}
    uint32_t pc = ~uint32_t{0};
    uint32_t mask = 0;
    uint32_t bytes = 0;
    bank::BankCost cost;
    uint32_t rel[32];  // lanes outside `mask`: 0
  };
  std::vector<Entry> entries_;
  std::vector<uint8_t> next_;  // per set: the way a miss replaces
};

struct Options {
  uint64_t max_instructions_per_thread = 100'000'000;
  uint32_t max_resident_ctas = 132;  // one per SM of an H200
  uint32_t quantum = 4096;           // warp instructions per turn
  bool detect_races = true;
  // False: every ld/st runs lane by lane, never through the one-range-check fast path
  // (sem_mem.cc FastLdSt); the reference the fast path is tested against.
  bool fast_ldst = true;
  // False: every warp instruction goes through RunWarp's general step, never through its
  // converged straight-line loop (machine.cc RunWarp); the reference the loop is tested
  // against.
  bool fast_straight_line = true;
  // True: a warp zeroes all its registers when it starts, not only Program::zero_slots
  // (the others are written before they are read); the reference the skip is tested
  // against.
  bool zero_every_register = false;
  // Tests: the registers a warp does not zero start as 0xA5A5... instead of whatever the
  // allocation held, so that a register read before it is written shows.
  bool poison_unzeroed_registers = false;
  uint32_t max_reported_races = 8;
  // Where bank costs are remembered (SharedCostMemo): the caller's, kept across launches
  // (the same figures; a launch of the same kernel finds its requests there), or null:
  // the machine's own.
  SharedCostMemo* shared_cost_memo = nullptr;
  // False: shared-memory requests are not costed (Counters' smem_requests,
  // smem_wavefronts and bank_conflicts stay 0); for launches whose counters nobody reads
  // (RunOptions::report_counters false). Nothing else depends on them.
  bool count_banks = true;
  // Shared-memory requests are costed only for instructions below this pc (with
  // count_banks): the fuzzer's check harness (sim/ptx/codegen.h, Harness::kCheck) runs
  // its forward conversion alone before the loop, and its figures are that conversion's.
  uint32_t count_banks_below_pc = UINT32_MAX;
  std::ostream* trace = nullptr;  // one line per executed warp instruction
  // When non-zero: remember the last global store that writes this byte address
  // (`gpu diff` uses it to say which thread and register wrote a differing element).
  uint64_t watch_global_address = 0;
};

// The last store to Options::watch_global_address.
struct StoreRecord {
  uint32_t cta[3] = {0, 0, 0};
  uint32_t thread = 0;   // linear thread id in the CTA
  uint32_t pc = 0;
  uint32_t line = 0;
  std::string text;      // the instruction
  uint32_t element = 0;  // which element of a vector store ({a, b, ...}) holds the byte
};

struct Fault {
  std::string kind;
  uint32_t cta[3] = {0, 0, 0};
  uint32_t thread = 0;
  uint32_t pc = 0;
  uint32_t line = 0;
  std::string text;
};

struct Counters {
  uint64_t thread_instructions = 0;  // executed (guard true) thread-instructions
  uint64_t warp_instructions = 0;    // warp-level issues
  uint64_t by_class[int(ptx::OpClass::kNumClasses)] = {};  // warp-level, with >= 1 lane
  uint64_t barriers = 0;                                   // completed CTA barrier phases
  uint64_t smem_requests[2] = {0, 0};  // [0] loads, [1] stores (warp-level)
  uint64_t smem_wavefronts[2] = {0, 0};
  uint64_t bank_conflicts[2] = {0, 0};
  uint64_t global_bytes[2] = {0, 0};
  uint64_t same_value_write_races =
      0;  // unordered writes of identical bytes (not faults)
};

// Barrier state (16 per CTA).
struct Barrier {
  uint32_t arrived = 0;   // threads arrived in this phase (waiting and bar.arrive)
  uint32_t expected = 0;  // b, or 0 = every live thread
  uint32_t wait_pc = 0xFFFFFFFFu;  // where the first waiter waits (aligned check)
  uint32_t warp_mask = 0;          // bit w: warp w took part in this phase (ordering)
};

enum class WaitKind : uint8_t { kNone, kWarpSync, kBarrier };

struct Warp {
  uint32_t index = 0;     // warp id within the CTA
  uint32_t base_tid = 0;  // linear thread id of lane 0
  uint32_t valid = 0;     // lanes that exist
  uint32_t exited = 0;
  uint32_t waiting = 0;   // lanes blocked at a warp-level instruction or a barrier
  bool converged = true;  // every live lane at `pc` (and waiting is 0 or all live lanes)
  uint32_t pc = 0;
  uint32_t lane_pc[32] = {};
  WaitKind wait_kind[32] = {};
  uint8_t wait_barrier[32] = {};
  uint64_t issued = 0;           // issues while converged (all live lanes counted)
  uint64_t lane_extra[32] = {};  // per-lane issues while diverged
  uint64_t max_extra = 0;
  // num_slots * 32, filled when the warp first runs (Machine::InitRegs): a CTA's register
  // files are larger than a core's L1, so each is written just before its warp uses it.
  // Only the warp's own instructions read it, so nothing looks at it earlier. Allocated
  // without initialisation: InitRegs zeroes the slots that need it (Program::zero_slots).
  std::unique_ptr<uint64_t[]> regs;
  bool regs_ready = false;
  std::vector<uint32_t> preds;  // one lane mask per predicate
  // Ordering (race.h): warp-level sync generations.
  uint32_t wgen = 0;
  uint32_t last_full_gen = 0;
  uint32_t lane_gen[32] = {};
  uint32_t lane_sync_mask[32] = {};
  uint32_t Live() const { return valid & ~exited; }
};

struct Cta {
  uint32_t id[3] = {0, 0, 0};
  uint32_t linear = 0;
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  RaceShadow shadow;
  std::vector<uint8_t> local;  // threads * local_bytes
  Barrier barriers[16];
  uint32_t live_threads = 0;
  uint32_t epoch = 0;         // completed full-CTA barriers
  std::vector<uint32_t> wvc;  // warp vector clocks, nw * nw
  bool done = false;
};

// Per-warp execution context handed to exec functions.
struct Exec {
  class Machine* m;
  Cta* cta;
  Warp* w;
  uint64_t* regs;
  uint32_t* preds;
  uint32_t pc;
  uint64_t* R(uint32_t slot) const { return regs + size_t{slot} * 32; }
};

class Machine {
 public:
  // Requires: `program` outlives the machine; `params` is the parameter memory
  // (Program::param_bytes long); `global` holds the buffers and module variables, and
  // `global_var_addrs[i]` is the address of Program::globals[i]; block.Count() in
  // [1, 1024].
  Machine(const Program& program, Options options, Dim3 grid, Dim3 block,
          uint32_t dynamic_shared_bytes, std::vector<uint8_t> params,
          GlobalMemory* global, const std::vector<uint64_t>& global_var_addrs);

  // Runs the whole grid. Ensures: faults() and counters() describe the run.
  void Run();

  const std::vector<Fault>& faults() const { return faults_; }
  const std::optional<StoreRecord>& watch_hit() const { return watch_hit_; }
  // Records a store covering the watched address (called by st.global semantics).
  void RecordWatchedStore(const Exec& x, int lane, uint32_t element);
  const Counters& counters() const { return counters_; }
  bool stopped() const { return stopped_; }

  // ---- used by exec functions -------------------------------------------------------
  // Records a fault for lane `lane` of the executing warp; returns false. Every kind but
  // shared_race stops the launch.
  bool FaultAt(Exec& x, int lane, const char* kind, std::string text);
  GlobalMemory& global() { return *global_; }
  const std::vector<uint8_t>& params() const { return params_; }
  const Program& program() const { return program_; }
  const Options& options() const { return options_; }
  Counters& mutable_counters() { return counters_; }
  uint32_t shared_bytes() const { return shared_bytes_; }
  // The bank cost of the shared request of the instruction at `pc` (SharedCostMemo).
  bank::BankCost SharedCost(uint32_t pc, const uint32_t addr[32], uint32_t mask,
                            uint32_t bytes) {
    return cost_memo_->Cost(pc, addr, mask, bytes);
  }
  Dim3 grid() const { return grid_; }
  Dim3 block() const { return block_; }

  // Race checks for a shared access of `size` bytes at `offset` by lane `lane`.
  // Returns false only when the launch must stop.
  // `data` is the bytes about to be written: a write that races only with earlier writes
  // of the same bytes (broadcast layouts store one value from several threads) is
  // benign and only counted (Counters::same_value_write_races).
  bool CheckSharedRead(Exec& x, int lane, uint32_t offset, uint32_t size);
  bool CheckSharedWrite(Exec& x, int lane, uint32_t offset, uint32_t size,
                        const uint8_t* data);
  // The same with an accessor made once per instruction (MakeAccessor) and moved to
  // each lane (SetLane): the hot path of ld/st/ldmatrix/stmatrix.
  Accessor MakeAccessor(const Exec& x, int lane) const;
  static void SetLane(Accessor& a, const Warp& w, int lane) {
    a.me.tid = uint16_t(w.base_tid + lane);
    a.lane = uint32_t(lane);
    a.lane_gen = w.lane_gen[lane];
    a.lane_sync_mask = w.lane_sync_mask[lane];
  }
  bool CheckSharedRead(Exec& x, const Accessor& a, int lane, uint32_t offset,
                       uint32_t size);
  bool CheckSharedWrite(Exec& x, const Accessor& a, int lane, uint32_t offset,
                        uint32_t size, const uint8_t* data);
  // CheckSharedRead for every lane of `lanes` in increasing order, lane L reading
  // [offsets[L], offsets[L] + size), through one RaceShadow::ReadLanes call per warp
  // instruction (more only after a race). Requires: size and every offset multiples of 4;
  // [lo, hi) covers every lane's bytes (RaceShadow::ReadLanes).
  bool CheckSharedReads(Exec& x, const Accessor& a, uint32_t lanes,
                        const uint32_t offsets[32], uint32_t size, uint32_t lo, uint32_t hi);
  // CheckSharedWrite and the store itself for every lane of `lanes` in increasing order:
  // lane L writes its `size` bytes at data + L * size to shared offset offsets[L]
  // (RaceShadow::WriteLanes). Requires what CheckSharedReads requires.
  bool StoreSharedChecked(Exec& x, const Accessor& a, uint32_t lanes,
                          const uint32_t offsets[32], uint32_t size, const uint8_t* data);
  // Records a warp-level synchronisation of `mask` in warp `w` (bar.warp.sync, ldmatrix,
  // stmatrix) for race ordering.
  void WarpSyncClocks(Warp& w, uint32_t mask);

 private:
  void InitCta(Cta& c, uint32_t linear);
  void InitWarp(Cta& c, Warp& w);
  void InitRegs(Cta& c, Warp& w);
  // Runs warp w for up to `quantum` issues. Returns whether it made progress (true also
  // when the run must stop: a fault, or every CTA stopped).
  bool RunWarp(Cta& c, Warp& w);
  // How RunStraightLine ended: at an instruction it does not run (the general step takes
  // over), with the run stopped, or at the end of the quantum.
  enum class StraightEnd { kOther, kStop, kQuantum };
  // RunWarp's fast path for a converged warp (Options::fast_straight_line): plain
  // instructions from w.pc while the quantum lasts; *n is the quantum's issue count, in
  // and out; *progressed is set when anything issued.
  StraightEnd RunStraightLine(Warp& w, Exec& x, uint32_t quantum, uint32_t* n,
                              bool* progressed);
  // RunWarp's general step, first half: the pc that issues next (a diverged warp's
  // lowest lane pc) and the lanes at it among `runnable` (the live lanes that do not
  // wait; not 0), charged to the instruction budget. False when the budget is spent: the
  // fault is recorded.
  bool NextIssue(Cta& c, Warp& w, uint32_t runnable, uint32_t* pc, uint32_t* mask);
  // The second half: runs instruction pc for `mask` (its guard applied), counts it and
  // moves the lanes on. Returns whether the run must stop.
  bool Issue(Cta& c, Warp& w, Exec& x, uint32_t pc, uint32_t mask);
  void Diverge(Warp& w);
  void TryReconverge(Warp& w);
  void MoveLanes(Warp& w, uint32_t lanes, uint32_t pc);
  void ExitLanes(Cta& c, Warp& w, uint32_t lanes);
  // Warp-level synchronisation.
  void ArriveWarpSync(Cta& c, Warp& w, const Insn& in, uint32_t pc, uint32_t arrive);
  bool TryCompleteWarpSync(Cta& c, Warp& w, uint32_t pc);
  uint32_t MemberMask(const Warp& w, const Insn& in, int lane) const;
  // CTA barriers.
  void ArriveBarrier(Cta& c, Warp& w, const Insn& in, uint32_t pc, uint32_t arrive);
  void MaybeCompleteBarrier(Cta& c, uint32_t id);
  void CompleteBarrier(Cta& c, uint32_t id);
  void Deadlock(Cta& c);
  void CheckWarpWaits(Cta& c, Warp& w);
  void ReleaseLanes(Warp& w, uint32_t lanes);
  std::string Where(const Warp& w, int lane) const;
  bool AddFault(Fault f);
  Fault MakeFault(const Cta& c, const Warp& w, int lane, uint32_t pc, const char* kind,
                  std::string text) const;
  void TraceLine(const Cta& c, const Warp& w, uint32_t pc, uint32_t mask);
  bool RaceFault(Exec& x, int lane, const Conflict& conflict, bool write);

  const Program& program_;
  Options options_;
  Dim3 grid_, block_;
  uint32_t dynamic_shared_bytes_;
  uint32_t shared_bytes_;
  uint32_t warps_per_cta_;
  std::vector<uint8_t> params_;
  GlobalMemory* global_;
  std::vector<uint64_t> reg_template_;
  std::vector<Fault> faults_;
  std::optional<StoreRecord> watch_hit_;
  uint32_t races_ = 0;
  bool stopped_ = false;
  Counters counters_;
  // Made only when the options bring none (it is ~10 KB to set up per launch).
  std::unique_ptr<SharedCostMemo> own_cost_memo_;
  SharedCostMemo* cost_memo_;  // options_.shared_cost_memo or own_cost_memo_
};

// Inline: one call per lane of every race-checked shared access.
inline bool Machine::CheckSharedRead(Exec& x, const Accessor& a, int lane, uint32_t offset,
                                     uint32_t size) {
  Conflict c = x.cta->shadow.Read(a, offset, size);
  if (c.found) return RaceFault(x, lane, c, false);
  return true;
}

inline bool Machine::CheckSharedReads(Exec& x, const Accessor& a, uint32_t lanes,
                                      const uint32_t offsets[32], uint32_t size, uint32_t lo,
                                      uint32_t hi) {
  while (lanes != 0) {
    uint32_t lane = 0;
    Conflict c = x.cta->shadow.ReadLanes(a, &lanes, offsets, size, &lane, lo, hi);
    if (c.found && !RaceFault(x, int(lane), c, false)) return false;
  }
  return true;
}

inline bool Machine::StoreSharedChecked(Exec& x, const Accessor& a, uint32_t lanes,
                                        const uint32_t offsets[32], uint32_t size,
                                        const uint8_t* data) {
  uint8_t* memory = x.cta->shared.data();
  while (lanes != 0) {
    uint32_t lane = 0;
    Conflict c = x.cta->shadow.WriteLanes(a, &lanes, offsets, size, data, memory,
                                          &counters_.same_value_write_races, &lane);
    if (!c.found) return true;
    if (!RaceFault(x, int(lane), c, true)) return false;
    std::memcpy(memory + offsets[lane], data + size_t{lane} * size, size);
  }
  return true;
}

inline bool Machine::CheckSharedWrite(Exec& x, const Accessor& a, int lane, uint32_t offset,
                                      uint32_t size, const uint8_t* data) {
  Conflict c = x.cta->shadow.Write(a, offset, size, data, x.cta->shared.data(),
                                   &counters_.same_value_write_races);
  if (c.found) return RaceFault(x, lane, c, true);
  return true;
}

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_MACHINE_H_
