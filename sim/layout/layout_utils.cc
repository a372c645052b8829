#include "sim/layout/layout_utils.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "sim/base/bits.h"
#include "sim/base/check.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::sim::layout {
namespace {


// The standard index of an out-dim named dim{i}.
int StandardIndex(absl::string_view name, size_t rank) {
  int index = -1;
  absl::string_view digits = name;
  const bool ok = absl::ConsumePrefix(&digits, "dim") && !digits.empty() &&
                  absl::SimpleAtoi(digits, &index) && index >= 0 &&
                  static_cast<size_t>(index) < rank;
  WARPCHECK_CHECK(ok) << "out-dim '" << name << "' is not one of dim0..dim" << rank - 1;
  return index;
}

}  // namespace

std::string StandardOutDimName(int i) { return absl::StrCat("dim", i); }

std::vector<std::string> StandardOutDimNames(int rank) {
  std::vector<std::string> names;
  names.reserve(rank);
  for (int i = 0; i < rank; ++i) names.push_back(StandardOutDimName(i));
  return names;
}

LinearLayout IdentityStandardND(absl::string_view in_dim, absl::Span<const int64_t> shape,
                                absl::Span<const int32_t> order) {
  WARPCHECK_CHECK(shape.size() == order.size())
      << "IdentityStandardND: shape rank " << shape.size() << " != order rank "
      << order.size();
  std::vector<bool> seen(shape.size(), false);
  LinearLayout ret = LinearLayout::Empty();
  for (int32_t dim : order) {
    WARPCHECK_CHECK(dim >= 0 && static_cast<size_t>(dim) < shape.size() && !seen[dim])
        << "IdentityStandardND: order is not a permutation";
    seen[dim] = true;
    WARPCHECK_CHECK(base::IsPowerOf2(shape[dim]) && shape[dim] <= (int64_t{1} << 30))
        << "IdentityStandardND: shape[" << dim << "] = " << shape[dim];
    // Most minor dim first: order[0] gets the low input bits.
    ret *= LinearLayout::Identity1D(static_cast<int32_t>(shape[dim]), in_dim,
                                    StandardOutDimName(dim));
  }
  return ret;
}

LinearLayout EnsureLayoutNotSmallerThan(const LinearLayout& layout,
                                        absl::Span<const int64_t> shape) {
  WARPCHECK_CHECK(shape.size() == static_cast<size_t>(layout.num_out_dims()))
      << "EnsureLayoutNotSmallerThan: shape rank " << shape.size() << " for "
      << layout.ToString();
  if (shape.empty()) return layout;
  WARPCHECK_CHECK(layout.num_in_dims() > 0) << "layout has no in-dims";
  const std::string k_dim = layout.bases().front().first;
  WARPCHECK_CHECK(k_dim == "register" || k_dim == "offset")
      << "EnsureLayoutNotSmallerThan: first in-dim must be register or offset: "
      << layout.ToString();
  LinearLayout ret = layout;
  for (const auto& [out_dim, actual] : layout.out_dims()) {
    const int64_t desired = shape[StandardIndex(out_dim, shape.size())];
    WARPCHECK_CHECK(base::IsPowerOf2(desired)) << "shape entry " << desired;
    WARPCHECK_CHECK(actual > desired || desired % actual == 0)
        << "EnsureLayoutNotSmallerThan: " << out_dim << " size " << actual << " vs "
        << desired;
    // desired / actual is 0 (Identity1D gives Empty) when the layout is already larger.
    ret *=
        LinearLayout::Identity1D(static_cast<int32_t>(desired / actual), k_dim, out_dim);
  }
  return ret;
}

LinearLayout EnsureLayoutNotLargerThan(const LinearLayout& layout,
                                       absl::Span<const int64_t> shape,
                                       bool broadcast_registers) {
  WARPCHECK_CHECK(shape.size() == static_cast<size_t>(layout.num_out_dims()))
      << "EnsureLayoutNotLargerThan: shape rank " << shape.size() << " for "
      << layout.ToString();
  if (shape.empty()) return layout;
  LinearLayout::BasesT bases = layout.bases();
  std::vector<int> dropped_registers;  // basis indices of "register" to remove

  struct Entry {
    int dim;    // index into bases
    int index;  // basis index within the dim
    int32_t value;
  };
  const auto& out_dims = layout.out_dims();
  for (size_t o = 0; o < out_dims.size(); ++o) {
    int64_t actual = out_dims[o].second;
    const int64_t desired = shape[StandardIndex(out_dims[o].first, shape.size())];
    if (actual <= desired) continue;
    WARPCHECK_CHECK(desired > 0 && actual % desired == 0)
        << "EnsureLayoutNotLargerThan: " << out_dims[o].first << " size " << actual
        << " vs " << desired;
    std::vector<Entry> entries;
    for (size_t d = 0; d < bases.size(); ++d) {
      for (size_t i = 0; i < bases[d].second.size(); ++i) {
        const int32_t v = bases[d].second[i][o];
        if (v == 0) continue;
        WARPCHECK_CHECK(base::IsPowerOf2(v))
            << "EnsureLayoutNotLargerThan: basis entry " << v
            << " is not a power of two in " << layout.ToString();
        entries.push_back({static_cast<int>(d), static_cast<int>(i), v});
      }
    }
    // Largest first. Triton's llvm::sort is not stable; ties do not occur for the
    // layouts of the encodings (distinct bases of one dim are distinct powers of two),
    // and for small inputs its insertion sort keeps the original order, as this does.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.value > b.value; });
    for (const Entry& e : entries) {
      if (actual <= desired) break;
      if (!broadcast_registers && bases[e.dim].first == "register") {
        dropped_registers.push_back(e.index);
      } else {
        bases[e.dim].second[e.index][o] = 0;
      }
      actual >>= 1;
    }
  }
  if (!broadcast_registers) {
    // Like Triton (which indexes its basis map with "register"), this adds an empty
    // register in-dim at the end if the layout had none.
    auto it = std::find_if(bases.begin(), bases.end(),
                           [](const auto& d) { return d.first == "register"; });
    if (it == bases.end()) {
      bases.emplace_back("register", std::vector<LinearLayout::Basis>{});
    } else {
      std::vector<LinearLayout::Basis> kept;
      for (size_t i = 0; i < it->second.size(); ++i) {
        if (std::find(dropped_registers.begin(), dropped_registers.end(),
                      static_cast<int>(i)) == dropped_registers.end()) {
          kept.push_back(std::move(it->second[i]));
        }
      }
      it->second = std::move(kept);
    }
  }
  return LinearLayout(std::move(bases), layout.OutDimNames());
}

