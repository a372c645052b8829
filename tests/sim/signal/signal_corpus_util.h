// What the corpus-wide signal tests share: the corpus files and terminal states as
// compared (reduction_test, counter_abstraction_test, record_replay_test), and the
// comparison of two explorations of one program (sync_guard_test, value_guard_test).
#ifndef WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_
#define WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/report.pb.h"
#include "sim/signal/driver.h"
#include "sim/signal/machine.h"
#include "sim/signal/program.h"
#include "sim/base/enum_name.h"

namespace warpcheck::sim::signal::testing {

// A compiled program and its machine (the machine points into the program, so both live
// on the heap and never move); Build compiles an inline SignalProgram text proto.
struct Sim {
  std::unique_ptr<Program> p;
  std::unique_ptr<Machine> m;
};

inline Sim Build(const std::string& text) {
  SignalProgram proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto)) << text;
  Sim s;
  absl::StatusOr<Program> p = CompileProgram(proto, "inline.textproto");
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return s;
  s.p = std::make_unique<Program>(*std::move(p));
  absl::StatusOr<Machine> m = Machine::Create(*s.p);
  EXPECT_TRUE(m.ok()) << m.status();
  if (m.ok()) s.m = std::make_unique<Machine>(*std::move(m));
  return s;
}

inline std::string CorpusDir() { return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal"; }

// The corpus/signal/*.textproto file names, sorted.
inline std::vector<std::string> CorpusFiles() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(CorpusDir(), ec)) {
    if (e.path().extension() == ".textproto") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One distinct terminal state, as compared: (outcome, blocked, values).
using TerminalKey =
    std::tuple<std::string, std::vector<std::string>, std::map<std::string, int64_t>>;

inline TerminalKey KeyOf(const SignalTerminal& t) {
  return {base::EnumName(t.outcome()), {t.blocked().begin(), t.blocked().end()},
          std::map<std::string, int64_t>(t.values().begin(), t.values().end())};
}

inline std::set<TerminalKey> Terminals(const SignalReport& r) {
  std::set<TerminalKey> out;
  for (const SignalTerminal& t : r.terminals()) out.insert(KeyOf(t));
  return out;
}

// The distinct terminal states with their race flags ("some execution ending here raced").
inline std::set<std::tuple<TerminalKey, bool>> RacedTerminals(const SignalReport& r) {
  std::set<std::tuple<TerminalKey, bool>> out;
  for (const SignalTerminal& t : r.terminals()) out.insert({KeyOf(t), t.race()});
  return out;
}

// The p* protocols and their mutations (not the fixed 8-rank copies).
inline std::vector<std::string> Protocols() {
  std::vector<std::string> out;
  for (const std::string& f : CorpusFiles())
    if (f[0] == 'p' && f.find("_8ranks") == std::string::npos) out.push_back(f);
  return out;
}

// The p* protocols and their mutations, and the s02 counters: what the reductions'
// with-and-without suites run at 2-4 ranks.
inline std::vector<std::string> ProtocolsAndCounters() {
  std::vector<std::string> out = Protocols();
  for (const std::string& f : CorpusFiles())
    if (f.rfind("s02_", 0) == 0) out.push_back(f);
  return out;
}

// A corpus file at `ranks` ranks (0: its own) and `iterations` calls (-1: its own).
inline Program LoadCorpus(const std::string& file, int ranks, int64_t iterations,
                          int64_t ctas = -1) {
  LoadOverrides o;
  o.ranks = ranks;
  o.iterations = iterations;
  o.ctas = ctas;
  absl::StatusOr<Program> p = LoadProgramFile(CorpusDir() + "/" + file, o);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : Program{};
}

// What ExpectSameExploration asks of `other` beyond the same outcome and kinds of
// terminal state. kExact: no more states than `base`, the same distinct terminal
// states. kUpToClocks (a reduction that keeps the terminal states up to clocks, such as
// lane first): any number of states, the same distinct terminal states with the same
// race flags.
enum class Compare { kExact, kUpToClocks };

// Runs `p` with `base` and with `other` (at most `bound` states each, no symmetry);
// expects the same outcome, each kind of terminal state (completes, deadlock, race,
// fault) found by both or neither, and what `compare` adds.
// Ensures: false (and nothing expected) when the `base` run hit the bound.
inline bool ExpectSameExploration(const Program& p, RunOptions base, RunOptions other,
                                  const std::string& what, int64_t bound,
                                  Compare compare = Compare::kExact) {
  base.max_states = other.max_states = bound;
  base.symmetry = other.symmetry = false;
  absl::StatusOr<RunResult> b = RunProgram(p, base);
  EXPECT_TRUE(b.ok()) << b.status();
  if (!b.ok() || b->report.bound_hit()) return false;
  absl::StatusOr<RunResult> o = RunProgram(p, other);
  EXPECT_TRUE(o.ok()) << o.status();
  if (!o.ok()) return true;
  const SignalReport& u = b->report;
  const SignalReport& r = o->report;
  EXPECT_FALSE(r.bound_hit()) << what;
  if (compare == Compare::kExact) {
    EXPECT_LE(r.states(), u.states()) << what;
  }
  EXPECT_EQ(r.outcome(), u.outcome()) << what << "\nbase: " << u.explanation().text()
                                      << "\nother: " << r.explanation().text();
  for (const char* kind : {"completes", "deadlock", "race", "fault"}) {
    const int64_t uc = u.outcome_counts().count(kind) ? u.outcome_counts().at(kind) : 0;
    const int64_t rc = r.outcome_counts().count(kind) ? r.outcome_counts().at(kind) : 0;
    EXPECT_EQ(uc > 0, rc > 0) << what << ": " << kind << ": base " << uc << ", other " << rc;
  }
  std::printf("[ compare ] %s: %lld -> %lld states\n", what.c_str(),
              static_cast<long long>(u.states()), static_cast<long long>(r.states()));
  if (u.terminals_size() >= 256 || r.terminals_size() >= 256) return true;
  if (compare == Compare::kUpToClocks) {
    EXPECT_TRUE(RacedTerminals(u) == RacedTerminals(r))
        << what << ": the terminal states or their race flags differ";
    return true;
  }
  const std::set<TerminalKey> ut = Terminals(u), rt = Terminals(r);
  EXPECT_EQ(ut.size(), rt.size()) << what;
  EXPECT_TRUE(ut == rt) << what << ": the terminal states differ";
  return true;
}

}  // namespace warpcheck::sim::signal::testing

#endif  // WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_
