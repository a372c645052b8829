#include "verify/fuzz/campaign.h"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sim/machine/launch.h"
#include "sim/plan/planner.h"

namespace warpcheck::verify::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A reason's category: the message without its "--src: "-style prefix, cut at the
// first attribute, number or clause end, so equal causes count together.
std::string ReasonCategory(absl::string_view message) {
  for (absl::string_view prefix : {"--src: ", "--dst: ", "--src/--dst: ", "--shape: "}) {
    if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
  }
  size_t end = message.size();
  for (char c : {'#', '(', ';', ',', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'}) {
    end = std::min(end, message.find(c));
  }
  std::string out(message.substr(0, std::min<size_t>(end, 72)));
  while (!out.empty() && (out.back() == ' ' || out.back() == ':')) out.pop_back();
  return out.empty() ? std::string(message.substr(0, 72)) : out;
}

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void Count(StrategyCounts& c, PairVerdict v) {
  ++c.pairs;
  switch (v) {
    case PairVerdict::kOk: ++c.ok; break;
    case PairVerdict::kOutOfScope: ++c.out_of_scope; break;
    case PairVerdict::kInconclusive: ++c.inconclusive; break;
    case PairVerdict::kFailed: ++c.failed; break;
  }
}

}  // namespace

const char* PairVerdictName(PairVerdict v) {
  switch (v) {
    case PairVerdict::kOk: return "ok";
    case PairVerdict::kOutOfScope: return "out_of_scope";
    case PairVerdict::kInconclusive: return "inconclusive";
    case PairVerdict::kFailed: return "failed";
  }
  return "?";
}

bool ProvenIndex(uint64_t seed, int64_t index, double share) {
  if (share >= 1) return true;
  if (share <= 0) return false;
  const uint64_t h = Mix(Mix(seed ^ 0x5EED5EED5EEDULL) + static_cast<uint64_t>(index));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < share;
}

PairOutcome CheckPair(const FuzzPair& pair, const CheckOptions& options) {
  PairOutcome out;
  StageClock clock;
  auto problem = pair.Problem();
  out.seconds.problem = clock.Lap();
  if (!problem.ok()) {
    out.verdict = PairVerdict::kOutOfScope;
    out.stage = "problem";
    out.detail = std::string(problem.status().message());
    return out;
  }
  auto trip = PlanForCheck(*problem, sim::plan::PlanOptions{}, options);
  out.seconds.plan = clock.Lap();
  if (!trip.ok()) {
    // The planner's own scope limits are input errors; anything else on a pair
    // MakeProblem accepted is a planner failure.
    const bool scope = absl::IsInvalidArgument(trip.status());
    out.verdict = scope ? PairVerdict::kOutOfScope : PairVerdict::kFailed;
    out.stage = "plan";
    out.detail = std::string(trip.status().message());
    return out;
  }
  const Plan plan = sim::plan::ToProto(*problem, trip->forward);
  out.seconds.plan += clock.Lap();
  bool inconclusive = false;
  ConvertCheckReport report =
      CheckConversion(*problem, *trip, plan, options, &inconclusive, &out.seconds);
  out.proved = options.prove_ptx;
  if (const ConvertCheckReport::Run* r = FirstFailure(report)) {
    out.verdict = PairVerdict::kFailed;
    out.stage = r->fill();
    out.detail = r->detail();
  } else if (inconclusive) {
    out.verdict = PairVerdict::kInconclusive;
    for (const auto& r : report.runs()) {
      if (!r.ok()) {
        out.stage = r.fill();
        out.detail = r.detail();
        break;
      }
    }
  }
  return out;
}

namespace {

// Counts one checked pair of the campaign; shrinks and records it when it failed.
void Record(const CampaignOptions& options, int64_t index, const FuzzPair& pair,
            const CheckOptions& check, PairOutcome outcome, CampaignResult& result,
            std::map<std::pair<std::string, std::string>, size_t>& seen) {
  ++result.pairs;
  result.proved += outcome.proved ? 1 : 0;
  Count(result.by_strategy[pair.strategy], outcome.verdict);
  switch (outcome.verdict) {
    case PairVerdict::kOk: ++result.ok; return;
    case PairVerdict::kInconclusive: ++result.inconclusive; return;
    case PairVerdict::kOutOfScope: {
      ++result.out_of_scope;
      const std::string reason = absl::StrCat(outcome.stage, ": ", ReasonCategory(outcome.detail));
      if (result.out_of_scope_reasons[reason]++ == 0) {
        result.out_of_scope_examples[reason] = outcome.detail;
      }
      return;
    }
    case PairVerdict::kFailed: break;
  }
  ++result.failed;
  Failure f;
  f.index = index;
  f.original = pair;
  f.minimal = pair;
  f.outcome = outcome;
  if (static_cast<int>(result.failures.size()) < options.max_shrunk) {
    auto check_one = [&](const FuzzPair& q) {
      if (options.on_pair) options.on_pair(index, q);
      return options.check_batch({q}, {check})[0];
    };
    ShrinkResult s = Shrink(
        pair,
        [&](const FuzzPair& q) {
          PairOutcome o = check_one(q);
          return o.verdict == PairVerdict::kFailed && o.stage == outcome.stage;
        },
        options.max_shrink_checks);
    f.minimal = s.pair;
    f.shrink_steps = s.steps;
    f.shrink_checks = s.checks;
    f.shrunk = true;
    if (s.steps > 0) f.outcome = check_one(f.minimal);
  }
  auto key = std::make_pair(f.outcome.stage, f.minimal.CommandLine());
  if (auto it = seen.find(key); it != seen.end()) {
    ++result.failures[it->second].duplicates;
  } else {
    seen[key] = result.failures.size();
    result.failures.push_back(std::move(f));
  }
}

}  // namespace

