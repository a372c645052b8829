#include "tools/warpcheck/convert_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/numbers.h"
#include "sim/base/status_macros.h"
#include "sim/base/tsv.h"
#include "sim/base/enum_name.h"
#include "sim/machine/launch.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "verify/fuzz/conversion_check.h"
#include "verify/ptx/prove_conversion.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "tools/warpcheck/plan_render.h"

namespace warpcheck::cli {
namespace {

constexpr char kUsage[] =
    "usage: warpcheck convert plan  --src=ATTR --dst=ATTR --shape=RxC --dtype=T [options]\n"
    "                               [--svg=FILE]\n"
    "       warpcheck convert emit  (same) [--harness=roundtrip|once|check] -o kernel.ptx\n"
    "                               [--launch-out=launch.textproto] [--iters=N]\n"
    "       warpcheck convert check (same) [--seed=N] [--prove=ptx|plan|all|none]\n"
    "                               [--one-way]\n"
    "\n"
    "Plans the conversion of a tensor between two distributed layouts of one CTA\n"
    "(registers, warp shuffles or shared memory; the cheapest by the cost model), emits\n"
    "it as PTX in the round-trip harness Triton's kernels use, and checks it on the\n"
    "simulator. T is f16, bf16, f32, i8, i16, i32, i64 or f64.\n"
    "\n"
    "Options:\n"
    "  --num-warps=N             checked against the layouts\n"
    "  --strategy=auto|registers|shuffle|smem\n"
    "  --no-swizzle              smem: keep the base shared order (no bank search)\n"
    "  --max-vector-bytes=N      smem: cap the access width (1..16)\n"
    "  --max-scratch-bytes=N     smem: the largest shared buffer a conversion may use\n"
    "                            (default 32768, Triton's scratch); a larger plan runs\n"
    "                            in rounds over a buffer of at most N bytes where its\n"
    "                            offset bits allow\n"
    "  --smem-access=auto|plain|matrix\n"
    "                            smem: plain st/ld.shared, stmatrix/ldmatrix, or the\n"
    "                            cheaper of both (auto, the default)\n"
    "  --harness=roundtrip|once|check\n"
    "                            emit: iters x (src->dst, dst->src), one src->dst, or\n"
    "                            both in one kernel (one src->dst stored to a 4th\n"
    "                            buffer `mid`, then the round trip: what check runs)\n"
    "  --iters=N                 the launch spec's iteration count (default 1)\n"
    "  --seed=N                  check: the random input's seed (default 1)\n"
    "  --one-way                 check: the conversion alone (planned as plan plans it,\n"
    "                            the once harness), as `fuzz layouts --one-way`\n"
    "  --prove=ptx|plan|all|none check: prove with Z3 both emitted kernels (ptx, the\n"
    "                            default), both plans over their F2 maps and their\n"
    "                            round trip (plan: `prove plan --round-trip`), or\n"
    "                            both (all)\n"
    "  --svg=FILE                plan: also draw the plan: both layouts' ownership, who\n"
    "                            sends what to whom in each step (register moves, each\n"
    "                            shuffle round's lane map, shared-memory requests) and\n"
    "                            each request's bank map (warp 0; conflicts in red),\n"
    "                            with per-CTA wavefront and conflict totals\n"
    "  --format=text|json|textproto\n"
    "\n"
    "check runs the check harness (the round-trip and once harnesses in one kernel) on\n"
    "random data and on distinct tags (IOTA), compares the simulator's counters of its\n"
    "forward conversion with the plan's, and proves the kernel with Z3 for every input\n"
    "(`warpcheck prove conversion`). Exit 0 when the runs and the\n"
    "proof hold, 10 when one fails, 5 when the proof is inconclusive.\n";

struct Setup {
  sim::plan::ConversionProblem problem;
  sim::plan::PlanOptions options;
};

// Reads the problem flags; returns the exit code on failure (error printed).
int ReadSetup(const ParsedArgs& args, std::ostream& err, Setup* setup) {
  for (const char* flag : {"src", "dst", "shape", "dtype"}) {
    if (!args.Has(flag)) {
      PrintError(err, absl::StrCat("convert: --", flag, " is required"));
      err << kUsage;
      return kExitUsage;
    }
  }
  auto shape = ParseShape(*args.Get("shape"));
  if (!shape.ok()) {
    PrintError(err, shape.status().message());
    return kExitInputError;
  }
  auto dtype = sim::plan::ParseDType(*args.Get("dtype"));
  if (!dtype.ok()) {
    PrintError(err, dtype.status().message());
    return kExitInputError;
  }
  auto warps = args.GetInt("num-warps", 1, 64);
  if (!warps.ok()) {
    PrintError(err, warps.status().message());
    return kExitInputError;
  }
  if (auto s = args.Get("strategy")) {
    auto strategy = sim::plan::ParseStrategy(*s);
    if (!strategy.ok()) {
      PrintError(err, strategy.status().message());
      return kExitUsage;
    }
    setup->options.strategy = *strategy;
  }
  setup->options.no_swizzle = args.Has("no-swizzle");
  auto vec = args.GetInt("max-vector-bytes", 1, 16);
  if (!vec.ok()) {
    PrintError(err, vec.status().message());
    return kExitUsage;
  }
  if (vec->has_value()) setup->options.max_vector_bytes = static_cast<int>(**vec);
  auto scratch = args.GetInt("max-scratch-bytes", 128, int64_t{1} << 30);
  if (!scratch.ok()) {
    PrintError(err, scratch.status().message());
    return kExitUsage;
  }
  if (scratch->has_value()) setup->options.max_scratch_bytes = **scratch;
  if (auto a = args.Get("smem-access")) {
    if (*a == "plain") {
      setup->options.no_matrix = true;
    } else if (*a == "matrix") {
      setup->options.only_matrix = true;
    } else if (*a != "auto") {
      PrintError(err, absl::StrCat("--smem-access: '", *a,
                                   "' is not one of auto, plain, matrix"));
      return kExitUsage;
    }
  }
  std::vector<int64_t> shape64(shape->begin(), shape->end());
  auto problem = sim::plan::MakeProblem(*args.Get("src"), *args.Get("dst"), shape64, *dtype,
                                        warps->has_value() ? static_cast<int>(**warps) : 0);
  if (!problem.ok()) {
    PrintError(err, problem.status().message());
    return kExitInputError;
  }
  setup->problem = *std::move(problem);
  return kExitOk;
}

void PrintPlanText(const Plan& plan, const sim::plan::ConversionPlan& cp, std::ostream& out) {
  const PlanCounts& c = plan.counts();
  out << "strategy: " << sim::base::EnumName(plan.strategy())
      << (plan.packing().elements_per_word() > 1
              ? absl::StrCat(" (", plan.packing().elements_per_word(), " elements a word)")
              : "")
      << "\n";
  out << absl::StrFormat(
      "per conversion: %d instructions (shfl %d, selp %d, prmt %d, st.shared %d, "
      "ld.shared %d, %sbar %d)\n",
      c.instructions(), c.shfl(), c.selp(), c.prmt(), c.st_shared(), c.ld_shared(),
      c.stmatrix() + c.ldmatrix() > 0
          ? absl::StrFormat("stmatrix %d, ldmatrix %d, ", c.stmatrix(), c.ldmatrix())
          : "",
      c.bar());
  if (plan.smem_bytes() > 0) {
    out << absl::StrFormat(
        "shared memory: %d bytes; wavefronts store %d load %d; bank conflicts store %d "
        "load %d (%s)\n",
        plan.smem_bytes(), plan.wavefronts().store(), plan.wavefronts().load(),
        plan.bank_conflicts().store(), plan.bank_conflicts().load(),
        plan.wavefronts_source());
  }
  out << absl::StrFormat("predicted: %.1f ns per conversion of one CTA (H200 cost model)\n",
                         plan.predicted_ns());
  out << "candidates:\n";
  for (const std::string& s : plan.candidates()) out << "  " << s << "\n";
  if (!cp.program.ops.empty()) {
    out << "program (one thread; setup values s<i> are computed once per thread):\n"
        << sim::plan::ProgramToString(cp.program);
  }
}

// Per-round-trip counters of a harness: iters=2 minus iters=1.
struct RoundTripCost {
  int64_t warp_instructions = 0, wavefronts = 0, barriers = 0, shfl = 0;
};

absl::StatusOr<RoundTripCost> MeasureRoundTrip(const sim::plan::ConversionProblem& problem,
                                               const sim::ptx::RoundTrip& trip,
                                               uint64_t seed, std::string* why_not) {
  const sim::ptx::Module module = sim::ptx::EmitHarnessModule(problem, trip.forward, &trip.backward,
                                                              sim::ptx::Harness::kRoundTrip);
  std::map<std::string, uint64_t> c[2];
  for (int it = 1; it <= 2; ++it) {
    LaunchSpec spec = sim::ptx::HarnessLaunchSpec(problem, "<emitted>", BufferParam::RANDOM,
                                                  seed, static_cast<uint32_t>(it));
    sim::machine::RunOptions ro;
    auto run = sim::machine::RunLaunchSpecOnModule(spec, module, ".", ro);
    if (!run.ok()) return run.status();
    if (!run->report.ok()) {
      *why_not = absl::StrCat("iters=", it, ": ", verify::fuzz::FailureText(run->report));
      return RoundTripCost{};
    }
    c[it - 1] = std::map<std::string, uint64_t>(run->report.counters().begin(),
                                                run->report.counters().end());
  }
  auto d = [&](const char* k) { return static_cast<int64_t>(c[1][k]) - static_cast<int64_t>(c[0][k]); };
  RoundTripCost cost;
  cost.warp_instructions = d("warp_instructions");
  cost.wavefronts = d("smem_wavefronts");
  cost.barriers = d("barriers");
  cost.shfl = d("shfl");
  return cost;
}

// --prove: the round-trip kernel proven for every input (verify/ptx).
void ProveRow(const sim::plan::ConversionProblem& problem, const sim::ptx::RoundTrip& trip,
              ConvertCompareReport::Row* r) {
  auto t0 = std::chrono::steady_clock::now();
  const sim::ptx::Module module = sim::ptx::EmitHarnessModule(problem, trip.forward, &trip.backward,
                                                              sim::ptx::Harness::kRoundTrip);
  absl::StatusOr<verify::ptx::ConversionProof> proof =
      verify::fuzz::ProveHarness(problem, module, 2);
  r->set_proof(proof.ok() ? verify::ptx::ProofVerdictName(proof->verdict) : "error");
  if (proof.ok() && proof->verdict != verify::ptx::ProofVerdict::kHolds) {
    r->set_detail(absl::StrCat("proof: ", proof->reason));
  }
  r->set_proof_ms(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

// One row of a cost table: plan, emit and measure our round trip into `r` (Triton's
// figures from the row). Ensures: false when the row is outside the planner's scope;
// r->ok() when ours round-tripped correctly.
bool CompareRow(const sim::base::TsvTable& t, const std::vector<std::string>& row,
                bool prove, ConvertCompareReport::Row* r) {
  auto num = [&](const char* col) {
    int64_t v = 0;
    (void)absl::SimpleAtoi(t.Cell(row, col), &v);
    return v;
  };
  r->set_line(num("line"));
  r->set_triton_warp_instructions(num("warp_instructions"));
  r->set_triton_smem_wavefronts(num("smem_wavefronts_store") + num("smem_wavefronts_load"));
  r->set_triton_barriers(num("barriers"));
  r->set_triton_shfl(num("shfl"));
  r->set_baseline_warp_instructions(-1);
  r->set_baseline_smem_wavefronts(-1);
  auto shape = ParseShape(t.Cell(row, "shape"));
  auto dtype = sim::plan::ParseDType(t.Cell(row, "dtype"));
  if (!shape.ok() || !dtype.ok()) {
    r->set_detail("bad shape or dtype in the table");
    return false;
  }
  std::vector<int64_t> shape64(shape->begin(), shape->end());
  auto problem = sim::plan::MakeProblem(t.Cell(row, "src"), t.Cell(row, "dst"), shape64,
                                        *dtype, static_cast<int>(num("num_warps")));
  if (!problem.ok()) {
    r->set_detail(absl::StrCat("input error: ", problem.status().message()));
    return false;
  }
  auto trip = sim::ptx::PlanRoundTrip(*problem, sim::plan::PlanOptions{});
  if (!trip.ok()) {
    r->set_detail(absl::StrCat("plan: ", trip.status().message()));
    return true;
  }
  r->set_strategy(sim::base::EnumName(sim::plan::ToProto(*problem, trip->forward).strategy()));
  std::string why_not;
  auto cost = MeasureRoundTrip(*problem, *trip, 1000 + r->line(), &why_not);
  if (!cost.ok() || !why_not.empty()) {
    r->set_detail(cost.ok() ? why_not : std::string(cost.status().message()));
    return true;
  }
  r->set_ok(true);
  if (prove) ProveRow(*problem, *trip, r);
  r->set_warp_instructions(cost->warp_instructions);
  r->set_smem_wavefronts(cost->wavefronts);
  r->set_barriers(cost->barriers);
  r->set_shfl(cost->shfl);
  return true;
}

// `--baseline`: line -> (warp instructions, wavefronts) of a recorded compare table.
absl::StatusOr<std::map<int64_t, std::pair<int64_t, int64_t>>> ReadBaseline(
    const std::string& path) {
  ASSIGN_OR_RETURN(sim::base::TsvTable t, sim::base::ReadTsvFile(path));
  if (t.Col("line") < 0 || t.Col("warp_instructions") < 0 || t.Col("smem_wavefronts") < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": needs columns line, warp_instructions, smem_wavefronts"));
  }
  std::map<int64_t, std::pair<int64_t, int64_t>> baseline;
  for (const auto& r : t.rows) {
    int64_t l, i, w;
    if (absl::SimpleAtoi(t.Cell(r, "line"), &l) &&
        absl::SimpleAtoi(t.Cell(r, "warp_instructions"), &i) &&
        absl::SimpleAtoi(t.Cell(r, "smem_wavefronts"), &w)) {
      baseline[l] = {i, w};
    }
  }
  return baseline;
}

// The summary over the rows: counts, geometric means, regressions against `baseline`.
void Summarize(const std::map<int64_t, std::pair<int64_t, int64_t>>& baseline,
               ConvertCompareReport* cmp) {
  double log_i = 0, log_w = 0;
  int64_t n_i = 0, n_w = 0;
  for (ConvertCompareReport::Row& r : *cmp->mutable_rows()) {
    if (!r.ok()) continue;
    cmp->set_correct(cmp->correct() + 1);
    if (r.proof() == "holds") cmp->set_proven(cmp->proven() + 1);
    if (r.warp_instructions() <= r.triton_warp_instructions() &&
        r.smem_wavefronts() <= r.triton_smem_wavefronts()) {
      cmp->set_not_worse(cmp->not_worse() + 1);
      if (r.warp_instructions() < r.triton_warp_instructions() ||
          r.smem_wavefronts() < r.triton_smem_wavefronts()) {
        cmp->set_strictly_better(cmp->strictly_better() + 1);
      }
    }
    if (r.triton_warp_instructions() > 0 && r.warp_instructions() > 0) {
      log_i += std::log(double(r.warp_instructions()) / r.triton_warp_instructions());
      ++n_i;
    }
    if (r.triton_smem_wavefronts() > 0) {
      log_w += std::log(std::max(1.0, double(r.smem_wavefronts())) / r.triton_smem_wavefronts());
      ++n_w;
    }
    auto b = baseline.find(r.line());
    if (b != baseline.end()) {
      r.set_baseline_warp_instructions(b->second.first);
      r.set_baseline_smem_wavefronts(b->second.second);
      if (r.warp_instructions() > b->second.first || r.smem_wavefronts() > b->second.second) {
        cmp->set_regressions(cmp->regressions() + 1);
      }
    }
  }
  cmp->set_geomean_instruction_ratio(n_i ? std::exp(log_i / n_i) : 1.0);
  cmp->set_geomean_wavefront_ratio(n_w ? std::exp(log_w / n_w) : 1.0);
}

std::string CompareTsv(const ConvertCompareReport& cmp) {
  std::string text =
      "line\tok\tstrategy\twarp_instructions\tsmem_wavefronts\tbarriers\tshfl\t"
      "triton_warp_instructions\ttriton_smem_wavefronts\ttriton_barriers\ttriton_shfl\tdetail\n";
  for (const auto& r : cmp.rows()) {
    absl::StrAppend(&text, r.line(), "\t", r.ok() ? 1 : 0, "\t", r.strategy(), "\t",
                    r.warp_instructions(), "\t", r.smem_wavefronts(), "\t", r.barriers(),
                    "\t", r.shfl(), "\t", r.triton_warp_instructions(), "\t",
                    r.triton_smem_wavefronts(), "\t", r.triton_barriers(), "\t",
                    r.triton_shfl(), "\t", r.detail(), "\n");
  }
  return text;
}

void PrintCompareText(const ConvertCompareReport& cmp, bool with_baseline, std::ostream& out) {
  out << absl::StrFormat(
      "pairs %d: correct %d, outside scope %d; <= Triton (warp instructions and "
      "wavefronts) %d (%.1f%%), strictly better %d (%.1f%%)\n"
      "geomean ours/Triton: warp instructions %.3f, wavefronts %.3f\n",
      cmp.pairs(), cmp.correct(), cmp.input_errors(), cmp.not_worse(),
      100.0 * cmp.not_worse() / std::max<int64_t>(1, cmp.pairs()), cmp.strictly_better(),
      100.0 * cmp.strictly_better() / std::max<int64_t>(1, cmp.pairs()),
      cmp.geomean_instruction_ratio(), cmp.geomean_wavefront_ratio());
  if (with_baseline) out << "regressions against the baseline: " << cmp.regressions() << "\n";
  std::vector<double> ms;
  for (const auto& r : cmp.rows()) {
    if (!r.proof().empty()) ms.push_back(r.proof_ms());
  }
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    out << absl::StrFormat("proven for every input (Z3): %d of %d correct; proof median %.0f ms, "
                           "max %.0f ms\n",
                           cmp.proven(), cmp.correct(), ms[ms.size() / 2], ms.back());
    for (const auto& r : cmp.rows()) {
      if (!r.proof().empty() && r.proof() != "holds") {
        out << absl::StrFormat("  line %d: proof %s (%s)\n", r.line(), r.proof(), r.detail());
      }
    }
  }
  int shown = 0;
  for (const auto& r : cmp.rows()) {
    if (r.ok() && r.warp_instructions() <= r.triton_warp_instructions() &&
        r.smem_wavefronts() <= r.triton_smem_wavefronts()) {
      continue;
    }
    if (++shown > 20) break;
    out << absl::StrFormat("  line %d %s: ours %d instr %d wf, triton %d instr %d wf %s\n",
                           r.line(), r.strategy(), r.warp_instructions(), r.smem_wavefronts(),
                           r.triton_warp_instructions(), r.triton_smem_wavefronts(),
                           r.detail());
  }
}

int RunCompare(const ParsedArgs& args, OutputFormat format, std::ostream& out,
               std::ostream& err, Report* report_out) {
  if (args.positional.size() != 1) {
    PrintError(err, "convert compare: expected one TSV (corpus/plan/triton_costs.tsv)");
    return kExitUsage;
  }
  auto table = sim::base::ReadTsvFile(args.positional[0]);
  if (!table.ok()) {
    PrintError(err, table.status().message());
    return kExitInputError;
  }
  for (const char* n : {"line", "status", "src", "dst", "shape", "dtype", "num_warps",
                        "warp_instructions", "smem_wavefronts_store", "smem_wavefronts_load",
                        "barriers", "shfl"}) {
    if (table->Col(n) < 0) {
      PrintError(err, absl::StrCat(args.positional[0], ": no column '", n, "'"));
      return kExitInputError;
    }
  }
  std::map<int64_t, std::pair<int64_t, int64_t>> baseline;
  if (auto b = args.Get("baseline")) {
    auto read = ReadBaseline(*b);
    if (!read.ok()) {
      PrintError(err, read.status().message());
      return kExitInputError;
    }
    baseline = *std::move(read);
  }
  auto limit = args.GetInt("limit", 1, INT64_MAX);
  if (!limit.ok()) {
    PrintError(err, limit.status().message());
    return kExitUsage;
  }
  Report report;
  ConvertCompareReport* cmp = report.mutable_convert_compare();
  for (const auto& row : table->rows) {
    if (table->Cell(row, "status") != "ok") continue;
    if (limit->has_value() && cmp->pairs() >= **limit) break;
    cmp->set_pairs(cmp->pairs() + 1);
    if (!CompareRow(*table, row, args.Has("prove"), cmp->add_rows())) {
      cmp->set_input_errors(cmp->input_errors() + 1);
    }
  }
  Summarize(baseline, cmp);
  if (auto tsv = args.Get("tsv-out")) {
    if (!WriteOutputFile(*tsv, CompareTsv(*cmp), "the comparison table", err)) {
      return kExitInputError;
    }
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, format, out)) PrintCompareText(*cmp, !baseline.empty(), out);
  if (cmp->correct() + cmp->input_errors() != cmp->pairs()) return kExitViolated;
  if (args.Has("prove") && cmp->proven() != cmp->correct()) {
    for (const auto& r : cmp->rows()) {
      if (r.proof() == "violated") return kExitViolated;
    }
    return kExitInconclusive;
  }
  if (args.Has("require-not-worse") && cmp->not_worse() != cmp->correct()) return kExitViolated;
  if (cmp->regressions() > 0) return kExitViolated;
  return kExitOk;
}

