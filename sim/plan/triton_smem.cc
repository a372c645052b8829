#include "sim/plan/triton_smem.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sim/bank/bank_model.h"

namespace warpcheck::sim::plan {
namespace {

using Vecs = std::vector<uint32_t>;

int Log2(uint64_t x) {  // floor; x >= 1
  int k = 0;
  while (x > 1) {
    x >>= 1;
    ++k;
  }
  return k;
}

bool Contains(const Vecs& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

int Rank(const Vecs& vectors) {
  Vecs rows;  // kept with distinct highest bits
  for (uint32_t v : vectors) {
    for (uint32_t r : rows) v = std::min(v, v ^ r);
    if (v != 0) {
      rows.push_back(v);
      std::sort(rows.rbegin(), rows.rend());
    }
  }
  return static_cast<int>(rows.size());
}

// Fully reduced row echelon form whose pivot of each row is its lowest set bit, columns
// taken from bit 0 up (the form Triton's f2reduce call yields; it is unique). Returns the
// non-zero rows.
Vecs ReducedRowEchelon(const Vecs& vectors, int dim) {
  Vecs rows(vectors.begin(), vectors.end());
  Vecs done;
  for (int col = 0; col < dim; ++col) {
    const uint32_t bit = uint32_t{1} << col;
    auto it = std::find_if(rows.begin(), rows.end(), [&](uint32_t r) { return r & bit; });
    if (it == rows.end()) continue;
    const uint32_t pivot = *it;
    rows.erase(it);
    for (uint32_t& r : rows) {
      if (r & bit) r ^= pivot;
    }
    for (uint32_t& r : done) {
      if (r & bit) r ^= pivot;
    }
    done.push_back(pivot);
  }
  return done;
}

int LowestBit(uint32_t v) { return __builtin_ctz(v); }

// Triton's nullspaceBasis: for each free column c (ascending), e_c plus the pivots of the
// rows that have bit c.
Vecs NullspaceBasis(const Vecs& vectors, int dim) {
  const Vecs rows = ReducedRowEchelon(vectors, dim);
  uint32_t pivots = 0;
  for (uint32_t r : rows) pivots |= uint32_t{1} << LowestBit(r);
  Vecs basis;
  for (int c = 0; c < dim; ++c) {
    const uint32_t bit = uint32_t{1} << c;
    if (pivots & bit) continue;
    uint32_t v = bit;
    for (uint32_t r : rows) {
      if (r & bit) v ^= uint32_t{1} << LowestBit(r);
    }
    basis.push_back(v);
  }
  return basis;
}

bool IsPowerOf2(uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }

// Triton's intersectionBasis: with unit vectors only, the members of b1 (in b1's order)
// that are in b2; otherwise through null spaces.
Vecs IntersectionBasis(const Vecs& b1, const Vecs& b2, int dim) {
  const bool units = std::all_of(b1.begin(), b1.end(), IsPowerOf2) &&
                     std::all_of(b2.begin(), b2.end(), IsPowerOf2);
  if (units) {
    Vecs out;
    for (uint32_t b : b1) {
      if (b != 0 && Contains(b2, b)) out.push_back(b);
    }
    return out;
  }
  Vecs joint = NullspaceBasis(b1, dim);
  const Vecs n2 = NullspaceBasis(b2, dim);
  joint.insert(joint.end(), n2.begin(), n2.end());
  return NullspaceBasis(joint, dim);
}

// Expresses vectors in a list of columns; columns that repeat earlier ones (zero bases
// included) are free and never used: Triton's pseudo-inverse with free bits 0.
class Solver {
 public:
  explicit Solver(const Vecs& columns) {
    for (size_t i = 0; i < columns.size(); ++i) {
      uint32_t v = columns[i];
      uint64_t combo = uint64_t{1} << i;
      for (const auto& [r, c] : rows_) {
        if (v & TopBit(r)) {
          v ^= r;
          combo ^= c;
        }
      }
      if (v != 0) Insert(v, combo);
    }
  }
  // The columns whose XOR is t; nullopt when t is outside their span.
  std::optional<uint64_t> Solve(uint32_t t) const {
    uint64_t combo = 0;
    for (const auto& [r, c] : rows_) {
      if (t & TopBit(r)) {
        t ^= r;
        combo ^= c;
      }
    }
    if (t != 0) return std::nullopt;
    return combo;
  }

 private:
  static uint32_t TopBit(uint32_t v) { return uint32_t{1} << (31 - __builtin_clz(v)); }
  // Keeps rows sorted by decreasing top bit, each top bit cleared in the others below.
  void Insert(uint32_t v, uint64_t combo) {
    rows_.emplace_back(v, combo);
    std::sort(rows_.begin(), rows_.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
  }
  std::vector<std::pair<uint32_t, uint64_t>> rows_;
};

// One layout in Triton's flat order, register broadcast removed.
struct Side {
  Vecs reg, lane, warp;
  Vecs Columns() const {
    Vecs c = reg;
    c.insert(c.end(), lane.begin(), lane.end());
    c.insert(c.end(), warp.begin(), warp.end());
    return c;
  }
};

// ConversionProblem's row-major flat index -> Triton's flat offset (dim0 most minor).
uint32_t ToTritonFlat(uint32_t x, const std::vector<int64_t>& shape) {
  const int n = static_cast<int>(shape.size());
  std::vector<uint32_t> coord(n);
  for (int d = n - 1; d >= 0; --d) {
    coord[d] = x % static_cast<uint32_t>(shape[d]);
    x /= static_cast<uint32_t>(shape[d]);
  }
  uint32_t out = 0, stride = 1;
  for (int d = 0; d < n; ++d) {
    out += coord[d] * stride;
    stride *= static_cast<uint32_t>(shape[d]);
  }
  return out;
}

Side MakeSide(const FlatLayout& f, const std::vector<int64_t>& shape) {
  Side s;
  for (uint32_t b : f.reg) {
    if (b != 0) s.reg.push_back(ToTritonFlat(b, shape));  // actionRemoveBroadcastedRegs
  }
  for (uint32_t b : f.lane) s.lane.push_back(ToTritonFlat(b, shape));
  for (uint32_t b : f.warp) s.warp.push_back(ToTritonFlat(b, shape));
  return s;
}

// An instruction's tile (LocalMemOpTile): lanes inside one 16-byte row, lanes that give
// the row addresses of one wavefront.
struct Tile {
  TritonSmemInstr instr;
  std::vector<int> lane_contig, lane_addr;
};

// getSrcDstTiles on sm_90, which has both stmatrix and ldmatrix: the store and load lists
// are the same.
std::vector<Tile> TilesFor(int bits) {
  std::vector<Tile> tiles = {{TritonSmemInstr::kLdSt, {}, {0, 1, 2}}};
  if (bits <= 32) tiles.push_back({TritonSmemInstr::kMatrix, {0, 1}, {2, 3, 4}});
  if (bits == 16) tiles.push_back({TritonSmemInstr::kMatrixTrans, {2, 3, 4}, {0, 1}});
  return tiles;
}

// optimalSwizzlingTile: the common 16-byte vector tile of a pair, or nullopt.
std::optional<Vecs> VectorTile(const Side& a0, const Side& b0, int n_reg_a0, int n_reg_b0,
                               const std::vector<int>& lanes_a0,
                               const std::vector<int>& lanes_b0, int dim) {
  const bool swap = n_reg_a0 < n_reg_b0;
  const Side& a = swap ? b0 : a0;
  const Side& b = swap ? a0 : b0;
  const int n_reg_a = swap ? n_reg_b0 : n_reg_a0;
  const int n_reg_b = swap ? n_reg_a0 : n_reg_b0;
  const std::vector<int>& lanes_a = swap ? lanes_b0 : lanes_a0;
  const std::vector<int>& lanes_b = swap ? lanes_a0 : lanes_b0;

  Vecs vbasis = IntersectionBasis(a.reg, b.reg, dim);
  if (static_cast<int>(vbasis.size()) < n_reg_b) return std::nullopt;
  vbasis.resize(n_reg_b);
  for (int i : lanes_a) {
    if (a.lane[i] == 0) return std::nullopt;
  }
  for (int i : lanes_b) {
    if (b.lane[i] == 0) return std::nullopt;
  }
  // cvt = b.invertAndCompose(a): where a holds b's lane elements.
  const Solver in_a(a.Columns());
  const int na = static_cast<int>(a.reg.size());
  auto cvt = [&](int lane_b) -> std::optional<uint64_t> { return in_a.Solve(b.lane[lane_b]); };
  for (int i = 0; i < n_reg_a - n_reg_b; ++i) {
    auto c = cvt(lanes_b[i]);
    if (!c || (*c & ((uint64_t{1} << na) - 1)) == 0) return std::nullopt;
  }
  const size_t off = lanes_b.size() - lanes_a.size();
  for (size_t k = 0; k < lanes_a.size(); ++k) {
    auto c = cvt(lanes_b[off + k]);
    if (!c) return std::nullopt;
    const uint64_t lane_part = (*c >> na) & 31;
    if (lane_part != (uint64_t{1} << lanes_a[k])) return std::nullopt;
  }
  for (int i : lanes_b) vbasis.push_back(b.lane[i]);
  return vbasis;
}

// getTile: the tensor bits that vary over one wavefront of the instruction.
std::optional<Vecs> AddressTile(const Tile& t, const Side& s, const Vecs& vbasis) {
  Vecs tile;
  int needed = 3 - static_cast<int>(t.lane_addr.size());
  for (uint32_t r : s.reg) {
    if (needed == 0) break;
    if (!Contains(vbasis, r)) {
      tile.push_back(r);
      --needed;
    }
  }
  if (needed > 0) return std::nullopt;
  for (int i : t.lane_addr) tile.push_back(s.lane[i]);
  return tile;
}

// complementBasis: unit vectors of the columns that are not pivots.
Vecs ComplementBasis(const Vecs& basis, int dim) {
  uint32_t pivots = 0;
  for (uint32_t r : ReducedRowEchelon(basis, dim)) pivots |= uint32_t{1} << LowestBit(r);
  Vecs out;
  for (int i = 0; i < dim; ++i) {
    if (!(pivots & (uint32_t{1} << i))) out.push_back(uint32_t{1} << i);
  }
  return out;
}

// The members of `basis` (in order) that are independent of `modulo` and of the members
// taken before them.
Vecs QuotientBasis(const Vecs& basis, const Vecs& modulo) {
  Vecs rows;  // reduced by lowest set bit
  auto add = [&](uint32_t v) {
    for (uint32_t r : rows) {
      if (v & (uint32_t{1} << LowestBit(r))) v ^= r;
    }
    if (v == 0) return false;
    for (uint32_t& r : rows) {
      if (r & (uint32_t{1} << LowestBit(v))) r ^= v;
    }
    rows.push_back(v);
    return true;
  };
  for (uint32_t v : modulo) add(v);
  Vecs out;
  for (uint32_t v : basis) {
    if (add(v)) out.push_back(v);
  }
  return out;
}

// computeSegment: the segment bases (where the XOR swizzle lives). First the unit vectors
// outside both sides' bank spans (no conflict for anybody), then A[i]^B[i] over the two
// sides' bank bases outside the common span (sorted, A the smaller list): in neither
// span, so conflict-free, and only if still short A[0..k) and B[0..k), which conflict.
Vecs ComputeSegment(const Vecs& bank_src, const Vecs& bank_dst, int dim, int len) {
  Vecs joint = bank_src;
  joint.insert(joint.end(), bank_dst.begin(), bank_dst.end());
  Vecs segment = ComplementBasis(joint, dim);
  if (static_cast<int>(segment.size()) >= len) {
    segment.resize(len);
    return segment;
  }
  const Vecs common = IntersectionBasis(bank_src, bank_dst, dim);
  Vecs a = QuotientBasis(bank_src, common);
  Vecs b = QuotientBasis(bank_dst, common);
  if (a.size() > b.size()) std::swap(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const int na = static_cast<int>(a.size());
  const int k = std::min(std::max(0, len - na - static_cast<int>(segment.size())), na);
  for (int i = k; i < na; ++i) segment.push_back(a[i] ^ b[i]);  // conflict-free swizzle
  segment.insert(segment.end(), a.begin(), a.begin() + k);      // conflicts on a's side
  segment.insert(segment.end(), b.begin(), b.begin() + k);      // conflicts on b's side
  if (static_cast<int>(segment.size()) > len) segment.resize(len);
  return segment;
}

struct Smem {
  Vecs vec, bank, segment, reps;
};

// The core optimalSwizzling with buildReps.
Smem CoreSwizzling(const Side& src, const Side& dst, int bits, const Vecs& vbasis,
                   const Vecs& tile_src, const Vecs& tile_dst, int leave_reps, int dim) {
  Vecs bank_src = vbasis, bank_dst = vbasis;
  bank_src.insert(bank_src.end(), tile_src.begin(), tile_src.end());
  bank_dst.insert(bank_dst.end(), tile_dst.begin(), tile_dst.end());
  const int nv = static_cast<int>(vbasis.size());
  const int len_b = std::min(Log2(1024 / ((uint64_t{1} << nv) * bits)), dim - nv);
  const int len_s = dim - len_b - nv;
  Smem s;
  s.vec = vbasis;
  const Vecs sbasis = ComputeSegment(bank_src, bank_dst, dim, len_s);
  Vecs all = vbasis;
  all.insert(all.end(), sbasis.begin(), sbasis.end());
  s.bank = ComplementBasis(all, dim);
  for (uint32_t v : sbasis) {
    if (Contains(src.reg, v) && Contains(dst.reg, v)) {
      if (leave_reps > 0) {
        --leave_reps;
        s.segment.push_back(v);
      } else {
        s.reps.push_back(v);
      }
    } else {
      s.segment.push_back(v);
    }
  }
  return s;
}

// bankConflicts: 2^dim(span(segment) ∩ span(tile)) - 1 per side.
int Conflicts(const Vecs& segment, const Vecs& tile) {
  Vecs both = segment;
  both.insert(both.end(), tile.begin(), tile.end());
  const int meet = Rank(segment) + Rank(tile) - Rank(both);
  return (1 << meet) - 1;
}

Vecs NonZero(const Vecs& v) {
  Vecs out;
  for (uint32_t x : v) {
    if (x != 0) out.push_back(x);
  }
  return out;
}

// getVecBasisLdSt: the fallback's vector bases. The registers common to both sides (at
// most 128 bits); below one 32-bit word, filled with registers of one side that are warps
// of the other, then warps common to both, then warps of either side (a warp basis in the
// first word costs no conflict: warps are served separately). `src_fills` says which
// side's registers filled it (nullopt: none was tried).
Vecs FallbackVbasis(const Side& src, const Side& dst, int bits, int dim,
                    std::optional<bool>* src_fills) {
  Vecs vbasis = IntersectionBasis(src.reg, dst.reg, dim);
  const int max_vec_bases = Log2(128 / bits);
  if (static_cast<int>(vbasis.size()) > max_vec_bases) vbasis.resize(max_vec_bases);
  *src_fills = std::nullopt;
  if ((int64_t{1} << vbasis.size()) * bits >= 32) return vbasis;
  const size_t per_bank = Log2(32 / bits);
  const Vecs warp_src = NonZero(src.warp), warp_dst = NonZero(dst.warp);
  auto without_vec = [&](const Vecs& v) {
    Vecs out;
    for (uint32_t x : v) {
      if (!Contains(vbasis, x)) out.push_back(x);
    }
    return out;
  };
  const Vecs src_reg_warp = IntersectionBasis(without_vec(src.reg), warp_dst, dim);
  const Vecs dst_reg_warp = IntersectionBasis(without_vec(dst.reg), warp_src, dim);
  if (src_reg_warp.size() == dst_reg_warp.size() && !src_reg_warp.empty()) {
    *src_fills = *std::min_element(src_reg_warp.begin(), src_reg_warp.end()) <
                 *std::min_element(dst_reg_warp.begin(), dst_reg_warp.end());
  } else {
    *src_fills = src_reg_warp.size() > dst_reg_warp.size();
  }
  const Vecs& largest = **src_fills ? src_reg_warp : dst_reg_warp;
  vbasis.insert(vbasis.end(), largest.begin(), largest.end());
  if (vbasis.size() < per_bank) {
    const Vecs both = IntersectionBasis(warp_src, warp_dst, dim);
    vbasis.insert(vbasis.end(), both.begin(), both.end());
  }
  for (size_t i = 0; vbasis.size() < per_bank && (i < warp_src.size() || i < warp_dst.size());
       ++i) {
    if (i < warp_src.size() && !Contains(vbasis, warp_src[i])) vbasis.push_back(warp_src[i]);
    if (vbasis.size() < per_bank && i < warp_dst.size() && !Contains(vbasis, warp_dst[i])) {
      vbasis.push_back(warp_dst[i]);
    }
  }
  if (vbasis.size() > per_bank) vbasis.resize(per_bank);
  return vbasis;
}

// optimalSwizzlingLdSt: the core routine on the fallback's vector, with each side's lanes
// minus those served in other wavefronts (64/128-bit accesses) as the address tiles; below
// 128 bits the bank bases that are registers of the side that filled the first word (else
// of the side with more of them) move to the front, so that side vectorises further.
Smem FallbackSwizzling(const Side& src, const Side& dst, int bits, int dim) {
  std::optional<bool> src_fills;
  const Vecs vbasis = FallbackVbasis(src, dst, bits, dim, &src_fills);
  const int64_t vec_bits = (int64_t{1} << vbasis.size()) * bits;
  const int log2_vec = Log2(std::max<int64_t>(1, vec_bits / 32));
  auto lane_tile = [&](const Side& s) {
    Vecs tile = s.lane;
    tile.resize(tile.size() - log2_vec);
    return tile;
  };
  Smem smem = CoreSwizzling(src, dst, bits, vbasis, lane_tile(src), lane_tile(dst), 0, dim);
  if (log2_vec < 2) {
    std::vector<size_t> in_src, in_dst;
    for (size_t i = 0; i < smem.bank.size(); ++i) {
      if (Contains(src.reg, smem.bank[i])) in_src.push_back(i);
      if (Contains(dst.reg, smem.bank[i])) in_dst.push_back(i);
    }
    std::vector<size_t> order = src_fills.has_value()
                                    ? (*src_fills ? in_src : in_dst)
                                    : (in_src.size() > in_dst.size() ? in_src : in_dst);
    for (size_t i = 0; i < smem.bank.size(); ++i) {
      if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
    }
    Vecs bank;
    for (size_t i : order) bank.push_back(smem.bank[i]);
    smem.bank = bank;
  }
  return smem;
}

// isCvtWarpSync: the conversion keeps every element in its warp (warp bit i of the
// source is warp bit i of the destination, nothing else crosses warps) and neither side
// broadcasts over warps.
bool WarpSync(const Side& src, const Side& dst) {
  const Solver in_dst(dst.Columns());
  const int nr = static_cast<int>(dst.reg.size()), nl = static_cast<int>(dst.lane.size());
  const Vecs src_cols = src.Columns();
  const int sr = static_cast<int>(src.reg.size()), sl = static_cast<int>(src.lane.size());
  for (size_t i = 0; i < src_cols.size(); ++i) {
    auto c = in_dst.Solve(src_cols[i]);
    if (!c) return false;
    const uint64_t warp_part = *c >> (nr + nl);
    const int idx = static_cast<int>(i);
    if (idx >= sr + sl) {
      if (*c != (uint64_t{1} << (nr + nl + (idx - sr - sl)))) return false;
    } else if (warp_part != 0) {
      return false;
    }
  }
  auto no_warp_broadcast = [](const Side& s) {
    Vecs seen = s.reg;
    seen.insert(seen.end(), s.lane.begin(), s.lane.end());
    for (uint32_t w : s.warp) {
      const int before = Rank(seen);
      seen.push_back(w);
      if (Rank(seen) == before) return false;
    }
    return true;
  };
  return no_warp_broadcast(src) && no_warp_broadcast(dst);
}

struct SideCount {
  int vec_elems = 1;
  int64_t instructions = 0;
  int64_t wavefronts_per_instruction = 0;
};

// The byte address of `lanes`' span element `l`: the XOR of the offsets of l's set bits.
uint32_t SpanOffset(const Vecs& offsets, uint32_t l) {
  uint32_t off = 0;
  for (size_t j = 0; j < offsets.size(); ++j) {
    if (l & (uint32_t{1} << j)) off ^= offsets[j];
  }
  return off;
}

// One matrix of 8 rows of 16 bytes whose row offsets (elements) span `row_bases`.
uint32_t MatrixWavefronts(const Vecs& row_bases, int bytes) {
  uint32_t rows[32] = {};
  for (uint32_t r = 0; r < 8; ++r) rows[r] = SpanOffset(row_bases, r) * bytes;
  return bank::MatrixRequestCost(rows, 1).wavefronts;
}

// How one side moves its registers through smem: ld/st vectorised by largestVectorisation,
// or ldmatrix/stmatrix with up to 128 bits per thread per instruction.
absl::StatusOr<SideCount> CountSide(const Side& s, const Smem& smem, TritonSmemInstr instr,
                                    int bits, const char* what) {
  Vecs cols = smem.vec;
  cols.insert(cols.end(), smem.bank.begin(), smem.bank.end());
  cols.insert(cols.end(), smem.segment.begin(), smem.segment.end());
  const int n_off = static_cast<int>(cols.size());
  cols.insert(cols.end(), smem.reps.begin(), smem.reps.end());
  const Solver index(cols);
  const uint64_t reps_mask = ((uint64_t{1} << cols.size()) - 1) & ~((uint64_t{1} << n_off) - 1);
  auto idx = [&](uint32_t t) -> absl::StatusOr<uint64_t> {
    auto c = index.Solve(t);
    if (!c) return absl::InternalError(absl::StrCat(what, ": shared layout is not invertible"));
    return *c;
  };
  Vecs tile_regs_idx, others;  // offsets of the round's registers; of lanes and warps
  int rep_regs = 0;
  for (uint32_t r : s.reg) {
    auto c = idx(r);
    if (!c.ok()) return c.status();
    if (*c & reps_mask) {
      if (*c & ~reps_mask) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": a register mixes a round bit with offset bits; the rounds cannot be "
                  "split off (Triton asserts here)"));
      }
      ++rep_regs;
    } else {
      tile_regs_idx.push_back(static_cast<uint32_t>(*c));
    }
  }
  for (const Vecs* v : {&s.lane, &s.warp}) {
    for (uint32_t b : *v) {
      auto c = idx(b);
      if (!c.ok()) return c.status();
      if (*c & reps_mask) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": a lane or warp basis reaches a round bit"));
      }
      others.push_back(static_cast<uint32_t>(*c));
    }
  }
  if (rep_regs != static_cast<int>(smem.reps.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the rounds are not registers of this side"));
  }
  const int64_t tile_regs = int64_t{1} << tile_regs_idx.size();
  const int64_t n_reps = int64_t{1} << smem.reps.size();
  SideCount out;
  if (instr == TritonSmemInstr::kLdSt) {
    for (int k = Log2(128 / bits); k >= 0; --k) {
      const uint32_t low = (uint32_t{1} << k) - 1;
      bool ok = true;
      for (int j = 0; j < k && ok; ++j) ok = Contains(tile_regs_idx, uint32_t{1} << j);
      for (uint32_t r : tile_regs_idx) {
        if (IsPowerOf2(r) && r <= low) continue;  // one of offsets 1, 2, ..., 2^(k-1)
        if ((r & low) != 0) ok = false;
      }
      for (uint32_t o : others) {
        if ((o & low) != 0) ok = false;
      }
      if (ok) {
        out.vec_elems = 1 << k;
        break;
      }
    }
  } else {
    out.vec_elems = static_cast<int>(std::min<int64_t>(128 / bits, tile_regs));
    if (out.vec_elems * bits < 32) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": a round holds fewer than 32 bits per thread, too few for ldmatrix/stmatrix"));
    }
  }
  out.instructions = n_reps * tile_regs / out.vec_elems;

  // Wavefronts. Every instruction of a side addresses the lanes' offsets XOR a constant
  // (the register index's offset; the additive ones are disjoint from the lanes' bits),
  // and an XOR by a constant only permutes banks and words: all instructions of a side
  // cost what the first does.
  const int bytes = bits / 8;
  const Vecs lanes(others.begin(), others.begin() + 5);
  if (instr == TritonSmemInstr::kLdSt) {
    uint32_t addr[32];
    for (uint32_t l = 0; l < 32; ++l) addr[l] = SpanOffset(lanes, l) * bytes;
    out.wavefronts_per_instruction =
        bank::SharedRequestCost(addr, 0xffffffffu, out.vec_elems * bytes).wavefronts;
  } else {
    const int matrices = out.vec_elems * bits / 32;  // .x1, .x2, .x4
    uint32_t one;
    if (instr == TritonSmemInstr::kMatrix) {
      one = MatrixWavefronts({lanes[2], lanes[3], lanes[4]}, bytes);  // lanes 0-1: a row
    } else {
      // .trans: lanes 2-4 make a row; the rows span lanes 0-1 and one register, the one
      // with the fewest conflicts (lowerLdStMatrix's row-bit search).
      one = UINT32_MAX;
      for (uint32_t r : tile_regs_idx) {
        one = std::min(one, MatrixWavefronts({r, lanes[0], lanes[1]}, bytes));
      }
      if (tile_regs_idx.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": no register to make the rows of a transposed matrix"));
      }
    }
    out.wavefronts_per_instruction = int64_t{matrices} * one;
  }
  return out;
}

}  // namespace

