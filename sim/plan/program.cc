#include "sim/plan/program.h"

#include <algorithm>
#include <array>
#include <functional>
#include <bit>
#include <cstddef>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace warpcheck::sim::plan {

int Program::AddSetup(const SetupValue& v) {
  for (size_t i = 0; i < setup.size(); ++i) {
    if (setup[i] == v) return static_cast<int>(i);
  }
  setup.push_back(v);
  return static_cast<int>(setup.size()) - 1;
}

OpCounts CountOps(const Program& p) {
  OpCounts c;
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp: ++c.selp; break;
      case OpKind::kShflBfly:
      case OpKind::kShflIdx: ++c.shfl; break;
      case OpKind::kPrmt: ++c.prmt; break;
      case OpKind::kStShared: ++c.st_shared; break;
      case OpKind::kStMatrix: ++c.stmatrix; break;
      case OpKind::kLdShared: ++c.ld_shared; break;
      case OpKind::kLdMatrix: ++c.ldmatrix; break;
      case OpKind::kBarSync:
      case OpKind::kBarWarp: ++c.bar; break;
    }
  }
  return c;
}

Program Compose(const Program& first, const Program& second) {
  Program out = first;
  std::vector<int> setup_map;
  for (const SetupValue& v : second.setup) setup_map.push_back(out.AddSetup(v));
  std::vector<int> words(second.num_words, -1);
  for (size_t i = 0; i < second.inputs.size(); ++i) words[second.inputs[i]] = first.outputs[i];
  for (int& w : words) if (w < 0) w = out.NewWord();
  for (Op op : second.ops) {
    for (int& id : op.in) id = words[id];
    for (int& id : op.out) id = words[id];
    if (op.pred >= 0) op.pred = setup_map[op.pred];
    if (op.addr >= 0) op.addr = setup_map[op.addr];
    out.ops.push_back(std::move(op));
  }
  out.outputs.clear();
  for (int id : second.outputs) out.outputs.push_back(words[id]);
  out.smem_bytes = std::max(first.smem_bytes, second.smem_bytes);
  return out;
}

namespace {

// The ops whose inputs Simplify resolves or merges (value numbering, selects and byte
// permutes through their operands' definitions).
bool Rewritable(const Op& op) {
  return op.kind == OpKind::kSelp || op.kind == OpKind::kShflBfly ||
         op.kind == OpKind::kShflIdx || op.kind == OpKind::kPrmt;
}

// Ensures: p without the ops whose results nothing uses (no output, no op kept).
void RemoveDeadOps(Program& p) {
  std::vector<Op>& ops = p.ops;
  std::vector<uint8_t> live(static_cast<size_t>(p.num_words), 0);
  for (int id : p.outputs) live[id] = 1;
  std::vector<uint8_t> keep(ops.size(), 0);
  for (size_t i = ops.size(); i-- > 0;) {
    const Op& op = ops[i];
    bool effect = op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix ||
                  op.kind == OpKind::kBarSync ||
                  op.kind == OpKind::kBarWarp;
    bool used = effect;
    for (int id : op.out) used = used || live[id];
    if (!used) continue;
    keep[i] = 1;
    for (int id : op.in) live[id] = 1;
  }
  size_t live_ops = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!keep[i]) continue;
    if (live_ops != i) ops[live_ops] = std::move(ops[i]);
    ++live_ops;
  }
  ops.resize(live_ops);
}

// Requires: op.in.size() <= 2. Ensures: a key equal for two such ops exactly when their
// kind, pred, addr, imm and in are.
std::array<uint64_t, 3> NumberingKey(const Op& op) {
  const uint64_t n = op.in.size();
  const uint64_t head = (uint64_t{static_cast<uint32_t>(op.kind)} << 2 | n) << 32 |
                        static_cast<uint32_t>(op.pred);
  const uint64_t in0 = n > 0 ? static_cast<uint32_t>(op.in[0]) : 0;
  const uint64_t in1 = n > 1 ? static_cast<uint32_t>(op.in[1]) : 0;
  return {head, uint64_t{static_cast<uint32_t>(op.addr)} << 32 | op.imm, in0 << 32 | in1};
}

