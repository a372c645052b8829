// sim/signal/explain, lint and the trace round trip (driver.h: MakeTrace, ValidateTrace,
// Replay) on corpus/signal programs.
#include "sim/signal/explain.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/signal/driver.h"
#include "sim/signal/explore.h"
#include "sim/signal/lint.h"
#include "sim/signal/program.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/sanitized.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Each;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

struct Loaded {
  std::unique_ptr<Program> p;
  std::unique_ptr<Machine> m;
};

Loaded Load(const std::string& name) {
  Loaded l;
  absl::StatusOr<Program> p =
      LoadProgramFile(std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal/" + name);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return l;
  l.p = std::make_unique<Program>(*std::move(p));
  absl::StatusOr<Machine> m = Machine::Create(*l.p);
  EXPECT_TRUE(m.ok()) << m.status();
  if (m.ok()) l.m = std::make_unique<Machine>(*std::move(m));
  return l;
}

// The explanation of the first deadlocking terminal state the exploration finds.
SignalExplanation ExplainFirstDeadlock(const Loaded& l) {
  ExploreResult r = Explore(*l.m, ExploreOptions{});
  EXPECT_FALSE(r.bound_hit);
  EXPECT_TRUE(r.first_deadlock.has_value());
  if (!r.first_deadlock) return {};
  return ExplainDeadlock(*l.m, r.first_deadlock->state);
}

const SignalEdge* FindEdge(const SignalExplanation& e, const std::string& from,
                           const std::string& to) {
  for (const SignalEdge& x : e.edges())
    if (x.from() == from && x.to() == to) return &x;
  return nullptr;
}

// ---- ExplainDeadlock -----------------------------------------------------------------------

TEST(ExplainTest, C05MissingNotifyNamesTheNearestCandidate) {
  Loaded l = Load("c05_notify_wrong_rank.textproto");
  ASSERT_NE(l.m, nullptr);
  SignalExplanation e = ExplainFirstDeadlock(l);
  EXPECT_EQ(e.cause(), SignalExplanation::missing_notify);
  EXPECT_THAT(e.text(), HasSubstr("missing notify for SIG@1[0]"));
  EXPECT_THAT(e.text(), HasSubstr("nearest candidate: rank0.cta0 notify#1 wrote SIG@0[0]"));
  EXPECT_THAT(e.text(), HasSubstr("different rank"));
  ASSERT_GE(e.blocked_size(), 1);
  bool found = false;
  for (const SignalBlocked& b : e.blocked())
    if (b.rank() == 1 && b.cta() == 0) {
      found = true;
      EXPECT_EQ(b.site(), "wait#1");
      EXPECT_EQ(b.word(), "SIG@1[0]");
      EXPECT_EQ(b.expected(), 1);
      EXPECT_EQ(b.observed(), 0);
      EXPECT_EQ(b.cmp(), "EQ");
    }
  EXPECT_TRUE(found);
  // Nobody can write SIG@1[0]: no wait-for edge out of the waiter.
  for (const SignalEdge& x : e.edges()) EXPECT_NE(x.from(), "rank1.cta0") << x.to();
}

TEST(ExplainTest, C19CycleHasBothEdges) {
  Loaded l = Load("c19_two_rank_cycle.textproto");
  ASSERT_NE(l.m, nullptr);
  SignalExplanation e = ExplainFirstDeadlock(l);
  EXPECT_EQ(e.cause(), SignalExplanation::cycle);
  const SignalEdge* a = FindEdge(e, "rank0.cta0", "rank1.cta0");
  const SignalEdge* b = FindEdge(e, "rank1.cta0", "rank0.cta0");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->word(), "SIG@0[0]");
  EXPECT_EQ(a->site(), "notify#1");
  EXPECT_EQ(a->to_state(), SignalEdge::blocked);
  EXPECT_EQ(a->expected(), 1);
  EXPECT_EQ(a->observed(), 0);
  EXPECT_EQ(b->word(), "SIG@1[0]");
  EXPECT_EQ(b->site(), "notify#1");
  EXPECT_EQ(b->to_state(), SignalEdge::blocked);
  EXPECT_THAT(e.text(), AllOf(HasSubstr("SIG@0[0]"), HasSubstr("SIG@1[0]"),
                              HasSubstr("rank0.cta0 @ wait#1"), HasSubstr("rank1.cta0 @ wait#1")));
}

