#include "sim/plan/problem.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "sim/base/bits.h"
#include "sim/layout/encoding.h"
#include "sim/layout/layout_case.h"
#include "sim/plan/f2_span.h"

namespace warpcheck::sim::plan {

absl::StatusOr<DType> ParseDType(absl::string_view text) {
  static const auto* kNames = new std::map<std::string, DType>{
      {"f16", DType::kF16},      {"float16", DType::kF16},   {"fp16", DType::kF16},
      {"bf16", DType::kBF16},    {"bfloat16", DType::kBF16}, {"f32", DType::kF32},
      {"float32", DType::kF32},  {"fp32", DType::kF32},      {"i8", DType::kI8},
      {"int8", DType::kI8},      {"u8", DType::kI8},         {"uint8", DType::kI8},
      {"i16", DType::kI16},      {"int16", DType::kI16},     {"i32", DType::kI32},
      {"int32", DType::kI32},    {"i64", DType::kI64},       {"int64", DType::kI64},
      {"f64", DType::kF64},      {"float64", DType::kF64},   {"fp64", DType::kF64},
      {"float8e5", DType::kI8},  {"float8e4nv", DType::kI8}, {"float8e4b15", DType::kI8},
      {"f8e5m2", DType::kI8},    {"f8e4m3", DType::kI8},     {"float8_e5m2", DType::kI8},
      {"float8_e4m3fn", DType::kI8}};
  auto it = kNames->find(absl::AsciiStrToLower(text));
  if (it == kNames->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dtype=", text,
                     ": unknown element type; expected f16, bf16, f32, i8, i16, i32, i64 or f64"));
  }
  return it->second;
}

std::string DTypeName(DType t) {
  switch (t) {
    case DType::kI8: return "i8";
    case DType::kI16: return "i16";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kI32: return "i32";
    case DType::kF32: return "f32";
    case DType::kI64: return "i64";
    case DType::kF64: return "f64";
  }
  return "?";
}

int DTypeBits(DType t) {
  switch (t) {
    case DType::kI8: return 8;
    case DType::kI16:
    case DType::kF16:
    case DType::kBF16: return 16;
    case DType::kI32:
    case DType::kF32: return 32;
    case DType::kI64:
    case DType::kF64: return 64;
  }
  return 32;
}

uint32_t FlatLayout::Apply(uint32_t r, uint32_t l, uint32_t w) const {
  uint32_t v = 0;
  for (size_t i = 0; r != 0 && i < reg.size(); ++i, r >>= 1) if (r & 1) v ^= reg[i];
  for (size_t i = 0; l != 0 && i < lane.size(); ++i, l >>= 1) if (l & 1) v ^= lane[i];
  for (size_t i = 0; w != 0 && i < warp.size(); ++i, w >>= 1) if (w & 1) v ^= warp[i];
  return v;
}

uint32_t FlatIndex(const std::vector<int64_t>& shape, const std::vector<int32_t>& coords) {
  uint64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coords[d];
  return static_cast<uint32_t>(flat);
}

void FlatLayout::FreeBits(uint32_t* regs, uint32_t* tid) const {
  // Independence only (no solutions, unlike F2Span): row[b] is a vector of the span
  // whose highest bit is b. The planners ask this of every side they build.
  uint32_t row[32] = {};
  auto add = [&row](uint32_t v) {
    while (v != 0) {
      const int b = 31 - std::countl_zero(v);
      if (row[b] == 0) {
        row[b] = v;
        return true;
      }
      v ^= row[b];
    }
    return false;
  };
  *regs = *tid = 0;
  for (int i = 0; i < reg_bits(); ++i) if (!add(reg[i])) *regs |= 1u << i;
  for (int j = 0; j < lane_bits(); ++j) if (!add(lane[j])) *tid |= 1u << j;
  for (int k = 0; k < warp_bits(); ++k) if (!add(warp[k])) *tid |= 1u << (5 + k);
}

ConversionProblem ConversionProblem::Reversed() const {
  ConversionProblem r = *this;
  std::swap(r.src_attr, r.dst_attr);
  std::swap(r.src_layout, r.dst_layout);
  std::swap(r.src, r.dst);
  return r;
}

namespace {

// Flattens the layout's bases; requires out-dims dim0..dim{k-1} with the shape's sizes.
absl::StatusOr<FlatLayout> Flatten(const layout::LinearLayout& l,
                                   const std::vector<int64_t>& shape, absl::string_view what) {
  FlatLayout flat;
  std::vector<int> out_index;  // out-dim position -> standard dim number
  for (const auto& [name, size] : l.out_dims()) {
    int d = -1;
    if (name.rfind("dim", 0) == 0) d = std::atoi(name.c_str() + 3);
    if (d < 0 || d >= static_cast<int>(shape.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": unexpected output dimension '", name, "'"));
    }
    out_index.push_back(d);
  }
  for (const auto& [name, bases] : l.bases()) {
    std::vector<uint32_t>* target = name == "register" ? &flat.reg
                                    : name == "lane"   ? &flat.lane
                                    : name == "warp"   ? &flat.warp
                                                       : nullptr;
    if (name == "block") {
      for (const auto& b : bases) {
        for (int32_t v : b) {
          if (v != 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                what, ": the layout spreads the tensor over several CTAs; cross-CTA "
                      "conversions need distributed shared memory and are out of scope"));
          }
        }
      }
      if (!bases.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the layout replicates the tensor over ", 1 << bases.size(),
            " CTAs; conversions of more than one CTA are out of scope"));
      }
      continue;
    }
    if (target == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": input dimension '", name, "' is not a register/lane/warp dimension"));
    }
    for (const auto& b : bases) {
      std::vector<int32_t> coords(shape.size(), 0);
      for (size_t k = 0; k < b.size(); ++k) coords[out_index[k]] = b[k];
      target->push_back(FlatIndex(shape, coords));
    }
  }
  return flat;
}

