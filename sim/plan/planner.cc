#include "sim/plan/planner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/bank/bank_model.h"
#include "sim/base/status_macros.h"
#include "sim/layout/layout_proto.h"
#include "sim/plan/f2_span.h"
#include "sim/plan/lane_cost.h"
#include "sim/plan/matrix.h"
#include "sim/plan/triton_floor.h"

namespace warpcheck::sim::plan {

absl::StatusOr<Strategy> ParseStrategy(absl::string_view text) {
  if (text == "auto") return Strategy::kAuto;
  if (text == "registers") return Strategy::kRegisters;
  if (text == "shuffle") return Strategy::kShuffle;
  if (text == "smem") return Strategy::kSmem;
  return absl::InvalidArgumentError(absl::StrCat(
      "--strategy=", text, ": expected auto, registers, shuffle or smem"));
}

std::string StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kAuto: return "auto";
    case Strategy::kRegisters: return "registers";
    case Strategy::kShuffle: return "shuffle";
    case Strategy::kSmem: return "smem";
  }
  return "?";
}

// Unit and Reg gather and scatter the register bits outside the pack; the planners and the
// code generator call them for every word they place, so the usual views take a shift:
// no pack (a unit is the register) or the pack in the lowest bits (ViewOf's packed views).
uint32_t WordView::Unit(uint32_t r) const {
  const uint32_t pack_mask = PackMask();
  const uint32_t regs = reg_bits >= 32 ? ~0u : (1u << reg_bits) - 1;
  if ((pack_mask & (pack_mask + 1)) == 0) return (r & regs) >> Popcount(pack_mask);
  uint32_t u = 0;
  int k = 0;
  for (int i = 0; i < reg_bits; ++i) {
    if ((pack_mask >> i) & 1) continue;
    if ((r >> i) & 1) u |= 1u << k;
    ++k;
  }
  return u;
}

uint32_t WordView::Slot(uint32_t r) const {
  uint32_t s = 0;
  for (int k = 0; k < pk(); ++k) if ((r >> pack[k]) & 1) s |= 1u << k;
  return s;
}

uint32_t WordView::Reg(uint32_t unit, uint32_t slot) const {
  const uint32_t pack_mask = PackMask();
  uint32_t r = 0;
  if ((pack_mask & (pack_mask + 1)) == 0) {
    const int low = Popcount(pack_mask);
    const int unit_bits = reg_bits - low;
    r = (unit_bits >= 32 ? unit : unit & ((1u << unit_bits) - 1)) << low;
  } else {
    int k = 0;
    for (int i = 0; i < reg_bits; ++i) {
      if ((pack_mask >> i) & 1) continue;
      if ((unit >> k) & 1) r |= 1u << i;
      ++k;
    }
  }
  for (int j = 0; j < pk(); ++j) if ((slot >> j) & 1) r |= 1u << pack[j];
  return r;
}

WordView ViewOf(const FlatLayout& l, int element_bits, bool packed) {
  WordView v;
  v.reg_bits = l.reg_bits();
  if (element_bits == 64) {
    v.upw = 2;
  } else if (packed && element_bits < 32) {
    // Only full words: a word of fewer elements than fit would be accessed as 4 bytes
    // holding fewer (regression: 64 i8 with one register bit, corpus/plan lines 1112,
    // 1472, misaligned 4-byte shared accesses).
    const int pk = element_bits == 8 ? 2 : 1;
    if (v.reg_bits >= pk) {
      for (int i = 0; i < pk; ++i) v.pack.push_back(i);
    }
  }
  return v;
}

std::optional<WordView> ViewPacking(const FlatLayout& l, int element_bits,
                                    const std::vector<uint32_t>& dirs) {
  WordView v;
  v.reg_bits = l.reg_bits();
  if (element_bits >= 32) return std::nullopt;
  for (uint32_t d : dirs) {
    int found = -1;
    for (int i = 0; i < l.reg_bits() && found < 0; ++i) if (l.reg[i] == d && d != 0) found = i;
    if (found < 0) return std::nullopt;
    v.pack.push_back(found);
  }
  return v;
}

std::vector<std::pair<WordView, WordView>> CandidateViews(const ConversionProblem& p,
                                                          const PlanOptions& options) {
  if (options.views.has_value()) return {*options.views};
  std::vector<std::pair<WordView, WordView>> out;
  auto add = [&](const WordView& a, const WordView& b) {
    const bool packed = a.pk() > 0 || b.pk() > 0;
    if (options.packed.has_value() && *options.packed != packed) return;
    for (const auto& c : out) if (c.first == a && c.second == b) return;
    out.emplace_back(a, b);
  };
  add(ViewOf(p.src, p.element_bits, false), ViewOf(p.dst, p.element_bits, false));
  if (p.element_bits >= 32) return out;
  const int want = p.element_bits == 8 ? 2 : 1;
  // Directions both layouts keep in registers, in the source's order.
  std::vector<uint32_t> common;
  for (uint32_t d : p.src.reg) {
    if (d == 0 || static_cast<int>(common.size()) >= want) continue;
    if (std::find(p.dst.reg.begin(), p.dst.reg.end(), d) != p.dst.reg.end() &&
        std::find(common.begin(), common.end(), d) == common.end()) {
      common.push_back(d);
    }
  }
  if (static_cast<int>(common.size()) == want) {
    auto a = ViewPacking(p.src, p.element_bits, common);
    auto b = ViewPacking(p.dst, p.element_bits, common);
    if (a && b) add(*a, *b);
  }
  add(ViewOf(p.src, p.element_bits, true), ViewOf(p.dst, p.element_bits, true));
  // Each side's lowest registers of its own: where the lowest register bits hold
  // broadcast copies, the view above packs an element with its copy (64x1 mma and
  // blocked layouts; the matrix planner needs a pack bit that is no copy).
  auto own = [&](const FlatLayout& l) -> std::optional<WordView> {
    uint32_t free_regs = 0, free_tid = 0;
    l.FreeBits(&free_regs, &free_tid);
    std::vector<uint32_t> dirs;
    for (int i = 0; i < l.reg_bits() && static_cast<int>(dirs.size()) < want; ++i) {
      if (!((free_regs >> i) & 1)) dirs.push_back(l.reg[i]);
    }
    if (static_cast<int>(dirs.size()) < want) return std::nullopt;
    return ViewPacking(l, p.element_bits, dirs);
  };
  if (auto a = own(p.src), b = own(p.dst); a && b) add(*a, *b);
  return out;
}

namespace {

using LaneTable = std::array<int, 32>;

// Builds select trees over lane predicates, sharing equal trees.
//
// A table is kept as its choices: each distinct word it wants with the mask of the lanes
// that want it, ordered by their lowest lane. That is the table itself (the masks are
// disjoint; lanes in none want any word), in a canonical order, so it keys the memo of
// trees; splitting a table on a lane functional masks each choice's lanes. Every step
// costs the few choices a table has instead of its 32 lanes (the in-warp pairs build
// thousands of trees a plan).
class SelectBuilder {
 public:
  explicit SelectBuilder(Program* prog) : prog_(prog) {}

  // table[l]: the word lane l wants (-1: any). Ensures: a word holding table[l] in every
  // lane l with table[l] >= 0; selps only where the choice depends on the lane.
  int Build(const LaneTable& table) {
    Choices c;
    for (uint32_t l = 0; l < 32; ++l) {
      if (table[l] < 0) continue;
      int i = 0;
      while (i < c.n && Word(c.v[i]) != table[l]) ++i;
      if (i == c.n) c.v[c.n++] = uint64_t{static_cast<uint32_t>(table[l])} << 32;
      c.v[i] |= uint64_t{1} << l;
    }
    return Build(c);
  }

 private:
  // A choice: the word (high 32 bits) and the mask of the lanes that want it (low). At
  // most 32 (one a lane), in place: the in-warp pairs split thousands of tables, and a
  // heap list per table and half was most of a split's cost.
  struct Choices {
    int n = 0;
    uint64_t v[32];
  };
  static int Word(uint64_t choice) { return static_cast<int>(choice >> 32); }
  static uint32_t Lanes(uint64_t choice) { return static_cast<uint32_t>(choice); }

  // Requires: `c` canonical (nonempty masks, ordered by lowest lane).
  int Build(const Choices& c) {
    if (c.n == 0) return -1;
    if (c.n == 1) return Word(c.v[0]);
    const uint64_t hash = Hash(c);
    if (const int known = Find(c, hash); known != kNone) return known;
    // The lane functional that splits the choices best, counted per choice (a choice
    // counts in a half when one of its lanes is there).
    const int d = c.n;
    int best_u = -1;
    std::pair<int, int> best_score{1 << 30, 1 << 30};
    // Single lane bits first (the usual case); every lane functional only when no single
    // bit halves the choices. Splits that leave a half without choices are no progress.
    auto try_split = [&](uint32_t u) {
      int d0 = 0, d1 = 0;
      for (int i = 0; i < d; ++i) {
        d1 += (Lanes(c.v[i]) & kOdd[u]) != 0;
        d0 += (Lanes(c.v[i]) & ~kOdd[u]) != 0;
      }
      if (d0 == 0 || d1 == 0) return;
      std::pair<int, int> score{std::max(d0, d1), d0 + d1};
      if (score < best_score) {
        best_score = score;
        best_u = static_cast<int>(u);
      }
    };
    for (uint32_t u = 1; u < 32; u <<= 1) try_split(u);
    if (best_u < 0 || best_score.first >= d) {
      for (uint32_t u = 1; u < 32; ++u) if (!SingleBit(u)) try_split(u);
    }
    if (best_u < 0) best_u = 1;  // cannot happen for tables with two values; be safe
    Choices half;
    Half(c, kOdd[best_u], half);
    const int a = Build(half);
    Half(c, ~kOdd[best_u], half);
    const int b = Build(half);
    int out;
    if (a < 0) {
      out = b;
    } else if (b < 0) {
      out = a;
    } else {
      SetupValue pred;
      pred.kind = SetupValue::Kind::kTidParity;
      pred.mask = static_cast<uint32_t>(best_u);
      Op op;
      op.kind = OpKind::kSelp;
      op.pred = prog_->AddSetup(pred);
      op.in = {a, b};
      out = prog_->NewWord();
      op.out = {out};
      prog_->ops.push_back(std::move(op));
    }
    Remember(c, hash, out);
    return out;
  }

  // Ensures: `h`, the canonical choices of the lanes of `lanes` only.
  static void Half(const Choices& c, uint32_t lanes, Choices& h) {
    h.n = 0;
    for (int k = 0; k < c.n; ++k) {
      const uint32_t m = Lanes(c.v[k]) & lanes;
      if (m == 0) continue;
      // Ordered by lowest lane: insert before the first choice whose lowest lane is higher.
      const uint64_t y = (c.v[k] & ~uint64_t{0xffffffffu}) | m;
      int i = h.n;
      while (i > 0 && std::countr_zero(Lanes(h.v[i - 1])) > std::countr_zero(m)) {
        h.v[i] = h.v[i - 1];
        --i;
      }
      h.v[i] = y;
      ++h.n;
    }
  }

  // kOdd[u]: the lanes l with Parity(l & u).
  static constexpr std::array<uint32_t, 32> kOdd = [] {
    std::array<uint32_t, 32> odd{};
    for (uint32_t u = 0; u < 32; ++u) {
      for (uint32_t l = 0; l < 32; ++l) odd[u] |= uint32_t{Parity(l & u)} << l;
    }
    return odd;
  }();

  static uint64_t Hash(const Choices& c) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < c.n; ++i) {
      h = (h ^ c.v[i]) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 29;
    }
    return h;
  }

  // The memo of trees: choices (in `choices_`) by hash, those of one hash chained.
  static constexpr int kNone = -2;  // not built yet (-1 is a tree: "any word")
  struct Tree {
    uint32_t begin = 0;  // in choices_
    int n = 0;
    int out = -1;
    int next = -1;  // the next tree of the same hash
  };
  int Find(const Choices& c, uint64_t hash) const {
    const auto it = heads_.find(hash);
    if (it == heads_.end()) return kNone;
    for (int t = it->second; t >= 0; t = trees_[t].next) {
      const Tree& tree = trees_[t];
      if (tree.n == c.n && std::equal(c.v, c.v + c.n, choices_.begin() + tree.begin)) {
        return tree.out;
      }
    }
    return kNone;
  }
  void Remember(const Choices& c, uint64_t hash, int out) {
    const int t = static_cast<int>(trees_.size());
    trees_.push_back(Tree{static_cast<uint32_t>(choices_.size()), c.n, out, -1});
    choices_.insert(choices_.end(), c.v, c.v + c.n);
    auto [it, fresh] = heads_.try_emplace(hash, t);
    if (!fresh) {
      trees_[t].next = it->second;
      it->second = t;
    }
  }

  Program* prog_;
  absl::flat_hash_map<uint64_t, int> heads_;  // hash -> its latest tree
  std::vector<Tree> trees_;
  std::vector<uint64_t> choices_;
};

Op BarrierOp(bool warp_level) {
  Op op;
  op.kind = warp_level ? OpKind::kBarWarp : OpKind::kBarSync;
  return op;
}

void InitInputs(Program& prog, const WordView& sv) {
  prog.inputs.clear();
  prog.inputs.reserve(static_cast<size_t>(sv.words()));
  for (int i = 0; i < sv.words(); ++i) prog.inputs.push_back(prog.NewWord());
}

// Word id of element slot: builds destination words from (source word, slot) pairs with
// prmt, renaming when a whole word matches.
class WordAssembler {
 public:
  WordAssembler(Program* prog, int element_bits) : prog_(prog), eb_(element_bits / 8) {}

  // parts[s] = (source word id, source slot, source elements per word) for dst slot s.
  int Assemble(const std::vector<std::tuple<int, int, int>>& parts) {
    const int slots = static_cast<int>(parts.size());
    // Rename when the whole word (or, for one slot, its low bits) is already in place.
    auto [w0, s0, e0] = parts[0];
    bool same = true;
    for (int s = 0; s < slots; ++s) {
      auto [w, t, e] = parts[s];
      if (w != w0 || t != s || (slots > 1 && e != slots)) same = false;
    }
    if (same && (slots > 1 || s0 == 0)) return w0;
    auto it = memo_.find(parts);
    if (it != memo_.end()) return it->second;
    // prmt chain: acc starts as the first part's word.
    std::vector<int> words;
    for (auto [w, t, e] : parts) {
      if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
    }
    int acc = -1;
    uint32_t acc_has = 0;  // slots already right in acc
    for (size_t i = 0; i < words.size(); i += (acc < 0 ? 2 : 1)) {
      int a = acc < 0 ? words[i] : acc;
      int b = acc < 0 ? (i + 1 < words.size() ? words[i + 1] : words[i]) : words[i];
      uint32_t sel = 0;
      for (int s = 0; s < slots; ++s) {
        auto [w, t, e] = parts[s];
        for (int j = 0; j < eb_; ++j) {
          int byte = s * eb_ + j;
          uint32_t src;
          if (acc >= 0 && ((acc_has >> s) & 1)) {
            src = byte;  // keep acc's byte
          } else if (acc < 0 && w == a) {
            src = t * eb_ + j;
          } else if (w == b) {
            src = 4 + t * eb_ + j;
          } else {
            src = byte;  // filled later
          }
          sel |= src << (4 * byte);
        }
      }
      for (int s = 0; s < slots; ++s) {
        auto [w, t, e] = parts[s];
        if ((acc < 0 && (w == a || w == b)) || (acc >= 0 && w == b)) acc_has |= 1u << s;
      }
      // Bytes above the slots (unpacked words) keep byte 0's pattern: any value works.
      for (int byte = slots * eb_; byte < 4; ++byte) sel |= uint32_t(byte) << (4 * byte);
      Op op;
      op.kind = OpKind::kPrmt;
      op.in = {a, b};
      op.imm = sel & 0xffff;
      acc = prog_->NewWord();
      op.out = {acc};
      prog_->ops.push_back(std::move(op));
      if (acc_has == (1u << slots) - 1) break;
    }
    memo_[parts] = acc;
    return acc;
  }

