// The semantics of each op: Machine::Step, Enabled, Normalize and the renderings.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "sim/signal/machine.h"

namespace warpcheck::sim::signal {

namespace {
bool UsesT0(SignalBy by) { return by != OTHER_THREADS; }
bool UsesRest(SignalBy by) { return by == ALL_THREADS || by == OTHER_THREADS; }
}  // namespace

void Machine::Exit(State& s, int a, bool early) const {
  AgentState& as = s.agents[a];
  as.status = Status::kExited;
  as.exited_early = early;
  if (info_[a].kind == AgentKind::kCta) --s.slots_used[info_[a].rank];
}

void Machine::FinishOp(State& s, int a) const {
  AgentState& as = s.agents[a];
  as.phase = 0;
  as.wait_armed = false;
  as.lanes.clear();
  as.cached.clear();
  as.polled.clear();
  if (!as.stack.empty()) ++as.stack.back().pos;
}

void Machine::LocalOp(State& s, int a, const Op& op) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  switch (op.kind) {
    case SYNCTHREADS: {
      Clock j = as.t0.Joined(as.rest);
      as.t0 = j.Ticked(ai.comp_t0);
      as.rest = j.Ticked(ai.comp_rest);
      break;
    }
    case FENCE: {
      // fence.sc completes an acquire pattern for earlier relaxed reads and starts a
      // release pattern for later strong writes.
      SignalBy by = op.by == BY_DEFAULT ? ALL_THREADS : op.by;
      if (UsesT0(by)) as.t0 = as.t0.Joined(as.pending_acq);
      if (UsesRest(by)) as.rest = as.rest.Joined(as.pending_acq);
      as.pending_acq = Clock();
      as.fence = UsesT0(by) ? as.t0 : as.rest;
      break;
    }
    case NVSHMEM_FENCE:
    case QUIET:
      as.t0 = as.t0.Joined(as.px);
      as.rest = as.rest.Joined(as.px);
      as.fence = as.t0;
      break;
    default:
      break;
  }
  as.float_current = true;
}

int64_t Machine::LaneCount(int a, const Op& op, int64_t count) const {
  if (op.kind == WAIT) {
    if (p_->amd) return count > 0 ? count : 0;
    uint32_t n = static_cast<uint32_t>(count);  // setp.lt.u32
    return std::min<uint32_t>(n, 32);
  }
  if (op.kind != WAIT_UNTIL || count < 0) return 1;
  // One thread per word (`if tid < n`): words past the CTA's threads are never waited
  // for (signaling.md §1.8).
  if (info_[a].kind == AgentKind::kCta)
    return std::min<int64_t>(count, p_->kernels[info_[a].kernel].threads);
  return count;
}

void Machine::ArmWait(State& s, int a, const Op& op) const {
  AgentState& as = s.agents[a];
  int64_t rank = info_[a].rank, index = 0, count = 1, value = 0;
  if (!Eval(s, a, op.rank, &rank) || !Eval(s, a, op.index, &index)) return;
  if (op.kind == ATOMIC_CAS) {
    if (!Eval(s, a, op.compare, &value)) return;
  } else if (!Eval(s, a, op.value, &value)) {
    return;
  }
  if (op.count.present() && !Eval(s, a, op.count, &count)) return;
  if (op.kind == WAIT_UNTIL && count < 0) {
    Fault(s, a, absl::StrCat(op.site, ": negative count ", count));
    return;
  }
  int64_t lanes = LaneCount(a, op, count);
  if (lanes > 4096) {
    Fault(s, a, absl::StrCat(op.site, ": ", lanes, " polling lanes; at most 4096 are modelled"));
    return;
  }
  as.lanes.assign(static_cast<size_t>((lanes + 63) / 64), 0);
  for (int64_t l = 0; l < lanes; ++l) {
    if (op.lane_if.present()) {
      as.frame[kSlotL] = l;
      int64_t keep = 0;
      if (!Eval(s, a, op.lane_if, &keep)) return;
      if (!keep) continue;
    }
    uint64_t key;
    if (!ResolveWord(s, a, op.object, rank, index + l, &key)) return;
    as.lanes[l / 64] |= uint64_t{1} << (l % 64);
  }
  as.cached.clear();
  if ((op.kind == WAIT || op.kind == WAIT_UNTIL) && (op.scope == CTA || op.sem == WEAK)) {
    // A cta-scoped or weak poll is served from L1: it keeps seeing the value it first
    // loaded, and never the writes of other CTAs or GPUs that land later (probe T6).
    // The first poll of each lane is its own step (it reads the word).
    as.cached.assign(static_cast<size_t>(std::max<int64_t>(lanes, 1)), 0);
    as.polled.assign(as.lanes.size(), 0);
  }
  as.wait_armed = true;
  as.wait_rank = static_cast<int32_t>(rank);
  as.wait_index = index;
  as.wait_value = value;
  if (as.float_current && (op.kind == WAIT || op.kind == WAIT_UNTIL)) {
    as.float_t0 = as.t0;
    as.float_rest = as.rest;
    as.float_current = false;
  }
}

namespace {
bool AnyLane(const std::vector<uint64_t>& lanes) {
  for (uint64_t w : lanes)
    if (w) return true;
  return false;
}
bool IsArmed(SignalOpKind k, const Op& op) {
  return k == WAIT || k == WAIT_UNTIL || k == STREAM_WAIT || (k == ATOMIC_CAS && op.spin);
}
}  // namespace