// Ensures: the word numbered `key` (`word` when the key is new) and whether it is new.
template <typename Map>
std::pair<int, bool> Number(Map& numbers, const typename Map::key_type& key, int word) {
  const auto [it, fresh] = numbers.try_emplace(key, word);
  return {it->second, fresh};
}

}  // namespace

void Simplify(Program& p) {
  // Without an op to rewrite, the pass below aliases no word and keeps every op where it
  // is (only Rewritable ops are resolved, merged or dropped there): only dead ops go.
  if (std::none_of(p.ops.begin(), p.ops.end(), Rewritable)) {
    RemoveDeadOps(p);
    return;
  }
  std::vector<int> alias(p.num_words);
  for (int i = 0; i < p.num_words; ++i) alias[i] = i;
  std::vector<int> def(p.num_words, -1);  // index into `ops` of the defining op
  // The ops kept so far are p.ops[0, kept), compacted in place (an op is moved to an
  // index at or below its own, after every op it may look up through `def`).
  std::vector<Op>& ops = p.ops;
  size_t kept = 0;
  // Value numbering by (kind, pred, addr, imm, in): packed into three words for the
  // ops with at most two inputs (every Rewritable op the planners make), hashed as
  // they are; a wider op (none yet) keys the map of its own.
  absl::flat_hash_map<std::array<uint64_t, 3>, int> cse;
  absl::flat_hash_map<std::tuple<int, int, int, uint32_t, Words>, int> cse_wide;
  for (size_t at = 0; at < ops.size(); ++at) {
    Op& op = ops[at];
    for (int& id : op.in) id = alias[id];
    if (op.kind == OpKind::kSelp) {
      int& x = op.in[0];
      int& y = op.in[1];
      while (def[x] >= 0 && ops[def[x]].kind == OpKind::kSelp && ops[def[x]].pred == op.pred) {
        x = ops[def[x]].in[0];
      }
      while (def[y] >= 0 && ops[def[y]].kind == OpKind::kSelp && ops[def[y]].pred == op.pred) {
        y = ops[def[y]].in[1];
      }
      if (x == y) {
        alias[op.out[0]] = x;
        continue;
      }
    }
    if (op.kind == OpKind::kPrmt) {
      // Resolve each result byte through prmts that define the operands.
      int word[4];
      int byte[4];
      for (int k = 0; k < 4; ++k) {
        uint32_t n = (op.imm >> (4 * k)) & 7;
        int w = op.in[n >> 2];
        int b = static_cast<int>(n & 3);
        if (def[w] >= 0 && ops[def[w]].kind == OpKind::kPrmt) {
          const Op& d = ops[def[w]];
          uint32_t m = (d.imm >> (4 * b)) & 7;
          w = d.in[m >> 2];
          b = static_cast<int>(m & 3);
        }
        word[k] = w;
        byte[k] = b;
      }
      std::vector<int> distinct;
      for (int w : word) {
        if (std::find(distinct.begin(), distinct.end(), w) == distinct.end()) distinct.push_back(w);
      }
      if (distinct.size() == 1 && byte[0] == 0 && byte[1] == 1 && byte[2] == 2 && byte[3] == 3) {
        alias[op.out[0]] = distinct[0];
        continue;
      }
      if (distinct.size() <= 2) {
        uint32_t sel = 0;
        for (int k = 0; k < 4; ++k) {
          uint32_t n = static_cast<uint32_t>(byte[k]) + (word[k] == distinct[0] ? 0 : 4);
          sel |= n << (4 * k);
        }
        op.in = {distinct[0], distinct.size() == 2 ? distinct[1] : distinct[0]};
        op.imm = sel;
      }
    }
    if (Rewritable(op)) {
      const auto [known, fresh] =
          op.in.size() <= 2
              ? Number(cse, NumberingKey(op), op.out[0])
              : Number(cse_wide,
                       std::make_tuple(static_cast<int>(op.kind), op.pred, op.addr, op.imm, op.in),
                       op.out[0]);
      if (!fresh) {
        alias[op.out[0]] = known;
        continue;
      }
    }
    for (int id : op.out) def[id] = static_cast<int>(kept);
    if (kept != at) ops[kept] = std::move(op);
    ++kept;
  }
  ops.resize(kept);
  for (int& id : p.outputs) id = alias[id];
  RemoveDeadOps(p);
}

