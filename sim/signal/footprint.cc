// Footprints for the partial-order reduction: which words, data ranges, barriers, slots
// and launches an agent's next step touches, and which it may touch before it exits.
//
// Future() walks the agent's remaining program from its current position with a copy of
// its frame: loops are unrolled with their real bounds, branches are decided where the
// condition is known, and where a value is not known yet (an atomic's result) both
// branches are taken and indices that depend on it become wildcards. The walk is capped;
// past the cap the footprint is "everything", which is always sound.
#include <algorithm>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

namespace {

constexpr size_t kMaxEntries = 20000;

// The BARRIER_ALL instance an agent between arrive and leave has arrived at.
int64_t BarrierInstance(const AgentState& as) {
  return static_cast<int64_t>(static_cast<uint64_t>(as.tmp) & 0xffffffff);
}

struct Walker {
  const Machine& m;
  const Program& p;
  int agent;
  int rank;
  std::vector<int64_t> frame;
  std::vector<bool> unknown;  // per slot
  Footprint* out;
  bool overflow = false;
  int launches = 0;  // streams: launch ordinal of the next LAUNCH
  int current_op = -1;
  std::vector<Guard>* guards = nullptr;
  int guard = -1;  // innermost guard passed so far
  // The instance of the next BARRIER_ALL this walk reaches (the agent is its rank's one
  // barrier agent), or -1: no barrier guards (also once a barrier was reached under a
  // branch or loop whose outcome is not known, where the count is not known either).
  int64_t next_barrier = -1;
  // The same for the next GRID_BARRIER of this CTA (its own count, AgentState::
  // grid_barriers, so exact for any CTA), or -1.
  int64_t next_grid = -1;
  bool barrier_uncertain = false;
  // Streams: when set, the instance of the first BARRIER_ALL after each LAUNCH (by
  // launch ordinal) is recorded here as the walk reaches it (-1: unknown).
  std::vector<int64_t>* launch_bases = nullptr;
  // Spinning CAS guarded like a wait (Machine::Future's cas_guards).
  bool cas_guards = true;  // a BARRIER_ALL was reached under an unknown branch
  int uncertain = 0;  // unknown branches and loops the walk is inside
  const std::function<void(const Op&, const int64_t*, const std::vector<bool>&)>* visit = nullptr;

  bool Known(const Ex& e) const {
    for (int s : e.slots())
      if (unknown[s]) return false;
    return true;
  }
  // Ensures: true and *v when the value is known and evaluates.
  bool Value(const Ex& e, int64_t dflt, int64_t* v) const {
    if (!e.present()) {
      *v = dflt;
      return true;
    }
    if (!Known(e)) return false;
    return e.Eval(frame.data(), v);
  }
  void Add(Res res, Mode mode, int object, int64_t r, int64_t lo, int64_t hi) {
    if (out->size() >= kMaxEntries) {
      overflow = true;
      return;
    }
    Access2 a;
    a.res = res;
    a.mode = mode;
    a.object = object;
    a.rank = static_cast<int32_t>(r);
    a.lo = lo;
    a.hi = hi;
    a.op = current_op;
    a.guard = guard;
    out->push_back(a);
  }
  // object@rank[index .. index+count)
  // Marks the last added entry as a set of `v` (known) when the value evaluates.
  void SetValue(const Ex& e, int64_t dflt) {
    int64_t v;
    if (!overflow && !out->empty() && Value(e, dflt, &v)) {
      out->back().value_known = true;
      out->back().value = v;
    }
  }
  void Range(Res res, Mode mode, int object, const Ex& rank_e, int64_t rank_default,
             const Ex& index_e, const Ex* count_e, int64_t count_default) {
    int64_t r = -1, lo = -1, n = count_default, hi = -1;
    if (!Value(rank_e, rank_default, &r)) r = -1;
    if (Value(index_e, 0, &lo)) {
      if (count_e && !Value(*count_e, count_default, &n)) {
        lo = -1;
      } else {
        hi = lo + std::max<int64_t>(n, 1);
      }
    } else {
      lo = -1;
    }
    if (lo < 0) hi = -1;
    Add(res, mode, object, r, lo, hi);
  }

  // Makes the last added entry a commuting add of `amount_e` (the counter abstraction):
  // the old value is not used and the add is one atomic step.
  void MarkAdd(const Ex& amount_e) {
    if (overflow || out->empty()) return;
    Access2& x = out->back();
    x.mode = Mode::kAdd;
    int64_t v;
    if (Value(amount_e, 1, &v)) {
      x.amount_known = true;
      x.amount = v;
    }
  }