void Machine::Normalize(State& s, int a) const {
  AgentState& as = s.agents[a];
  while (s.fault.empty() && as.status == Status::kRunning) {
    if (as.stack.empty()) {
      Exit(s, a, false);
      return;
    }
    StackEntry& e = as.stack.back();
    const std::vector<int>& list = List(a, e.list);
    if (e.pos >= static_cast<int>(list.size())) {
      if (e.loop_op >= 0) {
        const Op& lop = p_->ops[e.loop_op];
        int64_t v = as.frame[lop.var_slot] + e.step;
        if (v < e.to) {
          as.frame[lop.var_slot] = v;
          e.pos = 0;
          continue;
        }
      }
      as.stack.pop_back();
      continue;
    }
    const Op& op = p_->ops[list[e.pos]];
    switch (op.kind) {
      case FOR: {
        int64_t from, to, step;
        if (!Eval(s, a, op.from, &from) || !Eval(s, a, op.to, &to) ||
            !Eval(s, a, op.step, &step))
          return;
        if (step <= 0) {
          Fault(s, a, absl::StrCat(op.path, ".step: must be positive, is ", step));
          return;
        }
        ++e.pos;
        if (from < to && !op.body.empty()) {
          as.frame[op.var_slot] = from;
          StackEntry child;
          child.list = op.id * 2;
          child.loop_op = op.id;
          child.to = to;
          child.step = step;
          as.stack.push_back(child);
        }
        continue;
      }
      case IF: {
        int64_t c;
        if (!Eval(s, a, op.cond, &c)) return;
        ++e.pos;
        const std::vector<int>& body = c ? op.body : op.else_body;
        if (!body.empty()) {
          StackEntry child;
          child.list = op.id * 2 + (c ? 0 : 1);
          as.stack.push_back(child);
        }
        continue;
      }
      case SYNCTHREADS:
      case FENCE:
      case NVSHMEM_FENCE:
      case QUIET:
        LocalOp(s, a, op);
        ++e.pos;
        continue;
      default:
        break;
    }
    if (IsArmed(op.kind, op) && !as.wait_armed) {
      ArmWait(s, a, op);
      if (!s.fault.empty()) return;
      if (!AnyLane(as.lanes)) {
        // Nothing to poll (count 0, or every lane filtered out): the wait passes.
        if (op.token_slot >= 0) as.tokens.push_back({op.token_slot, {as.t0, as.rest}});
        FinishOp(s, a);
        continue;
      }
    }
    return;
  }
}

bool Machine::LaneReady(const State& s, int a, const Op& op, int l) const {
  const AgentState& as = s.agents[a];
  if (FirstPoll(as, l)) return true;
  const int bytes = p_->objects[op.object].bytes;
  const uint64_t key = WordKey(op.object, as.wait_rank, as.wait_index + l);
  const bool polls = op.kind == WAIT || op.kind == WAIT_UNTIL;
  const int64_t v = Visible(s, a, key, polls ? op.scope : SYS, polls ? op.sem : ACQUIRE);
  if (op.kind == STREAM_WAIT && op.cmp == GE) {
    // cuStreamWaitValue GEQ: (int)(*addr - value) >= 0, wraparound-tolerant.
    int64_t d = bytes == 4 ? static_cast<int32_t>(v - as.wait_value) : v - as.wait_value;
    return d >= 0;
  }
  return Satisfies(op.kind == ATOMIC_CAS ? EQ : op.cmp, v, as.wait_value, bytes);
}

bool Machine::AgentEnabled(const State& s, int a) const {
  const AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  if (!s.fault.empty()) return false;
  if (as.status == Status::kNotStarted) {
    if (p_->cta_slots > 0 && s.slots_used[ai.rank] >= p_->cta_slots) return false;
    return ai.cta == 0 || s.agents[a - 1].status != Status::kNotStarted;
  }
  if (as.status != Status::kRunning) return false;
  int id = CurrentOp(s, a);
  if (id < 0) return false;
  const Op& op = p_->ops[id];
  switch (op.kind) {
    case WAIT:
    case WAIT_UNTIL:
    case STREAM_WAIT:
    case ATOMIC_CAS: {
      // A CAS without spin, or the write step of a split one (it read a match).
      if (op.kind == ATOMIC_CAS && (!op.spin || as.phase == 1)) return true;
      for (size_t w = 0; w < as.lanes.size(); ++w)
        for (uint64_t bits = as.lanes[w]; bits; bits &= bits - 1)
          if (LaneReady(s, a, op, static_cast<int>(w * 64 + __builtin_ctzll(bits)))) return true;
      return false;
    }
    case BARRIER_ALL:
    case HOST_COLLECTIVE:
    case GRID_BARRIER: {
      if (as.phase == 0) return true;
      auto it = s.barriers.find(static_cast<uint64_t>(as.tmp));
      int need = op.kind == GRID_BARRIER ? ai.launch_size : p_->ranks;
      return it != s.barriers.end() && it->second.arrived >= need;
    }
    case LAUNCH: {
      if (as.phase == 0) return true;
      int first = ai.launches[as.launches], n = ai.launch_sizes[as.launches];
      for (int c = 0; c < n; ++c)
        if (s.agents[first + c].status != Status::kExited) return false;
      return true;
    }
    default:
      return true;
  }
}