 private:
  Program* prog_;
  int eb_;
  std::map<std::vector<std::tuple<int, int, int>>, int> memo_;
};

// ---- registers ------------------------------------------------------------------------

absl::StatusOr<Program> PlanRegisters(const ConversionProblem& p, const WordView& sv,
                                      const WordView& dv) {
  if (p.src.lane != p.dst.lane || p.src.warp != p.dst.warp) {
    return absl::InvalidArgumentError(
        "registers: the layouts place elements on different lanes or warps, so data must "
        "leave the thread");
  }
  F2Span span(p.src.reg);
  Program prog;
  InitInputs(prog, sv);
  std::vector<uint32_t> src_reg(p.dst.num_regs());
  for (uint32_t r = 0; r < src_reg.size(); ++r) {
    auto combo = span.Solve(ApplyBasis(p.dst.reg, r));
    if (!combo) {
      return absl::InvalidArgumentError(
          "registers: a destination register holds an element no register of the same "
          "thread holds");
    }
    src_reg[r] = *combo;
  }
  WordAssembler asmb(&prog, p.element_bits);
  for (int u = 0; u < dv.units(); ++u) {
    if (dv.upw == 2) {
      uint32_t r = src_reg[u];
      prog.outputs.push_back(prog.inputs[2 * r]);
      prog.outputs.push_back(prog.inputs[2 * r + 1]);
      continue;
    }
    std::vector<std::tuple<int, int, int>> parts;
    for (int s = 0; s < (1 << dv.pk()); ++s) {
      uint32_t r = src_reg[dv.Reg(u, s)];
      parts.emplace_back(prog.inputs[sv.Unit(r)], sv.Slot(r), 1 << sv.pk());
    }
    prog.outputs.push_back(asmb.Assemble(parts));
  }
  return prog;
}

// ---- shuffle --------------------------------------------------------------------------

uint32_t ApplyCols(const std::vector<uint32_t>& cols, uint32_t x) { return ApplyBasis(cols, x); }

// The conversion inside a warp as a bit matrix over (destination word, lane): column i
// of `mrr`/`mlr` is the source word/lane bits of destination word bit i, column j of
// `mrl`/`mll` those of destination lane bit j (F2-linear; free choices 0).
struct ShuffleMatrix {
  std::vector<uint32_t> mrr, mlr, mrl, mll;
  uint32_t zero_cols = 0;  // destination word bits that only copy (both columns zero)
  // (word, lane) combinations of the source that hold nothing new (a lane or register
  // that holds copies: its basis is a combination of the others), with a lane part:
  // adding one to a column is another solution of the same conversion.
  std::vector<std::pair<uint32_t, uint32_t>> null;
};

absl::StatusOr<ShuffleMatrix> SolveShuffleMatrix(const ConversionProblem& p,
                                                 const WordView& sv, const WordView& dv) {
  if (p.src.warp != p.dst.warp) {
    return absl::InvalidArgumentError(
        "shuffle: the layouts place elements on different warps; shuffles stay in a warp");
  }
  if (sv.pk() != dv.pk()) {
    return absl::InvalidArgumentError("shuffle: the two sides pack words differently");
  }
  const int pk = sv.pk();
  for (int i = 0; i < pk; ++i) {
    if (p.src.reg[sv.pack[i]] != p.dst.reg[dv.pack[i]] || p.src.reg[sv.pack[i]] == 0) {
      return absl::InvalidArgumentError(
          "shuffle: packed words would have to be split (the sides pack different "
          "directions)");
    }
  }
  const int nus = sv.reg_bits - pk, nud = dv.reg_bits - pk;
  std::vector<uint32_t> gens, src_units, dst_units;
  for (int i = 0; i < sv.reg_bits; ++i) if (!((sv.PackMask() >> i) & 1)) src_units.push_back(p.src.reg[i]);
  for (int i = 0; i < dv.reg_bits; ++i) if (!((dv.PackMask() >> i) & 1)) dst_units.push_back(p.dst.reg[i]);
  gens = src_units;
  for (uint32_t b : p.src.lane) gens.push_back(b);
  for (int i = 0; i < pk; ++i) gens.push_back(p.src.reg[sv.pack[i]]);
  F2Span span;
  const uint32_t reg_mask = (1u << nus) - 1;
  ShuffleMatrix m;
  for (size_t k = 0; k < gens.size(); ++k) {
    const std::optional<uint32_t> earlier = span.Solve(gens[k]);
    span.Add(gens[k]);
    if (!earlier) continue;
    const uint32_t combo = *earlier | (1u << k);
    if ((combo >> (nus + 5)) == 0 && ((combo >> nus) & 31) != 0) {
      m.null.emplace_back(combo & reg_mask, (combo >> nus) & 31);
    }
  }
  auto solve = [&](uint32_t target, uint32_t* rho, uint32_t* sigma) -> bool {
    auto combo = span.Solve(target);
    if (!combo || (*combo >> (nus + 5)) != 0) return false;
    *rho = *combo & reg_mask;
    *sigma = (*combo >> nus) & 31;
    return true;
  };
  std::vector<uint32_t>& mrr = m.mrr;
  std::vector<uint32_t>& mlr = m.mlr;
  std::vector<uint32_t>& mrl = m.mrl;
  std::vector<uint32_t>& mll = m.mll;
  mrr.resize(nud);
  mlr.resize(nud);
  mrl.resize(5);
  mll.resize(5);
  for (int i = 0; i < nud; ++i) {
    if (!solve(dst_units[i], &mrr[i], &mlr[i])) {
      return absl::InvalidArgumentError(
          "shuffle: a destination element is not held by the same warp (or would split a "
          "packed word)");
    }
  }
  for (int j = 0; j < 5; ++j) {
    if (!solve(p.dst.lane[j], &mrl[j], &mll[j])) {
      return absl::InvalidArgumentError(
          "shuffle: a destination element is not held by the same warp");
    }
  }
  for (int i = 0; i < nud; ++i) if (mrr[i] == 0 && mlr[i] == 0) m.zero_cols |= 1u << i;
  return m;
}

// How the shuffle schemes of one conversion are ranked: by the search objective
// (Cost::score, per warp and times four: an instruction weighs 1, a shuffle 4 more, since
// it also takes the shared-memory pipe), then by fewer instructions. Ranking by op count
// alone kept two shfl.idx a word (l0672: 64 shuffles) over one butterfly for two words
// and two selects (32 shuffles, 96 instructions), which Triton's faster kernel does.
using SchemeKey = std::pair<int64_t, int64_t>;
constexpr SchemeKey kNoLimit{INT64_MAX, INT64_MAX};
SchemeKey KeyOf(const Program& prog) {
  const OpCounts c = CountOps(prog);
  return {c.total() + 4 * c.shfl, c.total()};
}

// The shuffle schemes are built to compare their keys; a scheme stops as soon as its key
// reaches `limit`, the best so far (it cannot be chosen then: ops are only added, and each
// adds 1 to 5 to the first part of the key). One per program being built: every op kind
// counts once in OpCounts::total (so the total is the op count), and the shuffles are
// counted over the ops added since the last check.
class OverLimit {
 public:
  explicit OverLimit(const SchemeKey& limit) : limit_(limit) {}
  // Ensures: ResourceExhausted when KeyOf(prog) >= the limit.
  absl::Status operator()(const Program& prog) {
    const int64_t total = static_cast<int64_t>(prog.ops.size());
    if (limit_.first == INT64_MAX || 5 * total < limit_.first) return absl::OkStatus();
    for (; scanned_ < prog.ops.size(); ++scanned_) {
      const OpKind k = prog.ops[scanned_].kind;
      shfl_ += k == OpKind::kShflBfly || k == OpKind::kShflIdx;
    }
    return SchemeKey{total + 4 * shfl_, total} >= limit_
               ? absl::ResourceExhaustedError("shuffle: no better than a scheme already built")
               : absl::OkStatus();
  }

 private:
  SchemeKey limit_;
  size_t scanned_ = 0;
  int64_t shfl_ = 0;
};

// A butterfly round one destination word asks for: each receiver lane l gets
// send[l ^ delta] from lane l ^ delta, into tables[slot][l].
struct BflyRequest {
  size_t slot;
  uint32_t delta;
  LaneTable send;
  uint32_t receivers;
};

// (sent word, lane-index setup) -> the word a shfl.idx received.
using IdxMemo = std::map<std::pair<int, int>, int>;

// The shfl.idx rounds of destination word `rp` (half `h`; sigma/rho: lane l's element is
// word rho[l] of lane sigma[l]): one round, or more where receivers of one lane want
// different words from it (broadcast lanes), each serving the lanes whose sender is free.
// `all_idx`: local lanes read through the round too. Ensures: table[l] holds what lane l
// received, for every lane that reads.
absl::Status IdxRounds(const ShuffleMatrix& mat, uint32_t rp, const uint32_t sigma[32],
                       const uint32_t rho[32], int upw, int h, bool all_idx,
                       SelectBuilder& sel, IdxMemo& memo, Program& prog, LaneTable& table) {
  SetupValue lane_index;
  lane_index.kind = SetupValue::Kind::kTidLinear;
  lane_index.coeff.assign(mat.mll.begin(), mat.mll.end());
  lane_index.constant = ApplyCols(mat.mlr, rp);
  const int lane_setup = prog.AddSetup(lane_index);
  uint32_t pending = 0;
  for (uint32_t l = 0; l < 32; ++l) if (sigma[l] != l || all_idx) pending |= 1u << l;
  for (int round = 0; pending != 0; ++round) {
    if (round == 4) {
      return absl::InvalidArgumentError("shuffle: two lanes want different words "
                                        "from one lane in more than four rounds");
    }
    LaneTable send;
    send.fill(-1);
    uint32_t served = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!((pending >> l) & 1)) continue;
      int want = prog.inputs[rho[l] * upw + h];
      if (send[sigma[l]] >= 0 && send[sigma[l]] != want) continue;
      send[sigma[l]] = want;
      served |= 1u << l;
    }
    const int value = sel.Build(send);
    auto [it, fresh] = memo.try_emplace({value, lane_setup}, -1);
    if (fresh) {
      Op op;
      op.kind = OpKind::kShflIdx;
      op.addr = lane_setup;
      op.in = {value};
      it->second = prog.NewWord();
      op.out = {it->second};
      prog.ops.push_back(std::move(op));
    }
    for (uint32_t l = 0; l < 32; ++l) if ((served >> l) & 1) table[l] = it->second;
    pending &= ~served;
  }
  return absl::OkStatus();
}

// Merges the butterfly rounds of one offset whose send tables agree wherever both send
// (one word a lane owes for one destination word, another for a second: Triton's "ship"
// transposition), emits one shfl.bfly per group, and points each request's receivers at
// what it received.
absl::Status EmitButterflies(const std::vector<BflyRequest>& requests, OverLimit& over,
                             SelectBuilder& sel, Program& prog,
                             std::vector<LaneTable>& tables) {
  std::vector<std::vector<size_t>> groups;
  std::vector<LaneTable> merged;
  for (size_t i = 0; i < requests.size(); ++i) {
    size_t g = 0;
    for (; g < groups.size(); ++g) {
      if (requests[groups[g][0]].delta != requests[i].delta) continue;
      bool ok = true;
      for (int l = 0; l < 32 && ok; ++l) {
        ok = merged[g][l] < 0 || requests[i].send[l] < 0 || merged[g][l] == requests[i].send[l];
      }
      if (ok) break;
    }
    if (g == groups.size()) {
      groups.emplace_back();
      merged.emplace_back();
      merged.back().fill(-1);
    }
    groups[g].push_back(i);
    for (int l = 0; l < 32; ++l) if (requests[i].send[l] >= 0) merged[g][l] = requests[i].send[l];
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    Op op;
    op.kind = OpKind::kShflBfly;
    op.imm = requests[groups[g][0]].delta;
    op.in = {sel.Build(merged[g])};
    const int got = prog.NewWord();
    op.out = {got};
    prog.ops.push_back(std::move(op));
    for (size_t i : groups[g]) {
      for (uint32_t l = 0; l < 32; ++l) {
        if ((requests[i].receivers >> l) & 1) tables[requests[i].slot][l] = got;
      }
    }
    RETURN_IF_ERROR(over(prog));
  }
  return absl::OkStatus();
}

// The direct scheme: one round per destination word and lane offset; a lane whose
// element is already local takes it from its own words. `all_idx`: every lane reads
// through one shfl.idx round instead (its own lane where the element is local), which
// needs no select at the receivers when a sender serves only one word. Butterfly rounds
// are collected first and merged (EmitButterflies), then every destination word is
// selected.
absl::StatusOr<Program> BuildDirectShuffle(const ShuffleMatrix& mat, const WordView& sv,
                                           const WordView& dv, bool all_idx,
                                           const SchemeKey& limit = kNoLimit) {
  Program prog;
  OverLimit over(limit);
  InitInputs(prog, sv);
  SelectBuilder sel(&prog);
  const int upw = sv.upw;
  IdxMemo idx_memo;
  std::vector<int> unit_out(static_cast<size_t>(dv.units()) * upw, -1);
  std::vector<BflyRequest> requests;
  std::vector<LaneTable> tables(unit_out.size());
  std::vector<bool> has_table(unit_out.size(), false);
  // The lane parts of the matrix, once: (source lane, source word) of lane l's element
  // of destination word 0.
  uint32_t lane_sigma[32], lane_rho[32];
  for (uint32_t l = 0; l < 32; ++l) {
    lane_sigma[l] = ApplyCols(mat.mll, l);
    lane_rho[l] = ApplyCols(mat.mrl, l);
  }
  for (uint32_t rp = 0; rp < static_cast<uint32_t>(dv.units()); ++rp) {
    if (rp & mat.zero_cols) continue;
    uint32_t sigma[32], rho[32];
    // The word's lane offsets, in order of first use (at most 31; `seen` as a mask).
    absl::InlinedVector<uint32_t, 4> deltas;
    uint32_t seen = 0;
    const uint32_t word_sigma = ApplyCols(mat.mlr, rp), word_rho = ApplyCols(mat.mrr, rp);
    for (uint32_t l = 0; l < 32; ++l) {
      sigma[l] = word_sigma ^ lane_sigma[l];
      rho[l] = word_rho ^ lane_rho[l];
      uint32_t d = sigma[l] ^ l;
      if (d != 0 && !((seen >> d) & 1)) {
        seen |= 1u << d;
        deltas.push_back(d);
      }
    }
    for (int h = 0; h < upw; ++h) {
      LaneTable table;
      for (uint32_t l = 0; l < 32; ++l) table[l] = sigma[l] == l ? prog.inputs[rho[l] * upw + h] : -1;
      if (deltas.size() <= 2 && !all_idx) {
        for (uint32_t d : deltas) {
          BflyRequest req{rp * upw + h, d, {}, 0};
          req.send.fill(-1);
          for (uint32_t l = 0; l < 32; ++l) {
            if ((sigma[l] ^ l) != d) continue;
            req.send[l ^ d] = prog.inputs[rho[l] * upw + h];
            req.receivers |= 1u << l;
          }
          requests.push_back(req);
        }
      } else {
        RETURN_IF_ERROR(
            IdxRounds(mat, rp, sigma, rho, upw, h, all_idx, sel, idx_memo, prog, table));
      }
      tables[rp * upw + h] = table;
      has_table[rp * upw + h] = true;
      RETURN_IF_ERROR(over(prog));
    }
  }
  RETURN_IF_ERROR(EmitButterflies(requests, over, sel, prog, tables));
  for (size_t slot = 0; slot < tables.size(); ++slot) {
    if (has_table[slot]) unit_out[slot] = sel.Build(tables[slot]);
    RETURN_IF_ERROR(over(prog));
  }
  for (uint32_t u = 0; u < static_cast<uint32_t>(dv.units()); ++u) {
    for (int h = 0; h < upw; ++h) prog.outputs.push_back(unit_out[(u & ~mat.zero_cols) * upw + h]);
  }
  return prog;
}

