#include "verify/fuzz/pair_gen.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/bits.h"

namespace warpcheck::verify::fuzz {
namespace {

using sim::layout::BlockedEncoding;
using sim::layout::DotOperandEncoding;
using sim::layout::Encoding;
using sim::layout::EncodingPtr;
using sim::layout::LinearEncoding;
using sim::layout::LinearLayout;
using sim::layout::NvidiaMmaEncoding;
using sim::layout::SliceEncoding;
using sim::plan::DType;

constexpr int kMaxElementsLog2 = 14;

// SplitMix64: one independent stream per (seed, index).
class Rng {
 public:
  Rng(uint64_t seed, int64_t index) : state_(Mix(seed) ^ Mix(static_cast<uint64_t>(index) + 1)) {}
  uint64_t Next() { return Mix(state_ += 0x9E3779B97F4A7C15ULL); }
  // Uniform in [0, n).
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }
  // Uniform in [lo, hi].
  int Between(int lo, int hi) { return lo + Below(hi - lo + 1); }
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }
  // An index drawn with the given weights.
  int Pick(std::initializer_list<double> weights) {
    double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    double x = static_cast<double>(Next() >> 11) * 0x1.0p-53 * total;
    int i = 0;
    for (double w : weights) {
      if (x < w) return i;
      x -= w;
      ++i;
    }
    return i - 1;
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

template <typename T>
EncodingPtr Make(T kind) {
  auto e = std::make_shared<Encoding>();
  e->kind = std::move(kind);
  return e;
}

int Rank(const std::vector<int64_t>& shape) { return static_cast<int>(shape.size()); }

// The default order: the last dimension fastest.
std::vector<int32_t> DefaultOrder(int rank) {
  std::vector<int32_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
  return order;
}

// 2^bits spread over dims as per-dim powers of two. `fit` fills dims in `order`
// (fastest first) up to `room[d]` each, the rest on the slowest; otherwise each bit goes
// to a random dim.
std::vector<int32_t> SplitBits(Rng& rng, int bits, const std::vector<int32_t>& order,
                               const std::vector<int64_t>& room, bool fit) {
  std::vector<int32_t> out(order.size(), 1);
  for (int b = 0; b < bits; ++b) {
    int d = order.back();
    if (fit) {
      for (int32_t o : order) {
        if (out[o] < room[o]) {
          d = o;
          break;
        }
      }
    } else {
      d = order[rng.Below(static_cast<int>(order.size()))];
    }
    out[d] *= 2;
  }
  return out;
}

std::vector<int32_t> RandomOrder(Rng& rng, int rank) {
  std::vector<int32_t> order = DefaultOrder(rank);
  if (rng.Chance(0.3)) {
    for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[rng.Below(i + 1)]);
  }
  return order;
}

EncodingPtr RandomBlocked(Rng& rng, const std::vector<int64_t>& shape, int warps,
                          bool adversarial) {
  const int rank = Rank(shape);
  BlockedEncoding b;
  b.order = RandomOrder(rng, rank);
  b.size_per_thread.assign(rank, 1);
  for (int d = 0; d < rank; ++d) {
    const bool fastest = d == b.order[0];
    if (rng.Chance(fastest ? 0.6 : 0.2)) b.size_per_thread[d] = 1 << rng.Between(1, adversarial ? 5 : 3);
  }
  std::vector<int64_t> room(rank);
  for (int d = 0; d < rank; ++d) {
    room[d] = std::max<int64_t>(1, shape[d] / b.size_per_thread[d]);
  }
  b.threads_per_warp = SplitBits(rng, 5, b.order, room, !adversarial && rng.Chance(0.7));
  std::vector<int32_t> warp_order = rng.Chance(0.5) ? DefaultOrder(rank) : b.order;
  std::reverse(warp_order.begin(), warp_order.end());  // warps on the slowest dim first
  b.warps_per_cta = SplitBits(rng, sim::base::Log2(warps), warp_order,
                              std::vector<int64_t>(rank, warps), rng.Chance(0.5));
  return Make(std::move(b));
}

// The default blocked layout: one element per thread, lanes along the fastest dims,
// warps on dim0.
EncodingPtr DefaultBlocked(const std::vector<int64_t>& shape, int warps) {
  const int rank = Rank(shape);
  BlockedEncoding b;
  b.order = DefaultOrder(rank);
  b.size_per_thread.assign(rank, 1);
  b.threads_per_warp.assign(rank, 1);
  int lanes = 32;
  for (int32_t d : b.order) {
    while (lanes > 1 && (b.threads_per_warp[d] < shape[d] || d == b.order.back())) {
      b.threads_per_warp[d] *= 2;
      lanes /= 2;
    }
  }
  b.warps_per_cta.assign(rank, 1);
  b.warps_per_cta[0] = warps;
  return Make(std::move(b));
}

// nvidia_mma: v3 needs 4+ warps and rank 2; v2 is rank 2, or rank 3 with instrShape
// [1, 16, 8].
EncodingPtr RandomMma(Rng& rng, const std::vector<int64_t>& shape, int warps, DType dtype) {
  const int rank = Rank(shape);
  NvidiaMmaEncoding m;
  const bool v3 = rank == 2 && warps >= 4 && rng.Chance(0.4);
  if (v3) {
    m.version_major = 3;
    m.warps_per_cta = {4, 1};
    for (int w = warps / 4; w > 1; w /= 2) m.warps_per_cta[rng.Below(2)] *= 2;
    int n = 8;
    while (n < 256 && n < shape[1] && rng.Chance(0.7)) n *= 2;
    const int k = std::max(8, 256 / sim::plan::DTypeBits(dtype));
    m.instr_shape = {16, n, std::min(k, 32)};
    return Make(std::move(m));
  }
  m.version_major = 2;
  m.warps_per_cta.assign(rank, 1);
  for (int w = warps; w > 1; w /= 2) m.warps_per_cta[rank - 2 + rng.Below(2)] *= 2;
  m.instr_shape = rank == 3 ? std::vector<int32_t>{1, 16, 8} : std::vector<int32_t>{16, 8};
  return Make(std::move(m));
}

EncodingPtr RandomDotOp(Rng& rng, const std::vector<int64_t>& shape, int warps, DType dtype) {
  DotOperandEncoding d;
  NvidiaMmaEncoding m;
  m.version_major = 2;
  const int rank = Rank(shape);
  m.warps_per_cta.assign(rank, 1);
  for (int w = warps; w > 1; w /= 2) m.warps_per_cta[rank - 2 + rng.Below(2)] *= 2;
  m.instr_shape = rank == 3 ? std::vector<int32_t>{1, 16, 8} : std::vector<int32_t>{16, 8};
  d.parent = Make(std::move(m));
  d.op_idx = rng.Below(2);
  const int natural = std::max(1, 32 / sim::plan::DTypeBits(dtype));
  d.k_width = rng.Chance(0.7) ? natural : 1 << rng.Between(0, 3);
  return Make(std::move(d));
}

EncodingPtr RandomSlice(Rng& rng, const std::vector<int64_t>& shape, int warps, DType dtype) {
  const int rank = Rank(shape);
  SliceEncoding s;
  s.dim = rng.Below(rank + 1);
  std::vector<int64_t> parent_shape = shape;
  parent_shape.insert(parent_shape.begin() + s.dim, int64_t{1} << rng.Between(0, 6));
  s.parent = rank == 1 && rng.Chance(0.3) ? RandomMma(rng, parent_shape, warps, dtype)
                                          : RandomBlocked(rng, parent_shape, warps, false);
  return Make(std::move(s));
}

// A linear layout onto `shape`: the element bits dealt to lanes, warps and registers in
// a random order, with broadcasts (lanes and warps beyond the tensor, and extra register
// bits) as zero bases or repeats of an earlier basis. Triton's #ttg.linear takes bases
// that each move one dim by a power of two, so there is no XOR mixing here: a mixed map
// comes from the other encodings (swizzled mma, dot_op).
EncodingPtr RandomLinear(Rng& rng, const std::vector<int64_t>& shape, int warps) {
  const int rank = Rank(shape);
  std::vector<LinearLayout::Basis> bits;  // one per element bit: a unit vector
  for (int d = 0; d < rank; ++d) {
    for (int b = 0; (int64_t{1} << b) < shape[d]; ++b) {
      LinearLayout::Basis v(rank, 0);
      v[d] = 1 << b;
      bits.push_back(v);
    }
  }
  if (rng.Chance(0.6)) {  // mostly ascending bits (real layouts), sometimes any order
    for (int i = static_cast<int>(bits.size()) - 1; i > 0; --i) {
      std::swap(bits[i], bits[rng.Below(i + 1)]);
    }
  }
  const LinearLayout::Basis zero(rank, 0);
  std::vector<LinearLayout::Basis> used;
  size_t next = 0;
  // The next element bit, or (sometimes, or when none is left) a broadcast.
  auto take = [&](bool broadcast_ok) {
    if (next < bits.size() && !(broadcast_ok && rng.Chance(0.1))) {
      used.push_back(bits[next]);
      return bits[next++];
    }
    // A repeated non-zero basis is out of the planners' scope (MakeProblem says so):
    // rare, so that path stays exercised without wasting the campaign.
    if (!used.empty() && rng.Chance(0.05)) return used[rng.Below(static_cast<int>(used.size()))];
    return zero;
  };
  std::vector<LinearLayout::Basis> lane, warp, reg;
  for (int r = rng.Chance(0.5) ? rng.Between(0, 3) : 0; r > 0 && next < bits.size(); --r) {
    reg.push_back(take(false));
  }
  for (int l = 0; l < 5; ++l) lane.push_back(take(true));
  for (int w = sim::base::Log2(warps); w > 0; --w) warp.push_back(take(true));
  while (next < bits.size()) reg.push_back(take(false));
  if (rng.Chance(0.2)) {
    reg.insert(reg.begin() + rng.Below(static_cast<int>(reg.size()) + 1), take(true));
  }
  LinearLayout::BasesT bases = {{"register", reg}, {"lane", lane}, {"warp", warp}, {"block", {}}};
  LinearLayout::OutDimsT out;
  for (int d = 0; d < rank; ++d) out.push_back({absl::StrCat("dim", d), static_cast<int32_t>(shape[d])});
  return Make(LinearEncoding{LinearLayout(std::move(bases), std::move(out), false)});
}

std::vector<int64_t> RandomShape(Rng& rng, int rank, bool tiny) {
  std::vector<int64_t> shape(rank);
  const int64_t common[] = {16, 32, 64, 128, 256};
  for (int d = 0; d < rank; ++d) {
    if (tiny) {
      shape[d] = int64_t{1} << rng.Between(0, 4 / rank);
    } else if (rank == 1) {
      shape[d] = rng.Chance(0.6) ? common[2 + rng.Below(3)] : int64_t{1} << rng.Between(0, 12);
    } else if (rank == 2) {
      shape[d] = rng.Chance(0.6) ? common[rng.Below(5)] : int64_t{1} << rng.Between(0, 8);
    } else {
      shape[d] = int64_t{1} << rng.Between(0, 5);
    }
  }
  for (;;) {  // at most 2^14 elements: halve the largest dim
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    if (n <= (int64_t{1} << kMaxElementsLog2)) break;
    *std::max_element(shape.begin(), shape.end()) /= 2;
  }
  return shape;
}

DType RandomDType(Rng& rng, bool adversarial) {
  static constexpr DType kTypes[] = {DType::kF16, DType::kBF16, DType::kI8, DType::kI16,
                                     DType::kI32, DType::kF32, DType::kI64, DType::kF64};
  if (adversarial) return kTypes[rng.Below(8)];
  return kTypes[rng.Pick({0.25, 0.1, 0.15, 0.05, 0.15, 0.15, 0.075, 0.075})];
}

int RandomWarps(Rng& rng, bool adversarial) {
  static constexpr int kWarps[] = {4, 1, 2, 8, 16};
  if (adversarial) return rng.Chance(0.5) ? 1 : 16;
  return kWarps[rng.Pick({0.45, 0.15, 0.1, 0.2, 0.1})];
}

enum Strategy { kBlocked, kMma, kDotOp, kSlice, kLinear, kAdversarial };

// One side of strategy `s`.
EncodingPtr Side(Rng& rng, Strategy s, const std::vector<int64_t>& shape, int warps,
                 DType dtype, bool adversarial) {
  switch (s) {
    case kMma: return RandomMma(rng, shape, warps, dtype);
    case kDotOp: return RandomDotOp(rng, shape, warps, dtype);
    case kSlice: return RandomSlice(rng, shape, warps, dtype);
    case kLinear: return RandomLinear(rng, shape, warps);
    default: return RandomBlocked(rng, shape, warps, adversarial);
  }
}

}  // namespace

