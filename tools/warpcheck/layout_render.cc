#include "tools/warpcheck/layout_render.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/warpcheck/svg.h"

namespace warpcheck::cli {
namespace {

bool IsShared(const sim::layout::LinearLayout& layout) { return layout.HasInDim("offset"); }

int32_t SizeOr1(const sim::layout::LinearLayout& l, const char* dim) {
  return l.HasInDim(dim) ? l.InDimSize(dim) : 1;
}

std::vector<int32_t> Shape(const sim::layout::LinearLayout& layout) {
  std::vector<int32_t> shape;
  for (const auto& [name, size] : layout.out_dims()) shape.push_back(size);
  return shape;
}

// Row-major flat index of an output point given in out-dim order (dim0 first).
int64_t RowMajorIndex(const sim::layout::LinearLayout::Point& out, const std::vector<int32_t>& shape) {
  int64_t idx = 0;
  for (size_t i = 0; i < out.size(); ++i) idx = idx * shape[i] + out[i].second;
  return idx;
}

}  // namespace

std::vector<std::vector<Holder>> ComputeHolders(const sim::layout::LinearLayout& layout) {
  std::vector<int32_t> shape = Shape(layout);
  int64_t elements = 1;
  for (int32_t s : shape) elements *= s;
  std::vector<std::vector<Holder>> holders(elements);
  const bool shared = IsShared(layout);
  const int32_t blocks = SizeOr1(layout, "block");
  const int32_t warps = shared ? 1 : SizeOr1(layout, "warp");
  const int32_t lanes = shared ? SizeOr1(layout, "offset") : SizeOr1(layout, "lane");
  const int32_t regs = shared ? 1 : SizeOr1(layout, "register");
  sim::layout::LinearLayout::Point in;
  for (const std::string& name : layout.InDimNames()) in.emplace_back(name, 0);
  auto set = [&](const char* dim, int32_t v) {
    for (auto& [name, value] : in) {
      if (name == dim) value = v;
    }
  };
  for (int32_t b = 0; b < blocks; ++b) {
    set("block", b);
    for (int32_t w = 0; w < warps; ++w) {
      if (!shared) set("warp", w);
      for (int32_t l = 0; l < lanes; ++l) {
        set(shared ? "offset" : "lane", l);
        for (int32_t r = 0; r < regs; ++r) {
          if (!shared) set("register", r);
          int64_t e = RowMajorIndex(layout.Apply(in), shape);
          holders[e].push_back(Holder{b, w, l, r});
        }
      }
    }
  }
  return holders;
}

std::string RenderTable(const sim::layout::LinearLayout& layout) {
  std::vector<int32_t> shape = Shape(layout);
  const bool shared = IsShared(layout);
  auto holders = ComputeHolders(layout);
  const int32_t cols = shape.empty() ? 1 : shape.back();
  const int32_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  const int64_t planes = holders.size() / (int64_t{rows} * cols);
  const int32_t blocks = SizeOr1(layout, "block");
  const int32_t warps = shared ? 1 : SizeOr1(layout, "warp");

  std::string out;
  // Sections: one per (block, warp); cells list that section's holders.
  std::map<std::string, std::string> seen;  // rendered body -> section name
  for (int32_t b = 0; b < blocks; ++b) {
    for (int32_t w = 0; w < warps; ++w) {
      std::string name = shared ? (blocks > 1 ? absl::StrCat("block ", b) : "offsets")
                                : (blocks > 1 ? absl::StrCat("block ", b, " warp ", w)
                                              : absl::StrCat("warp ", w));
      std::vector<std::string> cells(holders.size());
      size_t width = 1;
      for (size_t e = 0; e < holders.size(); ++e) {
        std::vector<std::string> parts;
        for (const Holder& h : holders[e]) {
          if (h.block != b || h.warp != w) continue;
          parts.push_back(shared ? absl::StrCat(h.lane) : absl::StrCat("T", h.lane, ":", h.reg));
        }
        cells[e] = parts.empty() ? "." : absl::StrJoin(parts, "|");
        width = std::max(width, cells[e].size());
      }
      std::string body;
      for (int64_t p = 0; p < planes; ++p) {
        if (planes > 1) {
          // Leading indices of this plane, dim0 first.
          std::vector<int64_t> lead;
          int64_t rest = p;
          for (int i = static_cast<int>(shape.size()) - 3; i >= 0; --i) {
            lead.insert(lead.begin(), rest % shape[i]);
            rest /= shape[i];
          }
          absl::StrAppend(&body, "[", absl::StrJoin(lead, ", "), ", :, :]\n");
        }
        for (int32_t r = 0; r < rows; ++r) {
          for (int32_t c = 0; c < cols; ++c) {
            const std::string& cell = cells[(p * rows + r) * cols + c];
            absl::StrAppend(&body, c ? " " : "", std::string(width - cell.size(), ' '), cell);
          }
          absl::StrAppend(&body, "\n");
        }
      }
      auto it = seen.find(body);
      if (it != seen.end()) {
        absl::StrAppend(&out, name, ": same elements and positions as ", it->second, "\n");
        continue;
      }
      seen.emplace(body, name);
      absl::StrAppend(&out, name, ":\n", body);
    }
  }
  return out;
}

svg::Box DrawLayoutGrid(svg::Document& doc, const sim::layout::LinearLayout& layout,
                        double x0, double y0, const std::string& title, int64_t max_rows,
                        int64_t max_cols) {
  std::vector<int32_t> shape = Shape(layout);
  const bool shared = IsShared(layout);
  auto holders = ComputeHolders(layout);
  const int32_t cols = shape.empty() ? 1 : shape.back();
  const int64_t rows = holders.size() / cols;
  const int64_t shown_rows = std::min(rows, max_rows);
  const int64_t shown_cols = std::min<int64_t>(cols, max_cols);
  const double cell_w = 44, cell_h = 22;
  const int32_t warps_per_block = SizeOr1(layout, "warp");
  const int32_t warps = shared ? 1 : warps_per_block * SizeOr1(layout, "block");
  svg::Box box;
  box.Add(svg::TextBox(x0, y0 + 12, title, svg::TextStyle().Size(12)));
  doc.Text(x0, y0 + 12, title, svg::TextStyle().Size(12));
  std::string key =
      shared ? "cell = offset, colour = 4-byte bank of a 16-bit element"
             : "cell = lane:register (first holder, + when several), colour = warp";
  if (shown_rows < rows || shown_cols < cols) {
    absl::StrAppend(&key, "; rows 0-", shown_rows - 1, ", columns 0-", shown_cols - 1,
                    " of ", rows, "x", cols, " shown");
  }
  box.Add(svg::TextBox(x0, y0 + 28, key, svg::TextStyle()));
  doc.Text(x0, y0 + 28, key);
  const double top = y0 + 40;
  auto Colour = [](double hue) { return absl::StrFormat("hsl(%.0f,70%%,80%%)", hue); };
  auto hue_of = [&](const Holder& h) {
    int colour_index = shared ? (h.lane / 2) % 32 : (h.block * warps_per_block + h.warp);
    int colours = shared ? 32 : std::max(1, warps);
    return 360.0 * colour_index / colours;
  };
  for (int64_t r = 0; r < shown_rows; ++r) {
    for (int64_t c = 0; c < shown_cols; ++c) {
      const int64_t e = r * cols + c;
      const double x = x0 + static_cast<double>(c) * cell_w;
      const double y = top + static_cast<double>(r) * cell_h;
      const Holder h = holders[e].empty() ? Holder{} : holders[e].front();
      std::string label =
          shared ? absl::StrCat(h.lane) : absl::StrCat(h.lane, ":", h.reg);
      if (holders[e].size() > 1) absl::StrAppend(&label, "+");
      doc.Rect(x, y, cell_w, cell_h,
               svg::Paint().Fill(Colour(hue_of(h))).Stroke("#555", 0.5));
      doc.Text(x + cell_w / 2, y + 15, label, svg::TextStyle().Centred());
    }
  }
  box.Add(x0, top, x0 + shown_cols * cell_w, top + shown_rows * cell_h);
  if (!shared && warps > 1) {
    // One swatch per warp (block), below the grid.
    std::vector<svg::LegendEntry> entries;
    for (int32_t w = 0; w < warps; ++w) {
      const Holder h{w / warps_per_block, w % warps_per_block, 0, 0};
      entries.push_back({svg::Paint().Fill(Colour(hue_of(h))).Stroke("#555", 0.5),
                         /*line=*/false,
                         /*arrow=*/false,
                         SizeOr1(layout, "block") > 1
                             ? absl::StrCat("block ", h.block, " warp ", h.warp)
                             : absl::StrCat("warp ", h.warp)});
    }
    box.Add(doc.Legend(x0, top + shown_rows * cell_h + 12, "", entries));
  }
  return box;
}

std::string RenderSvg(const sim::layout::LinearLayout& layout, const std::string& title) {
  svg::Document doc(10);
  DrawLayoutGrid(doc, layout, 0, 0, title, INT64_MAX, INT64_MAX);
  return doc.Render();
}

}  // namespace warpcheck::cli
