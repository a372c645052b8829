#include "sim/plan/matrix.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "sim/bank/bank_model.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/lane_cost.h"

namespace warpcheck::sim::plan {
namespace {

enum class Kind { kPlain, kMatrix, kTrans };

using Map = OffsetMap;  // the offset map of a basis (f2_span.h)

uint32_t Spread(const std::vector<int>& bits, uint32_t j, int from = 0) {
  uint32_t r = 0;
  for (size_t k = from; k < bits.size(); ++k) if ((j >> (k - from)) & 1) r |= 1u << bits[k];
  return r;
}

// One side of the conversion: the stores (source) or the loads (destination).
struct Side {
  const FlatLayout* l = nullptr;
  const WordView* v = nullptr;
  bool store = false;
  Kind kind = Kind::kPlain;
  uint32_t free_regs = 0, free_tid = 0;
  uint32_t cols[3] = {}, rows[3] = {};  // matrix: tensor directions
  int ncols = 3;                        // offset bits of a 16-byte row: 3 (16-bit), 2 (32-bit)
  std::vector<int> select;              // matrix: register bits picking the matrix
  int warps = 0;                        // warps that take part
  uint32_t lanes = 0;                   // plain sides: lanes that take part (a lane mask)

  // The register bit packed in a word (16-bit elements), -1 for 32-bit elements.
  int Pack() const { return v->pk() == 1 ? v->pack[0] : -1; }
  // Matrix sides: registers with the pack and select bits clear start an instruction.
  uint32_t Fixed() const {
    uint32_t m = Pack() >= 0 ? 1u << Pack() : 0;
    for (int b : select) m |= 1u << b;
    return m;
  }
};

// How one side accesses shared memory under a basis, and what it costs a warp.
struct Access {
  // Plain: the register bits of one access, vec[k] -> offset bit k (at most 4: 16 bytes
  // of 1-byte elements), in place (the climb prices thousands of accesses).
  int vec[4] = {};
  int a = 0;
  std::vector<int> Vec() const { return std::vector<int>(vec, vec + a); }
  uint32_t skip = 0;     // register bits that do not start an access
  int per_thread = 0;
  bank::BankCost cost;
};

// A layout's FlatLayout::FreeBits, asked once for the sides of every kind made of it.
struct FreeBitsOf {
  explicit FreeBitsOf(const FlatLayout& l) { l.FreeBits(&regs, &tid); }
  uint32_t regs = 0, tid = 0;
};

// `free`: FreeBitsOf the side's layout (p.src for the store, p.dst for the load).
std::optional<Side> MakeSide(const ConversionProblem& p, bool store, const WordView& v,
                             Kind kind, const FreeBitsOf& free) {
  Side s;
  s.l = store ? &p.src : &p.dst;
  s.v = &v;
  s.store = store;
  s.kind = kind;
  s.free_regs = free.regs;
  s.free_tid = free.tid;
  if (!store) s.free_tid = 0;  // every thread loads what it needs
  for (uint32_t w = 0; w < static_cast<uint32_t>(p.num_warps); ++w) {
    if (((w << 5) & s.free_tid) == 0) ++s.warps;
  }
  s.lanes = ActiveLanes(s.free_tid);
  if (kind == Kind::kPlain) return s;
  const FlatLayout& l = *s.l;
  // Broadcast copies: registers that hold copies are not accessed (loads rename the
  // canonical word); loads may read one row for several lanes or warps. Stores skip the
  // warps that hold copies (a warp-uniform predicate: every lane of a warp executes a
  // matrix instruction or none); lanes that hold copies of a row write the same data to
  // the same address (Triton stores such rows too). The pack bit and the select bits
  // must be registers of their own.
  // 32-bit elements move as pairs of 16-bit halves (as Triton lowers i32 / f32): a
  // word is one element, a 16-byte row four of them (cols: lanes 0-1). Not .trans,
  // which would split an element's halves between lanes.
  const bool wide = p.element_bits == 32;
  if (v.pk() != (wide ? 0 : 1) || v.upw != 1 || l.lane_bits() != 5 ||
      (wide && kind == Kind::kTrans) || (s.Pack() >= 0 && ((s.free_regs >> s.Pack()) & 1))) {
    return std::nullopt;
  }
  // Copied registers must be plain broadcast (basis 0): a copy through a combination with
  // the pack bit would hold its word's halves swapped.
  for (int i = 0; i < l.reg_bits(); ++i) {
    if (((s.free_regs >> i) & 1) && l.reg[i] != 0) return std::nullopt;
  }
  s.free_tid &= ~31u;
  s.ncols = wide ? 2 : 3;
  const uint32_t a[3] = {wide ? l.lane[0] : l.reg[v.pack[0]], wide ? l.lane[1] : l.lane[0],
                         wide ? 0u : l.lane[1]};
  const uint32_t b[3] = {l.lane[2], l.lane[3], l.lane[4]};
  for (int i = 0; i < 3; ++i) {
    s.cols[i] = kind == Kind::kMatrix ? a[i] : b[i];
    s.rows[i] = kind == Kind::kMatrix ? b[i] : a[i];
  }
  for (int i = 0; i < l.reg_bits() && s.select.size() < 2; ++i) {
    if (i != s.Pack() && !((s.free_regs >> i) & 1)) s.select.push_back(i);
  }
  return s;
}

constexpr Kind kKinds[3] = {Kind::kPlain, Kind::kMatrix, Kind::kTrans};

// Ensures: st[i], ld[i] the store and load sides of kind kKinds[i], where they fit.
void MakeSides(const ConversionProblem& p, const WordView& sv, const WordView& dv,
               std::optional<Side> st[3], std::optional<Side> ld[3]) {
  const FreeBitsOf src(p.src), dst(p.dst);
  for (int i = 0; i < 3; ++i) {
    st[i] = MakeSide(p, true, sv, kKinds[i], src);
    ld[i] = MakeSide(p, false, dv, kKinds[i], dst);
  }
}

// The offsets of one side's bases under an offset map (the map is linear: every offset
// an access needs is an XOR of these). The climb keeps them current under its swizzle
// moves instead of inverting every basis it tries.
struct SideImages {
  // One array, in order: register bits, 5 lane bits (0 past the layout's), warp bits,
  // rows, cols; a move touches only the entries in use.
  uint32_t v[32 + 5 + 32 + 3 + 3] = {};
  int reg_bits = 0, lane_bits = 0, warp_bits = 0, n = 0;

