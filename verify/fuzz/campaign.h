// RunCampaign: `warpcheck fuzz layouts` without the flags and files.
//
// Each pair of the campaign (pair_gen.h) goes through the whole pipeline of
// conversion_check.h: plan both directions (sim/plan) -> emit the round-trip and once
// harnesses (sim/ptx) -> simulate on random data and on distinct tags (sim/machine) ->
// prove the emitted PTX for every input (verify/ptx; every pair, or a deterministic
// sampled share) -> compare the cost model's shared-memory prediction with what the
// simulator counted. A pair ends in one of four verdicts:
//
//   ok             every step agreed;
//   out_of_scope   MakeProblem or the planner rejects the pair as an input error (a
//                  generator miss, counted by reason, never a failure);
//   inconclusive   a proof was inconclusive (solver or step bound), nothing failed;
//   failed         a step failed: the planner errs on an in-scope pair, the PTX does not
//                  parse, a run faults or converts wrongly, a proof is violated or errs,
//                  or the model disagrees. The failing step is the pair's *stage*.
//
// A failed pair is shrunk (pair_gen.h's Shrink) with the predicate "fails at the same
// stage", so the minimal pair shows the same bug, not a different one. Failures are
// deduplicated by (stage, minimal pair): many random pairs that hit one bug shrink to
// one case. Shrinking is bounded per failure and over the campaign (`max_shrunk`).
//
// Determinism: the pairs, verdicts and minimal pairs are functions of (seed, the
// indices run); only how many indices fit in `seconds` depends on the machine.
#ifndef WARPCHECK_VERIFY_FUZZ_CAMPAIGN_H_
#define WARPCHECK_VERIFY_FUZZ_CAMPAIGN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "verify/fuzz/conversion_check.h"
#include "verify/fuzz/pair_gen.h"

namespace warpcheck::verify::fuzz {

enum class PairVerdict { kOk, kOutOfScope, kInconclusive, kFailed };
const char* PairVerdictName(PairVerdict v);

struct PairOutcome {
  PairVerdict verdict = PairVerdict::kOk;
  std::string stage;   // failed: the failing step ("plan", "check/iota", "check/proof",
                       // "once/random" one way, "cost-model", ...); out_of_scope: "problem"
                       // or "plan"
  std::string detail;  // why (the step's message)
  bool proved = false;  // the PTX proof ran
  StageSeconds seconds;  // CheckPair's stages (CheckTritonKernel: none)
};

// The pipeline above on one pair. `options.prove_ptx` decides whether it is proven.
PairOutcome CheckPair(const FuzzPair& pair, const CheckOptions& options);

// The same checks on Triton's compiled round-trip kernel for the pair (the
// corpus/triton harness: kernel(in, out, iters, global_scratch, profile_scratch), one
// CTA, `shared_bytes` of dynamic shared memory): the kernel run with iters = 2 on
// random data and on distinct tags, and proven for every input. Stages "triton/parse",
// "triton/random", "triton/iota", "triton/proof"; `ptx_name` names the text in messages.
PairOutcome CheckTritonKernel(const FuzzPair& pair, const std::string& ptx_text,
                              const std::string& ptx_name, int64_t shared_bytes,
                              const CheckOptions& options);

struct CampaignOptions {
  uint64_t seed = 1;
  int64_t count = -1;       // pairs to run (-1: until `seconds`)
  double seconds = 60;      // wall-clock budget (<= 0: no time limit; needs count)
  int shard_index = 0;      // run the indices i with i % shard_count == shard_index
  int shard_count = 1;
  double prove_share = 1;   // prove pairs whose index hashes below this share (1 all, 0 none)
  CheckOptions check;       // prove_ptx is set per pair from prove_share
  int max_shrink_checks = 300;  // predicate calls per failure
  int max_shrunk = 20;          // failures shrunk per campaign (the rest kept as found)
  // Called before each pair (crash reports) and about every `progress_every` pairs.
  std::function<void(int64_t index, const FuzzPair& pair)> on_pair;
  std::function<void(int64_t pairs, int64_t failures, double seconds)> on_progress;
  int64_t progress_every = 256;
  // The subject: checks a batch of pairs, one outcome per pair (default: CheckPair on
  // each, our planner and codegen). `fuzz layouts --against=triton` compiles the batch
  // with Triton instead and checks Triton's PTX. Shrinking calls it with one pair.
  std::function<std::vector<PairOutcome>(const std::vector<FuzzPair>&,
                                         const std::vector<CheckOptions>&)>
      check_batch;
  int batch_size = 1;
};

struct StrategyCounts {
  int64_t pairs = 0, ok = 0, out_of_scope = 0, inconclusive = 0, failed = 0;
};

struct Failure {
  int64_t index = 0;       // the campaign index that found it
  FuzzPair original;       // as generated
  FuzzPair minimal;        // shrunk (== original when not shrunk)
  PairOutcome outcome;     // the minimal pair's outcome
  int shrink_steps = 0;
  int shrink_checks = 0;
  bool shrunk = false;     // false when over max_shrunk
  int64_t duplicates = 0;  // later failures that shrank to the same (stage, pair)
};

struct CampaignResult {
  int64_t pairs = 0, ok = 0, out_of_scope = 0, inconclusive = 0, failed = 0, proved = 0;
  double seconds = 0;          // wall clock, shrinking included
  double check_seconds = 0;    // in CheckPair for the campaign's own pairs
  StageSeconds stage_seconds;  // their PairOutcome::seconds, summed
  std::map<std::string, StrategyCounts> by_strategy;
  std::map<std::string, int64_t> out_of_scope_reasons;  // first words of the reason
  std::map<std::string, std::string> out_of_scope_examples;  // a full message of each
  std::vector<Failure> failures;  // distinct, in order of discovery
  bool stopped_by_time = false;
};

// Requires: shard_count >= 1, 0 <= shard_index < shard_count, and count >= 0 or
// seconds > 0.
CampaignResult RunCampaign(const CampaignOptions& options);

// Whether campaign pair `index` is proven under `share` (a hash of seed and index).
bool ProvenIndex(uint64_t seed, int64_t index, double share);

}  // namespace warpcheck::verify::fuzz

#endif  // WARPCHECK_VERIFY_FUZZ_CAMPAIGN_H_
