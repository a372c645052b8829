#include "verify/fuzz/conversion_check.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "sim/machine/launch.h"
#include "sim/machine/machine.h"
#include "sim/machine/program.h"
#include "verify/plan/plan_prove.h"
#include "verify/plan/round_trip_prove.h"

namespace warpcheck::verify::fuzz {
namespace {

using sim::ptx::Harness;

// One plan-proof run: `verdict` with `detail`; a violated verdict fails the check, an
// inconclusive one sets *inconclusive. check->plan_proof() keeps the worst verdict.
void RecordPlanProof(const std::string& name, verify::plan::Verdict verdict,
                     const std::string& detail, ConvertCheckReport* check,
                     bool* inconclusive) {
  ConvertCheckReport::Run* r = check->add_runs();
  r->set_fill(name);
  r->set_ok(verdict == verify::plan::Verdict::kHolds);
  r->set_detail(detail);
  if (verdict == verify::plan::Verdict::kViolated) {
    check->set_ok(false);
    check->set_plan_proof("violated");
  } else if (verdict == verify::plan::Verdict::kInconclusive) {
    *inconclusive = true;
    if (check->plan_proof() == "holds") check->set_plan_proof("inconclusive");
  }
}

std::string PlanProofDetail(const verify::plan::PlanProof& proof) {
  return proof.verdict == verify::plan::Verdict::kHolds
             ? absl::StrFormat("holds (%d queries, %.1f ms solver)", proof.queries,
                               proof.solver_ms)
             : absl::StrCat(
                   verify::plan::VerdictName(proof.verdict), ": ",
                   proof.counterexample ? proof.counterexample->text : proof.reason);
}

// Both plans proven over their F2 maps, and their composition (verify/plan
// ProveRoundTrip, as `prove plan --round-trip`): runs "forward/plan-proof",
// "backward/plan-proof" and "roundtrip/plan-proof" (roundtrip.chain, .identity and
// .buffers). A plan outside verify/plan's encoding is "not proven" (inconclusive): then
// each direction is tried on its own, so the one inside the encoding is still proven.
void ProvePlans(const sim::plan::ConversionProblem& problem,
                const sim::ptx::RoundTrip& trip, ConvertCheckReport* check,
                bool* inconclusive) {
  using verify::plan::Verdict;
  check->set_plan_proof("holds");
  auto rt = verify::plan::ProveRoundTrip(problem, trip.forward, trip.backward, {});
  if (rt.ok()) {
    RecordPlanProof("forward/plan-proof", rt->forward.verdict,
                    PlanProofDetail(rt->forward), check, inconclusive);
    RecordPlanProof("backward/plan-proof", rt->backward.verdict,
                    PlanProofDetail(rt->backward), check, inconclusive);
    Verdict composed = Verdict::kHolds;
    std::vector<std::string> parts;
    for (const verify::plan::ObligationResult& ob : rt->composition) {
      if (ob.verdict == Verdict::kViolated) composed = Verdict::kViolated;
      if (ob.verdict == Verdict::kInconclusive && composed == Verdict::kHolds) {
        composed = Verdict::kInconclusive;
      }
      if (ob.verdict != Verdict::kHolds) {
        parts.push_back(absl::StrCat(ob.name, " ", verify::plan::VerdictName(ob.verdict),
                                     ": ", ob.detail));
      }
    }
    RecordPlanProof("roundtrip/plan-proof", composed,
                    composed == Verdict::kHolds
                        ? "holds (roundtrip.chain, roundtrip.identity, roundtrip.buffers)"
                        : absl::StrJoin(parts, "; "),
                    check, inconclusive);
    return;
  }
  const std::string why = absl::StrCat("not proven: ", rt.status().message());
  const sim::plan::ConversionProblem back = problem.Reversed();
  for (int dir = 0; dir < 2; ++dir) {
    const std::string name = dir == 0 ? "forward/plan-proof" : "backward/plan-proof";
    auto proof = verify::plan::ProvePlan(dir == 0 ? problem : back,
                                         dir == 0 ? trip.forward : trip.backward, {});
    if (proof.ok()) {
      RecordPlanProof(name, proof->verdict, PlanProofDetail(*proof), check, inconclusive);
    } else {
      RecordPlanProof(name, Verdict::kInconclusive,
                      absl::StrCat("not proven: ", proof.status().message()), check,
                      inconclusive);
    }
  }
  RecordPlanProof("roundtrip/plan-proof", Verdict::kInconclusive, why, check,
                  inconclusive);
}

// The simulated round trips of a harness's run: the once harness converts once, the
// round-trip harness loops twice (its back edge taken). The check harness loops twice on
// the run that looks for races (the loop entered again from its back edge, so the races
// between one round trip's accesses and the next one's are looked for), once on the
// other (every instruction of the loop runs, the back edge's copies too, before the store
// reads them: the second pass runs the same instructions on the same kind of data).
uint32_t Iters(Harness h, bool races) {
  switch (h) {
    case Harness::kOnce: return 1;
    case Harness::kRoundTrip: return 2;
    case Harness::kCheck: return races ? 2 : 1;
  }
  return 1;
}

// One harness on the simulator with one fill: run "<harness>/<fill>". `program` is the
// harness's kernel decoded once for both fills (or why it does not decode), `memo` the
// bank costs its launches share (the same figures as each launch's own). `races`: with
// shared-memory race detection (CheckConversion runs it on one fill of each harness).
// `measured_below_pc`: this run's counters go to check->measured(), its shared-memory
// figures those of the instructions below that pc (nullopt: not measured).
void RunHarness(const sim::plan::ConversionProblem& problem,
                const absl::StatusOr<sim::machine::Program>& program, Harness h,
                BufferParam::Fill fill, uint64_t seed, bool races,
                std::optional<uint32_t> measured_below_pc, sim::machine::SharedCostMemo* memo,
                ConvertCheckReport* check) {
  LaunchSpec spec =
      sim::ptx::HarnessLaunchSpec(problem, "<emitted>", fill, seed, Iters(h, races), h);
  const bool measured = measured_below_pc.has_value();
  sim::machine::RunOptions ro;
  ro.hash_buffers = false;  // only ok, faults and counters are read
  ro.report_counters = measured;  // read from this run only (below)
  if (measured) ro.count_banks_below_pc = *measured_below_pc;
  ro.shared_cost_memo = memo;
  ro.detect_races = races;
  auto run = program.ok() ? sim::machine::RunLaunchSpecOnProgram(spec, *program, ".", ro)
                          : absl::StatusOr<sim::machine::LaunchResult>(program.status());
  ConvertCheckReport::Run* r = check->add_runs();
  r->set_fill(absl::StrCat(sim::ptx::HarnessName(h), "/",
                           fill == BufferParam::RANDOM ? "random" : "iota"));
  if (!run.ok()) {
    r->set_ok(false);
    r->set_detail(std::string(run.status().message()));
    check->set_ok(false);
    return;
  }
  r->set_ok(run->report.ok());
  if (!run->report.ok()) {
    check->set_ok(false);
    r->set_detail(FailureText(run->report));
  }
  if (measured) {
    for (const auto& [k, v] : run->report.counters()) {
      (*check->mutable_measured())[k] = static_cast<int64_t>(v);
    }
  }
}

// The same kernel proven for every input (verify/ptx): run "<harness>/proof".
void ProveOne(const sim::plan::ConversionProblem& problem, const sim::ptx::Module& module,
              Harness h, ConvertCheckReport* check, bool* inconclusive) {
  auto proof = ProveHarness(problem, module, h == Harness::kOnce ? 1 : 2, h);
  ConvertCheckReport::Run* r = check->add_runs();
  r->set_fill(absl::StrCat(sim::ptx::HarnessName(h), "/proof"));
  if (!proof.ok()) {
    r->set_ok(false);
    r->set_detail(std::string(proof.status().message()));
    check->set_ok(false);
    check->set_proof("error");
    return;
  }
  r->set_ok(proof->verdict == ptx::ProofVerdict::kHolds);
  r->set_detail(proof->verdict == ptx::ProofVerdict::kHolds
                    ? absl::StrFormat("holds for every input (%d elements, %.1f ms solver)",
                                      proof->elements, proof->solver_ms)
                    : absl::StrCat(ptx::ProofVerdictName(proof->verdict), ": ", proof->reason));
  if (proof->verdict == ptx::ProofVerdict::kViolated) {
    check->set_ok(false);
    check->set_proof("violated");
  } else if (proof->verdict == ptx::ProofVerdict::kInconclusive) {
    *inconclusive = true;
    if (check->proof() == "holds") check->set_proof("inconclusive");
  }
}

// The once harness measures one conversion's shared-memory traffic exactly (its global
// loads and stores do not touch shared memory): run "cost-model" when it disagrees.
void CheckModel(const Plan& plan, ConvertCheckReport* check) {
  const auto& m = check->measured();
  auto get = [&](const char* k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  if (get("smem_wavefronts.store") == plan.wavefronts().store() &&
      get("smem_wavefronts.load") == plan.wavefronts().load() &&
      get("bank_conflicts.store") == plan.bank_conflicts().store() &&
      get("bank_conflicts.load") == plan.bank_conflicts().load()) {
    return;
  }
  check->set_ok(false);
  ConvertCheckReport::Run* r = check->add_runs();
  r->set_fill("cost-model");
  r->set_ok(false);
  r->set_detail(absl::StrFormat(
      "predicted wavefronts store %d load %d, conflicts %d/%d; simulated %d %d, %d/%d",
      plan.wavefronts().store(), plan.wavefronts().load(), plan.bank_conflicts().store(),
      plan.bank_conflicts().load(), get("smem_wavefronts.store"), get("smem_wavefronts.load"),
      get("bank_conflicts.store"), get("bank_conflicts.load")));
}

}  // namespace

std::string FailureText(const SimReport& report) {
  std::vector<std::string> why;
  for (const SimFault& f : report.faults()) {
    why.push_back(absl::StrCat(f.kind(), " line ", f.line(), ": ", f.text()));
  }
  for (const SimExpectationResult& e : report.expectations()) {
    if (!e.ok()) {
      why.push_back(absl::StrCat(e.name(), e.detail().empty() ? " fails" : ": ", e.detail()));
    }
  }
  return absl::StrJoin(why, "; ");
}

absl::StatusOr<ptx::ConversionProof> ProveHarness(const sim::plan::ConversionProblem& problem,
                                                  const sim::ptx::Module& module,
                                                  uint32_t iters, Harness harness) {
  LaunchSpec spec = sim::ptx::HarnessLaunchSpec(problem, "<emitted>", BufferParam::RANDOM, 1,
                                                iters, harness);
  ptx::ConversionProofOptions options;
  options.shape = problem.shape;
  return ptx::ProveLaunch(spec, module, options);
}

absl::StatusOr<sim::ptx::RoundTrip> PlanForCheck(const sim::plan::ConversionProblem& problem,
                                                 const sim::plan::PlanOptions& plan_options,
                                                 const CheckOptions& options) {
  if (options.roundtrip) return sim::ptx::PlanRoundTrip(problem, plan_options);
  absl::StatusOr<sim::plan::ConversionPlan> forward =
      sim::plan::PlanConversion(problem, plan_options);
  if (!forward.ok()) return forward.status();
  return sim::ptx::RoundTrip{*std::move(forward), {}};
}

ConvertCheckReport CheckConversion(const sim::plan::ConversionProblem& problem,
                                   const sim::ptx::RoundTrip& trip, const Plan& plan,
                                   const CheckOptions& options, bool* inconclusive,
                                   StageSeconds* seconds) {
  StageSeconds unused;
  StageSeconds& t = seconds != nullptr ? *seconds : unused;
  StageClock clock;
  ConvertCheckReport check;
  check.set_ok(true);
  check.set_proof(options.prove_ptx ? "holds" : "not_run");
  if (options.prove_plans) {
    ProvePlans(problem, trip, &check, inconclusive);
    t.prove += clock.Lap();
  }
  // With the round trip: the check harness (the once and round-trip harnesses in one
  // kernel, sim/ptx/codegen.h), measured on its forward conversion; without: the once one.
  const Harness h = options.roundtrip ? Harness::kCheck : Harness::kOnce;
  // Races are looked for on the distinct tags' run alone when its tags are distinct
  // (IOTA is the element index mod 2^bits). The harnesses' shared addresses and control
  // flow never depend on the data (registers and lane ids place every element), so both
  // fills make the same accesses in the same order and the same pairs of them are
  // unordered; what differs is the same-value rule (an unordered write of the value
  // already there is not a race). Distinct tags excuse such a write only when both
  // writes carry one element, which random data excuses too, while random values of two
  // elements may also coincide: so that run reports every race the random one would.
  // Race checks on both fills were a seventh of a --prove=none pair's instructions
  // (verify/fuzz/README.md, "Rate pass 6").
  const bool tags_distinct =
      problem.element_bits >= 63 ||
      static_cast<uint64_t>(problem.num_elements()) <= (uint64_t{1} << problem.element_bits);
  const bool race_random = !options.iota || !tags_distinct;
  // Bank costs shared by the launches (a set per pc of harnesses this size).
  sim::machine::SharedCostMemo memo(256);
  t.simulate += clock.Lap();
  {
    // The harness as `convert emit` writes it, streamed into the simulator's decoder
    // without its tree (sim/ptx HarnessStream); freeing it (at the end) counts as
    // emitting.
    const std::shared_ptr<const sim::ptx::HarnessStream> stream =
        sim::ptx::StreamHarness(problem, trip.forward, &trip.backward, h);
    // The once harness is measured whole; the check harness before its loop.
    const std::optional<uint32_t> measured_below_pc =
        h == Harness::kOnce ? std::optional<uint32_t>(UINT32_MAX)
                            : sim::ptx::CheckLoopPc(*stream);
    t.emit += clock.Lap();
    {
      const absl::StatusOr<sim::machine::Program> program =
          sim::machine::DecodeStream(stream);
      RunHarness(problem, program, h, BufferParam::RANDOM, options.seed, race_random,
                 measured_below_pc, &memo, &check);
      if (options.iota) {
        RunHarness(problem, program, h, BufferParam::IOTA, options.seed, true, std::nullopt,
                   &memo, &check);
      }
    }
    t.simulate += clock.Lap();
    if (options.prove_ptx) {
      // The prover reads the tree (the same statements, EmitHarnessModule).
      const sim::ptx::Module module =
          sim::ptx::EmitHarnessModule(problem, trip.forward, &trip.backward, h);
      ProveOne(problem, module, h, &check, inconclusive);
      t.prove += clock.Lap();
    }
  }
  // (The lap above ends with the stream still alive; this one takes its free.)
  t.emit += clock.Lap();
  CheckModel(plan, &check);
  return check;
}

const ConvertCheckReport::Run* FirstFailure(const ConvertCheckReport& report) {
  if (report.ok()) return nullptr;
  for (const auto& r : report.runs()) {
    // Inconclusive proofs are not failures (a plan outside verify/plan's encoding, or
    // a solver bound).
    if (!r.ok() && !absl::StartsWith(r.detail(), "not proven") &&
        !absl::StartsWith(r.detail(), "inconclusive")) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace warpcheck::verify::fuzz
