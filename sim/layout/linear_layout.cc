#include "sim/layout/linear_layout.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "sim/base/bits.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"
#include "sim/layout/f2_matrix.h"

namespace warpcheck::sim::layout {
namespace {

// Largest log2 size of one dim: sizes are int32_t, so 2^30 is the largest power of two.
constexpr int kMaxDimSizeLog2 = 30;
// Input and output bits of one layout: sizes stay representable in int64_t.
constexpr int kMaxTotalBits = 62;
// The matrix view keeps one row per output bit with the input bits packed in a uint64_t.
constexpr int kMaxMatrixColumns = 64;

template <typename Pairs>
int IndexOf(const Pairs& pairs, absl::string_view name) {
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first == name) return static_cast<int>(i);
  }
  return -1;
}

int IndexOfName(const std::vector<std::string>& names, absl::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

bool Contains(const std::vector<std::string>& names, absl::string_view name) {
  return IndexOfName(names, name) >= 0;
}

// True iff `names` is a permutation of `dims` (the names of a dim list).
template <typename Pairs>
bool IsPermutationOf(const std::vector<std::string>& names, const Pairs& dims) {
  if (names.size() != dims.size()) return false;
  std::vector<bool> seen(dims.size(), false);
  for (const std::string& n : names) {
    int i = IndexOf(dims, n);
    if (i < 0 || seen[i]) return false;
    seen[i] = true;
  }
  return true;
}

template <typename Pairs>
bool IsSubsetOf(const std::vector<std::string>& names, const Pairs& dims) {
  for (const std::string& n : names) {
    if (IndexOf(dims, n) < 0) return false;
  }
  return true;
}

std::string JoinNames(const std::vector<std::string>& names) {
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

// Matrix view (§1.3): one row per output bit, grouped by out-dim in out-dim order, low
// bit first; one column per input bit, grouped by in-dim in in-dim order, low bit first.
f2::Matrix MatrixOf(const LinearLayout::BasesT& bases,
                    const LinearLayout::OutDimsT& out_dims) {
  std::vector<int> row_offset(out_dims.size() + 1, 0);
  for (size_t o = 0; o < out_dims.size(); ++o) {
    row_offset[o + 1] = row_offset[o] + base::Log2(out_dims[o].second);
  }
  f2::Matrix rows(row_offset.back(), 0);
  int col = 0;
  for (const auto& [name, dim_bases] : bases) {
    for (const LinearLayout::Basis& basis : dim_bases) {
      const uint64_t col_bit = uint64_t{1} << col;
      for (size_t o = 0; o < out_dims.size(); ++o) {
        uint32_t v = static_cast<uint32_t>(basis[o]);
        while (v != 0) {
          int j = __builtin_ctz(v);
          v &= v - 1;
          rows[row_offset[o] + j] |= col_bit;
        }
      }
      ++col;
    }
  }
  return rows;
}

int TotalInBits(const LinearLayout::BasesT& bases) {
  int total = 0;
  for (const auto& [name, dim_bases] : bases) total += static_cast<int>(dim_bases.size());
  return total;
}

int TotalOutBits(const LinearLayout::OutDimsT& out_dims) {
  int total = 0;
  for (const auto& [name, size] : out_dims) total += base::Log2(size);
  return total;
}

bool IsPlainName(absl::string_view name) {
  if (name.empty()) return false;
  auto is_alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!is_alpha(name[0])) return false;
  for (char c : name) {
    if (!is_alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Dim names are printed bare when they are identifiers and as quoted strings otherwise,
// so that every layout round-trips through ToString/Parse.
void AppendName(std::string& out, absl::string_view name) {
  if (IsPlainName(name)) {
    absl::StrAppend(&out, name);
    return;
  }
  out.push_back('"');
  for (char c : name) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

std::string RenderUnchecked(const LinearLayout::BasesT& bases,
                            const LinearLayout::OutDimsT& out_dims) {
  std::string out = "{";
  for (size_t d = 0; d < bases.size(); ++d) {
    if (d > 0) out += ", ";
    AppendName(out, bases[d].first);
    out += ": [";
    const auto& dim_bases = bases[d].second;
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      if (i > 0) out += ", ";
      absl::StrAppend(&out, "[", absl::StrJoin(dim_bases[i], ", "), "]");
    }
    out += "]";
  }
  out += "} -> {";
  for (size_t o = 0; o < out_dims.size(); ++o) {
    if (o > 0) out += ", ";
    AppendName(out, out_dims[o].first);
    absl::StrAppend(&out, ": ", out_dims[o].second);
  }
  out += "}";
  return out;
}

// Infers out sizes as the constructor that takes only out-dim names does (§1.4):
// each size is the largest "next power of two strictly greater than an entry", at
// least 1. Malformed entries are skipped here and reported by Validate.
absl::StatusOr<LinearLayout::OutDimsT> InferOutDims(
    const LinearLayout::BasesT& bases, const std::vector<std::string>& out_dim_names) {
  std::vector<int64_t> sizes(out_dim_names.size(), 1);
  for (const auto& [in_dim, dim_bases] : bases) {
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      const LinearLayout::Basis& basis = dim_bases[i];
      for (size_t o = 0; o < basis.size() && o < out_dim_names.size(); ++o) {
        if (basis[o] < 0) continue;
        if (basis[o] >= (int32_t{1} << kMaxDimSizeLog2)) {
          return absl::InvalidArgumentError(
              absl::StrCat("in-dim '", in_dim, "' basis ", i, " has entry ", basis[o],
                           " for out-dim '", out_dim_names[o],
                           "', too large to infer a power-of-two out size (max ",
                           (int32_t{1} << kMaxDimSizeLog2) - 1, ")"));
        }
        sizes[o] = std::max(sizes[o], base::NextPowerOf2Above(basis[o]));
      }
    }
  }
  LinearLayout::OutDimsT out_dims;
  out_dims.reserve(out_dim_names.size());
  for (size_t o = 0; o < out_dim_names.size(); ++o) {
    out_dims.emplace_back(out_dim_names[o], static_cast<int32_t>(sizes[o]));
  }
  return out_dims;
}

}  // namespace

// ---- Validation and construction
// -------------------------------------------------------

absl::Status LinearLayout::Validate(const BasesT& bases, const OutDimsT& out_dims,
                                    bool require_surjective) {
  return Check(bases, out_dims, require_surjective, nullptr);
}

absl::Status LinearLayout::Check(const BasesT& bases, const OutDimsT& out_dims,
                                 bool require_surjective, int* rank) {
  for (size_t d = 0; d < bases.size(); ++d) {
    const std::string& name = bases[d].first;
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("in-dim ", d, " has an empty name"));
    }
    for (size_t e = 0; e < d; ++e) {
      if (bases[e].first == name) {
        return absl::InvalidArgumentError(
            absl::StrCat("in-dim '", name, "' is listed twice"));
      }
    }
    if (bases[d].second.size() > kMaxDimSizeLog2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "in-dim '", name, "' has ", bases[d].second.size(), " bases; at most ",
          kMaxDimSizeLog2, " are supported (size 2^", kMaxDimSizeLog2, ")"));
    }
  }
  for (size_t o = 0; o < out_dims.size(); ++o) {
    const auto& [name, size] = out_dims[o];
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("out-dim ", o, " has an empty name"));
    }
    for (size_t e = 0; e < o; ++e) {
      if (out_dims[e].first == name) {
        return absl::InvalidArgumentError(
            absl::StrCat("out-dim '", name, "' is listed twice"));
      }
    }
    if (!base::IsPowerOf2(size)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "out-dim '", name, "' has size ", size, ", which is not a power of two"));
    }
  }
  for (const auto& [in_dim, dim_bases] : bases) {
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      const Basis& basis = dim_bases[i];
      if (basis.size() != out_dims.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("in-dim '", in_dim, "' basis ", i, " has ", basis.size(),
                         " entries but the layout has ", out_dims.size(), " out-dims"));
      }
      for (size_t o = 0; o < basis.size(); ++o) {
        if (basis[o] < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("in-dim '", in_dim, "' basis ", i, " has negative entry ",
                           basis[o], " for out-dim '", out_dims[o].first, "'"));
        }
        if (basis[o] >= out_dims[o].second) {
          return absl::InvalidArgumentError(
              absl::StrCat("in-dim '", in_dim, "' basis ", i, " has entry ", basis[o],
                           " for out-dim '", out_dims[o].first,
                           "', which is not below its size ", out_dims[o].second));
        }
      }
    }
  }
  const int in_bits = TotalInBits(bases);
  const int out_bits = TotalOutBits(out_dims);
  if (in_bits > kMaxTotalBits || out_bits > kMaxTotalBits) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout has ", in_bits, " input bits and ", out_bits,
                     " output bits; at most ", kMaxTotalBits, " of each are supported"));
  }
  if (!require_surjective && rank == nullptr) return absl::OkStatus();
  const int r = f2::Rank(MatrixOf(bases, out_dims), in_bits);
  if (require_surjective && r != out_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout is not surjective (some output value is never produced): ",
                     RenderUnchecked(bases, out_dims)));
  }
  if (rank != nullptr) *rank = r;
  return absl::OkStatus();
}

