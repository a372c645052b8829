// The pictures the CLI writes with --svg (layout show, swizzle2d show, signal run): each
// is a well-formed document whose viewBox holds every text's estimated extent, and each
// carries the information of the text output (cell labels, the wait-for edges, a legend).
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "sim/base/enum_name.h"
#include "gtest/gtest.h"
#include "tests/testing/cli_runner.h"
#include "tests/testing/svg_check.h"
#include "tools/warpcheck/cli.h"
#include "tools/warpcheck/layout_render.h"
#include "tools/warpcheck/signal_render.h"

namespace warpcheck::cli {
namespace {

using ::testing::IsEmpty;
using testing::ParseXml;
using testing::ReadAll;
using testing::Result;
using testing::RunCli;
using testing::TempPath;
using testing::TextsOutsideViewBox;
using testing::XmlElement;

std::string Corpus(const std::string& name) {
  return std::string(WARPCHECK_SOURCE_DIR) + "/corpus/signal/" + name;
}

// Runs `args` plus --svg=FILE, expects `code`, and returns the picture's elements.
std::vector<XmlElement> Picture(std::vector<std::string> args, int code, Result* result) {
  const std::string path = TempPath("picture.svg");
  std::filesystem::remove(path);
  args.push_back("--svg=" + path);
  *result = RunCli(args);
  EXPECT_EQ(result->code, code) << result->err;
  std::vector<XmlElement> elements;
  const std::string doc = ReadAll(path);
  std::filesystem::remove(path);
  absl::Status parsed = ParseXml(doc, &elements);
  EXPECT_TRUE(parsed.ok()) << parsed << "\n" << doc;
  EXPECT_THAT(TextsOutsideViewBox(elements), IsEmpty()) << doc;
  return elements;
}

std::vector<std::string> Texts(const std::vector<XmlElement>& elements) {
  std::vector<std::string> out;
  for (const XmlElement& e : elements) {
    if (e.name == "text") out.push_back(e.text);
  }
  return out;
}

// The <g> titles that start with `prefix`.
int Groups(const std::vector<XmlElement>& elements, const std::string& prefix) {
  int n = 0;
  for (const XmlElement& e : elements) n += e.name == "title" && e.text.rfind(prefix, 0) == 0;
  return n;
}

TEST(SvgCliTest, LayoutPictureLabelsEveryCellAndKeysTheWarps) {
  const std::string attr =
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>";
  Result r;
  std::vector<XmlElement> svg = Picture({"layout", "show", attr, "--shape=32x32"}, kExitOk, &r);
  std::vector<std::string> texts = Texts(svg);
  ASSERT_FALSE(texts.empty());
  EXPECT_EQ(texts[0], absl::StrCat(attr, "  32x32"));  // the long title, inside the box
  // Cell (0, 5): lane 1 (threadsPerWarp = [8, 4], 4 columns a thread), register 1.
  EXPECT_THAT(texts, ::testing::Contains("1:1"));
  for (const char* warp : {"warp 0", "warp 1", "warp 2", "warp 3"}) {
    EXPECT_THAT(texts, ::testing::Contains(warp));
  }
  int cells = 0;
  for (const XmlElement& e : svg) {
    cells += e.name == "rect" && e.attrs.count("fill") && e.attrs.at("fill").rfind("hsl", 0) == 0;
  }
  EXPECT_EQ(cells, 32 * 32 + 4);  // the cells, then one swatch per warp
}

TEST(SvgCliTest, SwizzlePictureKeepsItsTitleInside) {
  Result r;
  std::vector<XmlElement> svg = Picture({"swizzle2d", "show", "--fn=dist", "--row-tiles=4",
                                         "--col-tiles=6", "--rank-size=2"},
                                        kExitOk, &r);
  std::vector<std::string> texts = Texts(svg);
  ASSERT_FALSE(texts.empty());
  EXPECT_THAT(texts[0], ::testing::HasSubstr("dist"));
  EXPECT_THAT(texts, ::testing::Contains("rank 1"));
  // One labelled cell per visited point inside the grid.
  int cells = 0;
  for (const XmlElement& e : svg) cells += e.name == "text" && e.attrs.count("text-anchor");
  int inside = 0;
  for (const SwizzlePoint& p : r.report.swizzle2d().points()) {
    inside += p.row() >= 0 && p.row() < 4 && p.col() >= 0 && p.col() < 6;
  }
  EXPECT_EQ(cells, inside);
  EXPECT_GT(cells, 0);
  EXPECT_EQ(Groups(svg, "legend"), 1);
}

// The wait-for graph: one titled, labelled edge per explanation edge (plus one to
// "nobody" per blocked agent whose word has no writer left), and a legend.
void CheckWaitFor(const std::string& program, const std::string& cause, int nobody_edges) {
  SCOPED_TRACE(program);
  Result r;
  std::vector<XmlElement> svg = Picture({"signal", "run", Corpus(program)}, 10, &r);
  const SignalExplanation& e = r.report.signal().explanation();
  EXPECT_EQ(sim::base::EnumName(e.cause()), cause);
  std::vector<std::string> texts = Texts(svg);
  EXPECT_THAT(texts, ::testing::Contains("wait-for graph: " + cause));
  EXPECT_EQ(Groups(svg, "edge "), e.edges_size() + nobody_edges);
  EXPECT_EQ(Groups(svg, "legend"), 1);
  for (const SignalEdge& ed : e.edges()) {
    // A wait on a word says which and what it wants; a stream at a launch waits for its CTAs.
    EXPECT_THAT(texts, ::testing::Contains(
                           ed.word().empty()
                               ? std::string("waits for it to finish")
                               : absl::StrCat("waits on ", ed.word(), ": want ", ed.expected(),
                                              ", saw ", ed.observed())));
    if (!ed.site().empty()) {
      EXPECT_THAT(texts, ::testing::Contains("writer site: " + ed.site()));
    }
    EXPECT_EQ(Groups(svg, absl::StrCat("agent ", ed.from(), " (")), 1) << ed.from();
    EXPECT_EQ(Groups(svg, absl::StrCat("agent ", ed.to(), " (")), 1) << ed.to();
  }
  // Every node box is wide enough for its name.
  for (size_t i = 0; i + 2 < svg.size(); ++i) {
    if (svg[i].name != "title" || svg[i].text.rfind("agent ", 0) != 0) continue;
    const XmlElement& box = svg[i + 1];
    const XmlElement& name = svg[i + 2];
    ASSERT_EQ(box.name, "rect");
    ASSERT_EQ(name.name, "text");
    const svg::Box extent = testing::TextExtent(name, 11);
    EXPECT_LE(testing::Attr(box, "x"), extent.x0) << name.text;
    EXPECT_GE(testing::Attr(box, "x") + testing::Attr(box, "width"), extent.x1) << name.text;
  }
}

TEST(SvgCliTest, WaitForGraphOfATwoRankCycle) { CheckWaitFor("c19_two_rank_cycle.textproto", "cycle", 0); }

TEST(SvgCliTest, WaitForGraphOfARing) { CheckWaitFor("c20_ring_no_initiator.textproto", "cycle", 0); }

TEST(SvgCliTest, WaitForGraphOfAMissingNotify) {
  CheckWaitFor("c05_notify_wrong_rank.textproto", "missing_notify", 1);
}

TEST(SvgCliTest, WaitForGraphOfAnExitedWriter) {
  CheckWaitFor("c21_wait_on_exited_rank.textproto", "exited_writer", 0);
}

TEST(SvgCliTest, NoGraphWithoutADeadlock) {
  SignalReport completes;
  completes.set_outcome(SignalReport::completes);
  EXPECT_FALSE(HasWaitForGraph(completes));
  SignalReport diverged;
  diverged.set_outcome(SignalReport::deadlock);
  diverged.set_replay(SignalReport::diverged);
  EXPECT_FALSE(HasWaitForGraph(diverged));
  SignalReport reproduced;
  reproduced.set_outcome(SignalReport::deadlock);
  reproduced.set_replay(SignalReport::reproduced);
  EXPECT_TRUE(HasWaitForGraph(reproduced));
  SignalReport nondeterministic;
  nondeterministic.set_outcome(SignalReport::nondeterministic);
  EXPECT_TRUE(HasWaitForGraph(nondeterministic));
}

// ---- convert plan --svg
// ----------------------------------------------------------------

std::vector<std::string> Titles(const std::vector<XmlElement>& elements) {
  std::vector<std::string> out;
  for (const XmlElement& e : elements) {
    if (e.name == "title") out.push_back(e.text);
  }
  return out;
}

constexpr char kRowsWarps[] =
    "--src=#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = "
    "[4, 1], "
    "order = [1, 0]}>";
constexpr char kColsWarps[] =
    "--dst=#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = "
    "[1, 4], "
    "order = [0, 1]}>";

// A plan forced to conflict (no bank search, 4-byte accesses): the bank map's cells, read
// back (distinct words per bank, per lane group), give warp 0's wavefronts and conflicts;
// times the warps they are the cost model's per-CTA figures (from the planner's offset
// basis) and the simulator's counters (the emitted kernel run) -- the picture's come from
// the program's addresses. Red cells are exactly the banks with two or more words.
TEST(SvgCliTest, PlanBankMapOfAConflictingPlanAddsUpToThePlansConflicts) {
  Result r;
  std::vector<XmlElement> svg =
      Picture({"convert", "plan", kRowsWarps, kColsWarps, "--shape=32x32", "--dtype=i32",
               "--strategy=smem", "--no-swizzle", "--max-vector-bytes=4"},
              kExitOk, &r);
  const Plan& plan = r.report.plan();
  ASSERT_EQ(plan.strategy(), Plan::smem);
  const int64_t conflicts = plan.bank_conflicts().store() + plan.bank_conflicts().load();
  ASSERT_GT(conflicts, 0) << "the flags should force a conflicting plan";
  const std::regex cell(R"(^request (\d+) lanes (\d+)-(\d+), bank (\d+): (\d+) words)");
  std::map<std::pair<int, int>, int>
      row_max;  // (request, first lane) -> max words a bank
  std::map<std::pair<int, int>, int> row_cells;
  int conflict_titles = 0;
  for (const std::string& t : Titles(svg)) {
    std::smatch m;
    if (!std::regex_search(t, m, cell)) continue;
    const std::pair<int, int> row = {std::stoi(m[1]), std::stoi(m[2])};
    const int words = std::stoi(m[5]);
    row_max[row] = std::max(row_max[row], words);
    ++row_cells[row];
    conflict_titles += words >= 2;
  }
  ASSERT_FALSE(row_max.empty());
  int64_t wavefronts = 0, conflicted = 0;
  for (const auto& [row, max] : row_max) {
    EXPECT_EQ(row_cells[row], 32) << "request " << row.first;
    wavefronts += max;
    conflicted += max > 0 ? max - 1 : 0;
  }
  const std::vector<std::string> texts = Texts(svg);
  ASSERT_THAT(texts,
              ::testing::Contains("every one of the 4 warps has warp 0's bank pattern"));
  EXPECT_EQ(conflicted * 4, conflicts);
  EXPECT_EQ(wavefronts * 4, plan.wavefronts().store() + plan.wavefronts().load());
  // And the simulator's counters for one conversion (`convert check`'s once harness).
  Result check =
      RunCli({"convert", "check", kRowsWarps, kColsWarps, "--shape=32x32", "--dtype=i32",
              "--strategy=smem", "--no-swizzle", "--max-vector-bytes=4", "--prove=none"});
  ASSERT_EQ(check.code, kExitOk) << check.out << check.err;
  const auto& measured = check.report.convert_check().measured();
  EXPECT_EQ(conflicted * 4,
            measured.at("bank_conflicts.store") + measured.at("bank_conflicts.load"));
  EXPECT_EQ(wavefronts * 4,
            measured.at("smem_wavefronts.store") + measured.at("smem_wavefronts.load"));
  int red = 0;
  for (const XmlElement& e : svg)
    red += e.name == "rect" && e.attrs.count("fill") && e.attrs.at("fill") == "#f08c8c";
  EXPECT_EQ(red, conflict_titles + 1);  // + the legend's swatch
  EXPECT_THAT(texts, ::testing::Contains(absl::StrCat(
                         "stores: ", 4 * plan.counts().st_shared(), " warp requests, ",
                         plan.wavefronts().store(), " wavefronts, ",
                         plan.bank_conflicts().store(),
                         " conflicts (cost model: ", plan.wavefronts().store(),
                         " wavefronts, ", plan.bank_conflicts().store(), " conflicts)")));
  // Both layouts' ownership grids, as layout show draws them.
  EXPECT_THAT(texts, ::testing::Contains(::testing::HasSubstr("source ownership: ")));
  EXPECT_THAT(texts,
              ::testing::Contains(::testing::HasSubstr("destination ownership: ")));
}

// A shuffle plan: every drawn round has one arrow per receiver lane, and the arrows are
// the plan's lane map: receiver l reads lane A l ^ c, A from the plan's shuffle stage
// (its lane_matrix columns), c one constant per round.
TEST(SvgCliTest, PlanShuffleArrowsFollowThePlansLaneMap) {
  Result r;
  std::vector<XmlElement> svg =
      Picture({"convert", "plan",
               "--src=#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
               "warpsPerCTA = "
               "[1, 1], order = [1, 0]}>",
               "--dst=#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], "
               "warpsPerCTA = "
               "[1, 1], order = [1, 0]}>",
               "--shape=16x16", "--dtype=i32", "--strategy=shuffle"},
              kExitOk, &r);
  const Plan& plan = r.report.plan();
  ASSERT_EQ(plan.strategy(), Plan::shuffle);
  ASSERT_EQ(plan.stages_size(), 1);
  const ShuffleStage& stage = plan.stages(0).shuffle();
  ASSERT_EQ(stage.lane_matrix_size(), 5);
  auto apply = [&](uint32_t l) {
    uint32_t v = 0;
    for (int j = 0; j < 5; ++j)
      if ((l >> j) & 1) v ^= stage.lane_matrix(j);
    return v;
  };
  const std::regex arrow(
      R"(^round (\d+): lane (\d+) <- lane (\d+), element \(\d+,\d+\))");
  std::map<int, std::map<uint32_t, uint32_t>> rounds;
  for (const std::string& t : Titles(svg)) {
    std::smatch m;
    if (std::regex_search(t, m, arrow)) {
      rounds[std::stoi(m[1])][std::stoul(m[2])] = std::stoul(m[3]);
    }
  }
  ASSERT_EQ(static_cast<int64_t>(rounds.size()),
            std::min<int64_t>(16, plan.counts().shfl()));
  for (const auto& [round, lanes] : rounds) {
    ASSERT_EQ(lanes.size(), 32u) << "round " << round;
    const uint32_t c = lanes.at(0) ^ apply(0);
    for (const auto& [l, src] : lanes) {
      EXPECT_EQ(src, apply(l) ^ c) << "round " << round << " lane " << l;
    }
  }
}

// Size bounds: a 4-warp 64x64 pair and a 256x256 pair with 512 requests a thread stay a
// few thousand units on a side; what is cut is said.
TEST(SvgCliTest, PlanPictureStaysBoundedForBigPairs) {
  Result r;
  std::vector<XmlElement> svg =
      Picture({"convert", "plan", kRowsWarps, kColsWarps, "--shape=64x64", "--dtype=f16"},
              kExitOk, &r);
  svg::Box view = testing::ViewBox(svg[0]);
  EXPECT_LE(view.width(), 3500);
  EXPECT_LE(view.height(), 6000);
  svg = Picture({"convert", "plan", kRowsWarps, kColsWarps, "--shape=256x256",
                 "--dtype=f32", "--strategy=smem", "--max-vector-bytes=4"},
                kExitOk, &r);
  view = testing::ViewBox(svg[0]);
  EXPECT_LE(view.width(), 3500);
  EXPECT_LE(view.height(), 6000);
  const std::vector<std::string> texts = Texts(svg);
  EXPECT_THAT(texts,
              ::testing::Contains(::testing::HasSubstr("more requests not drawn")));
  EXPECT_THAT(texts, ::testing::Contains(::testing::HasSubstr(
                         "rows 0-63, columns 0-63 of 256x256 shown")));
}

// A conversion between equal layouts moves nothing: each destination word is its own
// source word (grey arrows w_i -> w_i, thread 0).
TEST(SvgCliTest, PlanOfANoopIsTheIdentityOnWords) {
  Result r;
  std::string dst = kRowsWarps;
  dst.replace(0, 5, "--dst");
  std::vector<XmlElement> svg = Picture(
      {"convert", "plan", kRowsWarps, dst, "--shape=32x32", "--dtype=f32"}, kExitOk, &r);
  ASSERT_EQ(r.report.plan().strategy(), Plan::noop);
  const std::regex move(R"(^move: source word (\d+) -> destination word (\d+)$)");
  int moves = 0;
  for (const std::string& t : Titles(svg)) {
    std::smatch m;
    if (!std::regex_search(t, m, move)) continue;
    EXPECT_EQ(m[1], m[2]) << t;
    ++moves;
  }
  EXPECT_EQ(moves, 8);  // 32x32 f32 over 128 threads: 8 registers, a word each
}

}  // namespace
}  // namespace warpcheck::cli