TEST(ExplainTest, C01OvershootListsTheWrites) {
  Loaded l = Load("c01_overshoot_add_eq.textproto");
  ASSERT_NE(l.m, nullptr);
  SignalExplanation e = ExplainFirstDeadlock(l);
  EXPECT_EQ(e.cause(), SignalExplanation::overshoot);
  EXPECT_THAT(e.text(), HasSubstr("SIG@1[0] passed the target 1"));
  EXPECT_THAT(e.text(), HasSubstr("waiting for 1"));
  EXPECT_THAT(e.text(), HasSubstr("value"));
  // The write that moved the word past the target: the second CTA's add.
  ASSERT_GE(e.writes_size(), 1);
  EXPECT_THAT(e.writes(), Each(AllOf(HasSubstr("add(+1) by rank0.cta"), HasSubstr("notify#1"))));
  EXPECT_THAT(e.writes(e.writes_size() - 1), HasSubstr("-> 2"));
  for (const std::string& w : e.writes()) EXPECT_THAT(e.text(), HasSubstr(w));
}

TEST(ExplainTest, C21ExitedWriter) {
  Loaded l = Load("c21_wait_on_exited_rank.textproto");
  ASSERT_NE(l.m, nullptr);
  SignalExplanation e = ExplainFirstDeadlock(l);
  EXPECT_EQ(e.cause(), SignalExplanation::exited_writer);
  EXPECT_THAT(e.text(), HasSubstr("rank2.cta0 exited early at exit#1"));
  EXPECT_THAT(e.text(), HasSubstr("putsig#1"));
  for (const char* waiter : {"rank0.cta0", "rank1.cta0"}) {
    const SignalEdge* x = FindEdge(e, waiter, "rank2.cta0");
    ASSERT_NE(x, nullptr) << waiter;
    EXPECT_EQ(x->to_state(), SignalEdge::exited);
    EXPECT_EQ(x->site(), "putsig#1");
  }
  EXPECT_EQ(FindEdge(e, "rank0.cta0", "rank2.cta0")->word(), "SIG@0[2]");
  EXPECT_EQ(FindEdge(e, "rank1.cta0", "rank2.cta0")->word(), "SIG@1[2]");
}

TEST(ExplainTest, C22CoResidency) {
  Loaded l = Load("c22_coresidency_hang.textproto");
  ASSERT_NE(l.m, nullptr);
  SignalExplanation e = ExplainFirstDeadlock(l);
  EXPECT_EQ(e.cause(), SignalExplanation::co_residency);
  EXPECT_THAT(e.text(), HasSubstr("rank0.cta2"));
  EXPECT_THAT(e.text(), HasSubstr("cannot start"));
  EXPECT_THAT(e.text(), HasSubstr("2 resident CTA slots"));
  for (const char* waiter : {"rank0.cta0", "rank0.cta1"}) {
    const SignalEdge* x = FindEdge(e, waiter, "rank0.cta2");
    ASSERT_NE(x, nullptr) << waiter;
    EXPECT_EQ(x->to_state(), SignalEdge::not_started);
    EXPECT_EQ(x->word(), "FLAG@0[0]");
  }
  bool not_started = false;
  for (const SignalBlocked& b : e.blocked()) not_started |= b.cta() == 2 && b.site() == "not_started";
  EXPECT_TRUE(not_started);
}

// The program-level cause ranks by the SignalExplanation.Cause enum, in the order that
// explain.h documents.
TEST(ExplainTest, CauseEnumIsTheRanking) {
  const std::vector<SignalExplanation::Cause> ranked = {
      SignalExplanation::scope_too_narrow, SignalExplanation::lost_update,
      SignalExplanation::reset_race,       SignalExplanation::overwrite,
      SignalExplanation::overshoot,        SignalExplanation::exited_writer,
      SignalExplanation::co_residency,     SignalExplanation::collective_mismatch,
      SignalExplanation::missing_notify,   SignalExplanation::cycle};
  for (size_t i = 0; i + 1 < ranked.size(); ++i) EXPECT_LT(ranked[i], ranked[i + 1]) << i;
}

