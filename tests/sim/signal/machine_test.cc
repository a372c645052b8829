// sim/signal/machine + explore: the semantics of sim/signal/README.md on small inline
// programs, checked through Machine::Step, Explore's terminal states and RunProgram.
#include "sim/signal/machine.h"

#include <bit>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/base/enum_name.h"
#include "sim/signal/explore.h"
#include "sim/signal/program.h"
#include "tests/sim/signal/signal_corpus_util.h"
#include "tests/testing/status_matchers.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using testing::Build;
using testing::Sim;

ExploreResult ExploreAll(const Sim& s, bool reduce = true, int64_t max_states = 200000) {
  ExploreOptions o;
  o.reduce = reduce;
  o.max_states = max_states;
  return Explore(*s.m, o);
}

RunResult RunSig(const Sim& s, bool reduce = true) {
  RunOptions o;
  o.reduce = reduce;
  o.max_states = 200000;
  absl::StatusOr<RunResult> r = RunProgram(*s.p, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : RunResult{};
}

int AgentNamed(const Machine& m, const std::string& name) {
  for (int a = 0; a < m.num_agents(); ++a)
    if (m.info(a).name == name) return a;
  ADD_FAILURE() << "no agent " << name;
  return -1;
}

int Lanes(const AgentState& as) {
  int n = 0;
  for (uint64_t w : as.lanes) n += std::popcount(w);
  return n;
}

std::set<std::string> Outcomes(const ExploreResult& r) {
  std::set<std::string> out;
  for (const TerminalSummary& t : r.terminals) out.insert(base::EnumName(t.outcome));
  return out;
}

// ---- notify scopes ---------------------------------------------------------------------

constexpr char kNotifyScopes[] = R"pb(
  name: "notify_scopes"
  ranks: 2
  objects { name: "G" size: "1" }
  objects { name: "P" size: "1" }
  kernels {
    name: "k"
    body {
      kind: IF
      cond: "r == 0"
      body { kind: NOTIFY object: "G" rank: "1" value: "7" scope: GPU }
      body { kind: NOTIFY object: "P" rank: "1" value: "9" scope: INTRA_NODE }
    }
  }
)pb";

TEST(MachineTest, NotifyGpuScopeWritesTheLocalWordEvenWithARank) {
  Sim s = Build(kNotifyScopes);
  ASSERT_NE(s.m, nullptr);
  ExploreResult r = ExploreAll(s);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_EQ(r.deadlocks, 0);
  ASSERT_EQ(r.terminals.size(), 1u);
  EXPECT_EQ(r.terminals[0].outcome, SignalTerminal::completes);
  // scope=gpu: the rank operand is dropped (rank 0's own G); intra_node: the peer's P.
  EXPECT_THAT(r.terminals[0].values, UnorderedElementsAre(Pair("G@0[0]", 7), Pair("P@1[0]", 9)));
}

TEST(MachineTest, NotifyGpuScopeStepByStep) {
  Sim s = Build(kNotifyScopes);
  ASSERT_NE(s.m, nullptr);
  const Machine& m = *s.m;
  State st = m.Initial();
  // Only the two host streams can move: their LAUNCH.
  std::vector<Transition> en;
  m.Enabled(st, &en);
  ASSERT_EQ(en.size(), 2u);
  const int stream0 = AgentNamed(m, "rank0.k");
  const int cta0 = AgentNamed(m, "rank0.cta0");
  Event ev;
  m.Step(st, {stream0, -1}, &ev);
  EXPECT_EQ(ev.what, "launch");
  EXPECT_EQ(st.agents[cta0].status, Status::kRunning);  // no cta_slots: starts with the launch
  m.Step(st, {cta0, -1}, &ev);
  EXPECT_EQ(ev.what, "write");
  ASSERT_TRUE(ev.has_word);
  EXPECT_EQ(m.WordName(ev.word), "G@0[0]");
  EXPECT_EQ(ev.before, 0);
  EXPECT_EQ(ev.after, 7);
  m.Step(st, {cta0, -1}, &ev);
  EXPECT_EQ(m.WordName(ev.word), "P@1[0]");
  EXPECT_EQ(st.agents[cta0].status, Status::kExited);
  EXPECT_THAT(FinalValues(m, st), UnorderedElementsAre(Pair("G@0[0]", 7), Pair("P@1[0]", 9)));
}