std::string FuzzPair::SrcText() const { return sim::layout::PrintEncoding(*src); }
std::string FuzzPair::DstText() const { return sim::layout::PrintEncoding(*dst); }
std::string FuzzPair::ShapeText() const { return absl::StrJoin(shape, "x"); }

std::string FuzzPair::CommandLine() const {
  return absl::StrCat("--src='", SrcText(), "' --dst='", DstText(), "' --shape=", ShapeText(),
                      " --dtype=", sim::plan::DTypeName(dtype), " --num-warps=", num_warps);
}

absl::StatusOr<sim::plan::ConversionProblem> FuzzPair::Problem(bool planner_scope) const {
  return sim::plan::MakeProblem(SrcText(), DstText(), shape, dtype, num_warps, planner_scope);
}

absl::StatusOr<FuzzPair> PairFromText(absl::string_view src, absl::string_view dst,
                                      const std::vector<int64_t>& shape,
                                      absl::string_view dtype, int num_warps) {
  FuzzPair p;
  auto s = sim::layout::ParseEncoding(src, sim::layout::SourceLocation{"src", 1, 1});
  if (!s.ok()) return s.status();
  auto d = sim::layout::ParseEncoding(dst, sim::layout::SourceLocation{"dst", 1, 1});
  if (!d.ok()) return d.status();
  auto t = sim::plan::ParseDType(dtype);
  if (!t.ok()) return t.status();
  p.src = *std::move(s);
  p.dst = *std::move(d);
  p.shape = shape;
  p.dtype = *t;
  p.num_warps = num_warps;
  return p;
}

