#include "tools/warpcheck/prove_plan_command.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "verify/plan/plan_prove.h"

namespace warpcheck::cli {
namespace {

constexpr char kUsage[] =
    "usage: warpcheck prove plan --src=ATTR --dst=ATTR --shape=RxC --dtype=T [options]\n"
    "\n"
    "Plans the conversion (as `convert plan` does) and proves the plan with Z3 over the\n"
    "F2 maps, for every thread at once: every destination word gets the element the\n"
    "destination layout wants; shared stores are injective, store every element once and\n"
    "are read only after the barrier that orders them; vector accesses are aligned; the\n"
    "predicted wavefronts and bank conflicts are those the accesses cause. A violation\n"
    "prints the thread (lane + 32 warp), register and element, re-checked concretely.\n"
    "\n"
    "Options:\n"
    "  --num-warps=N              checked against the layouts\n"
    "  --strategy=auto|registers|shuffle|smem\n"
    "  --no-matrix                plan without stmatrix/ldmatrix stages (this prover does\n"
    "                             not encode them; exit 2 when the plan has one)\n"
    "  --rlimit=N                 Z3 resource limit per query (deterministic budget)\n"
    "  --smt-dump-dir=DIR         write every query as DIR/<query>.smt2\n"
    "  --format=text|json|textproto\n"
    "\n"
    "Exit codes: 0 holds, 10 violated, 5 inconclusive, 1 usage, 2 input error.\n";

void PrintText(const PlanProofReport& r, std::ostream& out) {
  out << "plan: " << r.strategy() << "  " << r.src() << " -> " << r.dst() << "  shape "
      << absl::StrJoin(r.shape(), "x") << " " << r.dtype() << ", " << r.num_warps()
      << " warps\n";
  out << "verdict: " << PlanProofObligation::Verdict_Name(r.verdict())
      << absl::StrFormat(" (%d queries, %.1f ms)\n", r.queries(), r.solver_ms());
  for (const PlanProofObligation& o : r.obligations()) {
    out << absl::StrFormat("  %-16s %-12s %7.1f ms", o.name(),
                           PlanProofObligation::Verdict_Name(o.verdict()), o.solver_ms());
    if (!o.detail().empty()) out << "  " << o.detail();
    out << "\n";
  }
  if (r.has_counterexample()) out << "counterexample: " << r.counterexample().text() << "\n";
  if (!r.reason().empty()) out << "inconclusive: " << r.reason() << "\n";
}

}  // namespace

const std::set<std::string>& ProvePlanValueFlags() {
  static const std::set<std::string> kFlags = {
      "src", "dst", "shape", "dtype", "num-warps", "strategy", "rlimit", "format",
      "smt-dump-dir"};
  return kFlags;
}

int RunProvePlan(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                 Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  for (const char* flag : {"src", "dst", "shape", "dtype"}) {
    if (!args.Has(flag)) {
      PrintError(err, absl::StrCat("prove plan: --", flag, " is required"));
      err << kUsage;
      return kExitUsage;
    }
  }
  if (!args.positional.empty()) {
    PrintError(err, "prove plan: takes no positional arguments; quote the attributes");
    return kExitUsage;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  sim::plan::PlanOptions plan_options;
  plan_options.no_matrix = args.Has("no-matrix");
  if (auto s = args.Get("strategy")) {
    auto strategy = sim::plan::ParseStrategy(*s);
    if (!strategy.ok()) {
      PrintError(err, strategy.status().message());
      return kExitUsage;
    }
    plan_options.strategy = *strategy;
  }
  verify::plan::PlanProveOptions options;
  options.stop_at_first_violation = false;
  if (auto rlimit = args.Get("rlimit")) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(*rlimit, &v) || v <= 0) {
      PrintError(err, absl::StrCat("--rlimit=", *rlimit, ": expected a positive integer"));
      return kExitUsage;
    }
    options.solver.rlimit = static_cast<uint64_t>(v);
  }
  const std::string dump_dir = args.Get("smt-dump-dir").value_or("");
  options.solver.keep_smt2 = !dump_dir.empty();
  auto shape = ParseShape(*args.Get("shape"));
  if (!shape.ok()) {
    PrintError(err, absl::StrCat("--shape: ", shape.status().message()));
    return kExitInputError;
  }
  auto dtype = sim::plan::ParseDType(*args.Get("dtype"));
  if (!dtype.ok()) {
    PrintError(err, absl::StrCat("--dtype: ", dtype.status().message()));
    return kExitInputError;
  }
  auto warps = args.GetInt("num-warps", 1, 64);
  if (!warps.ok()) {
    PrintError(err, warps.status().message());
    return kExitInputError;
  }
  std::vector<int64_t> shape64(shape->begin(), shape->end());
  auto problem = sim::plan::MakeProblem(*args.Get("src"), *args.Get("dst"), shape64, *dtype,
                                        warps->has_value() ? static_cast<int>(**warps) : 0);
  if (!problem.ok()) {
    PrintError(err, problem.status().message());
    return kExitInputError;
  }
  auto plan = sim::plan::PlanConversion(*problem, plan_options);
  if (!plan.ok()) {
    PrintError(err, plan.status().message());
    return ExitCodeFor(plan.status());
  }
  auto proof = verify::plan::ProvePlan(*problem, *plan, options);
  if (!proof.ok()) {
    PrintError(err, absl::StrCat("prove plan: ", proof.status().message()));
    return ExitCodeFor(proof.status());
  }
  for (const auto& [name, text] : proof->smt2) {
    if (!WriteOutputFile(absl::StrCat(dump_dir, "/", name, ".smt2"), text, "the query",
                         err)) {
      return kExitInputError;
    }
  }
  Report report;
  PlanProofReport* r = report.mutable_plan_proof();
  *r = verify::plan::ToProto(*proof, *problem, *plan);
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintText(*r, out);
  return ExitCodeFor(report);
}

}  // namespace warpcheck::cli