  void Op1(const Op& op) {
    const int me = rank;
    current_op = op.id;
    switch (op.kind) {
      case NOTIFY: {
        if (op.scope == GPU) {
          int64_t lo = -1;
          if (!Value(op.index, 0, &lo)) lo = -1;
          Add(Res::kWord, Mode::kWrite, op.object, me, lo, lo < 0 ? -1 : lo + 1);
        } else {
          Range(Res::kWord, Mode::kWrite, op.object, op.rank, me, op.index, nullptr, 1);
        }
        if (op.sig_op == SET) SetValue(op.value, 1);
        // Without native P2P atomics a remote add is a read step and a write step.
        if (op.sig_op == ADD && (p.native_p2p_atomics || op.scope == GPU)) MarkAdd(op.value);
        break;
      }
      case SIGNAL_OP:
      case ST_SIGNAL:
      case ATOMIC_ADD:
      case ATOMIC_CAS:
        Range(Res::kWord, Mode::kWrite, op.object, op.rank, me, op.index, nullptr, 1);
        if (op.kind == ST_SIGNAL || op.kind == ATOMIC_CAS || (op.kind == SIGNAL_OP && op.sig_op == SET))
          SetValue(op.value, 1);
        // ATOMIC_ADD stays a write: it reads the word's release clock (its acquire side).
        if (op.kind == SIGNAL_OP && op.sig_op == ADD) MarkAdd(op.value);
        if (op.result_slot >= 0) unknown[op.result_slot] = true;
        break;
      case WAIT:
      case WAIT_UNTIL: {
        // Every word the wait could poll (32 lanes at most on NVIDIA, unless unknown).
        int64_t n = 1;
        if (op.count.present() && !Value(op.count, 1, &n)) n = -1;
        if (op.kind == WAIT && !p.amd) n = n < 0 ? 32 : std::min<int64_t>(static_cast<uint32_t>(n), 32);
        int64_t r = -1, lo = -1;
        if (!Value(op.rank, me, &r)) r = -1;
        if (n < 0 || !Value(op.index, 0, &lo)) lo = -1;
        Add(Res::kWord, Mode::kRead, op.object, r, lo, lo < 0 ? -1 : lo + std::max<int64_t>(n, 1));
        break;
      }
      case STREAM_WAIT:
        Range(Res::kWord, Mode::kRead, op.object, op.rank, me, op.index, nullptr, 1);
        break;
      case STREAM_WRITE:
        Range(Res::kWord, Mode::kWrite, op.object, op.rank, me, op.index, nullptr, 1);
        SetValue(op.value, 1);
        break;
      case RESET: {
        int64_t r = -1;
        if (!Value(op.rank, me, &r)) r = -1;
        int64_t lo = -1, n = -1;
        if (Value(op.index, 0, &lo) && op.count.present() && Value(op.count, 1, &n)) {
          Add(Res::kWord, Mode::kWrite, op.object, r, lo, lo + std::max<int64_t>(n, 1));
        } else {
          Add(Res::kWord, Mode::kWrite, op.object, r, -1, -1);
        }
        SetValue(op.value, 0);
        break;
      }
      case STORE:
        Range(Res::kData, Mode::kWrite, op.object, op.rank, me, op.index, &op.count, 1);
        break;
      case LOAD:
        Range(Res::kData, Mode::kRead, op.object, op.rank, me, op.index, &op.count, 1);
        break;
      case PUT:
      case PUTSIG: {
        const Ex& src = op.src_index.present() ? op.src_index : op.index;
        Range(Res::kData, Mode::kRead, op.object, Ex(), me, src, &op.count, 1);
        Range(Res::kData, Mode::kWrite, op.object, op.rank, me, op.index, &op.count, 1);
        if (op.kind == PUTSIG) {
          Range(Res::kWord, Mode::kWrite, op.signal_object, op.rank, me, op.signal_index,
                nullptr, 1);
          if (op.signal_op == SET) SetValue(op.signal_value, 1);
          if (op.signal_op == ADD) MarkAdd(op.signal_value);
        }
        break;
      }
      case GET: {
        const Ex& src = op.src_index.present() ? op.src_index : op.index;
        Range(Res::kData, Mode::kRead, op.object, op.rank, me, src, &op.count, 1);
        Range(Res::kData, Mode::kWrite, op.object, Ex(), me, op.index, &op.count, 1);
        break;
      }
      case COPY: {
        const Ex& src = op.src_index.present() ? op.src_index : op.index;
        Range(Res::kData, Mode::kRead, op.object, op.src_rank, me, src, &op.count, 1);
        Range(Res::kData, Mode::kWrite, op.object, op.rank, me, op.index, &op.count, 1);
        break;
      }
      case BARRIER_ALL: {
        // The instance (lo) when the count is known: arrivals at different instances
        // touch different barriers. The leave, and what follows, come after the instance
        // completes.
        if (uncertain > 0) {
          next_barrier = -1;
          barrier_uncertain = true;
        }
        const int64_t inst = next_barrier, end = inst < 0 ? -1 : inst + 1;
        Add(Res::kBarrier, Mode::kWrite, 1, me, inst, end);
        if (guards && inst >= 0) PushGuard(Guard::Kind::kBarrier, inst);
        if (inst >= 0) ++next_barrier;
        Add(Res::kBarrier, Mode::kRead, 1, -1, inst, end);
        break;
      }
      case HOST_COLLECTIVE:
        Add(Res::kBarrier, Mode::kWrite, 2, me, -1, -1);
        Add(Res::kBarrier, Mode::kRead, 2, -1, -1, -1);
        break;
      case GRID_BARRIER: {
        // Numbered like BARRIER_ALL: the instance is the CTA's own count of grid
        // barriers, so arrivals at different instances touch different barriers, and
        // what follows comes after the instance completes (Guard::Kind::kGrid).
        const AgentInfo& ai = m.info(agent);
        if (uncertain > 0) next_grid = -1;
        const int64_t inst = next_grid, end = inst < 0 ? -1 : inst + 1;
        Add(Res::kBarrier, Mode::kWrite, 3 + ai.launch_first, ai.cta, inst, end);
        if (guards && inst >= 0) PushGuard(Guard::Kind::kGrid, inst);
        if (inst >= 0) ++next_grid;
        Add(Res::kBarrier, Mode::kRead, 3 + ai.launch_first, -1, inst, end);
        break;
      }
      case LAUNCH: {
        const AgentInfo& ai = m.info(agent);
        if (launches < static_cast<int>(ai.launches.size())) {
          // Starting each CTA (W) and waiting for each to exit (R): resource = the CTA.
          int first = ai.launches[launches];
          for (int c = 0; c < ai.launch_sizes[launches]; ++c)
            Add(Res::kLaunch, Mode::kWrite, first + c, -1, -1, -1);
          if (launch_bases && launches < static_cast<int>(launch_bases->size()))
            (*launch_bases)[launches] = uncertain > 0 ? -1 : next_barrier;
          // The launched CTAs' BARRIER_ALL arrivals come before this stream's next one.
          for (int c = 0; c < ai.launch_sizes[launches] && next_barrier >= 0; ++c) {
            const int64_t n = m.StaticArrivals(first + c);
            next_barrier = n < 0 || (n > 0 && uncertain > 0) ? -1 : next_barrier + n;
          }
        }
        ++launches;
        break;
      }
      default:
        break;
    }
  }

