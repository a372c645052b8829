#include "sim/signal/symmetry.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace warpcheck::sim::signal {

std::string SymmetryGroup::Describe() const {
  if (kind == "none") return absl::StrCat("none (", reason, ")");
  return absl::StrCat(kind, " of ", order, " ranks (", order, " elements)");
}

namespace {

// A partial bijection built from pairs (x -> y); false when a pair contradicts it.
struct PairMap {
  std::map<int64_t, int64_t> fwd, bwd;
  bool Add(int64_t x, int64_t y) {
    auto f = fwd.find(x);
    auto b = bwd.find(y);
    if (f != fwd.end() || b != bwd.end()) return f != fwd.end() && f->second == y && b != bwd.end();
    fwd.emplace(x, y);
    bwd.emplace(y, x);
    return true;
  }
};

struct WalkStep {
  int op = -1;
  std::vector<int64_t> frame;
  std::vector<bool> unknown;
};

// Checks the generator r -> r + 1 mod N (symmetry.h) and builds the group's elements.
class Detector {
 public:
  explicit Detector(const Machine& m) : m_(m), p_(m.program()), n_(p_.ranks) {}

  SymmetryGroup Run() {
    SymmetryGroup g;
    if (!StaticChecks() || !AgentLayout() || !Walks() || !AddersOneRank() ||
        !BuildGenerator() || !SetChecks()) {
      g.reason = why_;
      return g;
    }
    g.kind = "rotation";
    g.order = n_;
    BuildElements(&g);
    return g;
  }

 private:
  bool Fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }

  bool StaticChecks() {
    if (n_ < 2) return Fail("one rank");
    if (p_.ranks_per_node > 0 && p_.ranks_per_node < n_)
      return Fail("ranks span several nodes (ranks_per_node)");
    // Machine::WriteWord keeps, of two releasing adds to a word, the lowest-numbered
    // agent's scope. A rotation keeps the order of the agents of one rank, not of two, and
    // the choice matters only when that scope (gpu, cta: who is included depends on the
    // agent) or the reader's is narrow: such words must be added to from one rank only
    // (AddersOneRank, after the walks).
    // Control flow on a value known only at run time (an ATOMIC result, a token, a loop
    // variable bounded by one) is walked both ways, so the walks cannot show whether
    // the ranks branch alike when it also reads the rank (`IF old == r`): no group then.
    // (Every other slot that differs between ranks fails the walks' frame check.)
    std::set<int> runtime;
    for (const Op& op : p_.ops)
      for (int slot : {op.result_slot, op.token_slot})
        if (slot >= 0) runtime.insert(slot);
    auto reads = [](const Ex& e, const std::set<int>& slots) {
      for (int slot : e.slots())
        if (slots.count(slot)) return true;
      return false;
    };
    for (bool grew = true; grew;) {
      grew = false;
      for (const Op& op : p_.ops)
        if (op.kind == FOR && !runtime.count(op.var_slot) &&
            (reads(op.from, runtime) || reads(op.to, runtime) || reads(op.step, runtime)))
          grew = runtime.insert(op.var_slot).second;
    }
    const std::set<int> rank{kSlotR};
    for (const Op& op : p_.ops) {
      if (op.kind != IF && op.kind != FOR) continue;
      bool on_runtime = false, on_rank = false;
      for (const Ex* e : {&op.cond, &op.from, &op.to, &op.step}) {
        on_runtime |= reads(*e, runtime);
        on_rank |= reads(*e, rank);
      }
      if (on_runtime && on_rank)
        return Fail(absl::StrCat(op.path, ": control flow on the rank and a value known only "
                                 "at run time"));
    }
    std::set<int> added;
    for (const Op& op : p_.ops)
      if (IsAdd(op)) added.insert(op.kind == PUTSIG ? op.signal_object : op.object);
    for (const Op& op : p_.ops)
      if ((op.scope == GPU || op.scope == CTA) && added.count(op.object))
        narrow_added_.insert(op.object);
    return true;
  }

