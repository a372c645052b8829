// What the corpus-wide signal tests share: the corpus files and terminal states as
// compared (reduction_test, counter_abstraction_test, record_replay_test).
#ifndef WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_
#define WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_

#include <algorithm>
#include <cstdint>
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

inline std::set<TerminalKey> Terminals(const SignalReport& r) {
  std::set<TerminalKey> out;
  for (const SignalTerminal& t : r.terminals()) {
    out.insert({base::EnumName(t.outcome()), {t.blocked().begin(), t.blocked().end()},
                std::map<std::string, int64_t>(t.values().begin(), t.values().end())});
  }
  return out;
}

}  // namespace warpcheck::sim::signal::testing

#endif  // WARPCHECK_TESTS_SIM_SIGNAL_SIGNAL_CORPUS_UTIL_H_