namespace {

bool IsBarrier(const Op& op) { return op.kind == OpKind::kBarSync || op.kind == OpKind::kBarWarp; }
bool IsStore(const Op& op) { return op.kind == OpKind::kStShared || op.kind == OpKind::kStMatrix; }
bool IsLoad(const Op& op) { return op.kind == OpKind::kLdShared || op.kind == OpKind::kLdMatrix; }

// Bytes one thread's access covers at its address (a matrix op: one 16-byte row).
int64_t AccessBytes(const Op& op) {
  if (op.kind == OpKind::kStMatrix || op.kind == OpKind::kLdMatrix) return 16;
  const size_t words = op.kind == OpKind::kStShared ? op.in.size() : op.out.size();
  return int64_t{op.elem_bytes} * static_cast<int64_t>(words);
}

// The element offset bits an op's address names besides the thread part (the setup
// constant and the immediate: the planners keep them disjoint from the thread part).
uint32_t OpOffset(const Program& p, const Op& op, int eb) {
  return p.setup[op.addr].constant ^ (op.imm / static_cast<uint32_t>(eb));
}

// x with the bits of `drop` removed (the bits above each shift down).
uint32_t Compress(uint32_t x, uint32_t drop) {
  uint32_t out = 0;
  int k = 0;
  for (int b = 0; b < 32; ++b) {
    if ((drop >> b) & 1) continue;
    if ((x >> b) & 1) out |= 1u << k;
    ++k;
  }
  return out;
}

// The ops' shape: leading barriers, then groups {stores, barrier, loads}. With
// `separated` (rounds, ChunkSharedRounds) one barrier of either kind separates the
// groups; without (components, InterleaveSharedComponents) the groups follow each other
// directly and every barrier after the leading ones is a warp barrier. Ensures: the
// number of groups and the leading barriers, and the groups (store and load op indices)
// unless `stores` and `loads` are null (the cost model only counts them, for every plan
// it prices); 0 when the ops are not of that shape.
int SplitGroups(const Program& p, bool separated, size_t* lead,
                std::vector<std::vector<size_t>>* stores,
                std::vector<std::vector<size_t>>* loads) {
  auto closes = [&](const Op& op) {
    return separated ? IsBarrier(op) : op.kind == OpKind::kBarWarp;
  };
  const size_t n = p.ops.size();
  size_t k = 0;
  while (k < n && IsBarrier(p.ops[k])) ++k;
  *lead = k;
  int groups = 0;
  // Appends op indices [from, to) to the last group of `list`, when listing.
  auto list = [](std::vector<std::vector<size_t>>* list, size_t from, size_t to) {
    if (list == nullptr) return;
    list->emplace_back();
    for (size_t i = from; i < to; ++i) list->back().push_back(i);
  };
  while (k < n) {
    const size_t first_store = k;
    while (k < n && IsStore(p.ops[k])) ++k;
    list(stores, first_store, k);
    if (k == first_store || k == n || !closes(p.ops[k])) return 0;
    const size_t first_load = ++k;
    while (k < n && IsLoad(p.ops[k])) ++k;
    list(loads, first_load, k);
    if (k == first_load) return 0;
    if (separated && k < n) {
      if (!IsBarrier(p.ops[k])) return 0;
      ++k;
    }
    ++groups;
  }
  return groups;
}
bool SplitRounds(const Program& p, size_t* lead, std::vector<std::vector<size_t>>* stores,
                 std::vector<std::vector<size_t>>* loads) {
  return SplitGroups(p, /*separated=*/true, lead, stores, loads) > 0;
}
bool SplitInterleaved(const Program& p, size_t* lead, std::vector<std::vector<size_t>>* stores,
                      std::vector<std::vector<size_t>>* loads) {
  return SplitGroups(p, /*separated=*/false, lead, stores, loads) > 0;
}

}  // namespace