  static bool IsAdd(const Op& op) {
    return op.kind == ATOMIC_ADD ||
           ((op.kind == NOTIFY || op.kind == SIGNAL_OP) && op.sig_op == ADD) ||
           (op.kind == PUTSIG && op.signal_op == ADD);
  }

  bool AddersOneRank() {
    for (const auto& [key, ranks] : adders_)
      if (ranks.size() > 1)
        return Fail(absl::StrCat(m_.WordName(key), " is added to from ranks ", *ranks.begin(),
                                 " and ", *ranks.rbegin(), " and read at gpu/cta scope (the "
                                 "lowest-numbered releasing adder's scope decides)"));
    return true;
  }

  // Every rank has the same agents in the same order; the generator maps the j-th agent
  // of rank r to the j-th of rank r + 1.
  bool AgentLayout() {
    std::vector<std::vector<int>> by_rank(n_);
    for (int a = 0; a < m_.num_agents(); ++a) by_rank[m_.info(a).rank].push_back(a);
    auto sig = [&](int a) {
      const AgentInfo& i = m_.info(a);
      return std::make_tuple(static_cast<int>(i.kind), i.stream, i.kernel, i.launch, i.cta,
                             i.kernel_launch, i.launch_size);
    };
    gen_agent_.assign(m_.num_agents(), -1);
    for (int r = 0; r < n_; ++r) {
      const auto& mine = by_rank[r];
      const auto& next = by_rank[(r + 1) % n_];
      if (mine.size() != next.size())
        return Fail(absl::StrCat("rank ", r, " has ", mine.size(), " agents, rank ", (r + 1) % n_,
                                 " ", next.size()));
      for (size_t j = 0; j < mine.size(); ++j) {
        if (sig(mine[j]) != sig(next[j]))
          return Fail(absl::StrCat(m_.info(mine[j]).name, " and ", m_.info(next[j]).name,
                                   " differ (stream, kernel, launch or grid)"));
        gen_agent_[mine[j]] = next[j];
      }
    }
    return true;
  }

  std::vector<WalkStep> Walk(int a) {
    std::vector<WalkStep> out;
    bool complete = m_.WalkProgram(
        a, [&](const Op& op, const int64_t* frame, const std::vector<bool>& unknown) {
          out.push_back(WalkStep{op.id, std::vector<int64_t>(frame, frame + p_.num_slots()),
                                 unknown});
        });
    if (!complete) out.clear(), walk_overflow_ = true;
    return out;
  }

  bool Walks() {
    for (int a = 0; a < m_.num_agents(); ++a) {
      const int b = gen_agent_[a];
      std::vector<WalkStep> x = Walk(a), y = Walk(b);
      if (walk_overflow_) return Fail(absl::StrCat(m_.info(a).name, ": its walk is too long to compare"));
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
        if (!SameStep(a, b, x[i], y[i])) return false;
      if (x.size() != y.size())
        return Fail(absl::StrCat(m_.info(a).name, " runs ", x.size(), " ops, ", m_.info(b).name,
                                 " ", y.size()));
    }
    return true;
  }

