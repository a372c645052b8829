#include "sim/signal/explore.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace warpcheck::sim::signal {

std::vector<std::string> BlockedSignature(const Machine& m, const State& s,
                                          const SymmetryGroup::Element* image) {
  std::vector<std::string> out;
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentState& as = s.agents[a];
    if (as.status == Status::kExited) continue;
    if (as.status == Status::kNotLaunched) continue;  // its stream is the blocked one
    std::string site = as.status == Status::kNotStarted ? "not_started" : "?";
    int op = m.CurrentOp(s, a);
    if (as.status == Status::kRunning && op >= 0) site = m.program().ops[op].site;
    out.push_back(absl::StrCat(m.info(image ? image->agent[a] : a).name, "@", site));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, int64_t> FinalValues(const Machine& m, const State& s,
                                           const SymmetryGroup::Element* image) {
  std::map<std::string, int64_t> out;
  for (const auto& [key, w] : s.words) {
    const int o = KeyObject(key);
    if (w.value == m.program().objects[o].init) continue;
    if (!image) {
      out[m.WordName(key)] = w.value;
      continue;
    }
    const int r = KeyRank(key);
    out[m.WordName(o, r < static_cast<int>(image->rank.size()) ? image->rank[r] : r,
                   image->MapIndex(o, KeyIndex(key)))] = w.value;
  }
  return out;
}

StateBytes MeasureState(const State& s) {
  // A std::map node: the value plus about four pointers of tree bookkeeping.
  constexpr int64_t kMapNode = 32;
  StateBytes b;
  int64_t n = sizeof(State);
  n += s.agents.capacity() * sizeof(AgentState);
  for (const AgentState& as : s.agents) {
    n += as.stack.capacity() * sizeof(StackEntry) + as.frame.capacity() * sizeof(int64_t);
    n += (as.lanes.capacity() + as.polled.capacity()) * sizeof(uint64_t) +
         as.cached.capacity() * sizeof(int64_t);
    n += as.tokens.capacity() * sizeof(as.tokens[0]);
  }
  for (const auto& [key, w] : s.words) {
    n += kMapNode + sizeof(key) + sizeof(Word);
    b.hist_entries += static_cast<int64_t>(w.hist.size());
  }
  for (const auto& [key, log] : s.data)
    n += kMapNode + sizeof(key) + sizeof(log) + log.capacity() * sizeof(Access);
  for (const auto& [key, bar] : s.barriers)
    n += kMapNode + sizeof(key) + sizeof(Barrier) + bar.arrivers.capacity() * sizeof(int32_t);
  n += (s.slots_used.capacity() + s.barrier_calls.capacity()) * sizeof(int32_t);
  for (const auto& [k, v] : s.coll_calls) n += kMapNode + sizeof(k) + k.second.capacity() + sizeof(v);
  n += s.races.capacity() * sizeof(RaceRecord);
  for (const RaceRecord& r : s.races) n += r.text.capacity();
  n += s.fault.capacity();
  b.own = n;
  return b;
}

namespace {

// Bytes of a clock's data (shared; counted where a step made it).
int64_t ClockBytes(const Clock& c, int comps) {
  return c.empty() ? 0 : 48 + static_cast<int64_t>(comps) * sizeof(uint32_t);
}

// The stubborn set: agents closed under conflicts of their next steps (or, when
// blocked, their enabling needs) with other agents' futures.
class Reducer {
 public:
  Reducer(const Machine& m, bool counters, bool sync_guards, bool value_guards, bool lane_first)
      : m_(m), counters_on_(counters), sync_on_(sync_guards),
        value_on_(sync_guards && value_guards), lane_first_on_(lane_first) {}
  // Bytes its footprint cache holds (estimated).
  int64_t cache_bytes() const { return cache_bytes_; }

  void Reduce(const State& s, const std::vector<Transition>& enabled,
              std::vector<Transition>* out) {
    const int n = m_.num_agents();
    if (cache_.size() > 100000) {  // only between states: no live pointers
      cache_.clear();
      cache_bytes_ = 0;
    }
    futures_.assign(n, nullptr);
    counters_.clear();
    have_future_.assign(n, false);
    std::vector<char> is_enabled(n, 0);
    en_count_.assign(n, 0);
    for (const Transition& t : enabled) {
      is_enabled[t.agent] = 1;
      ++en_count_[t.agent];
    }
    if (lane_first_on_) {
      for (const Transition& t : enabled)
        if (t.lane >= 0 && LaneFirst(s, t)) {
          out->assign(1, t);
          return;
        }
    }
    std::vector<char> best;
    size_t best_cost = SIZE_MAX;
    std::vector<char> tried(n, 0);
    for (const Transition& t : enabled) {
      if (tried[t.agent]) continue;
      std::vector<char> in(n, 0);
      // A closure of two or more agents that already costs best_cost cannot be chosen:
      // it is cut short (the choice is the same as with the whole closure).
      if (!Closure(s, t.agent, is_enabled, &in, best_cost)) {
        tried[t.agent] = 1;
        continue;
      }
      size_t cost = 0;
      int members = 0;
      for (int a = 0; a < n; ++a) members += in[a] ? 1 : 0;
      for (const Transition& u : enabled) cost += in[u.agent] ? 1 : 0;
      if (members == 1 && cost > 1) {
        // One agent whose polling lanes conflict with nobody's future: its lanes commute
        // with each other and with everything else, so one lane is a stubborn set.
        out->assign(1, t);
        return;
      }
      tried[t.agent] = 1;
      if (cost < best_cost) {
        best_cost = cost;
        best = std::move(in);
        if (cost == 1) break;
      }
    }
    out->clear();
    for (const Transition& t : enabled)
      if (best[t.agent]) out->push_back(t);
  }

 private:
  // An agent's future depends only on its own control state (position, frame, progress),
  // so it is cached across states by that.
  static uint64_t ControlKey(const AgentState& as, int a, int64_t barrier_base) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(a);
    auto mix = [&](uint64_t v) { h = HashMix(h, v); };
    mix(static_cast<uint64_t>(as.status) | (static_cast<uint64_t>(as.phase) << 8) |
        (static_cast<uint64_t>(as.launches) << 16) | (uint64_t{as.exited_early} << 48));
    for (const StackEntry& e : as.stack)
      mix((static_cast<uint64_t>(static_cast<uint32_t>(e.list)) << 32) | static_cast<uint32_t>(e.pos));
    for (int64_t v : as.frame) mix(static_cast<uint64_t>(v));
    mix(static_cast<uint64_t>(barrier_base));  // numbers the future's barrier guards
    mix(static_cast<uint64_t>(as.grid_barriers));  // and its grid barriers
    return h;
  }
  // An agent's future with its guards, and its entries indexed by (resource, object):
  // only entries of the same resource and object can conflict (Conflicts), so a probe
  // looks at those instead of the whole future.
  struct CachedFuture {
    Footprint f;
    std::vector<Guard> g;
    // (res, object, rank) -> entries; rank kAnyRank holds the entries of any rank, and
    // (res, object, kAllRanks) all entries of the object.
    absl::flat_hash_map<uint64_t, std::vector<uint32_t>> index;
    bool wild = false;  // an entry matches every object (the walk overflowed)
  };
  static constexpr int kAnyRank = -1, kAllRanks = -2;
  static uint64_t ResObject(Res r, int32_t object, int rank) {
    return (static_cast<uint64_t>(r) << 56) |
           (static_cast<uint64_t>(static_cast<uint32_t>(object)) << 16) |
           static_cast<uint64_t>(static_cast<uint16_t>(rank + 2));
  }
  const CachedFuture& Cached(const State& s, int a) {
    if (!have_future_[a]) {
      uint64_t key = ControlKey(s.agents[a], a, m_.BarrierBase(s, a));
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        CachedFuture c;
        c.f = m_.Future(s, a, &c.g, value_on_);
        NoCounters(c.f);
        NoSyncGuards(c.f);
        for (uint32_t i = 0; i < c.f.size(); ++i) {
          const Access2& x = c.f[i];
          if (x.object == -2) c.wild = true;
          c.index[ResObject(x.res, x.object, kAllRanks)].push_back(i);
          c.index[ResObject(x.res, x.object, x.rank < 0 ? kAnyRank : x.rank)].push_back(i);
        }
        cache_bytes_ += 64 + static_cast<int64_t>(c.f.capacity() * (sizeof(Access2) + 8) +
                                                  c.g.capacity() * sizeof(Guard));
        it = cache_.emplace(key, std::move(c)).first;
      }
      futures_[a] = &it->second;
      have_future_[a] = true;
    }
    return *futures_[a];
  }
  const Footprint& FutureOf(const State& s, int a) { return Cached(s, a).f; }
  // Without the counter abstraction an add to a signal word is a plain write.
  void NoCounters(Footprint& f) const {
    if (counters_on_) return;
    for (Access2& x : f)
      if (x.res == Res::kWord && x.mode == Mode::kAdd) x.mode = Mode::kWrite;
  }
  // Without the synchronisation guards a barrier access names no instance; without the
  // grid-barrier guards a grid barrier access names none.
  void NoSyncGuards(Footprint& f) const {
    if (value_on_) return;
    for (Access2& x : f)
      if (x.res == Res::kBarrier && (!sync_on_ || x.object >= 3)) x.lo = x.hi = -1;
  }
  // The arrival step of a barrier (BARRIER_ALL, GRID_BARRIER, HOST_COLLECTIVE) only
  // counts its agent in and joins its clock into the instance; the leave, which reads
  // the instance, is the agent's next step. With the value guards the probe of an
  // arrival is therefore its write alone (Next lists the leave's read with it).
  void ArrivalOnly(const State& s, int b, Footprint& probe) const {
    if (!value_on_ || s.agents[b].phase != 0 || s.agents[b].status != Status::kRunning) return;
    const int id = m_.CurrentOp(s, b);
    if (id < 0) return;
    const SignalOpKind k = m_.program().ops[id].kind;
    if (k != BARRIER_ALL && k != GRID_BARRIER && k != HOST_COLLECTIVE) return;
    probe.erase(std::remove_if(probe.begin(), probe.end(),
                               [](const Access2& x) {
                                 return x.res == Res::kBarrier && x.mode == Mode::kRead;
                               }),
                probe.end());
  }
  // Whether fn(f) holds for some entry f of cf that may conflict with a.
  template <typename Fn>
  static bool AnyCandidate(const CachedFuture& cf, const Access2& a, Fn fn) {
    if (cf.wild || a.object == -2) {
      for (const Access2& f : cf.f)
        if (fn(f)) return true;
      return false;
    }
    auto scan = [&](int rank) {
      auto it = cf.index.find(ResObject(a.res, a.object, rank));
      if (it == cf.index.end()) return false;
      for (uint32_t i : it->second)
        if (fn(cf.f[i])) return true;
      return false;
    };
    if (a.rank < 0) return scan(kAllRanks);
    return scan(a.rank) || scan(kAnyRank);
  }
  // True when x's access f can only happen after an event that cannot come before b's
  // next step (f's guards, Guard in machine.h): a wait on a word that only b writes, or a
  // count the others cannot reach (CounterShort), and that does not hold yet; a
  // BARRIER_ALL instance that a rank's barrier agent has not reached and cannot reach
  // before b moves (it is b, or its arrivals are guarded so); the exit of a CTA that is b
  // or cannot exit before b moves. The chain of reasons is at most kMaxGuardDepth long
  // (past it: not guarded, which is always sound).
  bool GuardedBy(const State& s, int b, int x, const Access2& f, int depth = 0) {
    if (f.guard < 0) return false;
    const std::vector<Guard>& gs = Cached(s, x).g;
    for (int g = f.guard; g >= 0; g = gs[g].parent) {
      const Guard& gd = gs[g];
      if (gd.kind == Guard::Kind::kBarrier) {
        if (sync_on_ && BarrierHeldBy(s, b, gd.id, depth)) return true;
        continue;
      }
      if (gd.kind == Guard::Kind::kExit) {
        if (sync_on_ && ExitHeldBy(s, b, gd.id, depth)) return true;
        continue;
      }
      if (gd.kind == Guard::Kind::kGrid) {
        if (value_on_ && GridHeldBy(s, b, x, gd.id, depth)) return true;
        continue;
      }
      auto it = s.words.find(gd.key);
      int64_t v = it == s.words.end() ? m_.program().objects[KeyObject(gd.key)].init
                                      : it->second.value;
      if (m_.Satisfies(gd.cmp, v, gd.expected, gd.bytes)) continue;
      if (m_.OnlyWrittenAfter(s, gd.key, b)) return true;
      if (CounterShort(s, b, gd, v)) return true;
      if (value_on_ && CounterShortBefore(s, b, gd, v, depth)) return true;
      if (value_on_ && NoSatisfyingWrite(s, b, gd, depth)) return true;
    }
    return false;
  }
  static constexpr int kMaxGuardDepth = 6;
  // BARRIER_ALL instance `instance` cannot complete before b's next step: a rank that has
  // not arrived has barrier runners (Machine::BarrierRunners) none of which can arrive
  // before b moves — each has exited, is b, cannot start before b moves, or has every
  // future arrival guarded by b (its arrival at this instance is one of those).
  bool BarrierHeldBy(const State& s, int b, int64_t instance, int depth) {
    auto it = s.barriers.find(BarrierKey(kBarrierAll, 0, static_cast<uint64_t>(instance)));
    if (it != s.barriers.end() && it->second.arrived >= m_.program().ranks) return false;
    if (depth >= kMaxGuardDepth) return false;
    for (int r = 0; r < m_.program().ranks; ++r) {
      if (s.barrier_calls[r] > instance) continue;  // rank r has arrived
      const std::vector<int>* runners = m_.BarrierRunners(r);
      if (!runners) return false;
      bool held = true;
      for (int y : *runners) {
        if (s.agents[y].status == Status::kExited || y == b) continue;
        if (LaunchGuarded(s, b, y, depth + 1)) continue;
        held = ArrivalsGuarded(s, b, y, 1, depth + 1);
        if (!held) break;
      }
      if (held) return true;
    }
    return false;
  }
  // A read of the guard's word: what a write must conflict with to touch it.
  static Access2 WordProbe(const Guard& gd) {
    Access2 probe;
    probe.res = Res::kWord;
    probe.mode = Mode::kRead;
    probe.object = KeyObject(gd.key);
    probe.rank = KeyRank(gd.key);
    probe.lo = KeyIndex(gd.key);
    probe.hi = probe.lo + 1;
    return probe;
  }

  // The word guard gd (not holding now) cannot come to hold before b's next step: every
  // write to its word in the future of an agent other than b is a set of a known value
  // that does not satisfy it, or is itself guarded by b (or its agent cannot start
  // before b moves). Then until b moves the word only takes values that fail the wait.
  bool NoSatisfyingWrite(const State& s, int b, const Guard& gd, int depth) {
    if (depth >= kMaxGuardDepth) return false;
    const Access2 probe = WordProbe(gd);
    for (int x = 0; x < m_.num_agents(); ++x) {
      if (x == b || s.agents[x].status == Status::kExited) continue;
      const CachedFuture& cf = Cached(s, x);
      bool launch_checked = false, launch_guarded = false;
      const bool bad = AnyCandidate(cf, probe, [&](const Access2& f) {
        if (!Conflicts(probe, f)) return false;
        if (f.mode == Mode::kWrite && f.value_known &&
            !m_.Satisfies(gd.cmp, f.value, gd.expected, gd.bytes))
          return false;
        if (!launch_checked) {
          launch_checked = true;
          launch_guarded = LaunchGuarded(s, b, x, depth + 1);
        }
        return !launch_guarded && !GuardedBy(s, b, x, f, depth + 1);
      });
      if (bad) return false;
    }
    return true;
  }
  // GRID_BARRIER instance `instance` of x's launch cannot complete before b's next step:
  // a CTA of the launch that has not arrived at it is b, has exited (the instance never
  // completes), cannot start before b moves, or has every future grid arrival guarded by
  // b (its arrival at this instance is one of those).
  bool GridHeldBy(const State& s, int b, int x, int64_t instance, int depth) {
    const AgentInfo& xi = m_.info(x);
    const int first = xi.launch_first, n = xi.launch_size;
    auto it = s.barriers.find(BarrierKey(kGrid, static_cast<uint64_t>(first),
                                         static_cast<uint64_t>(instance)));
    if (it != s.barriers.end() && it->second.arrived >= n) return false;
    if (depth >= kMaxGuardDepth) return false;
    for (int y = first; y < first + n; ++y) {
      if (s.agents[y].grid_barriers > instance) continue;  // arrived
      if (y == b || s.agents[y].status == Status::kExited) return true;
      if (LaunchGuarded(s, b, y, depth + 1)) return true;
      if (ArrivalsGuarded(s, b, y, 3 + first, depth + 1)) return true;
    }
    return false;
  }
  // Every arrival at barrier object `object` (1: BARRIER_ALL; 3 + launch: its
  // GRID_BARRIER) in y's future is guarded by b.
  bool ArrivalsGuarded(const State& s, int b, int y, int object, int depth) {
    const CachedFuture& cf = Cached(s, y);
    if (cf.wild) return false;
    for (const Access2& e : cf.f)
      if (e.res == Res::kBarrier && e.mode == Mode::kWrite && e.object == object &&
          !GuardedBy(s, b, y, e, depth))
        return false;
    return true;
  }
  // CTA y cannot exit before b's next step.
  bool ExitHeldBy(const State& s, int b, int y, int depth) {
    if (s.agents[y].status == Status::kExited) return false;
    if (y == b) return true;
    if (depth >= kMaxGuardDepth) return false;
    if (LaunchGuarded(s, b, y, depth + 1)) return true;
    const CachedFuture& cf = Cached(s, y);
    if (cf.wild) return false;
    for (const Access2& e : cf.f)
      if (e.res == Res::kLaunch && e.mode == Mode::kWrite && e.object == y)
        return GuardedBy(s, b, y, e, depth + 1);
    return false;
  }
  // The counter abstraction's guard: every agent still to write gd.key only adds known
  // non-negative amounts to it, and what the agents other than b can still add cannot
  // bring it from v to the wait's target (== T, >= T, > T). Then the wait cannot pass
  // before b's next step, whatever the others do in between.
  bool CounterShort(const State& s, int b, const Guard& gd, int64_t v) {
    if (!counters_on_ || (gd.cmp != EQ && gd.cmp != GE && gd.cmp != GT)) return false;
    const CounterAdds& c = CounterFor(s, gd.key);
    if (!c.only_adds) return false;
    const int64_t others = c.total - c.by_agent[b];
    if (v < 0 || others > (int64_t{1} << 40)) return false;
    const int64_t reach = v + others;
    if (gd.bytes == 4 && reach > INT32_MAX) return false;
    return gd.cmp == GT ? reach <= gd.expected : reach < gd.expected;
  }
  // CounterShort, counting only the writes that can come before b's next step: a write
  // to the word in another agent's future that is guarded by b (or whose agent cannot
  // start before b moves) is left out, whatever it is (a reset after a barrier b has
  // not reached, the adds of the next call); every other one must be a known
  // non-negative add, and they cannot bring the word from v to the target.
  bool CounterShortBefore(const State& s, int b, const Guard& gd, int64_t v, int depth) {
    if (!counters_on_ || (gd.cmp != EQ && gd.cmp != GE && gd.cmp != GT)) return false;
    if (depth >= kMaxGuardDepth || v < 0) return false;
    const Access2 probe = WordProbe(gd);
    int64_t reach = v;
    for (int x = 0; x < m_.num_agents(); ++x) {
      if (x == b || s.agents[x].status == Status::kExited) continue;
      const CachedFuture& cf = Cached(s, x);
      int launch_guarded = -1;  // unknown yet
      const bool bad = AnyCandidate(cf, probe, [&](const Access2& f) {
        if (f.mode == Mode::kRead || !Conflicts(probe, f)) return false;
        if (launch_guarded < 0) launch_guarded = LaunchGuarded(s, b, x, depth + 1) ? 1 : 0;
        if (launch_guarded == 1 || GuardedBy(s, b, x, f, depth + 1)) return false;
        if (f.mode != Mode::kAdd || !f.amount_known || f.amount < 0 || f.lo < 0 ||
            f.rank < 0 || f.amount > (int64_t{1} << 32))
          return true;
        reach += f.amount;
        return reach > (int64_t{1} << 40);
      });
      if (bad) return false;
    }
    if (gd.bytes == 4 && reach > INT32_MAX) return false;
    return gd.cmp == GT ? reach <= gd.expected : reach < gd.expected;
  }
  struct CounterAdds {
    bool only_adds = true;
    int64_t total = 0;
    std::vector<int64_t> by_agent;
  };
  // Per state (cleared by Reduce): what each agent's future adds to `key`.
  const CounterAdds& CounterFor(const State& s, uint64_t key) {
    auto it = counters_.find(key);
    if (it != counters_.end()) return it->second;
    CounterAdds c;
    c.by_agent.assign(m_.num_agents(), 0);
    Access2 probe;
    probe.res = Res::kWord;
    probe.mode = Mode::kRead;
    probe.object = KeyObject(key);
    probe.rank = KeyRank(key);
    probe.lo = KeyIndex(key);
    probe.hi = probe.lo + 1;
    for (int x = 0; x < m_.num_agents() && c.only_adds; ++x) {
      if (s.agents[x].status == Status::kExited) continue;
      for (const Access2& f : FutureOf(s, x)) {
        if (f.mode == Mode::kRead || !Conflicts(probe, f)) continue;
        if (f.mode != Mode::kAdd || !f.amount_known || f.amount < 0 || f.lo < 0 || f.rank < 0 ||
            f.amount > (int64_t{1} << 32)) {
          c.only_adds = false;
          break;
        }
        c.by_agent[x] += f.amount;
        c.total += f.amount;
      }
    }
    return counters_.emplace(key, std::move(c)).first->second;
  }
  // True when CTA x cannot start before b's next step: its stream is b, or the stream's
  // LAUNCH of it is guarded by b (GuardedBy: a barrier or an earlier launch before it),
  // or it belongs to a later launch on its stream and a CTA of the launch before it is b
  // itself or cannot exit before b moves (its exit is guarded by b).
  bool LaunchGuarded(const State& s, int b, int x, int depth = 0) {
    const AgentInfo& xi = m_.info(x);
    if (xi.kind != AgentKind::kCta || s.agents[x].status != Status::kNotLaunched ||
        depth > kMaxGuardDepth)
      return false;
    if (sync_on_ && xi.stream_agent == b) return true;
    const CachedFuture& sf = Cached(s, xi.stream_agent);
    if (sync_on_ && !sf.wild) {
      for (const Access2& e : sf.f)
        if (e.res == Res::kLaunch && e.mode == Mode::kWrite && e.object == x) {
          if (GuardedBy(s, b, xi.stream_agent, e, depth + 1)) return true;
          break;
        }
    }
    if (xi.launch <= 0) return false;
    const AgentInfo& st = m_.info(xi.stream_agent);
    int first = st.launches[xi.launch - 1], n = st.launch_sizes[xi.launch - 1];
    for (int y = first; y < first + n; ++y) {
      if (s.agents[y].status == Status::kExited) continue;
      if (y == b) return true;
      if (s.agents[y].status == Status::kNotLaunched) {
        if (LaunchGuarded(s, b, y, depth + 1)) return true;
        continue;
      }
      const Footprint& fy = FutureOf(s, y);
      for (const Access2& f : fy)
        if (f.res == Res::kLaunch && f.mode == Mode::kWrite && f.object == y &&
            GuardedBy(s, b, y, f, depth + 1))
          return true;
    }
    return false;
  }
  // Lane first (README.md, "Scale: a satisfied lane reads first"). Requires: t is an
  // enabled lane of a WAIT/WAIT_UNTIL. True when the set holding t alone is stubborn up to clocks:
  // the lane is not a narrow-scope one (its first poll is a step of its own), its agent
  // is a CTA, and every access another agent x may make to the lane's word before the
  // lane's agent moves is guarded (it cannot come first) or is a write `Dominated` says
  // keeps the lane enabled and releases at least what the lane would acquire now.
  bool LaneFirst(const State& s, const Transition& t) {
    const int a = t.agent;
    const AgentState& as = s.agents[a];
    if (m_.info(a).kind != AgentKind::kCta || !as.cached.empty()) return false;
    const int id = m_.CurrentOp(s, a);
    if (id < 0) return false;
    const Op& op = m_.program().ops[id];
    if (op.kind != WAIT && op.kind != WAIT_UNTIL) return false;
    const uint64_t key = WordKey(op.object, as.wait_rank, as.wait_index + t.lane);
    Access2 probe;
    probe.res = Res::kWord;
    probe.mode = Mode::kRead;
    probe.object = op.object;
    probe.rank = as.wait_rank;
    probe.lo = as.wait_index + t.lane;
    probe.hi = probe.lo + 1;
    const bool acquires = m_.AcquiresNow(s, a, key, op.scope, op.sem);
    const Word* w = nullptr;
    if (auto it = s.words.find(key); it != s.words.end()) w = &it->second;
    for (int x = 0; x < m_.num_agents(); ++x) {
      if (x == a || s.agents[x].status == Status::kExited) continue;
      const CachedFuture& fut = Cached(s, x);
      int launch_guarded = -1;  // not asked yet
      const bool bad = AnyCandidate(fut, probe, [&](const Access2& f) {
        if (!Conflicts(probe, f)) return false;
        if (Dominated(s, a, op, as.wait_value, acquires ? w : nullptr, x, f)) return false;
        if (launch_guarded < 0) launch_guarded = LaunchGuarded(s, a, x) ? 1 : 0;
        return launch_guarded == 0 && !GuardedBy(s, a, x, f);
      });
      if (bad) return false;
    }
    return true;
  }
  // x's future write f to the word of a's lane (wait `op` for `target`) may come before
  // the lane without changing what the lane allows: f is a plain set (not an add, CAS or
  // read-modify-write) of a known value that satisfies the wait, so the lane stays
  // enabled; and when the lane acquires now from the word's current version `cur` (null:
  // it acquires nothing now, so reading any later version acquires at least as much),
  // f is a release store (ST_SIGNAL release/acq_rel, or NOTIFY set at gpu/intra_node
  // scope) that a's wait synchronises with, by an agent whose clock at any later step
  // covers cur's release clock (ClockFloorCovers). Then reading after f gives a's
  // clocks at least what reading now gives, and nothing else differs.
  bool Dominated(const State& s, int a, const Op& op, int64_t target, const Word* cur, int x,
                 const Access2& f) {
    if (f.res != Res::kWord || f.mode != Mode::kWrite || !f.value_known || f.op < 0) return false;
    const Op& wop = m_.program().ops[f.op];
    const bool set_op = wop.kind == ST_SIGNAL || (wop.kind == NOTIFY && wop.sig_op == SET);
    if (!set_op) return false;
    if (!m_.Satisfies(op.cmp, f.value, target, m_.program().objects[op.object].bytes))
      return false;
    if (!cur) return true;
    SignalScope wscope;
    if (wop.kind == ST_SIGNAL) {
      if (wop.sem != RELEASE && wop.sem != ACQ_REL) return false;
      wscope = wop.scope;
    } else {
      if (wop.scope != GPU && wop.scope != INTRA_NODE) return false;
      wscope = wop.scope == GPU ? GPU : SYS;
    }
    if (!m_.Synchronizes(x, wscope, a, op.scope, op.sem)) return false;
    return ClockFloorCovers(s, x, cur->rel);
  }
  // Every clock agent x releases from now on (its thread-0 and other-threads clocks at
  // any later step) is at least c. Those clocks only grow; a CTA not launched yet starts
  // from its stream's clock at its LAUNCH, which by then has joined the stream's clock
  // now and every CTA of the stream's earlier launches (the stream waits in each LAUNCH
  // until they have exited, and joins their clocks).
  bool ClockFloorCovers(const State& s, int x, const Clock& c) const {
    const AgentState& xs = s.agents[x];
    const AgentInfo& xi = m_.info(x);
    if (xs.status != Status::kNotLaunched) return c.LessEq(xs.t0) && c.LessEq(xs.rest);
    if (xi.kind != AgentKind::kCta) return false;
    Clock floor = s.agents[xi.stream_agent].t0;
    const AgentInfo& st = m_.info(xi.stream_agent);
    for (int l = 0; l < xi.launch && l < static_cast<int>(st.launches.size()); ++l)
      for (int y = st.launches[l]; y < st.launches[l] + st.launch_sizes[l]; ++y) {
        const AgentState& ys = s.agents[y];
        if (ys.status == Status::kNotLaunched) continue;
        floor = floor.Joined(ys.t0).Joined(ys.rest).Joined(ys.px);
      }
    return c.LessEq(floor);
  }
  bool Depends(const State& s, int b, const Footprint& probe, int x) {
    const CachedFuture& fut = Cached(s, x);
    bool conflict = false;
    for (const Access2& a : probe)
      if (AnyCandidate(fut, a, [&](const Access2& f) { return Conflicts(a, f); })) {
        conflict = true;
        break;
      }
    if (!conflict || LaunchGuarded(s, b, x)) return false;
    for (const Access2& a : probe)
      if (AnyCandidate(fut, a, [&](const Access2& f) {
            return Conflicts(a, f) && !GuardedBy(s, b, x, f);
          }))
        return true;
    return false;
  }
  // Ensures: true and *in the closure; false when it was cut short because it has two or
  // more members whose enabled transitions number at least `cutoff`.
  bool Closure(const State& s, int seed, const std::vector<char>& is_enabled,
               std::vector<char>* in, size_t cutoff) {
    std::vector<int> work{seed};
    (*in)[seed] = 1;
    size_t cost = en_count_[seed];
    int members = 1;
    auto add = [&](int x) {
      (*in)[x] = 1;
      work.push_back(x);
      cost += en_count_[x];
      ++members;
      return members < 2 || cost < cutoff;
    };
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      Footprint probe;
      if (is_enabled[b]) {
        probe = m_.Next(s, b);
        NoCounters(probe);
        NoSyncGuards(probe);
        ArrivalOnly(s, b, probe);
      } else {
        // A blocked agent: one necessary condition suffices; prefer one that agents
        // already in the set (or nobody) can satisfy, else the one that adds fewest.
        std::vector<Footprint> alts = m_.NeedsAlternatives(s, b);
        size_t best_new = SIZE_MAX;
        for (Footprint& alt : alts) {
          size_t added = 0;
          for (int x = 0; x < m_.num_agents() && added < best_new; ++x) {
            if ((*in)[x] || s.agents[x].status == Status::kExited) continue;
            if (Depends(s, b, alt, x)) ++added;
          }
          if (added < best_new) {
            best_new = added;
            probe = std::move(alt);
            if (added == 0) break;
          }
        }
      }
      if (!is_enabled[b] && s.agents[b].status == Status::kNotLaunched) {
        int st = m_.info(b).stream_agent;
        if (!(*in)[st] && !add(st)) return false;
      }
      if (!is_enabled[b] && s.agents[b].status == Status::kNotStarted && m_.info(b).cta > 0) {
        int prev = b - 1;  // CTAs start in order
        if (!(*in)[prev] && !add(prev)) return false;
      }
      for (int x = 0; x < m_.num_agents(); ++x) {
        if ((*in)[x] || s.agents[x].status == Status::kExited) continue;
        if (Depends(s, b, probe, x) && !add(x)) return false;
      }
    }
    return true;
  }

  const Machine& m_;
  const bool counters_on_;
  const bool sync_on_;
  const bool value_on_;  // grid-barrier and value guards (ExploreOptions::value_guards)
  const bool lane_first_on_;  // a satisfied lane reads first (ExploreOptions::lane_first)
  std::vector<const CachedFuture*> futures_;
  // node_hash_map: pointers into it stay valid while it grows.
  absl::node_hash_map<uint64_t, CachedFuture> cache_;
  int64_t cache_bytes_ = 0;
  std::map<uint64_t, CounterAdds> counters_;
  std::vector<char> have_future_;
  std::vector<size_t> en_count_;  // per agent: its enabled transitions in this state
};

