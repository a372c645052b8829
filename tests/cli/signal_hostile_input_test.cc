// Hostile signal programs are input errors or static errors, never crashes (issue 14,
// item 6): nesting past kMaxNesting (compiler) or kTextProtoMaxDepth (text parser) exits 2
// with the position; a rank operand that is the same on every rank and outside 0..N-1 is
// the static error rank_out_of_range with its field path; waits on words nobody writes
// and intra_node notifies across nodes are lint warnings.
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/base/text_proto.h"
#include "sim/signal/driver.h"
#include "sim/signal/lint.h"
#include "sim/signal/program.h"
#include "tests/testing/cli_runner.h"
#include "tools/warpcheck/exit_code.h"

namespace warpcheck::sim::signal {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using cli::testing::RunCli;
using cli::testing::TempPath;

void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A program whose kernel nests `depth` IFs around one notify.
std::string NestedIfs(int depth) {
  std::string s =
      "ranks: 2\nobjects { name: \"SIG\" dtype: U64 size: \"1\" }\n"
      "kernels { name: \"k\" body {\n";
  for (int i = 1; i < depth; ++i) s += "kind: IF cond: \"r == 0\" body {\n";
  s += "kind: IF cond: \"r == 0\" body { kind: NOTIFY object: \"SIG\" rank: \"1\" index: "
       "\"0\" value: \"1\" scope: INTRA_NODE }\n";
  for (int i = 1; i < depth; ++i) s += "}\n";
  s += "} }\n";
  return s;
}

TEST(HostileInputTest, FiveThousandNestedIfsAreAnInputErrorWithLineAndColumn) {
  const std::string path = TempPath("nested5000.textproto");
  WriteAll(path, NestedIfs(5000));
  cli::testing::Result r = RunCli({"signal", "run", path});
  EXPECT_EQ(r.code, cli::kExitInputError);
  EXPECT_THAT(r.err, StartsWith(absl::StrCat("warpcheck: error: ", path, ":")));
  EXPECT_THAT(r.err, HasSubstr("too deep"));
  EXPECT_EQ(RunCli({"signal", "lint", path}).code, cli::kExitInputError);
}

TEST(HostileInputTest, NestingPastTheCompilerLimitNamesTheFirstOpTooDeep) {
  // Deep enough for the compiler's limit, shallow enough for the text parser's.
  static_assert(kMaxNesting + 10 < base::kTextProtoMaxDepth);
  SignalProgram proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(NestedIfs(kMaxNesting + 10), &proto));
  absl::StatusOr<Program> p = CompileProgram(proto, "t.textproto");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  std::string at = "kernels[0].body[0]";
  for (int i = 1; i <= kMaxNesting; ++i) at += ".body[0]";
  EXPECT_EQ(p.status().message(),
            absl::StrCat("t.textproto: ", at, ": if nested ", kMaxNesting + 1,
                         " deep: bodies nest at most ", kMaxNesting, " deep (FOR and IF)"));
  // At the limit it compiles.
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(NestedIfs(kMaxNesting), &proto));
  EXPECT_TRUE(CompileProgram(proto, "t.textproto").ok());
}

TEST(HostileInputTest, ConstantRankOutOfRangeIsAStaticErrorWithItsPath) {
  const std::string path = std::string(WARPCHECK_SOURCE_DIR) +
                           "/corpus/signal/c28_constant_rank_out_of_range.textproto";
  cli::testing::Result r = RunCli({"signal", "run", path});
  EXPECT_EQ(r.code, cli::kExitViolated);
  EXPECT_EQ(r.report.signal().outcome(), SignalReport::static_error);
  EXPECT_EQ(r.report.signal().explanation().cause(), SignalExplanation::rank_out_of_range);
  EXPECT_EQ(r.report.signal().states(), 0);  // not a run-time fault
  EXPECT_THAT(r.report.signal().explanation().text(),
              HasSubstr("notify#1: kernels[0].body[0].body[2].rank: rank 2 is outside 0..1"));
  cli::testing::Result lint = RunCli({"signal", "lint", path});
  EXPECT_EQ(lint.code, cli::kExitViolated);
  ASSERT_GE(lint.report.signal().lints_size(), 1);
  EXPECT_EQ(lint.report.signal().lints(0).id(), SignalLint::rank_out_of_range);
  EXPECT_EQ(lint.report.signal().lints(0).site(), "notify#1");
  // At --ranks=3 the same program is in range.
  cli::testing::Result three = RunCli({"signal", "lint", path, "--ranks=3"});
  EXPECT_EQ(three.code, cli::kExitOk) << three.out;
}