LinearLayout::LinearLayout(BasesT bases, const std::vector<std::string>& out_dim_names) {
  absl::StatusOr<LinearLayout> l = Create(std::move(bases), out_dim_names);
  WARPCHECK_CHECK(l.ok()) << l.status();
  *this = std::move(l).value();
}

LinearLayout::LinearLayout(BasesT bases, OutDimsT out_dims, bool require_surjective) {
  int rank = 0;
  absl::Status s = Check(bases, out_dims, require_surjective, &rank);
  WARPCHECK_CHECK(s.ok()) << s;
  *this = LinearLayout(std::move(bases), std::move(out_dims), rank, Checked{});
}

LinearLayout::LinearLayout(BasesT bases, OutDimsT out_dims, int rank, Checked)
    : bases_(std::move(bases)), out_dims_(std::move(out_dims)) {
  surjective_ = rank == TotalOutDimSizeLog2();
}

absl::StatusOr<LinearLayout> LinearLayout::Create(
    BasesT bases, const std::vector<std::string>& out_dim_names) {
  ASSIGN_OR_RETURN(OutDimsT out_dims, InferOutDims(bases, out_dim_names));
  return Create(std::move(bases), std::move(out_dims), /*require_surjective=*/true);
}

absl::StatusOr<LinearLayout> LinearLayout::Create(BasesT bases, OutDimsT out_dims,
                                                  bool require_surjective) {
  int rank = 0;
  RETURN_IF_ERROR(Check(bases, out_dims, require_surjective, &rank));
  return LinearLayout(std::move(bases), std::move(out_dims), rank, Checked{});
}

LinearLayout LinearLayout::Identity1D(int32_t size, absl::string_view in_dim,
                                      absl::string_view out_dim) {
  WARPCHECK_CHECK(size == 0 || base::IsPowerOf2(size)) << "Identity1D size " << size;
  if (size == 0) return Empty();
  std::vector<Basis> bases;
  for (int32_t v = 1; v < size; v *= 2) bases.push_back({v});
  return LinearLayout({{std::string(in_dim), std::move(bases)}},
                      {{std::string(out_dim), size}}, /*require_surjective=*/true);
}

LinearLayout LinearLayout::Zeros1D(int32_t size, absl::string_view in_dim,
                                   absl::string_view out_dim, int32_t out_size) {
  WARPCHECK_CHECK(size == 0 || base::IsPowerOf2(size)) << "Zeros1D size " << size;
  WARPCHECK_CHECK(base::IsPowerOf2(out_size)) << "Zeros1D out size " << out_size;
  if (size == 0) return Empty();
  std::vector<Basis> bases(base::Log2(size), Basis{0});
  return LinearLayout({{std::string(in_dim), std::move(bases)}},
                      {{std::string(out_dim), out_size}},
                      /*require_surjective=*/out_size == 1);
}

LinearLayout LinearLayout::Strided1D(int32_t size, int32_t stride,
                                     absl::string_view in_dim,
                                     absl::string_view out_dim) {
  WARPCHECK_CHECK(size == 0 || base::IsPowerOf2(size)) << "Strided1D size " << size;
  WARPCHECK_CHECK(base::IsPowerOf2(stride)) << "Strided1D stride " << stride;
  if (size == 0) return Empty();
  WARPCHECK_CHECK(base::Log2(size) + base::Log2(stride) <= kMaxDimSizeLog2)
      << "Strided1D size*stride overflows: " << size << "*" << stride;
  std::vector<Basis> bases;
  for (int32_t v = 1; v < size; v *= 2) bases.push_back({v * stride});
  return LinearLayout({{std::string(in_dim), std::move(bases)}},
                      {{std::string(out_dim), size * stride}},
                      /*require_surjective=*/stride == 1);
}

// ---- Observers
// -------------------------------------------------------------------------

std::vector<std::string> LinearLayout::InDimNames() const {
  std::vector<std::string> names;
  names.reserve(bases_.size());
  for (const auto& [name, dim_bases] : bases_) names.push_back(name);
  return names;
}

std::vector<std::string> LinearLayout::OutDimNames() const {
  std::vector<std::string> names;
  names.reserve(out_dims_.size());
  for (const auto& [name, size] : out_dims_) names.push_back(name);
  return names;
}

bool LinearLayout::HasInDim(absl::string_view d) const { return IndexOf(bases_, d) >= 0; }
bool LinearLayout::HasOutDim(absl::string_view d) const {
  return IndexOf(out_dims_, d) >= 0;
}

int LinearLayout::InDimSizeLog2(absl::string_view d) const {
  int i = IndexOf(bases_, d);
  WARPCHECK_CHECK(i >= 0) << "no in-dim '" << d << "' in " << ToString();
  return static_cast<int>(bases_[i].second.size());
}

int LinearLayout::OutDimSizeLog2(absl::string_view d) const {
  return base::Log2(OutDimSize(d));
}

int32_t LinearLayout::OutDimSize(absl::string_view d) const {
  int i = IndexOf(out_dims_, d);
  WARPCHECK_CHECK(i >= 0) << "no out-dim '" << d << "' in " << ToString();
  return out_dims_[i].second;
}

