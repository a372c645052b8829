#include "tools/warpcheck/signal_render.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/warpcheck/svg.h"

namespace warpcheck::cli {
namespace {

constexpr char kNobody[] = "nobody";  // the pseudo-agent of a wait nobody can satisfy
constexpr double kFont = 11;
constexpr double kLineH = 14;

// How an edge to an agent in `state` is drawn, and how that agent's box is filled.
struct StateStyle {
  const char* state;
  const char* edge_colour;
  const char* dash;
  const char* node_fill;
  const char* edge_meaning;  // legend text for the edge
};

constexpr StateStyle kStyles[] = {
    {"blocked", "#c00", "", "#fdd", "waits for a blocked agent (a cycle)"},
    {"exited", "#666", "6 3", "#e4e4e4", "waits for an agent that exited"},
    {"not_started", "#d60", "2 3", "#fec", "waits for a CTA that cannot start"},
    {"not_launched", "#a50", "8 3 2 3", "#fec", "waits for a CTA never launched"},
    {"running", "#080", "", "#dfd", "waits for a running agent"},
    {kNobody, "#333", "1 3", "#fff", "waits on a word nobody can still write"},
};

const StateStyle& StyleOf(const std::string& state) {
  for (const StateStyle& s : kStyles) {
    if (state == s.state) return s;
  }
  return kStyles[0];
}

std::string Num(double v) {
  return v == std::floor(v) ? absl::StrCat(static_cast<int64_t>(v)) : absl::StrCat(v);
}

struct Node {
  std::string name;
  std::string state;
  double x = 0, y = 0, w = 0, h = 0;  // centre and size
};

struct Edge {
  int from = 0, to = 0;
  std::string state;
  std::string title;
  std::vector<std::string> label;
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<Edge> edges;

  int Id(const std::string& name) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name == name) return static_cast<int>(i);
    }
    nodes.push_back(Node{name, ""});
    return static_cast<int>(nodes.size() - 1);
  }
};

std::string Want(const std::string& word, double expected, double observed) {
  return absl::StrCat("waits on ", word, ": want ", Num(expected), ", saw ", Num(observed));
}

// The agent name of a blocked entry that has no edge (names are only on edges).
std::string BlockedName(const SignalBlocked& b) {
  const std::string rank = absl::StrCat("rank", Num(b.rank()));
  return b.cta() >= 0 ? absl::StrCat(rank, " ", b.kernel(), " cta", Num(b.cta()))
                      : absl::StrCat(rank, ".", b.stream());
}

Graph BuildGraph(const SignalExplanation& e) {
  Graph g;
  std::set<std::string> words_with_edges;
  for (const SignalEdge& ed : e.edges()) {
    Edge out;
    out.from = g.Id(ed.from());
    out.to = g.Id(ed.to());
    out.state = ed.to_state();
    out.label.push_back(Want(ed.word(), ed.expected(), ed.observed()));
    if (!ed.site().empty()) out.label.push_back(absl::StrCat("writer site: ", ed.site()));
    out.title = absl::StrCat("edge ", ed.from(), " -> ", ed.to(), " (", ed.to_state(), ")");
    g.edges.push_back(std::move(out));
    words_with_edges.insert(ed.word());
  }
  for (const SignalBlocked& b : e.blocked()) {
    if (!b.word().empty() && words_with_edges.count(b.word())) continue;
    const std::string name = BlockedName(b);
    Edge out;
    out.from = g.Id(name);
    out.to = g.Id(kNobody);
    out.state = kNobody;
    if (b.word().empty()) {
      out.label = {absl::StrCat("@ ", b.site(), ": ", b.op()), "never released"};
    } else {
      out.label = {Want(b.word(), b.expected(), b.observed()),
                   absl::StrCat("@ ", b.site(), "; no agent can still write it")};
    }
    out.title = absl::StrCat("edge ", name, " -> ", kNobody, " (", kNobody, ")");
    g.edges.push_back(std::move(out));
  }
  // Every agent that waits is blocked; the others are in the state their edges name.
  for (const Edge& ed : g.edges) g.nodes[ed.to].state = ed.state;
  for (const Edge& ed : g.edges) g.nodes[ed.from].state = "blocked";
  return g;
}