  void List(const std::vector<int>& list, size_t pos) {
    for (size_t i = pos; i < list.size() && !overflow; ++i) Visit(p.ops[list[i]]);
  }
  void Visit(const Op& op) {
    if (op.kind == FOR) {
      int64_t from, to, step;
      if (Value(op.from, 0, &from) && Value(op.to, 0, &to) && Value(op.step, 1, &step) &&
          step > 0) {
        bool was = unknown[op.var_slot];
        unknown[op.var_slot] = false;
        for (int64_t v = from; v < to && !overflow; v += step) {
          frame[op.var_slot] = v;
          List(op.body, 0);
        }
        unknown[op.var_slot] = was;
      } else {
        bool was = unknown[op.var_slot];
        unknown[op.var_slot] = true;
        ++uncertain;
        List(op.body, 0);
        --uncertain;
        unknown[op.var_slot] = was;
      }
      return;
    }
    if (op.kind == IF) {
      int64_t c;
      if (Value(op.cond, 0, &c)) {
        List(c ? op.body : op.else_body, 0);
      } else {
        int saved = guard;
        ++uncertain;
        List(op.body, 0);
        guard = saved;
        List(op.else_body, 0);
        guard = saved;
        --uncertain;
      }
      return;
    }
    if (visit) (*visit)(op, frame.data(), unknown);
    if (guards &&
        (op.kind == WAIT || op.kind == WAIT_UNTIL || op.kind == STREAM_WAIT ||
         (op.kind == ATOMIC_CAS && op.spin && cas_guards)) &&
        GuardedWait(op))
      return;
    const int launch = launches;
    Op1(op);
    if (!guards) return;
    if (op.kind == LAUNCH) GuardLaunch(launch);
  }
  // What follows in the walk comes after event (kind, id).
  void PushGuard(Guard::Kind kind, int64_t id) {
    Guard g;
    g.kind = kind;
    g.id = static_cast<int32_t>(id);
    g.parent = guard;
    guards->push_back(g);
    guard = static_cast<int>(guards->size()) - 1;
  }
  // A stream's launch ends when each of its CTAs has exited: what follows comes after.
  void GuardLaunch(int launch) {
    const AgentInfo& ai = m.info(agent);
    if (launch < 0 || launch >= static_cast<int>(ai.launches.size())) return;
    for (int c = 0; c < ai.launch_sizes[launch]; ++c)
      PushGuard(Guard::Kind::kExit, ai.launches[launch] + c);
  }
  // A wait with known words: one read per lane, each guarded by its own predicate (a
  // lane cannot sample before its word satisfies it), then every lane guards what
  // follows. Ensures: false (nothing added) when the words are not known.
  // A spinning ATOMIC_CAS is a wait for word == compare whose one lane then writes
  // `value` (its write, like a wait's read, cannot happen before its word matches).
  bool GuardedWait(const Op& op) {
    const bool cas = op.kind == ATOMIC_CAS;
    int64_t r = rank, lo = 0, n = 1, v = 0;
    if (!Value(op.rank, rank, &r) || !Value(op.index, 0, &lo) ||
        !Value(cas ? op.compare : op.value, cas ? 0 : 1, &v))
      return false;
    if (!cas && op.count.present() && !Value(op.count, 1, &n)) return false;
    if (op.kind == WAIT && !p.amd) n = std::min<int64_t>(static_cast<uint32_t>(n), 32);
    if (op.kind == WAIT_UNTIL && m.info(agent).kind == AgentKind::kCta)
      n = std::min<int64_t>(n, p.kernels[m.info(agent).kernel].threads);
    if (op.lane_if.present() || n > 64 || n < 0 || r < 0 || r >= p.ranks) return false;
    current_op = op.id;
    const int pre = guard;
    auto make = [&](int64_t l, int parent) {
      Guard g;
      g.key = WordKey(op.object, static_cast<int>(r), lo + l);
      g.expected = v;
      g.cmp = op.kind == WAIT || cas ? EQ : op.cmp;
      g.bytes = p.objects[op.object].bytes;
      g.parent = parent;
      guards->push_back(g);
      return static_cast<int>(guards->size()) - 1;
    };
    // A narrow (cta/weak) wait's first poll samples whatever is there: no self-guard.
    const bool narrow = (op.kind == WAIT || op.kind == WAIT_UNTIL) &&
                        (op.scope == CTA || op.sem == WEAK);
    for (int64_t l = 0; l < n; ++l) {
      guard = narrow ? pre : make(l, pre);
      Add(Res::kWord, cas ? Mode::kWrite : Mode::kRead, op.object, r, lo + l, lo + l + 1);
      if (cas) SetValue(op.value, 1);
    }
    if (cas && op.result_slot >= 0) unknown[op.result_slot] = true;
    guard = pre;
    for (int64_t l = 0; l < n; ++l) guard = make(l, guard);
    return true;
  }
};

}  // namespace

