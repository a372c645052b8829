#include "sim/signal/driver.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/base/status_macros.h"
#include "sim/base/field_position.h"
#include "sim/base/text_proto.h"
#include "sim/base/enum_name.h"
#include "sim/signal/explain.h"
#include "sim/signal/lint.h"

namespace warpcheck::sim::signal {

namespace {

void FillTerminals(const ExploreResult& r, SignalReport* rep) {
  for (const TerminalSummary& t : r.terminals) {
    SignalTerminal* out = rep->add_terminals();
    out->set_outcome(t.outcome);
    for (const std::string& b : t.blocked) out->add_blocked(b);
    for (const auto& [k, v] : t.values) (*out->mutable_values())[k] = v;
    out->set_count(t.count);
    out->set_race(t.race);
  }
}

void FillTrail(const Terminal& t, SignalReport* rep) {
  for (const Event& ev : t.trail) rep->add_trail(ev.text);
}

void FillRaces(const Machine& m, const std::vector<RaceRecord>& races, SignalReport* rep) {
  const Program& p = m.program();
  for (const RaceRecord& r : races) {
    SignalRace* out = rep->add_races();
    out->set_kind(r.kind);
    out->set_text(r.text);
    out->set_access(absl::StrCat(m.info(r.agent).name, " ", p.ops[r.op].site));
    out->set_other(absl::StrCat(m.info(r.other_agent).name, " ", p.ops[r.other_op].site));
  }
}

// The snapshot's state of an agent (the enum itself: parsing its name back left the
// value unset, had a name been misspelt).
SignalAgentState AgentStateOf(Status st, bool waiting) {
  switch (st) {
    case Status::kNotLaunched:
    case Status::kNotStarted: return NOT_STARTED;
    case Status::kExited: return EXITED;
    default: return waiting ? WAITING : RUNNING;
  }
}

void FillAgentFields(const Machine& m, int a, SignalEvent* e) {
  const AgentInfo& ai = m.info(a);
  e->set_rank(ai.rank);
  if (ai.kind == AgentKind::kCta) {
    e->set_cta(ai.cta);
    e->set_kernel(m.program().kernels[ai.kernel].name);
    if (ai.kernel_launch > 1) e->set_launch(ai.kernel_launch);
  } else {
    e->set_cta(-1);
    e->set_stream(m.program().streams[ai.stream].name);
  }
}

// The agent an event or snapshot names; -1 if none.
int FindAgent(const Machine& m, int rank, int cta, const std::string& kernel,
              const std::string& stream, int launch) {
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentInfo& ai = m.info(a);
    if (ai.rank != rank) continue;
    if (!stream.empty() || cta < 0) {
      if (ai.kind == AgentKind::kStream && m.program().streams[ai.stream].name == stream)
        return a;
      continue;
    }
    if (ai.kind != AgentKind::kCta || ai.cta != cta) continue;
    if (!kernel.empty() && m.program().kernels[ai.kernel].name != kernel) continue;
    if (ai.kernel_launch != std::max(launch, 1)) continue;
    return a;
  }
  return -1;
}

}  // namespace

std::string RenderEvent(const SignalEvent& e) {
  std::string agent = e.stream().empty()
                          ? absl::StrCat("rank", e.rank(), ".", e.kernel().empty() ? "" : e.kernel() + ".",
                                         e.launch() > 1 ? absl::StrCat("L", e.launch(), ".") : "",
                                         "cta", e.cta())
                          : absl::StrCat("rank", e.rank(), ".", e.stream());
  std::string word = e.object().empty()
                         ? ""
                         : absl::StrCat(" ", e.object(), "@", e.word_rank(), "[", e.index(), "]");
  std::string tail;
  if (e.what() == "write") tail = absl::StrCat(" = ", e.value());
  if (e.what() == "wait_end" || e.what() == "wait_abort")
    tail = absl::StrCat(" observed ", e.observed(), " (waiting for ", e.value(), ")");
  return absl::StrCat(agent, " #", e.seq(), " ", e.site(), " ", e.what(), word, tail,
                      e.mo() > 0 ? absl::StrCat(" (mo ", e.mo(), ")") : "");
}