// The most distinct words one sender lane is asked for: sender x (the first of `asks`,
// sorted) is asked for (r ^ rho) * upw + h for each (r, h) of `words` (r * upw + h) and
// each rho it is asked with. A shfl.idx delivers one word from each sender, and every
// round of the group reads through the group's one lane-index setup (IdxMemo: shuffles
// are shared only at one setup), so the group takes at least that many rounds. `asked`:
// a bit per source unit, left clear.
int64_t RoundsAsked(const std::vector<std::pair<uint32_t, uint32_t>>& asks,
                    const std::vector<uint32_t>& words, int upw, std::vector<uint64_t>& asked) {
  // The group's r (every r has each h, so h = 0 names it once).
  absl::InlinedVector<uint32_t, 16> rs;
  for (uint32_t w : words) {
    if (w % static_cast<uint32_t>(upw) == 0) rs.push_back(w / static_cast<uint32_t>(upw));
  }
  int64_t most = 0;
  for (size_t i = 0; i < asks.size();) {
    size_t j = i;
    while (j < asks.size() && asks[j].first == asks[i].first) ++j;
    if (j - i > 1) {  // one rho: its words are the (r, h), counted by the caller
      int64_t count = 0;  // the distinct units r ^ rho
      for (uint32_t r : rs) {
        for (size_t k = i; k < j; ++k) {
          const uint32_t u = r ^ asks[k].second;
          count += ((asked[u / 64] >> (u % 64)) & 1) == 0;
          asked[u / 64] |= uint64_t{1} << (u % 64);
        }
      }
      for (uint32_t r : rs) {
        for (size_t k = i; k < j; ++k) asked[(r ^ asks[k].second) / 64] = 0;
      }
      most = std::max(most, count * upw);
    }
    i = j;
  }
  return most;
}

// Ensures: a key no greater than KeyOf of the program BuildDirectShuffle(mat, sv, dv,
// all_idx) builds (without a limit), from the matrix alone, so that PlanShuffle need not
// build a scheme that cannot rank before the best. Every op is a shuffle or a selp.
//
// Destination word rp's lane l reads source lane sigma(l) = s ^ Mll l (s = Mlr rp) and
// word rho(l) = r ^ Mrl l (r = Mrr rp): the words of one s form a group that shares the
// lanes that receive, their offsets and, in IdxRounds, which lanes each round serves
// (which senders' wants collide does not depend on r or the half h).
// * Butterflies: one offset's requests merge only where their send tables agree, so the
//   offset takes at least as many as the most words one sender lane owes for it. Sender
//   lane l ^ d owes offset d the word of every rp whose lane l receives across d; the
//   groups that do are one (d and l fix s), so that is the group's distinct (r, h).
// * shfl.idx rounds: a word's first round sends a table to the lane-index setup of s;
//   tables of one word are that word, every other table (a choice list) a selp word of
//   its own (SelectBuilder), so first rounds that differ in s or in their table are
//   shuffles of their own. Within a group a table of more than one word differs in every
//   (r, h), and so does the one word of a table of one: one first round per (r, h).
// * Selects: a first-round table of more than one word is a choice list of input words
//   only, a selp of its own (one per (r, h) within a group; across groups tables are
//   counted by a 64-bit fingerprint: two that collide count once, which only lowers the
//   floor); so is a destination table with a local lane (an input word) and a lane that
//   receives (a shuffled word), and two such differ unless their receiving lanes and
//   (r, h) agree (with all_idx every lane reads through a round: none).
// * The first-round trees of one group: a table that sends k distinct words is a select
//   tree of at least k - 1 selps (k leaves; a split never leaves a half empty), and no
//   selp serves two tables of one group: a tree's node is its choices (the memo's key,
//   which words which lanes want), and sender lane x sends (r ^ rho_x) * upw + h, so two
//   (r, h) of one group differ in every lane's word. So the sent trees take at least
//   (distinct (r, h)) * (k - 1) selps of their own for any one group (k: the distinct
//   lane_rho of its senders); selps of other groups may be the same ones, so the floor
//   takes the most over the groups, and the larger of that and the tables counted above
//   (all of them sent-tree nodes, none a destination table's root, which holds a
//   shuffled word).
// * Rounds a sender is asked for (RoundsAsked): a shfl.idx delivers one word from each
//   sender, and all rounds of a group go through its one setup, so the group takes at
//   least as many shuffles as the most distinct words one sender is asked for.
SchemeKey DirectShuffleFloor(const ShuffleMatrix& mat, const WordView& sv, const WordView& dv,
                             bool all_idx) {
  const int upw = sv.upw;
  uint32_t lane_sigma[32], lane_rho[32];
  for (uint32_t l = 0; l < 32; ++l) {
    lane_sigma[l] = ApplyCols(mat.mll, l);
    lane_rho[l] = ApplyCols(mat.mrl, l);
  }
  struct Group {
    uint32_t s = 0;
    uint32_t remote = 0;  // lanes that read another lane
    uint32_t deltas = 0;  // their offsets
    bool bfly = false;    // butterfly requests (else shfl.idx rounds)
    uint32_t served = 0;  // idx: the lanes the first round serves
    int first = -1;       // idx: the first served lane, when every served lane wants its word
    int sent_words = 0;   // idx: the distinct words a first-round table sends
    // idx: (sender lane, lane_rho) of every lane that reads through the rounds, sorted,
    // without repeats: sender x is asked for the words (r ^ rho) * upw + h.
    std::vector<std::pair<uint32_t, uint32_t>> asks;
    std::vector<uint32_t> words;  // (r, h) of its destination words, r * upw + h
  };
  std::vector<Group> groups;
  for (uint32_t rp = 0; rp < static_cast<uint32_t>(dv.units()); ++rp) {
    if (rp & mat.zero_cols) continue;
    const uint32_t s = ApplyCols(mat.mlr, rp), r = ApplyCols(mat.mrr, rp);
    size_t g = 0;
    while (g < groups.size() && groups[g].s != s) ++g;
    if (g == groups.size()) {
      Group n;
      n.s = s;
      int deltas = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t d = s ^ lane_sigma[l] ^ l;
        if (d == 0) continue;
        n.remote |= 1u << l;
        if (!((n.deltas >> d) & 1)) {
          n.deltas |= 1u << d;
          ++deltas;
        }
      }
      n.bfly = deltas <= 2 && !all_idx;
      if (!n.bfly && (n.remote != 0 || all_idx)) {
        // IdxRounds' first round: pending lanes in order, each served while its sender
        // is free or sends what it wants (rho(l) equal: lane_rho equal).
        int taken[32];
        std::fill(taken, taken + 32, -1);
        bool one_word = true;
        uint32_t sent_rho[32];  // the distinct lane_rho of the senders (their words)
        for (uint32_t l = 0; l < 32; ++l) {
          if (!((n.remote >> l) & 1) && !all_idx) continue;
          const uint32_t from = s ^ lane_sigma[l];
          n.asks.emplace_back(from, lane_rho[l]);  // served in this round or a later one
          if (taken[from] >= 0 && lane_rho[taken[from]] != lane_rho[l]) continue;
          if (taken[from] < 0) {
            taken[from] = static_cast<int>(l);
            if (std::find(sent_rho, sent_rho + n.sent_words, lane_rho[l]) ==
                sent_rho + n.sent_words) {
              sent_rho[n.sent_words++] = lane_rho[l];
            }
          }
          n.served |= 1u << l;
          if (n.first < 0) n.first = static_cast<int>(l);
          one_word = one_word && lane_rho[l] == lane_rho[n.first];
        }
        if (!one_word) n.first = -1;
        std::sort(n.asks.begin(), n.asks.end());
        n.asks.erase(std::unique(n.asks.begin(), n.asks.end()), n.asks.end());
      }
      groups.push_back(std::move(n));
    }
    for (int h = 0; h < upw; ++h) groups[g].words.push_back(r * static_cast<uint32_t>(upw) + h);
  }
  std::vector<uint64_t> sent_selects, local_parts;
  uint32_t most_owed[32] = {};  // per offset
  int64_t first_rounds = 0;
  int64_t group_tree_selects = 0;  // the most selps one group's first-round trees take
  // Groups whose first rounds send tables of more than one word: within one, every (r, h)
  // is a table of its own; only across groups may two coincide (then fingerprinted).
  int multi_groups = 0;
  for (const Group& g : groups) multi_groups += !g.bfly && g.served != 0 && g.first < 0;
  // Scratch for the words one sender is asked for: a bit per source unit r ^ rho.
  std::vector<uint64_t> asked((static_cast<size_t>(sv.units()) + 63) / 64);
  for (Group& g : groups) {
    std::sort(g.words.begin(), g.words.end());
    g.words.erase(std::unique(g.words.begin(), g.words.end()), g.words.end());
    const uint32_t n = static_cast<uint32_t>(g.words.size());
    if (g.bfly) {
      for (uint32_t d = 1; d < 32; ++d) {
        if ((g.deltas >> d) & 1) most_owed[d] = std::max(most_owed[d], n);
      }
    } else if (g.served != 0) {
      // One first round per (r, h): its own table, or its own word ((r ^ Mrl l) * upw + h
      // is one to one in (r, h)), to the group's own setup; and at least as many rounds
      // as the most distinct words one sender is asked for.
      first_rounds += std::max<int64_t>(n, RoundsAsked(g.asks, g.words, upw, asked));
      if (g.sent_words > 1) {
        group_tree_selects =
            std::max(group_tree_selects, int64_t{n} * (g.sent_words - 1));
      }
      if (g.first < 0 && multi_groups == 1) {
        for (uint32_t w : g.words) sent_selects.push_back(w);
      } else if (g.first < 0) {
        for (uint32_t w : g.words) {
          const uint32_t r = w / upw, h = w % upw;
          int table[32];
          std::fill(table, table + 32, -1);
          for (uint32_t l = 0; l < 32; ++l) {
            if ((g.served >> l) & 1) {
              table[g.s ^ lane_sigma[l]] = static_cast<int>((r ^ lane_rho[l]) * upw + h);
            }
          }
          uint64_t f = 0x632BE59BD9B4E019ull;
          for (int x : table) {
            f = (f ^ static_cast<uint32_t>(x)) * 0xFF51AFD7ED558CCDull;
            f ^= f >> 31;
          }
          sent_selects.push_back(f);
        }
      }
    }
    if (all_idx || g.remote == 0 || g.remote == ~0u) continue;
    for (uint32_t w : g.words) local_parts.push_back(uint64_t{g.remote} << 32 | w);
  }
  auto distinct = [](std::vector<uint64_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return static_cast<int64_t>(v.size());
  };
  int64_t butterflies = 0;
  for (uint32_t m : most_owed) butterflies += m;
  const int64_t shuffles = butterflies + first_rounds;
  const int64_t selects =
      distinct(local_parts) + std::max(distinct(sent_selects), group_tree_selects);
  return {5 * shuffles + selects, shuffles + selects};
}

// The coset scheme, for lanes that collide: destination words in cosets of the mixed
// register bits, each round a bijective lane map, receivers select per round.
// The coset scheme's exchange pattern: the mixed destination word bits, the lane
// functionals w (receiver lane l gets word bits Phi(l) of its coset), and the lane map A
// (receiver l reads lane A*l ^ c), injective off the destination's lane broadcast.
struct CosetPattern {
  std::vector<int> mixed;
  std::vector<uint32_t> w;
  std::vector<uint32_t> acols;
  bool a_identity = true;
  uint32_t Phi(uint32_t l) const {
    uint32_t r = 0;
    for (size_t k = 0; k < w.size(); ++k) if (Parity(w[k] & l)) r |= 1u << mixed[k];
    return r;
  }
};

absl::StatusOr<CosetPattern> FindCosetPattern(const ShuffleMatrix& mat) {
  const std::vector<uint32_t>& mlr = mat.mlr;
  const std::vector<uint32_t>& mrl = mat.mrl;
  const std::vector<uint32_t>& mll = mat.mll;
  const int nud = static_cast<int>(mlr.size());
  // ker(Mll), and B: the lanes that want the same words (destination lane broadcast).
  std::vector<uint32_t> ker, bcast;
  for (uint32_t l = 0; l < 32; ++l) {
    if (ApplyCols(mll, l) == 0) {
      ker.push_back(l);
      if (ApplyCols(mrl, l) == 0) bcast.push_back(l);
    }
  }
  F2Span bspan;
  std::vector<uint32_t> bbasis;
  for (uint32_t b : bcast) if (bspan.Add(b)) bbasis.push_back(b);
  std::vector<uint32_t> kappa;
  for (uint32_t k : ker) if (bspan.Add(k)) kappa.push_back(k);
  const int m = static_cast<int>(kappa.size());
  CosetPattern pat;
  std::vector<int>& mixed = pat.mixed;
  std::vector<uint32_t>& w = pat.w;
  std::vector<uint32_t>& acols = pat.acols;
  // Mixed register bits: their lane images complete image(Mll).
  F2Span img(mll);
  for (int i = 0; i < nud && static_cast<int>(mixed.size()) < m; ++i) {
    if (img.Add(mlr[i])) mixed.push_back(i);
  }
  if (static_cast<int>(mixed.size()) < m) {
    return absl::InvalidArgumentError("shuffle: no exchange pattern serves every lane");
  }
  w.resize(m);
  for (int k = 0; k < m; ++k) {
    bool found = false;
    for (uint32_t c = 0; c < 32 && !found; ++c) {
      bool ok = true;
      for (int l = 0; l < m && ok; ++l) ok = Parity(c & kappa[l]) == (l == k);
      for (uint32_t b : bbasis) ok = ok && !Parity(c & b);
      if (ok) {
        w[k] = c;
        found = true;
      }
    }
    if (!found) return absl::InternalError("shuffle: no dual functional");
  }
  acols.resize(5);
  pat.a_identity = true;
  for (int j = 0; j < 5; ++j) {
    acols[j] = mll[j] ^ ApplyCols(mlr, pat.Phi(1u << j));
    if (acols[j] != (1u << j)) pat.a_identity = false;
  }
  for (uint32_t l = 0; l < 32; ++l) {
    bool in_b = std::find(bcast.begin(), bcast.end(), l) != bcast.end();
    if ((ApplyCols(acols, l) == 0) != in_b) {
      return absl::InternalError("shuffle: exchange lane map is not injective off broadcast");
    }
  }
  return pat;
}