int ChunkSharedRounds(Program& p, int64_t max_bytes) {
  if (max_bytes <= 0 || p.smem_bytes <= max_bytes) return 1;
  size_t lead = 0;
  std::vector<std::vector<size_t>> stores, loads;
  if (!SplitRounds(p, &lead, &stores, &loads) || stores.size() != 1) return 1;
  int eb = 0;
  uint32_t thread_bits = 0;
  for (const SetupValue& v : p.setup) {
    if (v.kind != SetupValue::Kind::kSmemAddr) continue;
    eb = v.element_bytes;
    for (uint32_t c : v.coeff) thread_bits |= c;
  }
  if (eb <= 0 || p.smem_bytes % eb != 0) return 1;
  const int64_t elements = p.smem_bytes / eb;
  if ((elements & (elements - 1)) != 0) return 1;
  int64_t widest = 0;
  for (const Op& op : p.ops) {
    if (!IsStore(op) && !IsLoad(op)) continue;
    if (op.addr < 0 || p.setup[op.addr].kind != SetupValue::Kind::kSmemAddr) return 1;
    widest = std::max(widest, AccessBytes(op));
  }
  // The highest round bits first, as many as the budget needs.
  uint32_t drop = 0;
  int64_t bytes = p.smem_bytes;
  for (int b = std::countr_zero(static_cast<uint64_t>(elements)) - 1; b >= 0 && bytes > max_bytes;
       --b) {
    const int64_t weight = int64_t{eb} << b;
    if (((thread_bits >> b) & 1) || weight < 128 || weight < widest) continue;
    drop |= 1u << b;
    bytes /= 2;
  }
  if (drop == 0) return 1;
  const int rounds = 1 << std::popcount(drop);
  std::vector<std::vector<Op>> round_stores(rounds), round_loads(rounds);
  auto round_of = [&](const Op& op) {
    uint32_t q = 0;
    int k = 0;
    const uint32_t o = OpOffset(p, op, eb);
    for (int b = 0; b < 32; ++b) {
      if (!((drop >> b) & 1)) continue;
      if ((o >> b) & 1) q |= 1u << k;
      ++k;
    }
    return q;
  };
  for (size_t i : stores[0]) round_stores[round_of(p.ops[i])].push_back(p.ops[i]);
  for (size_t i : loads[0]) round_loads[round_of(p.ops[i])].push_back(p.ops[i]);
  const Op barrier = p.ops[stores[0].back() + 1];
  std::vector<Op> ops(p.ops.begin(), p.ops.begin() + static_cast<std::ptrdiff_t>(lead));
  for (int q = 0; q < rounds; ++q) {
    if (q > 0) ops.push_back(barrier);
    for (Op& op : round_stores[q]) ops.push_back(std::move(op));
    ops.push_back(barrier);
    for (Op& op : round_loads[q]) ops.push_back(std::move(op));
  }
  for (Op& op : ops) {
    if (IsStore(op) || IsLoad(op)) {
      op.imm = Compress(op.imm / static_cast<uint32_t>(eb), drop) * static_cast<uint32_t>(eb);
    }
  }
  for (SetupValue& v : p.setup) {
    if (v.kind != SetupValue::Kind::kSmemAddr) continue;
    for (uint32_t& c : v.coeff) c = Compress(c, drop);
    v.constant = Compress(v.constant, drop);
  }
  // Addresses of different rounds may now be one setup value: computed once.
  std::vector<SetupValue> setup = std::move(p.setup);
  p.setup.clear();
  std::vector<int> id(setup.size());
  for (size_t i = 0; i < setup.size(); ++i) id[i] = p.AddSetup(setup[i]);
  for (Op& op : ops) {
    if (op.pred >= 0) op.pred = id[op.pred];
    if (op.addr >= 0) op.addr = id[op.addr];
  }
  p.ops = std::move(ops);
  p.smem_bytes = bytes;
  return rounds;
}