// ---- WAIT lane counts (dl.wait lowering) -------------------------------------------------

// Rank 0 sets SIG@1[0..32) one by one; rank 1 waits on [0, 0 + COUNT) == 1. Words 32..39
// are never written.
std::string WaitCountProgram(const std::string& backend, const std::string& count) {
  return R"pb(
    name: "wait_count"
    ranks: 2
    backend: ")pb" +
         backend + R"pb("
    objects { name: "SIG" size: "40" }
    kernels {
      name: "k"
      body {
        kind: IF
        cond: "r == 0"
        body {
          kind: FOR
          var: "i"
          to: "32"
          body { kind: NOTIFY object: "SIG" rank: "1" index: "i" scope: INTRA_NODE }
        }
        else_body { kind: WAIT site: "w" object: "SIG" rank: "1" count: ")pb" +
         count + R"pb(" value: "1" scope: SYS }
      }
    }
  )pb";
}

// The polling lanes of rank 1's wait right after its launch.
int ArmedLanes(const Sim& s) {
  const Machine& m = *s.m;
  State st = m.Initial();
  m.Step(st, {AgentNamed(m, "rank1.k"), -1}, nullptr);
  const AgentState& as = st.agents[AgentNamed(m, "rank1.cta0")];
  if (as.status == Status::kExited) return 0;
  EXPECT_TRUE(as.wait_armed);
  return Lanes(as);
}

TEST(MachineTest, NvidiaWaitCount40PollsOnly32Lanes) {
  Sim s = Build(WaitCountProgram("nvidia", "40"));
  ASSERT_NE(s.m, nullptr);
  EXPECT_EQ(ArmedLanes(s), 32);
  // Word 35 (indeed 32..39) is never set, and still every execution completes.
  ExploreResult r = ExploreAll(s);
  ASSERT_FALSE(r.bound_hit) << r.states;
  EXPECT_EQ(r.deadlocks, 0);
  EXPECT_GT(r.completes, 0);
  EXPECT_THAT(Outcomes(r), ElementsAre("completes"));
  for (const TerminalSummary& t : r.terminals) {
    EXPECT_EQ(t.values.size(), 32u);
    EXPECT_EQ(t.values.count("SIG@1[35]"), 0u);
  }
  RunResult rr = RunSig(s);
  EXPECT_EQ(rr.report.outcome(), SignalReport::completes);
}

TEST(MachineTest, AmdWaitPollsEveryWord) {
  Sim s = Build(WaitCountProgram("amd", "40"));
  ASSERT_NE(s.m, nullptr);
  EXPECT_EQ(ArmedLanes(s), 40);
  ExploreResult r = ExploreAll(s);
  ASSERT_FALSE(r.bound_hit) << r.states;
  EXPECT_EQ(r.completes, 0);
  EXPECT_GT(r.deadlocks, 0);
  for (const TerminalSummary& t : r.terminals) {
    EXPECT_EQ(t.outcome, SignalTerminal::deadlock);
    EXPECT_THAT(t.blocked, Contains("rank1.cta0@w"));
    EXPECT_EQ(t.values.size(), 32u);  // every notify happened
  }
  RunResult rr = RunSig(s);
  EXPECT_EQ(rr.report.outcome(), SignalReport::deadlock);
  EXPECT_EQ(rr.report.explanation().cause(), SignalExplanation::missing_notify);
  ASSERT_GE(rr.report.explanation().blocked_size(), 1);
  bool found = false;
  for (const SignalBlocked& b : rr.report.explanation().blocked())
    if (b.rank() == 1 && b.cta() == 0) {
      found = true;
      EXPECT_EQ(b.site(), "w");
      EXPECT_EQ(b.word(), "SIG@1[32]");  // the first lane still polling
      EXPECT_EQ(b.expected(), 1);
      EXPECT_EQ(b.observed(), 0);
    }
  EXPECT_TRUE(found);
}