absl::StatusOr<Program> BuildCosetShuffle(const ShuffleMatrix& mat, const WordView& sv,
                                          const WordView& dv, ShuffleStage* stage,
                                          const SchemeKey& limit) {
  const std::vector<uint32_t>& mrr = mat.mrr;
  const std::vector<uint32_t>& mlr = mat.mlr;
  ASSIGN_OR_RETURN(const CosetPattern pat, FindCosetPattern(mat));
  const std::vector<int>& mixed = pat.mixed;
  const std::vector<uint32_t>& w = pat.w;
  const std::vector<uint32_t>& acols = pat.acols;
  const bool a_identity = pat.a_identity;
  const int m = static_cast<int>(mixed.size());  // at most 5: ker(Mll) is in the lanes
  const uint32_t zero_cols = mat.zero_cols;
  uint32_t mixed_mask = 0;
  for (int i : mixed) mixed_mask |= 1u << i;
  // Round tb's word bits t: bit k of tb on mixed bit k.
  auto spread = [&](uint32_t tb) {
    uint32_t t = 0;
    for (int k = 0; k < m; ++k) if ((tb >> k) & 1) t |= 1u << mixed[k];
    return t;
  };
  // Every round that is not local is a shuffle of its own (one a half): the scheme's key
  // is at least that many shuffles' before a select is built.
  if (limit != kNoLimit) {
    int64_t shuffles = 0;
    for (uint32_t r0 = 0; r0 < static_cast<uint32_t>(dv.units()); ++r0) {
      if (r0 & (zero_cols | mixed_mask)) continue;
      for (uint32_t tb = 0; tb < (1u << m); ++tb) {
        if (!(a_identity && ApplyCols(mlr, r0 ^ spread(tb)) == 0)) shuffles += sv.upw;
      }
    }
    if (SchemeKey{5 * shuffles, shuffles} >= limit) {
      return absl::ResourceExhaustedError("shuffle: no better than a scheme already built");
    }
  }
  // Per lane l, once (the loops below ask for each of them per lane, round and word): its
  // round offset Phi(l) as a round index (bit k: Parity(w[k] & l), so Phi(l) =
  // spread(lane_phi[l])), its word part Mrl l and its lane map A l.
  uint32_t lane_phi[32], lane_rho[32], lane_a[32];
  for (uint32_t l = 0; l < 32; ++l) {
    lane_phi[l] = 0;
    for (int k = 0; k < m; ++k) lane_phi[l] |= uint32_t{Parity(w[k] & l)} << k;
    lane_rho[l] = ApplyCols(mat.mrl, l);
    lane_a[l] = ApplyCols(acols, l);
  }

  Program prog;
  OverLimit over(limit);
  InitInputs(prog, sv);
  SelectBuilder sel(&prog);
  const int upw = sv.upw;
  std::vector<int> unit_out(static_cast<size_t>(dv.units()) * upw, -1);
  int64_t rounds = 0, local_rounds = 0;
  for (uint32_t r0 = 0; r0 < static_cast<uint32_t>(dv.units()); ++r0) {
    if (r0 & (zero_cols | mixed_mask)) continue;
    // The coset's words r0 ^ spread(tb): their word part Mrr, by tb.
    uint32_t word_rho[32];
    for (uint32_t tb = 0; tb < (1u << m); ++tb) word_rho[tb] = ApplyCols(mrr, r0 ^ spread(tb));
    // Rounds tb: recv[tb][h], or the round is local (bit tb of `local`).
    int recv[32][2];
    uint32_t local = 0;
    for (uint32_t tb = 0; tb < (1u << m); ++tb) {
      uint32_t c = ApplyCols(mlr, r0 ^ spread(tb));
      if (a_identity && c == 0) {
        local |= 1u << tb;
        ++local_rounds;
        continue;
      }
      int inv[32];
      std::fill(inv, inv + 32, -1);
      for (uint32_t l = 0; l < 32; ++l) {
        uint32_t s = lane_a[l] ^ c;
        if (inv[s] < 0) inv[s] = static_cast<int>(l);
      }
      for (int h = 0; h < upw; ++h) {
        LaneTable send;
        for (int s = 0; s < 32; ++s) {
          if (inv[s] < 0) {
            send[s] = -1;
            continue;
          }
          uint32_t l = inv[s];
          uint32_t rho = word_rho[tb ^ lane_phi[l]] ^ lane_rho[l];
          send[s] = prog.inputs[rho * upw + h];
        }
        int value = sel.Build(send);
        Op op;
        if (a_identity) {
          op.kind = OpKind::kShflBfly;
          op.imm = c;
        } else {
          op.kind = OpKind::kShflIdx;
          SetupValue lane_index;
          lane_index.kind = SetupValue::Kind::kTidLinear;
          lane_index.coeff.assign(acols.begin(), acols.end());
          lane_index.constant = c;
          op.addr = prog.AddSetup(lane_index);
        }
        op.in = {value};
        recv[tb][h] = prog.NewWord();
        op.out = {recv[tb][h]};
        prog.ops.push_back(std::move(op));
        ++rounds;
      }
    }
    // Destination words of the coset: lane l of word r0 ^ spread(tb) takes round
    // tb ^ lane_phi[l].
    for (uint32_t tb = 0; tb < (1u << m); ++tb) {
      const uint32_t rp = r0 | spread(tb);
      for (int h = 0; h < upw; ++h) {
        LaneTable table;
        for (uint32_t l = 0; l < 32; ++l) {
          const uint32_t t = tb ^ lane_phi[l];
          table[l] = (local >> t) & 1 ? prog.inputs[(word_rho[tb] ^ lane_rho[l]) * upw + h]
                                      : recv[t][h];
        }
        unit_out[rp * upw + h] = sel.Build(table);
      }
    }
    RETURN_IF_ERROR(over(prog));
  }
  for (uint32_t u = 0; u < static_cast<uint32_t>(dv.units()); ++u) {
    for (int h = 0; h < upw; ++h) {
      prog.outputs.push_back(unit_out[(u & ~zero_cols) * upw + h]);
    }
  }
  stage->clear_mixed_word_bits();
  for (int i : mixed) stage->add_mixed_word_bits(i);
  for (uint32_t x : w) stage->add_lane_functionals(x);
  for (uint32_t x : acols) stage->add_lane_matrix(x);
  stage->set_butterfly(a_identity);
  stage->set_rounds(rounds);
  stage->set_local_rounds(local_rounds);
  return prog;
}

// The other solutions worth trying for the direct scheme: a destination lane bit j
// whose receivers want a word chosen by j (a register part in its column) can read from
// a source lane that holds a copy (a null combination added to column j). Then every
// sender serves receivers of one j and picks, by its own lane, what to send: one selp
// at the sender and one shfl.idx instead of rounds and selects at the receivers (as
// Triton's lowering does with broadcast lanes). At most 64 variants.
std::vector<ShuffleMatrix> RoutedThroughCopies(const ShuffleMatrix& m) {
  std::vector<ShuffleMatrix> out;
  if (m.null.empty()) return out;
  std::vector<int> cols;
  for (int j = 0; j < 5; ++j) if (m.mrl[j] != 0) cols.push_back(j);
  const int choices = static_cast<int>(m.null.size()) + 1;
  int variants = 1;
  for (size_t c = 0; c < cols.size() && variants <= 64; ++c) variants *= choices;
  if (cols.empty() || variants > 64) return out;
  for (int v = 1; v < variants; ++v) {
    ShuffleMatrix alt = m;
    for (int x = v, c = 0; c < static_cast<int>(cols.size()); ++c, x /= choices) {
      if (x % choices == 0) continue;
      const auto& [rz, sz] = m.null[x % choices - 1];
      alt.mrl[cols[c]] ^= rz;
      alt.mll[cols[c]] ^= sz;
    }
    out.push_back(std::move(alt));
  }
  return out;
}

// The solution whose lane offsets collapse. Lane l's element of destination word rp
// comes from source lane sigma(l) = Mll l ^ Mlr rp, so the word's lane offsets
// sigma(l) ^ l are the coset Mlr rp + image(Mll ^ I): with (Mll ^ I) of rank 0 a word has
// one offset, of rank 1 at most two (butterflies, merged across words), above that it
// takes shfl.idx rounds. Where the source holds copies (a broadcast lane bit or a lane
// whose element registers also hold), any combination of the null vectors may be added
// to a lane column: another solution of the same conversion. Both layouts of l0672
// broadcast a lane bit, and the particular solution reads destination lane bit 3 across
// source lane bit 3 (offset 8) besides the word's own offset 16; adding source lane 3's
// null vector to column 3 leaves the offset 16 alone: one butterfly for two words.
// Ensures: the columns' null combinations of least rank of Mll ^ I (ties: fewest columns
// changed, then the first found), exhaustively when there are at most 4096 choices, else
// each column made the identity where a combination does it; nullopt when nothing lowers
// the rank.
std::optional<ShuffleMatrix> CollapseLaneOffsets(const ShuffleMatrix& m) {
  if (m.null.empty()) return std::nullopt;
  // One combination per lane part (the first in subset order), lane part 0 first.
  std::vector<std::pair<uint32_t, uint32_t>> choices;  // (register part, lane part)
  const int k = std::min<int>(static_cast<int>(m.null.size()), 10);
  for (uint32_t s = 0; s < (1u << k); ++s) {
    uint32_t rz = 0, sz = 0;
    for (int i = 0; i < k; ++i) {
      if ((s >> i) & 1) {
        rz ^= m.null[i].first;
        sz ^= m.null[i].second;
      }
    }
    bool seen = false;
    for (const auto& c : choices) seen = seen || c.second == sz;
    if (!seen) choices.emplace_back(rz, sz);
  }
  auto rank = [&](const std::array<int, 5>& pick) {
    F2Span span;
    for (int j = 0; j < 5; ++j) span.Add(m.mll[j] ^ choices[pick[j]].second ^ (1u << j));
    return span.rank();
  };
  std::array<int, 5> best{}, pick{};
  const int base = rank(best);
  int best_rank = base, best_changed = 0;
  const size_t n = choices.size();
  if (n * n * n * n * n <= 4096) {
    for (size_t v = 0; v < n * n * n * n * n; ++v) {
      int changed = 0;
      for (size_t j = 0, x = v; j < 5; ++j, x /= n) {
        pick[j] = static_cast<int>(x % n);
        changed += pick[j] != 0;
      }
      const int r = rank(pick);
      if (r < best_rank || (r == best_rank && r < base && changed < best_changed)) {
        best = pick;
        best_rank = r;
        best_changed = changed;
      }
    }
  } else {
    for (int j = 0; j < 5; ++j) {
      for (size_t c = 1; c < n; ++c) {
        if ((m.mll[j] ^ choices[c].second) == (1u << j)) best[j] = static_cast<int>(c);
      }
    }
    best_rank = rank(best);
  }
  if (best_rank >= base) return std::nullopt;
  ShuffleMatrix alt = m;
  for (int j = 0; j < 5; ++j) {
    alt.mrl[j] ^= choices[best[j]].first;
    alt.mll[j] ^= choices[best[j]].second;
  }
  return alt;
}

// `bounded` false (PlanOptions::price_all): every direct scheme is built, in order, each
// while it ranks before the best so far (the same plan; plan_test compares the two).
absl::StatusOr<Program> PlanShuffle(const ConversionProblem& p, const WordView& sv,
                                    const WordView& dv, bool bounded, ShuffleStage* stage) {
  ASSIGN_OR_RETURN(ShuffleMatrix m, SolveShuffleMatrix(p, sv, dv));
  auto key = [](const absl::StatusOr<Program>& prog) {
    return prog.ok() ? KeyOf(*prog) : kNoLimit;
  };
  // The direct schemes, in order: the particular solution, then each other solution
  // (unpacked rounds, then all shfl.idx). The direct plan is the first of least key, as
  // if each replaced the best so far only when it ranked strictly before it; that does
  // not depend on the order they are built in. So they are built by increasing floor
  // (DirectShuffleFloor), each only while it can still be that one (below the best's
  // key, or equal to it and earlier): once a floor ranks after the best, no scheme left
  // can. The coset scheme comes after them all and replaces them only when it ranks
  // strictly before.
  struct Scheme {
    const ShuffleMatrix* mat;
    bool all_idx;
    SchemeKey floor;
  };
  std::vector<ShuffleMatrix> alts = RoutedThroughCopies(m);
  if (std::optional<ShuffleMatrix> c = CollapseLaneOffsets(m)) alts.push_back(*std::move(c));
  std::vector<Scheme> schemes;
  schemes.reserve(1 + 2 * alts.size());
  auto floor = [&](const ShuffleMatrix& mat, bool all_idx) {
    return bounded ? DirectShuffleFloor(mat, sv, dv, all_idx) : SchemeKey{0, 0};
  };
  schemes.push_back({&m, false, floor(m, false)});
  for (size_t a = 0; a < alts.size(); ++a) {
    const ShuffleMatrix& alt = alts[a];
    // A solution tried before builds the same programs, never the first of least key.
    bool seen = false;
    for (size_t b = 0; b < a && !seen; ++b) seen = alts[b].mrl == alt.mrl && alts[b].mll == alt.mll;
    if (seen) continue;
    for (bool all_idx : {false, true}) {
      schemes.push_back({&alt, all_idx, floor(alt, all_idx)});
    }
  }
  std::vector<size_t> order(schemes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return schemes[a].floor < schemes[b].floor;
  });
  absl::StatusOr<Program> direct = absl::InvalidArgumentError("shuffle: no direct scheme");
  size_t direct_at = schemes.size();  // the best's place in the order above
  for (const size_t i : order) {
    const Scheme& scheme = schemes[i];
    SchemeKey limit = key(direct);
    if (limit != kNoLimit) {
      if (limit < scheme.floor || (limit == scheme.floor && i > direct_at)) break;
      // An earlier scheme may tie the best: it stops only above it.
      if (i < direct_at) ++limit.second;
    }
    absl::StatusOr<Program> other =
        BuildDirectShuffle(*scheme.mat, sv, dv, scheme.all_idx, limit);
    if (!other.ok()) continue;
    const SchemeKey k = KeyOf(*other);
    if (!direct.ok() || k < key(direct) || (k == key(direct) && i < direct_at)) {
      direct = std::move(other);
      direct_at = i;
    }
  }
  ShuffleStage coset_stage;
  absl::StatusOr<Program> coset =
      BuildCosetShuffle(m, sv, dv, &coset_stage, key(direct));
  if (!coset.ok() && !direct.ok()) return coset.status();
  if (key(direct) <= key(coset)) {
    stage->set_direct(true);
    stage->set_rounds(CountOps(*direct).shfl);
    return direct;
  }
  *stage = coset_stage;
  return coset;
}

// ---- shared memory --------------------------------------------------------------------

struct SideAccess {
  std::vector<int> vec;  // register bits of one access (vec[k] -> offset bit k)
  uint32_t vmask = 0;
  int a = 0;             // log2 elements per access
  int per_thread = 0;    // accesses per thread
  uint32_t free_regs = 0, free_tid = 0;
  bank::BankCost per_access;
  int warps = 0;         // warps that take part
};


class SmemPlanner {
 public:
  SmemPlanner(const ConversionProblem& p, const WordView& sv, const WordView& dv,
              const PlanOptions& o)
      : p_(p), sv_(sv), dv_(dv), o_(o), eb_(p.element_bytes()), n_(p.elem_bits_log2) {
    int max_bytes = 16;
    if (o.max_vector_bytes > 0) max_bytes = std::min(max_bytes, o.max_vector_bytes);
    max_a_ = 0;
    while ((eb_ << (max_a_ + 1)) <= max_bytes) ++max_a_;
    p.src.FreeBits(&src_free_regs_, &src_free_tid_);
    p.dst.FreeBits(&dst_free_regs_, &dst_free_tid_);
    // The directions both layouts have as registers (the search's vector prefixes start
    // from them) and their rank (Bound).
    F2Independent shared;
    for (uint32_t d : p.src.reg) {
      if (d != 0 && std::find(p.dst.reg.begin(), p.dst.reg.end(), d) != p.dst.reg.end()) {
        common_.push_back(d);
        if (shared.Add(d)) ++common_rank_;
      }
    }
    for (int side = 0; side < 2; ++side) {
      const uint32_t free_tid = side == 0 ? src_free_tid_ : dst_free_tid_;
      store_lanes_[side] = ActiveLanes(free_tid);
      for (uint32_t w = 0; w < static_cast<uint32_t>(p.num_warps); ++w) {
        if (((w << 5) & free_tid) == 0) ++store_warps_[side];
      }
    }
  }

  // What SmemBound needs: Bound() (wavefronts, accesses a thread) of every basis, and
  // whether the barrier is a warp barrier.
  std::pair<int64_t, int64_t> AccessBound() const { return Bound(); }

  absl::StatusOr<Program> Plan(SmemStage* stage) {
    if (const SearchMemo::Smem* e = Memoised()) {
      best_ = e->basis;
      best_moves_ = e->moves;
      return Emit(best_, stage);
    }
    absl::StatusOr<Program> prog = SearchAndEmit(stage);
    if (prog.ok() && o_.memo != nullptr) {
      o_.memo->smem.push_back(
          SearchMemo::Smem{sv_, dv_, o_.no_swizzle, o_.max_vector_bytes, best_, best_moves_});
    }
    return prog;
  }