int RunEmit(const ParsedArgs& args, const sim::plan::ConversionProblem& problem,
             const sim::ptx::RoundTrip* trip, sim::ptx::Harness harness,
             const std::string& harness_name, std::optional<int64_t> iters, Report& report,
             OutputFormat format, std::ostream& out, std::ostream& err, Report* report_out) {
  auto path = args.Get("o");
  if (!path) path = args.Get("output");
  if (!path) {
    PrintError(err, "convert emit: -o FILE is required (where the PTX goes)");
    return kExitUsage;
  }
  std::string ptx = sim::ptx::EmitHarness(problem, trip->forward, &trip->backward, harness);
  if (!WriteOutputFile(*path, ptx, "the PTX", err)) return kExitInputError;
  if (auto launch = args.Get("launch-out")) {
    // The spec names the PTX relative to its own folder.
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string rel =
      fs::absolute(*path, ec).lexically_relative(fs::absolute(*launch, ec).parent_path()).string();
  LaunchSpec spec = sim::ptx::HarnessLaunchSpec(
        problem, rel, BufferParam::RANDOM, 1,
        static_cast<uint32_t>(iters.value_or(1)), harness);
    std::string text = absl::StrCat("# proto-file: proto/launch.proto\n",
                                    "# proto-message: warpcheck.LaunchSpec\n",
                                    spec.DebugString());
    if (!WriteOutputFile(*launch, text, "the launch spec", err)) return kExitInputError;
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, format, out)) {
    out << "wrote " << *path << " (" << harness_name << " harness, "
        << sim::base::EnumName(report.plan().strategy()) << ")\n";
  }
  return kExitOk;
}

