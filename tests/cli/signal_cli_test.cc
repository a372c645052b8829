// In-process CLI tests of `warpcheck signal run | replay | lint` and `corpus check` on a
// signal program (the real dispatcher, checked through exit codes, the Report proto,
// stdout/stderr and the files the flags write).
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "proto/signal.pb.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/cli.h"

namespace warpcheck::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using testing::Result;
using testing::RunCli;
using testing::ReadAll;

std::string Corpus(const std::string& name) {
  return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal/" + name;
}

std::string TempPath(const std::string& name) {
  return testing::TempPath("signal_cli_test." + name);
}

void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// The signal rows of exit_code.cc's table, from the typed report alone.
TEST(SignalCliTest, ExitCodeForSignalReport) {
  auto code = [](SignalReport::Outcome outcome, SignalReport::Replay replay) {
    Report r;
    r.mutable_signal()->set_outcome(outcome);
    r.mutable_signal()->set_replay(replay);
    return ExitCodeFor(r);
  };
  const auto none = SignalReport::REPLAY_UNSET;
  EXPECT_EQ(code(SignalReport::completes, none), kExitOk);
  EXPECT_EQ(code(SignalReport::ok, none), kExitOk);  // lint without an error
  EXPECT_EQ(code(SignalReport::inconclusive, none), kExitInconclusive);
  for (auto o : {SignalReport::deadlock, SignalReport::race, SignalReport::nondeterministic,
                 SignalReport::static_error, SignalReport::fault})
    EXPECT_EQ(code(o, none), kExitViolated) << SignalReport::Outcome_Name(o);
  // A replay is a finding about the recorded hang, whatever it reached.
  for (auto rp : {SignalReport::reproduced, SignalReport::diverged, SignalReport::completed})
    EXPECT_EQ(code(SignalReport::completes, rp), kExitViolated) << SignalReport::Replay_Name(rp);
}

TEST(SignalCliTest, RunExitCodes) {
  Result ok = RunCli({"signal", "run", Corpus("c19_two_rank_cycle.textproto")});
  EXPECT_EQ(ok.code, kExitViolated) << ok.err;
  EXPECT_THAT(ok.out, StartsWith("outcome: deadlock"));
  EXPECT_EQ(ok.report.signal().outcome(), SignalReport::deadlock);

  Result completes = RunCli({"signal", "run", Corpus("c08_notify_without_syncthreads_fixed.textproto")});
  EXPECT_EQ(completes.code, kExitOk) << completes.err;
  EXPECT_EQ(completes.report.signal().outcome(), SignalReport::completes);
  EXPECT_THAT(completes.out, StartsWith("outcome: completes"));
  EXPECT_TRUE(completes.err.empty()) << completes.err;

  // One run of a fixed schedule.
  Result fifo = RunCli({"signal", "run", Corpus("p08b_barrier_two_phase.textproto"),
                        "--schedule=fifo"});
  EXPECT_EQ(fifo.code, kExitOk) << fifo.err;
  EXPECT_EQ(fifo.report.signal().schedule(), "fifo");

  // A race is a violation too; nondeterministic as well.
  EXPECT_EQ(RunCli({"signal", "run", Corpus("c11_missing_consume_token.textproto")}).code,
            kExitViolated);
  Result nd = RunCli({"signal", "run", Corpus("c01_overshoot_add_eq.textproto")});
  EXPECT_EQ(nd.code, kExitViolated);
  EXPECT_EQ(nd.report.signal().outcome(), SignalReport::nondeterministic);

  // A bound too small for a verdict: inconclusive.
  Result bound = RunCli({"signal", "run", Corpus("p01_producer_consumer_queue.textproto"),
                         "--max-states=5"});
  EXPECT_EQ(bound.code, kExitInconclusive);
  EXPECT_EQ(bound.report.signal().outcome(), SignalReport::inconclusive);
  EXPECT_TRUE(bound.report.signal().bound_hit());
}