const std::vector<std::string>& GeneratorStrategies() {
  static const auto* kNames = new std::vector<std::string>{"blocked", "mma",    "dot_op",
                                                           "slice",   "linear", "adversarial"};
  return *kNames;
}

FuzzPair GeneratePair(uint64_t seed, int64_t index) {
  Rng rng(seed, index);
  const auto s = static_cast<Strategy>(rng.Pick({0.25, 0.15, 0.15, 0.2, 0.15, 0.1}));
  const bool adversarial = s == kAdversarial;
  FuzzPair p;
  p.strategy = GeneratorStrategies()[s];
  p.dtype = RandomDType(rng, adversarial);
  p.num_warps = RandomWarps(rng, adversarial);
  int rank = 2;
  if (s == kBlocked || s == kLinear || adversarial) rank = 1 + rng.Pick({0.3, 0.55, 0.15});
  if (s == kSlice) rank = rng.Chance(0.7) ? 1 : 2;
  if ((s == kMma || s == kDotOp) && rng.Chance(0.1)) rank = 3;
  p.shape = RandomShape(rng, rank, adversarial && rng.Chance(0.5));
  // The other side: blocked mostly, the same family sometimes (slice <-> slice,
  // linear <-> linear, mma -> dot_op).
  Strategy other = kBlocked;
  if ((s == kSlice || s == kLinear) && rng.Chance(0.3)) other = s;
  if (s == kMma && rng.Chance(0.2)) other = kDotOp;
  // Adversarial sides: any family the rank allows (mma and dot_op need rank 2 or 3,
  // a slice's parent at most rank 3).
  auto any_family = [&] {
    Strategy f = static_cast<Strategy>(rng.Below(5));
    if ((f == kMma || f == kDotOp) && rank == 1) return kBlocked;
    if (f == kSlice && rank == 3) return kBlocked;
    return f;
  };
  if (adversarial) other = any_family();
  EncodingPtr a = Side(rng, adversarial ? any_family() : s, p.shape, p.num_warps, p.dtype,
                       adversarial);
  EncodingPtr b = Side(rng, other, p.shape, p.num_warps, p.dtype, adversarial);
  if (rng.Chance(0.5)) std::swap(a, b);
  p.src = std::move(a);
  p.dst = std::move(b);
  return p;
}

