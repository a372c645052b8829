#include "tools/warpcheck/plan_render.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sim/base/enum_name.h"
#include "tools/warpcheck/layout_render.h"
#include "tools/warpcheck/svg.h"
#include "verify/plan/plan_concrete.h"

namespace warpcheck::cli {
namespace {

using sim::plan::Op;
using sim::plan::OpKind;
using verify::plan::ConcreteRun;

constexpr int64_t kMaxGridRows = 64, kMaxGridCols = 64;
constexpr int kMaxRounds = 16;                             // shuffle lane maps drawn
constexpr int kMaxBankRows = 48;                           // bank-map rows drawn
constexpr int kMaxWords = 64;                              // register words drawn
constexpr double kGap = 18;                                // between blocks
constexpr double kLaneW = 24, kLaneH = 16, kLaneGap = 56;  // a shuffle round
constexpr double kBankW = 30, kBankH = 18, kBankX = 84;    // a bank-map row
constexpr double kWordW = 40, kWordH = 16;                 // register moves

const char kArrow[] = "#1f5fbf";
const char kKept[] = "#aaa";
const char kOneWord[] = "#cfe9cf";
const char kConflict[] = "#f08c8c";

// What the picture draws into, top to bottom.
struct Canvas {
  svg::Document doc{10};
  double y = 0;