// Issue 14 item 1: under a bound, a deadlock found is "can deadlock" (its trail is
// given), never the `deadlock` verdict, and a DEADLOCK expectation does not pass on it.
TEST(SignalCliTest, BoundHitWithADeadlockFoundIsInconclusive) {
  const std::string f = Corpus("c30_generation_barrier_reset_after_bump.textproto");
  Result r = RunCli({"signal", "run", f, "--max-states=12"});
  EXPECT_EQ(r.code, kExitInconclusive) << r.out;
  EXPECT_EQ(r.report.signal().outcome(), SignalReport::inconclusive);
  EXPECT_TRUE(r.report.signal().bound_hit());
  EXPECT_EQ(r.report.signal().outcome_counts().at("deadlock"), 1);
  EXPECT_EQ(r.report.signal().outcome_counts().at("completes"), 0);
  EXPECT_THAT(r.out, StartsWith("outcome: inconclusive"));
  EXPECT_THAT(r.out, HasSubstr("can deadlock"));
  EXPECT_GT(r.report.signal().trail_size(), 0);  // the deadlock found, replayable
  EXPECT_EQ(r.report.signal().explanation().blocked_size(), 4);

  // The same program without the bound: both outcomes, a verdict.
  Result full = RunCli({"signal", "run", f});
  EXPECT_EQ(full.report.signal().outcome(), SignalReport::nondeterministic);
  EXPECT_EQ(full.code, kExitViolated);

  // A corpus expectation of DEADLOCK does not pass on the bounded run.
  std::string text = ReadAll(Corpus("c33_bound_hit_deadlock_found.textproto"));
  const std::string from = "outcome: INCONCLUSIVE";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "outcome: DEADLOCK");
  const std::string wrong = TempPath("bound_deadlock.textproto");
  WriteAll(wrong, text);
  Result w = RunCli({"corpus", "check", wrong});
  EXPECT_EQ(w.code, kExitViolated);
  ASSERT_EQ(w.report.corpus().results_size(), 1);
  EXPECT_THAT(w.report.corpus().results(0).detail(),
              HasSubstr("outcome inconclusive, expected deadlock"));
  std::filesystem::remove(wrong);

  // A race found under a bound is not the `race` verdict either (it claims no deadlock).
  Result race = RunCli({"signal", "run", Corpus("c32_races_in_different_executions.textproto"),
                        "--max-states=10"});
  EXPECT_EQ(race.code, kExitInconclusive);
  EXPECT_EQ(race.report.signal().outcome(), SignalReport::inconclusive);
  EXPECT_GT(race.report.signal().races_size(), 0);
  EXPECT_THAT(race.out, HasSubstr("found: a data race"));
}

// Issue 14 item 7: the race list holds the races of every explored terminal state, not
// those of one: c31's two races never meet in one execution; p10's write-after-read
// races lie in terminal states other than the hang its nondeterministic answer shows.
TEST(SignalCliTest, RaceListsCoverEveryTerminalState) {
  Result r = RunCli({"signal", "run", Corpus("c32_races_in_different_executions.textproto")});
  EXPECT_EQ(r.report.signal().outcome(), SignalReport::race);
  std::set<std::string> loads;
  for (const SignalRace& x : r.report.signal().races())
    if (x.access() == "rank0.cta0 loser_load" || x.access() == "rank1.cta0 loser_load")
      loads.insert(x.access());
  EXPECT_EQ(loads.size(), 2u) << r.out;

  Result nd = RunCli({"signal", "run",
                      Corpus("p10_ll_allgather_epoch__no_call_barrier.textproto")});
  EXPECT_EQ(nd.report.signal().outcome(), SignalReport::nondeterministic);
  bool war = false;
  for (const SignalRace& x : nd.report.signal().races())
    war |= x.kind() == SignalRace::write_after_read;
  EXPECT_TRUE(war) << nd.report.signal().races_size() << " race(s)";
}