TEST(MachineTest, NegativeCountIsUnsignedOnNvidiaAndSignedOnAmd) {
  // NVIDIA: -1 compares as unsigned, so 32 lanes poll; words 32.. are never written but
  // 0..31 are, so count -1 with 32 notifies completes. Make rank 0 notify only word 0:
  // then lanes 1..31 hang.
  const std::string one_notify = R"pb(
    name: "neg"
    ranks: 2
    backend: "%s"
    objects { name: "SIG" size: "32" }
    kernels {
      name: "k"
      body {
        kind: IF
        cond: "r == 0"
        body { kind: NOTIFY object: "SIG" rank: "1" scope: INTRA_NODE }
        else_body { kind: WAIT site: "w" object: "SIG" rank: "1" count: "-1" value: "1" scope: SYS }
      }
    }
  )pb";
  auto with = [&](const std::string& backend) {
    std::string t = one_notify;
    t.replace(t.find("%s"), 2, backend);
    return t;
  };
  Sim nv = Build(with("nvidia"));
  ASSERT_NE(nv.m, nullptr);
  EXPECT_EQ(ArmedLanes(nv), 32);
  ExploreResult r = ExploreAll(nv);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_EQ(r.completes, 0);
  EXPECT_GT(r.deadlocks, 0);
  for (const TerminalSummary& t : r.terminals) EXPECT_THAT(t.blocked, Contains("rank1.cta0@w"));
  RunResult rr = RunSig(nv);
  EXPECT_EQ(rr.report.outcome(), SignalReport::deadlock);
  // The lint says why.
  bool lint = false;
  for (const SignalLint& l : rr.report.lints()) lint |= l.id() == SignalLint::wait_count_over_32;
  EXPECT_TRUE(lint);

  Sim amd = Build(with("amd"));
  ASSERT_NE(amd.m, nullptr);
  EXPECT_EQ(ArmedLanes(amd), 0);  // the wait passes at once
  ExploreResult ra = ExploreAll(amd);
  ASSERT_FALSE(ra.bound_hit);
  EXPECT_EQ(ra.deadlocks, 0);
  EXPECT_THAT(Outcomes(ra), ElementsAre("completes"));
}

// ---- monotone adds and == waits (C01) -----------------------------------------------------

constexpr char kTwoCtaAdd[] = R"pb(
  name: "two_cta_add"
  ranks: 2
  ctas: 2
  objects { name: "SIG" size: "1" }
  kernels {
    name: "k"
    grid: "select(r == 0, G, 1)"
    body {
      kind: IF
      cond: "r == 0"
      body { kind: NOTIFY object: "SIG" rank: "1" sig_op: ADD scope: INTRA_NODE }
      else_body { kind: WAIT site: "w" object: "SIG" rank: "1" value: "1" scope: SYS }
    }
  }
)pb";

TEST(MachineTest, AddFromTwoCtasWithEqWaitIsNondeterministic) {
  Sim s = Build(kTwoCtaAdd);
  ASSERT_NE(s.m, nullptr);
  for (bool reduce : {true, false}) {
    SCOPED_TRACE(reduce ? "reduced" : "unreduced");
    ExploreResult r = ExploreAll(s, reduce);
    ASSERT_FALSE(r.bound_hit);
    EXPECT_GT(r.deadlocks, 0);
    EXPECT_GT(r.completes, 0);
    ASSERT_TRUE(r.first_deadlock.has_value());
    ASSERT_TRUE(r.first_complete.has_value());
    // Both adds always land: the value is 2 either way; what differs is whether rank 1
    // sampled the word between them.
    bool saw_deadlock = false, saw_complete = false;
    for (const TerminalSummary& t : r.terminals) {
      EXPECT_THAT(t.values, ElementsAre(Pair("SIG@1[0]", 2)));
      if (t.outcome == SignalTerminal::deadlock) {
        saw_deadlock = true;
        EXPECT_THAT(t.blocked, Contains("rank1.cta0@w"));
      }
      saw_complete |= t.outcome == SignalTerminal::completes;
    }
    EXPECT_TRUE(saw_deadlock);
    EXPECT_TRUE(saw_complete);
  }
  RunResult rr = RunSig(s);
  EXPECT_EQ(rr.report.outcome(), SignalReport::nondeterministic);
  EXPECT_EQ(rr.report.explanation().cause(), SignalExplanation::overshoot);
  EXPECT_THAT(rr.report.explanation().deciding(), HasSubstr("SIG@1[0]"));
}

TEST(MachineTest, AddWithGeWaitAlwaysCompletes) {
  // The same adds with `wait_until >= 1` (a GE compare) cannot overshoot.
  std::string text = kTwoCtaAdd;
  const std::string from = "kind: WAIT site: \"w\"";
  text.replace(text.find(from), from.size(), "kind: WAIT_UNTIL site: \"w\" cmp: GE");
  Sim s = Build(text);
  ASSERT_NE(s.m, nullptr);
  ExploreResult r = ExploreAll(s, false);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_EQ(r.deadlocks, 0);
  EXPECT_THAT(Outcomes(r), ElementsAre("completes"));
}