// Sizes every node to its label and places the nodes on a circle (the first on top)
// wide enough that neighbours keep a gap of about 120 units for edge labels.
void PlaceNodes(Graph* g) {
  double perimeter = 0;
  for (Node& n : g->nodes) {
    n.w = std::max(svg::TextWidth(n.name, kFont), svg::TextWidth(n.state, kFont - 1)) + 20;
    n.h = 2 * kLineH + 10;
    perimeter += std::max(n.w, n.h) + 160;
  }
  const int count = static_cast<int>(g->nodes.size());
  if (count <= 1) return;
  const double radius = std::max(110.0, perimeter / (2 * M_PI));
  for (int i = 0; i < count; ++i) {
    const double a = 2 * M_PI * i / count - M_PI / 2;
    g->nodes[i].x = radius * std::cos(a);
    g->nodes[i].y = radius * std::sin(a);
  }
}

// Where the ray from the centre of `n` in direction (dx, dy) leaves its box, plus `gap`.
std::pair<double, double> Exit(const Node& n, double dx, double dy, double gap) {
  const double len = std::max(1e-9, std::hypot(dx, dy));
  dx /= len;
  dy /= len;
  const double t = std::min(std::abs(dx) > 1e-9 ? n.w / 2 / std::abs(dx) : 1e9,
                            std::abs(dy) > 1e-9 ? n.h / 2 / std::abs(dy) : 1e9);
  return {n.x + dx * (t + gap), n.y + dy * (t + gap)};
}

// Draws the edge label centred `beyond` the point (ax, ay) in direction (sx, sy).
void DrawLabel(svg::Document* doc, const Edge& ed, double ax, double ay, double sx, double sy) {
  double w = 0;
  for (const std::string& l : ed.label) w = std::max(w, svg::TextWidth(l, kFont - 1));
  w += 8;
  const double h = kLineH * ed.label.size() + 4;
  const double len = std::max(1e-9, std::hypot(sx, sy));
  sx /= len;
  sy /= len;
  const double d = 0.5 * std::abs(w * sx) + 0.5 * std::abs(h * sy) + 5;
  const double cx = ax + sx * d, cy = ay + sy * d;
  const StateStyle& st = StyleOf(ed.state);
  doc->Rect(cx - w / 2, cy - h / 2, w, h, svg::Paint().Fill("#fff").Stroke(st.edge_colour, 0.5),
            3);
  double base = cy - h / 2 + 2 + kLineH * 0.8;
  for (const std::string& l : ed.label) {
    doc->Text(cx, base, l, svg::TextStyle().Size(kFont - 1).Centred().Colour(st.edge_colour));
    base += kLineH;
  }
}