 private:
  const SearchMemo::Smem* Memoised() const {
    if (o_.memo == nullptr) return nullptr;
    for (const SearchMemo::Smem& e : o_.memo->smem) {
      if (e.sv == sv_ && e.dv == dv_ && e.no_swizzle == o_.no_swizzle &&
          e.max_vector_bytes == o_.max_vector_bytes) {
        return &e;
      }
    }
    return nullptr;
  }

  // The bank search over base orders and swizzles; emits the best basis.
  absl::StatusOr<Program> SearchAndEmit(SmemStage* stage) {
    // Vector prefixes: tensor directions that become the lowest offset bits. Each side's
    // packed directions come first (its words must stay whole), then the directions
    // both layouts keep in registers, or one side's registers in order.
    std::vector<std::vector<uint32_t>> prefixes;
    auto build = [&](absl::Span<const uint32_t> first, absl::Span<const uint32_t> rest) {
      std::vector<uint32_t> pre;
      F2Independent sp;
      for (const auto* list : {&first, &rest}) {
        for (uint32_t d : *list) {
          if (static_cast<int>(pre.size()) >= max_a_) break;
          if (d != 0 && sp.Add(d)) pre.push_back(d);
        }
      }
      prefixes.push_back(pre);
    };
    std::vector<uint32_t> spack, dpack;
    for (int b : sv_.pack) spack.push_back(p_.src.reg[b]);
    for (int b : dv_.pack) dpack.push_back(p_.dst.reg[b]);
    build(spack, common_);
    build(dpack, common_);
    build(spack, p_.src.reg);
    build(dpack, p_.dst.reg);
    best_score_ = {INT64_MAX, INT64_MAX};
    bool any = false;
    // Price every base order, then run the bank search from the two best.
    struct Base {
      Scored score;
      std::vector<uint32_t> basis;
      int fixed;
      std::vector<uint32_t> start;  // the basis before its search
      Images images;                // of `basis`, as scored: where its search starts
    };
    std::vector<Base> bases;
    bases.reserve(3 * prefixes.size());
    // A search cannot replace a best that already meets the bound of every basis. Nor
    // can a base order built after one that meets it: it scores no lower, and ties go
    // to the order built first (below), so the base orders are built only up to the
    // first that meets the bound.
    const std::pair<int64_t, int64_t> bound = Bound();
    bool at_bound = false;
    for (size_t i = 0; i < prefixes.size() && !at_bound; ++i) {
      bool dup = false;
      for (size_t j = 0; j < i; ++j) dup = dup || prefixes[j] == prefixes[i];
      if (dup) continue;
      for (int order = 0; order < 3 && !at_bound; ++order) {
        std::vector<uint32_t> basis = BaseOrder(prefixes[i], order);
        const int fixed = static_cast<int>(prefixes[i].size());
        // A basis built before (other prefixes and orders can build the same one) has
        // its score: copied, not computed again (its entry stays, in its place, for the
        // search below to pass over; so it needs no images: the search never starts
        // there, since the one built before sorts ahead of it).
        const Base* same = nullptr;
        for (const Base& b : bases) {
          if (b.fixed == fixed && b.start == basis) {
            same = &b;
            break;
          }
        }
        // (A braced list is evaluated in order: `basis` is copied, then moved into start.)
        if (same != nullptr) {
          bases.push_back(Base{same->score, basis, fixed, std::move(basis), Images{}});
          continue;
        }
        Images images = ImagesOf(Map(basis));
        Scored sc = ScoreImages(images);
        if (sc.score.first == INT64_MAX) continue;
        at_bound = sc.score == bound;
        bases.push_back(Base{sc, basis, fixed, std::move(basis), std::move(images)});
      }
    }
    // By score, ties in the order built (a stable sort of their places: a Base carries
    // its images, too much to move around).
    absl::InlinedVector<size_t, 12> by_score(bases.size());
    for (size_t i = 0; i < by_score.size(); ++i) by_score[i] = i;
    std::stable_sort(by_score.begin(), by_score.end(), [&](size_t a, size_t b) {
      return bases[a].score.score < bases[b].score.score;
    });
    for (size_t i = 0; i < by_score.size(); ++i) {
      any = true;
      Base& base = bases[by_score[i]];
      // A base order equal to an earlier one (other prefixes and orders can build the
      // same basis) has its score: searched or not, it cannot replace the best, which is
      // already no worse than what that one led to.
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j) {
        const Base& earlier = bases[by_score[j]];
        seen = earlier.fixed == base.fixed && earlier.start == base.basis;
      }
      if (seen) continue;
      if (i < 6 && !o_.no_swizzle && bound < best_score_) {
        Climb(base.basis, base.images, base.fixed, base.score, bound);
      }
      Consider(base.basis, base.score);
    }
    if (!any) {
      return absl::InvalidArgumentError(
          "smem: packed words cannot be stored and loaded whole (the low register bases "
          "differ between the layouts); use unpacked words");
    }
    return Emit(best_, stage);
  }

 private:
  std::vector<uint32_t> BaseOrder(const std::vector<uint32_t>& prefix, int order) const {
    std::vector<uint32_t> basis;
    basis.reserve(static_cast<size_t>(n_));
    F2Independent span;  // independence only
    auto add = [&](uint32_t v) {
      if (static_cast<int>(basis.size()) < n_ && v != 0 && span.Add(v)) basis.push_back(v);
    };
    for (uint32_t v : prefix) add(v);
    const FlatLayout& a = order == 1 ? p_.dst : p_.src;
    const FlatLayout& b = order == 1 ? p_.src : p_.dst;
    if (order == 2) {
      for (size_t j = 0; j < a.lane.size(); ++j) add(a.lane[j] ^ b.lane[j]);
    }
    for (uint32_t v : a.lane) add(v);
    for (uint32_t v : b.lane) add(v);
    for (uint32_t v : a.reg) add(v);
    for (uint32_t v : b.reg) add(v);
    for (uint32_t v : a.warp) add(v);
    for (uint32_t v : b.warp) add(v);
    for (int i = 0; i < n_; ++i) add(1u << i);
    return basis;
  }

  using Map = OffsetMap;  // the offset map of a basis (f2_span.h)

  // The offsets of each side's bases under the offset map: FlatLayout order (register
  // bits, lane bits, warp bits), side 0 the source, 1 the destination. The bank search
  // keeps them current instead of inverting every basis it tries: the swizzle move
  // basis[k] ^= basis[j] maps every offset o to o ^ (bit k of o) << j (MoveImages).
  // moves[s]: side s's images under moves (only the images a move changes are touched).
  struct Images {
    absl::InlinedVector<uint32_t, 24> side[2];  // (no allocation for most layouts)
    OffsetMoves moves[2];
  };
  Images ImagesOf(const Map& m) const {
    Images im;
    for (int s = 0; s < 2; ++s) {
      const FlatLayout& l = s == 0 ? p_.src : p_.dst;
      // Sized once and written in place (InlinedVector's push_back checks its storage
      // each time; the bank search makes images for every base order).
      im.side[s].resize(l.reg.size() + l.lane.size() + l.warp.size());
      uint32_t* out = im.side[s].data();
      for (const auto* list : {&l.reg, &l.lane, &l.warp}) {
        for (uint32_t b : *list) *out++ = m(b);
      }
      im.moves[s] = OffsetMoves(im.side[s].data(), static_cast<int>(im.side[s].size()));
    }
    return im;
  }
  // The images after the move basis[k] ^= basis[j]: an involution, so applying it again
  // undoes it (the climb prices a move in place and undoes the ones it rejects).
  static void MoveImages(Images& im, int j, int k) {
    for (int s = 0; s < 2; ++s) {
      im.moves[s].Move(im.side[s].data(), static_cast<int>(im.side[s].size()), j, k);
    }
  }

  // One side's accesses under an offset map, without the heap (the bank search's inner
  // loop): the register bits one access covers in offset order (vec[k] -> offset bit k),
  // the accesses per thread, the bank cost of one warp-wide access and the warps that
  // take part.
  struct SideCost {
    int vec[8];
    int a = 0;
    int found = 0;  // the vector bits found before the alignment trim (a <= found <= limit)
    int limit = 0;  // the most vector bits this side may take
    uint64_t others = 0;  // the images (bit i: side[i] of Images) that are no vector bit
    uint32_t vmask = 0;
    int per_thread = 0;
    uint32_t free_regs = 0, free_tid = 0;
    bank::BankCost per_access;
    int warps = 0;
  };

  // Ensures: false when packed words cannot be accessed whole.
  bool SideCostOf(const Images& im, int side, bool store, SideCost* c) const {
    const FlatLayout& l = side == 0 ? p_.src : p_.dst;
    const WordView& v = side == 0 ? sv_ : dv_;
    const uint32_t* reg_img = im.side[side].data();
    const uint32_t* lane_img = reg_img + l.reg_bits();
    const uint32_t* warp_img = lane_img + l.lane_bits();
    int limit = max_a_;
    if (v.pk() == 0 && v.upw == 1) limit = std::min(limit, 2);  // v4 of b8/b16/b32
    c->limit = limit;
    // vec[k]: the first register whose image is offset bit k, for k = 0, 1, ... while
    // there is one, below the limit. One pass over the registers: a register whose image
    // is a single bit still wanted is that bit's first (a broadcast register's image is
    // 0, never a bit).
    int at[8];
    uint32_t want = (1u << limit) - 1;
    for (int i = 0; i < l.reg_bits() && want != 0; ++i) {
      const uint32_t img = reg_img[i];
      if ((img & want) != 0 && SingleBit(img)) {
        at[std::countr_zero(img)] = i;
        want &= ~img;
      }
    }
    // The bits found: those below the lowest still wanted.
    c->a = std::countr_zero(want | (1u << limit));
    uint32_t vmask = 0;  // the vector's registers, found (before the trim)
    for (int k = 0; k < c->a; ++k) {
      c->vec[k] = at[k];
      vmask |= 1u << at[k];
    }
    c->found = c->a;
    const int entries = l.reg_bits() + l.lane_bits() + l.warp_bits();
    // (The register images come first in Images::side, so a register's entry bit is its
    // bit in vmask.)
    c->others = (entries >= 64 ? ~uint64_t{0} : (uint64_t{1} << entries) - 1) & ~uint64_t{vmask};
    // Every access must be aligned to its size: no other basis may reach the vector's
    // offset bits.
    uint32_t low = 0;
    for (int i = 0; i < l.reg_bits(); ++i) if (!((vmask >> i) & 1)) low |= reg_img[i];
    for (int j = 0; j < l.lane_bits(); ++j) low |= lane_img[j];
    for (int j = 0; j < l.warp_bits(); ++j) low |= warp_img[j];
    while (c->a > 0 && (low & ((1u << c->a) - 1)) != 0) --c->a;
    // Packed words must be the vector's first slots, whole and in order.
    if (c->a < v.pk()) return false;
    for (int k = 0; k < v.pk(); ++k) if (c->vec[k] != v.pack[k]) return false;
    if (c->a != c->found) {
      vmask = 0;
      for (int k = 0; k < c->a; ++k) vmask |= 1u << c->vec[k];
    }
    c->vmask = vmask;
    c->free_regs = side == 0 ? src_free_regs_ : dst_free_regs_;
    c->free_tid = !store ? 0 : side == 0 ? src_free_tid_ : dst_free_tid_;  // loads: all
    // The canonical registers (no free or vector bit set): one access each.
    const uint32_t all_regs = static_cast<uint32_t>(l.num_regs()) - 1;
    c->per_thread = 1 << (l.reg_bits() - Popcount((c->free_regs | c->vmask) & all_regs));
    c->per_access = LaneCostOf(im, side, store, c->a);
    c->warps = store ? store_warps_[side] : p_.num_warps;
    return true;
  }

  // Ensures: (w, i) with w <= the wavefronts and i <= the instructions of every basis
  // (ScoreImages), without a basis: a side's vector covers at most `limit` register bits
  // (copies are not accessed), and each lane group of an access with a lane that takes
  // part is at least one wavefront.
  //
  // The instructions also take in that the two vectors share their low offset bits: a
  // side's vector of a bits has the images 1, 2, ..., 2^(a-1) for registers of its own
  // (SideCostOf), so basis[k] (k < a) is the direction of one of its registers (the
  // offset map is onto). Below the shorter vector both sides' registers give basis[k]:
  // distinct, independent directions in both layouts' register lists, so the shorter
  // vector has at most common_rank_ bits (the rank of those shared directions). A layout
  // pair with few shared register directions thus cannot have both sides at full width
  // (one is narrow, its accesses a thread many), which SmemBound's pruning of the plain
  // candidate can use.
  std::pair<int64_t, int64_t> Bound() const {
    std::pair<int64_t, int64_t> bound{0, 0};
    int limits[2];
    int64_t per_thread[2][9];  // per_thread[side][a]: the accesses a thread at a vector of a
    for (int side = 0; side < 2; ++side) {
      const bool store = side == 0;
      const FlatLayout& l = store ? p_.src : p_.dst;
      const WordView& v = store ? sv_ : dv_;
      int limit = max_a_;
      if (v.pk() == 0 && v.upw == 1) limit = std::min(limit, 2);
      limits[side] = limit;
      const uint32_t all_regs = static_cast<uint32_t>(l.num_regs()) - 1;
      const int free = Popcount((store ? src_free_regs_ : dst_free_regs_) & all_regs);
      const uint32_t lanes = store ? store_lanes_[0] : ~0u;
      const int warps = store ? store_warps_[0] : p_.num_warps;
      int64_t wavefronts = INT64_MAX;
      for (int a = 0; a <= limit; ++a) {
        per_thread[side][a] = int64_t{1} << (l.reg_bits() - std::min(l.reg_bits(), free + a));
        wavefronts = std::min(wavefronts, ActiveGroups(lanes, static_cast<uint32_t>(eb_ << a)) *
                                              per_thread[side][a] * warps);
      }
      bound.first += wavefronts;
    }
    // The accesses a thread fall as the vector widens: the least is one side at its limit
    // and the other at its limit or common_rank_, whichever is less.
    const int a0 = std::min(limits[0], common_rank_), a1 = std::min(limits[1], common_rank_);
    bound.second = std::min(per_thread[0][limits[0]] + per_thread[1][a1],
                            per_thread[0][a0] + per_thread[1][limits[1]]);
    return bound;
  }

  // The bank model's cost of one warp-wide access (LaneRequestCost), memoised per side
  // by (lane offsets, lane mask, access bytes), which determine it.
  bank::BankCost BankCostOf(int side, const uint32_t lanes[5], uint32_t mask,
                            uint32_t bytes) const {
    return bank_memo_[side].Get(lanes, mask, bytes, [&] {
      return LaneRequestCost(lanes, mask, bytes, static_cast<uint32_t>(eb_));
    });
  }

  static uint32_t Spread(const std::vector<int>& bits, uint32_t j, int from = 0) {
    uint32_t r = 0;
    for (size_t k = from; k < bits.size(); ++k) if ((j >> (k - from)) & 1) r |= 1u << bits[k];
    return r;
  }

  // Requires: the basis behind `im` lets both sides access their words whole.
  SideAccess Access(const Images& im, int side, bool store) const {
    SideCost c;
    const bool ok = SideCostOf(im, side, store, &c);
    (void)ok;
    SideAccess s;
    s.vec.assign(c.vec, c.vec + c.a);
    s.vmask = c.vmask;
    s.a = c.a;
    s.per_thread = c.per_thread;
    s.free_regs = c.free_regs;
    s.free_tid = c.free_tid;
    s.per_access = c.per_access;
    s.warps = c.warps;
    return s;
  }

  // A basis's (wavefronts, instructions) and bank conflicts; INT64_MAX when a side
  // cannot access its words whole.
  struct Scored {
    std::pair<int64_t, int64_t> score{INT64_MAX, INT64_MAX};
    int64_t conflicts = 0;
  };
  Scored ScoreImages(const Images& im) const {
    SideCost st, ld;
    if (!SideCostOf(im, 0, true, &st) || !SideCostOf(im, 1, false, &ld)) return {};
    return ScoreSides(st, ld);
  }
  static Scored ScoreSides(const SideCost& st, const SideCost& ld) {
    int64_t wf = int64_t{st.per_access.wavefronts} * st.per_thread * st.warps +
                 int64_t{ld.per_access.wavefronts} * ld.per_thread * ld.warps;
    int64_t instr = st.per_thread + ld.per_thread;
    return {{wf, instr}, st.per_access.conflicts() + ld.per_access.conflicts()};
  }

  // Hill-climbs over XOR swizzles: bank bit j of the offset gets offset bit k XORed in
  // (in terms of the basis: direction k also moves bit j, basis[k] ^= basis[j]), the
  // moves that change which bank an element lands in. `score`: the basis's on entry,
  // the result's on return. `im`: ImagesOf the basis on entry (the climb moves them).
  // `bound`: Bound(); at it no move can lower the score.
  //
  // A move prices again only the sides it can change (MoveKeeps); the other keeps its
  // SideCost, which SideCostOf would compute again unchanged, so the climb takes the
  // same moves as when it scored both sides of every move.
  void Search(std::vector<uint32_t>& basis, Images& im, int fixed, Scored& score,
              const std::pair<int64_t, int64_t>& bound) {
    SideCost cur[2];
    if (!SideCostOf(im, 0, true, &cur[0]) || !SideCostOf(im, 1, false, &cur[1])) return;
    for (int pass = 0; pass < 8 && score.conflicts > 0 && score.score != bound; ++pass) {
      bool improved = false;
      for (int j = 0; j < n_ && !improved; ++j) {
        const int64_t byte = int64_t{eb_} << j;
        if (byte < 4) continue;
        if (byte >= 128) break;
        for (int k = std::max(fixed, j + 1); k < n_ && !improved; ++k) {
          MoveImages(im, j, k);
          const Kept kept[2] = {MoveKeeps(im, 0, cur[0], j, k), MoveKeeps(im, 1, cur[1], j, k)};
          if (!CanImprove(cur, kept, score)) {
            MoveImages(im, j, k);  // undone unpriced
            continue;
          }
          SideCost next[2];
          bool ok = true;
          for (int side = 0; side < 2 && ok; ++side) {
            switch (kept[side]) {
              case Kept::kAll:
                next[side] = cur[side];
                break;
              case Kept::kVector:
                next[side] = cur[side];
                next[side].per_access = LaneCostOf(im, side, side == 0, cur[side].a);
                break;
              case Kept::kNothing:
                ok = SideCostOf(im, side, side == 0, &next[side]);
                break;
            }
          }
          const Scored s = ok ? ScoreSides(next[0], next[1]) : Scored{};
          if (s.score < score.score) {
            basis[k] ^= basis[j];
            score = s;
            cur[0] = next[0];
            cur[1] = next[1];
            improved = true;
            ++moves_;
          } else {
            MoveImages(im, j, k);  // undone
          }
        }
      }
      if (!improved) break;
    }
  }

  // Search, or where the other direction of the round trip climbed from the same basis,
  // its result (SearchMemo::Climb: the same moves, when neither layout has copies that
  // stores skip). `im` is left as it is then (SearchAndEmit reads only the basis and the
  // score after the climb).
  void Climb(std::vector<uint32_t>& basis, Images& im, int fixed, Scored& score,
             const std::pair<int64_t, int64_t>& bound) {
    if (o_.memo == nullptr || (src_free_tid_ | dst_free_tid_) != 0) {
      Search(basis, im, fixed, score, bound);
      return;
    }
    if (const SearchMemo* other = o_.memo->reversed) {
      for (const SearchMemo::Climb& e : other->climbs) {
        if (e.fixed == fixed && e.max_vector_bytes == o_.max_vector_bytes && e.sv == dv_ &&
            e.dv == sv_ && e.start == basis) {
          basis = e.basis;
          score = Scored{e.score, e.conflicts};
          moves_ += e.moves;
          return;
        }
      }
    }
    std::vector<uint32_t> start = basis;
    const int64_t moves_before = moves_;
    Search(basis, im, fixed, score, bound);
    o_.memo->climbs.push_back(SearchMemo::Climb{sv_, dv_, o_.max_vector_bytes, fixed,
                                                std::move(start), basis, score.score,
                                                score.conflicts, moves_ - moves_before});
  }

  // What a move keeps of one side's SideCost: all of it, all but the bank cost of one
  // access (per_access), or nothing known.
  enum class Kept { kAll, kVector, kNothing };

  // Ensures: kAll only when SideCostOf of `side` after the move basis[k] ^= basis[j]
  // (j < k; `im` after it) equals `c`, its value before; kVector only when it equals `c`
  // but for per_access (LaneCostOf). The move toggles offset bit j of the images that
  // have bit k, so it keeps the vector search (images equal to 1 << k' for k' < limit)
  // when k >= limit: an image with bit k is no such power before or after. The vector
  // kept, the alignment trim is read off the moved images (OffsetMoves::With: the other
  // images' offset bits below `found`, as SideCostOf ORs them), and with the trimmed
  // vector kept, so is everything SideCostOf derives from it (the access size, the
  // accesses a thread); with the lane images too (none has bit k), the bank cost.
  Kept MoveKeeps(const Images& im, int side, const SideCost& c, int j, int k) const {
    const OffsetMoves& moves = im.moves[side];
    if (k < c.limit || !moves.tracked()) return Kept::kNothing;
    if (j < c.found) {
      int a = c.found;
      auto low = [&](int upto) {  // an other image has an offset bit below `upto`
        for (int b = 0; b < upto; ++b) if (moves.With(b) & c.others) return true;
        return false;
      };
      while (a > 0 && low(a)) --a;
      if (a != c.a) return Kept::kNothing;
    }
    const FlatLayout& l = side == 0 ? p_.src : p_.dst;
    const int lanes = std::min(l.lane_bits(), 5);
    const uint64_t lane_entries = ((uint64_t{1} << lanes) - 1) << l.reg_bits();
    return (moves.With(k) & lane_entries) == 0 ? Kept::kAll : Kept::kVector;
  }

  // Ensures: false only when the move with `kept` (MoveKeeps of each side) from the
  // sides `cur` (scored `score`) cannot score below `score`. With no side kNothing the
  // vectors are kept, so are the instructions; a kAll side keeps its wavefronts, and a
  // kVector side's access keeps its lane groups, each at least one wavefront
  // (BankCost::minimum, which depends on the lanes that take part and the access size
  // only): when those floors already reach the wavefronts of `score`, so does the move.
  static bool CanImprove(const SideCost cur[2], const Kept kept[2], const Scored& score) {
    if (kept[0] == Kept::kNothing || kept[1] == Kept::kNothing) return true;
    int64_t floor = 0;
    for (int side = 0; side < 2; ++side) {
      const bank::BankCost& c = cur[side].per_access;
      const uint32_t w = kept[side] == Kept::kAll ? c.wavefronts : c.minimum;
      floor += int64_t{w} * cur[side].per_thread * cur[side].warps;
    }
    return floor < score.score.first;
  }

  // Ensures: the bank cost of one warp-wide access of `side` under `im` with a vector of
  // 2^a elements (SideCost::per_access).
  bank::BankCost LaneCostOf(const Images& im, int side, bool store, int a) const {
    const FlatLayout& l = side == 0 ? p_.src : p_.dst;
    const uint32_t* lane_img = im.side[side].data() + l.reg_bits();
    uint32_t lanes[5] = {};
    for (int j = 0; j < l.lane_bits() && j < 5; ++j) lanes[j] = lane_img[j];
    // The lanes and warps that take part (stores skip copies; every thread loads).
    return BankCostOf(side, lanes, store ? store_lanes_[side] : ~0u,
                      static_cast<uint32_t>(eb_ << a));
  }

  void Consider(const std::vector<uint32_t>& basis, const Scored& scored) {
    const auto& s = scored.score;
    if (s < best_score_) {
      best_score_ = s;
      best_ = basis;
      best_moves_ = moves_;
    }
    moves_ = 0;
  }

  absl::StatusOr<Program> Emit(const std::vector<uint32_t>& basis, SmemStage* stage) const {
    Map m(basis);
    Program prog;
    InitInputs(prog, sv_);
    prog.smem_bytes = (int64_t{1} << n_) * eb_;
    const Images images = ImagesOf(m);
    SideAccess st = Access(images, 0, true), ld = Access(images, 1, false);
    auto tid_setup = [&](const FlatLayout& l, uint32_t constant) {
      SetupValue v;
      v.kind = SetupValue::Kind::kSmemAddr;
      for (uint32_t b : l.lane) v.coeff.push_back(m(b));
      for (uint32_t b : l.warp) v.coeff.push_back(m(b));
      v.constant = constant;
      v.buffer = o_.buffer;
      v.element_bytes = eb_;
      return v;
    };
    // Each side's thread part of its addresses, added to the setup once.
    struct Base {
      SetupValue value;
      uint32_t reach = 0;  // offset bits the thread part can set
      int id = -1;         // in prog.setup, once added
      // (constant, id in prog.setup) of the value with that constant, once added: the id
      // AddSetup would give it again, without copying the value to ask.
      absl::InlinedVector<std::pair<uint32_t, int>, 8> with_constant;
    };
    auto base_of = [&](const FlatLayout& l) {
      Base b;
      b.value = tid_setup(l, 0);
      for (uint32_t c : b.value.coeff) b.reach |= c;
      return b;
    };
    Base src_base = base_of(p_.src), dst_base = base_of(p_.dst);
    // An address is the thread part T ^ c: the bits of c that T can also set stay in the
    // setup value's constant (SplitAddressConstant), the rest is the immediate.
    auto address = [&](Base& base, const FlatLayout& l, uint32_t r, Op& op) {
      const AddressSplit a = SplitAddressConstant(m(ApplyBasis(l.reg, r)), base.reach);
      op.imm = a.add * eb_;
      if (a.xor_bits == 0) {
        if (base.id < 0) base.id = prog.AddSetup(base.value);
        op.addr = base.id;
        return;
      }
      for (const auto& [constant, id] : base.with_constant) {
        if (constant == a.xor_bits) {
          op.addr = id;
          return;
        }
      }
      SetupValue v = base.value;
      v.constant = a.xor_bits;
      op.addr = prog.AddSetup(v);
      base.with_constant.push_back({a.xor_bits, op.addr});
    };
    // Stores.
    int store_pred = -1;
    if (st.free_tid != 0) {
      SetupValue pv;
      pv.kind = SetupValue::Kind::kTidMaskZero;
      pv.mask = st.free_tid;
      store_pred = prog.AddSetup(pv);
    }
    // Words of the access whose first register is r (vector bits clear).
    auto words_of = [&](const WordView& v, uint32_t r, const std::vector<int>& vec,
                        const std::vector<int>& ids, auto* out, int* elem_bytes) {
      const int a = static_cast<int>(vec.size());
      if (v.upw == 2) {
        for (uint32_t j = 0; j < (1u << a); ++j) {
          uint32_t reg = r | Spread(vec, j);
          out->push_back(ids[2 * reg]);
          out->push_back(ids[2 * reg + 1]);
        }
        *elem_bytes = 4;
      } else if (v.pk() > 0) {
        for (uint32_t j = 0; j < (1u << (a - v.pk())); ++j) {
          out->push_back(ids[v.Unit(r | Spread(vec, j, v.pk()))]);
        }
        *elem_bytes = 4;
      } else {
        for (uint32_t j = 0; j < (1u << a); ++j) out->push_back(ids[r | Spread(vec, j)]);
        *elem_bytes = eb_;
      }
    };
    const bool warp_local = WarpLocal();
    // At most one op a register of each side and the barriers.
    prog.ops.reserve(static_cast<size_t>(p_.src.num_regs() + p_.dst.num_regs() + 2));
    if (o_.barrier_before_store) {
      prog.ops.push_back(BarrierOp(warp_local));
    }
    for (uint32_t r = 0; r < static_cast<uint32_t>(p_.src.num_regs()); ++r) {
      if (r & (st.free_regs | st.vmask)) continue;
      Op op;
      op.kind = OpKind::kStShared;
      op.pred = store_pred;
      words_of(sv_, r, st.vec, prog.inputs, &op.in, &op.elem_bytes);
      address(src_base, p_.src, r, op);
      prog.ops.push_back(std::move(op));
    }
    prog.ops.push_back(BarrierOp(warp_local));
    // Loads: canonical destination registers; the rest rename them.
    F2Span dspan(p_.dst.reg);
    std::vector<int> reg_word(static_cast<size_t>(dv_.words()), -1);
    std::vector<int> ids(static_cast<size_t>(dv_.words()));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
    for (uint32_t r = 0; r < static_cast<uint32_t>(p_.dst.num_regs()); ++r) {
      if (r & (ld.free_regs | ld.vmask)) continue;
      Op op;
      op.kind = OpKind::kLdShared;
      Words slots;  // one access: at most 16 bytes
      words_of(dv_, r, ld.vec, ids, &slots, &op.elem_bytes);
      for (int s : slots) {
        int w = prog.NewWord();
        op.out.push_back(w);
        reg_word[s] = w;
      }
      address(dst_base, p_.dst, r, op);
      prog.ops.push_back(std::move(op));
    }
    for (int wi = 0; wi < dv_.words(); ++wi) {
      int w = reg_word[wi];
      if (w < 0) {
        // A broadcast copy: the word of the canonical register holding the same element.
        uint32_t unit = wi / dv_.upw, half = wi % dv_.upw;
        uint32_t r = dv_.Reg(unit, 0);
        uint32_t canon = *dspan.Solve(ApplyBasis(p_.dst.reg, r));
        w = reg_word[dv_.Unit(canon) * dv_.upw + half];
      }
      prog.outputs.push_back(w);
    }
    const int rounds = ChunkSharedRounds(prog, o_.max_scratch_bytes);
    if (rounds > 1) stage->set_rounds(rounds);
    stage->clear_offset_basis();
    for (uint32_t b : basis) stage->add_offset_basis(b);
    stage->set_store_vector_bytes(eb_ << st.a);
    stage->set_load_vector_bytes(eb_ << ld.a);
    stage->set_warp_local(warp_local);
    stage->set_store_predicate_mask(st.free_tid);
    stage->set_swizzle_moves(best_moves_);
    wavefronts_store_ = int64_t{st.per_access.wavefronts} * st.per_thread * st.warps;
    wavefronts_load_ = int64_t{ld.per_access.wavefronts} * ld.per_thread * ld.warps;
    min_store_ = int64_t{st.per_access.minimum} * st.per_thread * st.warps;
    min_load_ = int64_t{ld.per_access.minimum} * ld.per_thread * ld.warps;
    cta_barrier_ = !warp_local;
    return prog;
  }


  // Whether each warp stores exactly the elements it loads (its register and lane
  // bases span the same space on both sides) and no warp bit is a copy: then a warp
  // barrier orders each warp's stores before its loads.
  bool WarpLocal() const { return !o_.force_cta_barrier && ElementsStayInWarp(); }

 public:
  // WarpLocal without the options: a fact of the problem (SearchMemo::SmemFacts).
  bool ElementsStayInWarp() const {
    if (p_.src.warp != p_.dst.warp) return false;
    if (src_free_tid_ >> 5) return false;  // FreeBits of the source, from the constructor
    F2Span s, d;
    for (const auto* list : {&p_.src.reg, &p_.src.lane}) for (uint32_t v : *list) s.Add(v);
    for (const auto* list : {&p_.dst.reg, &p_.dst.lane}) for (uint32_t v : *list) d.Add(v);
    for (const auto* list : {&p_.dst.reg, &p_.dst.lane}) {
      for (uint32_t v : *list) if (!s.Contains(v)) return false;
    }
    for (const auto* list : {&p_.src.reg, &p_.src.lane}) {
      for (uint32_t v : *list) if (!d.Contains(v)) return false;
    }
    return true;
  }

 private:
  // Not copied: a planner lives within the call that made it (SmemBound, Price), and
  // copying the options' views cost every bound four allocations.
  const ConversionProblem& p_;
  const WordView& sv_;
  const WordView& dv_;
  const PlanOptions& o_;
  int eb_, n_, max_a_ = 0;
  // The register directions the layouts share (in the source's register order), and
  // their rank.
  absl::InlinedVector<uint32_t, 8> common_;
  int common_rank_ = 0;
  uint32_t src_free_regs_ = 0, src_free_tid_ = 0, dst_free_regs_ = 0, dst_free_tid_ = 0;
  // Per side: the lanes and warps that store (those without a free thread bit set).
  uint32_t store_lanes_[2] = {};
  int store_warps_[2] = {};
  std::vector<uint32_t> best_;
  std::pair<int64_t, int64_t> best_score_;
  mutable BankCostMemo<> bank_memo_[2];
  int64_t moves_ = 0, best_moves_ = 0;

 public:
  mutable int64_t wavefronts_store_ = 0, wavefronts_load_ = 0, min_store_ = 0, min_load_ = 0;
  mutable bool cta_barrier_ = true;
};