  SideImages(const Side& s, const Map& m)
      : reg_bits(s.l->reg_bits()), lane_bits(std::min(s.l->lane_bits(), 5)),
        warp_bits(s.l->warp_bits()) {
    for (int i = 0; i < reg_bits; ++i) v[n++] = m(s.l->reg[i]);
    for (int i = 0; i < 5; ++i) v[n++] = i < lane_bits ? m(s.l->lane[i]) : 0;  // 5 always
    for (int i = 0; i < warp_bits; ++i) v[n++] = m(s.l->warp[i]);
    for (int i = 0; i < 3; ++i) v[n++] = m(s.rows[i]);
    for (int i = 0; i < 3; ++i) v[n++] = m(s.cols[i]);
    moves = OffsetMoves(v, n);
  }
  const uint32_t* reg() const { return v; }
  const uint32_t* lane() const { return v + reg_bits; }
  const uint32_t* warp() const { return v + reg_bits + 5; }
  const uint32_t* rows() const { return v + n - 6; }
  const uint32_t* cols() const { return v + n - 3; }
  // The images after the move basis[k] ^= basis[j]: an involution, so applying it again
  // undoes it (the climb prices a move in place and undoes the ones it rejects).
  void Move(int j, int k) { moves.Move(v, n, j, k); }
  OffsetMoves moves;
};

// The bank cost of one warp-wide access of side `s` under the images `im`, its access
// `a` (SideAccess below, without the cost) already found. `memo`: bank costs (matrix
// keys: rows and selects, x, 0; plain keys: lanes, lane mask, bytes > 0; each a function
// of its key and eb alone, so the sides and candidates of a problem share one).
bank::BankCost SideBankCost(const Side& s, const SideImages& im, const Access& a, int eb,
                            BankCostMemo<>& memo) {
  if (s.kind != Kind::kPlain) {
    const uint32_t* row_img = im.rows();
    uint32_t sel_img[2] = {};
    const int x = 1 << s.select.size();
    for (size_t k = 0; k < s.select.size(); ++k) sel_img[k] = im.reg()[s.select[k]];
    const uint32_t key[5] = {row_img[0], row_img[1], row_img[2], sel_img[0], sel_img[1]};
    return memo.Get(key, static_cast<uint32_t>(x), 0, [&] {
      return MatrixRowsCost(row_img, sel_img, static_cast<int>(s.select.size()),
                            static_cast<uint32_t>(eb));
    });
  }
  const uint32_t* lane_img = im.lane();
  const uint32_t mask = s.lanes;
  const uint32_t bytes = static_cast<uint32_t>(eb << a.a);
  return memo.Get(lane_img, mask, bytes, [&] {
    return LaneRequestCost(lane_img, mask, bytes, static_cast<uint32_t>(eb));
  });
}

// The entries of a side's images (bit i: SideImages::v[i]) that its bank cost reads
// (SideBankCost's key): a plain side's lanes, a matrix side's rows and selects.
uint64_t BankCostEntries(const Side& s, const SideImages& im) {
  uint64_t e = 0;
  if (s.kind == Kind::kPlain) {
    for (int j = 0; j < 5; ++j) e |= uint64_t{1} << (im.reg_bits + j);
  } else {
    for (int i = 0; i < 3; ++i) e |= uint64_t{1} << (im.n - 6 + i);
    for (int b : s.select) e |= uint64_t{1} << b;
  }
  return e;
}

// Ensures: the side's access under the offset map of `im`, or nullopt when it does not
// fit (a matrix side whose cols are not offset bits 0-2 or whose rows are not 16-byte
// aligned; a plain side whose packed words cannot be accessed whole). `memo`: bank
// costs (matrix keys: rows and selects, x, 0; plain keys: lanes, lane mask, bytes > 0;
// each a function of its key and eb alone, so the sides and candidates of a problem
// share one).
std::optional<Access> SideAccess(const Side& s, const SideImages& im, int eb,
                                 BankCostMemo<>& memo) {
  const FlatLayout& l = *s.l;
  Access a;
  const uint32_t* img = im.reg();
  uint32_t warp_low = 0;
  for (int i = 0; i < im.warp_bits; ++i) warp_low |= im.warp()[i];
  const uint32_t all_regs = static_cast<uint32_t>(l.num_regs()) - 1;
  if (s.kind != Kind::kPlain) {
    for (int i = 0; i < s.ncols; ++i) if (im.cols()[i] != (1u << i)) return std::nullopt;
    const uint32_t* row_img = im.rows();
    uint32_t low = warp_low;
    for (int i = 0; i < l.reg_bits(); ++i) {
      if (i != s.Pack() && !((s.free_regs >> i) & 1)) low |= img[i];
    }
    for (int i = 0; i < 3; ++i) low |= row_img[i];
    // rows (with the pack bit for .trans) 16-byte aligned
    if (low & ((1u << s.ncols) - 1)) return std::nullopt;
    a.skip = s.Fixed() | s.free_regs;
    a.cost = SideBankCost(s, im, a, eb, memo);
    a.per_thread = 1 << (l.reg_bits() - Popcount(a.skip & all_regs));
    return a;
  }
  int limit = 0;
  while ((eb << (limit + 1)) <= 16) ++limit;
  for (int k = 0; k < limit; ++k) {
    int found = -1;
    for (int i = 0; i < l.reg_bits() && found < 0; ++i) {
      if (l.reg[i] != 0 && img[i] == (1u << k)) found = i;
    }
    if (found < 0) break;
    a.vec[a.a++] = found;
  }
  const uint32_t* lane_img = im.lane();
  uint32_t vmask = 0, low = warp_low;
  for (int k = 0; k < a.a; ++k) vmask |= 1u << a.vec[k];
  for (int i = 0; i < l.reg_bits(); ++i) if (!((vmask >> i) & 1)) low |= img[i];
  for (int j = 0; j < l.lane_bits() && j < 5; ++j) low |= lane_img[j];
  // Aligned: no other basis may reach the vector's offset bits. The registers the
  // narrowing drops start accesses of their own (their images are above the vector's
  // bits, so `low` stays as it is).
  while (a.a > 0 && (low & ((1u << a.a) - 1)) != 0) --a.a;
  if (a.a < s.v->pk()) return std::nullopt;
  for (int k = 0; k < s.v->pk(); ++k) if (a.vec[k] != s.v->pack[k]) return std::nullopt;
  vmask = 0;
  for (int k = 0; k < a.a; ++k) vmask |= 1u << a.vec[k];
  a.skip = vmask | s.free_regs;
  a.per_thread = 1 << (l.reg_bits() - Popcount(a.skip & all_regs));
  a.cost = SideBankCost(s, im, a, eb, memo);
  return a;
}

// Ensures: (w, i) with w <= the wavefronts and i <= the instructions of the side under
// every basis the search makes beside `other`, the candidate's other side (defined below).
std::pair<int64_t, int64_t> SideBound(const Side& s, const Side& other, int eb);
// Ensures: SideBound of both sides of a candidate, summed.
std::pair<int64_t, int64_t> PairBound(const Side& st, const Side& ld, int eb) {
  const auto [ws, is] = SideBound(st, ld, eb);
  const auto [wl, il] = SideBound(ld, st, eb);
  return {ws + wl, is + il};
}

class MatrixPlanner {
 public:
  // `memo`: bank costs, which depend only on the key and the element size, so one memo
  // serves every side and candidate of a problem. `bound`: the candidate's PairBound,
  // where the search stops, pricing only what a move changes; none: search as if there
  // were no bound, pricing every move in full (the result is the same when the bound is
  // one and Climb's argument holds; PlanMatrixSmem, which only prices a basis, has none).
  MatrixPlanner(const ConversionProblem& p, const Side& st, const Side& ld,
                BankCostMemo<>& memo, std::optional<std::pair<int64_t, int64_t>> bound)
      : p_(p), st_(st), ld_(ld), memo_(memo), eb_(p.element_bytes()),
        n_(p.elem_bits_log2),
        row_bit_(std::countr_zero(16u / static_cast<uint32_t>(p.element_bytes()))),
        bound_(bound.value_or(std::make_pair(int64_t{-1}, int64_t{-1}))),  // -1: never reached
        full_(!bound.has_value()) {}