// Draws every edge: a lone edge between two agents straight, with its label on the side
// away from the graph's centre; several edges between the same two agents as arcs, each
// bending to its own left (so the two directions of a cycle bend to opposite sides).
void DrawEdges(svg::Document* doc, const Graph& g) {
  std::map<std::pair<int, int>, int> per_pair, seen;
  for (const Edge& ed : g.edges) ++per_pair[std::minmax(ed.from, ed.to)];
  for (const Edge& ed : g.edges) {
    const auto key = std::minmax(ed.from, ed.to);
    const int k = seen[{ed.from, ed.to}]++;  // index among the edges a -> b
    const Node &a = g.nodes[ed.from], &b = g.nodes[ed.to];
    const StateStyle& st = StyleOf(ed.state);
    const svg::Paint paint = svg::Paint().Stroke(st.edge_colour, 1.5).Dash(st.dash);
    doc->BeginGroup(ed.title);
    if (ed.from == ed.to) {  // a self-loop above the box
      const double top = a.y - a.h / 2, lift = 50 + 30 * k;
      doc->Curve(a.x - a.w / 4, top, a.x, top - 2 * lift, a.x + a.w / 4, top - 2, paint, true);
      DrawLabel(doc, ed, a.x, top - lift, 0, -1);
      doc->EndGroup();
      continue;
    }
    const double dx = b.x - a.x, dy = b.y - a.y, len = std::max(1e-9, std::hypot(dx, dy));
    const double nx = -dy / len, ny = dx / len;  // left of a -> b
    const double mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
    if (per_pair[key] == 1) {
      auto [x1, y1] = Exit(a, dx, dy, 2);
      auto [x2, y2] = Exit(b, -dx, -dy, 2);
      doc->Line(x1, y1, x2, y2, paint, true);
      // Outward: away from the centre of the circle (the origin).
      const double side = (mx * nx + my * ny) >= 0 ? 1 : -1;
      DrawLabel(doc, ed, mx, my, side * nx, side * ny);
    } else {
      // The k-th edge a -> b bends 45 + 45k to its left, b -> a likewise to its own
      // left; the apex of a quadratic curve is half the control point's offset.
      const double bend = 45 + 45 * k;
      const double cx = mx + nx * 2 * bend, cy = my + ny * 2 * bend;
      auto [x1, y1] = Exit(a, cx - a.x, cy - a.y, 2);
      auto [x2, y2] = Exit(b, cx - b.x, cy - b.y, 2);
      doc->Curve(x1, y1, cx, cy, x2, y2, paint, true);
      DrawLabel(doc, ed, mx + nx * bend, my + ny * bend, nx, ny);
    }
    doc->EndGroup();
  }
}

void DrawNodes(svg::Document* doc, const Graph& g) {
  for (const Node& n : g.nodes) {
    const StateStyle& st = StyleOf(n.state);
    doc->BeginGroup(absl::StrCat("agent ", n.name, " (", n.state, ")"));
    doc->Rect(n.x - n.w / 2, n.y - n.h / 2, n.w, n.h,
              svg::Paint().Fill(st.node_fill).Stroke("#333").Dash(n.state == kNobody ? "3 2" : ""),
              8);
    doc->Text(n.x, n.y - 2, n.name, svg::TextStyle().Size(kFont).Centred().Bold());
    doc->Text(n.x, n.y + kLineH - 2, n.state == kNobody ? "no writer left" : n.state,
              svg::TextStyle().Size(kFont - 1).Centred().Colour("#444"));
    doc->EndGroup();
  }
}

void DrawLegend(svg::Document* doc, const Graph& g, double x, double y) {
  std::vector<svg::LegendEntry> entries;
  for (const StateStyle& st : kStyles) {
    bool used = false;
    for (const Edge& ed : g.edges) used |= ed.state == st.state;
    if (!used) continue;
    entries.push_back({svg::Paint().Stroke(st.edge_colour, 1.5).Dash(st.dash), /*line=*/true,
                       /*arrow=*/true, st.edge_meaning});
  }
  for (const StateStyle& st : kStyles) {
    bool used = false;
    for (const Node& n : g.nodes) used |= n.state == st.state;
    if (!used || st.state == std::string(kNobody)) continue;
    entries.push_back({svg::Paint().Fill(st.node_fill).Stroke("#333"), /*line=*/false,
                       /*arrow=*/false, absl::StrCat("agent ", st.state)});
  }
  doc->Legend(x, y, "A -> B: A is blocked until B writes the word", entries);
}

}  // namespace

bool HasWaitForGraph(const SignalReport& r) {
  const bool deadlocked = r.outcome() == "deadlock" || r.outcome() == "nondeterministic";
  return deadlocked && (r.replay().empty() || r.replay() == "reproduced");
}

std::string RenderWaitForSvg(const SignalExplanation& e) {
  Graph g = BuildGraph(e);
  PlaceNodes(&g);
  svg::Document doc(kFont);
  DrawEdges(&doc, g);
  DrawNodes(&doc, g);
  svg::Box graph = doc.bounds();
  if (graph.empty) graph.Add(0, 0, 0, 0);
  doc.Text(graph.x0, graph.y0 - 14, absl::StrCat("wait-for graph: ", e.cause()),
           svg::TextStyle().Size(14).Bold());
  DrawLegend(&doc, g, graph.x0, graph.y1 + 16);
  return doc.Render();
}

}  // namespace warpcheck::cli