void Machine::FutureOf(const State& s, int a, Footprint* out, std::vector<Guard>* guards,
                       bool cas_guards, std::vector<int64_t>* launch_bases) const {
  const AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  Walker w{*this, *p_, a, ai.rank, as.frame, std::vector<bool>(as.frame.size(), false), out};
  w.launches = as.launches;
  w.launch_bases = launch_bases;
  w.guards = guards;
  w.cas_guards = cas_guards;
  w.next_barrier = BarrierBase(s, a);
  if (ai.kind == AgentKind::kCta) w.next_grid = as.grid_barriers;
  if (as.status == Status::kExited) return;
  if (as.status == Status::kNotLaunched || as.status == Status::kNotStarted) {
    w.frame = ai.frame0;
    if (p_->cta_slots > 0) w.Add(Res::kSlot, Mode::kWrite, 0, ai.rank, -1, -1);
    w.List(List(a, -1), 0);
  } else {
    // Innermost list from the current op, then each enclosing loop's remaining
    // iterations, then the parents' remaining ops.
    for (int level = static_cast<int>(as.stack.size()) - 1; level >= 0 && !w.overflow; --level) {
      const StackEntry& e = as.stack[level];
      const std::vector<int>& list = List(a, e.list);
      if (level == static_cast<int>(as.stack.size()) - 1 && as.phase == 1 &&
          e.pos < static_cast<int>(list.size())) {
        // Mid-op: the second half of a barrier or launch (leave / join: reads only), or
        // the write of a non-atomic add.
        const Op& op = p_->ops[list[e.pos]];
        if (op.kind == BARRIER_ALL || op.kind == HOST_COLLECTIVE || op.kind == GRID_BARRIER) {
          // Arrived at instance tmp, not left: the leave and what follows come after it
          // completes.
          const int64_t inst = op.kind == BARRIER_ALL    ? BarrierInstance(as)
                               : op.kind == GRID_BARRIER ? BarrierInstance(as)
                                                         : -1;
          if (guards && inst >= 0 && op.kind == BARRIER_ALL && w.next_barrier >= 0)
            w.PushGuard(Guard::Kind::kBarrier, inst);
          if (guards && inst >= 0 && op.kind == GRID_BARRIER)
            w.PushGuard(Guard::Kind::kGrid, inst);
          w.Add(Res::kBarrier, Mode::kRead,
                op.kind == BARRIER_ALL ? 1 : op.kind == HOST_COLLECTIVE ? 2 : 3 + ai.launch_first,
                -1, inst, inst < 0 ? -1 : inst + 1);
        } else if (op.kind == LAUNCH) {
          for (int c = 0; c < ai.launch_sizes[as.launches]; ++c)
            w.Add(Res::kLaunch, Mode::kRead, ai.launches[as.launches] + c, -1, -1, -1);
          if (guards) w.GuardLaunch(as.launches);
          ++w.launches;
        } else {
          w.Op1(op);
        }
        w.List(list, e.pos + 1);
      } else {
        w.List(list, e.pos);
      }
      if (e.loop_op >= 0) {
        const Op& lop = p_->ops[e.loop_op];
        for (int64_t v = w.frame[lop.var_slot] + e.step; v < e.to && !w.overflow; v += e.step) {
          w.frame[lop.var_slot] = v;
          w.List(lop.body, 0);
        }
      }
    }
  }
  if (ai.kind == AgentKind::kCta) {
    if (p_->cta_slots > 0) w.Add(Res::kSlot, Mode::kAdd, 0, ai.rank, -1, -1);
    w.Add(Res::kLaunch, Mode::kWrite, a, -1, -1, -1);
  }
  if (w.overflow) {
    out->clear();
    for (Res r : {Res::kWord, Res::kData, Res::kBarrier, Res::kSlot, Res::kLaunch}) {
      Access2 any;
      any.res = r;
      any.mode = Mode::kWrite;
      any.object = -2;  // matches everything (see Conflicts)
      out->push_back(any);
    }
  }
}

