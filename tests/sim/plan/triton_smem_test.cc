// The model of Triton's shared-memory lowering (sim/plan/triton_smem.h) against Triton's
// real kernels: corpus/plan/triton_costs.tsv holds, per pair Triton 3.6 compiles, the
// simulated counters of one round trip (src -> dst -> src) of Triton's own PTX. For every
// pair that went through shared memory (category smem or ldst_matrix) the model, run on
// both directions, must give
//   * smem_bytes: the kernel's scratch, the larger of the two conversions' (the two
//     scratch buffers are never live together, so the allocator overlaps them);
//   * smem_requests_store / _load: warps x (store / load instructions per warp), summed
//     over both directions (the simulator counts one request per warp instruction);
//   * smem_wavefronts_store / _load: warps x (wavefronts per warp), summed likewise;
//   * the mechanism: ldst_matrix exactly when some side uses ldmatrix/stmatrix;
//   * barriers: the simulator counts CTA barriers (bar.sync), not bar.warp.sync: the
//     2*reps-1 of each conversion whose barriers are CTA ones, plus the one Triton's Membar
//     pass puts before each conversion's first store (a CTA barrier even when the
//     conversion's own are warp-level: the scratch was read by the other conversion).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/plan/problem.h"
#include "sim/plan/triton_smem.h"
#include "tests/testing/cost_table.h"