bool SharedComponentKeys(const Program& p, std::vector<uint32_t>* keys) {
  int eb = 0;
  bool any = false;
  for (const Op& op : p.ops) {
    if (!IsStore(op) && !IsLoad(op)) continue;
    if (op.addr < 0 || p.setup[op.addr].kind != SetupValue::Kind::kSmemAddr) return false;
    const int e = p.setup[op.addr].element_bytes;
    if (e <= 0 || (any && e != eb)) return false;
    eb = e;
    any = true;
  }
  if (!any) return false;
  // V in echelon form (no two vectors share their highest bit), largest first; at most 32.
  absl::InlinedVector<uint32_t, 32> span;
  auto reduce = [&](uint32_t v) {
    for (uint32_t b : span) v = std::min(v, v ^ b);
    return v;
  };
  auto add = [&](uint32_t v) {
    v = reduce(v);
    if (v == 0) return;
    span.insert(std::upper_bound(span.begin(), span.end(), v, std::greater<uint32_t>()), v);
  };
  // V is a set: each distinct coefficient list is added once (the accesses of one side
  // share one, with different constants), and the element bits below the widest access
  // once (a narrower access's are among them). The keys do not depend on the order the
  // vectors came in: reduce clears V's pivot bits, which V determines, and the member of
  // a coset with none of them set is unique.
  absl::InlinedVector<const std::vector<uint32_t>*, 4> added;
  int64_t widest = 1;
  for (const Op& op : p.ops) {
    if (!IsStore(op) && !IsLoad(op)) continue;
    const std::vector<uint32_t>& coeff = p.setup[op.addr].coeff;
    if (std::none_of(added.begin(), added.end(),
                     [&](const std::vector<uint32_t>* a) { return *a == coeff; })) {
      added.push_back(&coeff);
      for (uint32_t c : coeff) add(c);
    }
    widest = std::max(widest, AccessBytes(op) / eb);
  }
  for (int64_t b = 1; b < widest; b <<= 1) add(static_cast<uint32_t>(b));
  keys->assign(p.ops.size(), 0);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (IsStore(p.ops[i]) || IsLoad(p.ops[i])) (*keys)[i] = reduce(OpOffset(p, p.ops[i], eb));
  }
  return true;
}

namespace {

// A one-round shared conversion's stores and loads and their component keys.
bool ComponentKeys(const Program& p, size_t* lead, std::vector<size_t>* stores,
                   std::vector<size_t>* loads, std::vector<uint32_t>* keys) {
  std::vector<std::vector<size_t>> s, l;
  if (!SplitRounds(p, lead, &s, &l) || s.size() != 1) return false;
  if (!SharedComponentKeys(p, keys)) return false;
  *stores = std::move(s[0]);
  *loads = std::move(l[0]);
  return true;
}

}  // namespace

int SharedComponents(const Program& p) {
  // (Counted without listing the group: the cost model asks this of every warp-local
  // plan it prices. In a program of one group every access is the group's.)
  size_t lead = 0;
  std::vector<uint32_t> keys;
  if (SplitGroups(p, /*separated=*/true, &lead, nullptr, nullptr) != 1 ||
      !SharedComponentKeys(p, &keys)) {
    return 1;
  }
  std::vector<uint32_t> distinct;
  distinct.reserve(p.ops.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (IsStore(p.ops[i]) || IsLoad(p.ops[i])) distinct.push_back(keys[i]);
  }
  std::sort(distinct.begin(), distinct.end());
  return static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
}

int InterleaveSharedComponents(Program& p) {
  size_t lead = 0;
  std::vector<size_t> stores, loads;
  std::vector<uint32_t> keys;
  if (!ComponentKeys(p, &lead, &stores, &loads, &keys)) return 1;
  const Op barrier = p.ops[stores.back() + 1];
  if (barrier.kind != OpKind::kBarWarp) return 1;
  // Components in the order of their first store; a load whose key no store has reads
  // what no op of this conversion wrote: leave such a program alone.
  std::vector<uint32_t> order;
  for (size_t i : stores) {
    if (std::find(order.begin(), order.end(), keys[i]) == order.end()) order.push_back(keys[i]);
  }
  for (size_t i : loads) {
    if (std::find(order.begin(), order.end(), keys[i]) == order.end()) return 1;
  }
  if (order.size() < 2) return 1;
  std::vector<Op> ops(p.ops.begin(), p.ops.begin() + static_cast<std::ptrdiff_t>(lead));
  ops.reserve(p.ops.size() + order.size() - 1);
  for (uint32_t key : order) {
    for (size_t i : stores) {
      if (keys[i] == key) ops.push_back(p.ops[i]);
    }
    ops.push_back(barrier);
    for (size_t i : loads) {
      if (keys[i] == key) ops.push_back(p.ops[i]);
    }
  }
  p.ops = std::move(ops);
  return static_cast<int>(order.size());
}

int InterleavedGroups(const Program& p) {
  size_t lead = 0;
  return std::max(1, SplitGroups(p, /*separated=*/false, &lead, nullptr, nullptr));
}

