// Conversion planners and the cost model (shared/spec/triton-convert-layout.md is what
// Triton does; sim/plan/README.md is what we do and why).
//
// A conversion moves every element a thread needs in the destination layout from where
// the source layout keeps it. Three mechanisms, cheapest first when they apply:
//
//   registers  the element is already in the same thread: rename words (free) or, for
//              packed 8/16-bit data whose halves come from different words, one `prmt`.
//   shuffle    the element is in the same warp: rounds of `shfl.sync` (bfly when the lane
//              map is an XOR, idx otherwise), with `selp` trees choosing what a lane sends
//              and where a received word goes. The round structure comes from the bit
//              matrix of the conversion (dst word, lane) -> (src word, lane); unlike
//              Triton's transposition scheme it moves only what changes lane and selects
//              only where the choice depends on the lane.
//   smem       anything inside the CTA: store in a shared layout chosen for both sides
//              (vector width from the register bases both sides keep contiguous, then a
//              bank search that XOR-swizzles offset bits until both the stores and the
//              loads are conflict-free or no move helps), barrier, load. A conversion in
//              which every warp reads only what it wrote uses `bar.warp.sync`.
//
// Every candidate is lowered to a Program (program.h) and priced by the cost model;
// `PlanConversion` returns the cheapest one of the strategies allowed. Broadcast (zero
// bases) is handled on both sides: duplicate source copies are not stored (predicated
// off), duplicate destination words are renames of one loaded word.
#ifndef WARPCHECK_SIM_PLAN_PLANNER_H_
#define WARPCHECK_SIM_PLAN_PLANNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/plan.pb.h"
#include "sim/plan/problem.h"
#include "sim/plan/program.h"