// Broadcast copies are planned as zero bases (register, lane or warp bits that do not
// move the element). A basis that is non-zero but the XOR of earlier ones also repeats
// elements, yet the copy it makes is a *different* element of a different register or
// thread (e.g. register bases [4] and [4]: registers 0b01000 and 0b11000 hold elements 4
// and 0), which the planners do not model: such layouts are out of scope, by name.
// (Found by `fuzz layouts`: planning them as zero-basis copies converted wrongly.)
constexpr int64_t kMaxWordsPerThread = 4096;

absl::Status CheckBroadcastsAreZero(const FlatLayout& flat, absl::string_view what) {
  F2Span span;
  const std::pair<const char*, const std::vector<uint32_t>*> dims[] = {
      {"register", &flat.reg}, {"lane", &flat.lane}, {"warp", &flat.warp}};
  for (const auto& [name, bases] : dims) {
    for (size_t i = 0; i < bases->size(); ++i) {
      const uint32_t b = (*bases)[i];
      if (!span.Add(b) && b != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": ", name, " basis ", i, " (flat element ", b,
            ") is the XOR of earlier bases without being zero; the planners model "
            "broadcast copies only as zero bases, so this layout is out of scope"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConversionProblem> MakeProblem(absl::string_view src_attr,
                                              absl::string_view dst_attr,
                                              const std::vector<int64_t>& shape,
                                              DType dtype, int num_warps,
                                              bool planner_scope) {
  ConversionProblem p;
  p.shape = shape;
  p.dtype = dtype;
  p.element_bits = DTypeBits(dtype);
  int log2 = 0;
  for (int64_t s : shape) {
    if (s <= 0 || !base::IsPowerOf2(s)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape: extent ", s, " is not a power of two; Triton tensors have "
                                              "power-of-two shapes"));
    }
    log2 += base::Log2(s);
  }
  if (log2 > 20) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shape: ", int64_t{1} << log2,
        " elements; one CTA's conversion is planned for at most 2^20 elements"));
  }
  p.elem_bits_log2 = log2;
  layout::ModuleInfo module;
  module.threads_per_warp = 32;
  module.num_ctas = 1;
  if (num_warps > 0) module.num_warps = num_warps;
  const std::pair<absl::string_view, absl::string_view> sides[] = {{"--src", src_attr},
                                                                   {"--dst", dst_attr}};
  for (int side = 0; side < 2; ++side) {
    auto [what, attr] = sides[side];
    auto resolved = layout::ResolveLayout(attr, layout::SourceLocation{std::string(what), 1, 1},
                                          shape, module, nullptr);
    if (!resolved.ok()) {
      return absl::InvalidArgumentError(resolved.status().message());
    }
    if (resolved->encoding->IsShared()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": ", layout::PrintEncoding(*resolved->encoding),
          " is a shared-memory encoding; convert plans convert between distributed "
          "(register) layouts"));
    }
    const layout::LinearLayout& l = resolved->layout;
    if (!l.IsSurjective()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the layout does not cover every element of the ", shape.size(),
          "-d tensor (not surjective), so there is no conversion to plan"));
    }
    if (!l.HasInDim("lane") || l.InDimSize("lane") != 32) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": expected 32 lanes per warp (NVIDIA); the layout has ",
                       l.HasInDim("lane") ? l.InDimSize("lane") : 1));
    }
    auto flat = Flatten(l, shape, what);
    if (!flat.ok()) return flat.status();
    if (planner_scope) {
      if (absl::Status s = CheckBroadcastsAreZero(*flat, what); !s.ok()) return s;
    }
    if (side == 0) {
      p.src_attr = layout::PrintEncoding(*resolved->encoding);
      p.src_layout = l;
      p.src = *std::move(flat);
    } else {
      p.dst_attr = layout::PrintEncoding(*resolved->encoding);
      p.dst_layout = l;
      p.dst = *std::move(flat);
    }
  }
  if (p.src.warp.size() != p.dst.warp.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--src/--dst: the layouts use ", 1 << p.src.warp.size(), " and ",
        1 << p.dst.warp.size(), " warps; a conversion runs inside one CTA of one size"));
  }
  p.num_warps = 1 << p.src.warp.size();
  // A thread holds 2^reg_bits elements of each layout. A GPU thread has at most 255
  // registers; past 4096 32-bit words the emitted kernel is hundreds of thousands of PTX
  // lines (more than the PTX reader accepts: sim/ptx/parser.h's limits), so such layouts
  // are out of scope, by name. (Found by `fuzz layouts`: a slice whose lanes all lie on
  // the sliced dimension gave every thread 8192 elements.)
  const int words_per_element = std::max(1, p.element_bits / 32);
  for (const auto& [what, flat] : {std::pair<const char*, const FlatLayout*>{"--src", &p.src},
                                   {"--dst", &p.dst}}) {
    const int64_t words = (int64_t{1} << flat->reg_bits()) * words_per_element;
    if (planner_scope && words > kMaxWordsPerThread) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": every thread holds ", int64_t{1} << flat->reg_bits(),
          " elements (", words, " 32-bit registers; most are broadcast copies when the "
          "tensor is small); conversions are planned for at most ", kMaxWordsPerThread,
          " registers per thread"));
    }
  }
  if (num_warps > 0 && num_warps != p.num_warps) {
    return absl::InvalidArgumentError(absl::StrCat("--num-warps=", num_warps,
                                                   ": the layouts use ", p.num_warps,
                                                   " warps"));
  }
  return p;
}

}  // namespace warpcheck::sim::plan