int LinearLayout::TotalInDimSizeLog2() const { return TotalInBits(bases_); }
int LinearLayout::TotalOutDimSizeLog2() const { return TotalOutBits(out_dims_); }

const LinearLayout::Basis& LinearLayout::GetBasis(absl::string_view in_dim,
                                                  int pos) const {
  int i = IndexOf(bases_, in_dim);
  WARPCHECK_CHECK(i >= 0) << "no in-dim '" << in_dim << "' in " << ToString();
  WARPCHECK_CHECK(pos >= 0 && pos < static_cast<int>(bases_[i].second.size()))
      << "basis " << pos << " of in-dim '" << in_dim << "' out of range";
  return bases_[i].second[pos];
}

int32_t LinearLayout::GetBasis(absl::string_view in_dim, int pos,
                               absl::string_view out_dim) const {
  int o = IndexOf(out_dims_, out_dim);
  WARPCHECK_CHECK(o >= 0) << "no out-dim '" << out_dim << "' in " << ToString();
  return GetBasis(in_dim, pos)[o];
}

int LinearLayout::Rank() const {
  return f2::Rank(MatrixOf(bases_, out_dims_), TotalInDimSizeLog2());
}

bool LinearLayout::IsInjective() const { return Rank() == TotalInDimSizeLog2(); }

bool LinearLayout::IsInvertible() const {
  return surjective_ && TotalInDimSizeLog2() == TotalOutDimSizeLog2();
}

std::vector<std::pair<std::string, int32_t>> LinearLayout::GetFreeVariableMasks() const {
  const uint64_t pivots =
      f2::PivotColumns(MatrixOf(bases_, out_dims_), TotalInDimSizeLog2());
  std::vector<std::pair<std::string, int32_t>> masks;
  masks.reserve(bases_.size());
  int col = 0;
  for (const auto& [name, dim_bases] : bases_) {
    int32_t mask = 0;
    for (size_t i = 0; i < dim_bases.size(); ++i, ++col) {
      if (!((pivots >> col) & 1)) mask |= int32_t{1} << i;
    }
    masks.emplace_back(name, mask);
  }
  return masks;
}

LinearLayout::Point LinearLayout::Apply(const Point& ins) const {
  WARPCHECK_CHECK(ins.size() == bases_.size())
      << "Apply needs exactly the in-dims of " << ToString();
  std::vector<bool> seen(bases_.size(), false);
  Point out;
  out.reserve(out_dims_.size());
  for (const auto& [name, size] : out_dims_) out.emplace_back(name, 0);
  for (const auto& [name, value] : ins) {
    int d = IndexOf(bases_, name);
    WARPCHECK_CHECK(d >= 0 && !seen[d])
        << "Apply: unexpected or repeated in-dim '" << name << "' for " << ToString();
    seen[d] = true;
    const auto& dim_bases = bases_[d].second;
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      if ((static_cast<uint32_t>(value) >> i) & 1) {
        for (size_t o = 0; o < out.size(); ++o) out[o].second ^= dim_bases[i][o];
      }
    }
  }
  return out;
}

int64_t LinearLayout::ApplyFlat(int64_t flat_in) const {
  std::vector<int32_t> out(out_dims_.size(), 0);
  uint64_t in = static_cast<uint64_t>(flat_in);
  int bit = 0;
  for (const auto& [name, dim_bases] : bases_) {
    for (const Basis& basis : dim_bases) {
      if ((in >> bit) & 1) {
        for (size_t o = 0; o < out.size(); ++o) out[o] ^= basis[o];
      }
      ++bit;
    }
  }
  int64_t flat = 0;
  int shift = 0;
  for (size_t o = 0; o < out.size(); ++o) {
    flat |= static_cast<int64_t>(out[o]) << shift;
    shift += base::Log2(out_dims_[o].second);
  }
  return flat;
}

bool LinearLayout::SublayoutIsZero(const std::vector<std::string>& ins,
                                   const std::vector<std::string>& outs) const {
  WARPCHECK_CHECK(IsSubsetOf(ins, bases_) && IsSubsetOf(outs, out_dims_))
      << "SublayoutIsZero(" << JoinNames(ins) << ", " << JoinNames(outs)
      << "): dims not in " << ToString();
  std::vector<int> out_idx;
  for (const std::string& o : outs) out_idx.push_back(IndexOf(out_dims_, o));
  for (const std::string& d : ins) {
    for (const Basis& basis : bases_[IndexOf(bases_, d)].second) {
      for (int o : out_idx) {
        if (basis[o] != 0) return false;
      }
    }
  }
  return true;
}

bool LinearLayout::IsTrivialOver(const std::vector<std::string>& dims) const {
  // Triton aborts when a dim is missing on either side; a missing dim simply makes the
  // layout not trivial over `dims` here.
  for (const std::string& d : dims) {
    if (!HasInDim(d) || !HasOutDim(d)) return false;
  }
  std::vector<std::string> other_ins, other_outs;
  for (const auto& [name, dim_bases] : bases_) {
    if (!Contains(dims, name)) other_ins.push_back(name);
  }
  for (const auto& [name, size] : out_dims_) {
    if (!Contains(dims, name)) other_outs.push_back(name);
  }
  // The square sublayout must be the identity. Like Triton, this flattens ins and outs
  // in this layout's own orders, so both orders must agree on the listed dims.
  if (!dims.empty()) {
    for (const std::string& d : dims) {
      if (InDimSize(d) != OutDimSize(d)) return false;
    }
    LinearLayout square = Sublayout(dims, dims).FlattenIns().FlattenOuts();
    const auto& flat_bases = square.bases_.front().second;
    for (size_t b = 0; b < flat_bases.size(); ++b) {
      if (flat_bases[b][0] != (int32_t{1} << b)) return false;
    }
  }
  return SublayoutIsZero(other_ins, dims) && SublayoutIsZero(dims, other_outs);
}

int32_t LinearLayout::GetNumConsecutiveInOut() const {
  if (bases_.empty() || out_dims_.empty()) return 1;
  const auto& first = bases_.front().second;
  int consec = 0;
  for (; consec < static_cast<int>(first.size()); ++consec) {
    const Basis& basis = first[consec];
    if (basis[0] != (int32_t{1} << consec)) break;
    if (!std::all_of(basis.begin() + 1, basis.end(), [](int32_t x) { return x == 0; })) {
      break;
    }
  }
  int32_t other_bits = 0;
  for (size_t d = 0; d < bases_.size(); ++d) {
    const auto& dim_bases = bases_[d].second;
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      if (d != 0 || static_cast<int>(i) >= consec) other_bits |= dim_bases[i][0];
    }
  }
  const int trailing_zeros = other_bits != 0 ? __builtin_ctz(other_bits) : 31;
  return int32_t{1} << std::min(consec, trailing_zeros);
}

// ---- Transformations
// -------------------------------------------------------------------

LinearLayout LinearLayout::TransposeIns(const std::vector<std::string>& order) const {
  WARPCHECK_CHECK(IsPermutationOf(order, bases_))
      << "TransposeIns(" << JoinNames(order)
      << ") is not a permutation of the in-dims of " << ToString();
  BasesT new_bases;
  new_bases.reserve(order.size());
  for (const std::string& d : order) new_bases.push_back(bases_[IndexOf(bases_, d)]);
  return LinearLayout(std::move(new_bases), out_dims_, /*require_surjective=*/false);
}

