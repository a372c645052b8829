#include "sim/signal/explain.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/enum_name.h"

namespace warpcheck::sim::signal {

namespace {

using Cause = SignalExplanation::Cause;

// Expected and observed values in the explanation text and the SVG are formatted as the
// doubles they were stored as before the report fields became integers (absl::StrCat of
// a double: six significant digits, 1000000 prints as 1e+06), so the text is unchanged.
double AsText(int64_t v) { return static_cast<double>(v); }

SignalEdge::ToState StateOf(const State& s, const Machine& m, int a) {
  switch (s.agents[a].status) {
    case Status::kExited: return SignalEdge::exited;
    case Status::kNotLaunched: return SignalEdge::not_launched;
    case Status::kNotStarted: return SignalEdge::not_started;
    default: break;
  }
  return m.AgentEnabled(s, a) ? SignalEdge::running : SignalEdge::blocked;
}

struct Blocked {
  int agent = -1;
  int op = -1;
  SignalBlocked proto;
  bool has_word = false;
  uint64_t word = 0;
  Cause cause = SignalExplanation::CAUSE_UNSET;
  std::string text;
  std::vector<int> writers;  // agents that may still write the word
  std::vector<int> writer_ops;
};

std::string Who(const Machine& m, int agent, int op) {
  return absl::StrCat(m.info(agent).name, " ", op >= 0 ? m.program().ops[op].site : "start");
}

std::string HistLine(const Machine& m, const HistEntry& h) {
  std::string what;
  switch (h.kind) {
    case WriteKind::kAdd: what = absl::StrCat("add(+", h.operand, ")"); break;
    case WriteKind::kReset: what = absl::StrCat("reset(", h.after, ")"); break;
    case WriteKind::kCas: what = absl::StrCat("cas(", h.before, "->", h.after, ")"); break;
    default: what = absl::StrCat("set(", h.after, ")"); break;
  }
  if (h.agent < 0) return what;
  return absl::StrCat(what, " by ", Who(m, h.agent, h.op), h.lost ? " [lost update]" : "",
                      " -> ", h.after);
}

// A reset: a host fill, or a program store of the object's initial value.
bool ResetLike(const Program& p, const HistEntry& h) {
  if (h.kind == WriteKind::kReset) return true;
  if (h.kind != WriteKind::kSet || h.op < 0) return false;
  const Op& o = p.ops[h.op];
  return (o.kind == ST_SIGNAL || o.kind == STREAM_WRITE) && h.after == p.objects[o.object].init;
}

// Every agent that has not exited (and is launched): where it is blocked and, for a
// wait, on which word, expecting what and seeing what.
std::vector<Blocked> CollectBlocked(const Machine& m, const State& s) {
  const Program& p = m.program();
  std::vector<Blocked> blocked;
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentState& as = s.agents[a];
    if (as.status == Status::kExited || as.status == Status::kNotLaunched) continue;
    Blocked b;
    b.agent = a;
    const AgentInfo& ai = m.info(a);
    b.proto.set_rank(ai.rank);
    b.proto.set_cta(ai.kind == AgentKind::kCta ? ai.cta : -1);
    if (ai.kind == AgentKind::kCta) b.proto.set_kernel(p.kernels[ai.kernel].name);
    else b.proto.set_stream(p.streams[ai.stream].name);
    if (as.status == Status::kNotStarted) {
      b.proto.set_site("not_started");
      b.proto.set_op("(not started: no resident CTA slot)");
      blocked.push_back(std::move(b));
      continue;
    }
    b.op = m.CurrentOp(s, a);
    if (b.op < 0) continue;
    const Op& op = p.ops[b.op];
    b.proto.set_site(op.site);
    b.proto.set_op(m.RenderOp(s, a, b.op));
    if (as.wait_armed) {
      // The first lane still polling.
      for (size_t i = 0; i < as.lanes.size() && !b.has_word; ++i)
        if (as.lanes[i]) {
          int l = static_cast<int>(i * 64 + __builtin_ctzll(as.lanes[i]));
          b.word = WordKey(op.object, as.wait_rank, as.wait_index + l);
          b.has_word = true;
        }
      SignalScope scope = op.kind == WAIT || op.kind == WAIT_UNTIL ? op.scope : SYS;
      SignalSem sem = op.kind == WAIT || op.kind == WAIT_UNTIL ? op.sem : ACQUIRE;
      b.proto.set_word(m.WordName(b.word));
      b.proto.set_expected(as.wait_value);
      b.proto.set_observed(m.Visible(s, a, b.word, scope, sem));
      b.proto.set_cmp(op.kind == WAIT ? "EQ" : CmpName(op.kind == ATOMIC_CAS ? EQ : op.cmp));
    }
    blocked.push_back(std::move(b));
  }
  return blocked;
}

// What every cause rule reads: the machine, the terminal state and every agent's future.
struct Scene {
  const Machine& m;
  const State& s;
  const Program& p;
  std::vector<Footprint> futures;
  SignalExplanation* out;  // rules append the writes and edges that explain their cause
};

// A blocked wait on one word, as the wait rules see it.
struct WaitView {
  const Op& op;
  const Word* w;  // null: never written
  int64_t target = 0, value = 0;
  std::string wn;
  SignalCmp release_cmp = EQ;  // a write releases the wait when `value release_cmp target`
  SignalCmp cmp = EQ;          // the comparison as the wait evaluates it (CAS: its own)
};

// Could some write in f to `key` release the wait? (A set of a known value that does not
// satisfy it cannot; a reset to 0 never releases a wait for 1.) *op: the writing op.
bool WritesWord(const Scene& sc, const WaitView& v, const Footprint& f, uint64_t key,
                int* op) {
  Access2 probe;
  probe.res = Res::kWord;
  probe.mode = Mode::kRead;
  probe.object = KeyObject(key);
  probe.rank = KeyRank(key);
  probe.lo = KeyIndex(key);
  probe.hi = probe.lo + 1;
  for (const Access2& x : f)
    if (x.mode != Mode::kRead && Conflicts(probe, x)) {
      if (x.value_known &&
          !sc.m.Satisfies(v.release_cmp, x.value, v.target, sc.p.objects[KeyObject(key)].bytes))
        continue;
      *op = x.op;
      return true;
    }
  return false;
}

// ---- agents that are not waiting on a word ----

void ExplainNotStarted(const Scene& sc, Blocked& b) {
  b.cause = SignalExplanation::co_residency;
  b.text = absl::StrCat(sc.m.info(b.agent).name, " never starts: all ", sc.p.cta_slots,
                        " resident CTA slots of rank ", sc.m.info(b.agent).rank,
                        " are held by CTAs that never exit");
}

// BARRIER_ALL, HOST_COLLECTIVE, GRID_BARRIER: co_residency (a CTA of the grid cannot
// start), cycle (a missing participant is blocked elsewhere) or collective_mismatch.
void ExplainBarrier(const Scene& sc, const Op& op, Blocked& b) {
  const Machine& m = sc.m;
  const State& s = sc.s;
  const Program& p = sc.p;
  const AgentState& as = s.agents[b.agent];
  const bool grid = op.kind == GRID_BARRIER;
  auto it = s.barriers.find(static_cast<uint64_t>(as.tmp));
  int arrived = it == s.barriers.end() ? 0 : it->second.arrived;
  int need = grid ? m.info(b.agent).launch_size : p.ranks;
  std::vector<std::string> missing, not_started;
  if (grid) {
    int first = m.info(b.agent).launch_first;
    for (int c = 0; c < need; ++c) {
      const AgentState& cs = s.agents[first + c];
      if (cs.status == Status::kNotStarted) not_started.push_back(m.info(first + c).name);
    }
  } else {
    std::set<int> ranks_in;
    if (it != s.barriers.end())
      for (int x : it->second.arrivers) ranks_in.insert(m.info(x).rank);
    for (int r = 0; r < p.ranks; ++r)
      if (!ranks_in.count(r)) missing.push_back(absl::StrCat("rank", r));
  }
  b.proto.set_expected(need);
  b.proto.set_observed(arrived);
  b.proto.set_word(grid ? "grid_barrier" : op.kind == BARRIER_ALL ? "barrier_all" : op.name);
  // Participants that have not arrived but still will (blocked elsewhere): edges.
  if (!grid) {
    for (int x = 0; x < m.num_agents(); ++x) {
      if (x == b.agent || s.agents[x].status == Status::kExited) continue;
      bool missing_rank = false;
      for (const std::string& r : missing) missing_rank |= r == absl::StrCat("rank", m.info(x).rank);
      if (!missing_rank) continue;
      for (const Access2& f : sc.futures[x])
        if (f.res == Res::kBarrier && f.mode == Mode::kWrite &&
            f.object == (op.kind == BARRIER_ALL ? 1 : 2)) {
          b.writers.push_back(x);
          b.writer_ops.push_back(f.op);
          break;
        }
    }
  }
  if (!not_started.empty()) {
    b.cause = SignalExplanation::co_residency;
    b.text = absl::StrCat("grid barrier at ", op.site, ": ", arrived, " of ", need,
                          " CTAs arrived; ", absl::StrJoin(not_started, ", "),
                          " cannot start (", p.cta_slots,
                          " resident slots, all held by CTAs spinning in the barrier)");
  } else if (!b.writers.empty()) {
    b.cause = SignalExplanation::cycle;
  } else {
    b.cause = SignalExplanation::collective_mismatch;
    b.text = absl::StrCat(KindName(op.kind), " at ", op.site, ": ", arrived, " of ", need,
                          " arrived; missing ", absl::StrJoin(missing, ", "),
                          " (exited or blocked elsewhere without reaching it)");
  }
}

// LAUNCH: the stream waits for the kernel's CTAs (a cycle through them).
void ExplainLaunch(const Scene& sc, const Op& op, Blocked& b) {
  const AgentInfo& ai = sc.m.info(b.agent);
  const AgentState& as = sc.s.agents[b.agent];
  b.cause = SignalExplanation::cycle;
  b.text = absl::StrCat(ai.name, " waits for kernel ", sc.p.kernels[op.kernel].name,
                        " to finish");
  int first = ai.launches[as.launches];
  for (int c = 0; c < ai.launch_sizes[as.launches]; ++c) {
    b.writers.push_back(first + c);
    b.writer_ops.push_back(-1);
  }
}

// ---- the wait rules: one per cause, tried in kWaitRules order ----
// Each returns whether its cause explains the blocked wait, and then sets b.text (and
// may append the writes and edges that show it).

bool ScopeTooNarrow(const Scene& sc, const WaitView& v, Blocked& b) {
  const Op& op = v.op;
  if (!((op.kind == WAIT || op.kind == WAIT_UNTIL) && (op.scope == CTA || op.sem == WEAK)))
    return false;
  bool outside = false;
  if (v.w)
    for (const HistEntry& h : v.w->hist)
      if (h.agent >= 0 && h.agent != b.agent && sc.m.info(h.agent).kind == AgentKind::kCta)
        outside = true;
  for (int x : b.writers) outside |= sc.m.info(x).kind == AgentKind::kCta;
  if (!outside) return false;
  b.text = absl::StrCat(sc.m.info(b.agent).name, " polls ", v.wn, " with scope=",
                        ScopeName(op.scope), " sem=", SemName(op.sem),
                        ": writes by other CTAs or GPUs never reach its L1 (value ", v.value,
                        ", it still sees ", AsText(b.proto.observed()),
                        "); use scope=gpu (same GPU) or sys");
  return true;
}

bool LostUpdate(const Scene& sc, const WaitView& v, Blocked& b) {
  if (!v.w || v.w->hist.empty()) return false;
  const auto& hist = v.w->hist;
  int lost = -1, set_after_add = -1, first_add = -1;
  for (size_t i = 0; i < hist.size(); ++i) {
    if (hist[i].lost) lost = static_cast<int>(i);
    if (hist[i].kind == WriteKind::kAdd && first_add < 0) first_add = static_cast<int>(i);
    if (hist[i].kind == WriteKind::kSet && first_add >= 0 && set_after_add < 0 &&
        hist[i].agent != hist[first_add].agent)
      set_after_add = static_cast<int>(i);
  }
  if (lost < 0 && set_after_add < 0) return false;
  std::vector<std::string> lines;
  for (const HistEntry& h : hist) lines.push_back(HistLine(sc.m, h));
  b.text = absl::StrCat("lost update on ", v.wn, ": ",
                        lost >= 0 ? "a non-atomic remote add (no native P2P atomics) "
                                    "overwrote a concurrent increment"
                                  : "a set clobbered the accumulated adds",
                        "; write history ", absl::StrJoin(lines, ", then "),
                        " (value ", v.value, ", waiting for ", v.target, ")");
  for (const std::string& l : lines) sc.out->add_writes(l);
  return true;
}

// A reset (host fill, or a program store of the initial value) after a write that would
// have released the waiter, not ordered after that write.
bool ResetRace(const Scene& sc, const WaitView& v, Blocked& b) {
  if (!v.w || v.w->hist.empty()) return false;
  const Machine& m = sc.m;
  const auto& hist = v.w->hist;
  const int bytes = sc.p.objects[KeyObject(b.word)].bytes;
  for (size_t j = 0; j < hist.size(); ++j) {
    if (!ResetLike(sc.p, hist[j])) continue;
    for (size_t i = 0; i < j; ++i) {
      const HistEntry& wr = hist[i];
      if (wr.agent < 0 || ResetLike(sc.p, wr) || wr.agent == hist[j].agent) continue;
      if (!m.Satisfies(v.cmp, wr.after, v.target, bytes)) continue;
      int comp = m.info(wr.agent).comp_t0;
      int comp2 = m.info(wr.agent).comp_rest;
      bool ordered = hist[j].clk.at(comp) >= wr.clk.at(comp) &&
                     hist[j].clk.at(comp2) >= wr.clk.at(comp2);
      if (ordered) continue;
      b.text = absl::StrCat("reset race on ", v.wn, ": ", Who(m, wr.agent, wr.op), " wrote ",
                            wr.after, ", then ", Who(m, hist[j].agent, hist[j].op),
                            " reset it to ", hist[j].after,
                            " without being ordered after it by any barrier; the notify "
                            "was overwritten (value ", v.value, ", waiting for ", v.target, ")");
      sc.out->add_writes(HistLine(m, wr));
      sc.out->add_writes(HistLine(m, hist[j]));
      return true;
    }
  }
  return false;
}

// An == wait whose word moved past its target since the last reset.
struct PassedTarget {
  bool applies = false;  // cmp is ==, the value is not the target, writes since the reset
  size_t since = 0;      // the first write after the last reset
  int at_target = -1;    // the last write that left the target
  int moved = -1;        // the first write after it by an agent other than the waiter
  bool all_adds = true;  // every write since the reset is an add
};

PassedTarget FindPassedTarget(const Scene& sc, const WaitView& v, const Blocked& b) {
  PassedTarget pt;
  if (!v.w || v.w->hist.empty()) return pt;
  const auto& hist = v.w->hist;
  // Only the writes since the last reset count (a reset starts a new phase).
  for (size_t i = 0; i < hist.size(); ++i)
    if (ResetLike(sc.p, hist[i])) pt.since = i + 1;
  pt.applies = v.cmp == EQ && v.value != v.target && pt.since < hist.size();
  if (!pt.applies) return pt;
  for (size_t i = pt.since; i < hist.size(); ++i)
    if (hist[i].after == v.target) pt.at_target = static_cast<int>(i);
  for (size_t i = pt.since; i < hist.size(); ++i) pt.all_adds &= hist[i].kind == WriteKind::kAdd;
  // The waiter's own writes consume what it saw; they do not explain a miss.
  for (int i = pt.at_target + 1; pt.at_target >= 0 && i < static_cast<int>(hist.size()); ++i)
    if (hist[i].agent != b.agent) {
      pt.moved = i;
      break;
    }
  return pt;
}

bool MovedBySet(const WaitView& v, const PassedTarget& pt) {
  const WriteKind k = v.w->hist[pt.moved].kind;
  return k == WriteKind::kSet || k == WriteKind::kCas;
}

void AddWritesFrom(const Scene& sc, const WaitView& v, size_t from) {
  for (size_t i = from; i < v.w->hist.size(); ++i) sc.out->add_writes(HistLine(sc.m, v.w->hist[i]));
}

// The word held the target, then a set moved it on before the waiter sampled it.
bool Overwrite(const Scene& sc, const WaitView& v, Blocked& b) {
  const PassedTarget pt = FindPassedTarget(sc, v, b);
  if (!pt.applies || pt.moved < 0 || !MovedBySet(v, pt)) return false;
  const HistEntry& next = v.w->hist[pt.moved];
  AddWritesFrom(sc, v, pt.at_target + 1);
  b.text = absl::StrCat(v.wn, " held ", v.target, " but ", Who(sc.m, next.agent, next.op),
                        " set ", next.after, " over it before ", sc.m.info(b.agent).name,
                        " sampled it (value ", v.value, ", waiting for ", v.target, ")");
  return true;
}

// Adds moved the word past the target (before the waiter sampled it, or without ever
// equalling it).
bool Overshoot(const Scene& sc, const WaitView& v, Blocked& b) {
  const PassedTarget pt = FindPassedTarget(sc, v, b);
  if (!pt.applies) return false;
  const auto& hist = v.w->hist;
  std::vector<std::string> all;
  for (size_t i = pt.since; i < hist.size(); ++i) all.push_back(HistLine(sc.m, hist[i]));
  if (pt.moved >= 0 && !MovedBySet(v, pt)) {
    AddWritesFrom(sc, v, pt.at_target + 1);
    b.text = absl::StrCat(v.wn, " passed the target ", v.target, " before ",
                          sc.m.info(b.agent).name, " sampled it: ", all.size(),
                          " write(s): ", absl::StrJoin(all, ", "), " (value now ", v.value,
                          ", waiting for ", v.target, "; == never holds again)");
    return true;
  }
  if (pt.moved < 0 && pt.all_adds && v.value > v.target && v.target >= 0) {
    AddWritesFrom(sc, v, pt.since);
    b.text = absl::StrCat(v.wn, " passed the target ", v.target, " without ever equalling it: ",
                          all.size(), " add(s): ", absl::StrJoin(all, ", "),
                          " (value ", v.value, ", waiting for ", v.target, ")");
    return true;
  }
  return false;
}

// A writer that exited early (its skipped program writes the word) explains the hang
// even when later writers exist that are themselves stuck.
bool ExitedWriter(const Scene& sc, const WaitView& v, Blocked& b) {
  const Machine& m = sc.m;
  std::vector<std::string> exited;
  for (int x = 0; x < m.num_agents(); ++x) {
    const AgentState& xs = sc.s.agents[x];
    if (xs.status != Status::kExited || !xs.exited_early) continue;
    int wop = -1;
    if (!WritesWord(sc, v, m.AfterExit(sc.s, x), b.word, &wop)) continue;
    exited.push_back(absl::StrCat(m.info(x).name, " exited early at ",
                                  sc.p.ops[m.List(x, xs.stack.back().list)[xs.stack.back().pos]].site,
                                  "; its remaining program contained ",
                                  wop >= 0 ? sc.p.ops[wop].site : "a write", " targeting ", v.wn));
    SignalEdge* e = sc.out->add_edges();
    e->set_from(m.info(b.agent).name);
    e->set_to(m.info(x).name);
    e->set_site(wop >= 0 ? sc.p.ops[wop].site : "");
    e->set_word(v.wn);
    e->set_expected(v.target);
    e->set_observed(b.proto.observed());
    e->set_to_state(SignalEdge::exited);
  }
  if (exited.empty()) return false;
  b.text = absl::StrCat("waited-for writer exited: ", absl::StrJoin(exited, "; "));
  return true;
}

// Nobody can still write the word; the nearest miss is a write to the same object.
bool MissingNotify(const Scene& sc, const WaitView& v, Blocked& b) {
  if (!b.writers.empty()) return false;
  std::string nearest;
  for (const auto& [key, ow] : sc.s.words) {
    if (KeyObject(key) != KeyObject(b.word) || key == b.word) continue;
    for (const HistEntry& h : ow.hist) {
      if (h.agent < 0 || h.kind == WriteKind::kReset) continue;
      bool other_rank = KeyRank(key) != KeyRank(b.word);
      nearest = absl::StrCat("; nearest candidate: ", Who(sc.m, h.agent, h.op), " wrote ",
                             sc.m.WordName(key), " (same object, different ",
                             other_rank ? "rank" : "slot", ")");
      break;
    }
    if (!nearest.empty()) break;
  }
  b.text = absl::StrCat("missing notify for ", v.wn, ": no agent can still write it (value ",
                        v.value, ", waiting for ", v.target, ")", nearest);
  return true;
}

// A writer is a CTA that can never get a resident slot.
bool WriterCannotStart(const Scene& sc, const WaitView& v, Blocked& b) {
  std::vector<std::string> cannot_start;
  for (int x : b.writers)
    if (sc.s.agents[x].status == Status::kNotStarted) cannot_start.push_back(sc.m.info(x).name);
  if (cannot_start.empty()) return false;
  b.text = absl::StrCat(v.wn, " can only be written by ", absl::StrJoin(cannot_start, ", "),
                        ", which cannot start: rank ", sc.m.info(b.agent).rank, " has ",
                        sc.p.cta_slots, " resident CTA slots, all held by CTAs that never exit");
  return true;
}

// Every writer is itself blocked (the cycle is described for the whole program).
bool Cycle(const Scene&, const WaitView&, Blocked&) { return true; }

struct WaitRule {
  Cause cause;
  bool (*applies)(const Scene&, const WaitView&, Blocked&);
};

// The order in which the causes are tried for one blocked wait (explain.h).
constexpr WaitRule kWaitRules[] = {
    {SignalExplanation::scope_too_narrow, ScopeTooNarrow},
    {SignalExplanation::lost_update, LostUpdate},
    {SignalExplanation::reset_race, ResetRace},
    {SignalExplanation::overwrite, Overwrite},
    {SignalExplanation::overshoot, Overshoot},
    {SignalExplanation::exited_writer, ExitedWriter},
    {SignalExplanation::missing_notify, MissingNotify},
    {SignalExplanation::co_residency, WriterCannotStart},
    {SignalExplanation::cycle, Cycle},
};

void ExplainWait(const Scene& sc, const Op& op, Blocked& b) {
  const AgentState& as = sc.s.agents[b.agent];
  const Word* w = nullptr;
  if (auto it = sc.s.words.find(b.word); it != sc.s.words.end()) w = &it->second;
  const WaitView v{.op = op,
                   .w = w,
                   .target = as.wait_value,
                   .value = w ? w->value : sc.p.objects[KeyObject(b.word)].init,
                   .wn = sc.m.WordName(b.word),
                   .release_cmp = op.kind == WAIT || op.kind == ATOMIC_CAS ? EQ : op.cmp,
                   .cmp = op.kind == WAIT ? EQ : op.cmp};
  for (int x = 0; x < sc.m.num_agents(); ++x) {
    if (x == b.agent || sc.s.agents[x].status == Status::kExited) continue;
    int wop = -1;
    if (WritesWord(sc, v, sc.futures[x], b.word, &wop)) {
      b.writers.push_back(x);
      b.writer_ops.push_back(wop);
    }
  }
  for (const WaitRule& rule : kWaitRules)
    if (rule.applies(sc, v, b)) {
      b.cause = rule.cause;
      return;
    }
}

// Sets b.cause (left unset for an agent with nothing to explain) and b.text.
void ExplainBlocked(const Scene& sc, Blocked& b) {
  if (sc.s.agents[b.agent].status == Status::kNotStarted) return ExplainNotStarted(sc, b);
  const Op& op = sc.p.ops[b.op];
  if (op.kind == BARRIER_ALL || op.kind == HOST_COLLECTIVE || op.kind == GRID_BARRIER)
    return ExplainBarrier(sc, op, b);
  if (op.kind == LAUNCH) return ExplainLaunch(sc, op, b);
  if (b.has_word) ExplainWait(sc, op, b);
}

// The program-level cause: the blocked agent whose cause ranks first (the lowest Cause
// number; the first such agent on a tie). Null when no agent has a cause.
const Blocked* FirstRanked(const std::vector<Blocked>& blocked) {
  const Blocked* best = nullptr;
  for (const Blocked& b : blocked)
    if (b.cause != SignalExplanation::CAUSE_UNSET && (!best || b.cause < best->cause))
      best = &b;
  return best;
}

// A cycle through the blocked agents' writer edges, edge by edge.
std::string DescribeCycle(const Machine& m, const State& s, const std::vector<Blocked>& blocked) {
  const Program& p = m.program();
  std::map<int, const Blocked*> by_agent;
  for (const Blocked& b : blocked) by_agent[b.agent] = &b;
  // A writer that is not launched yet waits for its stream.
  std::vector<Blocked> pseudo;
  pseudo.reserve(m.num_agents());
  for (const Blocked& b : blocked)
    for (int x : b.writers)
      if (s.agents[x].status == Status::kNotLaunched && !by_agent.count(x)) {
        Blocked nb;
        nb.agent = x;
        nb.proto.set_site("not_launched");
        nb.proto.set_op(absl::StrCat("(not launched: queued behind ", m.info(m.info(x).stream_agent).name, ")"));
        nb.writers.push_back(m.info(x).stream_agent);
        nb.writer_ops.push_back(-1);
        pseudo.push_back(nb);
        by_agent[x] = &pseudo.back();
      }
  std::vector<std::string> cyc;
  for (const Blocked& start : blocked) {
    std::vector<int> path;
    std::map<int, size_t> pos;
    int cur = start.agent;
    while (by_agent.count(cur) && !pos.count(cur)) {
      pos[cur] = path.size();
      path.push_back(cur);
      const Blocked* b = by_agent[cur];
      int next = -1;
      for (int x : b->writers)
        if (by_agent.count(x)) {
          next = x;
          break;
        }
      if (next < 0) break;
      cur = next;
    }
    if (pos.count(cur) && by_agent.count(cur) && path.size() > pos[cur]) {
      for (size_t i = pos[cur]; i < path.size(); ++i) {
        const Blocked* b = by_agent[path[i]];
        int to = i + 1 < path.size() ? path[i + 1] : cur;
        std::string site;
        for (size_t k = 0; k < b->writers.size(); ++k)
          if (b->writers[k] == to && b->writer_ops[k] >= 0) site = p.ops[b->writer_ops[k]].site;
        cyc.push_back(absl::StrCat(m.info(b->agent).name, " @ ", b->proto.site(), " ",
                                   b->proto.op(),
                                   b->proto.word().empty()
                                       ? ""
                                       : absl::StrCat(" (", b->proto.word(), " expected ",
                                                      AsText(b->proto.expected()), ", observed ",
                                                      AsText(b->proto.observed()), ")"),
                                   " waits for ",
                                   m.info(to).name, site.empty() ? "" : " [" + site + "]"));
      }
      break;
    }
  }
  return cyc.empty() ? "every agent that could write the awaited words is itself blocked"
                     : absl::StrJoin(cyc, " -> ");
}

// Edges of the wait-for graph: every blocked agent to each agent that could release it.
void AddWaitForEdges(const Scene& sc, const std::vector<Blocked>& blocked) {
  for (const Blocked& b : blocked) {
    for (size_t i = 0; i < b.writers.size(); ++i) {
      int x = b.writers[i];
      SignalEdge* e = sc.out->add_edges();
      e->set_from(sc.m.info(b.agent).name);
      e->set_to(sc.m.info(x).name);
      e->set_site(b.writer_ops[i] >= 0 ? sc.p.ops[b.writer_ops[i]].site : "");
      e->set_word(b.proto.word());
      e->set_expected(b.proto.expected());
      e->set_observed(b.proto.observed());
      e->set_to_state(StateOf(sc.s, sc.m, x));
    }
  }
}

}  // namespace

