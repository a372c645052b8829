#include "tools/warpcheck/svg.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/check.h"

namespace warpcheck::cli::svg {
namespace {

// A number with at most two decimals and no trailing zeros ("12", "3.5", "-0.25").
std::string Num(double v) {
  if (std::abs(v) < 0.005) return "0";
  std::string s = absl::StrFormat("%.2f", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string PaintAttrs(const Paint& p) {
  std::string out = absl::StrCat(" fill=\"", Escape(p.fill), "\"");
  if (!p.stroke.empty()) {
    absl::StrAppend(&out, " stroke=\"", Escape(p.stroke), "\" stroke-width=\"",
                    Num(p.stroke_width), "\"");
  }
  if (!p.dash.empty()) absl::StrAppend(&out, " stroke-dasharray=\"", Escape(p.dash), "\"");
  return out;
}

// Half the stroke width: how far a stroke reaches outside the geometry.
double Reach(const Paint& p) { return p.stroke.empty() ? 0 : p.stroke_width / 2; }

// The arrowhead: kArrowLength long along the line, kArrowWidth across, tip on the end.
constexpr double kArrowLength = 9;
constexpr double kArrowWidth = 7;

}  // namespace

void Box::Add(double ax0, double ay0, double ax1, double ay1) {
  if (empty) {
    x0 = std::min(ax0, ax1);
    y0 = std::min(ay0, ay1);
    x1 = std::max(ax0, ax1);
    y1 = std::max(ay0, ay1);
    empty = false;
    return;
  }
  x0 = std::min({x0, ax0, ax1});
  y0 = std::min({y0, ay0, ay1});
  x1 = std::max({x1, ax0, ax1});
  y1 = std::max({y1, ay0, ay1});
}

void Box::Add(const Box& b) {
  if (!b.empty) Add(b.x0, b.y0, b.x1, b.y1);
}

std::string Escape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

double TextWidth(absl::string_view text, double size) {
  int64_t code_points = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++code_points;  // not a continuation
  }
  return static_cast<double>(code_points) * kCharWidth * size;
}

Box TextBox(double x, double y, absl::string_view text, const TextStyle& style) {
  const double w = TextWidth(text, style.size);
  const double left = style.anchor == Anchor::kStart    ? x
                      : style.anchor == Anchor::kMiddle ? x - w / 2
                                                        : x - w;
  Box b;
  b.Add(left, y - 0.8 * style.size, left + w, y + 0.25 * style.size);
  return b;
}

Document::Document(double font_size, double margin) : font_size_(font_size), margin_(margin) {}

void Document::Text(double x, double y, absl::string_view text, const TextStyle& style) {
  WARPCHECK_CHECK(text.find('\n') == absl::string_view::npos) << "svg text with a newline";
  bounds_.Add(TextBox(x, y, text, style));
  absl::StrAppend(&body_, "<text x=\"", Num(x), "\" y=\"", Num(y), "\"");
  if (style.size != font_size_) absl::StrAppend(&body_, " font-size=\"", Num(style.size), "\"");
  if (style.anchor == Anchor::kMiddle) absl::StrAppend(&body_, " text-anchor=\"middle\"");
  if (style.anchor == Anchor::kEnd) absl::StrAppend(&body_, " text-anchor=\"end\"");
  if (!style.fill.empty()) absl::StrAppend(&body_, " fill=\"", Escape(style.fill), "\"");
  if (style.bold) absl::StrAppend(&body_, " font-weight=\"bold\"");
  absl::StrAppend(&body_, ">", Escape(text), "</text>\n");
}

void Document::Rect(double x, double y, double w, double h, const Paint& paint, double radius) {
  const double r = Reach(paint);
  bounds_.Add(x - r, y - r, x + w + r, y + h + r);
  absl::StrAppend(&body_, "<rect x=\"", Num(x), "\" y=\"", Num(y), "\" width=\"", Num(w),
                  "\" height=\"", Num(h), "\"");
  if (radius > 0) absl::StrAppend(&body_, " rx=\"", Num(radius), "\"");
  absl::StrAppend(&body_, PaintAttrs(paint), "/>\n");
}

void Document::Circle(double cx, double cy, double radius, const Paint& paint) {
  const double r = radius + Reach(paint);
  bounds_.Add(cx - r, cy - r, cx + r, cy + r);
  absl::StrAppend(&body_, "<circle cx=\"", Num(cx), "\" cy=\"", Num(cy), "\" r=\"", Num(radius),
                  "\"", PaintAttrs(paint), "/>\n");
}

std::string Document::MarkerFor(const std::string& colour) {
  auto it = markers_.find(colour);
  if (it != markers_.end()) return it->second;
  std::string id = absl::StrCat("arrow", markers_.size());
  markers_.emplace(colour, id);
  return id;
}

void Document::Line(double x1, double y1, double x2, double y2, const Paint& paint, bool arrow) {
  const double r = Reach(paint) + (arrow ? kArrowWidth / 2 : 0);
  bounds_.Add(std::min(x1, x2) - r, std::min(y1, y2) - r, std::max(x1, x2) + r,
              std::max(y1, y2) + r);
  absl::StrAppend(&body_, "<line x1=\"", Num(x1), "\" y1=\"", Num(y1), "\" x2=\"", Num(x2),
                  "\" y2=\"", Num(y2), "\"", PaintAttrs(paint));
  if (arrow) absl::StrAppend(&body_, " marker-end=\"url(#", MarkerFor(paint.stroke), ")\"");
  absl::StrAppend(&body_, "/>\n");
}

void Document::Curve(double x1, double y1, double cx, double cy, double x2, double y2,
                     const Paint& paint, bool arrow) {
  const double r = Reach(paint) + (arrow ? kArrowWidth / 2 : 0);
  bounds_.Add(std::min({x1, cx, x2}) - r, std::min({y1, cy, y2}) - r, std::max({x1, cx, x2}) + r,
              std::max({y1, cy, y2}) + r);
  absl::StrAppend(&body_, "<path d=\"M ", Num(x1), " ", Num(y1), " Q ", Num(cx), " ", Num(cy),
                  " ", Num(x2), " ", Num(y2), "\"", PaintAttrs(paint));
  if (arrow) absl::StrAppend(&body_, " marker-end=\"url(#", MarkerFor(paint.stroke), ")\"");
  absl::StrAppend(&body_, "/>\n");
}

void Document::BeginGroup(absl::string_view title) {
  ++open_groups_;
  absl::StrAppend(&body_, "<g>");
  if (!title.empty()) absl::StrAppend(&body_, "<title>", Escape(title), "</title>");
  absl::StrAppend(&body_, "\n");
}

void Document::EndGroup() {
  WARPCHECK_CHECK(open_groups_ > 0) << "svg EndGroup without BeginGroup";
  --open_groups_;
  absl::StrAppend(&body_, "</g>\n");
}

Box Document::Legend(double x, double y, absl::string_view heading,
                     const std::vector<LegendEntry>& entries) {
  const double pad = 6, line_h = font_size_ * 1.6, swatch = 24;
  double text_w = heading.empty() ? 0 : TextWidth(heading, font_size_);
  for (const LegendEntry& e : entries) {
    text_w = std::max(text_w, swatch + pad + TextWidth(e.label, font_size_));
  }
  const int lines = static_cast<int>(entries.size()) + (heading.empty() ? 0 : 1);
  const double w = text_w + 2 * pad, h = lines * line_h + pad;
  BeginGroup("legend");
  Rect(x, y, w, h, Paint().Fill("#fff").Stroke("#999", 0.8), 3);
  double base = y + pad / 2 + line_h * 0.75;
  if (!heading.empty()) {
    Text(x + pad, base, heading, TextStyle().Size(font_size_).Bold());
    base += line_h;
  }
  for (const LegendEntry& e : entries) {
    const double mid = base - font_size_ * 0.3;
    if (e.line) {
      Line(x + pad, mid, x + pad + swatch, mid, e.paint, e.arrow);
    } else {
      Rect(x + pad + swatch / 2 - 6, mid - 6, 12, 12, e.paint, 2);
    }
    Text(x + pad + swatch + pad, base, e.label, TextStyle().Size(font_size_));
    base += line_h;
  }
  EndGroup();
  Box b;
  b.Add(x, y, x + w, y + h);
  return b;
}

std::string Document::Render() const {
  WARPCHECK_CHECK(open_groups_ == 0) << "svg Render with " << open_groups_ << " open group(s)";
  Box b = bounds_;
  if (b.empty) b.Add(0, 0, 0, 0);
  const double x0 = std::floor(b.x0 - margin_), y0 = std::floor(b.y0 - margin_);
  const double w = std::ceil(b.x1 + margin_) - x0, h = std::ceil(b.y1 + margin_) - y0;
  std::string out = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", Num(w), "\" height=\"", Num(h),
      "\" viewBox=\"", Num(x0), " ", Num(y0), " ", Num(w), " ", Num(h),
      "\" font-family=\"monospace\" font-size=\"", Num(font_size_), "\">\n");
  absl::StrAppend(&out, "<rect x=\"", Num(x0), "\" y=\"", Num(y0), "\" width=\"", Num(w),
                  "\" height=\"", Num(h), "\" fill=\"#fff\"/>\n");
  if (!markers_.empty()) {
    absl::StrAppend(&out, "<defs>\n");
    for (const auto& [colour, id] : markers_) {
      absl::StrAppend(&out, "<marker id=\"", id, "\" markerWidth=\"", Num(kArrowLength),
                      "\" markerHeight=\"", Num(kArrowWidth), "\" refX=\"", Num(kArrowLength),
                      "\" refY=\"", Num(kArrowWidth / 2),
                      "\" orient=\"auto\" markerUnits=\"userSpaceOnUse\"><path d=\"M 0 0 L ",
                      Num(kArrowLength), " ", Num(kArrowWidth / 2), " L 0 ", Num(kArrowWidth),
                      " z\" fill=\"", Escape(colour.empty() ? "#000" : colour),
                      "\"/></marker>\n");
    }
    absl::StrAppend(&out, "</defs>\n");
  }
  absl::StrAppend(&out, body_, "</svg>\n");
  return out;
}

}  // namespace warpcheck::cli::svg
