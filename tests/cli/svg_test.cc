// The SVG document builder (tools/warpcheck/svg.h): escaping, text width estimates,
// bounds that cover every element, and well-formed output.
#include "tools/warpcheck/svg.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/svg_check.h"

namespace warpcheck::cli::svg {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::ParseXml;
using testing::TextsOutsideViewBox;
using testing::ViewBox;
using testing::XmlElement;

std::vector<XmlElement> Parse(const std::string& doc) {
  std::vector<XmlElement> elements;
  absl::Status s = ParseXml(doc, &elements);
  EXPECT_TRUE(s.ok()) << s << "\n" << doc;
  return elements;
}

TEST(SvgTest, EscapeReplacesEveryMarkupCharacter) {
  EXPECT_EQ(Escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(Escape("rank0.cta0"), "rank0.cta0");
}

TEST(SvgTest, TextWidthCountsCodePoints) {
  EXPECT_DOUBLE_EQ(TextWidth("", 10), 0);
  EXPECT_DOUBLE_EQ(TextWidth("abcd", 10), 4 * kCharWidth * 10);
  EXPECT_DOUBLE_EQ(TextWidth("a\xe2\x86\x92" "b", 10), 3 * kCharWidth * 10);  // a→b
}

TEST(SvgTest, TextBoxFollowsTheAnchor) {
  Box start = TextBox(100, 50, "abcd", TextStyle().Size(10));
  Box middle = TextBox(100, 50, "abcd", TextStyle().Size(10).Centred());
  Box end = TextBox(100, 50, "abcd", TextStyle().Size(10).RightAligned());
  const double w = TextWidth("abcd", 10);
  EXPECT_DOUBLE_EQ(start.x0, 100);
  EXPECT_DOUBLE_EQ(start.x1, 100 + w);
  EXPECT_DOUBLE_EQ(middle.x0, 100 - w / 2);
  EXPECT_DOUBLE_EQ(end.x1, 100);
  EXPECT_LT(start.y0, 50 - 7);  // ascent above the baseline
  EXPECT_GT(start.y1, 50);      // descent below it
}

TEST(SvgTest, TextIsEscapedAndWellFormed) {
  Document doc;
  doc.Text(0, 10, "a <nobody> & \"x\"");
  doc.BeginGroup("edge a -> b");
  doc.Line(0, 20, 50, 20, Paint().Stroke("#c00"), /*arrow=*/true);
  doc.EndGroup();
  const std::string out = doc.Render();
  EXPECT_THAT(out, HasSubstr("a &lt;nobody&gt; &amp; &quot;x&quot;"));
  EXPECT_THAT(out, Not(HasSubstr("<nobody>")));
  std::vector<XmlElement> elements = Parse(out);
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(elements[0].name, "svg");
  bool found = false;
  for (const XmlElement& e : elements) found |= e.name == "text" && e.text == "a <nobody> & \"x\"";
  EXPECT_TRUE(found);
}

TEST(SvgTest, ArrowMarkersAreDefinedOncePerColour) {
  Document doc;
  doc.Line(0, 0, 10, 0, Paint().Stroke("#c00"), true);
  doc.Line(0, 5, 10, 5, Paint().Stroke("#c00"), true);
  doc.Curve(0, 10, 5, 20, 10, 10, Paint().Stroke("#666"), true);
  const std::string out = doc.Render();
  std::vector<XmlElement> elements = Parse(out);
  int markers = 0;
  std::set<std::string> ids;
  for (const XmlElement& e : elements) {
    if (e.name == "marker") {
      ++markers;
      ids.insert(e.attrs.at("id"));
    }
  }
  EXPECT_EQ(markers, 2);
  for (const XmlElement& e : elements) {
    if (e.name == "line" || e.name == "path") {
      auto it = e.attrs.find("marker-end");
      if (it == e.attrs.end()) continue;  // the markers' own arrowhead paths
      const std::string id = it->second.substr(5, it->second.size() - 6);  // url(#id)
      EXPECT_TRUE(ids.count(id)) << id;
    }
  }
}

TEST(SvgTest, ViewBoxCoversEveryElementPlusTheMargin) {
  Document doc(10, /*margin=*/8);
  doc.Rect(-40, -30, 20, 10, Paint().Fill("#eee").Stroke("#000", 2));
  doc.Circle(200, 100, 15, Paint().Fill("#fdd"));
  doc.Curve(0, 0, 300, -80, 10, 10, Paint().Stroke("#000"));
  const std::string title(120, 'x');  // much wider than the shapes
  doc.Text(0, 0, title, TextStyle().Size(14));
  const Box b = doc.bounds();
  EXPECT_DOUBLE_EQ(b.x0, -41);  // stroke reaches 1 outside the rect
  EXPECT_DOUBLE_EQ(b.y0, -80.5);  // the curve's control point, plus half its stroke
  EXPECT_DOUBLE_EQ(b.x1, TextWidth(title, 14));
  EXPECT_DOUBLE_EQ(b.y1, 115);
  std::vector<XmlElement> elements = Parse(doc.Render());
  ASSERT_FALSE(elements.empty());
  const Box view = ViewBox(elements[0]);
  EXPECT_LE(view.x0, b.x0 - 8);
  EXPECT_LE(view.y0, b.y0 - 8);
  EXPECT_GE(view.x1, b.x1 + 8);
  EXPECT_GE(view.y1, b.y1 + 8);
  EXPECT_DOUBLE_EQ(testing::Attr(elements[0], "width"), view.width());
  EXPECT_DOUBLE_EQ(testing::Attr(elements[0], "height"), view.height());
  EXPECT_THAT(TextsOutsideViewBox(elements), IsEmpty());
}

TEST(SvgTest, LegendIsAGroupSizedToItsLongestLabel) {
  Document doc;
  const std::string long_label(60, 'y');
  Box legend = doc.Legend(0, 0, "heading",
                          {{Paint().Stroke("#c00"), /*line=*/true, /*arrow=*/true, "short"},
                           {Paint().Fill("#fdd"), /*line=*/false, /*arrow=*/false, long_label}});
  EXPECT_GE(legend.width(), TextWidth(long_label, 10));
  EXPECT_GE(legend.height(), 3 * 10);
  const std::string out = doc.Render();
  EXPECT_THAT(out, HasSubstr("<title>legend</title>"));
  std::vector<XmlElement> elements = Parse(out);
  EXPECT_THAT(TextsOutsideViewBox(elements), IsEmpty());
  int texts = 0;
  for (const XmlElement& e : elements) texts += e.name == "text";
  EXPECT_EQ(texts, 3);
}

TEST(SvgTest, EmptyDocumentIsStillValid) {
  std::vector<XmlElement> elements = Parse(Document().Render());
  ASSERT_FALSE(elements.empty());
  EXPECT_FALSE(ViewBox(elements[0]).empty);
}

TEST(SvgTest, ParserRejectsMalformedDocuments) {
  std::vector<XmlElement> e;
  EXPECT_FALSE(ParseXml("<svg><g></svg>", &e).ok());
  e.clear();
  EXPECT_FALSE(ParseXml("<svg><text>a < b</text></svg>", &e).ok());
  e.clear();
  EXPECT_FALSE(ParseXml("<svg x=1/>", &e).ok());
  e.clear();
  EXPECT_FALSE(ParseXml("<svg/><svg/>", &e).ok());
  e.clear();
  EXPECT_FALSE(ParseXml("<svg>&nbsp;</svg>", &e).ok());
}

TEST(SvgDeathTest, UnbalancedGroupsAbort) {
  Document doc;
  doc.BeginGroup("open");
  EXPECT_DEATH(doc.Render(), "open group");
  Document other;
  EXPECT_DEATH(other.EndGroup(), "without BeginGroup");
}

}  // namespace
}  // namespace warpcheck::cli::svg