  // (wavefronts, instructions) of a basis, given as its sides' accesses.
  std::pair<int64_t, int64_t> Score(const Access& a, const Access& b) const {
    return {int64_t{a.cost.wavefronts} * a.per_thread * st_.warps +
                int64_t{b.cost.wavefronts} * b.per_thread * ld_.warps,
            a.per_thread + b.per_thread};
  }
  // Requires: both sides fit the basis behind `m`.
  Access StoreAccess(const Map& m) const {
    return *SideAccess(st_, SideImages(st_, m), eb_, memo_);
  }
  Access LoadAccess(const Map& m) const {
    return *SideAccess(ld_, SideImages(ld_, m), eb_, memo_);
  }

  // The best basis found from the base orders, or empty when none fits; `score`: its
  // Score.
  std::vector<uint32_t> Search(std::pair<int64_t, int64_t>* score) const {
    const Side& mat = st_.kind != Kind::kPlain ? st_ : ld_;
    const Side& other = &mat == &st_ ? ld_ : st_;
    if (other.kind != Kind::kPlain) {
      for (int i = 0; i < mat.ncols; ++i) if (other.cols[i] != mat.cols[i]) return {};
    }
    std::vector<uint32_t> best;
    std::pair<int64_t, int64_t> best_score{std::numeric_limits<int64_t>::max(),
                                           std::numeric_limits<int64_t>::max()};
    // Each order's basis before its climb, in place (a basis has at most 20 directions);
    // one `basis` for every order, cleared (Search runs for every side-kind candidate).
    absl::InlinedVector<uint32_t, 20> starts[3];
    std::vector<uint32_t> basis;
    basis.reserve(n_);
    for (int order = 0; order < 3; ++order) {
      basis.clear();
      F2Independent span;
      auto add = [&](uint32_t v) {
        if (static_cast<int>(basis.size()) < n_ && v != 0 && span.Add(v)) basis.push_back(v);
      };
      for (int i = 0; i < mat.ncols; ++i) add(mat.cols[i]);
      if (static_cast<int>(basis.size()) != mat.ncols) return {};
      auto rows_of = [&](const Side& s) {
        if (s.kind != Kind::kPlain) for (uint32_t r : s.rows) add(r);
      };
      if (order == 0) rows_of(mat);
      if (order == 1) rows_of(other);
      if (order == 2) for (int j = 0; j < 5; ++j) add(p_.src.lane[j] ^ p_.dst.lane[j]);
      for (const FlatLayout* l : {other.l, mat.l}) for (uint32_t v : l->lane) add(v);
      for (const FlatLayout* l : {other.l, mat.l}) for (uint32_t v : l->reg) add(v);
      for (const FlatLayout* l : {other.l, mat.l}) for (uint32_t v : l->warp) add(v);
      for (int i = 0; i < n_; ++i) add(1u << i);
      if (static_cast<int>(basis.size()) != n_) continue;
      // An order that builds the basis of an earlier one climbs to the same score, which
      // cannot replace the best (no better than it).
      bool seen = false;
      for (int o = 0; o < order && !seen; ++o) {
        seen = std::equal(starts[o].begin(), starts[o].end(), basis.begin(), basis.end());
      }
      starts[order].assign(basis.begin(), basis.end());
      if (seen) continue;
      const auto score = Climb(basis);
      if (score < best_score) {
        best_score = score;
        best = basis;
      }
      // No later order can score strictly less than the bound of every basis.
      if (best_score == bound_) break;
    }
    *score = best_score;
    return best;
  }