struct Node {
  State s;
  std::vector<Transition> choices;  // the transitions to explore from this state
  size_t next = 0;
  Event in;
  int64_t bytes = 0;       // its share of the estimate (history nodes it added)
  int64_t full_bytes = 0;  // the same with every word's history copied
  int64_t hist_entries = 0;
};

// Sets n.bytes and n.full_bytes; `parent` is the node below it on the stack (null: root).
void MeasureNode(Node& n, const Node* parent, int comps) {
  StateBytes b = MeasureState(n.s);
  int64_t common = b.own + static_cast<int64_t>(sizeof(Node)) +
                   static_cast<int64_t>(n.choices.capacity() * sizeof(Transition)) +
                   static_cast<int64_t>(n.in.what.capacity() + n.in.text.capacity());
  if (n.in.agent >= 0 && n.in.agent < static_cast<int>(n.s.agents.size())) {
    const AgentState& as = n.s.agents[n.in.agent];  // the clocks its step made
    common += ClockBytes(as.t0, comps) + ClockBytes(as.rest, comps) + ClockBytes(as.px, comps);
  }
  n.hist_entries = b.hist_entries;
  const int64_t added = parent ? std::max<int64_t>(0, b.hist_entries - parent->hist_entries)
                               : b.hist_entries;
  n.bytes = common + added * static_cast<int64_t>(History::kNodeBytes);
  n.full_bytes = common + b.hist_entries * static_cast<int64_t>(sizeof(HistEntry));
}