// --prove=plan|all: both directions' plans proven over the F2 maps (verify/plan).
int RunCheck(const ParsedArgs& args, const sim::plan::ConversionProblem& problem,
             const sim::ptx::RoundTrip* trip, Report& report, OutputFormat format,
             std::ostream& out, std::ostream& err, Report* report_out) {
  auto seed = args.GetInt("seed", 0, INT64_MAX);
  if (!seed.ok()) {
    PrintError(err, seed.status().message());
    return kExitUsage;
  }
  std::string prove_flag = args.Get("prove").value_or("ptx");
  if (prove_flag != "ptx" && prove_flag != "plan" && prove_flag != "all" && prove_flag != "none") {
    PrintError(err, absl::StrCat("--prove: '", prove_flag, "' is not ptx, plan, all or none"));
    return kExitUsage;
  }
  // `prove` below: the emitted PTX; the plans' own proofs (verify/plan) with plan|all.
  const std::string prove = prove_flag == "plan" || prove_flag == "none" ? "none" : "ptx";
  const bool prove_plans = prove_flag == "plan" || prove_flag == "all";
  verify::fuzz::CheckOptions options;
  options.roundtrip = !args.Has("one-way");
  options.seed = static_cast<uint64_t>(seed->value_or(1));
  options.prove_ptx = prove == "ptx";
  options.prove_plans = prove_plans;
  bool inconclusive = false;
  ConvertCheckReport* check = report.mutable_convert_check();
  *check = verify::fuzz::CheckConversion(problem, *trip, report.plan(), options, &inconclusive);
  for (const auto& r : check->runs()) {
    if (absl::EndsWith(r.fill(), "/parse")) {
      PrintError(err, absl::StrCat("convert check: ", r.detail()));
      return kExitInternal;
    }
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, format, out)) {
    out << (check->ok() ? "ok" : "NOT ok") << ": "
        << sim::base::EnumName(report.plan().strategy()) << ", "
        << report.plan().counts().instructions() << " instructions per conversion\n";
    for (const auto& r : check->runs()) {
      out << "  " << r.fill() << ": " << (r.ok() ? "ok" : "FAILS")
          << (r.detail().empty() ? "" : absl::StrCat(" (", r.detail(), ")")) << "\n";
    }
    if (prove == "none") out << "  proof: not run (--prove=none)\n";
  }
  if (!check->ok()) return kExitViolated;
  return inconclusive ? kExitInconclusive : kExitOk;
}

}  // namespace