 private:
  // XOR swizzles above the 16-byte rows (bank bit j ^= offset bit k, j >= 3), kept while
  // they lower the score. Ensures: the score of the basis it returns in `basis`.
  //
  // A move basis[k] ^= basis[j] (row_bit_ <= j < k) toggles offset bit j of the images
  // that have bit k, and j is at or above every bit SideAccess tests: a matrix side's
  // cols (1 << i, i < ncols <= row_bit_, none has bit k) and its rows' alignment (bits
  // below ncols); a plain side's vector search (images equal to 1 << k', k' < limit =
  // row_bit_: an image with bit k is none, before or after) and its alignment trim (bits
  // below its vector's, at most limit). So a move keeps whether each side fits and its
  // access but for the bank cost, and that too when no image of the cost's key
  // (BankCostEntries) has bit k: the climb prices only the costs a move changes, and
  // passes over a move that changes none (its score is the current one, which it could
  // not lower). A side that does not fit at the start fits under no move. (full_: every
  // move priced by SideAccess, for tests to compare.)
  std::pair<int64_t, int64_t> Climb(std::vector<uint32_t>& basis) const {
    Map m(basis);
    SideImages st(st_, m), ld(ld_, m);
    std::optional<Access> a = SideAccess(st_, st, eb_, memo_);
    std::optional<Access> b = a ? SideAccess(ld_, ld, eb_, memo_) : std::nullopt;
    if (!a || !b) {
      return {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()};
    }
    auto score = Score(*a, *b);
    const uint64_t st_keys = BankCostEntries(st_, st), ld_keys = BankCostEntries(ld_, ld);
    // At the bound no move can lower the score: the climb would end after a pass that
    // finds none.
    for (int pass = 0; pass < 8 && score != bound_; ++pass) {
      bool improved = false;
      for (int j = row_bit_; j < n_ && !improved; ++j) {
        if ((int64_t{eb_} << j) >= 128) break;
        for (int k = j + 1; k < n_ && !improved; ++k) {
          const bool st_cost = !st.moves.tracked() || (st.moves.With(k) & st_keys) != 0;
          const bool ld_cost = !ld.moves.tracked() || (ld.moves.With(k) & ld_keys) != 0;
          if (!st_cost && !ld_cost && !full_) continue;  // keeps the score
          st.Move(j, k);
          ld.Move(j, k);
          Access na = *a, nb = *b;
          std::pair<int64_t, int64_t> s{std::numeric_limits<int64_t>::max(),
                                        std::numeric_limits<int64_t>::max()};
          if (full_) {
            std::optional<Access> fa = SideAccess(st_, st, eb_, memo_);
            std::optional<Access> fb = fa ? SideAccess(ld_, ld, eb_, memo_) : std::nullopt;
            if (fa && fb) {
              na = *fa;
              nb = *fb;
              s = Score(na, nb);
            }
          } else {
            if (st_cost) na.cost = SideBankCost(st_, st, na, eb_, memo_);
            if (ld_cost) nb.cost = SideBankCost(ld_, ld, nb, eb_, memo_);
            s = Score(na, nb);
          }
          if (s < score) {
            basis[k] ^= basis[j];
            score = s;
            a = na;
            b = nb;
            improved = true;
          } else {
            st.Move(j, k);  // undone: the move is an involution
            ld.Move(j, k);
          }
        }
      }
      if (!improved) break;
    }
    return score;
  }