LinearLayout LinearLayout::TransposeOuts(const std::vector<std::string>& order) const {
  WARPCHECK_CHECK(IsPermutationOf(order, out_dims_))
      << "TransposeOuts(" << JoinNames(order)
      << ") is not a permutation of the out-dims of " << ToString();
  std::vector<int> perm;
  perm.reserve(order.size());
  for (const std::string& o : order) perm.push_back(IndexOf(out_dims_, o));
  BasesT new_bases = bases_;
  for (auto& [name, dim_bases] : new_bases) {
    for (Basis& basis : dim_bases) {
      Basis permuted(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) permuted[i] = basis[perm[i]];
      basis = std::move(permuted);
    }
  }
  OutDimsT new_out_dims;
  new_out_dims.reserve(perm.size());
  for (int p : perm) new_out_dims.push_back(out_dims_[p]);
  return LinearLayout(std::move(new_bases), std::move(new_out_dims),
                      /*require_surjective=*/false);
}

namespace {

// Requires of ReshapeIns/ReshapeOuts: every new size a power of two, and 2^total_log2
// elements in all.
void CheckReshapeSizes(const char* op, const LinearLayout::OutDimsT& new_dims,
                       int total_log2, const LinearLayout& layout) {
  int new_log2 = 0;
  for (const auto& [name, size] : new_dims) {
    WARPCHECK_CHECK(base::IsPowerOf2(size))
        << op << ": size " << size << " of '" << name << "' is not a power of two";
    new_log2 += base::Log2(size);
  }
  WARPCHECK_CHECK(new_log2 == total_log2)
      << op << ": new sizes have 2^" << new_log2 << " elements, layout has 2^"
      << total_log2 << ": " << layout.ToString();
}

}  // namespace

LinearLayout LinearLayout::ReshapeIns(const OutDimsT& new_in_dims) const {
  CheckReshapeSizes("ReshapeIns", new_in_dims, TotalInDimSizeLog2(), *this);
  std::vector<const Basis*> flat;
  for (const auto& [name, dim_bases] : bases_) {
    for (const Basis& basis : dim_bases) flat.push_back(&basis);
  }
  BasesT new_bases;
  size_t next = 0;
  for (const auto& [name, size] : new_in_dims) {
    std::vector<Basis> dim_bases;
    for (int j = 0; j < base::Log2(size); ++j) dim_bases.push_back(*flat[next++]);
    new_bases.emplace_back(name, std::move(dim_bases));
  }
  return LinearLayout(std::move(new_bases), out_dims_, /*require_surjective=*/false);
}

LinearLayout LinearLayout::ReshapeOuts(const OutDimsT& new_out_dims) const {
  CheckReshapeSizes("ReshapeOuts", new_out_dims, TotalOutDimSizeLog2(), *this);
  std::vector<int> shifts;
  int shift = 0;
  for (const auto& [name, size] : out_dims_) {
    shifts.push_back(shift);
    shift += base::Log2(size);
  }
  BasesT new_bases;
  new_bases.reserve(bases_.size());
  for (const auto& [name, dim_bases] : bases_) {
    std::vector<Basis> reshaped;
    reshaped.reserve(dim_bases.size());
    for (const Basis& basis : dim_bases) {
      uint64_t flat = 0;
      for (size_t o = 0; o < basis.size(); ++o) {
        flat |= static_cast<uint64_t>(basis[o]) << shifts[o];
      }
      Basis split;
      split.reserve(new_out_dims.size());
      for (const auto& [new_name, new_size] : new_out_dims) {
        split.push_back(static_cast<int32_t>(flat % static_cast<uint64_t>(new_size)));
        flat /= static_cast<uint64_t>(new_size);
      }
      reshaped.push_back(std::move(split));
    }
    new_bases.emplace_back(name, std::move(reshaped));
  }
  return LinearLayout(std::move(new_bases), new_out_dims, /*require_surjective=*/false);
}

LinearLayout LinearLayout::FlattenIns() const {
  if (bases_.empty()) return *this;
  WARPCHECK_CHECK(TotalInDimSizeLog2() <= kMaxDimSizeLog2)
      << "FlattenIns: 2^" << TotalInDimSizeLog2() << " inputs do not fit one dim";
  return ReshapeIns({{bases_.front().first, int32_t{1} << TotalInDimSizeLog2()}});
}

LinearLayout LinearLayout::FlattenOuts() const {
  if (out_dims_.empty()) return *this;
  WARPCHECK_CHECK(TotalOutDimSizeLog2() <= kMaxDimSizeLog2)
      << "FlattenOuts: 2^" << TotalOutDimSizeLog2() << " outputs do not fit one dim";
  return ReshapeOuts({{out_dims_.front().first, int32_t{1} << TotalOutDimSizeLog2()}});
}

LinearLayout LinearLayout::Sublayout(const std::vector<std::string>& ins,
                                     const std::vector<std::string>& outs) const {
  WARPCHECK_CHECK(IsSubsetOf(ins, bases_) && IsSubsetOf(outs, out_dims_))
      << "Sublayout(" << JoinNames(ins) << ", " << JoinNames(outs) << "): dims not in "
      << ToString();
  std::vector<int> keep;
  OutDimsT new_out_dims;
  for (size_t o = 0; o < out_dims_.size(); ++o) {
    if (Contains(outs, out_dims_[o].first)) {
      keep.push_back(static_cast<int>(o));
      new_out_dims.push_back(out_dims_[o]);
    }
  }
  BasesT new_bases;
  for (const auto& [name, dim_bases] : bases_) {
    if (!Contains(ins, name)) continue;
    std::vector<Basis> kept;
    kept.reserve(dim_bases.size());
    for (const Basis& basis : dim_bases) {
      Basis b;
      b.reserve(keep.size());
      for (int o : keep) b.push_back(basis[o]);
      kept.push_back(std::move(b));
    }
    new_bases.emplace_back(name, std::move(kept));
  }
  return LinearLayout(std::move(new_bases), std::move(new_out_dims),
                      /*require_surjective=*/false);
}

LinearLayout LinearLayout::ConcatIns(const LinearLayout& other) const {
  WARPCHECK_CHECK(out_dims_ == other.out_dims_)
      << "ConcatIns needs identical out-dims: " << ToString() << " vs "
      << other.ToString();
  BasesT new_bases = bases_;
  for (const auto& dim : other.bases_) {
    // As in Triton, the first occurrence of a name wins.
    if (IndexOf(new_bases, dim.first) < 0) new_bases.push_back(dim);
  }
  return LinearLayout(std::move(new_bases), out_dims_, /*require_surjective=*/false);
}