  void Line(const std::string& text, const svg::TextStyle& style = {}) {
    y += style.size * 1.4;
    doc.Text(0, y, text, style);
  }
  void Heading(const std::string& text) {
    y += kGap;
    Line(text, svg::TextStyle().Size(12).Bold());
    y += 4;
  }
};

// "(r,c)" of a flat row-major element index.
std::string Coords(const sim::plan::ConversionProblem& problem, uint32_t element) {
  std::vector<int64_t> c(problem.shape.size());
  for (size_t d = problem.shape.size(); d-- > 0;) {
    c[d] = element % problem.shape[d];
    element /= static_cast<uint32_t>(problem.shape[d]);
  }
  return absl::StrCat("(", absl::StrJoin(c, ","), ")");
}

// The distinct elements word `id` of thread `tid` holds, in byte order.
std::vector<uint32_t> ElementsOf(const ConcreteRun& run, int tid, int id) {
  std::vector<uint32_t> out;
  for (uint32_t tag : run.Word(tid, id)) {
    if (tag == verify::plan::kJunkTag || tag == verify::plan::kUnwrittenTag) continue;
    if (std::find(out.begin(), out.end(), tag / 8) == out.end()) out.push_back(tag / 8);
  }
  return out;
}

std::string ElementsText(const sim::plan::ConversionProblem& problem,
                         const ConcreteRun& run, int tid, int id) {
  std::vector<std::string> parts;
  for (uint32_t e : ElementsOf(run, tid, id)) parts.push_back(Coords(problem, e));
  return parts.empty() ? "nothing" : absl::StrJoin(parts, " ");
}

void DrawHeader(const sim::plan::ConversionProblem& problem, const warpcheck::Plan& plan,
                Canvas& c) {
  c.Line(absl::StrCat("convert ", problem.src_attr), svg::TextStyle().Size(12).Bold());
  c.Line(absl::StrCat("     -> ", problem.dst_attr), svg::TextStyle().Size(12).Bold());
  const PlanCounts& n = plan.counts();
  c.Line(absl::StrFormat(
      "shape %s %s, %d warps; strategy %s: %d instructions a conversion (shfl %d, selp "
      "%d, "
      "prmt %d, st.shared %d, ld.shared %d, stmatrix %d, ldmatrix %d, bar %d)",
      absl::StrJoin(problem.shape, "x"), sim::plan::DTypeName(problem.dtype),
      problem.num_warps, sim::base::EnumName(plan.strategy()), n.instructions(), n.shfl(),
      n.selp(), n.prmt(), n.st_shared(), n.ld_shared(), n.stmatrix(), n.ldmatrix(),
      n.bar()));
  if (plan.smem_bytes() > 0) {
    c.Line(absl::StrFormat(
        "shared memory %d bytes; cost model: wavefronts store %d load %d, bank conflicts "
        "store %d load %d (per CTA)",
        plan.smem_bytes(), plan.wavefronts().store(), plan.wavefronts().load(),
        plan.bank_conflicts().store(), plan.bank_conflicts().load()));
  }
}

// A registers-only plan: destination words of thread 0 and the source words each is
// made of (shared elements), as arrows.
void DrawRegisterMoves(const sim::plan::ConversionProblem& problem,
                       const sim::plan::Program& p, const ConcreteRun& run, Canvas& c) {
  c.Heading(
      "register moves of thread 0 (lane 0, warp 0): source word -> destination word");
  const int nin = std::min<int>(kMaxWords, static_cast<int>(p.inputs.size()));
  const int nout = std::min<int>(kMaxWords, static_cast<int>(p.outputs.size()));
  const double top = c.y + 8, bottom = top + kWordH + 3 * kLaneGap / 2;
  c.doc.Text(0, top + 12, "source", svg::TextStyle().RightAligned());
  c.doc.Text(0, bottom + 12, "dest", svg::TextStyle().RightAligned());
  auto box = [&](double x, double y, int i, const std::string& title) {
    c.doc.BeginGroup(title);
    c.doc.Rect(x, y, kWordW, kWordH, svg::Paint().Fill("#eef").Stroke("#555", 0.5));
    c.doc.Text(x + kWordW / 2, y + 12, absl::StrCat("w", i), svg::TextStyle().Centred());
    c.doc.EndGroup();
  };
  const double x0 = 8;
  for (int x = 0; x < nin; ++x) {
    box(x0 + x * kWordW, top, x,
        absl::StrCat("source word ", x, ": ",
                     ElementsText(problem, run, 0, p.inputs[x])));
  }
  for (int i = 0; i < nout; ++i) {
    const std::vector<uint32_t> want = ElementsOf(run, 0, p.outputs[i]);
    box(x0 + i * kWordW, bottom, i,
        absl::StrCat("destination word ", i, ": ",
                     ElementsText(problem, run, 0, p.outputs[i])));
    for (int x = 0; x < nin; ++x) {
      const std::vector<uint32_t> have = ElementsOf(run, 0, p.inputs[x]);
      bool shares = false;
      for (uint32_t e : want)
        shares |= std::find(have.begin(), have.end(), e) != have.end();
      if (!shares) continue;
      c.doc.BeginGroup(absl::StrCat("move: source word ", x, " -> destination word ", i));
      c.doc.Line(x0 + x * kWordW + kWordW / 2, top + kWordH, x0 + i * kWordW + kWordW / 2,
                 bottom, svg::Paint().Stroke(x == i ? kKept : kArrow, 1), /*arrow=*/true);
      c.doc.EndGroup();
    }
  }
  c.y = bottom + kWordH;
  if (static_cast<int>(std::max(p.inputs.size(), p.outputs.size())) > kMaxWords) {
    c.Line(absl::StrCat("(words ", kMaxWords, " and up not drawn)"));
  }
}

// One shuffle round (op k) in warp 0: receiver l reads the word of lane src(l).
void DrawShuffleRound(const sim::plan::ConversionProblem& problem,
                      const sim::plan::Program& p, const ConcreteRun& run, int k,
                      int round, Canvas& c) {
  const Op& op = p.ops[k];
  const bool bfly = op.kind == OpKind::kShflBfly;
  c.Line(absl::StrCat(
      "shuffle round ", round, " (op ", k, "): shfl.sync.", bfly ? "bfly" : "idx",
      bfly ? absl::StrCat(" lane ^ ", op.imm) : " lane from a per-lane index",
      "; the receiver gets the sender's word w", op.in[0]));
  const double top = c.y + 6, bottom = top + kLaneH + kLaneGap, x0 = 60;
  c.doc.Text(x0 - 6, top + 12, "sender", svg::TextStyle().RightAligned());
  c.doc.Text(x0 - 6, bottom + 12, "receiver", svg::TextStyle().RightAligned());
  for (uint32_t l = 0; l < 32; ++l) {
    for (double y : {top, bottom}) {
      c.doc.Rect(x0 + l * kLaneW, y, kLaneW, kLaneH,
                 svg::Paint().Fill("#f4f4f4").Stroke("#777", 0.5));
      c.doc.Text(x0 + l * kLaneW + kLaneW / 2, y + 12, absl::StrCat(l),
                 svg::TextStyle().Centred());
    }
  }
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t src =
        bfly ? (l ^ op.imm) & 31 : verify::plan::SetupAt(p.setup[op.addr], l) & 31;
    c.doc.BeginGroup(
        absl::StrCat("round ", round, ": lane ", l, " <- lane ", src, ", element ",
                     ElementsText(problem, run, static_cast<int>(l), op.out[0])));
    c.doc.Line(x0 + src * kLaneW + kLaneW / 2, top + kLaneH, x0 + l * kLaneW + kLaneW / 2,
               bottom, svg::Paint().Stroke(src == l ? kKept : kArrow, 0.8),
               /*arrow=*/true);
    c.doc.EndGroup();
  }
  c.y = bottom + kLaneH + 4;
}

// One bank of one lane group of a request: the distinct 4-byte words that meet in it,
// the lanes whose access touches it, and what each of those lanes moves there.
struct BankCell {
  std::set<uint32_t> words;
  std::vector<int> lanes;
  std::vector<std::string> what;  // "lane 5 (0,5)" (plain accesses; matrix ops: none)
};

// The cells of lane group g (lanes g*per_group ...) of access op k in warp 0.
std::map<uint32_t, BankCell> BankCells(const sim::plan::ConversionProblem& problem,
                                       const sim::plan::Program& p,
                                       const ConcreteRun& run, int k,
                                       const verify::plan::WarpRequest& req, int g,
                                       int per_group) {
  const Op& op = p.ops[k];
  const bool matrix = verify::plan::IsMatrix(op);
  const int bytes = verify::plan::AccessBytes(op);
  const sim::plan::Words& ids = verify::plan::IsStore(op) ? op.in : op.out;
  std::map<uint32_t, BankCell> banks;
  for (int l = g * per_group; l < (g + 1) * per_group; ++l) {
    if (!matrix && !((req.mask >> l) & 1)) continue;
    const uint32_t words = bytes < 4 ? 1 : static_cast<uint32_t>(bytes / 4);
    for (uint32_t w = 0; w < words; ++w) {
      const uint32_t word = req.addr[l] / 4 + w;
      BankCell& cell = banks[word % 32];
      cell.words.insert(word);
      if (!cell.lanes.empty() && cell.lanes.back() == l) continue;
      cell.lanes.push_back(l);
      // The program word of this lane's vector that covers bytes 4w..4w+3.
      const size_t at = static_cast<size_t>(4 * w / op.elem_bytes);
      if (!matrix && at < ids.size()) {
        cell.what.push_back(
            absl::StrCat("lane ", l, " ", ElementsText(problem, run, l, ids[at])));
      }
    }
  }
  return banks;
}

// Bank-map rows of one warp-wide request (op k, warp 0): one per lane group.
// Returns the rows drawn.
int DrawRequest(const sim::plan::ConversionProblem& problem, const sim::plan::Program& p,
                const ConcreteRun& run, int k, int request, int rows_left, Canvas& c) {
  const Op& op = p.ops[k];
  const verify::plan::WarpRequest req = verify::plan::RequestOf(p, k, 0);
  const bool matrix = verify::plan::IsMatrix(op);
  const int bytes = verify::plan::AccessBytes(op);
  c.Line(absl::StrFormat(
      "request %d (op %d): %s, %d bytes a lane%s; warp 0: %d wavefronts, "
      "%d conflicts",
      request, k, verify::plan::OpName(op), bytes, matrix ? " (a 16-byte row)" : "",
      req.cost.wavefronts, req.cost.conflicts()));
  if (req.mask == 0) {
    c.Line("  no lane of warp 0 takes part (broadcast copies are stored by other warps)");
    return 0;
  }
  const int per_group = matrix ? 8 : bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  const int groups = matrix ? verify::plan::MatrixCount(op) : 32 / per_group;
  int drawn = 0;
  for (int g = 0; g < groups && drawn < rows_left; ++g) {
    const std::map<uint32_t, BankCell> banks =
        BankCells(problem, p, run, k, req, g, per_group);
    const double y = c.y + 4;
    const std::string lanes_text =
        absl::StrCat("lanes ", g * per_group, "-", (g + 1) * per_group - 1);
    c.doc.Text(kBankX - 6, y + 13,
               matrix ? absl::StrCat("matrix ", g, ", ", lanes_text) : lanes_text,
               svg::TextStyle().RightAligned());
    size_t wavefronts = 0;
    for (uint32_t b = 0; b < 32; ++b) {
      auto it = banks.find(b);
      const size_t k_words = it == banks.end() ? 0 : it->second.words.size();
      wavefronts = std::max(wavefronts, k_words);
      const std::string fill = k_words == 0   ? "#fff"
                               : k_words == 1 ? kOneWord
                                              : kConflict;
      std::string title = absl::StrCat("request ", request, " ", lanes_text, ", bank ", b,
                                       ": ", k_words, " words");
      if (k_words > 0) {
        absl::StrAppend(&title, ", lanes ", absl::StrJoin(it->second.lanes, " "));
        if (!it->second.what.empty()) {
          absl::StrAppend(&title, "; ", absl::StrJoin(it->second.what, ", "));
        }
      }
      c.doc.BeginGroup(title);
      c.doc.Rect(kBankX + b * kBankW, y, kBankW, kBankH,
                 svg::Paint().Fill(fill).Stroke("#777", 0.5));
      if (k_words > 0) {
        c.doc.Text(
            kBankX + b * kBankW + kBankW / 2, y + 13,
            k_words > 1 ? absl::StrCat("x", k_words) : absl::StrCat(it->second.lanes[0]),
            svg::TextStyle().Centred());
      }
      c.doc.EndGroup();
    }
    c.doc.Text(kBankX + 32 * kBankW + 6, y + 13, absl::StrCat(wavefronts, " wf"));
    c.y = y + kBankH;
    ++drawn;
  }
  return drawn;
}

// Bank figures over every request of every warp.
struct Totals {
  int64_t requests[2] = {0, 0}, wavefronts[2] = {0, 0}, conflicts[2] = {0, 0};
  bool uniform = true;  // every warp's request costs what warp 0's does
};

Totals CountRequests(const sim::plan::ConversionProblem& problem,
                     const sim::plan::Program& p) {
  Totals t;
  for (size_t k = 0; k < p.ops.size(); ++k) {
    if (!verify::plan::IsAccess(p.ops[k])) continue;
    const int side = verify::plan::IsStore(p.ops[k]) ? 0 : 1;
    const verify::plan::WarpRequest first =
        verify::plan::RequestOf(p, static_cast<int>(k), 0);
    for (int w = 0; w < problem.num_warps; ++w) {
      const verify::plan::WarpRequest r =
          verify::plan::RequestOf(p, static_cast<int>(k), static_cast<uint32_t>(w));
      t.requests[side] += r.mask != 0;
      t.wavefronts[side] += r.cost.wavefronts;
      t.conflicts[side] += r.cost.conflicts();
      t.uniform &= r.cost.wavefronts == first.cost.wavefronts &&
                   r.cost.minimum == first.cost.minimum &&
                   (r.mask == 0) == (first.mask == 0);
    }
  }
  return t;
}

void DrawLegends(bool shuffles, bool banks, Canvas& c) {
  double x = 0;
  const double y = c.y + kGap;
  svg::Box tallest;
  if (shuffles) {
    svg::Box b = c.doc.Legend(
        x, y, "shuffle rounds",
        {{svg::Paint().Stroke(kArrow, 1), true, true, "the word travels to the receiver"},
         {svg::Paint().Stroke(kKept, 1), true, true, "the lane reads its own word"}});
    x = b.x1 + 16;
    tallest.Add(b);
  }
  if (banks) {
    tallest.Add(c.doc.Legend(
        x, y, "bank maps (warp 0; cell = bank 0..31)",
        {{svg::Paint().Fill(kOneWord).Stroke("#777", 0.5), false, false,
          "one 4-byte word: the lane shown (or several lanes reading it: broadcast)"},
         {svg::Paint().Fill(kConflict).Stroke("#777", 0.5), false, false,
          "xK: K distinct words in one bank, a conflict (the group takes K wavefronts)"},
         {svg::Paint().Fill("#fff").Stroke("#777", 0.5), false, false,
          "bank not used"}}));
  }
  if (!tallest.empty) c.y = tallest.y1;
}

// The program op by op (see the header); returns the numbers of shuffle rounds and of
// access requests.
std::pair<int, int> DrawSteps(const sim::plan::ConversionProblem& problem,
                              const sim::plan::Program& p, const ConcreteRun& run,
                              Canvas& c) {
  c.Heading("steps: one thread's program, op by op; lanes and banks of warp 0");
  int rounds = 0, requests = 0, bank_rows = 0, rounds_left_out = 0, requests_left_out = 0;
  for (size_t k = 0; k < p.ops.size();) {
    const Op& op = p.ops[k];
    if (op.kind == OpKind::kSelp || op.kind == OpKind::kPrmt) {
      int selp = 0, prmt = 0;
      const size_t first = k;
      for (; k < p.ops.size() &&
             (p.ops[k].kind == OpKind::kSelp || p.ops[k].kind == OpKind::kPrmt);
           ++k) {
        (p.ops[k].kind == OpKind::kSelp ? selp : prmt)++;
      }
      c.Line(absl::StrCat(k - first == 1 ? absl::StrCat("op ", first)
                                         : absl::StrCat("ops ", first, "-", k - 1),
                          ": ", selp, " selp, ", prmt,
                          " prmt (registers: which word a lane sends, keeps or packs)"));
      continue;
    }
    if (op.kind == OpKind::kBarSync || op.kind == OpKind::kBarWarp) {
      c.Line(absl::StrCat("op ", k, ": ",
                          op.kind == OpKind::kBarSync
                              ? "bar.sync 0 (every warp of the CTA waits)"
                              : "bar.warp.sync (each warp reads only what it wrote)"));
    } else if (op.kind == OpKind::kShflBfly || op.kind == OpKind::kShflIdx) {
      if (rounds < kMaxRounds) {
        DrawShuffleRound(problem, p, run, static_cast<int>(k), rounds, c);
      } else {
        ++rounds_left_out;
      }
      ++rounds;
    } else {
      if (bank_rows < kMaxBankRows) {
        bank_rows += DrawRequest(problem, p, run, static_cast<int>(k), requests,
                                 kMaxBankRows - bank_rows, c);
      } else {
        ++requests_left_out;
      }
      ++requests;
    }
    ++k;
  }
  if (rounds_left_out > 0) {
    c.Line(absl::StrCat("(", rounds_left_out, " more shuffle rounds not drawn)"));
  }
  if (requests_left_out > 0) {
    c.Line(absl::StrCat("(", requests_left_out,
                        " more requests not drawn; the totals below count them)"));
  }
  return {rounds, requests};
}

void DrawTotals(const sim::plan::ConversionProblem& problem, const sim::plan::Program& p,
                const warpcheck::Plan& plan, Canvas& c) {
  const Totals t = CountRequests(problem, p);
  c.Heading("bank totals per CTA (every request of every warp, priced by sim/bank)");
  const char* side_name[2] = {"stores", "loads"};
  const int64_t model_wf[2] = {plan.wavefronts().store(), plan.wavefronts().load()};
  const int64_t model_cf[2] = {plan.bank_conflicts().store(),
                               plan.bank_conflicts().load()};
  for (int s = 0; s < 2; ++s) {
    c.Line(absl::StrFormat(
        "%s: %d warp requests, %d wavefronts, %d conflicts (cost model: %d "
        "wavefronts, %d conflicts)",
        side_name[s], t.requests[s], t.wavefronts[s], t.conflicts[s], model_wf[s],
        model_cf[s]));
  }
  c.Line(t.uniform
             ? absl::StrCat("every one of the ", problem.num_warps,
                            " warps has warp 0's bank pattern")
             : "the warps' bank patterns differ (or some warps do not take part): the "
               "maps above are warp 0's only");
}

}  // namespace