// Records terminal states: the counts, the deduplicated summaries (at most 256), the
// races (at most ExploreResult::kMaxRaces), and the first fault, completion, deadlock
// (opt.prefer's choice when it has one) and race, each with its trail.
class TerminalRecorder {
 public:
  TerminalRecorder(const Machine& m, const ExploreOptions& opt, ExploreResult& r)
      : m_(m), opt_(opt), r_(r) {}

  // `stack` holds the path to `s` (its first node, the start state, is not part of the
  // trail); `last` is the step into `s` when it is not on the stack.
  void Record(const State& s, const std::vector<Node>& stack, const Event* last) {
    Terminal t;
    t.race = s.race_count > 0;
    if (!s.fault.empty()) t.ending = Ending::kFault;
    else if (m_.Done(s)) t.ending = Ending::kCompletes;
    else t.ending = Ending::kDeadlock;
    switch (t.ending) {
      case Ending::kFault: ++r_.faults; break;
      case Ending::kCompletes: ++r_.completes; break;
      case Ending::kDeadlock: ++r_.deadlocks; break;
    }
    if (t.race) ++r_.races;
    for (const RaceRecord& x : s.races) {
      if (r_.all_races.size() >= ExploreResult::kMaxRaces) break;
      bool seen = false;
      for (const RaceRecord& y : r_.all_races)
        seen |= y.kind == x.kind && y.agent == x.agent && y.op == x.op &&
                y.other_agent == x.other_agent && y.other_op == x.other_op;
      if (!seen) r_.all_races.push_back(x);
    }
    const SignalTerminal::Outcome outcome =
        t.ending == Ending::kFault       ? SignalTerminal::fault
        : t.ending == Ending::kCompletes ? SignalTerminal::completes
                                         : SignalTerminal::deadlock;
    // Under a symmetry the search keeps one terminal state per orbit: the summaries list
    // every image, so they are the terminal states of the whole space.
    const SymmetryGroup* g = opt_.reduce_symmetry ? opt_.symmetry : nullptr;
    const int images = g ? static_cast<int>(g->elements.size()) : 0;
    for (int k = 0; k < std::max(images, 1); ++k)
      AddSummary(s, t, outcome, images ? &g->elements[k] : nullptr);
    std::optional<Terminal>* slot = t.ending == Ending::kFault      ? &r_.first_fault
                                    : t.ending == Ending::kCompletes ? &r_.first_complete
                                                                     : &r_.first_deadlock;
    bool preferred = t.ending == Ending::kDeadlock && opt_.prefer && !found_preferred_ &&
                     opt_.prefer(s);
    bool want = !slot->has_value() || (t.race && !r_.first_race.has_value()) || preferred;
    if (!want) return;
    if (preferred) {
      found_preferred_ = true;
      slot->reset();
    }
    for (size_t i = 1; i < stack.size(); ++i) t.trail.push_back(stack[i].in);
    if (last) t.trail.push_back(*last);
    t.state = s;
    if (t.race && !r_.first_race.has_value()) r_.first_race = t;
    if (!slot->has_value()) *slot = std::move(t);
  }