void Machine::Enabled(const State& s, std::vector<Transition>* out) const {
  out->clear();
  if (!s.fault.empty()) return;
  for (int a = 0; a < num_agents(); ++a) {
    if (!AgentEnabled(s, a)) continue;
    const AgentState& as = s.agents[a];
    int id = as.status == Status::kRunning ? CurrentOp(s, a) : -1;
    if (id >= 0 && (p_->ops[id].kind == WAIT || p_->ops[id].kind == WAIT_UNTIL)) {
      const Op& op = p_->ops[id];
      for (size_t w = 0; w < as.lanes.size(); ++w)
        for (uint64_t bits = as.lanes[w]; bits; bits &= bits - 1) {
          int l = static_cast<int>(w * 64 + __builtin_ctzll(bits));
          if (LaneReady(s, a, op, l)) out->push_back({a, l});
        }
    } else {
      out->push_back({a, -1});
    }
  }
}

void Machine::Step(State& s, const Transition& t, Event* ev) const {
  const int a = t.agent;
  AgentState& as = s.agents[a];
  Event local;
  if (!ev) ev = &local;
  ev->agent = a;
  ev->lane = t.lane;
  if (as.status == Status::kNotStarted) {
    ++s.slots_used[info_[a].rank];
    as.status = Status::kRunning;
    as.stack.assign(1, StackEntry{});
    ev->op = -1;
    ev->what = "start";
    ev->text = absl::StrCat(info_[a].name, ": start");
    Normalize(s, a);
    return;
  }
  StepOp(s, a, t.lane, ev);
  Normalize(s, a);
}

// NOTIFY, SIGNAL_OP, ST_SIGNAL, ATOMIC_ADD, ATOMIC_CAS: one write (or a failed CAS) to a
// signal word; a remote add or CAS without native P2P atomics is a read step, then a
// write step (B16).
void Machine::StepSignalWrite(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int id = op.id;
  const int me = ai.rank;
  auto eval = [&](const Ex& e, int64_t* v) { return Eval(s, a, e, v); };
  const SignalBy by = op.by;
  // A remote add without native P2P atomics: a read step, then a write step (B16).
  auto split_add = [&](int64_t target) {
    return !p_->native_p2p_atomics && target != me;
  };
  int64_t rank = me, index = 0, value = 0;
  if (!eval(op.rank, &rank) || !eval(op.index, &index) || !eval(op.value, &value)) return;
  if (op.kind == NOTIFY && op.scope == GPU) rank = me;  // the lowering drops the rank
  if (op.kind == NOTIFY && op.scope == INTRA_NODE && p_->node_of(static_cast<int>(rank)) != p_->node_of(me)) {
    Fault(s, a, absl::StrCat(op.site, ": nvshmem_ptr is NULL for rank ", rank,
                             " on another node (intra_node notify)"));
    return;
  }
  uint64_t key;
  if (!ResolveWord(s, a, op.object, rank, index, &key)) return;
  const bool is_add = (op.kind == NOTIFY || op.kind == SIGNAL_OP) ? op.sig_op == ADD
                                                                   : op.kind == ATOMIC_ADD;
  const bool t0_side = op.kind == ST_SIGNAL || op.kind == ATOMIC_ADD || op.kind == ATOMIC_CAS
                           ? UsesT0(by == BY_DEFAULT ? THREAD0 : by)
                           : true;
  // A CAS likewise: the read step compares; a failed compare ends the CAS there, a
  // matching one is followed by a write step that stores whatever the word holds then
  // (a write in between is lost).
  const bool split = split_add(rank) &&
                     ((is_add && (op.kind == NOTIFY || op.kind == ATOMIC_ADD)) ||
                      op.kind == ATOMIC_CAS);
  Word& w = GetWord(s, key);
  if (split && as.phase == 0) {
    as.tmp = w.value;
    int64_t cmp = 0;
    if (op.kind == ATOMIC_CAS && !eval(op.compare, &cmp)) return;
    if (op.kind != ATOMIC_CAS || w.value == cmp) {
      as.phase = 1;
      ev->what = "read";
      ev->has_word = true;
      ev->word = key;
      ev->before = ev->after = w.value;
      ev->text += absl::StrCat("  (non-atomic ", op.kind == ATOMIC_CAS ? "CAS" : "add", ": read ",
                               w.value, ")");
      return;
    }
  }
  Clock& clk = t0_side ? as.t0 : as.rest;
  const int comp = t0_side ? ai.comp_t0 : ai.comp_rest;
  // Acquire side of an RMW.
  if (op.kind == ATOMIC_ADD || op.kind == ATOMIC_CAS)
    AcquireFrom(s, a, w, op.scope, op.sem, t0_side, !t0_side);
  Clock rel;
  SignalScope wscope = SYS;
  if (op.kind == NOTIFY) {
    if (op.scope == GPU || op.scope == INTRA_NODE) {
      clk = clk.Joined(as.pending_acq);  // fence.sc
      as.pending_acq = Clock();
      clk = clk.Ticked(comp);
      as.fence = clk;
      rel = clk;
      wscope = op.scope == GPU ? GPU : SYS;
    } else {
      clk = clk.Ticked(comp);
      rel = as.fence;  // signal_op: no fence of its own
    }
  } else if (op.kind == SIGNAL_OP) {
    clk = clk.Ticked(comp);
    rel = as.fence;
  } else {
    clk = clk.Ticked(comp);
    wscope = op.scope;
    if (op.sem == RELEASE || op.sem == ACQ_REL) rel = clk;
    else if (op.sem == RELAXED) rel = as.fence;
  }
  int64_t old = w.value;
  int64_t base = split ? as.tmp : old;
  int64_t next = value;
  WriteKind kind = WriteKind::kSet;
  bool write = true;
  if (op.kind == ATOMIC_CAS) {
    int64_t cmp = 0;
    if (!eval(op.compare, &cmp)) return;
    kind = WriteKind::kCas;
    write = base == cmp;
  } else if (is_add) {
    next = base + value;
    kind = WriteKind::kAdd;
  }
  if (p_->objects[op.object].bytes == 4) next = static_cast<int64_t>(static_cast<uint32_t>(next));
  // The program gets the value its RMW read: for a split add that is the read step's
  // value (as.tmp), not the word's value at the write step, which a concurrent write may
  // have changed in between (that difference is the lost update).
  if (op.result_slot >= 0) as.frame[op.result_slot] = split ? as.tmp : old;
  if (write) {
    WriteWord(s, a, id, key, next, kind, rel, wscope,
              op.kind == ATOMIC_ADD || op.kind == ATOMIC_CAS || (is_add && !split), ev);
    if (is_add) s.words[key].hist.back().operand = value;
    if (split && old != as.tmp) s.words[key].hist.back().lost = true;
    ev->what = "write";
    ev->text += absl::StrCat("  (", WordName(key), ": ", old, " -> ", next,
                             split && old != as.tmp ? ", lost update" : "", ")");
  } else {
    ev->what = "read";
    ev->has_word = true;
    ev->word = key;
    ev->before = ev->after = old;
    ev->text += absl::StrCat("  (", WordName(key), " = ", old, ", compare failed)");
  }
  as.float_current = true;
  FinishOp(s, a);
}