SignalExplanation ExplainDeadlock(const Machine& m, const State& s) {
  SignalExplanation out;
  Scene sc{m, s, m.program(), std::vector<Footprint>(m.num_agents()), &out};
  for (int a = 0; a < m.num_agents(); ++a) sc.futures[a] = m.Future(s, a);
  std::vector<Blocked> blocked = CollectBlocked(m, s);
  for (Blocked& b : blocked) ExplainBlocked(sc, b);
  AddWaitForEdges(sc, blocked);
  const Blocked* best = FirstRanked(blocked);
  const Cause cause = best ? best->cause : SignalExplanation::deadlock;
  const std::string why = cause == SignalExplanation::cycle ? DescribeCycle(m, s, blocked)
                          : best                            ? best->text
                                                            : "";
  out.set_cause(cause);
  std::string text = absl::StrCat("deadlock: ", blocked.size(), " agent(s) blocked\n");
  for (const Blocked& b : blocked) {
    absl::StrAppend(&text, "  ", m.info(b.agent).name, " @ ", b.proto.site(), ": ",
                    b.proto.op());
    if (b.has_word)
      absl::StrAppend(&text, "  (", b.proto.word(), " expected ", AsText(b.proto.expected()),
                      ", observed ", AsText(b.proto.observed()), ")");
    absl::StrAppend(&text, "\n");
    *out.add_blocked() = b.proto;
  }
  for (int a = 0; a < m.num_agents(); ++a)
    if (s.agents[a].status == Status::kExited)
      absl::StrAppend(&text, "  ", m.info(a).name, ": exited",
                      s.agents[a].exited_early ? " early" : "", "\n");
  absl::StrAppend(&text, "cause: ", base::EnumName(cause), ": ", why);
  out.set_text(text);
  return out;
}