SignalTrace MakeTrace(const Machine& m, const Terminal& t) {
  const Program& p = m.program();
  SignalTrace out;
  out.set_format_version(kSignalTraceFormatVersion);
  *out.mutable_program() = p.proto;
  out.mutable_program()->clear_expect();
  std::map<int, int64_t> seq;
  std::map<uint64_t, int64_t> mo;
  for (const Event& ev : t.trail) {
    SignalEvent* e = out.add_events();
    FillAgentFields(m, ev.agent, e);
    e->set_seq(seq[ev.agent]++);
    if (ev.lane >= 0) e->set_lane(ev.lane);
    e->set_site(ev.op >= 0 ? p.ops[ev.op].site : "start");
    e->set_what(ev.what);
    if (ev.has_word) {
      e->set_object(p.objects[KeyObject(ev.word)].name);
      e->set_word_rank(KeyRank(ev.word));
      e->set_index(KeyIndex(ev.word));
      if (ev.what == "write") {
        e->set_value(ev.after);
        e->set_mo(++mo[ev.word]);
      } else if (ev.what == "wait_end") {
        e->set_observed(ev.after);
        e->set_value(t.state.agents[ev.agent].wait_value);
        const Op& op = p.ops[ev.op];
        if (op.value.present()) {
          int64_t v;
          if (op.value.Eval(t.state.agents[ev.agent].frame.data(), &v)) e->set_value(v);
        }
      }
    }
  }
  SignalSnapshot* snap = out.mutable_snapshot();
  for (int a = 0; a < m.num_agents(); ++a) {
    const AgentState& as = t.state.agents[a];
    SignalAgentSnapshot* sa = snap->add_agents();
    SignalEvent tmp;
    FillAgentFields(m, a, &tmp);
    sa->set_rank(tmp.rank());
    sa->set_cta(tmp.cta());
    sa->set_kernel(tmp.kernel());
    sa->set_stream(tmp.stream());
    sa->set_launch(tmp.launch());
    bool waiting = as.status == Status::kRunning && !m.AgentEnabled(t.state, a);
    sa->set_state(AgentStateOf(as.status, waiting));
    int op = m.CurrentOp(t.state, a);
    if (op >= 0) sa->set_site(p.ops[op].site);
    if (as.wait_armed) {
      sa->set_expected(as.wait_value);
      for (size_t i = 0; i < as.lanes.size(); ++i)
        if (as.lanes[i]) {
          int l = static_cast<int>(i * 64 + __builtin_ctzll(as.lanes[i]));
          uint64_t key = WordKey(p.ops[op].object, as.wait_rank, as.wait_index + l);
          sa->set_observed(m.Visible(t.state, a, key, p.ops[op].scope, p.ops[op].sem));
          break;
        }
    }
  }
  for (const auto& [key, w] : t.state.words) {
    SignalWordValue* v = snap->add_words();
    v->set_object(p.objects[KeyObject(key)].name);
    v->set_rank(KeyRank(key));
    v->set_index(KeyIndex(key));
    v->set_value(w.value);
  }
  return out;
}

absl::StatusOr<std::pair<Program, SignalTrace>> LoadTraceFile(const std::string& path,
                                                              const LoadOverrides& o) {
  SignalTrace t;
  if (auto s = sim::base::ParseTextProtoFile(path, &t); !s.ok()) return s;
  if (auto s = CheckTraceFormatVersion(t, path); !s.ok()) return s;
  SignalProgram prog;
  std::string origin = path;
  if (t.has_program()) {
    prog = t.program();
  } else if (!t.program_file().empty()) {
    std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    origin = dir + t.program_file();
    if (auto s = sim::base::ParseTextProtoFile(origin, &prog); !s.ok()) return s;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a trace needs `program` or `program_file`"));
  }
  auto p = CompileProgram(prog, origin, o);
  if (!p.ok()) {
    // At the field's line and column in whichever file spells the program.
    if (t.has_program())
      return sim::base::LocateInTextProtoFile(p.status(), path, t, "program.");
    return sim::base::LocateInTextProtoFile(p.status(), origin, prog);
  }
  return std::make_pair(std::move(*p), std::move(t));
}