// WAIT, WAIT_UNTIL, STREAM_WAIT: one lane's poll (a first narrow-scope poll fills L1) or
// the end of its wait; the op finishes when no lane still polls.
void Machine::StepWait(State& s, int a, int lane, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int id = op.id;
  const SignalBy by = op.by;
  int l = lane < 0 ? 0 : lane;
  uint64_t key = WordKey(op.object, as.wait_rank, as.wait_index + l);
  const Word* w = FindWord(s, key);
  SignalScope scope = op.kind == STREAM_WAIT ? SYS : op.scope;
  SignalSem sem = op.kind == STREAM_WAIT ? ACQUIRE : op.sem;
  if (FirstPoll(as, l)) {
    // The L1 fill: from now on this lane sees only this value.
    as.polled[l / 64] |= uint64_t{1} << (l % 64);
    as.cached[l] = w ? w->value : p_->objects[op.object].init;
    if (!Satisfies(op.cmp, as.cached[l], as.wait_value, p_->objects[op.object].bytes)) {
      ev->what = "poll";
      ev->has_word = true;
      ev->word = key;
      ev->before = ev->after = as.cached[l];
      ev->text = absl::StrCat(ai.name, ": ", RenderOp(s, a, id), "  lane ", l,
                              "  (first poll caches ", WordName(key), " = ", as.cached[l],
                              " in L1)");
      return;
    }
  }
  int64_t v = Visible(s, a, key, scope, sem);
  if (w) {
    bool t0 = true, rest = true;
    if (op.kind == WAIT) {
      t0 = by != OTHER_THREADS;
      rest = by != THREAD0;
    } else if (op.kind == WAIT_UNTIL) {
      if (by == THREAD0 || by == OTHER_THREADS) {
        t0 = by == THREAD0;
        rest = by == OTHER_THREADS;
      } else if (!op.count.present()) {
        t0 = rest = true;  // every thread waits on the one word
      } else {
        t0 = l == 0;  // thread l waits on word l
        rest = l != 0 || by == ALL_THREADS;
      }
    }
    Word copy = *w;
    AcquireFrom(s, a, copy, scope, sem, t0, rest);
  }
  as.lanes[l / 64] &= ~(uint64_t{1} << (l % 64));
  ev->what = "wait_end";
  ev->has_word = true;
  ev->word = key;
  ev->before = ev->after = v;
  ev->text = absl::StrCat(ai.name, ": ", RenderOp(s, a, id),
                          lane >= 0 && op.kind != STREAM_WAIT
                              ? absl::StrCat("  lane ", l) : "",
                          "  (", WordName(key), " = ", v, ")");
  if (!AnyLane(as.lanes)) {
    if (op.token_slot >= 0) as.tokens.push_back({op.token_slot, {as.t0, as.rest}});
    if (op.kind == WAIT && p_->amd) {
      Clock j = as.t0.Joined(as.rest);  // gpu.barrier after the AMD wait loop
      as.t0 = j.Ticked(ai.comp_t0);
      as.rest = j.Ticked(ai.comp_rest);
      as.float_current = true;
    }
    FinishOp(s, a);
  }
}