absl::StatusOr<std::vector<SignalLint>> LintText(const std::string& text) {
  SignalProgram proto;
  if (!google::protobuf::TextFormat::ParseFromString(text, &proto))
    return absl::InvalidArgumentError("parse");
  absl::StatusOr<Program> p = CompileProgram(proto, "t.textproto");
  if (!p.ok()) return p.status();
  absl::StatusOr<Machine> m = Machine::Create(*p);
  if (!m.ok()) return m.status();
  return Lint(*m);
}

const SignalLint* Find(const std::vector<SignalLint>& v, SignalLint::Id id) {
  for (const SignalLint& l : v)
    if (l.id() == id) return &l;
  return nullptr;
}

TEST(HostileInputTest, RankDependentOperandsAreNotFlaggedAsConstant) {
  // (r + 1) % N is in range on every rank; r + 1 is out of range on the last rank but it
  // is not rank-invariant, so it stays a run-time fault with its site.
  absl::StatusOr<std::vector<SignalLint>> lints = LintText(R"pb(
    ranks: 2
    objects { name: "SIG" dtype: U64 size: "2" }
    kernels { name: "k" body { kind: NOTIFY object: "SIG" rank: "(r + 1) % N" scope: INTRA_NODE }
              body { kind: NOTIFY object: "SIG" rank: "r + 1" index: "1" scope: INTRA_NODE }
              body { kind: WAIT object: "SIG" value: "1" } })pb");
  ASSERT_TRUE(lints.ok()) << lints.status();
  EXPECT_EQ(Find(*lints, SignalLint::rank_out_of_range), nullptr);
}

TEST(HostileInputTest, WaitNeverNotifiedAndIntraNodeAcrossNodesAreWarnings) {
  absl::StatusOr<std::vector<SignalLint>> lints = LintText(R"pb(
    ranks: 2
    ranks_per_node: 1
    objects { name: "SIG" dtype: U64 size: "2" }
    kernels { name: "k" body {
      kind: IF cond: "r == 0"
      body { kind: NOTIFY site: "n" object: "SIG" rank: "1" index: "1" value: "1" scope: INTRA_NODE }
      else_body { kind: WAIT site: "w_ok" object: "SIG" rank: "1" index: "1" value: "1" scope: SYS sem: ACQUIRE }
      else_body { kind: WAIT site: "w_zero" object: "SIG" rank: "0" index: "1" value: "0" scope: SYS sem: ACQUIRE }
      else_body { kind: WAIT site: "w_never" object: "SIG" rank: "0" index: "1" value: "1" scope: SYS sem: ACQUIRE } } })pb");
  ASSERT_TRUE(lints.ok()) << lints.status();
  const SignalLint* never = Find(*lints, SignalLint::wait_never_notified);
  ASSERT_NE(never, nullptr);
  EXPECT_EQ(never->severity(), SignalLint::warning);
  EXPECT_EQ(never->site(), "w_never");  // w_ok is notified, w_zero holds initially
  EXPECT_THAT(never->text(), HasSubstr("SIG@0[1]"));
  const SignalLint* cross = Find(*lints, SignalLint::intra_node_remote_node);
  ASSERT_NE(cross, nullptr);
  EXPECT_EQ(cross->severity(), SignalLint::warning);
  EXPECT_EQ(cross->site(), "n");
  EXPECT_THAT(cross->text(), HasSubstr("to rank 1 on node 1"));
  EXPECT_FALSE(HasErrors(*lints));
}

TEST(HostileInputTest, LaneIfExcludedLanesAreNotWaitedOn) {
  // Each rank polls every slot but its own (P02's shape); nobody writes the own slot.
  absl::StatusOr<std::vector<SignalLint>> lints = LintText(R"pb(
    ranks: 3
    objects { name: "SIG" dtype: U64 size: "N" }
    kernels { name: "k" body { kind: FOR var: "j" to: "N" body {
                kind: IF cond: "j != r" body {
                  kind: NOTIFY object: "SIG" rank: "j" index: "r" value: "1" scope: INTRA_NODE } } }
              body { kind: WAIT object: "SIG" index: "0" count: "N" value: "1" lane_if: "l != r"
                     scope: SYS sem: ACQUIRE } })pb");
  ASSERT_TRUE(lints.ok()) << lints.status();
  EXPECT_EQ(Find(*lints, SignalLint::wait_never_notified), nullptr);
}

}  // namespace
}  // namespace warpcheck::sim::signal