bool Machine::WalkProgram(
    int a, const std::function<void(const Op&, const int64_t*, const std::vector<bool>&)>& visit)
    const {
  const AgentInfo& ai = info_[a];
  Footprint scratch;
  Walker w{*this, *p_, a, ai.rank, ai.frame0, std::vector<bool>(ai.frame0.size(), false),
           &scratch};
  w.visit = &visit;
  w.List(List(a, -1), 0);
  return !w.overflow;
}

Footprint Machine::AfterExit(const State& s, int a) const {
  State copy = s;
  AgentState& as = copy.agents[a];
  if (as.status != Status::kExited || !as.exited_early || as.stack.empty()) return {};
  as.status = Status::kRunning;
  ++as.stack.back().pos;
  Footprint f;
  FutureOf(copy, a, &f, nullptr);
  return f;
}

Footprint Machine::Future(const State& s, int a, std::vector<Guard>* guards,
                          bool cas_guards) const {
  Footprint f;
  FutureOf(s, a, &f, guards, cas_guards);
  return f;
}

bool Machine::OnlyWrittenAfter(const State& s, uint64_t key, int b) const {
  if (!writers_known_) return false;
  if (wild_writes_.count({KeyObject(key), KeyRank(key)}) || wild_writes_.count({KeyObject(key), -1}))
    return false;
  auto it = writers_.find(key);
  if (it == writers_.end()) return false;
  const AgentInfo& bi = info_[b];
  for (int w : it->second) {
    if (w == b || s.agents[w].status == Status::kExited) continue;
    const AgentInfo& wi = info_[w];
    if (bi.kind == AgentKind::kCta && wi.kind == AgentKind::kCta &&
        wi.stream_agent == bi.stream_agent && wi.launch > bi.launch)
      continue;
    return false;
  }
  return true;
}