// ---- publication: syncthreads (C08) and consume tokens (C11) ------------------------------

std::string Publish(bool syncthreads, const std::string& store_by, const std::string& after) {
  return std::string(R"pb(
    name: "publish"
    ranks: 2
    objects { name: "SIG" size: "1" }
    objects { name: "D" dtype: F32 size: "64" }
    kernels {
      name: "k"
      threads: 64
      body {
        kind: IF
        cond: "r == 0"
        body { kind: STORE site: "st" object: "D" rank: "1" count: "64" tag: "1" by: )pb") +
         store_by + " }\n" + (syncthreads ? "body { kind: SYNCTHREADS }\n" : "") + R"pb(
        body { kind: NOTIFY object: "SIG" rank: "1" scope: INTRA_NODE }
        else_body { kind: WAIT object: "SIG" rank: "1" value: "1" scope: SYS sem: ACQUIRE token: "t" }
        else_body { kind: LOAD site: "ld" object: "D" rank: "1" count: "64" expect: "1" )pb" +
         after + R"pb( }
      }
    }
  )pb";
}

TEST(MachineTest, SyncthreadsBeforeNotifyRemovesTheC08Race) {
  // Other threads store, thread 0 notifies: without syncthreads its fence does not cover
  // their stores.
  Sim racy = Build(Publish(false, "OTHER_THREADS", "after: \"t\""));
  ASSERT_NE(racy.m, nullptr);
  ExploreResult r = ExploreAll(racy);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_EQ(r.deadlocks, 0);
  EXPECT_GT(r.races, 0);
  ASSERT_TRUE(r.first_race.has_value());
  ASSERT_FALSE(r.first_race->state.races.empty());
  const RaceRecord& race = r.first_race->state.races.front();
  EXPECT_EQ(race.kind, SignalRace::read_unpublished);
  EXPECT_EQ(racy.p->ops[race.op].site, "ld");
  EXPECT_EQ(racy.p->ops[race.other_op].site, "st");
  RunResult rr = RunSig(racy);
  EXPECT_EQ(rr.report.outcome(), SignalReport::race);
  EXPECT_EQ(rr.report.explanation().cause(), SignalExplanation::data_race);

  Sim fixed = Build(Publish(true, "OTHER_THREADS", "after: \"t\""));
  ASSERT_NE(fixed.m, nullptr);
  ExploreResult f = ExploreAll(fixed);
  ASSERT_FALSE(f.bound_hit);
  EXPECT_EQ(f.races, 0);
  EXPECT_EQ(f.deadlocks, 0);
  EXPECT_EQ(RunSig(fixed).report.outcome(), SignalReport::completes);

  // Stores by thread 0 itself need no syncthreads: the notify's fence covers them.
  Sim t0 = Build(Publish(false, "THREAD0", "after: \"t\""));
  ASSERT_NE(t0.m, nullptr);
  EXPECT_EQ(ExploreAll(t0).races, 0);
}

TEST(MachineTest, LoadWithoutAfterRacesButWithTokenDoesNot) {
  Sim floating = Build(Publish(true, "ALL_THREADS", ""));
  ASSERT_NE(floating.m, nullptr);
  ExploreResult r = ExploreAll(floating);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_GT(r.races, 0);
  ASSERT_TRUE(r.first_race.has_value());
  EXPECT_EQ(r.first_race->state.races.front().kind, SignalRace::read_unpublished);
  EXPECT_EQ(RunSig(floating).report.outcome(), SignalReport::race);

  Sim tokened = Build(Publish(true, "ALL_THREADS", "after: \"t\""));
  ASSERT_NE(tokened.m, nullptr);
  ExploreResult f = ExploreAll(tokened);
  ASSERT_FALSE(f.bound_hit);
  EXPECT_EQ(f.races, 0);
  EXPECT_EQ(RunSig(tokened).report.outcome(), SignalReport::completes);
}

// ---- co-residency ----------------------------------------------------------------------