// rank0 waits for a notify that rank1 sends only after its own wait, which nobody can
// satisfy: rank0's cause is a cycle through rank1, rank1's is missing_notify. The dead
// wait explains the program although rank0 comes first.
TEST(ExplainTest, HigherRankedCauseWinsOverAgentOrder) {
  SignalProgram proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "ranked_causes"
    ranks: 2
    ctas: 1
    objects { name: "SIG" dtype: U64 size: "2" init: 0 }
    kernels {
      name: "k"
      body {
        kind: IF
        cond: "r == 0"
        body { kind: WAIT site: "wait#0" object: "SIG" rank: "0" index: "0" value: "1" scope: SYS sem: ACQUIRE }
        else_body { kind: WAIT site: "wait#1" object: "SIG" rank: "1" index: "1" value: "1" scope: SYS sem: ACQUIRE }
        else_body { kind: NOTIFY site: "notify#1" object: "SIG" rank: "0" index: "0" value: "1" sig_op: SET scope: INTRA_NODE }
      }
    })pb", &proto));
  absl::StatusOr<Program> p = CompileProgram(proto, "inline.textproto");
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Machine> m = Machine::Create(*p);
  ASSERT_TRUE(m.ok()) << m.status();
  ExploreResult r = Explore(*m, ExploreOptions{});
  ASSERT_TRUE(r.first_deadlock.has_value());
  SignalExplanation e = ExplainDeadlock(*m, r.first_deadlock->state);
  EXPECT_EQ(e.cause(), SignalExplanation::missing_notify);
  EXPECT_THAT(e.text(), HasSubstr("cause: missing_notify: missing notify for SIG@1[1]"));
  // rank0 still has its edge to the (blocked) writer rank1.
  const SignalEdge* edge = FindEdge(e, "rank0.cta0", "rank1.cta0");
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ(edge->site(), "notify#1");
  EXPECT_EQ(edge->to_state(), SignalEdge::blocked);
}

// ---- Lint ---------------------------------------------------------------------------------

const SignalLint* FindLint(const std::vector<SignalLint>& lints, SignalLint::Id id) {
  for (const SignalLint& l : lints)
    if (l.id() == id) return &l;
  return nullptr;
}

// Issue 14 item 3: on every nondeterministic corpus program, the deciding interleaving
// names the step that decides and a word both schedules touch, diverging at that step:
// never "hangs when []" (a word the hang does not touch) and never two equal lists.
TEST(ExplainTest, DecidingStepOnEveryNondeterministicCorpusProgram) {
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(
           std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal")) {
    if (e.path().extension() != ".textproto") continue;
    absl::StatusOr<Program> p = LoadProgramFile(e.path().string());
    ASSERT_TRUE(p.ok()) << p.status();
    if (p->expect.outcome() != NONDETERMINISTIC) continue;
    ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(*p, {}));
    ASSERT_EQ(r.report.outcome(), SignalReport::nondeterministic) << e.path();
    const std::string& d = r.report.explanation().deciding();
    EXPECT_THAT(d, HasSubstr("decided at step ")) << e.path() << ": " << d;
    EXPECT_THAT(d, Not(HasSubstr("hangs when []"))) << e.path() << ": " << d;
    const size_t h = d.find("hangs when ["), c = d.find("; completes when [");
    ASSERT_NE(h, std::string::npos) << d;
    ASSERT_NE(c, std::string::npos) << d;
    EXPECT_NE(d.substr(h + 11, c - h - 11), d.substr(c + 17)) << e.path() << ": " << d;
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// Issue 14 item 3: C30's hang shows only a missing notify on GEN; the deciding step is
// the fast rank's round-2 add on CNT before the last arriver's reset, which is the cause.
TEST(ExplainTest, C30RootCauseIsTheUnorderedResetOfTheDecidingWord) {
  ASSERT_OK_AND_ASSIGN(Program p,
                       LoadProgramFile(std::string(WARPCHECK_SOURCE_DIR) +
                                       "/corpus/signal/c30_generation_barrier_reset_after_bump.textproto"));
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, {}));
  const SignalExplanation& e = r.report.explanation();
  EXPECT_EQ(e.cause(), SignalExplanation::reset_race);
  EXPECT_THAT(e.deciding(), HasSubstr("on CNT@0[0]: decided at step "));
  EXPECT_THAT(e.deciding(), HasSubstr("(CNT@0[0]: 2 -> 3); a completion takes rank1.cta0: "
                                      "st.relaxed.sys CNT@0[0] := 0"));
  EXPECT_THAT(e.text(), HasSubstr("the hang shows it as missing_notify"));
  EXPECT_THAT(e.writes(), ::testing::ElementsAre(HasSubstr("arrive -> 3"),
                                                 HasSubstr("reset_cnt -> 0")));
}

