#include "sim/signal/explore.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "absl/container/node_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace warpcheck::sim::signal {

std::vector<std::string> BlockedSignature(const Machine& m, const State& s) {
  std::vector<std::string> out;
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentState& as = s.agents[a];
    if (as.status == Status::kExited) continue;
    if (as.status == Status::kNotLaunched) continue;  // its stream is the blocked one
    std::string site = as.status == Status::kNotStarted ? "not_started" : "?";
    int op = m.CurrentOp(s, a);
    if (as.status == Status::kRunning && op >= 0) site = m.program().ops[op].site;
    out.push_back(absl::StrCat(m.info(a).name, "@", site));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, int64_t> FinalValues(const Machine& m, const State& s) {
  std::map<std::string, int64_t> out;
  for (const auto& [key, w] : s.words)
    if (w.value != m.program().objects[KeyObject(key)].init) out[m.WordName(key)] = w.value;
  return out;
}

namespace {

// The stubborn set: agents closed under conflicts of their next steps (or, when
// blocked, their enabling needs) with other agents' futures.
class Reducer {
 public:
  explicit Reducer(const Machine& m) : m_(m) {}

  void Reduce(const State& s, const std::vector<Transition>& enabled,
              std::vector<Transition>* out) {
    const int n = m_.num_agents();
    if (cache_.size() > 100000) cache_.clear();  // only between states: no live pointers
    futures_.assign(n, nullptr);
    guards_.assign(n, nullptr);
    have_future_.assign(n, false);
    std::vector<char> is_enabled(n, 0);
    for (const Transition& t : enabled) is_enabled[t.agent] = 1;
    std::vector<char> best;
    size_t best_cost = SIZE_MAX;
    std::vector<char> tried(n, 0);
    for (const Transition& t : enabled) {
      if (tried[t.agent]) continue;
      std::vector<char> in(n, 0);
      Closure(s, t.agent, is_enabled, &in);
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
  static uint64_t ControlKey(const AgentState& as, int a) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(a);
    auto mix = [&](uint64_t v) { h = HashMix(h, v); };
    mix(static_cast<uint64_t>(as.status) | (static_cast<uint64_t>(as.phase) << 8) |
        (static_cast<uint64_t>(as.launches) << 16) | (uint64_t{as.exited_early} << 48));
    for (const StackEntry& e : as.stack)
      mix((static_cast<uint64_t>(static_cast<uint32_t>(e.list)) << 32) | static_cast<uint32_t>(e.pos));
    for (int64_t v : as.frame) mix(static_cast<uint64_t>(v));
    return h;
  }
  const Footprint& FutureOf(const State& s, int a) {
    if (!have_future_[a]) {
      uint64_t key = ControlKey(s.agents[a], a);
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        std::vector<Guard> g;
        Footprint f = m_.Future(s, a, &g);
        it = cache_.emplace(key, std::make_pair(std::move(f), std::move(g))).first;
      }
      futures_[a] = &it->second.first;
      guards_[a] = &it->second.second;
      have_future_[a] = true;
    }
    return *futures_[a];
  }
  // True when x's access f can only happen after x passes a wait on a word that only b
  // writes and that does not hold yet: then f cannot come before b's next step.
  bool GuardedBy(const State& s, int b, int x, const Access2& f) const {
    for (int g = f.guard; g >= 0; g = (*guards_[x])[g].parent) {
      const Guard& gd = (*guards_[x])[g];
      if (!m_.OnlyWrittenAfter(s, gd.key, b)) continue;
      auto it = s.words.find(gd.key);
      int64_t v = it == s.words.end() ? m_.program().objects[KeyObject(gd.key)].init
                                      : it->second.value;
      if (!m_.Satisfies(gd.cmp, v, gd.expected, gd.bytes)) return true;
    }
    return false;
  }
  // True when CTA x cannot start before b's next step: it belongs to a later launch on
  // its stream, and a CTA of the launch before it is b itself or cannot exit before b
  // moves (its exit is guarded by a wait only b can satisfy).
  bool LaunchGuarded(const State& s, int b, int x, int depth = 0) {
    const AgentInfo& xi = m_.info(x);
    if (xi.kind != AgentKind::kCta || s.agents[x].status != Status::kNotLaunched ||
        xi.launch <= 0 || depth > 4)
      return false;
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
            GuardedBy(s, b, y, f))
          return true;
    }
    return false;
  }
  bool Depends(const State& s, int b, const Footprint& probe, int x) {
    const Footprint& fut = FutureOf(s, x);
    bool conflict = false;
    for (const Access2& a : probe) {
      for (const Access2& f : fut)
        if (Conflicts(a, f)) {
          conflict = true;
          break;
        }
      if (conflict) break;
    }
    if (!conflict || LaunchGuarded(s, b, x)) return false;
    for (const Access2& a : probe)
      for (const Access2& f : fut)
        if (Conflicts(a, f) && !GuardedBy(s, b, x, f)) return true;
    return false;
  }
  void Closure(const State& s, int seed, const std::vector<char>& is_enabled,
               std::vector<char>* in) {
    std::vector<int> work{seed};
    (*in)[seed] = 1;
    while (!work.empty()) {
      int b = work.back();
      work.pop_back();
      Footprint probe;
      if (is_enabled[b]) {
        probe = m_.Next(s, b);
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
        if (!(*in)[st]) {
          (*in)[st] = 1;
          work.push_back(st);
        }
      }
      if (!is_enabled[b] && s.agents[b].status == Status::kNotStarted && m_.info(b).cta > 0) {
        int prev = b - 1;  // CTAs start in order
        if (!(*in)[prev]) {
          (*in)[prev] = 1;
          work.push_back(prev);
        }
      }
      for (int x = 0; x < m_.num_agents(); ++x) {
        if ((*in)[x] || s.agents[x].status == Status::kExited) continue;
        if (Depends(s, b, probe, x)) {
          (*in)[x] = 1;
          work.push_back(x);
        }
      }
    }
  }

  const Machine& m_;
  std::vector<const Footprint*> futures_;
  std::vector<const std::vector<Guard>*> guards_;
  // node_hash_map: pointers into it stay valid while it grows.
  absl::node_hash_map<uint64_t, std::pair<Footprint, std::vector<Guard>>> cache_;
  std::vector<char> have_future_;
};