LinearLayout LinearLayout::ConcatOuts(const LinearLayout& other) const {
  WARPCHECK_CHECK(InDimNames() == other.InDimNames())
      << "ConcatOuts needs identical in-dims: " << ToString() << " vs "
      << other.ToString();
  BasesT new_bases = bases_;
  for (size_t d = 0; d < new_bases.size(); ++d) {
    auto& dim_bases = new_bases[d].second;
    const auto& other_bases = other.bases_[d].second;
    WARPCHECK_CHECK(dim_bases.size() == other_bases.size())
        << "ConcatOuts: in-dim '" << new_bases[d].first << "' has different sizes";
    for (size_t i = 0; i < dim_bases.size(); ++i) {
      dim_bases[i].insert(dim_bases[i].end(), other_bases[i].begin(),
                          other_bases[i].end());
    }
  }
  OutDimsT new_out_dims = out_dims_;
  new_out_dims.insert(new_out_dims.end(), other.out_dims_.begin(), other.out_dims_.end());
  return LinearLayout(std::move(new_bases), std::move(new_out_dims),
                      /*require_surjective=*/false);
}

std::vector<std::string> Supremum(const std::vector<std::string>& x,
                                  const std::vector<std::string>& y) {
  // Walk both lists. Equal heads are emitted once. A head the other list does not
  // contain (at or after its cursor) is emitted at once, x first. Otherwise the head
  // whose position in the other list is smaller goes first, ties to x.
  std::vector<std::string> result;
  auto emitted = [&](const std::string& s) { return Contains(result, s); };
  size_t i = 0, j = 0;
  constexpr size_t kInf = static_cast<size_t>(-1);
  while (i < x.size() || j < y.size()) {
    while (i < x.size() && emitted(x[i])) ++i;
    while (j < y.size() && emitted(y[j])) ++j;
    if (i >= x.size() && j >= y.size()) break;
    if (i < x.size() && j < y.size() && x[i] == y[j]) {
      result.push_back(x[i]);
      ++i;
      ++j;
      continue;
    }
    size_t cand_x = kInf, cand_y = kInf;
    if (i < x.size()) {
      int p = IndexOfName(y, x[i]);
      if (p >= 0 && static_cast<size_t>(p) >= j) cand_x = p;
    }
    if (j < y.size()) {
      int p = IndexOfName(x, y[j]);
      if (p >= 0 && static_cast<size_t>(p) >= i) cand_y = p;
    }
    if (i < x.size() && cand_x == kInf) {
      result.push_back(x[i++]);
    } else if (j < y.size() && cand_y == kInf) {
      result.push_back(y[j++]);
    } else if (cand_x <= cand_y) {
      result.push_back(x[i++]);
    } else {
      result.push_back(y[j++]);
    }
  }
  return result;
}

LinearLayout operator*(const LinearLayout& inner, const LinearLayout& outer) {
  using Basis = LinearLayout::Basis;
  const std::vector<std::string> in_names =
      Supremum(inner.InDimNames(), outer.InDimNames());
  const std::vector<std::string> out_names =
      Supremum(inner.OutDimNames(), outer.OutDimNames());

  // For every result out-dim: its index in each factor (-1 if absent), and the shift
  // applied to the outer factor's entries (the inner factor's log2 size).
  const size_t num_outs = out_names.size();
  std::vector<int> inner_out(num_outs), outer_out(num_outs), shift(num_outs);
  LinearLayout::OutDimsT out_dims;
  out_dims.reserve(num_outs);
  for (size_t o = 0; o < num_outs; ++o) {
    inner_out[o] = IndexOf(inner.out_dims(), out_names[o]);
    outer_out[o] = IndexOf(outer.out_dims(), out_names[o]);
    int inner_log2 =
        inner_out[o] >= 0 ? base::Log2(inner.out_dims()[inner_out[o]].second) : 0;
    int outer_log2 =
        outer_out[o] >= 0 ? base::Log2(outer.out_dims()[outer_out[o]].second) : 0;
    shift[o] = inner_log2;
    WARPCHECK_CHECK(inner_log2 + outer_log2 <= kMaxDimSizeLog2)
        << "product: out-dim '" << out_names[o] << "' would have size 2^"
        << inner_log2 + outer_log2;
    out_dims.emplace_back(out_names[o], int32_t{1} << (inner_log2 + outer_log2));
  }

  LinearLayout::BasesT bases;
  bases.reserve(in_names.size());
  for (const std::string& name : in_names) {
    std::vector<Basis> dim_bases;
    int di = IndexOf(inner.bases(), name);
    int dout = IndexOf(outer.bases(), name);
    if (di >= 0) {
      for (const Basis& b : inner.bases()[di].second) {
        Basis nb(num_outs, 0);
        for (size_t o = 0; o < num_outs; ++o) {
          if (inner_out[o] >= 0) nb[o] = b[inner_out[o]];
        }
        dim_bases.push_back(std::move(nb));
      }
    }
    if (dout >= 0) {
      for (const Basis& b : outer.bases()[dout].second) {
        Basis nb(num_outs, 0);
        for (size_t o = 0; o < num_outs; ++o) {
          if (outer_out[o] >= 0) nb[o] = b[outer_out[o]] << shift[o];
        }
        dim_bases.push_back(std::move(nb));
      }
    }
    bases.emplace_back(name, std::move(dim_bases));
  }
  return LinearLayout(std::move(bases), std::move(out_dims),
                      /*require_surjective=*/false);
}

LinearLayout LinearLayout::Compose(const LinearLayout& outer) const {
  WARPCHECK_CHECK(IsPermutationOf(OutDimNames(), outer.bases_))
      << "Compose: out-dims of " << ToString() << " must be the in-dims of "
      << outer.ToString();
  // For each of this layout's out-dims, the bases of the matching in-dim of `outer`.
  std::vector<const std::vector<Basis>*> outer_bases;
  outer_bases.reserve(out_dims_.size());
  for (const auto& [name, size] : out_dims_) {
    const auto& ob = outer.bases_[IndexOf(outer.bases_, name)].second;
    WARPCHECK_CHECK(base::Log2(size) <= static_cast<int>(ob.size()))
        << "Compose: out-dim '" << name << "' has size " << size
        << " but the outer layout's in-dim has size " << (int64_t{1} << ob.size());
    outer_bases.push_back(&ob);
  }
  const size_t num_outer_outs = outer.out_dims_.size();
  BasesT new_bases;
  new_bases.reserve(bases_.size());
  for (const auto& [name, dim_bases] : bases_) {
    std::vector<Basis> composed;
    composed.reserve(dim_bases.size());
    for (const Basis& basis : dim_bases) {
      Basis image(num_outer_outs, 0);
      for (size_t o = 0; o < basis.size(); ++o) {
        uint32_t v = static_cast<uint32_t>(basis[o]);
        while (v != 0) {
          int bit = __builtin_ctz(v);
          v &= v - 1;
          const Basis& ob = (*outer_bases[o])[bit];
          for (size_t p = 0; p < num_outer_outs; ++p) image[p] ^= ob[p];
        }
      }
      composed.push_back(std::move(image));
    }
    new_bases.emplace_back(name, std::move(composed));
  }
  return LinearLayout(std::move(new_bases), outer.out_dims_,
                      /*require_surjective=*/false);
}