// Issue 14 item 7: `signal --help` (and `help signal`) list the signal commands.
TEST(SignalCliTest, GroupHelpListsTheCommands) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"signal", "--help"}, {"signal", "-h"}, {"help", "signal"}}) {
    Result r = RunCli(args);
    EXPECT_EQ(r.code, kExitOk) << r.err;
    EXPECT_THAT(r.out, HasSubstr("signal run"));
    EXPECT_THAT(r.out, HasSubstr("signal replay"));
    EXPECT_THAT(r.out, HasSubstr("signal lint"));
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
  // The group alone is a usage error that still says what the commands are.
  Result bare = RunCli({"signal"});
  EXPECT_EQ(bare.code, kExitUsage);
  EXPECT_THAT(bare.err, HasSubstr("signal run"));
  // Other groups too; an unknown word stays unknown.
  EXPECT_EQ(RunCli({"layout", "--help"}).code, kExitOk);
  Result unknown = RunCli({"signals", "--help"});
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command"));
}

// Issue 14 item 7: a --trail-out file carries no expect_reproduced; as a corpus file it
// must replay without diverging (it used to be read as "expect not reproduced").
TEST(SignalCliTest, TrailOutFileWithoutExpectationPassesCorpusCheck) {
  const std::string trail = TempPath("c30.trace.textproto");
  Result r = RunCli({"signal", "run", Corpus("c30_generation_barrier_reset_after_bump.textproto"),
                     "--trail-out=" + trail});
  EXPECT_EQ(r.code, kExitViolated) << r.err;
  const std::string text = ReadAll(trail);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("expect_reproduced")));
  Result c = RunCli({"corpus", "check", trail});
  EXPECT_EQ(c.code, kExitOk) << c.out;
  EXPECT_EQ(c.report.corpus().passed(), 1);

  // An explicit `expect_reproduced: false` is still honoured: it fails.
  const std::string neg = TempPath("c30.neg.trace.textproto");
  WriteAll(neg, text + "expect_reproduced: false\n");
  Result n = RunCli({"corpus", "check", neg});
  EXPECT_EQ(n.code, kExitViolated);
  ASSERT_EQ(n.report.corpus().results_size(), 1);
  EXPECT_THAT(n.report.corpus().results(0).detail(),
              HasSubstr("replay reproduced, expected not reproduced"));

  // The trail of a run that completes replays as completed, which also passes.
  const std::string done = TempPath("c30fixed.trace.textproto");
  Result f = RunCli({"signal", "run",
                     Corpus("c30_generation_barrier_reset_after_bump_fixed.textproto"),
                     "--trail-out=" + done});
  EXPECT_EQ(f.code, kExitOk);
  Result cd = RunCli({"corpus", "check", done});
  EXPECT_EQ(cd.code, kExitOk) << cd.out;
  std::filesystem::remove(trail);
  std::filesystem::remove(neg);
  std::filesystem::remove(done);
}

TEST(SignalCliTest, MalformedFileExitsTwoWithWhereAndWhat) {
  const std::string bad = TempPath("bad.textproto");
  WriteAll(bad, "name: \"x\"\nranks: 2\nkernels { name: \"k\" body { kind: NOTIFFY } }\n");
  Result r = RunCli({"signal", "run", bad});
  EXPECT_EQ(r.code, kExitInputError);
  EXPECT_THAT(r.err, StartsWith("warpcheck: error: " + bad + ":3:"));
  EXPECT_THAT(r.err, HasSubstr("NOTIFFY"));
  EXPECT_TRUE(r.out.empty()) << r.out;

  // Valid text, invalid program: "<file>:<line>:<col>: <path>: <what>", at the field.
  WriteAll(bad,
           "objects { name: \"SIG\" }\n"
           "kernels { name: \"k\" body { kind: WAIT object: \"FLAG\" } }\n");
  Result c = RunCli({"signal", "run", bad});
  EXPECT_EQ(c.code, kExitInputError);
  EXPECT_THAT(c.err, HasSubstr(bad + ":2:39: kernels[0].body[0].object: no object named "
                                     "'FLAG' (objects: SIG)"));
  // lint and replay load the same way.
  EXPECT_EQ(RunCli({"signal", "lint", bad}).code, kExitInputError);
  EXPECT_EQ(RunCli({"signal", "replay", bad}).code, kExitInputError);

  Result missing = RunCli({"signal", "run", TempPath("does_not_exist.textproto")});
  EXPECT_EQ(missing.code, kExitInputError);
  EXPECT_THAT(missing.err, HasSubstr("cannot read file"));
  std::filesystem::remove(bad);
}

