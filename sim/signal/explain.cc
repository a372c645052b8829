#include "sim/signal/explain.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace warpcheck::sim::signal {

namespace {

const std::vector<std::string>& CausePriority() {
  static const auto* v = new std::vector<std::string>{
      "scope_too_narrow", "lost_update",    "reset_race",          "overwrite",
      "overshoot",        "exited_writer",  "co_residency",        "collective_mismatch",
      "missing_notify",   "cycle"};
  return *v;
}
int Rank(const std::string& cause) {
  const auto& v = CausePriority();
  auto it = std::find(v.begin(), v.end(), cause);
  return it == v.end() ? 100 : static_cast<int>(it - v.begin());
}

std::string StateName(const State& s, const Machine& m, int a) {
  const AgentState& as = s.agents[a];
  switch (as.status) {
    case Status::kExited: return "exited";
    case Status::kNotLaunched: return "not_launched";
    case Status::kNotStarted: return "not_started";
    default: break;
  }
  return m.AgentEnabled(s, a) ? "running" : "blocked";
}

struct Blocked {
  int agent = -1;
  int op = -1;
  SignalBlocked proto;
  bool has_word = false;
  uint64_t word = 0;
  std::string cause;
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

}  // namespace

SignalExplanation ExplainDeadlock(const Machine& m, const State& s) {
  const Program& p = m.program();
  SignalExplanation out;
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
      b.proto.set_expected(static_cast<double>(as.wait_value));
      b.proto.set_observed(static_cast<double>(m.Visible(s, a, b.word, scope, sem)));
      b.proto.set_cmp(op.kind == WAIT ? "EQ" : CmpName(op.kind == ATOMIC_CAS ? EQ : op.cmp));
    }
    blocked.push_back(std::move(b));
  }

  std::vector<Footprint> futures(m.num_agents());
  for (int a = 0; a < m.num_agents(); ++a) futures[a] = m.Future(s, a);
  // Could some write in f to `key` make `cmp target` true? (A set of a known value that
  // does not satisfy it cannot; a reset to 0 never releases a wait for 1.)
  SignalCmp want_cmp = EQ;
  int64_t want_target = 0;
  bool filter = false;
  auto writes_word = [&](const Footprint& f, uint64_t key, int* op) {
    Access2 probe;
    probe.res = Res::kWord;
    probe.mode = Mode::kRead;
    probe.object = KeyObject(key);
    probe.rank = KeyRank(key);
    probe.lo = KeyIndex(key);
    probe.hi = probe.lo + 1;
    for (const Access2& x : f)
      if (x.mode != Mode::kRead && Conflicts(probe, x)) {
        if (filter && x.value_known &&
            !m.Satisfies(want_cmp, x.value, want_target, p.objects[KeyObject(key)].bytes))
          continue;
        *op = x.op;
        return true;
      }
    return false;
  };
  auto reset_like = [&](const HistEntry& h) {
    if (h.kind == WriteKind::kReset) return true;
    if (h.kind != WriteKind::kSet || h.op < 0) return false;
    const Op& o = p.ops[h.op];
    return (o.kind == ST_SIGNAL || o.kind == STREAM_WRITE) &&
           h.after == p.objects[o.object].init;
  };

  for (Blocked& b : blocked) {
    const AgentState& as = s.agents[b.agent];
    if (as.status == Status::kNotStarted) {
      b.cause = "co_residency";
      b.text = absl::StrCat(m.info(b.agent).name, " never starts: all ", p.cta_slots,
                            " resident CTA slots of rank ", m.info(b.agent).rank,
                            " are held by CTAs that never exit");
      continue;
    }
    const Op& op = p.ops[b.op];
    if (op.kind == BARRIER_ALL || op.kind == HOST_COLLECTIVE || op.kind == GRID_BARRIER) {
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
          for (const Access2& f : futures[x])
            if (f.res == Res::kBarrier && f.mode == Mode::kWrite &&
                f.object == (op.kind == BARRIER_ALL ? 1 : 2)) {
              b.writers.push_back(x);
              b.writer_ops.push_back(f.op);
              break;
            }
        }
      }
      if (!not_started.empty()) {
        b.cause = "co_residency";
        b.text = absl::StrCat("grid barrier at ", op.site, ": ", arrived, " of ", need,
                              " CTAs arrived; ", absl::StrJoin(not_started, ", "),
                              " cannot start (", p.cta_slots,
                              " resident slots, all held by CTAs spinning in the barrier)");
      } else if (!b.writers.empty()) {
        b.cause = "cycle";
      } else {
        b.cause = "collective_mismatch";
        b.text = absl::StrCat(KindName(op.kind), " at ", op.site, ": ", arrived, " of ", need,
                              " arrived; missing ", absl::StrJoin(missing, ", "),
                              " (exited or blocked elsewhere without reaching it)");
      }
      continue;
    }
    if (op.kind == LAUNCH) {
      b.cause = "cycle";
      b.text = absl::StrCat(m.info(b.agent).name, " waits for kernel ",
                            p.kernels[op.kernel].name, " to finish");
      int first = m.info(b.agent).launches[as.launches];
      for (int c = 0; c < m.info(b.agent).launch_sizes[as.launches]; ++c) {
        b.writers.push_back(first + c);
        b.writer_ops.push_back(-1);
      }
      continue;
    }
    if (!b.has_word) continue;
    const Word* w = nullptr;
    if (auto it = s.words.find(b.word); it != s.words.end()) w = &it->second;
    const int64_t target = as.wait_value;
    const int64_t value = w ? w->value : p.objects[KeyObject(b.word)].init;
    const std::string wn = m.WordName(b.word);
    filter = true;
    want_cmp = op.kind == WAIT || op.kind == ATOMIC_CAS ? EQ : op.cmp;
    want_target = target;
    for (int x = 0; x < m.num_agents(); ++x) {
      if (x == b.agent || s.agents[x].status == Status::kExited) continue;
      int wop = -1;
      if (writes_word(futures[x], b.word, &wop)) {
        b.writers.push_back(x);
        b.writer_ops.push_back(wop);
      }
    }
    // Narrow scope.
    if ((op.kind == WAIT || op.kind == WAIT_UNTIL) && (op.scope == CTA || op.sem == WEAK)) {
      bool outside = false;
      if (w)
        for (const HistEntry& h : w->hist)
          if (h.agent >= 0 && h.agent != b.agent &&
              m.info(h.agent).kind == AgentKind::kCta)
            outside = true;
      for (int x : b.writers) outside |= m.info(x).kind == AgentKind::kCta;
      if (outside) {
        b.cause = "scope_too_narrow";
        b.text = absl::StrCat(m.info(b.agent).name, " polls ", wn, " with scope=",
                              ScopeName(op.scope), " sem=", SemName(op.sem),
                              ": writes by other CTAs or GPUs never reach its L1 (value ", value,
                              ", it still sees ", b.proto.observed(),
                              "); use scope=gpu (same GPU) or sys");
        continue;
      }
    }
    if (w && !w->hist.empty()) {
      const auto& hist = w->hist;
      // Lost update.
      int lost = -1, set_after_add = -1, first_add = -1;
      for (size_t i = 0; i < hist.size(); ++i) {
        if (hist[i].lost) lost = static_cast<int>(i);
        if (hist[i].kind == WriteKind::kAdd && first_add < 0) first_add = static_cast<int>(i);
        if (hist[i].kind == WriteKind::kSet && first_add >= 0 && set_after_add < 0 &&
            hist[i].agent != hist[first_add].agent)
          set_after_add = static_cast<int>(i);
      }
      if (lost >= 0 || set_after_add >= 0) {
        std::vector<std::string> lines;
        for (const HistEntry& h : hist) lines.push_back(HistLine(m, h));
        b.cause = "lost_update";
        b.text = absl::StrCat("lost update on ", wn, ": ",
                              lost >= 0 ? "a non-atomic remote add (no native P2P atomics) "
                                          "overwrote a concurrent increment"
                                        : "a set clobbered the accumulated adds",
                              "; write history ", absl::StrJoin(lines, ", then "),
                              " (value ", value, ", waiting for ", target, ")");
        for (const std::string& l : lines) out.add_writes(l);
        continue;
      }
      // Reset race: a reset (host fill, or a program store of the initial value) after a
      // write that would have released the waiter, not ordered after that write.
      bool found = false;
      const int bytes = p.objects[KeyObject(b.word)].bytes;
      const SignalCmp wcmp = op.kind == WAIT ? EQ : op.cmp;
      for (size_t j = 0; j < hist.size() && !found; ++j) {
        if (!reset_like(hist[j])) continue;
        for (size_t i = 0; i < j; ++i) {
          const HistEntry& wr = hist[i];
          if (wr.agent < 0 || reset_like(wr) || wr.agent == hist[j].agent) continue;
          if (!m.Satisfies(wcmp, wr.after, target, bytes)) continue;
          int comp = m.info(wr.agent).comp_t0;
          int comp2 = m.info(wr.agent).comp_rest;
          bool ordered = hist[j].clk.at(comp) >= wr.clk.at(comp) &&
                         hist[j].clk.at(comp2) >= wr.clk.at(comp2);
          if (!ordered) {
            b.cause = "reset_race";
            b.text = absl::StrCat("reset race on ", wn, ": ", Who(m, wr.agent, wr.op),
                                  " wrote ", wr.after, ", then ", Who(m, hist[j].agent, hist[j].op),
                                  " reset it to ", hist[j].after,
                                  " without being ordered after it by any barrier; the notify "
                                  "was overwritten (value ", value, ", waiting for ", target, ")");
            out.add_writes(HistLine(m, wr));
            out.add_writes(HistLine(m, hist[j]));
            found = true;
            break;
          }
        }
      }
      if (found) continue;
      // Passed the target.
      SignalCmp cmp = op.kind == WAIT ? EQ : op.cmp;
      // Only the writes since the last reset count (a reset starts a new phase).
      size_t since = 0;
      for (size_t i = 0; i < hist.size(); ++i)
        if (reset_like(hist[i])) since = i + 1;
      if (cmp == EQ && value != target && since < hist.size()) {
        int at_target = -1;
        for (size_t i = since; i < hist.size(); ++i)
          if (hist[i].after == target) at_target = static_cast<int>(i);
        bool all_adds = true;
        for (size_t i = since; i < hist.size(); ++i) all_adds &= hist[i].kind == WriteKind::kAdd;
        // The first write after it by someone other than the waiter (the waiter's own
        // writes consume what it saw; they do not explain a miss).
        int moved = -1;
        for (int i = at_target + 1; at_target >= 0 && i < static_cast<int>(hist.size()); ++i)
          if (hist[i].agent != b.agent) {
            moved = i;
            break;
          }
        if (moved >= 0) {
          const HistEntry& next = hist[moved];
          std::vector<std::string> lines;
          for (size_t i = at_target + 1; i < hist.size(); ++i) lines.push_back(HistLine(m, hist[i]));
          for (const std::string& l : lines) out.add_writes(l);
          if (next.kind == WriteKind::kSet || next.kind == WriteKind::kCas) {
            b.cause = "overwrite";
            b.text = absl::StrCat(wn, " held ", target, " but ", Who(m, next.agent, next.op),
                                  " set ", next.after, " over it before ",
                                  m.info(b.agent).name, " sampled it (value ", value,
                                  ", waiting for ", target, ")");
          } else {
            std::vector<std::string> all;
            for (size_t i = since; i < hist.size(); ++i) all.push_back(HistLine(m, hist[i]));
            b.cause = "overshoot";
            b.text = absl::StrCat(wn, " passed the target ", target, " before ",
                                  m.info(b.agent).name, " sampled it: ", all.size(),
                                  " write(s): ", absl::StrJoin(all, ", "), " (value now ", value,
                                  ", waiting for ", target, "; == never holds again)");
          }
          continue;
        }
        if (all_adds && value > target && target >= 0) {
          std::vector<std::string> lines;
          for (size_t i = since; i < hist.size(); ++i) lines.push_back(HistLine(m, hist[i]));
          for (const std::string& l : lines) out.add_writes(l);
          b.cause = "overshoot";
          b.text = absl::StrCat(wn, " passed the target ", target, " without ever equalling it: ",
                                lines.size(), " add(s): ", absl::StrJoin(lines, ", "),
                                " (value ", value, ", waiting for ", target, ")");
          continue;
        }
      }
    }
    {
      // A writer that exited early (its skipped program writes the word) explains the
      // hang even when later writers exist that are themselves stuck.
      std::vector<std::string> exited;
      for (int x = 0; x < m.num_agents(); ++x) {
        const AgentState& xs = s.agents[x];
        if (xs.status != Status::kExited || !xs.exited_early) continue;
        int wop = -1;
        if (writes_word(m.AfterExit(s, x), b.word, &wop)) {
          exited.push_back(absl::StrCat(m.info(x).name, " exited early at ",
                                        p.ops[m.List(x, xs.stack.back().list)[xs.stack.back().pos]].site,
                                        "; its remaining program contained ",
                                        wop >= 0 ? p.ops[wop].site : "a write",
                                        " targeting ", wn));
          SignalEdge* e = out.add_edges();
          e->set_from(m.info(b.agent).name);
          e->set_to(m.info(x).name);
          e->set_site(wop >= 0 ? p.ops[wop].site : "");
          e->set_word(wn);
          e->set_expected(static_cast<double>(target));
          e->set_observed(b.proto.observed());
          e->set_to_state("exited");
        }
      }
      if (!exited.empty()) {
        b.cause = "exited_writer";
        b.text = absl::StrCat("waited-for writer exited: ", absl::StrJoin(exited, "; "));
        continue;
      }
    }
    if (b.writers.empty()) {
      // Missing notify: nearest miss among writes to the same object.
      std::string nearest;
      for (const auto& [key, ow] : s.words) {
        if (KeyObject(key) != KeyObject(b.word) || key == b.word) continue;
        for (const HistEntry& h : ow.hist) {
          if (h.agent < 0 || h.kind == WriteKind::kReset) continue;
          bool other_rank = KeyRank(key) != KeyRank(b.word);
          nearest = absl::StrCat("; nearest candidate: ", Who(m, h.agent, h.op), " wrote ",
                                 m.WordName(key), " (same object, different ",
                                 other_rank ? "rank" : "slot", ")");
          break;
        }
        if (!nearest.empty()) break;
      }
      b.cause = "missing_notify";
      b.text = absl::StrCat("missing notify for ", wn, ": no agent can still write it (value ",
                            value, ", waiting for ", target, ")", nearest);
      continue;
    }
    std::vector<std::string> cannot_start;
    for (int x : b.writers)
      if (s.agents[x].status == Status::kNotStarted) cannot_start.push_back(m.info(x).name);
    if (!cannot_start.empty()) {
      b.cause = "co_residency";
      b.text = absl::StrCat(wn, " can only be written by ", absl::StrJoin(cannot_start, ", "),
                            ", which cannot start: rank ", m.info(b.agent).rank, " has ",
                            p.cta_slots, " resident CTA slots, all held by CTAs that never exit");
      continue;
    }
    b.cause = "cycle";
  }

  // Edges of the wait-for graph.
  for (const Blocked& b : blocked) {
    for (size_t i = 0; i < b.writers.size(); ++i) {
      int x = b.writers[i];
      SignalEdge* e = out.add_edges();
      e->set_from(m.info(b.agent).name);
      e->set_to(m.info(x).name);
      e->set_site(b.writer_ops[i] >= 0 ? p.ops[b.writer_ops[i]].site : "");
      e->set_word(b.proto.word());
      e->set_expected(b.proto.expected());
      e->set_observed(b.proto.observed());
      e->set_to_state(StateName(s, m, x));
    }
  }
  // Program-level cause.
  int best = -1;
  for (size_t i = 0; i < blocked.size(); ++i)
    if (!blocked[i].cause.empty() &&
        (best < 0 || Rank(blocked[i].cause) < Rank(blocked[best].cause)))
      best = static_cast<int>(i);
  std::string cause = best >= 0 ? blocked[best].cause : "deadlock";
  std::string why = best >= 0 ? blocked[best].text : "";
  if (cause == "cycle") {
    // Find a cycle through the blocked agents' writer edges.
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
                                                        b->proto.expected(), ", observed ",
                                                        b->proto.observed(), ")"),
                                     " waits for ",
                                     m.info(to).name, site.empty() ? "" : " [" + site + "]"));
        }
        break;
      }
    }
    why = cyc.empty() ? "every agent that could write the awaited words is itself blocked"
                      : absl::StrJoin(cyc, " -> ");
  }
  out.set_cause(cause);
  std::string text = absl::StrCat("deadlock: ", blocked.size(), " agent(s) blocked\n");
  for (const Blocked& b : blocked) {
    absl::StrAppend(&text, "  ", m.info(b.agent).name, " @ ", b.proto.site(), ": ",
                    b.proto.op());
    if (b.has_word)
      absl::StrAppend(&text, "  (", b.proto.word(), " expected ", b.proto.expected(),
                      ", observed ", b.proto.observed(), ")");
    absl::StrAppend(&text, "\n");
    *out.add_blocked() = b.proto;
  }
  for (int a = 0; a < m.num_agents(); ++a)
    if (s.agents[a].status == Status::kExited)
      absl::StrAppend(&text, "  ", m.info(a).name, ": exited",
                      s.agents[a].exited_early ? " early" : "", "\n");
  absl::StrAppend(&text, "cause: ", cause, ": ", why);
  out.set_text(text);
  return out;
}

std::string DecidingInterleaving(const Machine& m, const SignalExplanation& e,
                                 const Terminal& deadlock, const Terminal& complete) {
  std::string word = e.blocked_size() > 0 ? e.blocked(0).word() : "";
  for (const SignalBlocked& b : e.blocked())
    if (!b.word().empty()) {
      word = b.word();
      break;
    }
  auto touches = [&](const Terminal& t) {
    std::vector<std::string> out;
    for (const Event& ev : t.trail)
      if (ev.has_word && m.WordName(ev.word) == word) out.push_back(ev.text);
    return out;
  };
  std::vector<std::string> d = touches(deadlock), c = touches(complete);
  return absl::StrCat("on ", word, ": hangs when [", absl::StrJoin(d, "; "),
                      "]; completes when [", absl::StrJoin(c, "; "), "]");
}

}  // namespace warpcheck::sim::signal