// The search objective (cycles of one SM, summed): a quarter cycle an instruction, one
// cycle a wavefront or shuffle, a fixed latency a barrier phase. Non-decreasing in each
// argument (CostBound relies on it).
double Score(int64_t warp_instructions, int64_t pipe, int64_t barriers, bool cta_barrier) {
  return 0.25 * static_cast<double>(warp_instructions) + static_cast<double>(pipe) +
         static_cast<double>(barriers) * (cta_barrier ? 24.0 : 4.0);
}

// SmemBound's facts of the problem alone: whether each warp stores exactly the elements
// it loads, and the wavefronts every plan needs: every element is stored at least once,
// every warp loads each element it holds, and a wavefront serves at most one 4-byte word
// a bank (128 bytes).
SearchMemo::SmemFacts SmemFactsOf(const ConversionProblem& p, const SmemPlanner& planner) {
  F2Span warp_elements(p.dst.reg);
  for (uint32_t v : p.dst.lane) warp_elements.Add(v);
  const int64_t store = (p.num_elements() * p.element_bytes() + 127) / 128;
  const int64_t load =
      ((int64_t{1} << warp_elements.rank()) * p.element_bytes() + 127) / 128 * p.num_warps;
  return SearchMemo::SmemFacts{planner.ElementsStayInWarp(), store + load};
}

}  // namespace