LinearLayout CombineCtaCgaWithShape(const LinearLayout& cta_layout,
                                    const LinearLayout& cga_layout,
                                    absl::Span<const int64_t> shape) {
  const int rank = static_cast<int>(shape.size());
  WARPCHECK_CHECK(cta_layout.num_out_dims() == rank)
      << "CombineCtaCgaWithShape: rank " << rank << " for " << cta_layout.ToString();
  const std::vector<std::string> standard = StandardOutDimNames(rank);

  // One CTA: an Empty() CGA layout stands for block -> all dims of size 1.
  LinearLayout cga = cga_layout;
  if (cga.num_in_dims() == 0 && cga.num_out_dims() == 0) {
    LinearLayout::OutDimsT ones;
    for (const std::string& name : standard) ones.emplace_back(name, 1);
    cga = LinearLayout({{"block", {}}}, std::move(ones), /*require_surjective=*/true);
  }
  WARPCHECK_CHECK(cga.num_out_dims() == rank)
      << "CombineCtaCgaWithShape: CGA layout " << cga.ToString() << " for rank " << rank;

  const LinearLayout g =
      EnsureLayoutNotLargerThan(cga, shape).TransposeOuts(cta_layout.OutDimNames());
  std::vector<int64_t> cta_shape(rank);
  for (const auto& [name, size] : g.out_dims()) {
    const int i = StandardIndex(name, shape.size());
    cta_shape[i] = std::max<int64_t>(1, shape[i] / size);
  }
  LinearLayout cta = EnsureLayoutNotLargerThan(
      EnsureLayoutNotSmallerThan(cta_layout, cta_shape), cta_shape);
  LinearLayout ret = (cta * g).TransposeOuts(standard);
  for (int i = 0; i < rank; ++i) {
    WARPCHECK_CHECK(ret.OutDimSize(standard[i]) == shape[i])
        << "CombineCtaCgaWithShape: result " << ret.ToString() << " does not match shape";
  }
  return ret;
}

LinearLayout ReshapeLayout(const LinearLayout& layout, absl::Span<const int64_t> shape) {
  const int rank = static_cast<int>(shape.size());
  std::vector<std::string> reversed_src = layout.OutDimNames();
  std::reverse(reversed_src.begin(), reversed_src.end());
  LinearLayout::OutDimsT reversed_new;
  for (int i = rank - 1; i >= 0; --i) {
    WARPCHECK_CHECK(base::IsPowerOf2(shape[i]) && shape[i] <= (int64_t{1} << 30))
        << "ReshapeLayout: shape[" << i << "] = " << shape[i];
    reversed_new.emplace_back(StandardOutDimName(i), static_cast<int32_t>(shape[i]));
  }
  return layout.TransposeOuts(reversed_src)
      .ReshapeOuts(reversed_new)
      .TransposeOuts(StandardOutDimNames(rank));
}

LinearLayout TransposeLinearLayout(const LinearLayout& layout,
                                   absl::Span<const int32_t> order) {
  WARPCHECK_CHECK(order.size() == static_cast<size_t>(layout.num_out_dims()))
      << "TransposeLinearLayout: order has " << order.size() << " entries for "
      << layout.ToString();
  LinearLayout::BasesT bases = layout.bases();
  for (auto& [name, dim_bases] : bases) {
    for (LinearLayout::Basis& basis : dim_bases) {
      LinearLayout::Basis permuted;
      permuted.reserve(order.size());
      for (int32_t i : order) {
        WARPCHECK_CHECK(i >= 0 && static_cast<size_t>(i) < basis.size())
            << "TransposeLinearLayout: bad order entry " << i;
        permuted.push_back(basis[i]);
      }
      basis = std::move(permuted);
    }
  }
  // Out sizes are re-inferred from the permuted entries, as in Triton.
  return LinearLayout(std::move(bases), layout.OutDimNames());
}

std::vector<int32_t> GetMatrixOrder(int rank, bool row_major) {
  std::vector<int32_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
  if (!row_major) {
    WARPCHECK_CHECK(rank >= 2) << "GetMatrixOrder: column-major needs rank >= 2";
    std::swap(order[0], order[1]);
  }
  return order;
}

std::vector<int32_t> GetOrderForDotOperand(int op_idx, int rank, bool k_contig) {
  return GetMatrixOrder(rank, /*row_major=*/(op_idx == 1) != k_contig);
}

}  // namespace warpcheck::sim::layout