bool Machine::MayBeWritten(uint64_t key) const {
  if (!writers_known_) return true;
  if (wild_writes_.count({KeyObject(key), KeyRank(key)}) || wild_writes_.count({KeyObject(key), -1}))
    return true;
  return writers_.count(key) > 0;
}

void Machine::ComputeWriters() {
  State s0 = Initial();
  std::vector<std::set<int>> barrier_runners(p_->ranks);
  static_arrivals_.assign(num_agents(), -1);
  for (int a = 0; a < num_agents(); ++a) {
    Footprint f;
    AgentState copy = s0.agents[a];
    Walker w{*this, *p_, a, info_[a].rank, info_[a].frame0,
             std::vector<bool>(info_[a].frame0.size(), false), &f};
    w.List(List(a, -1), 0);
    if (w.overflow) {
      writers_known_ = false;
      return;
    }
    int64_t arrivals = 0;
    for (const Access2& x : f) {
      if (x.res == Res::kBarrier && x.mode == Mode::kWrite && x.object == 1) {
        barrier_runners[info_[a].rank].insert(a);
        ++arrivals;
      }
      if (x.res != Res::kWord || x.mode == Mode::kRead) continue;
      if (x.lo < 0 || x.rank < 0 || x.hi - x.lo > 65536) {
        wild_writes_.insert({x.object, x.rank});
        continue;
      }
      for (int64_t i = x.lo; i < x.hi; ++i) {
        std::vector<int>& ws = writers_[WordKey(x.object, x.rank, i)];
        if (ws.empty() || ws.back() != a) ws.push_back(a);
      }
    }
    static_arrivals_[a] = w.barrier_uncertain ? -1 : arrivals;
  }
  barrier_runners_.clear();
  for (const std::set<int>& runners : barrier_runners) {
    const std::vector<int> v(runners.begin(), runners.end());
    bool sequential = v.size() == 1;
    if (v.size() > 1) {
      // CTAs of one stream, at most one per launch, and perhaps that stream itself (it
      // waits in each LAUNCH until the launch's CTAs have exited).
      std::set<int> launches;
      int stream = -1;
      for (int a : v)
        if (info_[a].kind != AgentKind::kCta) stream = a;
      sequential = true;
      for (int a : v) {
        const AgentInfo& x = info_[a];
        if (a == stream) continue;
        const int want = stream >= 0 ? stream : info_[v[0]].stream_agent;
        sequential &= x.kind == AgentKind::kCta && x.stream_agent == want &&
                      launches.insert(x.launch).second;
      }
    }
    if (!sequential) {
      barrier_runners_.clear();
      return;
    }
    barrier_runners_.push_back(v);
  }
}

int64_t Machine::BarrierBase(const State& s, int a) const {
  const AgentInfo& ai = info_[a];
  const std::vector<int>* runners = BarrierRunners(ai.rank);
  if (!runners || std::find(runners->begin(), runners->end(), a) == runners->end()) return -1;
  int64_t base = s.barrier_calls[ai.rank];
  const AgentState& as = s.agents[a];
  const Status st = as.status;
  if (runners->size() == 1) return base;
  if (ai.kind != AgentKind::kCta) {
    // The stream, in a LAUNCH whose CTAs are running: their arrivals come first.
    const int k = as.launches;
    const int id = CurrentOp(s, a);
    if (as.phase != 1 || id < 0 || p_->ops[id].kind != LAUNCH ||
        k >= static_cast<int>(ai.launches.size()))
      return base;
    for (int z = ai.launches[k]; z < ai.launches[k] + ai.launch_sizes[k]; ++z) {
      if (s.agents[z].status == Status::kExited || static_arrivals_[z] == 0) continue;
      const int64_t n = RemainingArrivals(s, z);
      if (n < 0) return -1;
      base += n;
    }
    return base;
  }
  if (st != Status::kNotLaunched && st != Status::kNotStarted) return base;
  const bool stream_runs = std::find(runners->begin(), runners->end(), ai.stream_agent) !=
                           runners->end();
  if (stream_runs) {
    // Its stream runs barriers too: in its LAUNCH, the rank's count; before it, what the
    // stream's walk numbers at that LAUNCH.
    const AgentState& ss = s.agents[ai.stream_agent];
    const int sop = CurrentOp(s, ai.stream_agent);
    if (ss.launches == ai.launch && ss.phase == 1 && sop >= 0 && p_->ops[sop].kind == LAUNCH)
      return st == Status::kNotStarted ? base : -1;
    if (ss.launches > ai.launch || ss.status == Status::kExited) return -1;
    std::vector<int64_t> bases(info_[ai.stream_agent].launches.size(), -1);
    Footprint f;
    FutureOf(s, ai.stream_agent, &f, nullptr, true, &bases);
    return bases[ai.launch];
  }
  // Not started: the runners of earlier launches of its stream arrive first.
  for (int z : *runners) {
    if (info_[z].launch >= ai.launch || s.agents[z].status == Status::kExited) continue;
    const int64_t n = RemainingArrivals(s, z);
    if (n < 0) return -1;
    base += n;
  }
  return base;
}

