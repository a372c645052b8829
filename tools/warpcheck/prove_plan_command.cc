#include "tools/warpcheck/prove_plan_command.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "verify/plan/plan_prove.h"
#include "verify/plan/round_trip_prove.h"

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
    "stmatrix/ldmatrix stages (.x1/.x2/.x4, .trans) are encoded byte by byte from the PTX\n"
    "fragment layout: their rows enter the store, alignment and bank obligations.\n"
    "\n"
    "With --round-trip, plans both directions as `convert emit --harness=roundtrip` does\n"
    "and proves each, then that the loop body composed of them is the identity on\n"
    "elements (roundtrip.chain, roundtrip.identity) and that its shared accesses across\n"
    "the directions and iterations are ordered by barriers (roundtrip.buffers). The\n"
    "identity follows from the two proofs; the simplified body codegen prints is proven\n"
    "as printed only when it has no shared memory. A program mixing shared memory with\n"
    "register ops is not encoded (exit 2).\n"
    "\n"
    "Options:\n"
    "  --num-warps=N              checked against the layouts\n"
    "  --strategy=auto|registers|shuffle|smem\n"
    "  --no-matrix                plan without stmatrix/ldmatrix stages\n"
    "  --round-trip               prove both directions of the round trip and their\n"
    "                             composition\n"
    "  --rlimit=N                 Z3 resource limit per query (deterministic budget)\n"
    "  --smt-dump-dir=DIR         write every query as DIR/<query>.smt2\n"
    "  --format=text|json|textproto\n"
    "\n"
    "Exit codes: 0 holds, 10 violated, 5 inconclusive, 1 usage, 2 input error.\n";

void PrintObligation(const PlanProofObligation& o, std::ostream& out) {
  out << absl::StrFormat("  %-18s %-12s %7.1f ms", o.name(),
                         PlanProofObligation::Verdict_Name(o.verdict()), o.solver_ms());
  if (!o.detail().empty()) out << "  " << o.detail();
  out << "\n";
}

void PrintText(const PlanProofReport& r, std::ostream& out) {
  out << "plan: " << r.strategy() << "  " << r.src() << " -> " << r.dst() << "  shape "
      << absl::StrJoin(r.shape(), "x") << " " << r.dtype() << ", " << r.num_warps()
      << " warps\n";
  out << "verdict: " << PlanProofObligation::Verdict_Name(r.verdict())
      << absl::StrFormat(" (%d queries, %.1f ms)\n", r.queries(), r.solver_ms());
  for (const PlanProofObligation& o : r.obligations()) PrintObligation(o, out);
  if (r.has_counterexample()) out << "counterexample: " << r.counterexample().text() << "\n";
  if (!r.reason().empty()) out << "inconclusive: " << r.reason() << "\n";
}

void PrintRoundTrip(const PlanRoundTripReport& r, std::ostream& out) {
  out << "round trip: " << PlanProofObligation::Verdict_Name(r.verdict()) << "\n";
  for (const char* dir : {"forward", "backward"}) {
    out << "\n" << dir << " ";
    PrintText(std::string(dir) == "forward" ? r.forward() : r.backward(), out);
  }
  out << "\ncomposition:\n";
  for (const PlanProofObligation& o : r.composition()) PrintObligation(o, out);
  if (!r.reason().empty()) out << "not proven: " << r.reason() << "\n";
}

// --round-trip: both directions (sim/ptx PlanRoundTrip) and their composition.
int RunRoundTrip(const sim::plan::ConversionProblem& problem,
                 const sim::plan::PlanOptions& plan_options,
                 const verify::plan::PlanProveOptions& options, OutputFormat format,
                 std::ostream& out, std::ostream& err, Report* report_out) {
  auto trip = sim::ptx::PlanRoundTrip(problem, plan_options);
  if (!trip.ok()) {
    PrintError(err, trip.status().message());
    return ExitCodeFor(trip.status());
  }
  auto proof = verify::plan::ProveRoundTrip(problem, trip->forward, trip->backward, options);
  if (!proof.ok()) {
    PrintError(err, absl::StrCat("prove plan: ", proof.status().message()));
    return ExitCodeFor(proof.status());
  }
  Report report;
  *report.mutable_plan_round_trip() =
      verify::plan::ToProto(*proof, problem, trip->forward, trip->backward);
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, format, out)) PrintRoundTrip(report.plan_round_trip(), out);
  return ExitCodeFor(report);
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
  if (args.Has("round-trip")) {
    if (!dump_dir.empty()) {
      PrintError(err, "prove plan: --smt-dump-dir is for one plan, not with --round-trip");
      return kExitUsage;
    }
    return RunRoundTrip(*problem, plan_options, options, *format, out, err, report_out);
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