// STORE, LOAD: one access to a data range, checked for races (and a LOAD's `expect`).
void Machine::StepDataAccess(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int id = op.id;
  const int me = ai.rank;
  auto eval = [&](const Ex& e, int64_t* v) { return Eval(s, a, e, v); };
  const SignalBy by = op.by;
  int64_t rank = me, index = 0, count = 1, tag = 0;
  if (!eval(op.rank, &rank) || !eval(op.index, &index) || !eval(op.count, &count)) return;
  if (op.kind == STORE && !eval(op.tag, &tag)) return;
  if (!ResolveRange(s, a, op.object, rank, index, count)) return;
  const SignalBy b = by == BY_DEFAULT ? ALL_THREADS : by;
  const bool t0 = UsesT0(b), rest = UsesRest(b);
  if (t0) as.t0 = as.t0.Ticked(ai.comp_t0);
  if (rest) as.rest = as.rest.Ticked(ai.comp_rest);
  Clock c0 = as.t0, c1 = as.rest;
  if (op.kind == LOAD) {
    if (!as.float_current) {
      c0 = as.float_t0;
      c1 = as.float_rest;
    }
    if (op.after_slot >= 0)
      for (auto it = as.tokens.rbegin(); it != as.tokens.rend(); ++it)
        if (it->first == op.after_slot) {
          c0 = c0.Joined(it->second.first);
          c1 = c1.Joined(it->second.second);
          break;
        }
  }
  const Clock& check1 = t0 ? c0 : c1;
  const Clock* check2 = t0 && rest ? &c1 : nullptr;
  DataAccess(s, a, id, op.object, static_cast<int>(rank), index, count, op.kind == STORE,
             tag, t0 ? ai.comp_t0 : ai.comp_rest, t0 ? as.t0 : as.rest,
             t0 && rest ? ai.comp_rest : -1, t0 && rest ? &as.rest : nullptr, check1,
             check2, op.kind == LOAD ? &op.expect : nullptr, as.frame.data());
  ev->what = op.kind == STORE ? "data_write" : "data_read";
  FinishOp(s, a);
}

// PUT, GET, PUTSIG, COPY: read the source range, write the destination (puts are
// delivered by the NVSHMEM proxy component); PUTSIG then signals.
void Machine::StepTransfer(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int id = op.id;
  const int me = ai.rank;
  auto eval = [&](const Ex& e, int64_t* v) { return Eval(s, a, e, v); };
  const SignalBy by = op.by;
  int64_t rank = me, index = 0, count = 1, src_index = 0, src_rank = me, dst_rank = me;
  if (!eval(op.rank, &rank) || !eval(op.index, &index) || !eval(op.count, &count)) return;
  src_index = index;
  if (op.src_index.present() && !eval(op.src_index, &src_index)) return;
  if (op.kind == COPY) {
    if (!eval(op.src_rank, &src_rank)) return;
    dst_rank = rank;
  } else if (op.kind == GET) {
    src_rank = rank;
    dst_rank = me;
  } else {
    src_rank = me;
    dst_rank = rank;
  }
  // `index` is the destination offset, `src_index` the source offset (default: index).
  const int64_t dst_index = index, from_index = src_index;
  if (!ResolveRange(s, a, op.object, src_rank, from_index, count) ||
      !ResolveRange(s, a, op.object, dst_rank, dst_index, count))
    return;
  // Read the source (its tags travel with the data).
  std::vector<Access>& slog = s.data[(static_cast<uint64_t>(op.object) << 32) | src_rank];
  std::vector<int64_t> tags(static_cast<size_t>(count), p_->objects[op.object].init);
  for (int64_t e = 0; e < count; ++e)
    for (auto it = slog.rbegin(); it != slog.rend(); ++it)
      if (it->write && it->lo <= from_index + e && from_index + e < it->hi) {
        tags[e] = it->tag;
        break;
      }
  const bool host = ai.kind == AgentKind::kStream;
  const SignalBy b = host ? THREAD0 : (by == BY_DEFAULT ? ALL_THREADS : by);
  const bool t0 = UsesT0(b), rest = UsesRest(b);
  if (t0) as.t0 = as.t0.Ticked(ai.comp_t0);
  if (rest) as.rest = as.rest.Ticked(ai.comp_rest);
  DataAccess(s, a, id, op.object, static_cast<int>(src_rank), from_index, count, false, 0,
             t0 ? ai.comp_t0 : ai.comp_rest, t0 ? as.t0 : as.rest,
             t0 && rest ? ai.comp_rest : -1, t0 && rest ? &as.rest : nullptr,
             t0 ? as.t0 : as.rest, t0 && rest ? &as.rest : nullptr, nullptr, nullptr);
  // Write the destination: by the NVSHMEM delivery (puts) or the agent itself.
  const bool delivered = op.kind == PUT || op.kind == PUTSIG;
  int wcomp = t0 ? ai.comp_t0 : ai.comp_rest;
  Clock* wclk = t0 ? &as.t0 : &as.rest;
  if (delivered) {
    as.px = as.px.Joined(as.t0).Joined(as.rest).Ticked(ai.comp_px);
    wcomp = ai.comp_px;
    wclk = &as.px;
  }
  for (int64_t e = 0; e < count;) {
    int64_t f = e;
    while (f < count && tags[f] == tags[e]) ++f;
    DataAccess(s, a, id, op.object, static_cast<int>(dst_rank), dst_index + e, f - e, true,
               tags[e], wcomp, *wclk, delivered ? -1 : (t0 && rest ? ai.comp_rest : -1),
               delivered ? nullptr : (t0 && rest ? &as.rest : nullptr), *wclk,
               delivered ? nullptr : (t0 && rest ? &as.rest : nullptr), nullptr, nullptr);
    e = f;
  }
  ev->what = "data_write";
  if (op.kind == PUTSIG) {
    int64_t sidx = 0, sval = 0;
    if (!eval(op.signal_index, &sidx) || !eval(op.signal_value, &sval)) return;
    uint64_t key;
    if (!ResolveWord(s, a, op.signal_object, dst_rank, sidx, &key)) return;
    Word& w = GetWord(s, key);
    int64_t old = w.value;
    int64_t next = op.signal_op == ADD ? old + sval : sval;
    WriteWord(s, a, id, key, next, op.signal_op == ADD ? WriteKind::kAdd : WriteKind::kSet,
              as.px, SYS, op.signal_op == ADD, ev);
    if (op.signal_op == ADD) s.words[key].hist.back().operand = sval;
    ev->what = "write";
    ev->text += absl::StrCat("  (", WordName(key), ": ", old, " -> ", next, ")");
  }
  as.float_current = true;
  FinishOp(s, a);
}