int64_t Machine::RemainingArrivals(const State& s, int z) const {
  Footprint f;
  FutureOf(s, z, &f, nullptr);
  int64_t n = 0;
  for (const Access2& x : f) {
    if (x.object == -2) return -1;  // the walk overflowed
    if (x.res != Res::kBarrier || x.mode != Mode::kWrite || x.object != 1) continue;
    if (x.lo < 0) return -1;
    ++n;
  }
  return n;
}

Footprint Machine::Next(const State& s, int a) const {
  Footprint f;
  const AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  if (as.status == Status::kNotStarted) {
    Access2 x;
    x.res = Res::kSlot;
    x.mode = Mode::kWrite;
    x.object = 0;
    x.rank = ai.rank;
    f.push_back(x);
    return f;
  }
  if (as.status != Status::kRunning) return f;
  int id = CurrentOp(s, a);
  if (id < 0) return f;
  const Op& op = p_->ops[id];
  if (as.phase == 1 && (op.kind == BARRIER_ALL || op.kind == HOST_COLLECTIVE ||
                        op.kind == GRID_BARRIER || op.kind == LAUNCH)) {
    // The second half: leaving the barrier / joining the launch (a read).
    Access2 x;
    x.mode = Mode::kRead;
    if (op.kind == LAUNCH) {
      x.res = Res::kLaunch;
      for (int c = 0; c < ai.launch_sizes[as.launches]; ++c) {
        x.object = ai.launches[as.launches] + c;
        f.push_back(x);
      }
    } else {
      x.res = Res::kBarrier;
      x.object = op.kind == BARRIER_ALL ? 1 : op.kind == HOST_COLLECTIVE ? 2 : 3 + ai.launch_first;
      if (op.kind == BARRIER_ALL || op.kind == GRID_BARRIER) {
        x.lo = BarrierInstance(as);
        x.hi = x.lo + 1;
      }
      f.push_back(x);
    }
    return f;
  }
  Walker w{*this, *p_, a, ai.rank, as.frame, std::vector<bool>(as.frame.size(), false), &f};
  w.launches = as.launches;
  w.next_barrier = s.barrier_calls[ai.rank];  // an arrival now takes this instance
  w.next_grid = as.grid_barriers;
  if (as.wait_armed) {
    // Only the lanes that can sample now: lanes of one agent commute with each other, so
    // a still-disabled lane is not part of this step (see explore.h).
    for (size_t i = 0; i < as.lanes.size(); ++i)
      for (uint64_t bits = as.lanes[i]; bits; bits &= bits - 1) {
        int l = static_cast<int>(i * 64 + __builtin_ctzll(bits));
        if ((op.kind == WAIT || op.kind == WAIT_UNTIL) && !LaneReady(s, a, op, l)) continue;
        Access2 x;
        x.res = Res::kWord;
        x.mode = op.kind == ATOMIC_CAS ? Mode::kWrite : Mode::kRead;
        x.object = op.object;
        x.rank = as.wait_rank;
        x.lo = as.wait_index + l;
        x.hi = x.lo + 1;
        f.push_back(x);
      }
  } else {
    w.Op1(op);
  }
  // The step may end the agent (its last op, or EXIT): slot and launch effects.
  bool can_end = op.kind == EXIT;
  if (!can_end) {
    int pending = 0;
    for (uint64_t bits : as.lanes) pending += __builtin_popcountll(bits);
    if (!(as.wait_armed && pending > 1) &&
        !((op.kind == BARRIER_ALL || op.kind == GRID_BARRIER || op.kind == LAUNCH ||
           op.kind == HOST_COLLECTIVE) && as.phase == 0)) {
      Footprint rest;
      Walker r{*this, *p_, a, ai.rank, as.frame, std::vector<bool>(as.frame.size(), false), &rest};
      r.launches = as.launches + (op.kind == LAUNCH ? 1 : 0);
      for (int level = static_cast<int>(as.stack.size()) - 1; level >= 0 && rest.empty(); --level) {
        const StackEntry& e = as.stack[level];
        r.List(List(a, e.list), level == static_cast<int>(as.stack.size()) - 1 ? e.pos + 1 : e.pos);
        if (e.loop_op >= 0 && rest.empty()) {
          const Op& lop = p_->ops[e.loop_op];
          if (r.frame[lop.var_slot] + e.step < e.to) r.List(lop.body, 0);
        }
      }
      can_end = rest.empty() && !r.overflow;
    }
  }
  if (ai.kind == AgentKind::kCta && can_end) {
    Access2 x;
    if (p_->cta_slots > 0) {
      x.res = Res::kSlot;
      x.mode = Mode::kAdd;
      x.object = 0;
      x.rank = ai.rank;
      f.push_back(x);
    }
    x.res = Res::kLaunch;
    x.mode = Mode::kWrite;
    x.object = a;
    x.rank = -1;
    f.push_back(x);
  }
  return f;
}

