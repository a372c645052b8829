// A small SVG document builder: every picture warpcheck draws (`layout show --svg`,
// `swizzle2d show --svg`, `signal run --svg`) is made of these elements and nothing else.
//
// Why a builder and not string concatenation: a picture has to be sized from what is
// drawn. Each call records the element's bounding box -- text included, from an
// estimated width (monospace: about 0.6 em per character) -- and Render() computes
// width, height and viewBox as the union of all boxes plus a margin, so a long title or a
// label placed left of the origin is never cut off. Text is XML-escaped here, once, so
// callers pass plain strings (agent names such as "<nobody>" included).
//
// Example:
//
//   svg::Document doc;
//   doc.Text(0, 14, "wait-for graph: cycle", svg::TextStyle().Size(14));
//   doc.Rect(0, 20, 40, 20, svg::Paint().Fill("#fdd").Stroke("#333"), /*radius=*/6);
//   doc.Curve(20, 40, 60, 80, 20, 120, svg::Paint().Stroke("#c00"), /*arrow=*/true);
//   std::string text = doc.Render();  // <svg ... viewBox="-10 -10 ..."> ... </svg>
//
// Coordinates are user units with y pointing down; a text's y is its baseline. The
// output is deterministic (numbers printed with at most two decimals) and has one element
// per line, so pictures diff well.
#ifndef WARPCHECK_TOOLS_WARPCHECK_SVG_H_
#define WARPCHECK_TOOLS_WARPCHECK_SVG_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace warpcheck::cli::svg {

// An axis-aligned box; empty() until something is added.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty = true;

  // Ensures: the box covers its previous extent and [x0,x1] x [y0,y1].
  void Add(double ax0, double ay0, double ax1, double ay1);
  void Add(const Box& b);
  double width() const { return empty ? 0 : x1 - x0; }
  double height() const { return empty ? 0 : y1 - y0; }
};

// `s` with <, >, &, " and ' replaced by entities (usable in text and attribute values).
std::string Escape(absl::string_view s);

// The estimated advance width of `text` in a monospace font of `size` user units: the
// number of code points times kCharWidth * size. Ensures: >= the real width for the
// DejaVu Sans Mono / Liberation Mono family (0.6 em per glyph).
inline constexpr double kCharWidth = 0.62;
double TextWidth(absl::string_view text, double size);

enum class Anchor { kStart, kMiddle, kEnd };

// Built by chaining: TextStyle().Size(12).Centred().Bold().
struct TextStyle {
  double size = 10;
  Anchor anchor = Anchor::kStart;
  std::string fill;  // empty: black
  bool bold = false;

  TextStyle& Size(double s) { size = s; return *this; }
  TextStyle& Centred() { anchor = Anchor::kMiddle; return *this; }
  TextStyle& RightAligned() { anchor = Anchor::kEnd; return *this; }
  TextStyle& Colour(std::string c) { fill = std::move(c); return *this; }
  TextStyle& Bold() { bold = true; return *this; }
};

// The box a text occupies: [x - w*anchor, ...] horizontally, baseline - 0.8 size to
// baseline + 0.25 size vertically.
Box TextBox(double x, double y, absl::string_view text, const TextStyle& style);

// Built by chaining: Paint().Fill("#fdd").Stroke("#333", 0.5).Dash("4 3").
struct Paint {
  std::string fill = "none";
  std::string stroke;  // empty: no stroke
  double stroke_width = 1;
  std::string dash;  // e.g. "4 3"; empty: solid

  Paint& Fill(std::string c) { fill = std::move(c); return *this; }
  Paint& Stroke(std::string c, double width = 1) {
    stroke = std::move(c);
    stroke_width = width;
    return *this;
  }
  Paint& Dash(std::string d) { dash = std::move(d); return *this; }
};

// One legend line: a swatch (a filled square when `line` is false, a short stroked line,
// with an arrowhead when `arrow`, when it is true) and its explanation.
struct LegendEntry {
  Paint paint;
  bool line = false;
  bool arrow = false;
  std::string label;
};

class Document {
 public:
  // `font_size` is the document default; `margin` is added on every side of the bounds.
  explicit Document(double font_size = 10, double margin = 10);

  // A text element. Requires: text has no newline (one element per line).
  void Text(double x, double y, absl::string_view text, const TextStyle& style = {});
  // A rectangle; `radius` > 0 rounds its corners.
  void Rect(double x, double y, double w, double h, const Paint& paint, double radius = 0);
  void Circle(double cx, double cy, double r, const Paint& paint);
  // A straight line from (x1,y1) to (x2,y2); `arrow` puts an arrowhead (in the stroke
  // colour) at the end, its tip on (x2,y2).
  void Line(double x1, double y1, double x2, double y2, const Paint& paint, bool arrow = false);
  // A quadratic Bezier curve from (x1,y1) with control point (cx,cy) to (x2,y2); the
  // bounds are those of the control polygon (which contains the curve).
  void Curve(double x1, double y1, double cx, double cy, double x2, double y2,
             const Paint& paint, bool arrow = false);

  // Groups nest; a group's `title` is shown as a tooltip by viewers. Requires: every
  // BeginGroup is closed by EndGroup before Render().
  void BeginGroup(absl::string_view title = "");
  void EndGroup();

  // A framed legend with its top-left corner at (x, y): an optional heading, then one
  // line per entry. Ensures: returns the box it drew (so callers can place what follows).
  Box Legend(double x, double y, absl::string_view heading,
             const std::vector<LegendEntry>& entries);

  // Everything drawn so far, without the margin.
  const Box& bounds() const { return bounds_; }
  double font_size() const { return font_size_; }

  // The standalone document. Requires: groups balanced. Ensures: viewBox = bounds() grown
  // by the margin on every side and rounded out to whole units; width and height = the
  // viewBox's; a white background; one element a line.
  std::string Render() const;

 private:
  std::string MarkerFor(const std::string& colour);

  double font_size_;
  double margin_;
  Box bounds_;
  int open_groups_ = 0;
  std::string body_;
  std::map<std::string, std::string> markers_;  // colour -> marker id
};

}  // namespace warpcheck::cli::svg

#endif  // WARPCHECK_TOOLS_WARPCHECK_SVG_H_