TEST(SignalCliTest, UsageErrorsExitOne) {
  const std::string f = Corpus("c19_two_rank_cycle.textproto");
  Result sched = RunCli({"signal", "run", f, "--schedule=bogus"});
  EXPECT_EQ(sched.code, kExitUsage);
  EXPECT_THAT(sched.err, HasSubstr("--schedule=bogus: expected fifo, random or explore"));
  EXPECT_EQ(RunCli({"signal", "run"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"signal", "run", f, f}).code, kExitUsage);
  EXPECT_EQ(RunCli({"signal", "run", f, "--ranks=0"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"signal", "run", f, "--ranks=x"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"signal", "run", f, "--seed=-1x"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"signal", "run", f, "--format=xml"}).code, kExitUsage);
  Result help = RunCli({"signal", "run", "--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("--trail-out"));
}

TEST(SignalCliTest, JsonHasOutcomeStatesExplanationBlockedTrail) {
  Result r = RunCli({"signal", "run", Corpus("c19_two_rank_cycle.textproto"), "--format=json"});
  EXPECT_EQ(r.code, kExitViolated) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"signal\":{\"outcome\":\"deadlock\""));
  for (const char* key : {"\"states\":", "\"explanation\":{\"cause\":\"cycle\"", "\"blocked\":[",
                          "\"trail\":["})
    EXPECT_THAT(r.out, HasSubstr(key));
  // It is JSON of a Report that protobuf's parser reads back. An unset enum prints as ""
  // (as the string field it replaced did), which the parser skips as an unknown value
  // when told to ignore unknown fields, leaving the field unset.
  Report parsed;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &parsed, opts).ok()) << r.out;
  const SignalReport& s = parsed.signal();
  EXPECT_EQ(s.outcome(), SignalReport::deadlock);
  EXPECT_GT(s.states(), 0);
  EXPECT_EQ(s.explanation().cause(), SignalExplanation::cycle);
  int ctas = 0;
  for (const SignalBlocked& b : s.explanation().blocked())
    if (b.cta() == 0) {
      ++ctas;
      EXPECT_EQ(b.site(), "wait#1");
    }
  EXPECT_EQ(ctas, 2);
  EXPECT_GT(s.trail_size(), 0);
  // The same as the Report handed back in process.
  EXPECT_EQ(s.outcome(), r.report.signal().outcome());
  EXPECT_EQ(s.trail_size(), r.report.signal().trail_size());

  Result tp = RunCli({"signal", "run", Corpus("c19_two_rank_cycle.textproto"),
                      "--format=textproto"});
  EXPECT_EQ(tp.code, kExitViolated);
  Report from_text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(tp.out, &from_text)) << tp.out;
  EXPECT_EQ(from_text.signal().explanation().cause(), SignalExplanation::cycle);
}