int RunConvert(ConvertAction action, const ParsedArgs& args, std::ostream& out,
               std::ostream& err, Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  if (action != ConvertAction::kCompare && !args.positional.empty()) {
    PrintError(err, absl::StrCat("convert: unexpected argument '", args.positional[0],
                                 "'; layouts are given with --src and --dst"));
    return kExitUsage;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (action == ConvertAction::kCompare) return RunCompare(args, *format, out, err, report_out);
  Setup setup;
  if (int code = ReadSetup(args, err, &setup); code != kExitOk) return code;
  const sim::plan::ConversionProblem& problem = setup.problem;
  Report report;

  if (action == ConvertAction::kPlan) {
    auto plan = sim::plan::PlanConversion(problem, setup.options);
    if (!plan.ok()) {
      PrintError(err, plan.status().message());
      return kExitInputError;
    }
    *report.mutable_plan() = sim::plan::ToProto(problem, *plan);
    if (auto svg_path = args.Get("svg")) {
      absl::StatusOr<std::string> picture = RenderPlanSvg(problem, *plan);
      if (!picture.ok()) {
        PrintError(err, absl::StrCat("convert plan --svg: ", picture.status().message()));
        return kExitInternal;
      }
      if (!WriteOutputFile(*svg_path, *picture, "the SVG file", err)) return kExitInputError;
    }
    if (report_out) *report_out = report;
    if (!PrintMachineReport(report, *format, out)) PrintPlanText(report.plan(), *plan, out);
    return kExitOk;
  }

  std::string harness_name = args.Get("harness").value_or("roundtrip");
  if (harness_name != "roundtrip" && harness_name != "once" && harness_name != "check") {
    PrintError(err, absl::StrCat("--harness=", harness_name,
                                 ": expected roundtrip, once or check"));
    return kExitUsage;
  }
  const sim::ptx::Harness harness = harness_name == "once"    ? sim::ptx::Harness::kOnce
                                    : harness_name == "check" ? sim::ptx::Harness::kCheck
                                                              : sim::ptx::Harness::kRoundTrip;
  // check --one-way: the conversion alone, planned as the fuzzer's --one-way plans it.
  const bool one_way = action == ConvertAction::kCheck && args.Has("one-way");
  verify::fuzz::CheckOptions planned_for;
  planned_for.roundtrip = !one_way;
  auto trip = action == ConvertAction::kCheck
                  ? verify::fuzz::PlanForCheck(problem, setup.options, planned_for)
                  : sim::ptx::PlanRoundTrip(problem, setup.options,
                                            /*narrow_one_warp=*/harness != sim::ptx::Harness::kOnce);
  if (!trip.ok()) {
    PrintError(err, trip.status().message());
    return kExitInputError;
  }
  *report.mutable_plan() = sim::plan::ToProto(problem, trip->forward);
  auto iters = args.GetInt("iters", 0, 1 << 30);
  if (!iters.ok()) {
    PrintError(err, iters.status().message());
    return kExitUsage;
  }

  if (action == ConvertAction::kEmit) {
    return RunEmit(args, problem, &*trip, harness, harness_name, *iters, report, *format, out,
                   err, report_out);
  }
  return RunCheck(args, problem, &*trip, report, *format, out, err, report_out);
}

}  // namespace warpcheck::cli