// RESET, STREAM_WRITE: write a value into a range of signal words.
void Machine::StepFill(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int id = op.id;
  const int me = ai.rank;
  auto eval = [&](const Ex& e, int64_t* v) { return Eval(s, a, e, v); };
  int64_t rank = me, index = 0, value = 0, count = 1;
  if (!eval(op.rank, &rank) || !eval(op.index, &index) || !eval(op.value, &value)) return;
  if (op.kind == RESET) {
    count = ObjectSize(op.object) - index;
    if (op.count.present() && !eval(op.count, &count)) return;
  }
  if (!ResolveRange(s, a, op.object, rank, index, count)) return;
  const bool host = ai.kind == AgentKind::kStream;
  as.t0 = as.t0.Ticked(ai.comp_t0);
  Clock rel = host ? as.t0 : Clock();  // a device reset is a plain store
  for (int64_t e = 0; e < count; ++e) {
    uint64_t key = WordKey(op.object, static_cast<int>(rank), index + e);
    Word& w = GetWord(s, key);
    if (w.value == value && w.hist.empty() && value == p_->objects[op.object].init &&
        op.kind == RESET)
      continue;  // never written: nothing to reset
    WriteWord(s, a, id, key, value,
              op.kind == RESET ? WriteKind::kReset : WriteKind::kSet, rel, SYS, false,
              count == 1 ? ev : nullptr);
  }
  ev->what = "write";
  as.float_current = true;
  FinishOp(s, a);
}

// BARRIER_ALL, HOST_COLLECTIVE, GRID_BARRIER: the arrive step, then the leave step.
void Machine::StepBarrier(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int me = ai.rank;
  if (as.phase == 0) {
    uint64_t key;
    if (op.kind == BARRIER_ALL) {
      key = BarrierKey(kBarrierAll, 0, s.barrier_calls[me]++);
      as.t0 = as.t0.Joined(as.px);  // implies quiet
      as.rest = as.rest.Joined(as.px);
    } else if (op.kind == HOST_COLLECTIVE) {
      int cid = coll_ids_.at(op.name);
      key = BarrierKey(kCollective, cid, s.coll_calls[{me, op.name}]++);
    } else {
      key = BarrierKey(kGrid, ai.launch_first, as.grid_barriers++);
    }
    Barrier& b = s.barriers[key];
    ++b.arrived;
    b.joined = b.joined.Joined(as.t0).Joined(as.rest);
    b.arrivers.push_back(a);
    as.tmp = static_cast<int64_t>(key);
    as.phase = 1;
    ev->what = "arrive";
    ev->text += "  (arrive)";
    return;
  }
  const Barrier& b = s.barriers.at(static_cast<uint64_t>(as.tmp));
  as.t0 = as.t0.Joined(b.joined).Ticked(ai.comp_t0);
  if (ai.kind == AgentKind::kCta) as.rest = as.rest.Joined(b.joined).Ticked(ai.comp_rest);
  ev->what = "leave";
  ev->text += "  (leave)";
  as.float_current = true;
  FinishOp(s, a);
}

// LAUNCH: start the kernel's CTAs, then (second step) join them when all have exited.
void Machine::StepLaunch(State& s, int a, const Op& op, Event* ev) const {
  AgentState& as = s.agents[a];
  const AgentInfo& ai = info_[a];
  const int k = as.launches;
  const int first = ai.launches[k], n = ai.launch_sizes[k];
  if (as.phase == 0) {
    const Kernel& kern = p_->kernels[op.kernel];
    if (kern.cooperative && p_->cta_slots > 0 && n > p_->cta_slots) {
      Fault(s, a, absl::StrCat("cooperative launch of ", kern.name, " with ", n,
                               " CTAs exceeds the ", p_->cta_slots,
                               " resident slots (cudaErrorCooperativeLaunchTooLarge)"));
      return;
    }
    as.t0 = as.t0.Ticked(ai.comp_t0);
    for (int c = 0; c < n; ++c) {
      AgentState& cs = s.agents[first + c];
      cs.status = Status::kNotStarted;
      cs.frame = info_[first + c].frame0;
      cs.t0 = as.t0;
      cs.rest = as.t0;
      cs.px = as.t0;
      if (p_->cta_slots == 0) {
        // Unlimited residency: every CTA starts with the launch.
        cs.status = Status::kRunning;
        cs.stack.assign(1, StackEntry{});
        ++s.slots_used[ai.rank];
      }
    }
    if (p_->cta_slots == 0)
      for (int c = 0; c < n; ++c) Normalize(s, first + c);
    as.phase = 1;
    ev->what = "launch";
    return;
  }
  for (int c = 0; c < n; ++c) {
    const AgentState& cs = s.agents[first + c];
    as.t0 = as.t0.Joined(cs.t0).Joined(cs.rest).Joined(cs.px);
  }
  as.t0 = as.t0.Ticked(ai.comp_t0);
  ++as.launches;
  ev->what = "join";
  ev->text = absl::StrCat(ai.name, ": ", p_->kernels[op.kernel].name,
                          " finished (all CTAs exited)");
  FinishOp(s, a);
}