namespace {

bool IsDefaultBlocked(const BlockedEncoding& b, const std::vector<int64_t>& shape, int warps) {
  const auto& d = std::get<BlockedEncoding>(DefaultBlocked(shape, warps)->kind);
  return b.size_per_thread == d.size_per_thread && b.threads_per_warp == d.threads_per_warp &&
         b.warps_per_cta == d.warps_per_cta && b.order == d.order;
}

// How far an encoding is from the default blocked layout (which scores 1).
int64_t EncodingScore(const Encoding& e, const std::vector<int64_t>& shape, int warps) {
  if (const auto* b = std::get_if<BlockedEncoding>(&e.kind)) {
    if (IsDefaultBlocked(*b, shape, warps)) return 1;
    int64_t s = 2 + (b->order != DefaultOrder(static_cast<int>(b->order.size())) ? 1 : 0);
    for (int32_t v : b->size_per_thread) s += sim::base::Log2(std::max(1, v));
    return s;
  }
  if (const auto* m = std::get_if<NvidiaMmaEncoding>(&e.kind)) return m->version_major == 3 ? 6 : 5;
  if (const auto* d = std::get_if<DotOperandEncoding>(&e.kind)) return 3 + EncodingScore(*d->parent, shape, warps);
  if (const auto* s = std::get_if<SliceEncoding>(&e.kind)) return 3 + EncodingScore(*s->parent, shape, warps);
  if (const auto* l = std::get_if<LinearEncoding>(&e.kind)) {
    int64_t s = 8;
    for (const auto& [dim, bases] : l->layout.bases()) {
      for (const auto& v : bases) {
        int ones = 0;
        for (int32_t c : v) ones += __builtin_popcount(static_cast<uint32_t>(c));
        s += dim == "register" ? 1 : 0;
        s += ones > 1 ? 1 : 0;
      }
    }
    return s;
  }
  return 10;
}

int64_t DTypeScore(DType t) { return t == DType::kI32 ? 0 : 1; }

// Halves the warps of every warpsPerCTA (or a linear layout's last warp basis, moved to
// the registers); nullopt when the encoding cannot lose a warp.
std::optional<EncodingPtr> HalveWarps(const Encoding& e) {
  auto halve_largest = [](std::vector<int32_t>& w, size_t from) {
    auto it = std::max_element(w.begin() + static_cast<std::ptrdiff_t>(from), w.end());
    if (it == w.end() || *it <= 1) return false;
    *it /= 2;
    return true;
  };
  if (const auto* b = std::get_if<BlockedEncoding>(&e.kind)) {
    BlockedEncoding c = *b;
    if (!halve_largest(c.warps_per_cta, 0)) return std::nullopt;
    return Make(std::move(c));
  }
  if (const auto* m = std::get_if<NvidiaMmaEncoding>(&e.kind)) {
    NvidiaMmaEncoding c = *m;
    if (c.version_major == 3) {
      if (c.warps_per_cta[1] > 1) {
        c.warps_per_cta[1] /= 2;
      } else if (c.warps_per_cta[0] > 4) {
        c.warps_per_cta[0] /= 2;
      } else {
        return std::nullopt;
      }
      return Make(std::move(c));
    }
    if (!halve_largest(c.warps_per_cta, 0)) return std::nullopt;
    return Make(std::move(c));
  }
  if (const auto* d = std::get_if<DotOperandEncoding>(&e.kind)) {
    auto parent = HalveWarps(*d->parent);
    if (!parent) return std::nullopt;
    DotOperandEncoding c = *d;
    c.parent = *parent;
    return Make(std::move(c));
  }
  if (const auto* s = std::get_if<SliceEncoding>(&e.kind)) {
    auto parent = HalveWarps(*s->parent);
    if (!parent) return std::nullopt;
    SliceEncoding c = *s;
    c.parent = *parent;
    return Make(std::move(c));
  }
  if (const auto* l = std::get_if<LinearEncoding>(&e.kind)) {
    LinearLayout::BasesT bases = l->layout.bases();
    auto find = [&](const char* name) -> std::vector<LinearLayout::Basis>* {
      for (auto& [dim, v] : bases) {
        if (dim == name) return &v;
      }
      return nullptr;
    };
    auto* warp = find("warp");
    auto* reg = find("register");
    if (warp == nullptr || reg == nullptr || warp->empty()) return std::nullopt;
    reg->push_back(warp->back());
    warp->pop_back();
    return Make(LinearEncoding{LinearLayout(std::move(bases), l->layout.out_dims(), false)});
  }
  return std::nullopt;
}

// A linear encoding fitted to a smaller `shape`: each basis coordinate masked to the new
// extent (the masked bases still span the smaller tensor). Other encodings are
// shape-independent and come back unchanged.
EncodingPtr FitToShape(const EncodingPtr& e, const std::vector<int64_t>& shape) {
  const auto* l = std::get_if<LinearEncoding>(&e->kind);
  if (l == nullptr) return e;
  LinearLayout::BasesT bases = l->layout.bases();
  for (auto& [dim, vs] : bases) {
    for (auto& v : vs) {
      for (size_t d = 0; d < v.size() && d < shape.size(); ++d) {
        v[d] &= static_cast<int32_t>(shape[d] - 1);
      }
    }
  }
  LinearLayout::OutDimsT out;
  for (size_t d = 0; d < shape.size(); ++d) {
    out.push_back({absl::StrCat("dim", d), static_cast<int32_t>(shape[d])});
  }
  return Make(LinearEncoding{LinearLayout(std::move(bases), std::move(out), false)});
}

// Simpler stand-ins for one side: dot_op -> its parent, mma v3 -> v2, blocked with a
// smaller sizePerThread or the default order, and the default blocked layout.
std::vector<EncodingPtr> SimplerSides(const EncodingPtr& e, const std::vector<int64_t>& shape,
                                      int warps) {
  std::vector<EncodingPtr> out;
  out.push_back(DefaultBlocked(shape, warps));
  if (const auto* d = std::get_if<DotOperandEncoding>(&e->kind)) out.push_back(d->parent);
  if (const auto* m = std::get_if<NvidiaMmaEncoding>(&e->kind); m && m->version_major == 3) {
    NvidiaMmaEncoding c = *m;
    c.version_major = 2;
    c.instr_shape = {16, 8};
    out.push_back(Make(std::move(c)));
  }
  if (const auto* b = std::get_if<BlockedEncoding>(&e->kind)) {
    for (size_t d = 0; d < b->size_per_thread.size(); ++d) {
      if (b->size_per_thread[d] > 1) {
        BlockedEncoding c = *b;
        c.size_per_thread[d] /= 2;
        out.push_back(Make(std::move(c)));
      }
    }
    if (b->order != DefaultOrder(static_cast<int>(b->order.size()))) {
      BlockedEncoding c = *b;
      c.order = DefaultOrder(static_cast<int>(b->order.size()));
      out.push_back(Make(std::move(c)));
    }
  }
  return out;
}

}  // namespace