std::string TritonSmemInstrName(TritonSmemInstr i, bool store) {
  switch (i) {
    case TritonSmemInstr::kLdSt: return store ? "st.shared" : "ld.shared";
    case TritonSmemInstr::kMatrix: return store ? "stmatrix" : "ldmatrix";
    case TritonSmemInstr::kMatrixTrans: return store ? "stmatrix.trans" : "ldmatrix.trans";
  }
  return "?";
}

absl::StatusOr<TritonSmemLowering> TritonSharedMemoryLowering(const ConversionProblem& p,
                                                              bool leave_reps) {
  const int bits = std::max(p.element_bits, 8);
  const int dim = p.elem_bits_log2;
  const Side src = MakeSide(p.src, p.shape);
  const Side dst = MakeSide(p.dst, p.shape);
  if (src.lane.size() != 5 || dst.lane.size() != 5) {
    return absl::InvalidArgumentError("triton smem model: a warp must have 32 lanes");
  }
  {
    Vecs s = src.Columns(), d = dst.Columns();
    if (Rank(s) != dim || Rank(d) != dim) {
      return absl::InvalidArgumentError(
          "triton smem model: a layout does not cover the tensor");
    }
  }

  const int total_bases = Log2(128 / bits);
  const std::vector<Tile> src_tiles = TilesFor(bits), dst_tiles = src_tiles;
  struct Candidate {
    TritonSmemInstr store, load;
    Smem smem;
    int read, write;
  };
  std::optional<Candidate> best;
  for (const Tile& ts : src_tiles) {
    for (const Tile& td : dst_tiles) {
      const int n_src = total_bases - static_cast<int>(ts.lane_contig.size());
      const int n_dst = total_bases - static_cast<int>(td.lane_contig.size());
      auto vbasis = VectorTile(src, dst, n_src, n_dst, ts.lane_contig, td.lane_contig, dim);
      if (!vbasis) continue;
      auto tile_src = AddressTile(ts, src, *vbasis);
      auto tile_dst = AddressTile(td, dst, *vbasis);
      if (!tile_src || !tile_dst) continue;
      auto missing = [](const Tile& t) {
        return static_cast<int>(t.lane_contig.size() + t.lane_addr.size()) - 3;
      };
      const int leave = leave_reps ? std::min(missing(ts), missing(td)) : 0;
      Candidate c{ts.instr, td.instr,
                  CoreSwizzling(src, dst, bits, *vbasis, *tile_src, *tile_dst, leave, dim), 0,
                  0};
      c.write = Conflicts(c.smem.segment, *tile_src);
      c.read = Conflicts(c.smem.segment, *tile_dst);
      if (!best || c.read + c.write < best->read + best->write ||
          (c.read + c.write == best->read + best->write &&
           c.smem.reps.size() > best->smem.reps.size())) {
        best = std::move(c);
      }
    }
  }
  TritonSmemLowering out;
  if (!best) {
    out.fallback = true;
    best = Candidate{TritonSmemInstr::kLdSt, TritonSmemInstr::kLdSt,
                     FallbackSwizzling(src, dst, bits, dim), 0, 0};
  }
  out.store = best->store;
  out.load = best->load;
  out.read_conflicts = best->read;
  out.write_conflicts = best->write;
  out.reps = 1 << best->smem.reps.size();
  out.scratch_bytes = (int64_t{1} << (dim - best->smem.reps.size())) * (bits / 8);
  auto st = CountSide(src, best->smem, out.store, bits, "triton smem model (store)");
  if (!st.ok()) return st.status();
  auto ld = CountSide(dst, best->smem, out.load, bits, "triton smem model (load)");
  if (!ld.ok()) return ld.status();
  out.store_vec_elems = st->vec_elems;
  out.load_vec_elems = ld->vec_elems;
  out.store_instructions = st->instructions;
  out.load_instructions = ld->instructions;
  out.store_wavefronts = st->instructions * st->wavefronts_per_instruction;
  out.load_wavefronts = ld->instructions * ld->wavefronts_per_instruction;
  out.barriers = 2 * out.reps - 1;
  out.warp_sync = WarpSync(src, dst);
  return out;
}

}  // namespace warpcheck::sim::plan