namespace {

// One access to a signal word in a trail: its position and one-line text.
struct WordAccess {
  size_t pos = 0;
  std::string key;  // agent, op, what: equal keys are the same access of the program
  std::string text;
};

std::vector<WordAccess> AccessesTo(const std::vector<Event>& trail, uint64_t word) {
  std::vector<WordAccess> out;
  for (size_t i = 0; i < trail.size(); ++i) {
    const Event& ev = trail[i];
    if (!ev.has_word || ev.word != word) continue;
    out.push_back({i, absl::StrCat(ev.agent, ":", ev.op, ":", ev.what), ev.text});
  }
  return out;
}

// The accesses from two before index `from` to four after it, with elisions marked.
std::string AccessList(const std::vector<WordAccess>& a, size_t from) {
  const size_t lo = from > 2 ? from - 2 : 0, hi = std::min(a.size(), from + 4);
  std::vector<std::string> parts;
  if (lo > 0) parts.push_back(absl::StrCat("… ", lo, " earlier access(es) in both"));
  for (size_t i = lo; i < hi; ++i) parts.push_back(a[i].text);
  if (hi < a.size()) parts.push_back(absl::StrCat("… ", a.size() - hi, " more"));
  return absl::StrCat("[", absl::StrJoin(parts, "; "), "]");
}

// A reset (ResetLike) of `key` in the hang that wiped a write of another agent which
// happens-before does not order before it, preferring the pair whose wiped write is
// `decider` (agent, op). Empty when there is none.
std::string ResetRaceOn(const Machine& m, const Word& w, const std::string& wn,
                        std::pair<int, int> decider, SignalExplanation* out) {
  const Program& p = m.program();
  const auto& hist = w.hist;
  int best_i = -1, best_j = -1;
  size_t phase = 0;  // the first write after the previous reset
  for (size_t j = 0; j < hist.size(); ++j) {
    if (!ResetLike(p, hist[j])) continue;
    for (size_t i = phase; i < j; ++i) {
      const HistEntry& wr = hist[i];
      if (wr.agent < 0 || ResetLike(p, wr) || wr.agent == hist[j].agent) continue;
      const int c0 = m.info(wr.agent).comp_t0, c1 = m.info(wr.agent).comp_rest;
      if (hist[j].clk.at(c0) >= wr.clk.at(c0) && hist[j].clk.at(c1) >= wr.clk.at(c1)) continue;
      if (best_i < 0 || (wr.agent == decider.first && wr.op == decider.second)) {
        best_i = static_cast<int>(i);
        best_j = static_cast<int>(j);
      }
    }
    phase = j + 1;
  }
  if (best_i < 0) return "";
  const HistEntry& wr = hist[best_i];
  const HistEntry& rs = hist[best_j];
  out->clear_writes();
  out->add_writes(HistLine(m, wr));
  out->add_writes(HistLine(m, rs));
  return absl::StrCat("reset race on ", wn, ": ", Who(m, wr.agent, wr.op), " wrote ", wr.after,
                      " (", wr.kind == WriteKind::kAdd ? absl::StrCat("add +", wr.operand) : "set",
                      "), then ", Who(m, rs.agent, rs.op), " reset it to ", rs.after,
                      " without being ordered after that write by any barrier or "
                      "acquire; the write was wiped");
}

// A non-atomic add that overwrote a concurrent write, or a (non-reset) set by another
// agent over accumulated adds. Empty when there is none.
std::string LostUpdateOn(const Machine& m, const Word& w, const std::string& wn,
                         SignalExplanation* out) {
  const Program& p = m.program();
  const auto& hist = w.hist;
  int lost = -1, clobber = -1, first_add = -1;
  for (size_t i = 0; i < hist.size(); ++i) {
    if (ResetLike(p, hist[i])) {
      first_add = -1;
      continue;
    }
    if (hist[i].lost && lost < 0) lost = static_cast<int>(i);
    if (hist[i].kind == WriteKind::kAdd && first_add < 0) first_add = static_cast<int>(i);
    if (hist[i].kind == WriteKind::kSet && first_add >= 0 && clobber < 0 &&
        hist[i].agent != hist[first_add].agent)
      clobber = static_cast<int>(i);
  }
  if (lost < 0 && clobber < 0) return "";
  std::vector<std::string> lines;
  for (const HistEntry& h : hist) lines.push_back(HistLine(m, h));
  out->clear_writes();
  for (const std::string& l : lines) out->add_writes(l);
  if (lost >= 0) {
    const HistEntry& h = hist[lost];
    return absl::StrCat("lost update on ", wn, ": ", Who(m, h.agent, h.op),
                        " is a remote add without native P2P atomics (a read, then a "
                        "write); a concurrent write landed between them and its write of ",
                        h.after, " overwrote it, and its result is the value it read; "
                        "write history ", absl::StrJoin(lines, ", then "));
  }
  return absl::StrCat("lost update on ", wn, ": a set clobbered the accumulated adds; write "
                      "history ", absl::StrJoin(lines, ", then "));
}

bool IsSymptom(Cause c) {
  return c == SignalExplanation::missing_notify || c == SignalExplanation::cycle ||
         c == SignalExplanation::deadlock || c == SignalExplanation::CAUSE_UNSET;
}

// The point of no return on the hang's trail (ExplainDecision): the step index k and the
// completion found from the state before it. False when the trail does not replay or
// the budget runs out first.
//
// Whether a completion is reachable is monotone along the trail (a state that can still
// complete has a predecessor that can), so the search gallops back from the hang (1, 2,
// 4, ... steps: the states just before it are cheap to exhaust) until one can complete,
// then bisects. Each probe explores from its state (partial-order reduction keeps every
// terminal state from any start) and stops at the first completion.
bool PointOfNoReturn(const Machine& m, const Terminal& deadlock, int64_t budget, size_t* k,
                     Terminal* completion) {
  // The trail's states, kept as every kStride-th one (a deep trail of full states would
  // not fit); a probe steps out its state from the checkpoint before it.
  constexpr size_t kStride = 64;
  const size_t n = deadlock.trail.size();
  if (n == 0) return false;
  std::vector<Transition> steps;
  steps.reserve(n);
  std::vector<State> checkpoints;
  State s = m.Initial();
  std::vector<Transition> en;
  for (size_t i = 0; i < n; ++i) {
    if (i % kStride == 0) checkpoints.push_back(s);
    const Event& ev = deadlock.trail[i];
    const Transition t{ev.agent, ev.lane};
    m.Enabled(s, &en);
    if (std::find(en.begin(), en.end(), t) == en.end()) return false;
    Event tmp;
    m.Step(s, t, &tmp);
    steps.push_back(t);
  }
  int64_t spent = 0;
  // 1: a completion is reachable from the state before step i (*c: one); 0: none is;
  // -1: the budget ran out.
  auto probe = [&](size_t i, Terminal* c) {
    ExploreOptions o;
    o.start = checkpoints[i / kStride];
    for (size_t j = i / kStride * kStride; j < i; ++j) {
      Event tmp;
      m.Step(*o.start, steps[j], &tmp);
    }
    o.stop_at_complete = true;
    o.max_states = budget - spent;
    if (o.max_states <= 0) return -1;
    ExploreResult r = Explore(m, o);
    spent += r.states;
    if (r.first_complete) {
      *c = std::move(*r.first_complete);
      return 1;
    }
    return r.bound_hit ? -1 : 0;
  };
  size_t hi = n;  // the hang's state: no completion
  size_t lo = 0;
  Terminal lo_c, c;
  for (size_t d = 1;; d *= 2) {
    const size_t i = n > d ? n - d : 0;
    const int q = probe(i, &c);
    if (q < 0) return false;
    if (q == 1) {
      lo = i;
      lo_c = std::move(c);
      break;
    }
    hi = i;
    if (i == 0) return false;  // nothing on this trail can complete
  }
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    const int q = probe(mid, &c);
    if (q < 0) return false;
    if (q == 1) {
      lo = mid;
      lo_c = std::move(c);
    } else {
      hi = mid;
    }
  }
  *k = lo;
  *completion = std::move(lo_c);
  return true;
}