  const ConversionProblem& p_;
  const Side& st_;
  const Side& ld_;
  BankCostMemo<>& memo_;
  int eb_, n_;
  int row_bit_;  // the first offset bit above a 16-byte row
  std::pair<int64_t, int64_t> bound_;  // PairBound (or {-1, -1})
  bool full_;                          // price every move in full (not bounded)
};

// Every warp reads only what it wrote (as the smem planner's WarpLocal).
bool WarpLocal(const ConversionProblem& p, const PlanOptions& o) {
  if (o.force_cta_barrier || p.src.warp != p.dst.warp) return false;
  uint32_t fr, ft;
  p.src.FreeBits(&fr, &ft);
  if (ft >> 5) return false;
  std::vector<uint32_t> sg(p.src.reg), dg(p.dst.reg);
  sg.insert(sg.end(), p.src.lane.begin(), p.src.lane.end());
  dg.insert(dg.end(), p.dst.lane.begin(), p.dst.lane.end());
  F2Span s(sg), d(dg);
  for (uint32_t v : dg) if (!s.Contains(v)) return false;
  for (uint32_t v : sg) if (!d.Contains(v)) return false;
  return true;
}

// Emits one side's accesses: stores of `words` (source word ids) or loads into new words
// (`loaded[unit]`).
void EmitSide(const Side& s, const Access& a, const Map& m, int eb, int buffer, Program& prog,
              const std::vector<int>& words, std::vector<int>* loaded) {
  const FlatLayout& l = *s.l;
  const WordView& v = *s.v;
  std::vector<uint32_t> coeff;
  if (s.kind == Kind::kPlain) {
    for (uint32_t b : l.lane) coeff.push_back(m(b));
  } else {
    for (uint32_t r : s.rows) coeff.push_back(m(r));
    for (size_t i = 0; i < 2; ++i) coeff.push_back(i < s.select.size() ? m(l.reg[s.select[i]]) : 0);
  }
  for (uint32_t b : l.warp) coeff.push_back(m(b));
  SetupValue base;
  base.kind = SetupValue::Kind::kSmemAddr;
  base.coeff = std::move(coeff);
  base.buffer = buffer;
  base.element_bytes = eb;
  uint32_t reach = 0;  // offset bits the thread part can set
  for (uint32_t x : base.coeff) reach |= x;
  int base_id = -1;  // in prog.setup, once added
  // (constant, id in prog.setup) of the base with that constant, once added: the id
  // AddSetup would give it again, without copying the base to ask.
  absl::InlinedVector<std::pair<uint32_t, int>, 8> with_constant;
  // The bits of c the thread part can also set stay in the setup value's constant, the
  // rest is the immediate (SplitAddressConstant).
  auto addr_setup = [&](uint32_t c, Op& op) {
    const AddressSplit a = SplitAddressConstant(c, reach);
    op.imm = a.add * static_cast<uint32_t>(eb);
    if (a.xor_bits == 0) {
      if (base_id < 0) base_id = prog.AddSetup(base);
      op.addr = base_id;
      return;
    }
    for (const auto& [constant, id] : with_constant) {
      if (constant == a.xor_bits) {
        op.addr = id;
        return;
      }
    }
    SetupValue v = base;
    v.constant = a.xor_bits;
    op.addr = prog.AddSetup(v);
    with_constant.push_back({a.xor_bits, op.addr});
  };
  int pred = -1;
  if (s.store && s.free_tid != 0) {
    SetupValue pv;
    pv.kind = SetupValue::Kind::kTidMaskZero;
    pv.mask = s.free_tid;
    pred = prog.AddSetup(pv);
  }
  const std::vector<int> vec = a.Vec();
  for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
    if (r & a.skip) continue;
    Op op;
    op.pred = pred;
    Words units;  // of one instruction: at most 4 (16 bytes, or x4)
    if (s.kind == Kind::kPlain) {
      op.kind = s.store ? OpKind::kStShared : OpKind::kLdShared;
      op.elem_bytes = 4;
      // vec[0..pk) are the word's own slots; the rest pick the words of one access.
      for (uint32_t j = 0; j < (1u << (vec.size() - v.pk())); ++j) {
        units.push_back(static_cast<int>(v.Unit(r | Spread(vec, j, v.pk()))));
      }
    } else {
      op.kind = s.store ? OpKind::kStMatrix : OpKind::kLdMatrix;
      op.trans = s.kind == Kind::kTrans;
      for (uint32_t j = 0; j < (1u << s.select.size()); ++j) {
        units.push_back(static_cast<int>(v.Unit(r | Spread(s.select, j))));
      }
    }
    for (int u : units) {
      if (s.store) {
        op.in.push_back(words[u]);
      } else {
        op.out.push_back(prog.NewWord());
        (*loaded)[u] = op.out.back();
      }
    }
    addr_setup(m(ApplyBasis(l.reg, r)), op);
    prog.ops.push_back(std::move(op));
  }
}

}  // namespace