std::array<int64_t, 4> Complexity(const FuzzPair& p) {
  int64_t elements = 1;
  for (int64_t s : p.shape) elements *= s;
  return {p.num_warps, elements,
          EncodingScore(*p.src, p.shape, p.num_warps) + EncodingScore(*p.dst, p.shape, p.num_warps),
          DTypeScore(p.dtype)};
}

std::vector<FuzzPair> ShrinkSteps(const FuzzPair& p) {
  std::vector<FuzzPair> out;
  auto add = [&](FuzzPair q) {
    if (Complexity(q) < Complexity(p)) out.push_back(std::move(q));
  };
  if (p.num_warps > 1) {
    auto src = HalveWarps(*p.src), dst = HalveWarps(*p.dst);
    if (src && dst) {
      FuzzPair q = p;
      q.src = *src;
      q.dst = *dst;
      q.num_warps /= 2;
      add(std::move(q));
    }
  }
  for (size_t d = 0; d < p.shape.size(); ++d) {
    if (p.shape[d] < 2) continue;
    FuzzPair q = p;
    q.shape[d] /= 2;
    q.src = FitToShape(p.src, q.shape);
    q.dst = FitToShape(p.dst, q.shape);
    add(std::move(q));
  }
  for (int side = 0; side < 2; ++side) {
    for (EncodingPtr& e : SimplerSides(side == 0 ? p.src : p.dst, p.shape, p.num_warps)) {
      FuzzPair q = p;
      (side == 0 ? q.src : q.dst) = std::move(e);
      add(std::move(q));
    }
  }
  if (p.dtype != DType::kI32) {
    FuzzPair q = p;
    q.dtype = DType::kI32;
    add(std::move(q));
  }
  return out;
}

ShrinkResult Shrink(const FuzzPair& failing,
                    const std::function<bool(const FuzzPair&)>& still_fails, int max_checks) {
  ShrinkResult r;
  r.pair = failing;
  for (bool progress = true; progress;) {
    progress = false;
    for (FuzzPair& q : ShrinkSteps(r.pair)) {
      if (r.checks >= max_checks) {
        r.bounded = true;
        return r;
      }
      ++r.checks;
      if (still_fails(q)) {
        r.pair = std::move(q);
        ++r.steps;
        progress = true;
        break;
      }
    }
  }
  return r;
}

}  // namespace warpcheck::verify::fuzz