 private:
  void AddSummary(const State& s, const Terminal& t, SignalTerminal::Outcome outcome,
                  const SymmetryGroup::Element* image) {
    TerminalSummary sum;
    sum.outcome = outcome;
    if (t.ending == Ending::kDeadlock) sum.blocked = BlockedSignature(m_, s, image);
    sum.values = FinalValues(m_, s, image);
    std::string key = absl::StrCat(sum.outcome);
    for (const auto& b : sum.blocked) absl::StrAppend(&key, "|", b);
    for (const auto& [k, v] : sum.values) absl::StrAppend(&key, "|", k, "=", v);
    auto it = summary_index_.find(key);
    if (it != summary_index_.end()) {
      ++r_.terminals[it->second].count;
      r_.terminals[it->second].race |= t.race;
    } else if (r_.terminals.size() < 256) {
      sum.count = 1;
      sum.race = t.race;
      summary_index_[key] = r_.terminals.size();
      r_.terminals.push_back(std::move(sum));
    }
  }

  const Machine& m_;
  const ExploreOptions& opt_;
  ExploreResult& r_;
  std::map<std::string, size_t> summary_index_;
  bool found_preferred_ = false;
};

// The transitions explored from a state: the enabled ones that opt.allow admits,
// reduced (stubborn sets, counter abstraction) when exploring exhaustively.
class Expander {
 public:
  Expander(const Machine& m, const ExploreOptions& opt)
      : m_(m), opt_(opt), reducer_(m, opt.counters, opt.sync_guards, opt.value_guards,
                                opt.lane_first) {}