std::string CoResidency(int ctas, int slots, const std::string& notifier_cond) {
  return absl::StrCat(R"pb(
    name: "coresidency"
    ranks: 1
    ctas: )pb",
                      ctas, "\ncta_slots: ", slots, R"pb(
    objects { name: "FLAG" size: "1" }
    kernels {
      name: "k"
      body {
        kind: IF
        cond: ")pb",
                      notifier_cond, R"pb("
        body { kind: NOTIFY site: "n" object: "FLAG" scope: GPU }
        else_body { kind: WAIT site: "w" object: "FLAG" value: "1" scope: GPU }
      }
    }
  )pb");
}

TEST(MachineTest, CoResidencyWithCtaSlots) {
  // The last CTA notifies; CTAs start in id order, so with one slot too few the waiters
  // hold every slot and the notifier never starts.
  Sim hang = Build(CoResidency(3, 2, "c == G - 1"));
  ASSERT_NE(hang.m, nullptr);
  ExploreResult r = ExploreAll(hang, false);
  ASSERT_FALSE(r.bound_hit);
  EXPECT_EQ(r.completes, 0);
  ASSERT_EQ(r.terminals.size(), 1u);
  EXPECT_THAT(r.terminals[0].blocked,
              ElementsAre("rank0.cta0@w", "rank0.cta1@w", "rank0.cta2@not_started",
                          "rank0.k@launch k"));
  RunResult rr = RunSig(hang);
  EXPECT_EQ(rr.report.outcome(), SignalReport::deadlock);
  EXPECT_EQ(rr.report.explanation().cause(), SignalExplanation::co_residency);

  // Enough slots, or unlimited ones: completes.
  for (int slots : {3, 0}) {
    Sim fits = Build(CoResidency(3, slots, "c == G - 1"));
    ASSERT_NE(fits.m, nullptr);
    ExploreResult f = ExploreAll(fits, false);
    ASSERT_FALSE(f.bound_hit);
    EXPECT_EQ(f.deadlocks, 0) << "slots " << slots;
    EXPECT_THAT(Outcomes(f), ElementsAre("completes")) << "slots " << slots;
  }

  // The notifier first: it exits and frees its slot for CTA 2, which then sees the flag.
  Sim first = Build(CoResidency(3, 2, "c == 0"));
  ASSERT_NE(first.m, nullptr);
  ExploreResult f = ExploreAll(first, false);
  ASSERT_FALSE(f.bound_hit);
  EXPECT_EQ(f.deadlocks, 0);
  EXPECT_THAT(Outcomes(f), ElementsAre("completes"));
}

TEST(MachineTest, CtaStartTakesASlotAndExitFreesIt) {
  Sim s = Build(CoResidency(3, 2, "c == 0"));
  ASSERT_NE(s.m, nullptr);
  const Machine& m = *s.m;
  State st = m.Initial();
  m.Step(st, {AgentNamed(m, "rank0.k"), -1}, nullptr);
  const int c0 = AgentNamed(m, "rank0.cta0"), c1 = AgentNamed(m, "rank0.cta1"),
            c2 = AgentNamed(m, "rank0.cta2");
  EXPECT_EQ(st.agents[c0].status, Status::kNotStarted);
  EXPECT_TRUE(m.AgentEnabled(st, c0));
  EXPECT_FALSE(m.AgentEnabled(st, c1));  // CTAs start in id order
  Event ev;
  m.Step(st, {c0, -1}, &ev);
  EXPECT_EQ(ev.what, "start");
  m.Step(st, {c1, -1}, &ev);
  EXPECT_EQ(st.slots_used[0], 2);
  EXPECT_FALSE(m.AgentEnabled(st, c2));  // no free slot
  m.Step(st, {c0, -1}, &ev);             // the notify; CTA 0 exits
  EXPECT_EQ(st.agents[c0].status, Status::kExited);
  EXPECT_EQ(st.slots_used[0], 1);
  EXPECT_TRUE(m.AgentEnabled(st, c2));
}

// ---- P2P atomics (C27) --------------------------------------------------------------------

std::string RemoteAdds(bool native) {
  return absl::StrCat(R"pb(
    name: "remote_adds"
    ranks: 3
    no_native_p2p_atomics: )pb",
                      native ? "false" : "true", R"pb(
    objects { name: "SIG" size: "1" }
    kernels {
      name: "k"
      body {
        kind: IF
        cond: "r == 0"
        body { kind: WAIT site: "w" object: "SIG" rank: "0" value: "2" scope: SYS }
        else_body { kind: NOTIFY object: "SIG" rank: "0" sig_op: ADD scope: INTRA_NODE }
      }
    }
  )pb");
}