namespace {

// The matrix planner's choice for a pair of views: the side kinds and the basis.
struct Choice {
  Kind store = Kind::kPlain, load = Kind::kPlain;
  std::vector<uint32_t> basis;  // empty: no candidate fits
};

// Ensures: (w, i) with w <= the wavefronts and i <= the instructions of the side's
// accesses under every basis (SideAccess) the search makes beside `other`, without a
// search. A matrix side's instructions do not depend on the basis, and each of its 8x8
// matrices is at least one wavefront. A plain side covers at most `limit` register bits
// an access (its vector; copies are not accessed), and each lane group with a lane that
// takes part is at least one wavefront.
//
// Beside a matrix side the plain vector is shorter still: its bits k are the offset bits
// whose basis direction is one of its registers' (SideAccess: the register whose image
// is 1 << k), and every basis the search makes starts with the matrix side's cols
// (basis[i] = cols[i], i < ncols: Search puts them first and Climb's moves start at
// row_bit_ = ncols). So the vector has at most as many bits as the longest prefix of
// the matrix side's cols that are directions of the plain side's registers.
std::pair<int64_t, int64_t> SideBound(const Side& s, const Side& other, int eb) {
  const FlatLayout& l = *s.l;
  const uint32_t all_regs = static_cast<uint32_t>(l.num_regs()) - 1;
  if (s.kind != Kind::kPlain) {
    const int64_t per_thread = int64_t{1} << (l.reg_bits() - Popcount((s.Fixed() | s.free_regs) & all_regs));
    return {(int64_t{1} << s.select.size()) * per_thread * s.warps, per_thread};
  }
  // A vector of `a` register bits (a <= limit; the alignment check may narrow it) leaves
  // at least 2^(reg_bits - free - a) accesses a thread, each at least one wavefront per
  // lane group of its width that takes part: the wavefronts are at least the least of
  // these over a, the accesses at least those of the widest vector (as
  // SmemPlanner::Bound).
  int limit = 0;
  while ((eb << (limit + 1)) <= 16) ++limit;
  if (other.kind != Kind::kPlain) {
    int prefix = 0;
    while (prefix < other.ncols && other.cols[prefix] != 0 &&
           std::find(l.reg.begin(), l.reg.end(), other.cols[prefix]) != l.reg.end()) {
      ++prefix;
    }
    limit = std::min(limit, prefix);
  }
  const int free = Popcount(s.free_regs & all_regs);
  int64_t wavefronts = std::numeric_limits<int64_t>::max(), per_thread = 0;
  for (int a = 0; a <= limit; ++a) {
    per_thread = int64_t{1} << (l.reg_bits() - std::min(l.reg_bits(), free + a));
    const int64_t groups = ActiveGroups(s.lanes, static_cast<uint32_t>(eb << a));
    wavefronts = std::min(wavefronts, groups * per_thread * s.warps);
  }
  return {wavefronts, per_thread};
}

// Ensures: the first candidate (store kind, load kind) of least (wavefronts,
// instructions) after its bank search, in the order plain/matrix/trans for the store,
// then the load. Candidates are searched by increasing bound (SideBound), so that a
// search that reaches the bound of those after it spares them; a candidate is not
// searched when it could not replace the best so far (a bound above its score, or equal
// to it for a later candidate). `bounded` false: every candidate is searched, and no
// search stops at its bound (the same choice when SideBound is a lower bound; plan_test
// compares the two through PlanOptions::price_all).
Choice Choose(const ConversionProblem& p, const WordView& sv, const WordView& dv,
              bool bounded) {
  struct Candidate {
    int index;
    Kind store, load;
    Side st, ld;
    std::pair<int64_t, int64_t> bound;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(8);
  // Each side of each kind once, with its bound.
  std::optional<Side> sts[3], lds[3];
  MakeSides(p, sv, dv, sts, lds);
  int index = 0;
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) {
      ++index;
      if (i == 0 && k == 0) continue;
      if (!sts[i] || !lds[k]) continue;
      candidates.push_back(Candidate{index, kKinds[i], kKinds[k], *sts[i], *lds[k],
                                     PairBound(*sts[i], *lds[k], p.element_bytes())});
    }
  }
  // By bound, ties in candidate order (a stable sort of their places: a Candidate
  // carries both its sides).
  absl::InlinedVector<size_t, 8> by_bound(candidates.size());
  for (size_t i = 0; i < by_bound.size(); ++i) by_bound[i] = i;
  std::stable_sort(by_bound.begin(), by_bound.end(), [&](size_t a, size_t b) {
    return candidates[a].bound < candidates[b].bound;
  });
  Choice best;
  std::pair<int64_t, int64_t> best_score;
  int best_index = 0;
  BankCostMemo<> memo;  // the bank costs of every candidate's sides
  for (const size_t at : by_bound) {
    const Candidate& c = candidates[at];
    if (bounded && !best.basis.empty() &&
        (c.bound > best_score || (c.bound == best_score && c.index > best_index))) {
      continue;
    }
    MatrixPlanner planner(p, c.st, c.ld, memo,
                          bounded ? std::optional(c.bound) : std::nullopt);
    std::pair<int64_t, int64_t> score;
    std::vector<uint32_t> basis = planner.Search(&score);
    if (basis.empty()) continue;
    if (!best.basis.empty() &&
        (score > best_score || (score == best_score && c.index > best_index))) {
      continue;
    }
    best = Choice{c.store, c.load, std::move(basis)};
    best_score = score;
    best_index = c.index;
  }
  return best;
}