namespace warpcheck::sim::plan {
namespace {

struct Row {
  int line = 0;
  std::string category;
  int64_t smem_bytes = 0, requests_store = 0, requests_load = 0, barriers = 0;
  int64_t wavefronts_store = 0, wavefronts_load = 0;
  absl::StatusOr<ConversionProblem> problem;
};

std::vector<Row> SharedMemoryRows() {
  std::vector<Row> out;
  for (testing::CostTableRow& t : testing::ReadCostTable(/*planner_scope=*/false)) {
    if (t.category != "smem" && t.category != "ldst_matrix") continue;
    Row r;
    r.line = t.line;
    r.category = t.category;
    r.smem_bytes = t["smem_bytes"];
    r.requests_store = t["smem_requests_store"];
    r.requests_load = t["smem_requests_load"];
    r.barriers = t["barriers"];
    r.wavefronts_store = t["smem_wavefronts_store"];
    r.wavefronts_load = t["smem_wavefronts_load"];
    r.problem = std::move(t.problem);
    out.push_back(std::move(r));
  }
  return out;
}

struct Trip {
  TritonSmemLowering fwd, bwd;
  int64_t smem_bytes = 0, requests_store = 0, requests_load = 0, barriers = 0;
  int64_t wavefronts_store = 0, wavefronts_load = 0;
  bool matrix = false;
};

absl::StatusOr<Trip> Model(const ConversionProblem& p, bool leave_reps = true) {
  auto f = TritonSharedMemoryLowering(p, leave_reps);
  if (!f.ok()) return f.status();
  auto b = TritonSharedMemoryLowering(p.Reversed(), leave_reps);
  if (!b.ok()) return b.status();
  Trip t{*f, *b};
  t.smem_bytes = std::max(f->scratch_bytes, b->scratch_bytes);
  t.requests_store = p.num_warps * (f->store_instructions + b->store_instructions);
  t.requests_load = p.num_warps * (f->load_instructions + b->load_instructions);
  t.wavefronts_store = p.num_warps * (f->store_wavefronts + b->store_wavefronts);
  t.wavefronts_load = p.num_warps * (f->load_wavefronts + b->load_wavefronts);
  for (const auto* d : {&t.fwd, &t.bwd}) {
    t.barriers += 1 + (d->warp_sync ? 0 : d->barriers);
    t.matrix |= d->store != TritonSmemInstr::kLdSt || d->load != TritonSmemInstr::kLdSt;
  }
  return t;
}

std::string Describe(const TritonSmemLowering& d) {
  return absl::StrCat(TritonSmemInstrName(d.store, true), " v", d.store_vec_elems, " x",
                      d.store_instructions, " / ", TritonSmemInstrName(d.load, false), " v",
                      d.load_vec_elems, " x", d.load_instructions, ", reps ", d.reps, ", ",
                      d.scratch_bytes, " B", d.fallback ? ", fallback" : "",
                      d.warp_sync ? ", warp sync" : ", CTA sync");
}

// Exact agreement with Triton on every shared-memory pair of the table (the README lists
// the figures; a pair that stops matching is a regression of the model).
TEST(TritonSmemTest, MatchesTritonsKernelsOnTheCostTable) {
  int rows = 0, modelled = 0, bytes_ok = 0, requests_ok = 0, mechanism_ok = 0, barriers_ok = 0,
      wavefronts_ok = 0, all_ok = 0;
  std::map<std::string, int> by_category, by_pair;  // by_pair: per direction
  // Lines with warp-level barriers, and their count a round trip: the simulator does not
  // count bar.warp.sync, tools/oracle/triton_warp_syncs.py counts them in Triton's PTX.
  std::string warp_syncs;
  for (const Row& r : SharedMemoryRows()) {
    ++rows;
    if (!r.problem.ok()) {
      ADD_FAILURE() << "line " << r.line << ": " << r.problem.status();
      continue;
    }
    auto t = Model(*r.problem);
    if (!t.ok()) {
      ADD_FAILURE() << "line " << r.line << ": " << t.status();
      continue;
    }
    ++modelled;
    int warp_barriers = 0;
    for (const auto* d : {&t->fwd, &t->bwd}) {
      if (d->warp_sync) warp_barriers += d->barriers;
      ++by_pair[d->fallback ? "ld/st fallback"
                            : TritonSmemInstrName(d->store, true) + " + " +
                                  TritonSmemInstrName(d->load, false)];
      ++by_pair[absl::StrCat("reps ", d->reps)];
      ++by_pair[d->warp_sync ? "warp sync" : "CTA sync"];
    }
    if (warp_barriers > 0) absl::StrAppend(&warp_syncs, " ", r.line, ":", warp_barriers);
    const bool bytes = t->smem_bytes == r.smem_bytes;
    const bool requests =
        t->requests_store == r.requests_store && t->requests_load == r.requests_load;
    const bool mechanism = t->matrix == (r.category == "ldst_matrix");
    const bool barriers = t->barriers == r.barriers;
    const bool wavefronts =
        t->wavefronts_store == r.wavefronts_store && t->wavefronts_load == r.wavefronts_load;
    wavefronts_ok += wavefronts;
    bytes_ok += bytes;
    barriers_ok += barriers;
    requests_ok += requests;
    mechanism_ok += mechanism;
    if (bytes && requests && mechanism && barriers && wavefronts) {
      ++all_ok;
      ++by_category[r.category];
    } else {
      ADD_FAILURE() << "line " << r.line << " (" << r.category << ", "
                    << DTypeName(r.problem->dtype) << ", " << r.problem->num_warps
                    << " warps): Triton " << r.smem_bytes << " B, requests "
                    << r.requests_store << "+" << r.requests_load << "; model "
                    << t->smem_bytes << " B, requests " << t->requests_store << "+"
                    << t->requests_load << ", barriers Triton " << r.barriers << " model "
                    << t->barriers << ", wavefronts Triton " << r.wavefronts_store << "+"
                    << r.wavefronts_load << " model " << t->wavefronts_store << "+"
                    << t->wavefronts_load << "\n  fwd: " << Describe(t->fwd)
                    << "\n  bwd: " << Describe(t->bwd);
    }
  }
  std::cout << "shared-memory rows " << rows << ", modelled " << modelled
            << ", smem_bytes exact " << bytes_ok << ", requests exact " << requests_ok
            << ", mechanism exact " << mechanism_ok << ", CTA barriers exact " << barriers_ok
            << ", wavefronts exact " << wavefronts_ok << ", all five " << all_ok << " (smem "
            << by_category["smem"] << ", ldst_matrix " << by_category["ldst_matrix"] << ")\n";
  std::cout << "bar.warp.sync a round trip (line:count):" << warp_syncs << "\n";
  for (const auto& [what, n] : by_pair) std::cout << "  directions with " << what << ": " << n << "\n";
  EXPECT_GT(rows, 500);
}

// Pre-#8655 buildReps (every common register segment vector becomes a round) is not what
// Triton 3.6 does: with it, pairs that use ldmatrix/stmatrix on both sides get more
// rounds, a smaller scratch and (below 128 bits a round) other instructions.
TEST(TritonSmemTest, KeepsTwoRoundsForMatrixPairsAsTriton36Does) {
  int differ = 0, checked = 0;
  for (const Row& r : SharedMemoryRows()) {
    if (!r.problem.ok()) continue;
    auto old = Model(*r.problem, /*leave_reps=*/false);
    if (!old.ok()) continue;
    ++checked;
    differ += old->smem_bytes != r.smem_bytes ||
              old->requests_store + old->requests_load != r.requests_store + r.requests_load;
  }
  std::cout << "pre-#8655 buildReps disagrees with Triton on " << differ << " of " << checked
            << " pairs\n";
  EXPECT_GT(differ, 0);
}

ConversionProblem Problem(const std::string& src, const std::string& dst,
                          std::vector<int64_t> shape, DType dtype, int warps) {
  auto p = MakeProblem(src, dst, shape, dtype, warps, /*planner_scope=*/false);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : ConversionProblem{};
}

// corpus line 583, compiled with Triton 3.6 (tools/oracle): the forward conversion is 16
// rounds of {stmatrix.x4, bar.warp.sync, ld.shared.v4.b32} and the backward one 16 rounds
// of {st.shared.v4.b32, bar.warp.sync, ldmatrix.x4}, 31 bar.warp.sync each, 512 B scratch.
TEST(TritonSmemTest, OneWarpF16PairRunsSixteenRoundsAsInTritonsPtx) {
  const ConversionProblem p = Problem(
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], "
      "order = [1, 0]}>",
      {64, 64}, DType::kF16, 1);
  auto f = TritonSharedMemoryLowering(p);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->store, TritonSmemInstr::kMatrix);
  EXPECT_EQ(f->load, TritonSmemInstr::kLdSt);
  EXPECT_EQ(f->store_vec_elems, 8);
  EXPECT_EQ(f->load_vec_elems, 8);
  EXPECT_EQ(f->reps, 16);
  EXPECT_EQ(f->store_instructions, 16);
  EXPECT_EQ(f->load_instructions, 16);
  EXPECT_EQ(f->scratch_bytes, 512);
  // The table's 128 + 128 wavefronts a round trip: every access conflict-free (an .x4 and
  // a 16-byte ld.shared both take 4).
  EXPECT_EQ(f->store_wavefronts, 64);
  EXPECT_EQ(f->load_wavefronts, 64);
  EXPECT_EQ(f->barriers, 31);
  EXPECT_TRUE(f->warp_sync);
  EXPECT_FALSE(f->fallback);
  auto b = TritonSharedMemoryLowering(p.Reversed());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->store, TritonSmemInstr::kLdSt);
  EXPECT_EQ(b->load, TritonSmemInstr::kMatrix);
  EXPECT_EQ(b->reps, 16);
  EXPECT_EQ(b->store_instructions, 16);
  EXPECT_EQ(b->load_instructions, 16);
  EXPECT_EQ(b->barriers, 31);
  EXPECT_TRUE(b->warp_sync);
}