std::vector<Footprint> Machine::NeedsAlternatives(const State& s, int a) const {
  std::vector<Footprint> alts;
  const AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  auto one = [&](Res res, int object, int rank, int64_t lo, int64_t hi) {
    Access2 x;
    x.res = res;
    x.mode = Mode::kRead;
    x.object = object;
    x.rank = rank;
    x.lo = lo;
    x.hi = hi;
    alts.push_back(Footprint{x});
  };
  if (as.status == Status::kNotLaunched) {
    one(Res::kLaunch, a, -1, -1, -1);
    return alts;
  }
  if (as.status == Status::kNotStarted) {
    one(Res::kSlot, 0, ai.rank, -1, -1);
    return alts;
  }
  if (as.status != Status::kRunning) return alts;
  int id = CurrentOp(s, a);
  if (id < 0) return alts;
  const Op& op = p_->ops[id];
  if (as.wait_armed) {
    // Every polling lane must be satisfied: each lane's word is a necessary condition.
    for (size_t i = 0; i < as.lanes.size(); ++i)
      for (uint64_t bits = as.lanes[i]; bits; bits &= bits - 1) {
        int l = static_cast<int>(i * 64 + __builtin_ctzll(bits));
        one(Res::kWord, op.object, as.wait_rank, as.wait_index + l, as.wait_index + l + 1);
      }
    return alts;
  }
  switch (op.kind) {
    case BARRIER_ALL:
    case HOST_COLLECTIVE: {
      auto it = s.barriers.find(static_cast<uint64_t>(as.tmp));
      std::vector<bool> in(p_->ranks, false);
      if (it != s.barriers.end())
        for (int x : it->second.arrivers) in[info_[x].rank] = true;
      for (int r = 0; r < p_->ranks; ++r)
        if (!in[r]) one(Res::kBarrier, op.kind == BARRIER_ALL ? 1 : 2, r, -1, -1);
      break;
    }
    case GRID_BARRIER: {
      auto it = s.barriers.find(static_cast<uint64_t>(as.tmp));
      std::vector<bool> in(ai.launch_size, false);
      if (it != s.barriers.end())
        for (int x : it->second.arrivers) in[info_[x].cta] = true;
      for (int c = 0; c < ai.launch_size; ++c)
        if (!in[c]) one(Res::kBarrier, 3 + ai.launch_first, c, -1, -1);
      break;
    }
    case LAUNCH:
      for (int c = 0; c < ai.launch_sizes[as.launches]; ++c) {
        int x = ai.launches[as.launches] + c;
        if (s.agents[x].status != Status::kExited) one(Res::kLaunch, x, -1, -1, -1);
      }
      break;
    default:
      break;
  }
  return alts;
}
}  // namespace warpcheck::sim::signal