  void Expand(const State& s, std::vector<Transition>* choices) {
    m_.Enabled(s, &enabled_);
    if (opt_.allow) {
      chosen_.clear();
      for (const Transition& t : enabled_)
        if (opt_.allow(s, t)) chosen_.push_back(t);
      enabled_.swap(chosen_);
    }
    if (enabled_.empty()) {
      choices->clear();
      return;
    }
    if (opt_.schedule == "explore" && opt_.reduce && enabled_.size() > 1 && !opt_.allow) {
      reducer_.Reduce(s, enabled_, choices);
    } else {
      *choices = enabled_;
    }
  }
  const Reducer& reducer() const { return reducer_; }

 private:
  const Machine& m_;
  const ExploreOptions& opt_;
  Reducer reducer_;
  std::vector<Transition> enabled_, chosen_;
};

// One schedule (fifo or random): follows a single path to its end or the bound.
void RunOneSchedule(const Machine& m, const ExploreOptions& opt, Expander& expander,
                    TerminalRecorder& recorder, ExploreResult& r) {
  std::mt19937_64 rng(opt.seed);
  State s = m.Initial();
  std::vector<Transition> choices;
  std::vector<Node> trail_nodes(1);  // Record() skips the first node (the initial state)
  for (;;) {
    expander.Expand(s, &choices);
    if (choices.empty()) break;
    Transition t = choices.front();
    if (opt.schedule == "random")
      t = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
    Node n;
    m.Step(s, t, &n.in);
    ++r.transitions;
    ++r.states;
    trail_nodes.push_back(std::move(n));
    if (r.states >= opt.max_states) {
      r.bound_hit = true;
      break;
    }
  }
  if (!r.bound_hit) recorder.Record(s, trail_nodes, nullptr);
}

}  // namespace