// corpus line 0 (64x1 f16, 4 warps), Triton 3.6's PTX: st.shared.b16 then ld.shared.b32
// forward, st.shared.b32 then ld.shared.b16 backward. No instruction tile fits; the
// fallback fills the first 32-bit word with row 32, a warp of the source and a register of
// the destination, so the destination side moves two elements per access.
TEST(TritonSmemTest, FallbackFillsTheFirstWordWithAWarpOfTheOtherSide) {
  const ConversionProblem p = Problem(
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], "
      "order = [0, 1]}>",
      "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>",
      {64, 1}, DType::kF16, 4);
  auto f = TritonSharedMemoryLowering(p);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->fallback);
  EXPECT_EQ(f->store_vec_elems, 1);
  EXPECT_EQ(f->store_instructions, 1);
  EXPECT_EQ(f->load_vec_elems, 2);
  EXPECT_EQ(f->load_instructions, 1);
  EXPECT_EQ(f->reps, 1);
  EXPECT_EQ(f->scratch_bytes, 128);
  EXPECT_FALSE(f->warp_sync);
  auto b = TritonSharedMemoryLowering(p.Reversed());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->store_vec_elems, 2);
  EXPECT_EQ(b->load_vec_elems, 1);
}

// corpus line 692 (64 x i8, 4 warps), Triton 3.6's PTX: forward one st.shared.b32 (four
// bytes of consecutive registers) and sixteen ld.shared.b8.
TEST(TritonSmemTest, BytesVectoriseOnTheSideWhoseRegistersAreContiguous) {
  const ConversionProblem p = Problem(
      "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
      "[1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
      "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
      "[1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
      {64}, DType::kI8, 4);
  auto f = TritonSharedMemoryLowering(p);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->store_vec_elems, 4);
  EXPECT_EQ(f->store_instructions, 1);
  EXPECT_EQ(f->load_vec_elems, 1);
  EXPECT_EQ(f->load_instructions, 16);
  EXPECT_EQ(f->scratch_bytes, 64);
}

}  // namespace
}  // namespace warpcheck::sim::plan