int SequenceSharedComponents(Program& p) {
  size_t lead = 0;
  std::vector<std::vector<size_t>> stores, loads;
  if (!SplitInterleaved(p, &lead, &stores, &loads) || stores.size() < 2) return 1;
  const Op barrier = p.ops[stores[0].back() + 1];
  std::vector<Op> ops(p.ops.begin(), p.ops.begin() + static_cast<std::ptrdiff_t>(lead));
  for (const auto& group : stores) {
    for (size_t i : group) ops.push_back(p.ops[i]);
  }
  ops.push_back(barrier);
  for (const auto& group : loads) {
    for (size_t i : group) ops.push_back(p.ops[i]);
  }
  const int components = static_cast<int>(stores.size());
  p.ops = std::move(ops);
  return components;
}

int UnchunkSharedRounds(Program& p) {
  size_t lead = 0;
  std::vector<std::vector<size_t>> stores, loads;
  if (!SplitRounds(p, &lead, &stores, &loads) || stores.size() < 2) return 1;
  const int rounds = static_cast<int>(stores.size());
  const Op barrier = p.ops[stores[0].back() + 1];
  std::vector<Op> ops(p.ops.begin(), p.ops.begin() + static_cast<std::ptrdiff_t>(lead));
  auto take = [&](const std::vector<std::vector<size_t>>& groups) {
    for (int q = 0; q < rounds; ++q) {
      for (size_t i : groups[q]) {
        Op op = p.ops[i];
        op.imm += static_cast<uint32_t>(q * p.smem_bytes);
        ops.push_back(std::move(op));
      }
    }
  };
  take(stores);
  ops.push_back(barrier);
  take(loads);
  p.ops = std::move(ops);
  p.smem_bytes *= rounds;
  return rounds;
}

std::string ProgramToString(const Program& p) {
  auto words = [](const Words& ids) {
    return absl::StrJoin(ids, ", ", [](std::string* out, int id) {
      absl::StrAppend(out, "w", id);
    });
  };
  std::string s;
  for (const Op& op : p.ops) {
    switch (op.kind) {
      case OpKind::kSelp:
        absl::StrAppend(&s, "  w", op.out[0], " = s", op.pred, " ? w", op.in[0], " : w",
                        op.in[1], "\n");
        break;
      case OpKind::kShflBfly:
        absl::StrAppend(&s, "  w", op.out[0], " = shfl.bfly(w", op.in[0], ", ", op.imm,
                        ")\n");
        break;
      case OpKind::kShflIdx:
        absl::StrAppend(&s, "  w", op.out[0], " = shfl.idx(w", op.in[0], ", s", op.addr,
                        ")\n");
        break;
      case OpKind::kPrmt:
        absl::StrAppend(&s, "  w", op.out[0], " = prmt(w", op.in[0], ", w", op.in[1],
                        ", 0x", absl::Hex(op.imm), ")\n");
        break;
      case OpKind::kStShared:
        absl::StrAppend(&s, "  ", op.pred >= 0 ? absl::StrCat("@s", op.pred, " ") : "",
                        "st.shared [s", op.addr, "+", op.imm, "] = {", words(op.in), "} x",
                        op.elem_bytes, "B\n");
        break;
      case OpKind::kLdShared:
        absl::StrAppend(&s, "  {", words(op.out), "} = ld.shared [s", op.addr, "+", op.imm,
                        "] x", op.elem_bytes, "B\n");
        break;
      case OpKind::kStMatrix:
        absl::StrAppend(&s, "  ", op.pred >= 0 ? absl::StrCat("@s", op.pred, " ") : "",
                        "stmatrix", op.trans ? ".trans" : "", " [s", op.addr, "+",
                        op.imm, "] = {", words(op.in), "}\n");
        break;
      case OpKind::kLdMatrix:
        absl::StrAppend(&s, "  {", words(op.out), "} = ldmatrix", op.trans ? ".trans" : "",
                        " [s", op.addr, "+", op.imm, "]\n");
        break;
      case OpKind::kBarSync: absl::StrAppend(&s, "  bar.sync 0\n"); break;
      case OpKind::kBarWarp: absl::StrAppend(&s, "  bar.warp.sync -1\n"); break;
    }
  }
  return s;
}

}  // namespace warpcheck::sim::plan