PairOutcome CheckTritonKernel(const FuzzPair& pair, const std::string& ptx_text,
                              const std::string& ptx_name, int64_t shared_bytes,
                              const CheckOptions& options) {
  PairOutcome out;
  auto problem = pair.Problem(/*planner_scope=*/false);
  if (!problem.ok()) {
    out.verdict = PairVerdict::kOutOfScope;
    out.stage = "problem";
    out.detail = std::string(problem.status().message());
    return out;
  }
  auto fail = [&](std::string stage, std::string detail) {
    out.verdict = PairVerdict::kFailed;
    out.stage = std::move(stage);
    out.detail = std::move(detail);
    return out;
  };
  auto module = sim::ptx::ParseModule(ptx_text, ptx_name);
  if (!module.ok()) return fail("triton/parse", std::string(module.status().message()));
  auto spec_for = [&](BufferParam::Fill fill) {
    LaunchSpec spec = sim::ptx::HarnessLaunchSpec(*problem, ptx_name, fill, options.seed, 2);
    spec.add_param()->mutable_null_ptr();
    spec.add_param()->mutable_null_ptr();
    spec.set_dynamic_shared_bytes(static_cast<uint32_t>(shared_bytes));
    return spec;
  };
  for (BufferParam::Fill fill : {BufferParam::RANDOM, BufferParam::IOTA}) {
    if (fill == BufferParam::IOTA && !options.iota) continue;
    sim::machine::RunOptions ro;
    ro.hash_buffers = false;  // only ok and faults are read
    auto run = sim::machine::RunLaunchSpecOnModule(spec_for(fill), *module, ".", ro);
    const std::string stage = fill == BufferParam::RANDOM ? "triton/random" : "triton/iota";
    if (!run.ok()) return fail(stage, std::string(run.status().message()));
    if (!run->report.ok()) return fail(stage, FailureText(run->report));
  }
  if (!options.prove_ptx) return out;
  out.proved = true;
  ptx::ConversionProofOptions po;
  po.shape = problem->shape;
  auto proof = ptx::ProveLaunch(spec_for(BufferParam::RANDOM), *module, po);
  if (!proof.ok()) return fail("triton/proof", std::string(proof.status().message()));
  if (proof->verdict == ptx::ProofVerdict::kViolated) return fail("triton/proof", proof->reason);
  if (proof->verdict == ptx::ProofVerdict::kInconclusive) {
    out.verdict = PairVerdict::kInconclusive;
    out.stage = "triton/proof";
    out.detail = proof->reason;
  }
  return out;
}

CampaignResult RunCampaign(const CampaignOptions& given) {
  CampaignOptions options = given;
  if (!options.check_batch) {
    options.check_batch = [](const std::vector<FuzzPair>& pairs,
                             const std::vector<CheckOptions>& checks) {
      std::vector<PairOutcome> out;
      for (size_t i = 0; i < pairs.size(); ++i) out.push_back(CheckPair(pairs[i], checks[i]));
      return out;
    };
  }
  CampaignResult result;
  const Clock::time_point t0 = Clock::now();
  std::map<std::pair<std::string, std::string>, size_t> seen;  // (stage, pair) -> failure
  int64_t next_progress = options.progress_every;
  for (int64_t k = 0;;) {
    if (options.count >= 0 && k >= options.count) break;
    if (options.seconds > 0 && Since(t0) >= options.seconds) {
      result.stopped_by_time = true;
      break;
    }
    std::vector<int64_t> indices;
    std::vector<FuzzPair> pairs;
    std::vector<CheckOptions> checks;
    for (; static_cast<int>(pairs.size()) < std::max(1, options.batch_size) &&
           (options.count < 0 || k < options.count);
         ++k) {
      const int64_t index = k * options.shard_count + options.shard_index;
      indices.push_back(index);
      pairs.push_back(GeneratePair(options.seed, index));
      checks.push_back(options.check);
      checks.back().prove_ptx =
          checks.back().prove_ptx && ProvenIndex(options.seed, index, options.prove_share);
      if (options.on_pair) options.on_pair(index, pairs.back());
    }
    const Clock::time_point c0 = Clock::now();
    std::vector<PairOutcome> outcomes = options.check_batch(pairs, checks);
    result.check_seconds += Since(c0);
    for (size_t i = 0; i < pairs.size(); ++i) {
      result.stage_seconds += outcomes[i].seconds;
      Record(options, indices[i], pairs[i], checks[i], std::move(outcomes[i]), result, seen);
    }
    if (options.on_progress && result.pairs >= next_progress) {
      next_progress = result.pairs + options.progress_every;
      options.on_progress(result.pairs, result.failed, Since(t0));
    }
  }
  result.seconds = Since(t0);
  return result;
}

}  // namespace warpcheck::verify::fuzz
