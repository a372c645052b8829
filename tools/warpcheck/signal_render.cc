#include "tools/warpcheck/signal_render.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/base/enum_name.h"
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
    {"blocked", "#c00", "", "#fdd", "waits for an agent that is itself blocked"},
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
  bool stream = false;  // a host stream (placed outside the circle, next to its CTA)
  int rank = -1;
  double x = 0, y = 0, w = 0, h = 0;  // centre and size

  std::string Caption() const { return state == kNobody ? "no writer left" : state; }
  svg::Box Bounds(double pad) const {
    svg::Box b;
    b.Add(x - w / 2 - pad, y - h / 2 - pad, x + w / 2 + pad, y + h / 2 + pad);
    return b;
  }
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
    Node n;
    n.name = name;
    if (name.rfind("rank", 0) == 0) n.rank = std::atoi(name.c_str() + 4);
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size() - 1);
  }
  int Find(const std::string& name) const {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
};

std::string Want(const std::string& word, double expected, double observed) {
  if (word.empty()) return "waits for it to finish";  // a stream at a kernel launch
  return absl::StrCat("waits on ", word, ": want ", Num(expected), ", saw ", Num(observed));
}

// The agent a blocked entry is (names are only on edges): a node already in `g` when one
// of the ways machine.cc names agents matches, else a description.
int BlockedNode(Graph* g, const SignalBlocked& b) {
  const std::string rank = absl::StrCat("rank", Num(b.rank()));
  std::vector<std::string> names;
  if (b.cta() < 0) {
    names = {absl::StrCat(rank, ".", b.stream())};
  } else {
    names = {absl::StrCat(rank, ".cta", Num(b.cta())),
             absl::StrCat(rank, ".", b.kernel(), ".cta", Num(b.cta())),
             absl::StrCat(rank, " ", b.kernel(), " cta", Num(b.cta()))};
  }
  for (const std::string& n : names) {
    if (int id = g->Find(n); id >= 0) return id;
  }
  return g->Id(names.back());
}

Graph BuildGraph(const SignalExplanation& e) {
  Graph g;
  std::set<int> waiting;  // nodes with an edge out
  for (const SignalEdge& ed : e.edges()) {
    Edge out;
    out.from = g.Id(ed.from());
    out.to = g.Id(ed.to());
    out.state = sim::base::EnumName(ed.to_state());
    out.label.push_back(Want(ed.word(), ed.expected(), ed.observed()));
    if (!ed.site().empty()) out.label.push_back(absl::StrCat("writer site: ", ed.site()));
    out.title = absl::StrCat("edge ", ed.from(), " -> ", ed.to(), " (", sim::base::EnumName(ed.to_state()), ")");
    g.edges.push_back(std::move(out));
    waiting.insert(g.edges.back().from);
  }
  for (const Edge& ed : g.edges) g.nodes[ed.to].state = ed.state;
  for (const SignalBlocked& b : e.blocked()) {
    const int from = BlockedNode(&g, b);
    g.nodes[from].stream = b.cta() < 0;
    // A CTA that never started waits for a slot (its waiter's edge says so), not a writer.
    const std::string& st = g.nodes[from].state;
    if (waiting.count(from) || st == "not_started" || st == "not_launched") continue;
    Edge out;
    out.from = from;
    out.to = g.Id(kNobody);
    out.state = kNobody;
    if (b.word().empty()) {
      out.label = {absl::StrCat("@ ", b.site(), ": ", b.op()), "never released"};
    } else {
      out.label = {Want(b.word(), b.expected(), b.observed()),
                   absl::StrCat("@ ", b.site(), "; no agent can still write it")};
    }
    out.title = absl::StrCat("edge ", g.nodes[from].name, " -> ", kNobody, " (", kNobody, ")");
    g.edges.push_back(std::move(out));
  }
  // Every agent that waits is blocked; the others are in the state their edges name.
  for (const Edge& ed : g.edges) g.nodes[ed.to].state = ed.state;
  for (const Edge& ed : g.edges) g.nodes[ed.from].state = "blocked";
  return g;
}