  bool SameStep(int a, int b, WalkStep& x, WalkStep& y) {
    const Op& op = p_.ops[x.op];
    auto where = [&] {
      return absl::StrCat(op.site, " of ", m_.info(a).name, " and ", m_.info(b).name);
    };
    if (x.op != y.op) return Fail(absl::StrCat(m_.info(a).name, " reaches ", op.site, " where ",
                                               m_.info(b).name, " reaches ", p_.ops[y.op].site));
    for (int s = 0; s < p_.num_slots(); ++s) {
      if (s == kSlotR || s == kSlotL) continue;
      if (x.unknown[s] != y.unknown[s] || (!x.unknown[s] && x.frame[s] != y.frame[s]))
        return Fail(absl::StrCat(where(), ": ", p_.slot_names[s], " differs"));
    }
    const int me = m_.info(a).rank;
    // Ensures: false when unknown at run time (then it must not read the rank).
    auto eval = [&](const Ex& e, const WalkStep& w, int64_t dflt, int64_t* v) {
      if (!e.present()) {
        *v = dflt;
        return true;
      }
      for (int s : e.slots())
        if (w.unknown[s]) return false;
      return e.Eval(w.frame.data(), v);
    };
    auto reads_rank = [](const Ex& e) {
      const auto& s = e.slots();
      return std::find(s.begin(), s.end(), kSlotR) != s.end();
    };
    auto rank_of = [&](const Ex& e, int64_t* ra, int64_t* rb) {
      if (!eval(e, x, me, ra) || !eval(e, y, (me + 1) % n_, rb))
        return Fail(absl::StrCat(where(), ": rank ", e.text(), " not known statically"));
      if (*ra < 0 || *ra >= n_ || *rb != (*ra + 1) % n_)
        return Fail(absl::StrCat(where(), ": rank ", e.text(), " is ", *ra, " and ", *rb));
      return true;
    };
    auto elements = [&](int object, const Ex& idx, int64_t count) {
      int64_t ia, ib;
      if (!eval(idx, x, 0, &ia) || !eval(idx, y, 0, &ib))
        return Fail(absl::StrCat(where(), ": index ", idx.text(), " not known statically"));
      if (count < 0 || count > 65536) return Fail(absl::StrCat(where(), ": count ", count));
      for (int64_t i = 0; i < count; ++i)
        if (!index_[object].Add(ia + i, ib + i))
          return Fail(absl::StrCat(where(), ": element ", ia + i, " of ", p_.objects[object].name,
                                   " maps to ", ib + i, " here but not elsewhere"));
      return true;
    };
    int64_t ra = me, rb = (me + 1) % n_, count = 1;
    for (const Ex* e : {&op.value, &op.compare, &op.signal_value, &op.count}) {
      int64_t va, vb;
      bool ka = eval(*e, x, 0, &va), kb = eval(*e, y, 0, &vb);
      if (ka != kb || (ka && va != vb) || (!ka && reads_rank(*e)))
        return Fail(absl::StrCat(where(), ": ", e->text(), " differs"));
    }
    if (op.count.present() && !eval(op.count, x, 1, &count))
      return Fail(absl::StrCat(where(), ": count not known statically"));
    if (op.object >= 0 && !(op.kind == NOTIFY && op.scope == GPU) && !rank_of(op.rank, &ra, &rb))
      return false;
    if (IsAdd(op)) {
      const int o = op.kind == PUTSIG ? op.signal_object : op.object;
      const Ex& idx = op.kind == PUTSIG ? op.signal_index : op.index;
      int64_t i = 0;
      if (narrow_added_.count(o)) {
        if (!eval(idx, x, 0, &i)) return Fail(absl::StrCat(where(), ": index not known statically"));
        const int64_t wr = op.kind == NOTIFY && op.scope == GPU ? me : ra;
        adders_[WordKey(o, static_cast<int>(wr), i)].insert(me);
      }
    }
    if (op.src_rank.present() && !rank_of(op.src_rank, &ra, &rb)) return false;
    for (const Ex* e : {&op.tag, &op.expect}) {
      int64_t ta, tb;
      if (!e->present()) continue;
      if (!eval(*e, x, 0, &ta) || !eval(*e, y, 0, &tb))
        return Fail(absl::StrCat(where(), ": tag ", e->text(), " not known statically"));
      if (!tags_[op.object].Add(ta, tb)) return Fail(absl::StrCat(where(), ": tag ", ta, " maps to ", tb,
                                                       " here but not elsewhere"));
    }
    if (op.signal_object >= 0 && !elements(op.signal_object, op.signal_index, 1)) return false;
    if (op.src_index.present() && !elements(op.object, op.src_index, count)) return false;
    if (op.object < 0) return true;
    // Waits (polling lanes) and fills (reset, stream write) touch a set of words whose
    // order does not matter: checked as sets once the element maps are known.
    const bool lanes = op.kind == WAIT || op.kind == WAIT_UNTIL;
    if (lanes || op.kind == RESET || op.kind == STREAM_WRITE) {
      int64_t ia, ib;
      if (!eval(op.index, x, 0, &ia) || !eval(op.index, y, 0, &ib))
        return Fail(absl::StrCat(where(), ": index not known statically"));
      if (op.kind == RESET && !op.count.present()) count = m_.object_size(op.object) - ia;
      int64_t n = lanes ? m_.LaneCount(a, op, count) : count;
      if (n < 0 || n > 65536) return Fail(absl::StrCat(where(), ": ", n, " words"));
      SetCheck c{op.object, {}, {}, where()};
      for (int64_t l = 0; l < n; ++l) {
        int64_t ka = 1, kb = 1;
        if (lanes && op.lane_if.present()) {
          x.frame[kSlotL] = y.frame[kSlotL] = l;
          if (!eval(op.lane_if, x, 1, &ka) || !eval(op.lane_if, y, 1, &kb))
            return Fail(absl::StrCat(where(), ": lane_if not known statically"));
        }
        if (ka) c.a.push_back(ia + l);
        if (kb) c.b.push_back(ib + l);
      }
      if (c.a.size() == 1 && c.b.size() == 1) {
        if (!index_[op.object].Add(c.a[0], c.b[0]))
          return Fail(absl::StrCat(where(), ": element ", c.a[0], " of ", p_.objects[op.object].name,
                                   " maps to ", c.b[0], " here but not elsewhere"));
      }
      sets_.push_back(std::move(c));
      return true;
    }
    return elements(op.object, op.index, op.kind == NOTIFY || op.kind == SIGNAL_OP ||
                                                 op.kind == ST_SIGNAL || op.kind == ATOMIC_ADD ||
                                                 op.kind == ATOMIC_CAS
                                             ? 1
                                             : count);
  }

