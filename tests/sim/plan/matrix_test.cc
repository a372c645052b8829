// The stmatrix/ldmatrix planner (sim/plan/matrix.h), run on the simulator:
//
//   * every matrix plan it returns converts every element (the once harness, random data
//     and distinct tags), for every 16-bit pair of corpus/plan/triton_costs.tsv (and its
//     small 32-bit ones) and every word view, broadcast copies included;
//   * its predicted wavefronts and bank conflicts are what the simulator counts;
//   * it uses matrix instructions on each side it can (both stmatrix and ldmatrix[.trans]
//     show up across the corpus), and refuses what it cannot do with the reason.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sim/base/tsv.h"
#include "sim/machine/launch.h"
#include "sim/plan/matrix.h"
#include "sim/plan/planner.h"
#include "sim/plan/problem.h"
#include "sim/ptx/codegen.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::plan {
namespace {

// The f16 pairs of the corpus, and its i32 pairs of at most 256 elements (32-bit
// elements move as pairs of 16-bit halves).
std::vector<ConversionProblem> MatrixProblems() {
  auto t = base::ReadTsvFile(std::string(WARPCHECK_SOURCE_DIR) + "/corpus/plan/triton_costs.tsv");
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<ConversionProblem> out;
  if (!t.ok()) return out;
  for (const auto& c : t->rows) {
    const bool f16 = t->Cell(c, "dtype") == "f16", i32 = t->Cell(c, "dtype") == "i32";
    if (t->Cell(c, "status") != "ok" || (!f16 && !i32)) continue;
    std::vector<int64_t> shape;
    int64_t elements = 1;
    for (absl::string_view s : absl::StrSplit(t->Cell(c, "shape"), 'x')) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(s, &v));
      shape.push_back(v);
      elements *= v;
    }
    if (i32 && elements > 256) continue;
    int warps = 0;
    EXPECT_TRUE(absl::SimpleAtoi(t->Cell(c, "num_warps"), &warps));
    auto p = MakeProblem(t->Cell(c, "src"), t->Cell(c, "dst"), shape,
                         f16 ? DType::kF16 : DType::kI32, warps);
    if (p.ok()) out.push_back(*std::move(p));
  }
  return out;
}

// Runs the once harness; "" when both fills come back converted, else why not.
std::string RunOnce(const ConversionProblem& problem, const ConversionPlan& plan,
                    std::map<std::string, uint64_t>* counters) {
  auto module = ptx::ParseModule(ptx::EmitHarness(problem, plan, nullptr, ptx::Harness::kOnce),
                                 "<emitted>");
  if (!module.ok()) return std::string(module.status().message());
  for (auto fill : {BufferParam::RANDOM, BufferParam::IOTA}) {
    LaunchSpec spec = ptx::HarnessLaunchSpec(problem, "<emitted>", fill, 5, 1);
    auto run = machine::RunLaunchSpecOnModule(spec, *module, ".", machine::RunOptions{});
    if (!run.ok()) return std::string(run.status().message());
    if (!run->report.ok()) return run->report.DebugString().substr(0, 600);
    if (fill == BufferParam::RANDOM) {
      counters->clear();
      for (const auto& [k, v] : run->report.counters()) (*counters)[k] = v;
    }
  }
  return "";
}