namespace {

// Least squares over F2 with free variables 0: returns X with a(X(y)) == b(y) for every
// input y of b, where a and b have the same out-dims in the same order and every a out
// size is >= the b one (b's bits for out-dim o fill the low rows of o's group). X has
// b's in-dims as in-dims and a's in-dims (with a's sizes) as out-dims.
absl::StatusOr<LinearLayout> LeastSquares(const LinearLayout& a, const LinearLayout& b) {
  const int cols_a = a.TotalInDimSizeLog2();
  const int cols_b = b.TotalInDimSizeLog2();
  if (cols_a + cols_b > kMaxMatrixColumns) {
    return absl::FailedPreconditionError(absl::StrCat("InvertAndCompose: ", cols_a, " + ",
                                                      cols_b, " input bits exceed ",
                                                      kMaxMatrixColumns));
  }
  f2::Matrix m = MatrixOf(a.bases(), a.out_dims());
  const f2::Matrix mb = MatrixOf(b.bases(), b.out_dims());
  int row_a = 0, row_b = 0;
  for (size_t o = 0; o < a.out_dims().size(); ++o) {
    const int log2_a = base::Log2(a.out_dims()[o].second);
    const int log2_b = base::Log2(b.out_dims()[o].second);
    for (int r = 0; r < log2_a; ++r, ++row_a) {
      if (r < log2_b) m[row_a] |= mb[row_b++] << cols_a;
    }
  }
  const int rank = f2::ReduceToRref(m, cols_a + cols_b);

  // x[c] for each input bit c of a: the bit mask (over b's input bits) of the b inputs
  // whose solution has bit c set. Pivot columns take their row's b-part; free columns 0.
  std::vector<uint64_t> x(cols_a, 0);
  const uint64_t a_mask = cols_a == 64 ? ~uint64_t{0} : (uint64_t{1} << cols_a) - 1;
  for (int r = 0; r < rank; ++r) {
    const int c = __builtin_ctzll(m[r]);
    if (c >= cols_a) {
      return absl::FailedPreconditionError(
          absl::StrCat("InvertAndCompose: the image of ", b.ToString(),
                       " is not contained in the image of ", a.ToString()));
    }
    x[c] = cols_a == 64 ? 0 : (m[r] & ~a_mask) >> cols_a;
  }

  // Input bit j of b maps to the a-input integer whose bit c is bit j of x[c], split
  // over a's in-dims (first in-dim = low bits).
  LinearLayout::BasesT bases;
  int j = 0;
  for (const auto& [name, dim_bases] : b.bases()) {
    std::vector<LinearLayout::Basis> solved;
    for (size_t i = 0; i < dim_bases.size(); ++i, ++j) {
      LinearLayout::Basis basis;
      basis.reserve(a.bases().size());
      int c = 0;
      for (const auto& [a_name, a_bases] : a.bases()) {
        int32_t v = 0;
        for (size_t k = 0; k < a_bases.size(); ++k, ++c) {
          if ((x[c] >> j) & 1) v |= int32_t{1} << k;
        }
        basis.push_back(v);
      }
      solved.push_back(std::move(basis));
    }
    bases.emplace_back(name, std::move(solved));
  }
  LinearLayout::OutDimsT out_dims;
  for (const auto& [a_name, a_bases] : a.bases()) {
    out_dims.emplace_back(a_name, int32_t{1} << a_bases.size());
  }
  return LinearLayout::Create(std::move(bases), std::move(out_dims),
                              /*require_surjective=*/false);
}

}  // namespace

absl::StatusOr<LinearLayout> LinearLayout::TryInvertAndCompose(
    const LinearLayout& outer) const {
  // Triton's names: b = *this, a = outer with its out-dims in this layout's order.
  const std::vector<std::string> outs = OutDimNames();
  if (!IsPermutationOf(outs, outer.out_dims_)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "InvertAndCompose: out-dims differ: ", ToString(), " vs ", outer.ToString()));
  }
  const LinearLayout& b = *this;
  const LinearLayout a = outer.TransposeOuts(outs);
  for (size_t o = 0; o < outs.size(); ++o) {
    if (a.out_dims_[o].second < b.out_dims_[o].second) {
      return absl::FailedPreconditionError(absl::StrCat(
          "InvertAndCompose: out-dim '", outs[o], "' has size ", b.out_dims_[o].second,
          " but the outer layout's is only ", a.out_dims_[o].second));
    }
  }

  // Identity dims: in-dims of both whose sublayouts (all out-dims, sizes included) are
  // equal map to themselves; this keeps broadcast warps/blocks where they are.
  std::vector<std::string> identity_dims, a_rest, b_rest;
  const bool same_out_sizes = a.out_dims_ == b.out_dims_;
  for (const auto& [name, dim_bases] : a.bases_) {
    const int bi = IndexOf(b.bases_, name);
    if (same_out_sizes && bi >= 0 && b.bases_[bi].second == dim_bases) {
      identity_dims.push_back(name);
    } else {
      a_rest.push_back(name);
    }
  }
  for (const auto& [name, dim_bases] : b.bases_) {
    if (!Contains(identity_dims, name)) b_rest.push_back(name);
  }
  if (a_rest.empty() != b_rest.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "InvertAndCompose: after setting aside the identical dims ",
        JoinNames(identity_dims), ", one side has no dims left but the other has ",
        JoinNames(a_rest.empty() ? b_rest : a_rest),
        " (Triton asserts here): ", ToString(), " vs ", outer.ToString()));
  }

  LinearLayout ret = Empty();
  if (!a_rest.empty()) {
    ASSIGN_OR_RETURN(ret,
                     LeastSquares(a.Sublayout(a_rest, outs), b.Sublayout(b_rest, outs)));
  }
  for (const std::string& d : identity_dims) {
    ret = ret * Identity1D(a.InDimSize(d), d, d);
  }
  return ret.TransposeIns(b.InDimNames()).TransposeOuts(a.InDimNames());
}

LinearLayout LinearLayout::InvertAndCompose(const LinearLayout& outer) const {
  absl::StatusOr<LinearLayout> result = TryInvertAndCompose(outer);
  WARPCHECK_CHECK(result.ok()) << result.status();
  return std::move(result).value();
}

LinearLayout LinearLayout::Invert() const {
  WARPCHECK_CHECK(IsInvertible()) << "Invert needs an invertible layout: " << ToString();
  return Pseudoinvert();
}

LinearLayout LinearLayout::Pseudoinvert() const {
  LinearLayout identity = Empty();
  for (const auto& [name, size] : out_dims_) {
    identity = identity * Identity1D(size, name, name);
  }
  return identity.InvertAndCompose(*this);
}

LinearLayout LinearLayout::RemoveZeroBasesAlongDim(absl::string_view in_dim) const {
  BasesT new_bases = bases_;
  for (auto& [name, dim_bases] : new_bases) {
    if (name != in_dim) continue;
    std::vector<Basis> kept;
    for (Basis& basis : dim_bases) {
      if (std::any_of(basis.begin(), basis.end(), [](int32_t v) { return v != 0; })) {
        kept.push_back(std::move(basis));
      }
    }
    dim_bases = std::move(kept);
  }
  return LinearLayout(std::move(new_bases), out_dims_, /*require_surjective=*/false);
}