  // Completes each object's element map (untouched elements map to themselves) and the
  // tag map; both must be permutations.
  bool BuildGenerator() {
    gen_index_.assign(p_.objects.size(), {});
    for (auto& [object, pm] : index_) {
      bool identity = true;
      for (const auto& [i, j] : pm.fwd) identity &= i == j;
      if (identity) continue;
      const int64_t size = m_.object_size(object);
      if (size > (int64_t{1} << 20))
        return Fail(absl::StrCat(p_.objects[object].name, ": ", size, " elements, too many to map"));
      std::vector<int64_t>& v = gen_index_[object];
      v.resize(size);
      std::vector<char> hit(size, 0);
      for (int64_t i = 0; i < size; ++i) {
        auto it = pm.fwd.find(i);
        v[i] = it == pm.fwd.end() ? i : it->second;
        if (v[i] < 0 || v[i] >= size || hit[v[i]])
          return Fail(absl::StrCat(p_.objects[object].name, ": the elements do not map one to one"));
        hit[v[i]] = 1;
      }
    }
    for (const auto& [object, pm] : tags_)
      for (const auto& [t, u] : pm.fwd)
        if (!pm.bwd.count(t))
          return Fail(absl::StrCat(p_.objects[object].name, ": tag ", t, " has no preimage"));
    return true;
  }

  int64_t Gen(int object, int64_t i) const {
    const auto& v = gen_index_[object];
    return v.empty() || i < 0 || i >= static_cast<int64_t>(v.size()) ? i : v[i];
  }

  bool SetChecks() {
    for (const SetCheck& c : sets_) {
      std::set<int64_t> want(c.b.begin(), c.b.end()), got;
      for (int64_t i : c.a) got.insert(Gen(c.object, i));
      if (got != want)
        return Fail(absl::StrCat(c.where, ": the words it touches do not map to its image's"));
    }
    return true;
  }

