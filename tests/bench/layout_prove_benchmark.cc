// `prove layout` over each shared encoding family's range (verify/layout): one case per
// family, the proof the CLI runs. Counters: verdict (0 holds, 1 violated, 2
// inconclusive), points in the box, admitted points, solver queries, solver_ms.
// The table in verify/README.md ("layout proofs") comes from
//   layout_prove_benchmark --benchmark_min_time=0 (each case runs once; Iterations(1)).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "verify/layout/layout_prove.h"

namespace warpcheck::verify::layout {
namespace {

struct Case {
  const char* name;
  const char* attr;
  std::vector<Range> shape;
  std::vector<Param> overrides;
  Property property;
  Access access;
  bool symbolic = true;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> kCases = {
      {"swizzled/bijective/full_family",
       "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{1, 4096}, {1, 4096}},
       {{"vec", {1, 16}}, {"per-phase", {1, 8}}, {"max-phase", {1, 8}}},
       Property::kBijective, Access::kNone},
      {"swizzled/ldmatrix/fp16_mma_swizzle",
       "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{8, 4096}, {64, 4096}}, {}, Property::kBankConflictFree, Access::kLdmatrix},
      {"swizzled/ldmatrix/full_family_refuted",
       "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{16, 256}, {16, 256}},
       {{"vec", {1, 16}}, {"per-phase", {1, 8}}, {"max-phase", {1, 8}}},
       Property::kBankConflictFree, Access::kLdmatrix},
      {"swizzled/v4/vec8_bits8..32",
       "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{8, 1024}, {64, 1024}},
       {{"element-bits", {8, 32}}},
       Property::kBankConflictFree, Access::kV4},
      {"swizzled/v4/vec8_bits16..64",
       "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{8, 1024}, {64, 1024}},
       {{"element-bits", {16, 64}}},
       Property::kBankConflictFree, Access::kV4},
      {"rotating/bijective/full_family",
       "#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
       {{1, 4096}, {1, 4096}},
       {{"vec", {1, 16}}, {"per-phase", {1, 8}}, {"max-phase", {1, 8}}},
       Property::kBijective, Access::kNone},
      {"rotating/ldmatrix/vec8_phase1..8",
       "#ttg.amd_rotating_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
       {{16, 1024}, {64, 1024}},
       {{"per-phase", {1, 8}}},
       Property::kBankConflictFree, Access::kLdmatrix},
      {"nvmma/bijective/swizzle0..128_bits8..32",
       "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = "
       "16}>",
       {{8, 256}, {8, 256}},
       {{"swizzle-bytes", {0, 128}}, {"element-bits", {8, 32}}},
       Property::kBijective, Access::kNone},
      {"nvmma/ldmatrix/swizzle128_bits8..32",
       "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = "
       "16}>",
       {{8, 256}, {8, 256}},
       {{"element-bits", {8, 32}}},
       Property::kBankConflictFree, Access::kLdmatrix},
      {"padded/ldmatrix/64+8_rows64..256",
       "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>",
       {{64, 256}, {64, 64}}, {}, Property::kBankConflictFree, Access::kLdmatrix},
      {"padded/ldmatrix/64+4_refuted",
       "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [64, 64]}>",
       {{64, 256}, {64, 64}}, {}, Property::kBankConflictFree, Access::kLdmatrix},
      {"padded/bijective/64+8_rows16..256",
       "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>",
       {{16, 256}, {64, 64}}, {}, Property::kBijective, Access::kNone},
      {"shared_linear/bijective",
       "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}, alignment = 16>",
       {{4, 4}, {4, 4}}, {}, Property::kBijective, Access::kNone},
  };
  return kCases;
}

void BM_ProveLayout(benchmark::State& state, const Case& c) {
  auto encoding = sim::layout::ParseEncoding(c.attr, sim::layout::SourceLocation{});
  if (!encoding.ok()) {
    state.SkipWithError(std::string(encoding.status().message()).c_str());
    return;
  }
  auto family = MakeFamily(*encoding, c.shape, c.overrides, c.property);
  if (!family.ok()) {
    state.SkipWithError(std::string(family.status().message()).c_str());
    return;
  }
  ProveOptions options;
  options.symbolic = c.symbolic;
  absl::StatusOr<Proof> proof;
  for (auto _ : state) {
    proof = Prove(*family, c.property, c.access, options);
    if (!proof.ok()) {
      state.SkipWithError(std::string(proof.status().message()).c_str());
      return;
    }
  }
  state.counters["verdict"] = static_cast<double>(proof->verdict);
  state.counters["points"] = static_cast<double>(proof->points);
  state.counters["admitted"] = static_cast<double>(proof->admitted);
  state.counters["queries"] = static_cast<double>(proof->queries);
  state.counters["solver_ms"] = proof->solver_ms;
  std::string modes;
  for (const Coverage& cov : proof->coverage) {
    modes += (modes.empty() ? "" : ",") + cov.mode;
  }
  state.SetLabel(std::string(VerdictName(proof->verdict)) + " " + modes);
}

int Register() {
  for (const Case& c : Cases()) {
    benchmark::RegisterBenchmark(
        (std::string("BM_ProveLayout/") + c.name).c_str(),
        [&c](benchmark::State& s) { BM_ProveLayout(s, c); })
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace
}  // namespace warpcheck::verify::layout