// The deciding-step search keeps the hang's path as checkpoints every 64 steps: C01's
// overshoot behind a 150-step preamble (the waiter's own stores to a private word) is
// decided at the second add, after the preamble, as in C01 itself.
TEST(ExplainTest, DecidingStepBehindALongPreamble) {
  SignalProgram proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "c01_with_preamble"
    ranks: 2
    ctas: 2
    objects { name: "SIG" dtype: U64 size: "1" init: 0 }
    objects { name: "MINE" dtype: U64 size: "1" init: 0 local: true }
    kernels {
      name: "k"
      grid: "select(r == 0, G, 1)"
      body {
        kind: IF
        cond: "r == 0"
        body { kind: NOTIFY site: "notify#1" object: "SIG" rank: "1" index: "0" value: "1" sig_op: ADD scope: INTRA_NODE }
        else_body {
          kind: FOR var: "i" from: "0" to: "150"
          body { kind: ST_SIGNAL site: "pre" object: "MINE" rank: "r" index: "0" value: "i + 1" scope: GPU sem: RELAXED }
        }
        else_body { kind: WAIT site: "wait#1" object: "SIG" rank: "1" index: "0" count: "1" value: "1" scope: SYS sem: ACQUIRE token: "t" }
      }
    })pb", &proto));
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(proto, "inline.textproto"));
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, {}));
  ASSERT_EQ(r.report.outcome(), SignalReport::nondeterministic);
  ASSERT_GT(r.report.trail_size(), 150);
  const std::string& d = r.report.explanation().deciding();
  EXPECT_THAT(d, HasSubstr("on SIG@1[0]: decided at step ")) << d;
  EXPECT_THAT(d, HasSubstr("(SIG@1[0]: 1 -> 2); a completion takes rank1.cta0: wait SIG@1[0]"))
      << d;
  const int step = std::stoi(d.substr(d.find("decided at step ") + 16));
  EXPECT_GT(step, 150) << d;
  EXPECT_EQ(r.report.explanation().cause(), SignalExplanation::overshoot);
}

// ... and behind the deciding step: the notifying CTAs then store 100 times to a word
// they share, so every state after the second add has a large subtree without any
// completion (80821 states in all). The search gallops back from the hang and bisects,
// so it still finds step 4 within its budget instead of falling back.
//
// In the sanitizer job's -O0 build (WARPCHECK_SANITIZED, tools/sanitize.sh) the tail is
// 40 stores: the search takes the same gallop and bisection over a smaller tree (100
// stores took 72 s there).
constexpr int kLongTail = warpcheck::testing::kSanitized ? 40 : 100;
TEST(ExplainTest, DecidingStepBeforeALongTail) {
  SignalProgram proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(absl::StrReplaceAll(R"pb(
    name: "c01_with_tail"
    ranks: 2
    ctas: 2
    objects { name: "SIG" dtype: U64 size: "1" init: 0 }
    objects { name: "MINE" dtype: U64 size: "1" init: 0 local: true }
    kernels {
      name: "k"
      grid: "select(r == 0, G, 1)"
      body {
        kind: IF
        cond: "r == 0"
        body { kind: NOTIFY site: "notify#1" object: "SIG" rank: "1" index: "0" value: "1" sig_op: ADD scope: INTRA_NODE }
        body {
          kind: FOR var: "i" from: "0" to: "TAIL"
          body { kind: ST_SIGNAL site: "tail" object: "MINE" rank: "r" index: "0" value: "i + 1" scope: GPU sem: RELAXED }
        }
        else_body { kind: WAIT site: "wait#1" object: "SIG" rank: "1" index: "0" count: "1" value: "1" scope: SYS sem: ACQUIRE token: "t" }
      }
    })pb", {{"TAIL", absl::StrCat(kLongTail)}}), &proto));
  ASSERT_OK_AND_ASSIGN(Program p, CompileProgram(proto, "inline.textproto"));
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(p, {}));
  ASSERT_EQ(r.report.outcome(), SignalReport::nondeterministic);
  ASSERT_GT(r.report.trail_size(), 2 * kLongTail);
  EXPECT_THAT(r.report.explanation().deciding(),
              HasSubstr("on SIG@1[0]: decided at step 4 of the hang's trail: rank0.cta1: notify "
                        "SIG@1[0] add 1 scope=intra_node  (SIG@1[0]: 1 -> 2); a completion "
                        "takes rank1.cta0: wait SIG@1[0]"));
}