namespace warpcheck::sim::plan {

enum class Strategy { kAuto, kRegisters, kShuffle, kSmem };
absl::StatusOr<Strategy> ParseStrategy(absl::string_view text);

// How a layout's registers fill 32-bit words. 8/16-bit elements are packed 4/2 to a
// word: the registers that differ only in the `pack` bits (slot bit k = register bit
// pack[k]) share a word. Which bits pack is a choice: the planner packs the tensor
// directions both layouts keep in registers, so that words travel whole. A 64-bit
// element is two words (upw = 2). Units are the registers with the pack bits removed.
struct WordView {
  // (Inline: a 32-bit word holds at most four 8-bit elements, a pack of 2 bits, so no
  // view allocates; views are copied into every candidate, plan and memo entry.)
  absl::InlinedVector<int, 4> pack;
  int upw = 1;
  int reg_bits = 0;
  int pk() const { return static_cast<int>(pack.size()); }
  int units() const { return 1 << (reg_bits - pk()); }
  int words() const { return units() * upw; }
  uint32_t PackMask() const {
    uint32_t m = 0;
    for (int b : pack) m |= 1u << b;
    return m;
  }
  // Register -> (unit, slot) and back.
  uint32_t Unit(uint32_t r) const;
  uint32_t Slot(uint32_t r) const;
  uint32_t Reg(uint32_t unit, uint32_t slot) const;
  bool operator==(const WordView&) const = default;
};

// packed: the lowest register bits (as many as fit a word and the layout has).
WordView ViewOf(const FlatLayout& l, int element_bits, bool packed);

// Packs the registers that hold the tensor directions `dirs` (in this order); nullopt when
// the layout does not keep all of them in registers.
std::optional<WordView> ViewPacking(const FlatLayout& l, int element_bits,
                                    const std::vector<uint32_t>& dirs);

// The figures a lower bound gives (SmemBound, ShuffleBound, PlanLowerBound below).
struct CostBound {
  int64_t warp_instructions = 0;
  int64_t wavefronts = 0;
  double score = 0;
};

struct ConversionPlan;

// What the searches of one conversion found, by word views, so that replanning it with
// other barrier or buffer options (PlanRoundTrip does, up to three times) does not search
// again: the bank searches (plain and matrix accesses) depend only on the problem, the
// views, no_swizzle and max_vector_bytes; the register and shuffle programs only on the
// problem and the views. One memo per problem (the caller keeps it with the problem).
struct SearchMemo {
  struct Smem {
    WordView sv, dv;
    bool no_swizzle = false;
    int max_vector_bytes = 0;
    std::vector<uint32_t> basis;
    int64_t moves = 0;
  };
  // The matrix planner's choice (matrix.cc): the side kinds and the basis; an empty basis
  // when no candidate fits.
  struct Matrix {
    WordView sv, dv;
    int store_kind = 0, load_kind = 0;
    std::vector<uint32_t> basis;
  };
  // A register or shuffle candidate as priced (its program simplified, its cost
  // estimated: both functions of the program, which depends on the problem and the views
  // alone), or why it has no plan.
  struct InWarp {
    WordView sv, dv;
    Strategy strategy = Strategy::kRegisters;
    std::shared_ptr<const ConversionPlan> plan;  // null: none, for `status`
    absl::Status status;
  };
  // A candidate's lower bound (SmemBound, ShuffleBound; PlanLowerBound computes the
  // bounds of each view's candidates, PlanConversion asks for them again): it depends on
  // the views, the kind (1 shuffle, 2 plain smem, 3 matrix smem) and, for shared memory,
  // on the barrier options (how many barriers, warp or CTA) and no_swizzle and
  // max_vector_bytes (which accesses) only.
  struct Bound {
    WordView sv, dv;
    int kind = 0;
    bool barrier_before_store = false, force_cta_barrier = false, no_swizzle = false;
    int max_vector_bytes = 0;
    std::optional<CostBound> bound;
  };
  // One climb of the plain bank search (SmemPlanner's hill climb over XOR swizzles) from
  // a base order: where it ended. Kept for the other direction of a round trip (`reversed`
  // below), only when neither layout has copies that stores skip: then a side costs the
  // same stored or loaded, a basis scores the same both ways (the store side and the load
  // side swap), and so the climb from one start basis (and `fixed`, its vector prefix)
  // takes the same moves in both directions.
  struct Climb {
    WordView sv, dv;
    int max_vector_bytes = 0;
    int fixed = 0;
    std::vector<uint32_t> start, basis;
    std::pair<int64_t, int64_t> score;  // (wavefronts, instructions) of `basis`
    int64_t conflicts = 0;
    int64_t moves = 0;
  };
  std::vector<Smem> smem;
  std::vector<Climb> climbs;
  // The memo of the reversed problem (PlanRoundTrip's other direction), whose climbs the
  // plain bank search may reuse with the views swapped; null: none.
  const SearchMemo* reversed = nullptr;
  std::vector<Matrix> matrix;
  std::vector<InWarp> in_warp;
  std::vector<Bound> bounds;
  // SmemBound's facts of the problem alone, once asked for: whether each warp stores
  // exactly the elements it loads (SmemPlanner's WarpLocal without force_cta_barrier),
  // and the wavefronts every plan needs (each element stored once, each warp's elements
  // loaded).
  struct SmemFacts {
    bool warp_local = false;
    int64_t min_wavefronts = 0;
  };
  std::optional<SmemFacts> smem_facts;
  // TritonStrategy of the problem (a function of the problem alone), once asked for.
  std::optional<Strategy> triton;
};

struct PlanOptions {
  Strategy strategy = Strategy::kAuto;
  // Unset: try CandidateViews and keep the cheapest.
  std::optional<std::pair<WordView, WordView>> views;
  // Restricts the candidates to packed (true) or unpacked (false) words.
  std::optional<bool> packed;
  // Which shared buffer the smem strategy uses (the round-trip harness gives each
  // direction its own, so that no barrier is needed before a store).
  int buffer = 0;
  // Smem only: a CTA barrier even where a warp barrier would do (when the other direction
  // of a round trip needs a CTA barrier, its buffer's readers are in other warps), and a
  // CTA barrier before the stores (when both directions share one buffer).
  bool force_cta_barrier = false;
  bool barrier_before_store = false;
  // Smem only: skip the bank search (the unswizzled base order) and cap the vector width
  // (bytes; 0 = no cap). For forcing conflicting plans (bank model vs hardware).
  bool no_swizzle = false;
  int max_vector_bytes = 0;
  // Smem only: the most bytes a conversion's shared buffer may hold; a plan whose buffer
  // is larger runs in rounds over a buffer of at most this (ChunkSharedRounds, where
  // offset bits allow). 32 KiB is Triton 3.6's scratch for the largest tensors of the
  // corpus (256x256 f16, 16 warps: 4 rounds of a quarter); our plans of every smaller
  // tensor fit. 0: no bound.
  int64_t max_scratch_bytes = 32768;
  // Smem only: no stmatrix/ldmatrix candidates (matrix.h) — the plans the plan prover
  // (verify/plan) encodes; `prove plan --no-matrix`.
  bool no_matrix = false;
  // Smem only: stmatrix/ldmatrix candidates only, no plain st/ld.shared ones (`convert
  // --smem-access=matrix`; with no_matrix, no shared-memory candidate is left).
  bool only_matrix = false;
  // Not owned; null: search every time. Only for the problem it was first used with.
  SearchMemo* memo = nullptr;
  // Price every candidate: none is skipped for a lower bound that shows it cannot be
  // chosen (PlanConversion), the matrix planner searches every side-kind candidate
  // to the end and prices every move of its climb in full (matrix.cc, Choose, Climb),
  // and the shuffle planner builds every direct scheme in order, none skipped for its
  // floor (PlanShuffle). The plan is the same either way (plan_test and matrix_test
  // check it); only the candidate list differs.
  bool price_all = false;
};

// The word representations worth trying for a conversion (src view, dst view): unpacked,
// packed on each side's lowest register bits, and packed on the directions both layouts
// keep in registers (which lets words travel whole); only `options.views` when set, and
// only packed or unpacked ones when `options.packed` says so.
std::vector<std::pair<WordView, WordView>> CandidateViews(const struct ConversionProblem& p,
                                                          const PlanOptions& options);

// The cost model's per-CTA figures for one conversion.
struct Cost {
  int64_t warp_instructions = 0;  // per CTA: ops x warps
  int64_t shfl = 0;               // per CTA
  int64_t wavefronts_store = 0, wavefronts_load = 0;
  int64_t conflicts_store = 0, conflicts_load = 0;
  int64_t barriers = 0;  // per conversion (CTA or warp barrier phases per warp)
  bool cta_barrier = false;
  // Predicted H200 time of one conversion of one CTA, from the model fitted to H200
  // timings (planner.cc, EstimateCost).
  double ns = 0;
  // What the search minimises: an issue + shared-pipe + barrier count (planner.cc). The
  // fitted time model predicts well (6.5% median error) but, used as the objective, it
  // picked plans that ran slower on the H200 (register pressure and instruction count
  // are outside it), so the search keeps the objective whose choices measured best.
  double score = 0;
  // A warp-local shared-memory plan: the components it runs in (InterleaveSharedComponents,
  // program.h), or would once interleaved; 1 for every other plan. Among plans of equal
  // score and instructions the search keeps the one with the most: on the H200 a
  // component's loads run while the next one's stores issue.
  int components = 1;
};

// The search's order of plans: the lower score, then fewer warp instructions, then more
// components. A strict weak order (equal in all three: neither ranks before).
inline bool RanksBefore(const Cost& a, const Cost& b) {
  if (a.score != b.score) return a.score < b.score;
  if (a.warp_instructions != b.warp_instructions) {
    return a.warp_instructions < b.warp_instructions;
  }
  return a.components > b.components;
}

struct ConversionPlan {
  Strategy strategy = Strategy::kRegisters;
  bool noop = false;
  bool packed = false;
  WordView src_view, dst_view;
  Program program;
  Cost cost;
  warpcheck::PlanStage stage;  // the strategy's parameters
  // What the search priced, in the order it priced them: kept as figures and written out
  // only when asked (CandidateLines; ToProto), since most callers never read them.
  struct Candidate {
    Strategy strategy = Strategy::kRegisters;
    // The word view's name: none (32/64-bit elements), "unpacked", or "packed" then
    // `pack_at` ? "@" : "" and `pack_bit` (the source view's first pack bit, 0 if none).
    enum class Pack : uint8_t { kNone, kUnpacked, kPacked } pack = Pack::kNone;
    bool pack_at = false;
    int pack_bit = 0;
    // False: skipped unpriced, since its lower bound (these figures: warp instructions,
    // wavefronts; no ns) shows it cannot be chosen (PlanConversion).
    bool priced = true;
    int64_t warp_instructions = 0;
    int64_t wavefronts = 0;
    double ns = 0;
  };
  std::vector<Candidate> candidates;
};

// Ensures: one line per candidate, "<strategy>[/<view>]: <n> warp instructions, <ns> ns"
// (e.g. "smem/packed0: 48 warp instructions, 123.4 ns"), in the plan's order; a candidate
// skipped for its bound reads "<strategy>[/<view>]: not priced, lower bound <n> warp
// instructions, <w> wavefronts".
std::vector<std::string> CandidateLines(const ConversionPlan& plan);

// Requires: `problem` from MakeProblem. Ensures: a plan whose program converts every
// element (checked by the simulator in tests and by `convert check`), or
// InvalidArgument when the requested strategy cannot do this conversion (saying why).
// The plan is the one PickNotWorseThanTriton (triton_floor.h) picks among all candidates
// (strategy x word view); a shuffle or shared-memory candidate whose lower bound
// (ShuffleBound, SmemBound) shows that it can be neither the reference nor the pick is
// not priced (unless `options.price_all`), which leaves the pick as it is.
absl::StatusOr<ConversionPlan> PlanConversion(const ConversionProblem& problem,
                                              const PlanOptions& options);

// A lower bound on the figures of every plan one shared-memory candidate (a word view,
// plain or stmatrix/ldmatrix accesses) or shuffle candidate can produce: no such plan has fewer warp
// instructions, fewer wavefronts (store + load) or a lower score. From the layouts alone,
// without a bank search: a side's accesses are at least its registers over the widest
// vector (or matrix instruction) that can cover them, its wavefronts at least one per
// lane group that takes part (SmemPlanner::Bound, matrix.cc SideBound) and at least the
// bytes over 128 (every element is stored, every warp loads the elements it holds; a
// wavefront serves one 4-byte word a bank), and there is at least the barrier between
// the stores and the loads.
// nullopt: no bound is known (the candidate may not exist: matrix tiles that do not fit).
std::optional<CostBound> SmemBound(const ConversionProblem& p, const WordView& sv,
                                   const WordView& dv, const PlanOptions& options,
                                   bool matrix);
// The same for the shuffle candidate (sv, dv): every lane receives a 32-bit word a
// shuffle, so the program has at least as many shuffles as the most bytes a lane needs
// from other lanes, over 4 (no wavefronts, no barrier); nullopt when PlanShuffle has no
// plan (warps or packing differ).
std::optional<CostBound> ShuffleBound(const ConversionProblem& p, const WordView& sv,
                                      const WordView& dv);

// Ensures: a bound no greater than the warp instructions, the wavefronts and the score of
// the plan PlanConversion(p, options) returns, and of the plans it returns with other
// force_cta_barrier, barrier_before_store or buffer options (which only add barriers or
// make them CTA-wide: PlanRoundTrip's replans); nullopt only when it returns none. The
// least of each figure over the candidates: ShuffleBound and SmemBound for the shuffle
// and shared-memory ones, the priced figures for the register ones (priced through
// options.memo, which PlanConversion then reuses).
std::optional<CostBound> PlanLowerBound(const ConversionProblem& p, const PlanOptions& options);

// Ensures: the cost model's figures for `program` (smem figures from `stage`).
Cost EstimateCost(const ConversionProblem& problem, const Program& program,
                  int64_t wavefronts_store, int64_t wavefronts_load, int64_t min_store,
                  int64_t min_load, bool cta_barrier);

// The Plan proto of CLI.md for `plan` (counts, smem bytes, predicted wavefronts).
warpcheck::Plan ToProto(const ConversionProblem& problem, const ConversionPlan& plan);

std::string StrategyName(Strategy s);

}  // namespace warpcheck::sim::plan

#endif  // WARPCHECK_SIM_PLAN_PLANNER_H_