// Replaces the text's last "cause: ..." line with the root cause, keeping the symptom.
void SetRootCause(Cause cause, const std::string& why, SignalExplanation* e) {
  std::string text = e->text();
  const size_t at = text.rfind("cause: ");
  std::string symptom = at == std::string::npos ? "" : text.substr(at + 7);
  if (at != std::string::npos) text.resize(at);
  absl::StrAppend(&text, "cause: ", base::EnumName(cause), ": ", why);
  if (!symptom.empty()) absl::StrAppend(&text, " (the hang shows it as ", symptom, ")");
  e->set_cause(cause);
  e->set_text(text);
}

}  // namespace

void ExplainDecision(const Machine& m, const Terminal& deadlock, const Terminal& complete,
                     int64_t budget, SignalExplanation* e) {
  size_t k = 0;
  Terminal found;
  std::vector<Event> ctrail;  // the completing schedule
  bool have_word = false;
  uint64_t word = 0;
  std::string head;
  std::pair<int, int> decider{-1, -1};
  size_t common = 0;  // accesses to the word before the divergence
  if (PointOfNoReturn(m, deadlock, budget, &k, &found)) {
    ctrail.assign(deadlock.trail.begin(), deadlock.trail.begin() + k);
    ctrail.insert(ctrail.end(), found.trail.begin(), found.trail.end());
    const Event& d = deadlock.trail[k];
    const Event* alt = found.trail.empty() ? nullptr : &found.trail.front();
    decider = {d.agent, d.op};
    if (d.has_word) {
      have_word = true;
      word = d.word;
    } else if (alt && alt->has_word) {
      have_word = true;
      word = alt->word;
    }
    head = absl::StrCat("decided at step ", k + 1, " of the hang's trail: ", d.text,
                        alt ? absl::StrCat("; a completion takes ", alt->text, " there instead")
                            : "");
    if (have_word)
      for (const WordAccess& a : AccessesTo(deadlock.trail, word)) common += a.pos < k ? 1 : 0;
  } else {
    // Over budget: the first word whose order of accesses differs, on the hang's side.
    ctrail = complete.trail;
    size_t best_pos = SIZE_MAX;
    std::set<uint64_t> words;
    for (const Event& ev : deadlock.trail)
      if (ev.has_word) words.insert(ev.word);
    for (uint64_t w : words) {
      std::vector<WordAccess> h = AccessesTo(deadlock.trail, w), c = AccessesTo(ctrail, w);
      size_t i = 0;
      while (i < h.size() && i < c.size() && h[i].key == c[i].key) ++i;
      if (i >= h.size() || h[i].pos >= best_pos) continue;
      best_pos = h[i].pos;
      word = w;
      have_word = true;
      common = i;
    }
  }
  if (!have_word) {
    e->set_deciding(head.empty() ? "no access to a signal word decides it" : head);
    return;
  }
  const std::string wn = m.WordName(word);
  e->set_deciding(absl::StrCat("on ", wn, ": ", head.empty() ? "" : head + "; ", "hangs when ",
                               AccessList(AccessesTo(deadlock.trail, word), common),
                               "; completes when ", AccessList(AccessesTo(ctrail, word), common)));
  if (!IsSymptom(e->cause())) return;
  auto it = deadlock.state.words.find(word);
  if (it == deadlock.state.words.end()) return;
  SignalExplanation scratch;
  std::string why = ResetRaceOn(m, it->second, wn, decider, &scratch);
  Cause cause = SignalExplanation::reset_race;
  if (why.empty()) {
    why = LostUpdateOn(m, it->second, wn, &scratch);
    cause = SignalExplanation::lost_update;
  }
  if (why.empty()) return;
  e->clear_writes();
  for (const std::string& w : scratch.writes()) e->add_writes(w);
  SetRootCause(cause, why, e);
}

}  // namespace warpcheck::sim::signal