void Machine::StepOp(State& s, int a, int lane, Event* ev) const {
  const int id = CurrentOp(s, a);
  const Op& op = p_->ops[id];
  ev->op = id;
  ev->text = absl::StrCat(info_[a].name, ": ", RenderOp(s, a, id));
  switch (op.kind) {
    case NOTIFY:
    case SIGNAL_OP:
    case ST_SIGNAL:
    case ATOMIC_ADD:
    case ATOMIC_CAS:
      return StepSignalWrite(s, a, op, ev);
    case WAIT:
    case WAIT_UNTIL:
    case STREAM_WAIT:
      return StepWait(s, a, lane, op, ev);
    case STORE:
    case LOAD:
      return StepDataAccess(s, a, op, ev);
    case PUT:
    case GET:
    case PUTSIG:
    case COPY:
      return StepTransfer(s, a, op, ev);
    case RESET:
    case STREAM_WRITE:
      return StepFill(s, a, op, ev);
    case BARRIER_ALL:
    case HOST_COLLECTIVE:
    case GRID_BARRIER:
      return StepBarrier(s, a, op, ev);
    case LAUNCH:
      return StepLaunch(s, a, op, ev);
    case EXIT:
      ev->what = "exit";
      Exit(s, a, true);
      return;
    default:
      Fault(s, a, absl::StrCat("internal: op ", KindName(op.kind), " reached the scheduler"));
      return;
  }
}


bool Machine::Done(const State& s) const {
  for (const AgentState& as : s.agents)
    if (as.status != Status::kExited) return false;
  return true;
}

uint64_t Machine::Hash(const State& s) const {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const AgentState& as : s.agents) {
    h = HashMix(h, static_cast<uint64_t>(as.status) | (uint64_t{as.exited_early} << 8) |
                   (static_cast<uint64_t>(as.phase) << 16));
    h = HashMix(h, static_cast<uint64_t>(as.tmp));
    h = HashMix(h, static_cast<uint64_t>(as.grid_barriers) << 32 | static_cast<uint32_t>(as.launches));
    for (const StackEntry& e : as.stack)
      h = HashMix(h, (static_cast<uint64_t>(static_cast<uint32_t>(e.list)) << 32) |
                     static_cast<uint32_t>(e.pos));
    for (int64_t v : as.frame) h = HashMix(h, static_cast<uint64_t>(v));
    if (as.wait_armed) {
      h = HashMix(h, static_cast<uint64_t>(as.wait_rank));
      h = HashMix(h, static_cast<uint64_t>(as.wait_index));
      h = HashMix(h, static_cast<uint64_t>(as.wait_value));
      for (uint64_t w : as.lanes) h = HashMix(h, w);
      for (int64_t v : as.cached) h = HashMix(h, static_cast<uint64_t>(v));
      for (uint64_t v : as.polled) h = HashMix(h, v);
    }
    h = HashMix(h, as.t0.hash());
    h = HashMix(h, as.rest.hash());
    h = HashMix(h, as.px.hash());
    if (!as.float_current) {
      h = HashMix(h, as.float_t0.hash());
      h = HashMix(h, as.float_rest.hash());
    }
    h = HashMix(h, as.fence.hash());
    h = HashMix(h, as.pending_acq.hash());
    for (const auto& [slot, clocks] : as.tokens) {
      h = HashMix(h, static_cast<uint64_t>(slot));
      h = HashMix(h, clocks.first.hash() ^ (clocks.second.hash() << 1));
    }
  }
  for (const auto& [key, w] : s.words) {
    h = HashMix(h, key);
    h = HashMix(h, static_cast<uint64_t>(w.value));
    h = HashMix(h, w.rel.hash() ^ static_cast<uint64_t>(w.rel_agent));
    h = HashMix(h, w.hist.size());
  }
  for (const auto& [key, log] : s.data) {
    h = HashMix(h, key);
    for (const Access& x : log) {
      h = HashMix(h, static_cast<uint64_t>(x.lo) << 32 ^ static_cast<uint64_t>(x.hi));
      h = HashMix(h, (static_cast<uint64_t>(x.c1) << 32) ^ x.t1 ^ (uint64_t{x.write} << 63));
      h = HashMix(h, (static_cast<uint64_t>(x.c2) << 32) ^ x.t2);
      h = HashMix(h, static_cast<uint64_t>(x.tag));
    }
  }
  for (const auto& [key, b] : s.barriers) {
    h = HashMix(h, key);
    h = HashMix(h, static_cast<uint64_t>(b.arrived));
    h = HashMix(h, b.joined.hash());
  }
  for (int32_t v : s.slots_used) h = HashMix(h, static_cast<uint64_t>(v));
  for (int32_t v : s.barrier_calls) h = HashMix(h, static_cast<uint64_t>(v));
  for (const auto& [k, v] : s.coll_calls) h = HashMix(h, (static_cast<uint64_t>(k.first) << 32) ^ v);
  h = HashMix(h, s.race_count > 0 ? 1 : 0);
  h = HashMix(h, s.fault.empty() ? 0 : 1);
  return h;
}

// ---- Rendering ---------------------------------------------------------------------------