TEST(LintTest, C12WaitCountOver32IsAWarning) {
  Loaded l = Load("c12_wait_count_over_32.textproto");
  ASSERT_NE(l.m, nullptr);
  std::vector<SignalLint> lints = Lint(*l.m);
  const SignalLint* x = FindLint(lints, SignalLint::wait_count_over_32);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity(), SignalLint::warning);
  EXPECT_EQ(x->site(), "wait#1");
  EXPECT_THAT(x->text(), HasSubstr("33 words"));
  EXPECT_FALSE(HasErrors(lints));
  // The AMD variant polls every word: no such lint.
  Loaded amd = Load("c12_wait_count_over_32_amd.textproto");
  ASSERT_NE(amd.m, nullptr);
  EXPECT_EQ(FindLint(Lint(*amd.m), SignalLint::wait_count_over_32), nullptr);
}

TEST(LintTest, C16WaitInDivergentCodeIsAnError) {
  Loaded l = Load("c16_wait_in_divergent_code.textproto");
  ASSERT_NE(l.m, nullptr);
  std::vector<SignalLint> lints = Lint(*l.m);
  const SignalLint* x = FindLint(lints, SignalLint::wait_in_divergent_code);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity(), SignalLint::error);
  EXPECT_EQ(x->site(), "wait#1");
  EXPECT_TRUE(HasErrors(lints));
  EXPECT_EQ(lints.front().severity(), SignalLint::error);  // errors first
  // RunProgram does not schedule a program with a lint error.
  ASSERT_OK_AND_ASSIGN(RunResult r, RunProgram(*l.p, RunOptions{}));
  EXPECT_EQ(r.report.outcome(), SignalReport::static_error);
  EXPECT_EQ(r.report.explanation().cause(), SignalExplanation::wait_in_divergent_code);
  EXPECT_EQ(r.report.states(), 0);
  EXPECT_FALSE(r.has_trace);
}

TEST(LintTest, C07GpuScopeRemoteRankIsAWarning) {
  Loaded l = Load("c07_gpu_scope_ignores_rank.textproto");
  ASSERT_NE(l.m, nullptr);
  std::vector<SignalLint> lints = Lint(*l.m);
  const SignalLint* x = FindLint(lints, SignalLint::gpu_scope_remote_rank);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity(), SignalLint::warning);
  EXPECT_EQ(x->site(), "notify#1");
  EXPECT_THAT(x->text(), HasSubstr("ignores its rank operand"));
  EXPECT_FALSE(HasErrors(lints));
  // The C19 cycle is clean.
  Loaded c19 = Load("c19_two_rank_cycle.textproto");
  ASSERT_NE(c19.m, nullptr);
  EXPECT_THAT(Lint(*c19.m), SizeIs(0));
}

TEST(LintTest, EachFindingAtMostOncePerSite) {
  Loaded l = Load("c12_wait_count_over_32.textproto");
  ASSERT_NE(l.m, nullptr);
  std::vector<SignalLint> lints = Lint(*l.m);
  for (size_t i = 0; i < lints.size(); ++i)
    for (size_t j = i + 1; j < lints.size(); ++j)
      EXPECT_FALSE(lints[i].id() == lints[j].id() && lints[i].site() == lints[j].site())
          << lints[i].id() << " at " << lints[i].site();
}

// ---- Trace round trip ----------------------------------------------------------------------