std::optional<CostBound> SmemBound(const ConversionProblem& p, const WordView& sv,
                                   const WordView& dv, const PlanOptions& options,
                                   bool matrix) {
  // The facts of the problem come from options.memo when it has them (each view and
  // kind is bounded once per barrier option: no access bound is asked for twice).
  std::optional<SearchMemo::SmemFacts> own_facts;
  std::optional<SearchMemo::SmemFacts>& facts =
      options.memo != nullptr ? options.memo->smem_facts : own_facts;
  std::optional<std::pair<int64_t, int64_t>> access;
  if (matrix && facts) {
    access = MatrixSmemAccessBound(p, sv, dv, options);  // no plain planner needed
  } else {
    const SmemPlanner planner(p, sv, dv, options);
    access = matrix ? MatrixSmemAccessBound(p, sv, dv, options) : planner.AccessBound();
    if (!facts) facts = SmemFactsOf(p, planner);
  }
  if (!access) return std::nullopt;
  // The barrier between stores and loads, and the one before the stores when asked
  // (rounds, ChunkSharedRounds, only add barriers).
  const int64_t barriers = options.barrier_before_store ? 2 : 1;
  const bool warp_local = !options.force_cta_barrier && facts->warp_local;
  CostBound b;
  b.warp_instructions = (access->second + barriers) * p.num_warps;
  b.wavefronts = std::max(access->first, facts->min_wavefronts);
  b.score = Score(b.warp_instructions, b.wavefronts, barriers, !warp_local);
  return b;
}

std::optional<CostBound> ShuffleBound(const ConversionProblem& p, const WordView& sv,
                                      const WordView& dv) {
  // PlanShuffle's own preconditions (SolveShuffleMatrix): no plan without them.
  if (p.src.warp != p.dst.warp || sv.pk() != dv.pk()) return std::nullopt;
  // A destination thread holds 2^rank(Dreg) distinct elements; with the warp parts equal,
  // lane l's element Dreg(r) ^ Dlane(l) is in its own source registers when Dreg(r) ^
  // c(l) is in span(Sreg), c(l) = Dlane(l) ^ Slane(l). The registers r for which it is
  // form a coset of span(Dreg) ∩ span(Sreg) when c(l) is in span(Dreg) + span(Sreg), and
  // none otherwise; c is linear in l, so some lane has none local unless every lane
  // bit's c is in that sum.
  const F2Span d(p.dst.reg), s(p.src.reg);
  F2Span sum(p.dst.reg);
  for (uint32_t v : p.src.reg) sum.Add(v);
  const int64_t elements = int64_t{1} << d.rank();
  const int64_t common = int64_t{1} << (d.rank() + s.rank() - sum.rank());
  bool every_lane_has_local = true;
  for (int j = 0; j < p.dst.lane_bits() && j < p.src.lane_bits(); ++j) {
    every_lane_has_local = every_lane_has_local && sum.Contains(p.dst.lane[j] ^ p.src.lane[j]);
  }
  if (p.dst.lane_bits() != p.src.lane_bits()) every_lane_has_local = false;
  const int64_t remote = every_lane_has_local ? elements - common : elements;
  // One shuffle brings a lane one 32-bit word.
  const int64_t shuffles = (remote * p.element_bytes() + 3) / 4;
  // And every destination word that is not one of the thread's own source words, the
  // same in every lane, is written by an op of its own (a shuffle, select or byte
  // permute each writes one 32-bit word; equal words may share one). A destination
  // unit's word is the coset Dreg(u) + span(pack bases), slot by slot, and the pack
  // bases are the source's (SolveShuffleMatrix requires it), so it is source unit u''s
  // word in lane l exactly when Dreg(u) ^ Dlane(l) = Sreg(u') ^ Slane(l): for every lane
  // only when the lane maps are equal (l = 0 gives Dreg(u) = Sreg(u')). So the words
  // are the distinct values of Dreg over the units (2^rank), less, with equal lane maps,
  // those in span(Sreg units); times the words a unit (64-bit elements: 2). This is what
  // bounds the one-warp conversions of hundreds of words whose shuffle plans are
  // thousands of instructions (a 128x128 i8 slice pair priced its 3 072-instruction
  // shuffle plan, 22 ms of planning, against a 176-instruction shared-memory one).
  F2Span dst_units, src_units, both;
  for (int i = 0; i < dv.reg_bits; ++i) {
    if (!((dv.PackMask() >> i) & 1)) {
      dst_units.Add(p.dst.reg[i]);
      both.Add(p.dst.reg[i]);
    }
  }
  for (int i = 0; i < sv.reg_bits; ++i) {
    if (!((sv.PackMask() >> i) & 1)) {
      src_units.Add(p.src.reg[i]);
      both.Add(p.src.reg[i]);
    }
  }
  int64_t written = int64_t{1} << dst_units.rank();
  if (p.src.lane == p.dst.lane) {
    written -= int64_t{1} << (dst_units.rank() + src_units.rank() - both.rank());
  }
  written *= dv.upw;
  CostBound b;
  b.warp_instructions = std::max(shuffles, written) * p.num_warps;
  b.wavefronts = 0;
  b.score = Score(b.warp_instructions, shuffles * p.num_warps, 0, false);
  return b;
}

Cost EstimateCost(const ConversionProblem& problem, const Program& program,
                  int64_t wavefronts_store, int64_t wavefronts_load, int64_t min_store,
                  int64_t min_load, bool cta_barrier) {
  // The model fitted to H200 timings (tools/oracle/fit_cost_model.py on
  // corpus/plan/h200/timing_v1.tsv, 1036 kernels, ours and Triton's): one SM holds four
  // of the 528 CTAs; the shared-memory pipe serves wavefronts and shuffles, the
  // schedulers issue instructions, the busier one sets the pace, and CTA barrier phases
  // add latency. Per round trip of one CTA:
  //     ns = 2.158 * max(F + S, 0.35 * W) + 2.577 * B / warps + 25.9
  // (held-out median error 6.5%, p90 27.8%). Here per conversion (half the constant).
  OpCounts c = CountOps(program);
  Cost cost;
  const int warps = problem.num_warps;
  cost.warp_instructions = c.total() * warps;
  cost.shfl = c.shfl * warps;
  cost.wavefronts_store = wavefronts_store;
  cost.wavefronts_load = wavefronts_load;
  cost.conflicts_store = wavefronts_store - min_store;
  cost.conflicts_load = wavefronts_load - min_load;
  cost.barriers = c.bar;
  cost.cta_barrier = cta_barrier && c.bar > 0;
  // The barriers an interleaved plan adds between components (InterleaveSharedComponents)
  // issue, but add no latency phase: a component's loads wait only for its own stores.
  int64_t phases = c.bar;
  if (!cost.cta_barrier && c.bar > 0) {
    const int groups = InterleavedGroups(program);
    phases -= groups - 1;
    cost.components = groups > 1 ? groups : SharedComponents(program);
  }
  const double pipe = static_cast<double>(wavefronts_store + wavefronts_load + cost.shfl);
  const double issue = 0.35 * static_cast<double>(cost.warp_instructions);
  const double cta_bars = cost.cta_barrier ? static_cast<double>(c.bar) : 0.0;
  cost.ns = 2.158 * std::max(pipe, issue) + 2.577 * cta_bars / warps + 12.9;
  cost.score = Score(cost.warp_instructions,
                     wavefronts_store + wavefronts_load + cost.shfl, phases, cost.cta_barrier);
  return cost;
}

namespace {

bool UsesMatrix(const Program& prog) {
  for (const Op& op : prog.ops) {
    if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) return true;
  }
  return false;
}

// The candidates of one conversion (strategy x word view), in the order they are listed
// and picked from (ties go to the earlier one): per view, registers, shuffle, smem with
// plain accesses, smem with stmatrix/ldmatrix (matrix.h). Each is priced or bounded on
// demand.
class CandidateSet {
 public:
  enum class Kind { kRegisters, kShuffle, kSmem, kMatrix };
  struct Slot {
    size_t view = 0;
    Kind kind = Kind::kRegisters;
    Strategy strategy = Strategy::kRegisters;
    std::optional<ConversionPlan> plan;  // once priced, when the candidate has a plan
    std::optional<CostBound> bound;      // once asked for (bounded kinds)
    bool tried = false;                  // priced (plan: the result, if any)
    bool skipped = false;                // not priced: its bound shows it cannot be chosen
    bool smem() const { return kind == Kind::kSmem || kind == Kind::kMatrix; }
    // Has a lower bound without pricing (SmemBound, ShuffleBound).
    bool bounded() const { return kind != Kind::kRegisters; }
  };

  CandidateSet(const ConversionProblem& p, const PlanOptions& options)
      : p_(p), options_(options), views_(CandidateViews(p, options)) {
    auto allowed = [&](Strategy s) {
      return options.strategy == Strategy::kAuto || options.strategy == s;
    };
    slots_.reserve(4 * views_.size());
    for (size_t v = 0; v < views_.size(); ++v) {
      // (Fields set by name: a braced list of the first three leaves plan and bound to
      // their defaults, which -Wmissing-field-initializers reports.)
      auto add = [&](Kind kind, Strategy strategy) {
        Slot& slot = slots_.emplace_back();
        slot.view = v;
        slot.kind = kind;
        slot.strategy = strategy;
      };
      if (allowed(Strategy::kRegisters)) add(Kind::kRegisters, Strategy::kRegisters);
      if (allowed(Strategy::kShuffle)) add(Kind::kShuffle, Strategy::kShuffle);
      if (allowed(Strategy::kSmem)) {
        if (!options.only_matrix) add(Kind::kSmem, Strategy::kSmem);
        if (!options.no_matrix) add(Kind::kMatrix, Strategy::kSmem);
      }
    }
  }

  std::vector<Slot>& slots() { return slots_; }
  const std::pair<WordView, WordView>& view(const Slot& slot) const { return views_[slot.view]; }
  // Why the requested strategy failed (its last candidate's message), "" if it did not.
  const std::string& why_not() const { return why_not_; }

  // Prices one candidate: lowers it to a program (the register and shuffle programs from
  // the memo when this view was planned before), simplifies it and estimates its cost.
  void Price(Slot& slot) {
    slot.tried = true;
    // Named references, not a structured binding: the lambdas below capture them, which
    // clang 14 (the fuzz build's compiler) rejects for bindings.
    const WordView& sv = views_[slot.view].first;
    const WordView& dv = views_[slot.view].second;
    auto consider = [&](absl::StatusOr<Program> prog, PlanStage stage, int64_t wfs,
                        int64_t wfl, int64_t mins, int64_t minl, bool cta) {
      if (!prog.ok()) {
        if (options_.strategy == slot.strategy) why_not_ = std::string(prog.status().message());
        return;
      }
      ConversionPlan plan;
      plan.strategy = slot.strategy;
      plan.packed = sv.pk() > 0 || dv.pk() > 0;
      plan.src_view = sv;
      plan.dst_view = dv;
      plan.program = *std::move(prog);
      Simplify(plan.program);
      plan.cost = EstimateCost(p_, plan.program, wfs, wfl, mins, minl, cta);
      plan.stage = std::move(stage);
      plan.noop = plan.program.ops.empty() && plan.program.outputs == plan.program.inputs;
      slot.plan = std::move(plan);
    };
    // The register and shuffle candidates depend on the problem and the views alone, so
    // a view priced before (PlanLowerBound prices its register candidates; replans price
    // every view again) takes the plan as it was priced, simplified and costed.
    auto in_warp = [&](auto lower) {
      if (options_.memo != nullptr) {
        for (const SearchMemo::InWarp& e : options_.memo->in_warp) {
          if (e.strategy == slot.strategy && e.sv == sv && e.dv == dv) {
            if (e.plan != nullptr) {
              slot.plan = *e.plan;
            } else if (options_.strategy == slot.strategy) {
              why_not_ = std::string(e.status.message());
            }
            return;
          }
        }
      }
      PlanStage stage;
      absl::StatusOr<Program> prog = lower(&stage);
      const absl::Status status = prog.status();
      consider(std::move(prog), std::move(stage), 0, 0, 0, 0, false);
      if (options_.memo != nullptr) {
        options_.memo->in_warp.push_back(
            {sv, dv, slot.strategy,
             slot.plan ? std::make_shared<const ConversionPlan>(*slot.plan) : nullptr, status});
      }
    };
    switch (slot.kind) {
      case Kind::kRegisters:
        in_warp([&](PlanStage* stage) {
          auto prog = PlanRegisters(p_, sv, dv);
          if (prog.ok()) {
            for (int i = 0; i < static_cast<int>(prog->outputs.size()); ++i) {
              auto it = std::find(prog->inputs.begin(), prog->inputs.end(), prog->outputs[i]);
              stage->mutable_registers()->add_source_word(
                  it == prog->inputs.end() ? -1 : static_cast<int>(it - prog->inputs.begin()));
            }
          }
          return prog;
        });
        break;
      case Kind::kShuffle:
        in_warp([&](PlanStage* stage) {
          return PlanShuffle(p_, sv, dv, !options_.price_all, stage->mutable_shuffle());
        });
        break;
      case Kind::kSmem: {
        PlanStage stage;
        SmemPlanner planner(p_, sv, dv, options_);
        auto prog = planner.Plan(stage.mutable_smem());
        consider(std::move(prog), std::move(stage), planner.wavefronts_store_,
                 planner.wavefronts_load_, planner.min_store_, planner.min_load_,
                 planner.cta_barrier_);
        break;
      }
      case Kind::kMatrix: {
        PlanStage stage;
        if (auto m = PlanMatrixSmem(p_, sv, dv, options_, stage.mutable_smem()); m.ok()) {
          consider(std::move(m->program), std::move(stage), m->wavefronts_store,
                   m->wavefronts_load, m->min_store, m->min_load, m->cta_barrier);
        }
        break;
      }
    }
  }