// The choice for (sv, dv), from `memo` when it has it (null: no memo).
Choice Memoised(const ConversionProblem& p, const WordView& sv, const WordView& dv,
                SearchMemo* memo, bool bounded) {
  if (memo != nullptr) {
    for (const SearchMemo::Matrix& e : memo->matrix) {
      if (e.sv == sv && e.dv == dv) {
        return Choice{static_cast<Kind>(e.store_kind), static_cast<Kind>(e.load_kind), e.basis};
      }
    }
  }
  Choice c = Choose(p, sv, dv, bounded);
  if (memo != nullptr) {
    memo->matrix.push_back(SearchMemo::Matrix{sv, dv, static_cast<int>(c.store),
                                              static_cast<int>(c.load), c.basis});
  }
  return c;
}

// Why PlanMatrixSmem has no plan for (sv, dv) under `options` before any search; "" when
// it may have one.
const char* NotApplicable(const ConversionProblem& p, const WordView& sv, const WordView& dv,
                          const PlanOptions& options) {
  const bool packed16 = p.element_bits == 16 && sv.pk() == 1 && dv.pk() == 1;
  const bool wide = p.element_bits == 32 && sv.pk() == 0 && dv.pk() == 0;
  if (!packed16 && !wide) {
    return "smem/matrix: stmatrix/ldmatrix need 16-bit elements packed two to a word, or "
           "32-bit elements (pairs of 16-bit halves)";
  }
  if (options.no_swizzle || (options.max_vector_bytes > 0 && options.max_vector_bytes < 16)) {
    return "smem/matrix: the options ask for plain accesses";
  }
  return "";
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> MatrixSmemAccessBound(const ConversionProblem& p,
                                                                 const WordView& sv,
                                                                 const WordView& dv,
                                                                 const PlanOptions& options) {
  if (*NotApplicable(p, sv, dv, options) != '\0') return std::nullopt;
  // The candidates Choose searches: each (store kind, load kind) but plain/plain.
  std::optional<Side> sts[3], lds[3];
  MakeSides(p, sv, dv, sts, lds);
  std::optional<std::pair<int64_t, int64_t>> bound;
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) {
      if ((i == 0 && k == 0) || !sts[i] || !lds[k]) continue;
      const auto [w, a] = PairBound(*sts[i], *lds[k], p.element_bytes());
      bound = bound ? std::make_pair(std::min(bound->first, w), std::min(bound->second, a))
                    : std::make_pair(w, a);
    }
  }
  return bound;
}