// The trace as a file would carry it: printed and parsed back.
SignalTrace ThroughText(const SignalTrace& t) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(t, &text));
  SignalTrace back;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &back));
  return back;
}

TEST(TraceTest, C19ReplayReproducesAndNearbyIsInevitable) {
  Loaded l = Load("c19_two_rank_cycle.textproto");
  ASSERT_NE(l.m, nullptr);
  ASSERT_OK_AND_ASSIGN(RunResult run, RunProgram(*l.p, RunOptions{}));
  EXPECT_EQ(run.report.outcome(), SignalReport::deadlock);
  ASSERT_TRUE(run.has_trace);
  // MakeTrace of the same terminal gives the trace RunProgram returned.
  ExploreResult r = Explore(*l.m, ExploreOptions{});
  ASSERT_TRUE(r.first_deadlock.has_value());
  SignalTrace made = MakeTrace(*l.m, *r.first_deadlock);
  EXPECT_EQ(made.SerializeAsString(), run.trace.SerializeAsString());
  EXPECT_TRUE(made.has_program());
  EXPECT_FALSE(made.program().has_expect());
  EXPECT_GT(made.events_size(), 0);
  // Both CTAs are in the snapshot, waiting at wait#1.
  int waiting = 0;
  for (const SignalAgentSnapshot& a : made.snapshot().agents())
    if (a.cta() >= 0 && a.state() == WAITING) {
      ++waiting;
      EXPECT_EQ(a.site(), "wait#1");
      EXPECT_EQ(a.expected(), 1);
      EXPECT_EQ(a.observed(), 0);
    }
  EXPECT_EQ(waiting, 2);
  ASSERT_OK(ValidateTrace(*l.m, made, "c19.trace"));

  SignalTrace trace = ThroughText(made);
  ASSERT_OK_AND_ASSIGN(RunResult replay, Replay(*l.p, trace, "c19.trace", ReplayOptions{}));
  EXPECT_EQ(replay.report.replay(), SignalReport::reproduced) << replay.report.divergence();
  EXPECT_EQ(replay.report.outcome(), SignalReport::deadlock);
  EXPECT_EQ(replay.report.explanation().cause(), SignalExplanation::cycle);
  EXPECT_EQ(replay.report.nearby(), SignalNearby::VERDICT_UNSET);

  ReplayOptions nearby;
  nearby.explore_nearby = true;
  ASSERT_OK_AND_ASSIGN(RunResult n, Replay(*l.p, trace, "c19.trace", nearby));
  EXPECT_EQ(n.report.replay(), SignalReport::reproduced);
  EXPECT_EQ(n.report.nearby(), SignalNearby::inevitable);
  EXPECT_THAT(n.report.explanation().text(), HasSubstr("nearby interleavings: inevitable"));
}

TEST(TraceTest, C01DeadlockTraceReplaysAndIsTimingDependent) {
  Loaded l = Load("c01_overshoot_add_eq.textproto");
  ASSERT_NE(l.m, nullptr);
  ASSERT_OK_AND_ASSIGN(RunResult run, RunProgram(*l.p, RunOptions{}));
  EXPECT_EQ(run.report.outcome(), SignalReport::nondeterministic);
  ASSERT_TRUE(run.has_trace);  // the trail of the deadlock
  int writes = 0;
  for (const SignalEvent& ev : run.trace.events())
    if (ev.what() == "write") {
      ++writes;
      EXPECT_EQ(ev.object(), "SIG");
      EXPECT_EQ(ev.word_rank(), 1);
      EXPECT_EQ(ev.mo(), writes);  // modification order on SIG@1[0]
      EXPECT_EQ(ev.value(), writes);
    }
  EXPECT_EQ(writes, 2);

  ReplayOptions nearby;
  nearby.explore_nearby = true;
  ASSERT_OK_AND_ASSIGN(RunResult n, Replay(*l.p, ThroughText(run.trace), "c01.trace", nearby));
  EXPECT_EQ(n.report.replay(), SignalReport::reproduced) << n.report.divergence();
  EXPECT_EQ(n.report.outcome(), SignalReport::deadlock);
  EXPECT_EQ(n.report.explanation().cause(), SignalExplanation::overshoot);
  EXPECT_EQ(n.report.nearby(), SignalNearby::timing_dependent);
  EXPECT_GT(n.report.outcome_counts().at("completes"), 0);
  EXPECT_GT(n.report.outcome_counts().at("deadlock"), 0);
}

