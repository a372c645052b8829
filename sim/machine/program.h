// A kernel decoded for execution: flat instructions over numbered register slots.
//
// The parser's tree (sim/ptx/ast.h) is convenient to print and check; the machine wants
// something it can run fast. Decoding turns every instruction into an `Insn`:
//
//   - every value operand is a *slot*: a declared register, or a constant slot that holds
//     an immediate, a symbol address or a special register (%tid.x ...). So an exec
//     function never asks "register or immediate?": it reads slot[s][lane] for every
//     lane;
//   - predicates are separate: one 32-bit lane mask per predicate register per warp;
//   - the exec function is chosen once, with the type and mode baked in
//     (e.g. `add.s32` -> Binary<uint32_t, Add>);
//   - branch targets are instruction indices (pcs), labels are gone.
//
// A warp's register file is `num_slots * 32` uint64 values, slot-major (all 32 lanes of
// one slot are contiguous), so converged code runs as straight loops over 32 lanes.
// Values are kept zero-extended to 64 bits; an exec function computes at the
// instruction's width and writes the zero-extended result (sign-extension only where
// PTX says so, e.g. ld.s8 into a wider register, masked to the register's width).
//
// The op table (sim/ptx/op_table.h) names each opcode; machine/semantics.h gives each one
// a decode function that fills an Insn (checked for completeness by a test).
#ifndef WARPCHECK_SIM_MACHINE_PROGRAM_H_
#define WARPCHECK_SIM_MACHINE_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/ptx/ast.h"
#include "sim/ptx/codegen.h"

namespace warpcheck::sim::machine {

struct Exec;
struct Insn;

// Runs `insn` for the lanes in `mask` (never 0). Returns false after recording a fault.
using ExecFn = bool (*)(Exec& x, const Insn& insn, uint32_t mask);

// How the scheduler treats an instruction.
enum class InsnKind : uint8_t {
  kPlain,     // runs for its lanes, which then go to pc + 1
  kBranch,    // bra: taken lanes go to target
  kExit,      // ret / exit
  kWarpSync,  // waits for every lane of its member mask, then runs for all of them once
  kBarrier,   // bar.sync / barrier.sync / bar.arrive (CTA barriers)
};

constexpr uint16_t kNoGuard = 0xFFFF;
constexpr uint32_t kAllLanes = 0xFFFFFFFF;  // Insn::member_slot of ldmatrix/stmatrix

struct Insn {
  ExecFn fn = nullptr;
  InsnKind kind = InsnKind::kPlain;
  uint8_t op_class = 0;       // ptx::OpClass
  uint16_t guard = kNoGuard;  // predicate index
  bool guard_neg = false;
  uint8_t nd = 0, ns = 0;              // used entries of d / s
  uint32_t d[4] = {0, 0, 0, 0};        // destination slots (or predicate indices)
  uint32_t s[6] = {0, 0, 0, 0, 0, 0};  // source slots
  // Predicate operands: p[0], p[1] destinations (setp p|q, shfl d|p, vote),
  // q source (setp c, selp c, vote a) with its negation.
  uint16_t p[2] = {0, 0};
  uint16_t q = 0;
  bool q_neg = false;
  bool has_p1 = false;  // setp's q / shfl's p present
  // Memory: state space, element bytes, vector length, sign-extend loads.
  uint8_t space = 0;  // ptx::Space
  uint8_t ebytes = 0;
  uint8_t vec = 1;
  bool sext = false;
  int64_t offset = 0;             // address immediate
  uint64_t dmask = ~uint64_t{0};  // width mask of the destination register
  // Op-specific constants (comparison, mode, LUT, barrier flags, ...).
  uint64_t aux = 0;
  uint64_t aux2 = 0;
  uint32_t target = 0;               // branch target pc
  uint32_t member_slot = kAllLanes;  // warp-level instructions: the membermask slot
  uint32_t line = 0;                 // PTX source line
  uint32_t column = 0;
};

// A parameter's place in parameter memory.
struct ParamSlot {
  std::string name;
  ptx::Type type = ptx::Type::kU64;
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_ptr = false;
};

// A module-scope .global / .const array: the launch places it in global memory.
struct GlobalVar {
  std::string name;
  uint32_t align = 1;
  std::vector<uint8_t> init;  // full size, zero-filled past the initialiser
};

// Where a special register's per-lane value comes from (filled when a warp starts).
struct SpecialSlot {
  uint32_t slot;
  ptx::SpecialReg reg;
};

// Slots whose value is an address only known at launch (global variables).
struct AddressSlot {
  uint32_t slot;
  uint32_t global_var;  // index into Program::globals
  int64_t offset = 0;
};

// Per pc: the instruction as printed (traces, fault texts). Printed when asked, not at
// decode: a launch that faults nowhere and traces nothing prints nothing (printing every
// instruction was a tenth of `convert check`'s simulation).
// Requires: the module Decode read outlives the Program.
class InsnTexts {
 public:
  void Reserve(size_t n) { insns_.reserve(n); }
  void Add(const ptx::Instruction* in) { insns_.push_back(in); }
  void AddFixed(std::string text) {
    insns_.push_back(nullptr);
    fixed_.push_back(std::move(text));
  }
  // The first `n` instructions' texts from `stream` (DecodeStream: no tree to point
  // into), which the texts keep alive; before any Add or AddFixed.
  void SetStream(std::shared_ptr<const ptx::HarnessStream> stream, size_t n) {
    stream_ = std::move(stream);
    streamed_ = n;
  }
  // Requires: pc < size().
  std::string operator[](size_t pc) const;
  size_t size() const { return streamed_ + insns_.size(); }

