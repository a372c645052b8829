// ConversionProblem: one `ttg.convert_layout` of a CTA, reduced to bit vectors.
//
// A distributed layout of one CTA is an F2-linear map (register, lane, warp) -> tensor
// coordinates (sim/layout). For planning, the coordinates are flattened row-major (dim0
// slowest, as the harness stores the tensor in global memory), so every basis vector of
// the layout becomes one integer: the flat index of the element it names. A thread
// (lane l, warp w) holds in register r the element
//
//     S(r, l, w) = XOR of src.reg[i] for bits i of r  ^  src.lane[j] for bits j of l  ^ ...
//
// A zero basis is a broadcast: that register/lane/warp bit holds a copy. The planner
// moves words, not elements: `Packing` says how the element type fills 32-bit words
// (two 16-bit or four 8-bit elements of consecutive registers share a word when packed,
// a 64-bit element takes two words).
//
// MakeProblem checks what a plan needs and answers InvalidArgument "what: why" for the
// rest: attributes that do not parse or do not fit the shape, shared-memory encodings
// (not distributed), layouts whose CTA split is not one CTA (cross-CTA conversions are
// out of scope: they need distributed shared memory), layouts that do not cover every
// element of the tensor, more than 2^20 elements.
#ifndef WARPCHECK_SIM_PLAN_PROBLEM_H_
#define WARPCHECK_SIM_PLAN_PROBLEM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::plan {

enum class DType { kI8, kI16, kF16, kBF16, kI32, kF32, kI64, kF64 };

// "f16", "bf16", "f32", "i8", "i16", "i32", "i64", "f64" (CLI.md); also Triton's
// spellings "float16", "bfloat16", "float32", "int8", ..., "float64", "float8e5"/
// "float8e4nv" style fp8 names as 8-bit.
absl::StatusOr<DType> ParseDType(absl::string_view text);
std::string DTypeName(DType t);
int DTypeBits(DType t);

// One layout as flat element indices of its bases.
struct FlatLayout {
  std::vector<uint32_t> reg, lane, warp;

  uint32_t Apply(uint32_t r, uint32_t l, uint32_t w) const;
  int reg_bits() const { return static_cast<int>(reg.size()); }
  int lane_bits() const { return static_cast<int>(lane.size()); }
  int warp_bits() const { return static_cast<int>(warp.size()); }
  int num_regs() const { return 1 << reg.size(); }
  // Register bits, and %tid.x bits (lanes 0-4, warps from 5), whose basis repeats the
  // earlier ones (registers, then lanes, then warps): broadcast copies. Every element is
  // held by a thread with the free thread bits 0 in a register with the free register
  // bits 0.
  void FreeBits(uint32_t* regs, uint32_t* tid) const;
};

struct ConversionProblem {
  std::string src_attr, dst_attr;  // canonical prints
  std::vector<int64_t> shape;
  DType dtype = DType::kF32;
  int element_bits = 32;
  int num_warps = 4;
  int elem_bits_log2 = 0;    // log2 of the number of elements
  layout::LinearLayout src_layout, dst_layout;  // register, lane, warp (block dropped)
  FlatLayout src, dst;

  int element_bytes() const { return element_bits / 8; }
  int64_t num_elements() const { return int64_t{1} << elem_bits_log2; }
  int threads() const { return 32 * num_warps; }
  // The same problem in the other direction.
  ConversionProblem Reversed() const;
};

// `num_warps` <= 0: taken from the attributes (warpsPerCTA); otherwise checked against
// them. `planner_scope` adds the planners' own limits (broadcasts only as zero bases, at
// most 4096 registers per thread); without it the problem only describes the
// conversion, e.g. to run and prove another compiler's kernel for it.
absl::StatusOr<ConversionProblem> MakeProblem(absl::string_view src_attr,
                                              absl::string_view dst_attr,
                                              const std::vector<int64_t>& shape,
                                              DType dtype, int num_warps,
                                              bool planner_scope = true);

// Row-major flat index of a coordinate point (dim0 slowest).
uint32_t FlatIndex(const std::vector<int64_t>& shape, const std::vector<int32_t>& coords);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_PROBLEM_H_