TEST(TraceTest, CompletingTraceDoesNotReproduceAHang) {
  Loaded l = Load("c01_overshoot_add_eq_fixed.textproto");
  ASSERT_NE(l.m, nullptr);
  ASSERT_OK_AND_ASSIGN(RunResult run, RunProgram(*l.p, RunOptions{}));
  ASSERT_EQ(run.report.outcome(), SignalReport::completes);
  ASSERT_TRUE(run.has_trace);
  ASSERT_OK_AND_ASSIGN(RunResult replay, Replay(*l.p, run.trace, "fixed.trace", ReplayOptions{}));
  EXPECT_NE(replay.report.replay(), SignalReport::reproduced);
  EXPECT_EQ(replay.report.replay(), SignalReport::completed);
}

TEST(TraceTest, ValidateTraceRejectsUnknownAgentsAndObjects) {
  Loaded l = Load("c01_overshoot_add_eq.textproto");
  ASSERT_NE(l.m, nullptr);
  ASSERT_OK_AND_ASSIGN(RunResult run, RunProgram(*l.p, RunOptions{}));
  ASSERT_TRUE(run.has_trace);
  const SignalTrace& good = run.trace;
  ASSERT_OK(ValidateTrace(*l.m, good, "t.trace"));
  // Find an event with a word, and one index past it for the messages.
  int word_event = -1;
  for (int i = 0; i < good.events_size() && word_event < 0; ++i)
    if (!good.events(i).object().empty() && good.events(i).cta() >= 0) word_event = i;
  ASSERT_GE(word_event, 0);
  const std::string at = absl::StrCat("t.trace: events[", word_event, "]");

  SignalTrace bad_rank = good;
  bad_rank.mutable_events(word_event)->set_rank(7);
  EXPECT_THAT(ValidateTrace(*l.m, bad_rank, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument, at + ": no agent rank 7"));

  SignalTrace bad_cta = good;
  bad_cta.mutable_events(word_event)->set_cta(5);
  EXPECT_THAT(ValidateTrace(*l.m, bad_cta, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument, at + ": no agent rank"));

  SignalTrace bad_stream = good;
  bad_stream.mutable_events(0)->set_cta(-1);
  bad_stream.mutable_events(0)->set_stream("nope");
  EXPECT_THAT(ValidateTrace(*l.m, bad_stream, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument, "t.trace: events[0]: no agent"));

  SignalTrace bad_object = good;
  bad_object.mutable_events(word_event)->set_object("NOPE");
  EXPECT_THAT(ValidateTrace(*l.m, bad_object, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       at + ".object: no object 'NOPE'"));

  SignalTrace bad_word_rank = good;
  bad_word_rank.mutable_events(word_event)->set_word_rank(9);
  EXPECT_THAT(ValidateTrace(*l.m, bad_word_rank, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument, at + ".word_rank"));

  SignalTrace bad_what = good;
  bad_what.mutable_events(word_event)->set_what("teleport");
  EXPECT_THAT(ValidateTrace(*l.m, bad_what, "t.trace"),
              StatusIs(absl::StatusCode::kInvalidArgument, at + ".what"));

  // Replay validates first.
  EXPECT_THAT(Replay(*l.p, bad_object, "t.trace", ReplayOptions{}),
              StatusIs(absl::StatusCode::kInvalidArgument, "no object 'NOPE'"));
}

TEST(TraceTest, RenderEvent) {
  SignalEvent e;
  e.set_rank(0);
  e.set_cta(1);
  e.set_kernel("k");
  e.set_seq(3);
  e.set_site("notify#1");
  e.set_what("write");
  e.set_object("SIG");
  e.set_word_rank(1);
  e.set_index(0);
  e.set_value(2);
  e.set_mo(2);
  EXPECT_EQ(RenderEvent(e), "rank0.k.cta1 #3 notify#1 write SIG@1[0] = 2 (mo 2)");
}

}  // namespace
}  // namespace warpcheck::sim::signal