  // The candidate's SmemBound or ShuffleBound (nullopt for registers).
  // From options.memo when a call with the same views and the options the bound depends
  // on asked for it before (PlanLowerBound, then PlanConversion of the same view).
  const std::optional<CostBound>& Bound(Slot& slot) {
    if (!slot.bound && slot.bounded()) {
      const auto& [sv, dv] = views_[slot.view];
      const bool smem = slot.smem();
      const int kind = static_cast<int>(slot.kind);
      const bool before_store = smem && options_.barrier_before_store;
      const bool cta_barrier = smem && options_.force_cta_barrier;
      const bool no_swizzle = smem && options_.no_swizzle;
      const int max_vector_bytes = smem ? options_.max_vector_bytes : 0;
      if (options_.memo != nullptr) {
        for (const SearchMemo::Bound& e : options_.memo->bounds) {
          if (e.kind == kind && e.barrier_before_store == before_store &&
              e.force_cta_barrier == cta_barrier && e.no_swizzle == no_swizzle &&
              e.max_vector_bytes == max_vector_bytes && e.sv == sv && e.dv == dv) {
            slot.bound = e.bound;
            return slot.bound;
          }
        }
      }
      slot.bound = slot.kind == Kind::kShuffle
                       ? ShuffleBound(p_, sv, dv)
                       : SmemBound(p_, sv, dv, options_, slot.kind == Kind::kMatrix);
      if (options_.memo != nullptr) {
        options_.memo->bounds.push_back(SearchMemo::Bound{sv, dv, kind, before_store,
                                                          cta_barrier, no_swizzle,
                                                          max_vector_bytes, slot.bound});
      }
    }
    return slot.bound;
  }

 private:
  const ConversionProblem& p_;
  const PlanOptions& options_;
  std::vector<std::pair<WordView, WordView>> views_;
  std::vector<Slot> slots_;
  std::string why_not_;
};

}  // namespace

std::optional<CostBound> PlanLowerBound(const ConversionProblem& p, const PlanOptions& options) {
  CandidateSet set(p, options);
  std::optional<CostBound> bound;
  auto add = [&](const CostBound& b) {
    if (!bound) {
      bound = b;
      return;
    }
    bound->warp_instructions = std::min(bound->warp_instructions, b.warp_instructions);
    bound->wavefronts = std::min(bound->wavefronts, b.wavefronts);
    bound->score = std::min(bound->score, b.score);
  };
  for (CandidateSet::Slot& slot : set.slots()) {
    if (slot.bounded()) {
      if (const auto& b = set.Bound(slot)) add(*b);
      continue;
    }
    set.Price(slot);
    if (slot.plan) {
      const Cost& c = slot.plan->cost;
      add(CostBound{c.warp_instructions, c.wavefronts_store + c.wavefronts_load, c.score});
    }
  }
  return bound;
}

namespace {

// Prices the candidates of `set` that can be chosen, and marks the others skipped.
// Ensures: TritonStrategy(p) (kept in options.memo, when there is one, for the next
// call and for the pick).
Strategy PriceCandidates(CandidateSet& set, const ConversionProblem& p,
                         const PlanOptions& options) {
  using Kind = CandidateSet::Kind;
  using Slot = CandidateSet::Slot;
  std::vector<Slot>& slots = set.slots();
  // The pick (PickNotWorseThanTriton) depends on the reference (the best plan of Triton's
  // mechanism, of those with matrix instructions when there are such) and then on the
  // best plan that costs no more than it. So the reference's candidates are priced
  // first, then the others; a shuffle or shared-memory candidate is skipped when its
  // bound shows it cannot be the reference or the pick: its (score, instructions) are
  // above a priced plan's that is (or beats) the reference, or above those of a plan
  // that qualifies, or it cannot qualify (its instructions or wavefronts above the
  // reference's). Skipping only candidates that cannot be chosen leaves the pick as it is
  // (plan_test checks it against `price_all`).
  // Plans are ranked by (score, warp instructions, more components), ties to the earlier
  // candidate (RanksBefore).
  auto better = [](const Slot& a, const Slot& b) {
    return RanksBefore(a.plan->cost, b.plan->cost);
  };
  // Whether a candidate of bound `b` at `slot` ranks after the plan at `other`, whatever
  // its figures. A bound says nothing of components, so an equal bound may still win.
  auto bound_worse = [](const CostBound& b, const Slot& slot, const Slot& other) {
    (void)slot;
    const Cost& y = other.plan->cost;
    return b.score > y.score || (b.score == y.score && b.warp_instructions > y.warp_instructions);
  };
  auto wavefronts = [](const ConversionPlan& c) {
    return c.cost.wavefronts_store + c.cost.wavefronts_load;
  };
  std::optional<Strategy> memo_triton;
  std::optional<Strategy>& triton_of = options.memo != nullptr ? options.memo->triton : memo_triton;
  if (!triton_of) triton_of = TritonStrategy(p);
  const Strategy triton = *triton_of;
  const Slot* ref = nullptr;
  // Prices the reference's candidates of `kind` (those with matrix instructions only when
  // `matrix`), skipping those whose bound ranks them after the reference so far.
  auto price_reference = [&](Kind kind, bool matrix) {
    for (Slot& slot : slots) {
      if (slot.kind != kind || slot.strategy != triton || slot.tried || slot.skipped) continue;
      if (!options.price_all && ref != nullptr && set.Bound(slot) &&
          bound_worse(*slot.bound, slot, *ref)) {
        slot.skipped = true;
        continue;
      }
      set.Price(slot);
      if (slot.plan && (!matrix || UsesMatrix(slot.plan->program)) &&
          (ref == nullptr || better(slot, *ref) || (!better(*ref, slot) && &slot < ref))) {
        ref = &slot;
      }
    }
  };
  if (triton == Strategy::kSmem) {
    price_reference(Kind::kMatrix, true);
    if (ref == nullptr) {
      // No matrix plan of Triton's mechanism: every smem plan is a reference candidate.
      for (Slot& slot : slots) {
        if (slot.plan && slot.strategy == triton && (ref == nullptr || better(slot, *ref))) {
          ref = &slot;
        }
      }
      price_reference(Kind::kSmem, false);
    }
  } else {
    price_reference(triton == Strategy::kShuffle ? Kind::kShuffle : Kind::kRegisters, false);
  }
  // The reference as PickNotWorseThanTriton finds it (the first of the best, in order).
  bool matrix_ref = false;
  for (const Slot& slot : slots) {
    matrix_ref = matrix_ref ||
                 (slot.plan && slot.strategy == triton && UsesMatrix(slot.plan->program));
  }
  ref = nullptr;
  for (const Slot& slot : slots) {
    if (!slot.plan || slot.strategy != triton ||
        (matrix_ref && !UsesMatrix(slot.plan->program))) {
      continue;
    }
    if (ref == nullptr || better(slot, *ref)) ref = &slot;
  }
  auto qualifies = [&](const ConversionPlan& c) {
    return ref == nullptr ||
           (c.cost.warp_instructions <= ref->plan->cost.warp_instructions &&
            wavefronts(c) <= wavefronts(*ref->plan));
  };
  // The first of the best that qualify, so far.
  const Slot* best = nullptr;
  auto consider = [&](const Slot& slot) {
    if (slot.plan && qualifies(*slot.plan) &&
        (best == nullptr || better(slot, *best) || (!better(*best, slot) && &slot < best))) {
      best = &slot;
    }
  };
  for (const Slot& slot : slots) consider(slot);
  // The rest: register candidates first (cheap, and they may lower the best), then the
  // bounded ones.
  for (const bool bounded : {false, true}) {
    for (Slot& slot : slots) {
      if (slot.tried || slot.skipped || slot.bounded() != bounded) continue;
      if (!options.price_all && (ref != nullptr || best != nullptr) && set.Bound(slot)) {
        const CostBound& b = *slot.bound;
        if ((ref != nullptr && (b.warp_instructions > ref->plan->cost.warp_instructions ||
                                b.wavefronts > wavefronts(*ref->plan))) ||
            (best != nullptr && bound_worse(b, slot, *best))) {
          slot.skipped = true;
          continue;
        }
      }
      set.Price(slot);
      consider(slot);
    }
  }
  return triton;
}

// The priced plans (moved out of `set`) and every candidate's line, in candidate order.
void CollectCandidates(CandidateSet& set, const ConversionProblem& p,
                       std::vector<ConversionPlan>& all,
                       std::vector<ConversionPlan::Candidate>& candidates) {
  std::vector<CandidateSet::Slot>& slots = set.slots();
  all.reserve(slots.size());
  candidates.reserve(slots.size());
  for (CandidateSet::Slot& slot : slots) {
    if (!slot.plan && !slot.skipped) continue;  // no plan of this kind
    const auto& [sv, dv] = set.view(slot);
    const bool packed = sv.pk() > 0 || dv.pk() > 0;
    ConversionPlan::Candidate note;
    note.pack = p.element_bits >= 32 ? ConversionPlan::Candidate::Pack::kNone
                : !packed            ? ConversionPlan::Candidate::Pack::kUnpacked
                                     : ConversionPlan::Candidate::Pack::kPacked;
    note.pack_at = !((sv.pk() == 1 && sv.pack[0] == 0) ||
                     (sv.pk() == 2 && sv.pack[0] == 0 && sv.pack[1] == 1));
    note.pack_bit = sv.pack.empty() ? 0 : sv.pack[0];
    note.strategy = slot.strategy;
    if (slot.skipped) {
      note.priced = false;
      note.warp_instructions = slot.bound->warp_instructions;
      note.wavefronts = slot.bound->wavefronts;
    } else {
      note.warp_instructions = slot.plan->cost.warp_instructions;
      note.wavefronts = slot.plan->cost.wavefronts_store + slot.plan->cost.wavefronts_load;
      note.ns = slot.plan->cost.ns;
      all.push_back(*std::move(slot.plan));
    }
    candidates.push_back(note);
  }
}

}  // namespace

absl::StatusOr<ConversionPlan> PlanConversion(const ConversionProblem& p,
                                              const PlanOptions& options) {
  CandidateSet set(p, options);
  const Strategy triton = PriceCandidates(set, p, options);
  std::vector<ConversionPlan> all;
  std::vector<ConversionPlan::Candidate> candidates;
  CollectCandidates(set, p, all, candidates);
  const int pick = PickNotWorseThanTriton(triton, all);
  if (pick < 0) {
    const std::string& why_not = set.why_not();
    return absl::InvalidArgumentError(
        why_not.empty() ? absl::StrCat("--strategy=", StrategyName(options.strategy),
                                       ": cannot do this conversion")
                        : absl::StrCat("--strategy=", StrategyName(options.strategy), ": ",
                                       why_not));
  }
  ConversionPlan chosen = std::move(all[pick]);
  chosen.candidates = std::move(candidates);
  // A warp-local shared-memory plan runs component by component (program.h).
  if (chosen.stage.has_smem() && chosen.stage.smem().warp_local() &&
      chosen.stage.smem().rounds() <= 1) {
    const int components = InterleaveSharedComponents(chosen.program);
    if (components > 1) {
      chosen.stage.mutable_smem()->set_components(components);
      chosen.cost = EstimateCost(p, chosen.program, chosen.cost.wavefronts_store,
                                 chosen.cost.wavefronts_load,
                                 chosen.cost.wavefronts_store - chosen.cost.conflicts_store,
                                 chosen.cost.wavefronts_load - chosen.cost.conflicts_load,
                                 /*cta_barrier=*/false);
      // Its candidate line shows the plan as it runs: the pick-th priced candidate.
      int priced = -1;
      for (ConversionPlan::Candidate& note : chosen.candidates) {
        if (note.priced && ++priced == pick) {
          note.warp_instructions = chosen.cost.warp_instructions;
          note.ns = chosen.cost.ns;
          break;
        }
      }
    }
  }
  return chosen;
}

warpcheck::Plan ToProto(const ConversionProblem& problem, const ConversionPlan& plan) {
  warpcheck::Plan out;
  out.set_strategy(plan.noop ? warpcheck::Plan::noop
                   : plan.strategy == Strategy::kRegisters ? warpcheck::Plan::registers
                   : plan.strategy == Strategy::kShuffle   ? warpcheck::Plan::shuffle
                                                           : warpcheck::Plan::smem);
  OpCounts c = CountOps(plan.program);
  PlanCounts* counts = out.mutable_counts();
  counts->set_shfl(c.shfl);
  counts->set_selp(c.selp);
  counts->set_prmt(c.prmt);
  counts->set_st_shared(c.st_shared);
  counts->set_ld_shared(c.ld_shared);
  counts->set_stmatrix(c.stmatrix);
  counts->set_ldmatrix(c.ldmatrix);
  counts->set_bar(c.bar);
  counts->set_instructions(c.total());
  out.set_smem_bytes(plan.program.smem_bytes);
  out.mutable_wavefronts()->set_store(plan.cost.wavefronts_store);
  out.mutable_wavefronts()->set_load(plan.cost.wavefronts_load);
  out.mutable_bank_conflicts()->set_store(plan.cost.conflicts_store);
  out.mutable_bank_conflicts()->set_load(plan.cost.conflicts_load);
  out.set_wavefronts_source("predicted");
  out.set_src(problem.src_attr);
  out.set_dst(problem.dst_attr);
  for (int64_t s : problem.shape) out.add_shape(s);
  out.set_dtype(DTypeName(problem.dtype));
  out.set_num_warps(problem.num_warps);
  *out.mutable_src_layout() = layout::ToProto(problem.src_layout);
  *out.mutable_dst_layout() = layout::ToProto(problem.dst_layout);
  out.mutable_packing()->set_elements_per_word(1 << plan.src_view.pk());
  out.mutable_packing()->set_words_per_element(plan.src_view.upw);
  if (!plan.noop) *out.add_stages() = plan.stage;
  out.set_predicted_ns(plan.cost.ns);
  for (std::string& s : CandidateLines(plan)) out.add_candidates(std::move(s));
  return out;
}

std::vector<std::string> CandidateLines(const ConversionPlan& plan) {
  std::vector<std::string> out;
  out.reserve(plan.candidates.size());
  for (const ConversionPlan::Candidate& c : plan.candidates) {
    using Pack = ConversionPlan::Candidate::Pack;
    const std::string pack = c.pack == Pack::kNone       ? ""
                             : c.pack == Pack::kUnpacked ? "unpacked"
                                                         : absl::StrCat("packed", c.pack_at ? "@" : "",
                                                                        c.pack_bit);
    if (!c.priced) {
      out.push_back(absl::StrFormat(
          "%s%s%s: not priced, lower bound %d warp instructions, %d wavefronts",
          StrategyName(c.strategy), pack.empty() ? "" : "/", pack, c.warp_instructions,
          c.wavefronts));
      continue;
    }
    out.push_back(absl::StrFormat("%s%s%s: %d warp instructions, %.1f ns",
                                  StrategyName(c.strategy), pack.empty() ? "" : "/", pack,
                                  c.warp_instructions, c.ns));
  }
  return out;
}

}  // namespace warpcheck::sim::plan