TEST(SignalCliTest, TrailOutReplaysAndSvgIsWritten) {
  const std::string trail = TempPath("c19.trace.textproto");
  const std::string svg = TempPath("c19.svg");
  Result r = RunCli({"signal", "run", Corpus("c19_two_rank_cycle.textproto"),
                     "--trail-out=" + trail, "--svg=" + svg});
  EXPECT_EQ(r.code, kExitViolated) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;

  const std::string trace_text = ReadAll(trail);
  EXPECT_THAT(trace_text, HasSubstr("# proto-message: warpcheck.SignalTrace"));
  SignalTrace trace;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(trace_text, &trace)) << trace_text;
  EXPECT_TRUE(trace.has_program());
  EXPECT_EQ(trace.program().name(), "c19_two_rank_cycle");
  EXPECT_GT(trace.snapshot().agents_size(), 0);

  const std::string svg_text = ReadAll(svg);
  EXPECT_THAT(svg_text, StartsWith("<svg"));
  EXPECT_THAT(svg_text, HasSubstr("</svg>"));
  EXPECT_THAT(svg_text, HasSubstr("rank0.cta0"));

  Result rep = RunCli({"signal", "replay", trail});
  EXPECT_EQ(rep.code, kExitViolated) << rep.err;
  EXPECT_EQ(rep.report.signal().replay(), SignalReport::reproduced) << rep.out;
  EXPECT_THAT(rep.out, HasSubstr("replay: reproduced"));

  Result nearby = RunCli({"signal", "replay", trail, "--explore-nearby", "--format=json"});
  EXPECT_EQ(nearby.report.signal().replay(), SignalReport::reproduced);
  EXPECT_EQ(nearby.report.signal().nearby(), SignalNearby::inevitable);
  EXPECT_THAT(nearby.out, HasSubstr("\"nearby\":\"inevitable\""));

  // A trace whose event names a missing object is bad input.
  SignalTrace broken = trace;
  for (SignalEvent& e : *broken.mutable_events()) e.set_object("NOPE");
  std::string broken_text;
  google::protobuf::TextFormat::PrintToString(broken, &broken_text);
  const std::string broken_path = TempPath("broken.trace.textproto");
  WriteAll(broken_path, broken_text);
  Result bad = RunCli({"signal", "replay", broken_path});
  EXPECT_EQ(bad.code, kExitInputError);
  EXPECT_THAT(bad.err, HasSubstr("events[0].object: no object 'NOPE'"));

  // No deadlock: no wait-for graph is written (a note on stderr), exit code unchanged.
  const std::string svg2 = TempPath("none.svg");
  Result none = RunCli({"signal", "run", Corpus("c08_notify_without_syncthreads_fixed.textproto"),
                        "--svg=" + svg2});
  EXPECT_EQ(none.code, kExitOk);
  EXPECT_THAT(none.err, HasSubstr("--svg"));
  EXPECT_FALSE(std::filesystem::exists(svg2));

  std::filesystem::remove(trail);
  std::filesystem::remove(svg);
  std::filesystem::remove(broken_path);
}

TEST(SignalCliTest, NondeterministicTrailReplaysAsTimingDependent) {
  const std::string trail = TempPath("c01.trace.textproto");
  Result r = RunCli({"signal", "run", Corpus("c01_overshoot_add_eq.textproto"),
                     "--trail-out=" + trail});
  EXPECT_EQ(r.code, kExitViolated);
  Result rep = RunCli({"signal", "replay", trail, "--explore-nearby"});
  EXPECT_EQ(rep.report.signal().replay(), SignalReport::reproduced) << rep.out;
  EXPECT_EQ(rep.report.signal().nearby(), SignalNearby::timing_dependent);
  std::filesystem::remove(trail);
}

TEST(SignalCliTest, TrailsCarryTheFormatVersionAndNewerVersionsAreRefused) {
  const std::string trail = TempPath("c19.versioned.trace.textproto");
  Result r = RunCli(
      {"signal", "run", Corpus("c19_two_rank_cycle.textproto"), "--trail-out=" + trail});
  ASSERT_EQ(r.code, kExitViolated) << r.err;
  std::string text = ReadAll(trail);
  EXPECT_THAT(text, HasSubstr("\nformat_version: 1\n"));
  EXPECT_EQ(RunCli({"signal", "replay", trail}).report.signal().replay(), SignalReport::reproduced);

  // Traces from before the field (format_version absent) read as version 1.
  Result old =
      RunCli({"signal", "replay", Corpus("traces/c19_two_rank_cycle_hang.textproto")});
  EXPECT_EQ(old.report.signal().replay(), SignalReport::reproduced) << old.err;

  // A newer version is an input error that says which version and what this one reads.
  const std::string newer = TempPath("newer.trace.textproto");
  WriteAll(newer,
           absl::StrReplaceAll(text, {{"format_version: 1", "format_version: 2"}}));
  Result refused = RunCli({"signal", "replay", newer});
  EXPECT_EQ(refused.code, kExitInputError);
  EXPECT_THAT(
      refused.err,
      HasSubstr(newer + ": format_version 2 is newer than this warpcheck reads (1)"));
  // corpus check reads traces the same way.
  EXPECT_EQ(RunCli({"corpus", "check", newer}).code, kExitInputError);
  std::filesystem::remove(trail);
  std::filesystem::remove(newer);
}