// Sizes every node to its label. CTAs (and "nobody") go on a circle, by rank, the first
// on top, wide enough for the edge labels between neighbours; a host stream that waits
// for one of them sits just outside the circle behind it.
void PlaceNodes(Graph* g) {
  double longest_label = 0;
  for (const Edge& ed : g->edges) {
    for (const std::string& l : ed.label) {
      longest_label = std::max(longest_label, svg::TextWidth(l, kFont - 1));
    }
  }
  std::vector<int> ring, outside;
  std::map<int, int> target;  // stream -> the ring node it waits for
  for (const Edge& ed : g->edges) {
    if (g->nodes[ed.from].stream && !g->nodes[ed.to].stream) target.emplace(ed.from, ed.to);
  }
  double perimeter = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    Node& n = g->nodes[i];
    n.w = std::max(svg::TextWidth(n.name, kFont), svg::TextWidth(n.Caption(), kFont - 1)) + 20;
    n.h = 2 * kLineH + 10;
    (target.count(i) ? outside : ring).push_back(static_cast<int>(i));
  }
  std::stable_sort(ring.begin(), ring.end(), [&](int a, int b) {
    const int ra = g->nodes[a].rank < 0 ? 1 << 30 : g->nodes[a].rank;
    const int rb = g->nodes[b].rank < 0 ? 1 << 30 : g->nodes[b].rank;
    return ra < rb;
  });
  for (int i : ring) perimeter += std::max(g->nodes[i].w, g->nodes[i].h) + longest_label + 40;
  const int count = static_cast<int>(ring.size());
  const double radius = count <= 1 ? 0 : std::max(110.0, perimeter / (2 * M_PI));
  std::map<int, double> angle;
  for (int k = 0; k < count; ++k) {
    const double a = 2 * M_PI * k / std::max(count, 1) - M_PI / 2;
    angle[ring[k]] = a;
    g->nodes[ring[k]].x = radius * std::cos(a);
    g->nodes[ring[k]].y = radius * std::sin(a);
  }
  std::map<int, const Node*> behind;  // ring node -> the last node placed behind it
  for (int i : outside) {
    const int t = target[i];
    const Node& prev = behind.count(t) ? *behind[t] : g->nodes[t];
    Node& n = g->nodes[i];
    // Far enough along the ray that the boxes are 40 apart across or 50 along it.
    const double ux = std::cos(angle[t]), uy = std::sin(angle[t]);
    const double across = std::abs(ux) > 1e-6 ? ((prev.w + n.w) / 2 + 40) / std::abs(ux) : 1e9;
    const double along = std::abs(uy) > 1e-6 ? ((prev.h + n.h) / 2 + 50) / std::abs(uy) : 1e9;
    const double d = std::min(across, along);
    n.x = prev.x + ux * d;
    n.y = prev.y + uy * d;
    behind[t] = &n;
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

bool Overlaps(const svg::Box& a, const svg::Box& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// An edge drawn as a quadratic curve (straight when the control point is the midpoint).
struct Geometry {
  double x1, y1, cx, cy, x2, y2;
  double sx, sy;       // the side its label goes
  bool both_sides;     // the label may also go on the other side

  std::pair<double, double> At(double t) const {
    const double u = 1 - t;
    return {u * u * x1 + 2 * t * u * cx + t * t * x2, u * u * y1 + 2 * t * u * cy + t * t * y2};
  }
};

// Draws the edge label next to the curve: the first of a few spots along it (middle
// first) whose box overlaps no node and no label placed before; the middle otherwise.
void DrawLabel(svg::Document* doc, const Edge& ed, const Geometry& geo,
               std::vector<svg::Box>* taken) {
  double w = 0;
  for (const std::string& l : ed.label) w = std::max(w, svg::TextWidth(l, kFont - 1));
  w += 8;
  const double h = kLineH * ed.label.size() + 4;
  auto spot = [&](double t, double side, double extra) {
    const double sx = geo.sx * side, sy = geo.sy * side;
    const double d = 0.5 * std::abs(w * sx) + 0.5 * std::abs(h * sy) + 5 + extra;
    auto [px, py] = geo.At(t);
    svg::Box b;
    b.Add(px + sx * d - w / 2, py + sy * d - h / 2, px + sx * d + w / 2, py + sy * d + h / 2);
    return b;
  };
  svg::Box best = spot(0.5, 1, 0);
  bool found = false;
  for (double extra : {0, 18, 36}) {
    for (double side : {1.0, -1.0}) {
      if (side < 0 && !geo.both_sides) break;
      for (double t : {0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8}) {
        svg::Box b = spot(t, side, extra);
        if (std::none_of(taken->begin(), taken->end(),
                         [&](const svg::Box& o) { return Overlaps(b, o); })) {
          best = b;
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (found) break;
  }
  taken->push_back(best);
  const StateStyle& st = StyleOf(ed.state);
  doc->Rect(best.x0, best.y0, w, h, svg::Paint().Fill("#fff").Stroke(st.edge_colour, 0.5), 3);
  double base = best.y0 + 2 + kLineH * 0.8;
  for (const std::string& l : ed.label) {
    doc->Text(best.x0 + w / 2, base, l,
              svg::TextStyle().Size(kFont - 1).Centred().Colour(st.edge_colour));
    base += kLineH;
  }
}

// The curve of one edge: a lone edge between two agents straight, with its label on the
// side away from the graph's centre; several edges between the same two agents as arcs,
// each bending to its own left (so the two directions of a cycle bend to opposite sides).
Geometry Shape(const Node& a, const Node& b, bool self, bool alone, int k,
               const std::vector<Node>& nodes) {
  if (self) {  // a loop above the box
    const double top = a.y - a.h / 2, lift = 50 + 30 * k;
    return {a.x - a.w / 4, top, a.x, top - 2 * lift, a.x + a.w / 4, top - 2, 0, -1, false};
  }
  const double dx = b.x - a.x, dy = b.y - a.y, len = std::max(1e-9, std::hypot(dx, dy));
  const double nx = -dy / len, ny = dx / len;  // left of a -> b
  const double mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
  if (alone) {
    // Straight, unless that runs through another agent's box: then the least bend (to
    // either side) that clears every box.
    const double side = (mx * nx + my * ny) >= 0 ? 1 : -1;  // away from the origin
    for (double bend : {0.0, 50.0, -50.0, 100.0, -100.0, 150.0, -150.0}) {
      const double cx = mx + nx * 2 * bend, cy = my + ny * 2 * bend;
      auto [x1, y1] = bend == 0 ? Exit(a, dx, dy, 2) : Exit(a, cx - a.x, cy - a.y, 2);
      auto [x2, y2] = bend == 0 ? Exit(b, -dx, -dy, 2) : Exit(b, cx - b.x, cy - b.y, 2);
      Geometry geo{x1, y1, cx, cy, x2, y2, side * nx, side * ny, true};
      if (bend != 0) {
        geo.sx = bend > 0 ? nx : -nx;
        geo.sy = bend > 0 ? ny : -ny;
        geo.both_sides = false;
      }
      bool clear = true;
      for (const Node& n : nodes) {
        if (&n == &a || &n == &b) continue;
        for (double t = 0.05; t < 1 && clear; t += 0.05) {
          auto [px, py] = geo.At(t);
          const svg::Box box = n.Bounds(6);
          clear = !(box.x0 < px && px < box.x1 && box.y0 < py && py < box.y1);
        }
      }
      if (clear || bend == -150.0) return geo;
    }
  }
  // The k-th edge a -> b bends 45 + 45k to its left (the apex of a quadratic curve is
  // half its control point's offset).
  const double bend = 45 + 45 * k;
  const double cx = mx + nx * 2 * bend, cy = my + ny * 2 * bend;
  auto [x1, y1] = Exit(a, cx - a.x, cy - a.y, 2);
  auto [x2, y2] = Exit(b, cx - b.x, cy - b.y, 2);
  return {x1, y1, cx, cy, x2, y2, nx, ny, false};
}

void DrawEdges(svg::Document* doc, const Graph& g) {
  std::map<std::pair<int, int>, int> per_pair, seen;
  for (const Edge& ed : g.edges) ++per_pair[std::minmax(ed.from, ed.to)];
  std::vector<svg::Box> taken;
  for (const Node& n : g.nodes) taken.push_back(n.Bounds(4));
  for (const Edge& ed : g.edges) {
    const int k = seen[{ed.from, ed.to}]++;  // index among the edges a -> b
    const Geometry geo = Shape(g.nodes[ed.from], g.nodes[ed.to], ed.from == ed.to,
                               per_pair[std::minmax(ed.from, ed.to)] == 1, k, g.nodes);
    const StateStyle& st = StyleOf(ed.state);
    doc->BeginGroup(ed.title);
    doc->Curve(geo.x1, geo.y1, geo.cx, geo.cy, geo.x2, geo.y2,
               svg::Paint().Stroke(st.edge_colour, 1.5).Dash(st.dash), /*arrow=*/true);
    DrawLabel(doc, ed, geo, &taken);
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
    doc->Text(n.x, n.y + kLineH - 2, n.Caption(),
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
  doc->Legend(x, y, "A -> B: A is blocked until B writes the word (or finishes)", entries);
}

}  // namespace

bool HasWaitForGraph(const SignalReport& r) {
  const bool deadlocked =
      r.outcome() == SignalReport::deadlock || r.outcome() == SignalReport::nondeterministic;
  return deadlocked && (r.replay() == SignalReport::REPLAY_UNSET ||
                        r.replay() == SignalReport::reproduced);
}

std::string RenderWaitForSvg(const SignalExplanation& e) {
  Graph g = BuildGraph(e);
  PlaceNodes(&g);
  svg::Document doc(kFont);
  DrawEdges(&doc, g);
  DrawNodes(&doc, g);
  svg::Box graph = doc.bounds();
  if (graph.empty) graph.Add(0, 0, 0, 0);
  doc.Text(graph.x0, graph.y0 - 14, absl::StrCat("wait-for graph: ", sim::base::EnumName(e.cause())),
           svg::TextStyle().Size(14).Bold());
  DrawLegend(&doc, g, graph.x0, graph.y1 + 16);
  return doc.Render();
}

}  // namespace warpcheck::cli
