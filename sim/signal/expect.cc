#include "sim/signal/expect.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/enum_name.h"
#include "sim/base/status_macros.h"
#include "sim/signal/driver.h"
#include "sim/signal/program.h"

namespace warpcheck::sim::signal {

std::vector<std::string> ExpectationMismatches(const SignalExpect& expect,
                                               const SignalReport& rep,
                                               std::optional<bool> expect_reproduced) {
  std::vector<std::string> problems;
  if (expect.outcome() != OUTCOME_UNSPECIFIED) {
    std::string want = absl::AsciiStrToLower(SignalOutcome_Name(expect.outcome()));
    if (sim::base::EnumName(rep.outcome()) != want)
      problems.push_back(
          absl::StrCat("outcome ", sim::base::EnumName(rep.outcome()), ", expected ", want));
  }
  const std::string cause = sim::base::EnumName(rep.explanation().cause());
  if (!expect.cause().empty() && cause != expect.cause())
    problems.push_back(absl::StrCat("cause ", cause.empty() ? "(none)" : cause, ", expected ",
                                    expect.cause()));
  for (const SignalBlockedExpect& b : expect.blocked()) {
    bool found = false;
    for (const SignalBlocked& x : rep.explanation().blocked())
      found |= x.rank() == b.rank() && x.cta() == b.cta() && (b.site().empty() || x.site() == b.site());
    if (!found)
      problems.push_back(absl::StrCat("rank ", b.rank(), " cta ", b.cta(), " not blocked at ",
                                      b.site()));
  }
  for (const std::string& t : expect.text_contains())
    if (!absl::StrContains(rep.explanation().text(), t))
      problems.push_back(absl::StrCat("explanation lacks \"", t, "\""));
  if (expect_reproduced.has_value() &&
      *expect_reproduced != (rep.replay() == SignalReport::reproduced))
    problems.push_back(absl::StrCat("replay ", sim::base::EnumName(rep.replay()), ", expected ",
                                    *expect_reproduced ? "reproduced" : "not reproduced"));
  return problems;
}

ExpectCheck CheckExpectation(const SignalExpect& expect, const SignalReport& report,
                             std::optional<bool> expect_reproduced) {
  std::vector<std::string> problems = ExpectationMismatches(expect, report, expect_reproduced);
  ExpectCheck check;
  check.ok = problems.empty();
  check.detail = absl::StrJoin(problems, "; ");
  if (!check.ok) absl::StrAppend(&check.detail, "\n    ", report.explanation().text());
  return check;
}

absl::StatusOr<ExpectCheck> CheckCorpusFile(const std::string& path, bool trace) {
  if (trace) {
    ASSIGN_OR_RETURN(auto loaded, LoadTraceFile(path, {}));
    ReplayOptions ro;
    ro.explore_nearby = true;
    ASSIGN_OR_RETURN(RunResult res, Replay(loaded.first, loaded.second, path, ro));
    const SignalTrace& t = loaded.second;
    if (!t.has_expect_reproduced()) {
      // No explicit expectation: the replay must not diverge.
      std::vector<std::string> problems =
          ExpectationMismatches(t.expect(), res.report, std::nullopt);
      if (res.report.replay() != SignalReport::reproduced &&
          res.report.replay() != SignalReport::completed)
        problems.push_back(absl::StrCat("replay ", sim::base::EnumName(res.report.replay()),
                                        ", expected reproduced (or completed, for a trace "
                                        "without a hang)"));
      ExpectCheck check;
      check.ok = problems.empty();
      check.detail = absl::StrJoin(problems, "; ");
      if (!check.ok) absl::StrAppend(&check.detail, "\n    ", res.report.explanation().text());
      return check;
    }
    return CheckExpectation(t.expect(), res.report, t.expect_reproduced());
  }
  ASSIGN_OR_RETURN(Program p, LoadProgramFile(path));
  if (p.expect.outcome() == OUTCOME_UNSPECIFIED)
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": expect.outcome is required in a corpus file (COMPLETES, DEADLOCK, ...)"));
  ASSIGN_OR_RETURN(RunResult res, RunProgram(p, {}));
  return CheckExpectation(p.expect, res.report, std::nullopt);
}

}  // namespace warpcheck::sim::signal