absl::Status CheckTraceFormatVersion(const SignalTrace& t, const std::string& origin) {
  if (t.format_version() > kSignalTraceFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ": format_version ", t.format_version(),
        " is newer than this warpcheck reads (", kSignalTraceFormatVersion, ")"));
  }
  if (t.format_version() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ": format_version ", t.format_version(), " is not a version"));
  }
  return absl::OkStatus();
}

absl::Status ValidateTrace(const Machine& m, const SignalTrace& t, const std::string& origin) {
  const Program& p = m.program();
  std::map<int, int64_t> last_seq;
  for (int i = 0; i < t.events_size(); ++i) {
    const SignalEvent& e = t.events(i);
    std::string path = absl::StrCat(origin, ": events[", i, "]");
    int a = FindAgent(m, e.rank(), e.cta(), e.kernel(), e.stream(), e.launch());
    if (a < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": no agent rank ", e.rank(),
          e.stream().empty() ? absl::StrCat(" cta ", e.cta(), e.kernel().empty() ? "" : " of kernel " + e.kernel())
                             : " stream " + e.stream(),
          " in the program"));
    auto it = last_seq.find(a);
    if (it != last_seq.end() && e.seq() <= it->second)
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": seq ", e.seq(), " does not increase for ", m.info(a).name, " (previous ",
          it->second, ")"));
    last_seq[a] = e.seq();
    if (!e.object().empty()) {
      int o = p.FindObject(e.object());
      if (o < 0)
        return absl::InvalidArgumentError(absl::StrCat(path, ".object: no object '", e.object(), "'"));
      if (e.word_rank() < 0 || e.word_rank() >= p.ranks)
        return absl::InvalidArgumentError(absl::StrCat(path, ".word_rank: ", e.word_rank(),
                                                       " is outside 0..", p.ranks - 1));
    }
    static const std::set<std::string> kWhat = {"write", "wait_begin", "wait_end", "wait_abort",
                                                "data", "start", "read", "poll", "arrive",
                                                "leave",
                                                "launch", "join", "exit", "data_write",
                                                "data_read"};
    if (!kWhat.count(e.what()))
      return absl::InvalidArgumentError(absl::StrCat(path, ".what: '", e.what(),
                                                     "' is not an event kind (write, wait_end, ...)"));
  }
  for (int i = 0; i < t.snapshot().words_size(); ++i) {
    const SignalWordValue& w = t.snapshot().words(i);
    if (p.FindObject(w.object()) < 0)
      return absl::InvalidArgumentError(absl::StrCat(origin, ": snapshot.words[", i,
                                                     "].object: no object '", w.object(), "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunResult> LintProgram(const Program& p) {
  ASSIGN_OR_RETURN(Machine m, Machine::Create(p));
  RunResult res;
  std::vector<SignalLint> lints = Lint(m);
  for (const SignalLint& l : lints) *res.report.add_lints() = l;
  res.report.set_outcome(HasErrors(lints) ? SignalReport::static_error : SignalReport::ok);
  return res;
}

namespace {

void FillCounts(const ExploreResult& r, SignalReport* rep) {
  rep->set_states(r.states);
  rep->set_transitions(r.transitions);
  rep->set_seconds(r.seconds);
  rep->set_states_per_second(r.seconds > 0 ? r.states / r.seconds : 0);
  rep->set_bound_hit(r.bound_hit);
  rep->set_memory_bytes(r.peak_memory_bytes);
  rep->set_state_bytes(r.state_bytes);
  rep->set_search_depth(r.peak_depth);
}

std::string Mib(int64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

// Which bound was hit, with the figure: "state bound of N hit after M states" or "memory
// budget of X MiB reached after M states (the search held about Y MiB: a stack of D
// states at about B bytes each, the visited set and the footprint cache)".
std::string BoundText(const ExploreResult& r, int64_t max_states, int64_t max_memory) {
  if (!r.memory_hit) return absl::StrCat("state bound of ", max_states, " hit after ", r.states, " states");
  return absl::StrCat("memory budget of ", Mib(max_memory), " reached after ", r.states,
                      " states (the search held about ", Mib(r.peak_memory_bytes),
                      ": a stack of ", r.peak_depth, " states at about ", r.state_bytes,
                      " bytes each, the visited set and the footprint cache)");
}

// The first line of every answer under a bound.
std::string BoundHitText(int64_t max_states, int64_t max_memory, const ExploreResult& r) {
  return absl::StrCat("inconclusive: ", BoundText(r, max_states, max_memory), " (raise ",
                      r.memory_hit ? "--max-memory" : "--max-states",
                      " or lower --ranks/--ctas/--iterations)");
}

// Classifies an exploration (driver.h: the outcome of `run`), fills the explanation and
// returns the terminal whose trail is reported (null: none).
const Terminal* Classify(const Machine& m, const ExploreResult& r, int64_t max_states,
                         int64_t max_memory, RunResult& res) {
  SignalReport& rep = res.report;
  if (r.first_fault) {
    rep.set_outcome(SignalReport::fault);
    SignalExplanation* e = rep.mutable_explanation();
    e->set_cause(SignalExplanation::fault);
    e->set_text(absl::StrCat("fault: ", r.first_fault->state.fault));
    return &*r.first_fault;
  }
  if (r.first_deadlock) {
    *rep.mutable_explanation() = ExplainDeadlock(m, r.first_deadlock->state);
    if (r.first_complete) {
      rep.set_outcome(SignalReport::nondeterministic);
      // The search for the deciding step may cost a few times the exploration itself.
      const int64_t budget = std::min<int64_t>(max_states, std::max<int64_t>(200000, 4 * r.states));
      ExplainDecision(m, *r.first_deadlock, *r.first_complete, budget,
                      rep.mutable_explanation());
      rep.mutable_explanation()->set_text(
          absl::StrCat("nondeterministic: ", r.deadlocks, " terminal state(s) deadlock, ",
                       r.completes, " complete\n", rep.explanation().text(), "\ndeciding ",
                       rep.explanation().deciding()));
    } else if (r.bound_hit) {
      // A deadlock found under a bound is real and replayable (its trail is reported),
      // but "every interleaving deadlocks" is not shown: a completion may lie beyond the
      // bound. So the answer is "can deadlock", and the outcome inconclusive.
      rep.set_outcome(SignalReport::inconclusive);
      rep.mutable_explanation()->set_text(absl::StrCat(
          BoundHitText(max_states, max_memory, r), "; found: the program can deadlock (",
          r.deadlocks, " deadlocking terminal state(s), trail below); whether it always "
          "does is not decided\n", rep.explanation().text()));
    } else {
      rep.set_outcome(SignalReport::deadlock);
    }
    return &*r.first_deadlock;
  }
  if (r.first_race) {
    SignalExplanation* e = rep.mutable_explanation();
    e->set_cause(SignalExplanation::data_race);
    FillRaces(m, r.all_races, &rep);
    std::vector<std::string> lines;
    for (const SignalRace& x : rep.races())
      lines.push_back(absl::StrCat("  ", base::EnumName(x.kind()), ": ", x.text()));
    // Under a bound the race is real (its trail is reported), but "no interleaving
    // deadlocks", which `race` also claims, is not shown.
    rep.set_outcome(r.bound_hit ? SignalReport::inconclusive : SignalReport::race);
    e->set_text(absl::StrCat(
        r.bound_hit ? absl::StrCat(BoundHitText(max_states, max_memory, r),
                                   "; found: a data race (no deadlock among the explored "
                                   "states)\n")
                    : "",
        "race: ", r.races, " terminal state(s) reached with a data race\n",
        absl::StrJoin(lines, "\n")));
    return &*r.first_race;
  }
  if (r.bound_hit) {
    rep.set_outcome(SignalReport::inconclusive);
    rep.mutable_explanation()->set_text(absl::StrCat(
        BoundHitText(max_states, max_memory, r), " with no deadlock, race or fault found",
        r.completes > 0 ? absl::StrCat(" (", r.completes, " terminal state(s) complete)") : ""));
    return r.first_complete ? &*r.first_complete : nullptr;
  }
  rep.set_outcome(SignalReport::completes);
  return r.first_complete ? &*r.first_complete : nullptr;
}

}  // namespace

absl::StatusOr<RunResult> RunProgram(const Program& p, const RunOptions& opt) {
  ASSIGN_OR_RETURN(Machine m, Machine::Create(p));
  RunResult res;
  SignalReport& rep = res.report;
  rep.set_schedule(opt.schedule);
  std::vector<SignalLint> lints = Lint(m);
  for (const SignalLint& l : lints) *rep.add_lints() = l;
  if (HasErrors(lints)) {
    rep.set_outcome(SignalReport::static_error);
    SignalExplanation* e = rep.mutable_explanation();
    e->set_cause(CauseOf(lints.front().id()));
    e->set_text(absl::StrCat("static error: ", lints.front().text()));
    return res;
  }
  ExploreOptions eo;
  eo.schedule = opt.schedule;
  eo.seed = opt.seed;
  eo.max_states = opt.max_states > 0 ? opt.max_states : p.max_states;
  eo.reduce = opt.reduce;
  eo.counters = opt.counters;
  eo.sync_guards = opt.sync_guards;
  eo.value_guards = opt.value_guards;
  eo.lane_first = opt.lane_first;
  if (opt.max_memory_bytes > 0) eo.max_memory_bytes = opt.max_memory_bytes;
  SymmetryGroup group;
  if (opt.schedule == "explore") {
    if (opt.symmetry) {
      group = DetectSymmetry(m);
      eo.symmetry = &group;
    }
    rep.set_symmetry(opt.symmetry ? group.Describe() : "off");
  }
  ExploreResult r = Explore(m, eo);
  FillCounts(r, &rep);
  (*rep.mutable_outcome_counts())["completes"] = r.completes;
  (*rep.mutable_outcome_counts())["deadlock"] = r.deadlocks;
  (*rep.mutable_outcome_counts())["race"] = r.races;
  (*rep.mutable_outcome_counts())["fault"] = r.faults;
  FillTerminals(r, &rep);
  if (const Terminal* shown = Classify(m, r, eo.max_states, eo.max_memory_bytes, res)) {
    FillTrail(*shown, &rep);
    // Every outcome lists the distinct races of every explored terminal state.
    if (rep.races_size() == 0) FillRaces(m, r.all_races, &rep);
    for (const auto& [k, v] : FinalValues(m, shown->state)) (*rep.mutable_final_values())[k] = v;
    res.trace = MakeTrace(m, *shown);
    res.has_trace = true;
  }
  return res;
}

namespace {

// What a trace recorded: the per-word modification order (word -> writers (agent, site)
// in order) and the snapshot (blocked agents as "name@site", word values).
struct Recording {
  std::map<uint64_t, std::vector<std::pair<int, std::string>>> order;
  std::set<std::string> blocked;
  std::map<std::string, int64_t> values;
};

absl::StatusOr<Recording> ReadRecording(const Machine& m, const SignalTrace& trace,
                                        const std::string& origin) {
  const Program& p = m.program();
  Recording rec;
  std::vector<std::pair<int64_t, const SignalEvent*>> writes;
  for (const SignalEvent& e : trace.events()) {
    if (e.what() != "write" || e.object().empty()) continue;
    writes.push_back({e.mo(), &e});
  }
  for (const auto& [mo, e] : writes) {
    int a = FindAgent(m, e->rank(), e->cta(), e->kernel(), e->stream(), e->launch());
    uint64_t key = WordKey(p.FindObject(e->object()), e->word_rank(), e->index());
    rec.order[key].push_back({a, e->site()});
  }
  for (const SignalAgentSnapshot& sa : trace.snapshot().agents()) {
    if (sa.state() != WAITING && sa.state() != NOT_STARTED) continue;
    int a = FindAgent(m, sa.rank(), sa.cta(), sa.kernel(), sa.stream(), sa.launch());
    if (a < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          origin, ": snapshot names an agent the program does not have (rank ", sa.rank(),
          sa.stream().empty() ? absl::StrCat(" cta ", sa.cta()) : " stream " + sa.stream(), ")"));
    rec.blocked.insert(
        absl::StrCat(m.info(a).name, "@", sa.state() == NOT_STARTED ? "not_started" : sa.site()));
  }
  for (const SignalWordValue& w : trace.snapshot().words()) {
    int o = p.FindObject(w.object());
    if (w.value() != p.objects[o].init)
      rec.values[m.WordName(o, w.rank(), w.index())] = w.value();
  }
  return rec;
}

// Whether the blocked agents of `st` are the snapshot's (`recorded`, "name@site"). A CTA
// of a launch that has not happened yet is "not started" in a snapshot (MakeTrace writes
// it so, and a GPU watchdog cannot tell the two apart) but not blocked in the machine, so
// it matches either way: present in the snapshot as "@not_started", or absent.
bool SnapshotMatches(const Machine& m, const State& st, const std::set<std::string>& recorded) {
  std::vector<std::string> b = BlockedSignature(m, st);
  std::set<std::string> got(b.begin(), b.end());
  for (int a = 0; a < m.num_agents(); ++a) {
    if (m.info(a).kind != AgentKind::kCta || st.agents[a].status != Status::kNotLaunched)
      continue;
    const std::string name = absl::StrCat(m.info(a).name, "@not_started");
    if (recorded.count(name)) got.insert(name);
  }
  return got == recorded;
}

// The trace's events stepped in order as one schedule (each event one step of its agent;
// the lane of a polling lane from the event). Ensures: the terminal reached, or nullopt
// when an event names no agent, is not enabled where it comes, or the run does not end
// with the last event.
std::optional<Terminal> StepRecorded(const Machine& m, const SignalTrace& trace) {
  if (trace.events().empty()) return std::nullopt;
  const Program& p = m.program();
  State s = m.Initial();
  Terminal t;
  std::vector<Transition> en;
  for (const SignalEvent& e : trace.events()) {
    const int a = FindAgent(m, e.rank(), e.cta(), e.kernel(), e.stream(), e.launch());
    if (a < 0) return std::nullopt;
    const int op = s.agents[a].status == Status::kRunning ? m.CurrentOp(s, a) : -1;
    const bool lanes = op >= 0 && (p.ops[op].kind == WAIT || p.ops[op].kind == WAIT_UNTIL);
    const Transition tr{a, lanes ? e.lane() : -1};
    m.Enabled(s, &en);
    if (std::find(en.begin(), en.end(), tr) == en.end()) return std::nullopt;
    Event ev;
    m.Step(s, tr, &ev);
    // The step must do what the event says it did (the same kind, word and value).
    if (ev.what != e.what()) return std::nullopt;
    if (!e.object().empty()) {
      const int o = p.FindObject(e.object());
      if (o < 0 || !ev.has_word || ev.word != WordKey(o, e.word_rank(), e.index()))
        return std::nullopt;
      if (e.what() == "write" && ev.after != e.value()) return std::nullopt;
    }
    t.trail.push_back(std::move(ev));
  }
  m.Enabled(s, &en);
  if (!en.empty()) return std::nullopt;
  t.race = s.race_count > 0;
  t.ending = !s.fault.empty() ? Ending::kFault
             : m.Done(s)      ? Ending::kCompletes
                              : Ending::kDeadlock;
  t.state = std::move(s);
  return t;
}

// Why the replay did not reproduce the recording (t: the terminal it reached, or null).
std::string DescribeDivergence(const Machine& m, const Recording& rec, const Terminal* t) {
  if (!t) return "no schedule follows the recorded modification order from the start";
  // First divergence: the first word whose recorded order the replay could not follow.
  for (const auto& [key, list] : rec.order) {
    const Word* w = nullptr;
    if (auto wi = t->state.words.find(key); wi != t->state.words.end()) w = &wi->second;
    size_t got = w ? w->hist.size() : 0;
    if (got < list.size())
      return absl::StrCat(m.WordName(key), ": recorded write #", got + 1, " by ",
                          list[got].first >= 0 ? m.info(list[got].first).name : "?", " at ",
                          list[got].second, " never happens in the replay (", got, " of ",
                          list.size(), " recorded writes reproduced)");
  }
  if (t->ending == Ending::kDeadlock)
    return absl::StrCat(rec.order.empty() ? "no interleaving hangs as the snapshot does; " : "",
                        "the replay hangs with [",
                        absl::StrJoin(BlockedSignature(m, t->state), ", "),
                        "] but the snapshot recorded [", absl::StrJoin(rec.blocked, ", "), "]");
  if (t->ending == Ending::kCompletes && !rec.blocked.empty())
    return "every recorded write was reproduced and the replay completes: the "
           "recorded hang is not reachable under this program";
  return "";
}

// --explore-nearby: whether every interleaving hangs or the hang was timing-dependent.
void ExploreNearby(const Machine& m, int64_t max_states, SignalReport& rep) {
  ExploreOptions all;
  all.max_states = max_states;
  ExploreResult n = Explore(m, all);
  (*rep.mutable_outcome_counts())["completes"] = n.completes;
  (*rep.mutable_outcome_counts())["deadlock"] = n.deadlocks;
  if (n.bound_hit && n.completes == 0) rep.set_nearby(SignalNearby::inconclusive);
  else
    rep.set_nearby(n.completes == 0 && n.deadlocks > 0 ? SignalNearby::inevitable
                                                       : SignalNearby::timing_dependent);
  absl::StrAppend(rep.mutable_explanation()->mutable_text(), "\nnearby interleavings: ",
                  base::EnumName(rep.nearby()), " (", n.deadlocks, " deadlocking and ", n.completes,
                  " completing terminal states over ", n.states, " states)");
}

}  // namespace

absl::StatusOr<RunResult> Replay(const Program& p, const SignalTrace& trace,
                                 const std::string& origin, const ReplayOptions& opt) {
  ASSIGN_OR_RETURN(Machine m, Machine::Create(p));
  RETURN_IF_ERROR(ValidateTrace(m, trace, origin));
  ASSIGN_OR_RETURN(const Recording rec, ReadRecording(m, trace, origin));
  const auto& order = rec.order;
  auto allow = [&](const State& s, const Transition& t) {
    State c = s;
    Event ev;
    m.Step(c, t, &ev);
    if (ev.what != "write" || !ev.has_word) return true;
    auto it = order.find(ev.word);
    if (it == order.end()) return false;  // a write the recording never saw
    const Word* w = nullptr;
    if (auto wi = s.words.find(ev.word); wi != s.words.end()) w = &wi->second;
    size_t idx = w ? w->hist.size() : 0;
    if (idx >= it->second.size()) return false;
    return it->second[idx].first == ev.agent &&
           (it->second[idx].second.empty() || ev.op < 0 ||
            it->second[idx].second == p.ops[ev.op].site);
  };
  auto snapshot_matches = [&](const State& st) {
    return SnapshotMatches(m, st, rec.blocked) && FinalValues(m, st) == rec.values;
  };
  ExploreOptions eo;
  eo.schedule = "explore";
  eo.max_states = opt.max_states > 0 ? opt.max_states : p.max_states;
  // The deadlock kept is one that matches the snapshot, when one is reached (not merely
  // the first: under the recorded write order a different hang may come first).
  eo.prefer = snapshot_matches;
  if (order.empty()) {
    // A snapshot without recorded writes (e.g. from the GPU watchdog): search every
    // interleaving for a hang that matches it.
    eo.reduce = true;
  } else {
    eo.reduce = false;
    eo.allow = allow;
  }
  auto matches = [&](const Terminal& t) {
    if (t.ending != Ending::kDeadlock || !snapshot_matches(t.state)) return false;
    // Every recorded write must have happened, in the recorded order.
    for (const auto& [key, list] : order) {
      auto wi = t.state.words.find(key);
      if (wi == t.state.words.end() || wi->second.hist.size() < list.size()) return false;
    }
    return true;
  };
  // A trace that records every step (MakeTrace's) is first stepped exactly as recorded;
  // the search under the recorded write order is for traces that record less (a GPU
  // snapshot) or whose schedule does not run here.
  ExploreResult r;
  std::optional<Terminal> exact = StepRecorded(m, trace);
  if (exact && (matches(*exact) ||
                (exact->ending == Ending::kCompletes && rec.blocked.empty()))) {
    r.states = r.transitions = static_cast<int64_t>(exact->trail.size());
    (exact->ending == Ending::kDeadlock ? r.first_deadlock : r.first_complete) =
        std::move(*exact);
  } else {
    r = Explore(m, eo);
  }
  RunResult res;
  SignalReport& rep = res.report;
  rep.set_schedule("replay");
  FillCounts(r, &rep);
  if (r.first_deadlock && matches(*r.first_deadlock)) {
    const Terminal* match = &*r.first_deadlock;
    rep.set_replay(SignalReport::reproduced);
    *rep.mutable_explanation() = ExplainDeadlock(m, match->state);
    rep.set_outcome(SignalReport::deadlock);
    FillTrail(*match, &rep);
  } else if (r.bound_hit) {
    // Not found within the bound is not "diverged": no verdict on the recording.
    rep.set_outcome(SignalReport::inconclusive);
    rep.mutable_explanation()->set_text(absl::StrCat(
        BoundHitText(eo.max_states, eo.max_memory_bytes, r),
        "; no run that matches the recording was found within it, and none is excluded"));
  } else {
    const Terminal* t = r.first_deadlock ? &*r.first_deadlock
                        : r.first_complete ? &*r.first_complete
                                           : r.first_fault ? &*r.first_fault : nullptr;
    const std::string divergence = DescribeDivergence(m, rec, t);
    if (t) FillTrail(*t, &rep);
    rep.set_replay(t && t->ending == Ending::kCompletes && rec.blocked.empty()
                       ? SignalReport::completed
                       : SignalReport::diverged);
    rep.set_divergence(divergence);
    rep.set_outcome(t && t->ending == Ending::kDeadlock    ? SignalReport::deadlock
                    : t && t->ending == Ending::kCompletes ? SignalReport::completes
                                                           : SignalReport::fault);
    rep.mutable_explanation()->set_text(absl::StrCat("replay diverged: ", divergence));
  }
  if (opt.explore_nearby) ExploreNearby(m, eo.max_states, rep);
  return res;
}

}  // namespace warpcheck::sim::signal