LinearLayout LinearLayout::UnsqueezeIn(absl::string_view in_dim) const {
  const int d = IndexOf(bases_, in_dim);
  WARPCHECK_CHECK(d >= 0 && bases_[d].second.empty())
      << "UnsqueezeIn: '" << in_dim << "' is not a size-1 in-dim of " << ToString();
  BasesT new_bases = bases_;
  new_bases.erase(new_bases.begin() + d);
  return LinearLayout(std::move(new_bases), out_dims_, /*require_surjective=*/false);
}

LinearLayout LinearLayout::UnsqueezeOut(absl::string_view out_dim) const {
  const int o = IndexOf(out_dims_, out_dim);
  WARPCHECK_CHECK(o >= 0 && out_dims_[o].second == 1)
      << "UnsqueezeOut: '" << out_dim << "' is not a size-1 out-dim of " << ToString();
  BasesT new_bases = bases_;
  for (auto& [name, dim_bases] : new_bases) {
    for (Basis& basis : dim_bases) basis.erase(basis.begin() + o);
  }
  OutDimsT new_out_dims = out_dims_;
  new_out_dims.erase(new_out_dims.begin() + o);
  return LinearLayout(std::move(new_bases), std::move(new_out_dims),
                      /*require_surjective=*/false);
}

std::optional<LinearLayout> LinearLayout::Quotient(
    const std::vector<std::string>& dims) const {
  if (!IsTrivialOver(dims)) return std::nullopt;
  std::vector<std::string> ins, outs;
  for (const auto& [name, dim_bases] : bases_) {
    if (!Contains(dims, name)) ins.push_back(name);
  }
  for (const auto& [name, size] : out_dims_) {
    if (!Contains(dims, name)) outs.push_back(name);
  }
  return Sublayout(ins, outs);
}

bool operator==(const LinearLayout& a, const LinearLayout& b) {
  return a.bases_ == b.bases_ && a.out_dims_ == b.out_dims_;
}

bool LinearLayout::EqualIgnoringOutDimSizes(const LinearLayout& other) const {
  if (bases_ != other.bases_ || out_dims_.size() != other.out_dims_.size()) return false;
  for (size_t o = 0; o < out_dims_.size(); ++o) {
    if (out_dims_[o].first != other.out_dims_[o].first) return false;
  }
  return true;
}

std::string LinearLayout::ToString() const { return RenderUnchecked(bases_, out_dims_); }

// ---- Parse
// -----------------------------------------------------------------------------

namespace {

// Recursive-descent parser for the canonical notation:
//
//   layout  := '{' [in_dim (',' in_dim)*] '}' '->' '{' [out_dim (',' out_dim)*] '}'
//   in_dim  := name ':' '[' [basis (',' basis)*] ']'
//   basis   := '[' [int (',' int)*] ']'
//   out_dim := name ':' int
//   name    := identifier | '"' chars with \" and \\ escapes '"'
//
// Whitespace is allowed between all tokens.
class LayoutParser {
 public:
  explicit LayoutParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<LinearLayout> Parse() {
    LinearLayout::BasesT bases;
    LinearLayout::OutDimsT out_dims;
    RETURN_IF_ERROR(Expect('{', "'{' opening the in-dims"));
    if (!Peek('}')) {
      do {
        std::string name;
        RETURN_IF_ERROR(ParseName(name, "an in-dim name"));
        RETURN_IF_ERROR(Expect(':', "':' after in-dim name"));
        std::vector<LinearLayout::Basis> dim_bases;
        RETURN_IF_ERROR(ParseBasisList(dim_bases));
        bases.emplace_back(std::move(name), std::move(dim_bases));
      } while (Consume(','));
    }
    RETURN_IF_ERROR(Expect('}', "',' or '}' after an in-dim"));
    SkipSpace();
    if (text_.substr(pos_, 2) != "->") return Error("'->' between in-dims and out-dims");
    pos_ += 2;
    RETURN_IF_ERROR(Expect('{', "'{' opening the out-dims"));
    if (!Peek('}')) {
      do {
        std::string name;
        RETURN_IF_ERROR(ParseName(name, "an out-dim name"));
        RETURN_IF_ERROR(Expect(':', "':' after out-dim name"));
        int32_t size;
        RETURN_IF_ERROR(ParseInt(size, "an out-dim size"));
        out_dims.emplace_back(std::move(name), size);
      } while (Consume(','));
    }
    RETURN_IF_ERROR(Expect('}', "',' or '}' after an out-dim"));
    SkipSpace();
    if (pos_ != text_.size()) return Error("end of input after the layout");
    absl::StatusOr<LinearLayout> layout =
        LinearLayout::Create(std::move(bases), std::move(out_dims),
                             /*require_surjective=*/false);
    if (!layout.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid layout: ", layout.status().message()));
    }
    return layout;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }

  absl::Status Error(absl::string_view expected) const {
    std::string found = pos_ < text_.size()
                            ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                            : std::string("end of input");
    return absl::InvalidArgumentError(absl::StrCat("layout parse error at offset ", pos_,
                                                   ": expected ", expected, ", found ",
                                                   found));
  }

  absl::Status Expect(char c, absl::string_view what) {
    if (!Consume(c)) return Error(what);
    return absl::OkStatus();
  }