TEST(MachineTest, NonAtomicRemoteAddCanLoseAnUpdate) {
  Sim s = Build(RemoteAdds(false));
  ASSERT_NE(s.m, nullptr);
  for (bool reduce : {true, false}) {
    SCOPED_TRACE(reduce ? "reduced" : "unreduced");
    ExploreResult r = ExploreAll(s, reduce);
    ASSERT_FALSE(r.bound_hit);
    bool lost = false, both = false;
    for (const TerminalSummary& t : r.terminals) {
      if (t.outcome == SignalTerminal::deadlock) {
        EXPECT_THAT(t.values, ElementsAre(Pair("SIG@0[0]", 1)));
        EXPECT_THAT(t.blocked, Contains("rank0.cta0@w"));
        lost = true;
      } else {
        EXPECT_EQ(t.outcome, SignalTerminal::completes);
        EXPECT_THAT(t.values, ElementsAre(Pair("SIG@0[0]", 2)));
        both = true;
      }
    }
    EXPECT_TRUE(lost);
    EXPECT_TRUE(both);
  }
  RunResult rr = RunSig(s);
  EXPECT_EQ(rr.report.outcome(), SignalReport::nondeterministic);
  EXPECT_EQ(rr.report.explanation().cause(), SignalExplanation::lost_update);

  // Native atomics: never lost.
  Sim native = Build(RemoteAdds(true));
  ASSERT_NE(native.m, nullptr);
  ExploreResult n = ExploreAll(native, false);
  ASSERT_FALSE(n.bound_hit);
  EXPECT_EQ(n.deadlocks, 0);
  for (const TerminalSummary& t : n.terminals)
    EXPECT_THAT(t.values, ElementsAre(Pair("SIG@0[0]", 2)));
}

TEST(MachineTest, NonAtomicRemoteAddIsAReadStepThenAWriteStep) {
  Sim s = Build(RemoteAdds(false));
  ASSERT_NE(s.m, nullptr);
  const Machine& m = *s.m;
  State st = m.Initial();
  m.Step(st, {AgentNamed(m, "rank1.k"), -1}, nullptr);
  m.Step(st, {AgentNamed(m, "rank2.k"), -1}, nullptr);
  const int a1 = AgentNamed(m, "rank1.cta0"), a2 = AgentNamed(m, "rank2.cta0");
  Event ev;
  m.Step(st, {a1, -1}, &ev);
  EXPECT_EQ(ev.what, "read");
  m.Step(st, {a2, -1}, &ev);
  EXPECT_EQ(ev.what, "read");
  m.Step(st, {a1, -1}, &ev);
  EXPECT_EQ(ev.what, "write");
  EXPECT_EQ(ev.after, 1);
  m.Step(st, {a2, -1}, &ev);
  EXPECT_EQ(ev.what, "write");
  EXPECT_EQ(ev.after, 1);  // both read 0: one increment is lost
  const Word& w = st.words.begin()->second;
  ASSERT_EQ(w.hist.size(), 2u);
  EXPECT_TRUE(w.hist.back().lost);
}

// ---- determinism ---------------------------------------------------------------------------

TEST(MachineTest, StepIsDeterministicAndHashStable) {
  Sim s = Build(kTwoCtaAdd);
  ASSERT_NE(s.m, nullptr);
  const Machine& m = *s.m;
  auto fifo = [&]() {
    State st = m.Initial();
    std::vector<Transition> en;
    std::vector<uint64_t> hashes;
    for (m.Enabled(st, &en); !en.empty(); m.Enabled(st, &en)) {
      m.Step(st, en.front(), nullptr);
      hashes.push_back(m.Hash(st));
    }
    return hashes;
  };
  std::vector<uint64_t> a = fifo(), b = fifo();
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(m.Hash(m.Initial()), m.Hash(m.Initial()));
}