ExploreResult Explore(const Machine& m, const ExploreOptions& opt) {
  ExploreResult r;
  auto t0 = std::chrono::steady_clock::now();
  TerminalRecorder recorder(m, opt, r);
  Expander expander(m, opt);
  if (opt.schedule != "explore") {
    RunOneSchedule(m, opt, expander, recorder, r);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  std::optional<SymmetryHasher> sym;
  if (opt.symmetry && opt.symmetry->order > 1) sym.emplace(m, *opt.symmetry);
  const bool symmetric = sym && opt.reduce_symmetry;
  auto key = [&](const State& s) { return symmetric ? sym->Canonical(s) : m.Hash(s); };
  absl::flat_hash_set<uint64_t> visited;
  std::vector<Node> stack;
  std::set<std::pair<uint64_t, bool>> orbits;
  auto record = [&](const State& s, const Event* last) {
    recorder.Record(s, stack, last);
    if (opt.collect_orbits) orbits.insert({sym ? sym->Canonical(s) : m.Hash(s), s.race_count > 0});
  };
  // The memory estimate: the stack's nodes (running sums), the visited set, the cache.
  int64_t stack_bytes = 0, stack_full_bytes = 0;
  const int comps = m.num_components();
  auto held = [&] {
    return stack_bytes + static_cast<int64_t>(stack.capacity() * sizeof(Node)) +
           static_cast<int64_t>(visited.capacity() * (sizeof(uint64_t) + 1)) +
           expander.reducer().cache_bytes();
  };
  auto note_push = [&] {
    Node& n = stack.back();
    MeasureNode(n, stack.size() > 1 ? &stack[stack.size() - 2] : nullptr, comps);
    stack_bytes += n.bytes;
    stack_full_bytes += n.full_bytes;
    const int64_t total = held();
    if (total > r.peak_memory_bytes) {
      r.peak_memory_bytes = total;
      r.peak_depth = static_cast<int64_t>(stack.size());
      r.state_bytes = stack_bytes / r.peak_depth;
      r.state_bytes_full_copy = stack_full_bytes / r.peak_depth;
    }
    return opt.max_memory_bytes <= 0 || total <= opt.max_memory_bytes;
  };
  stack.emplace_back();
  stack.back().s = opt.start ? *opt.start : m.Initial();
  visited.insert(key(stack.back().s));
  r.states = 1;
  expander.Expand(stack.back().s, &stack.back().choices);
  if (stack.back().choices.empty()) record(stack.back().s, nullptr);
  note_push();
  while (!stack.empty()) {
    Node& top = stack.back();
    if (top.next >= top.choices.size()) {
      stack_bytes -= top.bytes;
      stack_full_bytes -= top.full_bytes;
      stack.pop_back();
      continue;
    }
    Transition t = top.choices[top.next++];
    Node child;
    child.s = top.s;
    m.Step(child.s, t, &child.in);
    ++r.transitions;
    if (!visited.insert(key(child.s)).second) continue;
    if (++r.states > opt.max_states) {
      r.bound_hit = true;
      break;
    }
    expander.Expand(child.s, &child.choices);
    if (child.choices.empty()) {
      record(child.s, &child.in);
      if (opt.stop_at_complete && r.first_complete) break;
      continue;
    }
    stack.push_back(std::move(child));
    if (!note_push()) {
      r.bound_hit = true;
      r.memory_hit = true;
      break;
    }
  }
  r.terminal_orbits.assign(orbits.begin(), orbits.end());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace warpcheck::sim::signal