  void BuildElements(SymmetryGroup* g) const {
    const int agents = m_.num_agents();
    g->elements.resize(n_);
    for (int k = 0; k < n_; ++k) {
      SymmetryGroup::Element& e = g->elements[k];
      if (k == 0) {
        e.agent.resize(agents);
        for (int a = 0; a < agents; ++a) e.agent[a] = a;
        e.index.assign(p_.objects.size(), {});
        e.tag.resize(p_.objects.size());
        for (const auto& [object, pm] : tags_)
          for (const auto& [t, u] : pm.fwd) e.tag[object][t] = t;
      } else {
        const SymmetryGroup::Element& prev = g->elements[k - 1];
        e.agent.resize(agents);
        for (int a = 0; a < agents; ++a) e.agent[a] = gen_agent_[prev.agent[a]];
        e.index.assign(p_.objects.size(), {});
        for (size_t o = 0; o < p_.objects.size(); ++o) {
          if (gen_index_[o].empty()) continue;
          e.index[o].resize(gen_index_[o].size());
          for (size_t i = 0; i < gen_index_[o].size(); ++i)
            e.index[o][i] = gen_index_[o][prev.index[o].empty() ? i : prev.index[o][i]];
        }
        e.tag.resize(p_.objects.size());
        for (const auto& [object, pm] : tags_)
          for (const auto& [t, u] : prev.tag[object]) e.tag[object][t] = pm.fwd.at(u);
      }
      e.rank.resize(n_);
      for (int r = 0; r < n_; ++r) e.rank[r] = (r + k) % n_;
      e.comp.assign(m_.num_components(), 0);
      for (int a = 0; a < agents; ++a) {
        const AgentInfo& from = m_.info(a);
        const AgentInfo& to = m_.info(e.agent[a]);
        e.comp[from.comp_t0] = to.comp_t0;
        e.comp[from.comp_rest] = to.comp_rest;
        e.comp[from.comp_px] = to.comp_px;
      }
    }
  }

  struct SetCheck {
    int object;
    std::vector<int64_t> a, b;
    std::string where;
  };

  const Machine& m_;
  const Program& p_;
  const int n_;
  std::string why_;
  bool walk_overflow_ = false;
  std::vector<int32_t> gen_agent_;
  std::map<int, PairMap> index_;
  std::map<int, PairMap> tags_;  // per object (a put or copy keeps its object)
  std::vector<SetCheck> sets_;
  std::vector<std::vector<int64_t>> gen_index_;
  std::set<int> narrow_added_;                   // objects added to and read narrowly
  std::map<uint64_t, std::set<int>> adders_;     // their words -> ranks that add to them
};

}  // namespace

SymmetryGroup DetectSymmetry(const Machine& m) { return Detector(m).Run(); }

// ---- Canonical hashes ----------------------------------------------------------------

uint64_t SymmetryHasher::ClockHash(const Clock& c, int k) {
  if (c.empty() || k == 0) return c.hash();
  const uint64_t key = HashMix(c.hash(), static_cast<uint64_t>(k));
  auto it = clock_cache_.find(key);
  if (it != clock_cache_.end()) return it->second;
  if (clock_cache_.size() > 4000000) clock_cache_.clear();
  uint64_t h = c.HashPermuted(g_.elements[k].comp, &scratch_);
  clock_cache_.emplace(key, h);
  return h;
}

namespace {
// An agent's control state apart from its rank and `tmp` (which may hold a grid barrier's
// key, naming an agent): what a rotation carries to its image unchanged.
uint64_t ControlHash(const AgentState& as) {
  uint64_t h = HashMix(0x51ed27, static_cast<uint64_t>(as.status) |
                                     (uint64_t{as.exited_early} << 8) |
                                     (static_cast<uint64_t>(as.phase) << 16));
  h = HashMix(h, static_cast<uint64_t>(as.grid_barriers) << 32 | static_cast<uint32_t>(as.launches));
  for (const StackEntry& e : as.stack)
    h = HashMix(h, (static_cast<uint64_t>(static_cast<uint32_t>(e.list)) << 32) |
                   static_cast<uint32_t>(e.pos));
  for (size_t i = 0; i < as.frame.size(); ++i)
    if (i != kSlotR && i != kSlotL) h = HashMix(h, static_cast<uint64_t>(as.frame[i]));
  return h;
}
}  // namespace