std::string Machine::RenderOp(const State& s, int agent, int id) const {
  const Op& op = p_->ops[id];
  const int64_t* frame = s.agents[agent].frame.data();
  auto v = [&](const Ex& e, int64_t dflt) -> std::string {
    if (!e.present()) return absl::StrCat(dflt);
    int64_t x;
    if (e.Eval(frame, &x)) return absl::StrCat(x);
    return absl::StrCat("(", e.text(), ")");
  };
  auto range = [&](int object, const Ex& rank, const Ex& index, const Ex* count) {
    std::string r = v(rank, info_[agent].rank);
    std::string i = v(index, 0);
    std::string base = absl::StrCat(p_->objects[object].name, "@", r, "[", i);
    if (count && count->present()) {
      int64_t n = 1, lo = 0;
      if (count->Eval(frame, &n) && index.Eval(frame, &lo)) {
        if (n == 1) return base + "]";
        return absl::StrCat(base, "..", lo + n, ")");
      }
      return absl::StrCat(base, "..+", count->text(), ")");
    }
    return base + "]";
  };
  const char* sig = op.sig_op == ADD ? "add" : "set";
  switch (op.kind) {
    case NOTIFY:
      return absl::StrCat("notify ", range(op.object, op.rank, op.index, nullptr), " ", sig, " ",
                          v(op.value, 1), " scope=", ScopeName(op.scope));
    case WAIT:
      return absl::StrCat("wait ", range(op.object, op.rank, op.index, &op.count), " == ",
                          v(op.value, 1), " scope=", ScopeName(op.scope), " sem=",
                          SemName(op.sem), op.token_slot >= 0
                                               ? " -> " + p_->slot_names[op.token_slot] : "");
    case WAIT_UNTIL:
      return absl::StrCat(op.plain_wait_until ? "nvshmem_wait_until " : "wait_until ",
                          range(op.object, op.rank, op.index, &op.count), " ", CmpName(op.cmp),
                          " ", v(op.value, 1),
                          op.lane_if.present() ? " if " + op.lane_if.text() : "");
    case SIGNAL_OP:
      return absl::StrCat("signal_op ", range(op.object, op.rank, op.index, nullptr), " ", sig,
                          " ", v(op.value, 1));
    case ST_SIGNAL:
      return absl::StrCat("st.", SemName(op.sem), ".", ScopeName(op.scope), " ",
                          range(op.object, op.rank, op.index, nullptr), " := ", v(op.value, 1));
    case ATOMIC_ADD:
      return absl::StrCat("atomic_add ", range(op.object, op.rank, op.index, nullptr), " ",
                          v(op.value, 1), " sem=", SemName(op.sem), " scope=",
                          ScopeName(op.scope),
                          op.result_slot >= 0 ? " -> " + p_->slot_names[op.result_slot] : "");
    case ATOMIC_CAS:
      return absl::StrCat(op.spin ? "spin " : "", "atomic_cas ",
                          range(op.object, op.rank, op.index, nullptr), " ", v(op.compare, 0),
                          " -> ", v(op.value, 1), " sem=", SemName(op.sem), " scope=",
                          ScopeName(op.scope));
    case STORE:
      return absl::StrCat("store ", range(op.object, op.rank, op.index, &op.count), " := ",
                          v(op.tag, 1),
                          op.by == OTHER_THREADS ? " by=other_threads"
                                                 : op.by == THREAD0 ? " by=thread0" : "");
    case LOAD:
      return absl::StrCat("load ", range(op.object, op.rank, op.index, &op.count),
                          op.after_slot >= 0 ? " after " + p_->slot_names[op.after_slot] : "",
                          op.expect.present() ? " expect " + v(op.expect, 0) : "");
    case PUT:
      return absl::StrCat("put ", p_->objects[op.object].name, "@", info_[agent].rank, "[",
                          v(op.src_index.present() ? op.src_index : op.index, 0), "..+",
                          v(op.count, 1), ") -> ", v(op.rank, 0), op.nbi ? " nbi" : "");
    case GET:
      return absl::StrCat("get ", range(op.object, op.rank, op.index, &op.count), " -> ",
                          p_->objects[op.object].name, "@", info_[agent].rank,
                          op.nbi ? " nbi" : "");
    case PUTSIG:
      return absl::StrCat("putsig ", p_->objects[op.object].name, "@", info_[agent].rank, "[",
                          v(op.src_index.present() ? op.src_index : op.index, 0), "..+",
                          v(op.count, 1), ") -> ", v(op.rank, 0), " ; ",
                          p_->objects[op.signal_object].name, "@", v(op.rank, 0), "[",
                          v(op.signal_index, 0), "] ", op.signal_op == ADD ? "add " : "set ",
                          v(op.signal_value, 1), op.nbi ? " nbi" : "");
    case FENCE:
      return absl::StrCat("fence.sc ", ScopeName(op.scope));
    case RESET: {
      std::string r = op.count.present() ? range(op.object, op.rank, op.index, &op.count)
                                         : absl::StrCat(p_->objects[op.object].name, "@",
                                                        v(op.rank, 0), "[*]");
      return absl::StrCat("reset ", r, " := ", v(op.value, 0));
    }
    case STREAM_WAIT:
      return absl::StrCat("streamwait ", range(op.object, op.rank, op.index, nullptr),
                          op.cmp == GE ? " >= " : " == ", v(op.value, 1));
    case STREAM_WRITE:
      return absl::StrCat("streamwrite ", range(op.object, op.rank, op.index, nullptr), " := ",
                          v(op.value, 1));
    case COPY:
      return absl::StrCat("copy ", range(op.object, op.src_rank, op.index, &op.count), " -> ",
                          p_->objects[op.object].name, "@", v(op.rank, 0));
    case LAUNCH:
      return absl::StrCat("launch ", p_->kernels[op.kernel].name);
    case HOST_COLLECTIVE:
      return op.name;
    case FOR:
      return absl::StrCat("for ", p_->slot_names[op.var_slot], " in [", op.from.text(), ", ",
                          op.to.text(), ")");
    case IF:
      return absl::StrCat("if ", op.cond.text());
    default:
      return KindName(op.kind);
  }
}

}  // namespace warpcheck::sim::signal