struct Node {
  State s;
  std::vector<Transition> choices;  // the transitions to explore from this state
  size_t next = 0;
  Event in;
};

}  // namespace

ExploreResult Explore(const Machine& m, const ExploreOptions& opt) {
  ExploreResult r;
  auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, size_t> summary_index;
  bool found_preferred = false;
  auto record = [&](const State& s, const std::vector<Node>& stack, const Event* last) {
    Terminal t;
    t.race = s.race_count > 0;
    if (!s.fault.empty()) t.ending = Ending::kFault;
    else if (m.Done(s)) t.ending = Ending::kCompletes;
    else t.ending = Ending::kDeadlock;
    switch (t.ending) {
      case Ending::kFault: ++r.faults; break;
      case Ending::kCompletes: ++r.completes; break;
      case Ending::kDeadlock: ++r.deadlocks; break;
    }
    if (t.race) ++r.races;
    for (const RaceRecord& x : s.races) {
      if (r.all_races.size() >= ExploreResult::kMaxRaces) break;
      bool seen = false;
      for (const RaceRecord& y : r.all_races)
        seen |= y.kind == x.kind && y.agent == x.agent && y.op == x.op &&
                y.other_agent == x.other_agent && y.other_op == x.other_op;
      if (!seen) r.all_races.push_back(x);
    }
    TerminalSummary sum;
    sum.outcome = t.ending == Ending::kFault       ? SignalTerminal::fault
                  : t.ending == Ending::kCompletes ? SignalTerminal::completes
                                                   : SignalTerminal::deadlock;
    if (t.ending == Ending::kDeadlock) sum.blocked = BlockedSignature(m, s);
    sum.values = FinalValues(m, s);
    std::string key = absl::StrCat(sum.outcome);
    for (const auto& b : sum.blocked) absl::StrAppend(&key, "|", b);
    for (const auto& [k, v] : sum.values) absl::StrAppend(&key, "|", k, "=", v);
    auto it = summary_index.find(key);
    if (it != summary_index.end()) {
      ++r.terminals[it->second].count;
      r.terminals[it->second].race |= t.race;
    } else if (r.terminals.size() < 256) {
      sum.count = 1;
      sum.race = t.race;
      summary_index[key] = r.terminals.size();
      r.terminals.push_back(std::move(sum));
    }
    std::optional<Terminal>* slot = t.ending == Ending::kFault      ? &r.first_fault
                                    : t.ending == Ending::kCompletes ? &r.first_complete
                                                                     : &r.first_deadlock;
    bool preferred = t.ending == Ending::kDeadlock && opt.prefer && !found_preferred &&
                     opt.prefer(s);
    bool want = !slot->has_value() || (t.race && !r.first_race.has_value()) || preferred;
    if (!want) return;
    if (preferred) {
      found_preferred = true;
      slot->reset();
    }
    for (size_t i = 1; i < stack.size(); ++i) t.trail.push_back(stack[i].in);
    if (last) t.trail.push_back(*last);
    t.state = s;
    if (t.race && !r.first_race.has_value()) r.first_race = t;
    if (!slot->has_value()) *slot = std::move(t);
  };

  Reducer reducer(m);
  std::vector<Transition> enabled, chosen;
  auto expand = [&](const State& s, std::vector<Transition>* choices) {
    m.Enabled(s, &enabled);
    if (opt.allow) {
      chosen.clear();
      for (const Transition& t : enabled)
        if (opt.allow(s, t)) chosen.push_back(t);
      enabled.swap(chosen);
    }
    if (enabled.empty()) {
      choices->clear();
      return;
    }
    if (opt.schedule == "explore" && opt.reduce && enabled.size() > 1 && !opt.allow) {
      reducer.Reduce(s, enabled, choices);
    } else {
      *choices = enabled;
    }
  };

  if (opt.schedule != "explore") {
    std::mt19937_64 rng(opt.seed);
    State s = m.Initial();
    std::vector<Transition> choices;
    std::vector<Node> trail_nodes(1);  // record() skips the first node (the initial state)
    for (;;) {
      expand(s, &choices);
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
    if (!r.bound_hit) record(s, trail_nodes, nullptr);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  absl::flat_hash_set<uint64_t> visited;
  std::vector<Node> stack;
  stack.emplace_back();
  stack.back().s = opt.start ? *opt.start : m.Initial();
  visited.insert(m.Hash(stack.back().s));
  r.states = 1;
  expand(stack.back().s, &stack.back().choices);
  if (stack.back().choices.empty()) record(stack.back().s, stack, nullptr);
  while (!stack.empty()) {
    Node& top = stack.back();
    if (top.next >= top.choices.size()) {
      stack.pop_back();
      continue;
    }
    Transition t = top.choices[top.next++];
    Node child;
    child.s = top.s;
    m.Step(child.s, t, &child.in);
    ++r.transitions;
    if (!visited.insert(m.Hash(child.s)).second) continue;
    if (++r.states > opt.max_states) {
      r.bound_hit = true;
      break;
    }
    expand(child.s, &child.choices);
    if (child.choices.empty()) {
      record(child.s, stack, &child.in);
      if (opt.stop_at_complete && r.first_complete) break;
      continue;
    }
    stack.push_back(std::move(child));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace warpcheck::sim::signal