 private:
  std::shared_ptr<const ptx::HarnessStream> stream_;
  size_t streamed_ = 0;                         // pcs below it: stream_'s
  std::vector<const ptx::Instruction*> insns_;  // nullptr: the next of fixed_
  std::vector<std::string> fixed_;
};

struct Program {
  std::string kernel;
  std::vector<Insn> code;
  InsnTexts text;
  uint32_t num_slots = 0;
  uint32_t num_preds = 0;
  // Uniform slot values (constants); the register file template.
  std::vector<uint64_t> slot_init;
  std::vector<SpecialSlot> specials;
  std::vector<AddressSlot> address_slots;
  std::vector<ParamSlot> params;
  uint32_t param_bytes = 0;
  std::vector<GlobalVar> globals;
  // Shared memory: static arrays from 0, then the dynamic .extern array at its alignment.
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_align = 16;
  // Offset of the dynamic array (= static bytes rounded up to its alignment).
  uint32_t dynamic_shared_offset = 0;
  bool has_dynamic_shared = false;
  // Shared-space address of every .shared variable (static arrays and the .extern one),
  // as shared-memory operands see them (from kSharedBase).
  std::vector<std::pair<std::string, uint64_t>> shared_symbols;
  uint32_t local_bytes = 0;  // per thread
  std::vector<int> reqntid;  // from the kernel, may be empty
  std::vector<int> maxntid;
  // Slots [0, num_register_slots) are the kernel's registers and the sink: they start
  // at 0 in every warp (slot_init is 0 there); the slots above are constants, special
  // registers and addresses.
  uint32_t num_register_slots = 0;
  // The register slots a full warp must zero before it runs; the others are written
  // before anything reads them (ZeroSlots in program.cc says how that is decided), so
  // their first contents are never seen. Machine::InitRegs zeroes only these unless
  // Options::zero_every_register.
  std::vector<uint32_t> zero_slots;
};

// The bits of immediate `o` used as an operand of type `t` (integers truncated; float
// immediates converted between f32 and f64; integer immediates of a float type become
// that float).
uint64_t ImmValue(const ptx::Operand& o, ptx::Type t);

// Decodes `kernel` of `module` (the module supplies variables).
// Ensures: InvalidArgument `file:line:col: what` for an instruction the machine cannot
// run (e.g. a rounding mode or type combination outside the subset, a predicate where a
// value register belongs).
absl::StatusOr<Program> Decode(const ptx::Module& module, const ptx::Kernel& kernel);

// Decodes an emitted harness from its stream (sim/ptx/codegen.h StreamHarness), without
// its tree: the Program Decode makes of EmitHarnessModule's tree for the same plans (the
// same instructions, the same pcs, lines and texts; tests/sim/machine checks it on a
// sample of pairs and every harness). The Program keeps the stream for its texts.
absl::StatusOr<Program> DecodeStream(std::shared_ptr<const ptx::HarnessStream> stream);

}  // namespace warpcheck::sim::machine

#endif  // WARPCHECK_SIM_MACHINE_PROGRAM_H_