TEST(SignalCliTest, LintExitCodes) {
  Result c16 = RunCli({"signal", "lint", Corpus("c16_wait_in_divergent_code.textproto")});
  EXPECT_EQ(c16.code, kExitViolated);
  EXPECT_EQ(c16.report.signal().outcome(), SignalReport::static_error);
  EXPECT_THAT(c16.out, HasSubstr("error [wait_in_divergent_code]"));

  Result c07 = RunCli({"signal", "lint", Corpus("c07_gpu_scope_ignores_rank.textproto")});
  EXPECT_EQ(c07.code, kExitOk);
  EXPECT_THAT(c07.out, HasSubstr("warning [gpu_scope_remote_rank]"));

  Result clean = RunCli({"signal", "lint", Corpus("c19_two_rank_cycle.textproto")});
  EXPECT_EQ(clean.code, kExitOk);
  EXPECT_THAT(clean.out, HasSubstr("no findings"));

  // `run` refuses to schedule a program with a lint error.
  Result run = RunCli({"signal", "run", Corpus("c16_wait_in_divergent_code.textproto")});
  EXPECT_EQ(run.code, kExitViolated);
  EXPECT_EQ(run.report.signal().outcome(), SignalReport::static_error);
}

TEST(SignalCliTest, OverridesApply) {
  // C20's ring at 4 ranks instead of 3: still a deadlock, every rank blocked.
  Result r = RunCli({"signal", "run", Corpus("c20_ring_no_initiator.textproto"), "--ranks=4",
                     "--format=json"});
  EXPECT_EQ(r.code, kExitViolated) << r.err;
  int ctas = 0;
  for (const SignalBlocked& b : r.report.signal().explanation().blocked()) ctas += b.cta() >= 0;
  EXPECT_EQ(ctas, 4);
  // --no-reduction explores more states for the same verdict.
  Result red = RunCli({"signal", "run", Corpus("p02_allgather_push.textproto")});
  Result full = RunCli({"signal", "run", Corpus("p02_allgather_push.textproto"), "--no-reduction"});
  EXPECT_EQ(red.code, kExitOk);
  EXPECT_EQ(full.code, kExitOk);
  EXPECT_LT(red.report.signal().states(), full.report.signal().states());
}

TEST(SignalCliTest, CorpusCheckC19Passes) {
  Result r = RunCli({"corpus", "check", Corpus("c19_two_rank_cycle.textproto")});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_EQ(r.report.corpus().files(), 1);
  EXPECT_EQ(r.report.corpus().cases(), 1);
  EXPECT_EQ(r.report.corpus().passed(), 1);
  EXPECT_EQ(r.report.corpus().failed(), 0);

  // A signal program whose expectation is wrong fails the check (exit 10).
  std::string text = ReadAll(Corpus("c19_two_rank_cycle.textproto"));
  const std::string from = "outcome: DEADLOCK";
  text.replace(text.find(from), from.size(), "outcome: COMPLETES");
  const std::string wrong = TempPath("wrong.textproto");
  WriteAll(wrong, text);
  Result w = RunCli({"corpus", "check", wrong});
  EXPECT_EQ(w.code, kExitViolated);
  EXPECT_EQ(w.report.corpus().failed(), 1);
  ASSERT_EQ(w.report.corpus().results_size(), 1);
  EXPECT_THAT(w.report.corpus().results(0).detail(),
              HasSubstr("outcome deadlock, expected completes"));
  std::filesystem::remove(wrong);
}

}  // namespace
}  // namespace warpcheck::cli