uint64_t SymmetryHasher::AgentHash(const State& s, int a, int k) {
  const AgentState& as = s.agents[a];
  const SymmetryGroup::Element& e = g_.elements[k];
  uint64_t h = HashMix(ControlHash(as), static_cast<uint64_t>(e.rank[m_.info(a).rank]));
  const int op = as.status == Status::kRunning ? m_.CurrentOp(s, a) : -1;
  uint64_t tmp = static_cast<uint64_t>(as.tmp);
  if (op >= 0 && m_.program().ops[op].kind == GRID_BARRIER && as.phase == 1 &&
      (tmp >> 60) == kGrid) {  // the barrier it arrived at, named by its launch's first CTA
    const uint64_t id = (tmp >> 32) & 0x0fffffff;
    if (id < e.agent.size()) tmp = BarrierKey(kGrid, e.agent[id], tmp & 0xffffffff);
  }
  h = HashMix(h, tmp);
  if (as.wait_armed) {
    int32_t wr = as.wait_rank;
    h = HashMix(h, static_cast<uint64_t>(wr >= 0 && wr < g_.order ? e.rank[wr] : wr));
    h = HashMix(h, static_cast<uint64_t>(as.wait_value));
    // The lanes as the words they poll (a lane's image polls the image word).
    const int object = op >= 0 ? m_.program().ops[op].object : -1;
    uint64_t sum = 0;
    for (size_t l = 0; l < as.lanes.size() * 64; ++l) {
      const bool pending = (as.lanes[l / 64] >> (l % 64)) & 1;
      const bool polled = !as.polled.empty() && ((as.polled[l / 64] >> (l % 64)) & 1);
      if (!pending && !polled) continue;
      int64_t cached = l < as.cached.size() ? as.cached[l] : 0;
      int64_t word = object >= 0 ? MapIndex(k, object, as.wait_index + static_cast<int64_t>(l))
                                 : as.wait_index + static_cast<int64_t>(l);
      sum += HashMix(HashMix(static_cast<uint64_t>(word), (pending ? 1 : 0) | (polled ? 2 : 0)),
                     static_cast<uint64_t>(cached));
    }
    h = HashMix(h, sum);
  }
  h = HashMix(h, ClockHash(as.t0, k));
  h = HashMix(h, ClockHash(as.rest, k));
  h = HashMix(h, ClockHash(as.px, k));
  if (!as.float_current) {
    h = HashMix(h, ClockHash(as.float_t0, k));
    h = HashMix(h, ClockHash(as.float_rest, k));
  }
  h = HashMix(h, ClockHash(as.fence, k));
  h = HashMix(h, ClockHash(as.pending_acq, k));
  for (const auto& [slot, clocks] : as.tokens) {
    h = HashMix(h, static_cast<uint64_t>(slot));
    h = HashMix(h, ClockHash(clocks.first, k) ^ (ClockHash(clocks.second, k) << 1));
  }
  return h;
}

