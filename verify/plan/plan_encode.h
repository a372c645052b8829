// The symbolic side of plan proofs (private to verify/plan): a plan's F2 maps and its
// Program as bit-vector terms of one thread (plan_prove.h's essay says why).
#ifndef WARPCHECK_VERIFY_PLAN_PLAN_ENCODE_H_
#define WARPCHECK_VERIFY_PLAN_PLAN_ENCODE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "verify/smt/smt.h"

namespace warpcheck::verify::plan {

using Bytes = std::array<smt::Term, 4>;

// Builds terms over one Context. Word ids, setup ids and op ids are the Program's.
class PlanEncoder {
 public:
  static constexpr int kAddrBits = 40;  // shared byte addresses, wide enough not to wrap

  PlanEncoder(smt::Context& ctx, const sim::plan::ConversionProblem& problem,
              const sim::plan::ConversionPlan& plan);

  smt::Context& ctx() { return ctx_; }
  int tid_bits() const { return tid_bits_; }
  int element_bits() const { return ne_; }
  int tag_bits() const { return ne_ + 4; }

  smt::Term K(uint64_t value, int width) { return ctx_.Bv(value, width); }
  // Ensures: bit i of x is 1 (a Boolean).
  smt::Term Bit(smt::Term x, int i);
  // Ensures: constant ^ XOR over bits b of x of (x_b ? images[b] : 0), `width` bits.
  smt::Term XorMap(smt::Term x, int x_bits, const std::vector<uint32_t>& images,
                   uint64_t constant, int width);
  // Ensures: the bits of the smallest width that holds 0..count-1 (at least 1).
  static int WidthFor(uint64_t count);

  // The element a layout keeps in register `reg_image` (its register part, already
  // applied) at thread `tid`: reg_image ^ the layout's thread map of tid.
  smt::Term Element(const sim::plan::FlatLayout& l, smt::Term reg_image, smt::Term tid);
  smt::Term Element(const sim::plan::FlatLayout& l, uint32_t reg, smt::Term tid);
  // Ensures: the tag of byte `byte` (3 bits) of `element`, and the junk tag.
  smt::Term Tag(smt::Term element, smt::Term byte);
  smt::Term Tag(smt::Term element, uint32_t byte) { return Tag(element, K(byte, 3)); }
  smt::Term Junk() { return K(uint64_t{1} << (ne_ + 3), tag_bits()); }

  // Setup values at a thread: a predicate (Boolean), a 32-bit kTidLinear value, a shared
  // byte address (kAddrBits, relative to the buffer) of an op (setup + imm).
  smt::Term Pred(int setup, smt::Term tid);
  smt::Term Linear(int setup, smt::Term tid);
  smt::Term Address(const sim::plan::Op& op, smt::Term tid);
  // Matrix ops (plan_concrete.h's MatrixByte): the address of byte j of word i of thread
  // `tid` — the row address lane 8i + row of tid's warp gives, plus the column byte —
  // and whether tid's lane supplies a row address (lane < 8 · matrices).
  smt::Term MatrixByteAddress(const sim::plan::Op& op, int i, int j, smt::Term tid);
  smt::Term ProvidesRow(const sim::plan::Op& op, smt::Term tid);

  // The four byte tags of word `id` in the thread `thread` (an index from Thread()).
  // Words defined by loads are not values here (the smem obligations follow addresses);
  // asking for one sets status() to Unimplemented.
  Bytes Word(int id, int thread);
  // Threads: 0 is the symbolic `tid` given to the constructor's caller via Root().
  int Root(smt::Term tid);
  smt::Term ThreadTid(int thread) const { return threads_[thread]; }

  // The element byte a view's word holds as an affine map of the word index u
  // (`u_bits` bits): nullopt when byte j is unused by the view.
  std::optional<std::pair<smt::Term, smt::Term>> ViewByte(
      const sim::plan::FlatLayout& l, const sim::plan::WordView& view, smt::Term u,
      int u_bits, int j, smt::Term tid);

  const absl::Status& status() const { return status_; }
  // Ensures: the op that defines each word (-1: an input or undefined).
  const std::vector<int>& def() const { return def_; }
  const std::vector<int>& input_index() const { return input_index_; }

 private:
  int Child(int thread, int kind, uint32_t param);

  smt::Context& ctx_;
  const sim::plan::ConversionProblem& pb_;
  const sim::plan::ConversionPlan& plan_;
  int tid_bits_, ne_, eb_;
  std::vector<int> def_, input_index_;
  std::vector<smt::Term> threads_;
  std::map<std::tuple<int, int, uint32_t>, int> children_;
  std::map<std::pair<int, int>, Bytes> words_;
  absl::Status status_;
};

}  // namespace warpcheck::verify::plan

#endif  // WARPCHECK_VERIFY_PLAN_PLAN_ENCODE_H_