  absl::Status ParseName(std::string& name, absl::string_view what) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      size_t p = pos_ + 1;
      std::string out;
      while (p < text_.size() && text_[p] != '"') {
        if (text_[p] == '\\') {
          ++p;
          if (p >= text_.size()) break;
        }
        out.push_back(text_[p++]);
      }
      if (p >= text_.size()) {
        pos_ = p;
        return Error("'\"' closing a quoted dim name");
      }
      pos_ = p + 1;
      name = std::move(out);
      return absl::OkStatus();
    }
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                (pos_ > start && c >= '0' && c <= '9');
      if (!ok) break;
      ++pos_;
    }
    if (pos_ == start) return Error(what);
    name = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status ParseInt(int32_t& value, absl::string_view what) {
    SkipSpace();
    const size_t start = pos_;
    bool negative = false;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
      pos_ = start;
      return Error(what);
    }
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      v = v * 10 + (text_[pos_] - '0');
      if (v > (int64_t{1} << 31)) {
        pos_ = start;
        return Error(absl::StrCat(what, " that fits in 32 bits"));
      }
      ++pos_;
    }
    if (negative) v = -v;
    if (v > INT32_MAX || v < INT32_MIN) {
      pos_ = start;
      return Error(absl::StrCat(what, " that fits in 32 bits"));
    }
    value = static_cast<int32_t>(v);
    return absl::OkStatus();
  }

  absl::Status ParseBasisList(std::vector<LinearLayout::Basis>& dim_bases) {
    RETURN_IF_ERROR(Expect('[', "'[' opening a list of bases"));
    if (!Peek(']')) {
      do {
        LinearLayout::Basis basis;
        RETURN_IF_ERROR(Expect('[', "'[' opening a basis"));
        if (!Peek(']')) {
          do {
            int32_t v;
            RETURN_IF_ERROR(ParseInt(v, "an integer basis entry"));
            basis.push_back(v);
          } while (Consume(','));
        }
        RETURN_IF_ERROR(Expect(']', "',' or ']' in a basis"));
        dim_bases.push_back(std::move(basis));
      } while (Consume(','));
    }
    return Expect(']', "',' or ']' after a basis");
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<LinearLayout> LinearLayout::Parse(absl::string_view text) {
  return LayoutParser(text).Parse();
}

// ---- Division
// ---------------------------------------------------------------------------

std::optional<LinearLayout> DivideLeft(const LinearLayout& a, const LinearLayout& b) {
  using Basis = LinearLayout::Basis;
  for (const auto& [name, dim_bases] : b.bases()) {
    if (!a.HasInDim(name)) return std::nullopt;
  }
  for (const auto& [name, size] : b.out_dims()) {
    if (!a.HasOutDim(name)) return std::nullopt;
  }
  // For each of a's out-dims: b's log2 size (0 if absent) and b's index.
  const auto& a_outs = a.out_dims();
  std::vector<int> b_log2(a_outs.size(), 0), b_idx(a_outs.size(), -1);
  LinearLayout::OutDimsT c_outs;
  for (size_t o = 0; o < a_outs.size(); ++o) {
    b_idx[o] = IndexOf(b.out_dims(), a_outs[o].first);
    if (b_idx[o] >= 0) b_log2[o] = base::Log2(b.out_dims()[b_idx[o]].second);
    const int c_log2 = base::Log2(a_outs[o].second) - b_log2[o];
    if (c_log2 < 0) return std::nullopt;
    c_outs.emplace_back(a_outs[o].first, int32_t{1} << c_log2);
  }
  LinearLayout::BasesT c_bases;
  for (const auto& [name, a_bases] : a.bases()) {
    const int bd = IndexOf(b.bases(), name);
    const int in_b = bd >= 0 ? static_cast<int>(b.bases()[bd].second.size()) : 0;
    if (static_cast<int>(a_bases.size()) < in_b) return std::nullopt;
    for (int i = 0; i < in_b; ++i) {
      for (size_t o = 0; o < a_outs.size(); ++o) {
        const int32_t expected = b_idx[o] >= 0 ? b.bases()[bd].second[i][b_idx[o]] : 0;
        if (a_bases[i][o] != expected) return std::nullopt;
      }
    }
    std::vector<Basis> rest;
    for (size_t i = in_b; i < a_bases.size(); ++i) {
      Basis c(a_outs.size());
      for (size_t o = 0; o < a_outs.size(); ++o) {
        const int32_t v = a_bases[i][o];
        if ((v & ((int32_t{1} << b_log2[o]) - 1)) != 0) return std::nullopt;
        c[o] = v >> b_log2[o];
      }
      rest.push_back(std::move(c));
    }
    c_bases.emplace_back(name, std::move(rest));
  }
  LinearLayout c(std::move(c_bases), std::move(c_outs), /*require_surjective=*/false);
  // Triton asserts this; it fails only when b lists shared dims in another order.
  if (!(b * c == a)) return std::nullopt;
  return c;
}

std::optional<LinearLayout> DivideRight(const LinearLayout& a, const LinearLayout& b) {
  using Basis = LinearLayout::Basis;
  for (const auto& [name, dim_bases] : b.bases()) {
    if (!a.HasInDim(name)) return std::nullopt;
  }
  for (const auto& [name, size] : b.out_dims()) {
    if (!a.HasOutDim(name)) return std::nullopt;
  }
  const auto& a_outs = a.out_dims();
  std::vector<int> c_log2(a_outs.size(), 0);
  LinearLayout::OutDimsT c_outs;
  for (size_t o = 0; o < a_outs.size(); ++o) {
    const int bo = IndexOf(b.out_dims(), a_outs[o].first);
    const int b_log2 = bo >= 0 ? base::Log2(b.out_dims()[bo].second) : 0;
    c_log2[o] = base::Log2(a_outs[o].second) - b_log2;
    if (c_log2[o] < 0) return std::nullopt;
    c_outs.emplace_back(a_outs[o].first, int32_t{1} << c_log2[o]);
  }
  LinearLayout::BasesT c_bases;
  for (const auto& [name, a_bases] : a.bases()) {
    const int bd = IndexOf(b.bases(), name);
    const int in_b = bd >= 0 ? static_cast<int>(b.bases()[bd].second.size()) : 0;
    const int in_c = static_cast<int>(a_bases.size()) - in_b;
    if (in_c < 0) return std::nullopt;
    std::vector<Basis> first(a_bases.begin(), a_bases.begin() + in_c);
    for (int i = in_c; i < static_cast<int>(a_bases.size()); ++i) {
      for (const auto& [out_name, out_size] : b.out_dims()) {
        const int o = IndexOf(a_outs, out_name);
        const int32_t v = a_bases[i][o];
        if ((v & ((int32_t{1} << c_log2[o]) - 1)) != 0) return std::nullopt;
        if ((v >> c_log2[o]) != b.GetBasis(name, i - in_c, out_name)) return std::nullopt;
      }
    }
    c_bases.emplace_back(name, std::move(first));
  }
  // The low bases of a must fit c's (smaller) out sizes to be c's bases.
  if (!LinearLayout::Validate(c_bases, c_outs, /*require_surjective=*/false).ok()) {
    return std::nullopt;
  }
  LinearLayout c(std::move(c_bases), std::move(c_outs), /*require_surjective=*/false);
  if (!(c * b == a)) return std::nullopt;
  return c;
}

// ---- ColumnAction
// ----------------------------------------------------------------------

ColumnAction::ColumnAction(std::vector<int32_t> perm, std::string in_dim,
                           int in_size_log2)
    : perm_(std::move(perm)), in_dim_(std::move(in_dim)), in_size_log2_(in_size_log2) {
  for (int32_t p : perm_) {
    WARPCHECK_CHECK(p >= 0 && p < in_size_log2_)
        << "ColumnAction: index " << p << " out of range for " << in_size_log2_
        << " bases";
  }
}

bool ColumnAction::IsIdentity() const {
  if (static_cast<int>(perm_.size()) != in_size_log2_) return false;
  for (size_t i = 0; i < perm_.size(); ++i) {
    if (perm_[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

LinearLayout ColumnAction::Apply(const LinearLayout& layout) const {
  WARPCHECK_CHECK(layout.HasInDim(in_dim_) &&
                  layout.InDimSizeLog2(in_dim_) == in_size_log2_)
      << "ColumnAction " << ToString() << " does not fit " << layout.ToString();
  if (IsIdentity()) return layout;
  LinearLayout::BasesT bases = layout.bases();
  for (auto& [name, dim_bases] : bases) {
    if (name != in_dim_) continue;
    std::vector<LinearLayout::Basis> permuted;
    permuted.reserve(perm_.size());
    for (int32_t p : perm_) permuted.push_back(dim_bases[p]);
    dim_bases = std::move(permuted);
  }
  return LinearLayout(std::move(bases), layout.out_dims(), /*require_surjective=*/false);
}

std::string ColumnAction::ToString() const {
  return absl::StrCat("ColumnAction([", absl::StrJoin(perm_, ", "), "], ", in_dim_, ", ",
                      in_size_log2_, ")");
}

}  // namespace warpcheck::sim::layout