absl::StatusOr<std::string> RenderPlanSvg(const sim::plan::ConversionProblem& problem,
                                          const sim::plan::ConversionPlan& plan) {
  absl::StatusOr<ConcreteRun> run = verify::plan::RunConcrete(problem, plan);
  if (!run.ok()) return run.status();
  const warpcheck::Plan proto = sim::plan::ToProto(problem, plan);
  const sim::plan::Program& p = plan.program;
  Canvas c;
  DrawHeader(problem, proto, c);
  c.y += kGap;
  c.y = DrawLayoutGrid(c.doc, problem.src_layout, 0, c.y,
                       absl::StrCat("source ownership: ", problem.src_attr), kMaxGridRows,
                       kMaxGridCols)
            .y1;
  c.y += kGap;
  c.y = DrawLayoutGrid(c.doc, problem.dst_layout, 0, c.y,
                       absl::StrCat("destination ownership: ", problem.dst_attr),
                       kMaxGridRows, kMaxGridCols)
            .y1;
  bool moves = false;
  for (const Op& op : p.ops) {
    moves |= op.kind != OpKind::kSelp && op.kind != OpKind::kPrmt;
  }
  if (!moves) {
    DrawRegisterMoves(problem, p, *run, c);
    return c.doc.Render();
  }
  const auto [rounds, requests] = DrawSteps(problem, p, *run, c);
  if (requests > 0) DrawTotals(problem, p, proto, c);
  DrawLegends(rounds > 0, requests > 0, c);
  return c.doc.Render();
}

}  // namespace warpcheck::cli