uint64_t SymmetryHasher::ImageHash(const State& s, int k) {
  const SymmetryGroup::Element& e = g_.elements[k];
  const SymmetryGroup::Element& inv = g_.elements[(g_.order - k) % g_.order];
  auto rank = [&](int r) { return r >= 0 && r < g_.order ? e.rank[r] : r; };
  auto tag = [&](int object, int64_t t) {
    auto it = e.tag[object].find(t);
    return it == e.tag[object].end() ? t : it->second;
  };
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int b = 0; b < m_.num_agents(); ++b) h = HashMix(h, AgentHash(s, inv.agent[b], k));
  // Words, data and barriers: their image keys are in another order, so they are summed.
  uint64_t sum = 0;
  for (const auto& [key, w] : s.words) {
    const int o = KeyObject(key);
    uint64_t c = HashMix(WordKey(o, rank(KeyRank(key)), MapIndex(k, o, KeyIndex(key))),
                         static_cast<uint64_t>(w.value));
    c = HashMix(c, ClockHash(w.rel, k) ^
                       static_cast<uint64_t>(w.rel_agent >= 0 ? e.agent[w.rel_agent] : -1));
    sum += HashMix(c, w.hist.size());
  }
  h = HashMix(h, sum);
  sum = 0;
  auto comp = [&](int32_t c) { return c >= 0 ? e.comp[c] : c; };
  for (const auto& [key, log] : s.data) {
    const int o = static_cast<int>(key >> 32);
    uint64_t c = (static_cast<uint64_t>(o) << 32) | static_cast<uint32_t>(rank(static_cast<int>(key & 0xffffffff)));
    for (const Access& x : log) {
      const int64_t lo = MapIndex(k, o, x.lo), hi = MapIndex(k, o, x.hi - 1) + 1;
      c = HashMix(c, static_cast<uint64_t>(lo) << 32 ^ static_cast<uint64_t>(hi));
      c = HashMix(c, (static_cast<uint64_t>(comp(x.c1)) << 32) ^ x.t1 ^ (uint64_t{x.write} << 63));
      c = HashMix(c, (static_cast<uint64_t>(comp(x.c2)) << 32) ^ x.t2);
      c = HashMix(c, static_cast<uint64_t>(tag(o, x.tag)));
    }
    sum += HashMix(c, log.size());
  }
  h = HashMix(h, sum);
  sum = 0;
  for (const auto& [key, bar] : s.barriers) {
    uint64_t kind = key >> 60, id = (key >> 32) & 0x0fffffff, instance = key & 0xffffffff;
    if (kind == kGrid) id = static_cast<uint64_t>(e.agent[id]);
    sum += HashMix(HashMix(BarrierKey(kind, id, instance), static_cast<uint64_t>(bar.arrived)),
                   ClockHash(bar.joined, k));
  }
  h = HashMix(h, sum);
  for (int r = 0; r < g_.order; ++r) {
    const int from = inv.rank[r];
    h = HashMix(h, static_cast<uint64_t>(s.slots_used[from]));
    h = HashMix(h, static_cast<uint64_t>(s.barrier_calls[from]));
  }
  sum = 0;
  for (const auto& [rk, v] : s.coll_calls)
    sum += HashMix(HashMix(static_cast<uint64_t>(rank(rk.first)), std::hash<std::string>()(rk.second)),
                   static_cast<uint64_t>(v));
  h = HashMix(h, sum);
  h = HashMix(h, s.race_count > 0 ? 1 : 0);
  h = HashMix(h, s.fault.empty() ? 0 : 1);
  return h;
}

void SymmetryHasher::Candidates(const State& s, std::vector<int>* ks) {
  const int n = g_.order;
  sig_.assign(n, 0);
  for (int a = 0; a < m_.num_agents(); ++a) {
    const int r = m_.info(a).rank;
    sig_[r] = HashMix(sig_[r], ControlHash(s.agents[a]));
  }
  // Image k holds rank r's agents at rank r + k: its sequence is sig_[(r' - k) mod n].
  ks->assign(1, 0);
  for (int k = 1; k < n; ++k) {
    const int best = ks->front();
    int cmp = 0;
    for (int r = 0; r < n && cmp == 0; ++r) {
      uint64_t x = sig_[(r - k + n) % n], y = sig_[(r - best + n) % n];
      cmp = x < y ? -1 : x > y ? 1 : 0;
    }
    if (cmp < 0) ks->assign(1, k);
    else if (cmp == 0) ks->push_back(k);
  }
}

uint64_t SymmetryHasher::Canonical(const State& s) {
  if (g_.order <= 1) return ImageHash(s, 0);
  Candidates(s, &ks_);
  uint64_t best = UINT64_MAX;
  for (int k : ks_) best = std::min(best, ImageHash(s, k));
  return best;
}

}  // namespace warpcheck::sim::signal