TEST(MatrixPlannerTest, ConvertsEveryElementAndCountsWhatTheSimulatorCounts) {
  int planned = 0, st_matrix = 0, ld_matrix = 0, trans = 0, wide = 0, copies = 0;
  for (const ConversionProblem& p : MatrixProblems()) {
    for (const auto& [sv, dv] : CandidateViews(p, PlanOptions{})) {
      SmemStage stage;
      auto m = PlanMatrixSmem(p, sv, dv, PlanOptions{}, &stage);
      if (!m.ok()) {
        EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
        continue;
      }
      ++planned;
      bool st = false, ld = false;
      for (const Op& op : m->program.ops) {
        st = st || op.kind == OpKind::kStMatrix;
        ld = ld || op.kind == OpKind::kLdMatrix;
        trans += op.trans ? 1 : 0;
      }
      EXPECT_TRUE(st || ld) << p.src_attr << " -> " << p.dst_attr;
      st_matrix += st;
      ld_matrix += ld;
      wide += p.element_bits == 32;
      // A side with broadcast registers (copies the matrix instructions skip).
      uint32_t fr = 0, ft = 0, dr = 0, dt = 0;
      p.src.FreeBits(&fr, &ft);
      p.dst.FreeBits(&dr, &dt);
      copies += (fr | dr) != 0;
      ConversionPlan plan;
      plan.strategy = Strategy::kSmem;
      plan.src_view = sv;
      plan.dst_view = dv;
      plan.program = m->program;
      plan.cost = EstimateCost(p, plan.program, m->wavefronts_store, m->wavefronts_load,
                               m->min_store, m->min_load, m->cta_barrier);
      std::map<std::string, uint64_t> c;
      EXPECT_EQ(RunOnce(p, plan, &c), "") << p.src_attr << " -> " << p.dst_attr;
      EXPECT_EQ(c["smem_wavefronts.store"], m->wavefronts_store) << p.src_attr;
      EXPECT_EQ(c["smem_wavefronts.load"], m->wavefronts_load) << p.dst_attr;
      EXPECT_EQ(c["bank_conflicts.store"], m->wavefronts_store - m->min_store) << p.src_attr;
      EXPECT_EQ(c["bank_conflicts.load"], m->wavefronts_load - m->min_load) << p.dst_attr;
    }
  }
  EXPECT_GT(planned, 50);
  EXPECT_GT(st_matrix, 10);
  EXPECT_GT(ld_matrix, 10);
  EXPECT_GT(trans, 10);
  EXPECT_GT(wide, 10);
  EXPECT_GT(copies, 10);
}

// The climb prices only the bank costs a move changes and passes over moves that change
// none (MatrixPlanner::Climb states why a move keeps the rest); price_all prices every
// move in full and searches every candidate. Both must choose the same plan for every
// word view of every matrix pair.
TEST(MatrixPlannerTest, PricingOnlyWhatAMoveChangesChoosesThePlanPricingAllDoes) {
  int compared = 0, swizzled = 0;
  PlanOptions all;
  all.price_all = true;
  for (const ConversionProblem& p : MatrixProblems()) {
    for (const auto& [sv, dv] : CandidateViews(p, PlanOptions{})) {
      SmemStage fast_stage, full_stage;
      auto fast = PlanMatrixSmem(p, sv, dv, PlanOptions{}, &fast_stage);
      auto full = PlanMatrixSmem(p, sv, dv, all, &full_stage);
      ASSERT_EQ(fast.ok(), full.ok()) << p.src_attr << " -> " << p.dst_attr;
      if (!fast.ok()) continue;
      ++compared;
      EXPECT_EQ(ProgramToString(fast->program), ProgramToString(full->program))
          << p.src_attr << " -> " << p.dst_attr;
      EXPECT_EQ(fast_stage.DebugString(), full_stage.DebugString()) << p.src_attr;
      EXPECT_EQ(fast->wavefronts_store, full->wavefronts_store) << p.src_attr;
      EXPECT_EQ(fast->wavefronts_load, full->wavefronts_load) << p.dst_attr;
      // A basis that is not the unit vectors in order: the climb or a base order moved it.
      bool unit = true;
      for (int i = 0; i < fast_stage.offset_basis_size(); ++i) {
        unit = unit && fast_stage.offset_basis(i) == (1u << i);
      }
      swizzled += !unit;
    }
  }
  EXPECT_GT(compared, 50);
  EXPECT_GT(swizzled, 10);
}

TEST(MatrixPlannerTest, RefusesWhatItCannotDoWithTheReason) {
  auto p = MakeProblem(
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], "
      "order = [0, 1]}>",
      "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], "
      "order = [1, 0]}>",
      {128, 32}, DType::kI8, 4);
  ASSERT_TRUE(p.ok()) << p.status();
  WordView v = ViewOf(p->src, 8, false);
  SmemStage stage;
  auto m = PlanMatrixSmem(*p, v, ViewOf(p->dst, 8, false), PlanOptions{}, &stage);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("16-bit"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace warpcheck::sim::plan