// Issue 14 item 2: an RMW returns the value it read. Each rank adds 1 to CNT@0[0] and
// publishes what its add returned (+100) in its own OUT word. Rank 1's add is remote
// without native P2P atomics (a read step, then a write step): when rank 0's add lands
// in between, rank 1's write loses it (CNT ends at 1) and rank 1 still returns the 0 it
// read, never the 1 the word held at its write step.
TEST(MachineTest, SplitAddReturnsTheValueItsReadStepSaw) {
  Sim s = Build(R"pb(
    ranks: 2
    ctas: 1
    no_native_p2p_atomics: true
    objects { name: "CNT" dtype: U64 size: "1" }
    objects { name: "OUT" dtype: U64 size: "1" }
    kernels {
      name: "k"
      body { kind: ATOMIC_ADD object: "CNT" rank: "0" index: "0" value: "1" scope: SYS sem: ACQ_REL result: "old" }
      body { kind: ST_SIGNAL object: "OUT" rank: "r" index: "0" value: "old + 100" scope: SYS sem: RELAXED }
    })pb");
  ASSERT_NE(s.m, nullptr);
  ExploreResult r = ExploreAll(s, /*reduce=*/false);
  ASSERT_FALSE(r.bound_hit);
  std::set<std::map<std::string, int64_t>> finals;
  for (const TerminalSummary& t : r.terminals) finals.insert(t.values);
  using V = std::map<std::string, int64_t>;
  EXPECT_EQ(finals, (std::set<V>{
                        // rank 1's read and write around rank 0's add: the lost update
                        V{{"CNT@0[0]", 1}, {"OUT@0[0]", 100}, {"OUT@1[0]", 100}},
                        // not overlapping, either order
                        V{{"CNT@0[0]", 2}, {"OUT@0[0]", 100}, {"OUT@1[0]", 101}},
                        V{{"CNT@0[0]", 2}, {"OUT@0[0]", 101}, {"OUT@1[0]", 100}},
                    }));
}

// The same for CAS (issue 14 item 2): without native P2P atomics rank 1's remote CAS is a
// read step (the compare) and a write step, and returns what its read saw. Rank 0's CAS
// is local (one step). So besides the two runs where one CAS wins and the loser returns
// the winner's value, rank 1 can read 0, rank 0 take the token, and rank 1 then write
// over it: both "win" (both return 0) and TOK ends as rank 1's value.
constexpr char kCasProgram[] = R"pb(
    ranks: 2
    ctas: 1
    no_native_p2p_atomics: NO_NATIVE
    objects { name: "TOK" dtype: U64 size: "1" }
    objects { name: "OUT" dtype: U64 size: "1" }
    kernels {
      name: "k"
      body { kind: ATOMIC_CAS object: "TOK" rank: "0" index: "0" compare: "0" value: "r + 1" scope: SYS sem: ACQ_REL result: "old" }
      body { kind: ST_SIGNAL object: "OUT" rank: "r" index: "0" value: "old + 100" scope: SYS sem: RELAXED }
    })pb";

std::set<std::map<std::string, int64_t>> CasFinals(bool native) {
  Sim s = Build(absl::StrReplaceAll(kCasProgram, {{"NO_NATIVE", native ? "false" : "true"}}));
  EXPECT_NE(s.m, nullptr);
  if (!s.m) return {};
  ExploreResult r = ExploreAll(s, /*reduce=*/false);
  EXPECT_FALSE(r.bound_hit);
  std::set<std::map<std::string, int64_t>> finals;
  for (const TerminalSummary& t : r.terminals) finals.insert(t.values);
  return finals;
}

TEST(MachineTest, SplitCasReturnsTheValueItsReadStepSaw) {
  using V = std::map<std::string, int64_t>;
  EXPECT_EQ(CasFinals(/*native=*/false),
            (std::set<V>{
                V{{"TOK@0[0]", 1}, {"OUT@0[0]", 100}, {"OUT@1[0]", 101}},
                V{{"TOK@0[0]", 2}, {"OUT@0[0]", 102}, {"OUT@1[0]", 100}},
                V{{"TOK@0[0]", 2}, {"OUT@0[0]", 100}, {"OUT@1[0]", 100}},  // both won
            }));
}

// With native P2P atomics the CAS is one step: compare, write and result see one value.
TEST(MachineTest, NativeCasReturnsTheValueItCompared) {
  using V = std::map<std::string, int64_t>;
  EXPECT_EQ(CasFinals(/*native=*/true),
            (std::set<V>{
                V{{"TOK@0[0]", 1}, {"OUT@0[0]", 100}, {"OUT@1[0]", 101}},
                V{{"TOK@0[0]", 2}, {"OUT@0[0]", 102}, {"OUT@1[0]", 100}},
            }));
}

}  // namespace
}  // namespace warpcheck::sim::signal