absl::StatusOr<MatrixSmemPlan> PlanMatrixSmem(const ConversionProblem& p, const WordView& sv,
                                              const WordView& dv, const PlanOptions& options,
                                              SmemStage* stage) {
  if (const char* why = NotApplicable(p, sv, dv, options); *why != '\0') {
    return absl::InvalidArgumentError(why);
  }
  const Choice choice = Memoised(p, sv, dv, options.memo, !options.price_all);
  if (choice.basis.empty()) {
    return absl::InvalidArgumentError(
        "smem/matrix: neither side fits an 8x8 matrix tile (pack bit and lanes 0-1, or "
        "lanes 2-4 for .trans, along the shared layout's 16-byte rows)");
  }
  const std::vector<uint32_t>& basis = choice.basis;
  const std::optional<Side> st = MakeSide(p, true, sv, choice.store, FreeBitsOf(p.src));
  const std::optional<Side> ld = MakeSide(p, false, dv, choice.load, FreeBitsOf(p.dst));
  BankCostMemo<> memo;
  MatrixPlanner planner(p, *st, *ld, memo, std::nullopt);
  Map m(basis);
  Access sa = planner.StoreAccess(m), la = planner.LoadAccess(m);
  MatrixSmemPlan plan;
  Program& prog = plan.program;
  for (int i = 0; i < sv.words(); ++i) prog.inputs.push_back(prog.NewWord());
  prog.smem_bytes = p.num_elements() * p.element_bytes();
  const bool warp_local = WarpLocal(p, options);
  // (Made in place: moving a fresh Op copies its empty InlinedVectors' inline storage,
  // which gcc 12 reported as maybe uninitialised.)
  auto barrier = [&] {
    prog.ops.emplace_back().kind = warp_local ? OpKind::kBarWarp : OpKind::kBarSync;
  };
  if (options.barrier_before_store) barrier();
  std::vector<int> inputs = prog.inputs;
  EmitSide(*st, sa, m, p.element_bytes(), options.buffer, prog, inputs, nullptr);
  barrier();
  std::vector<int> loaded(static_cast<size_t>(dv.words()), -1);
  EmitSide(*ld, la, m, p.element_bytes(), options.buffer, prog, {}, &loaded);
  // Broadcast copies (plain loads only): the word of the canonical register.
  F2Span dspan(p.dst.reg);
  for (int u = 0; u < dv.words(); ++u) {
    int w = loaded[u];
    if (w < 0) {
      uint32_t canon = *dspan.Solve(ApplyBasis(p.dst.reg, dv.Reg(u, 0)));
      w = loaded[dv.Unit(canon)];
    }
    prog.outputs.push_back(w);
  }
  const int rounds = ChunkSharedRounds(prog, options.max_scratch_bytes);
  if (rounds > 1) stage->set_rounds(rounds);
  plan.wavefronts_store = int64_t{sa.cost.wavefronts} * sa.per_thread * st->warps;
  plan.wavefronts_load = int64_t{la.cost.wavefronts} * la.per_thread * ld->warps;
  plan.min_store = int64_t{sa.cost.minimum} * sa.per_thread * st->warps;
  plan.min_load = int64_t{la.cost.minimum} * la.per_thread * ld->warps;
  plan.cta_barrier = !warp_local;
  stage->clear_offset_basis();
  for (uint32_t b : basis) stage->add_offset_basis(b);
  stage->set_store_vector_bytes(choice.store == Kind::kPlain ? p.element_bytes() << sa.a : 16);
  stage->set_load_vector_bytes(choice.load == Kind::kPlain ? p.element_bytes() << la.a : 16);
  stage->set_warp_local(warp_local);
  stage->set_store_predicate_mask(st->free_tid);
  return plan;
}

}  // namespace warpcheck::sim::plan
