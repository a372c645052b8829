// A SignalProgram, validated and compiled: the IR the signal interpreter executes.
//
// The text proto (proto/signal.proto) is the user's notation; this is the checked form.
// Loading does every static check once, so the interpreter never meets a malformed op:
//
//   * every object name resolves, every kind has the fields it needs and none it cannot
//     use (a WAIT with a `tag`, a LAUNCH of an unknown kernel ...);
//   * every expression parses and is typed `int` (`cond`/`lane_if`: `bool`) over the
//     names in scope at that point: r N c G E, the program params, the FOR variables
//     around it, WAIT tokens and ATOMIC results bound before it; in a kernel also the
//     variables of the streams that launch it;
//   * names are declared once (no shadowing), tokens are used by LOAD `after` only.
//
// Errors are InvalidArgument "<file>: <path>: <what>", the path naming the field, e.g.
// `c01.textproto: kernels[0].body[1].body[0].index: <expr>:1:5: unknown name 'q'`.
// Bodies nested deeper than kMaxNesting are an error of the same form.
//
// Expressions compile to postfix code (sim/expr CompiledExpr) over a per-agent frame of
// int64 slots; slot numbers are fixed per program (Program::slot_names).
#ifndef WARPCHECK_SIM_SIGNAL_PROGRAM_H_
#define WARPCHECK_SIM_SIGNAL_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/signal.pb.h"
#include "sim/expr/eval.h"

namespace warpcheck::sim::signal {

// A compiled expression, or "absent" (the field was empty and has a default).
class Ex {
 public:
  Ex() = default;
  Ex(std::shared_ptr<const expr::CompiledExpr> code, std::string text, std::vector<int> slots)
      : code_(std::move(code)), text_(std::move(text)), slots_(std::move(slots)) {}
  bool present() const { return code_ != nullptr; }
  const std::string& text() const { return text_; }
  // Ensures: the value, or false with *error set (division by zero, overflow).
  bool Eval(const int64_t* frame, int64_t* value) const;
  // Requires: present(). Ensures: the evaluation error message for `frame`.
  std::string ErrorAt(const int64_t* frame) const;
  // The frame slots it reads.
  const std::vector<int>& slots() const { return slots_; }

 private:
  std::shared_ptr<const expr::CompiledExpr> code_;
  std::string text_;
  std::vector<int> slots_;
};

struct Object {
  std::string name;
  SignalDtype dtype = DTYPE_UNSPECIFIED;
  Ex size;
  int64_t init = 0;
  bool local = false;
  int bytes = 8;  // element width
  bool is_float = false;
};

// Fixed slots of every frame.
// kSlotL is the lane ordinal, in scope only in `lane_if`.
enum FixedSlot : int { kSlotR = 0, kSlotN, kSlotC, kSlotG, kSlotE, kSlotL, kNumFixedSlots };

struct Op {
  SignalOpKind kind = OP_UNSPECIFIED;
  std::string site;  // label (user's, or "<kind>#<n>")
  std::string path;  // "kernels[0].body[2]" for messages
  int id = 0;        // index in Program::ops
  int object = -1;
  Ex rank, index, count, value, tag, expect, compare, lane_if, src_rank, src_index;
  Ex from, to, step, cond;
  SigOp sig_op = SET;
  SignalCmp cmp = EQ;
  SignalScope scope = SCOPE_UNSPECIFIED;
  SignalSem sem = SEM_UNSPECIFIED;
  SignalBy by = BY_DEFAULT;
  bool nbi = false;
  bool spin = false;
  bool plain_wait_until = false;  // WAIT_UNTIL name "wait_until" (B13)
  bool rank_given = false;        // the rank field was written (NOTIFY scope=gpu lint)
  int token_slot = -1;            // WAIT: slot of its token (holds the completion step)
  int after_slot = -1;            // LOAD: the token slot its pointer went through
  int result_slot = -1;           // ATOMIC_*: slot of the old value
  int var_slot = -1;              // FOR
  int signal_object = -1;         // PUTSIG
  Ex signal_index, signal_value;
  SigOp signal_op = SET;
  int kernel = -1;   // LAUNCH
  std::string name;  // HOST_COLLECTIVE
  std::vector<int> body, else_body;  // op ids
};

struct Kernel {
  std::string name;
  Ex grid;
  int threads = 128;
  bool cooperative = false;
  std::vector<int> body;
};

struct Stream {
  std::string name;
  std::vector<int> body;
};

struct Program {
  std::string name;
  std::string file;  // where it was loaded from (for messages)
  int ranks = 2;
  int ranks_per_node = 0;  // 0: all on one node
  int cta_slots = 0;       // 0: unlimited
  bool amd = false;
  bool native_p2p_atomics = true;
  int64_t ctas = 1;
  int64_t iterations = 1;
  int64_t max_states = 2000000;
  std::vector<Object> objects;
  std::vector<Op> ops;
  std::vector<Kernel> kernels;
  std::vector<Stream> streams;
  std::vector<std::string> slot_names;  // frame layout; fixed slots first, then params
  std::vector<int64_t> param_values;    // for slots kNumFixedSlots ..
  SignalExpect expect;
  SignalProgram proto;  // as loaded (with CLI overrides applied)

  int num_slots() const { return static_cast<int>(slot_names.size()); }
  int FindObject(absl::string_view name) const;
  int node_of(int rank) const { return ranks_per_node > 0 ? rank / ranks_per_node : 0; }
};

// FOR/IF bodies nest at most this deep; a deeper program is an input error naming the
// first op past the limit (the compiler, the walkers and the emitter recurse per level).
inline constexpr int kMaxNesting = 64;

struct LoadOverrides {
  int ranks = 0;       // --ranks (0: the program's)
  int64_t ctas = -1;   // --ctas
  int64_t iterations = -1;  // --iterations
  int64_t max_states = 0;
};

// Validates and compiles `proto`. `file` is used in messages.
// Ensures: the program, or InvalidArgument "<file>: <path>: <what>".
absl::StatusOr<Program> CompileProgram(const SignalProgram& proto, absl::string_view file,
                                       const LoadOverrides& overrides = {});

// Reads a text-proto file (SignalProgram) and compiles it.
absl::StatusOr<Program> LoadProgramFile(const std::string& path,
                                        const LoadOverrides& overrides = {});

// Lower-case kind name as used in sites and renderings ("notify", "wait_until").
std::string KindName(SignalOpKind kind);
const char* ScopeName(SignalScope s);
const char* SemName(SignalSem s);
const char* CmpName(SignalCmp c);

}  // namespace warpcheck::sim::signal

#endif  // WARPCHECK_SIM_SIGNAL_PROGRAM_H_
