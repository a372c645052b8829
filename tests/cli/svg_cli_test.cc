// The pictures the CLI writes with --svg (layout show, swizzle2d show, signal run): each
// is a well-formed document whose viewBox holds every text's estimated extent, and each
// carries the information of the text output (cell labels, the wait-for edges, a legend).
#include <filesystem>
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

}  // namespace
}  // namespace warpcheck::cli
