// The enumeration oracle (CheckInstance): every offset through sim/layout's map, every
// request of the access through sim/bank's wavefront count. It decides small points
// exactly, confirms every counterexample the solver finds, and is what the tests hold
// the symbolic encodings to.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/bank/bank_model.h"
#include "verify/layout/layout_prove.h"
#include "verify/layout/oracle_internal.h"

namespace warpcheck::verify::layout {

ConcreteMap::ConcreteMap(const Instance& in) : shape_(in.shape) {
  for (const auto& [name, bases] : in.layout.bases()) {
    for (const auto& b : bases) bits_.push_back(b);
  }
  strides_.assign(shape_.size(), 1);
  for (int d = static_cast<int>(shape_.size()) - 2; d >= 0; --d) {
    strides_[d] = strides_[d + 1] * shape_[d + 1];
  }
  elements_ = shape_.empty() ? 1 : strides_[0] * shape_[0];
  offsets_ = int64_t{1} << bits_.size();
  padding_ = in.padding;
  bytes_ = std::max(1, in.element_bits / 8);
}

std::vector<int64_t> ConcreteMap::Element(int64_t o) const {
  std::vector<int64_t> e(shape_.size(), 0);
  for (size_t k = 0; k < bits_.size(); ++k) {
    if ((o >> k) & 1) {
      for (size_t d = 0; d < e.size(); ++d) e[d] ^= bits_[k][d];
    }
  }
  return e;
}

int64_t ConcreteMap::Key(const std::vector<int64_t>& e) const {
  int64_t key = 0;
  for (size_t d = 0; d < e.size(); ++d) key += e[d] * strides_[d];
  return key;
}

std::vector<int64_t> ConcreteMap::Unkey(int64_t key) const {
  std::vector<int64_t> e(shape_.size());
  for (size_t d = 0; d < e.size(); ++d) e[d] = key / strides_[d] % shape_[d];
  return e;
}

int64_t ConcreteMap::Address(int64_t o) const {
  int64_t a = o;
  for (const auto& [interval, pad] : padding_) a += (o / interval) * pad;
  return a * bytes_;
}

namespace {

Counterexample Base(const Instance& in, absl::string_view kind) {
  Counterexample c;
  c.params = in.params;
  c.shape = in.shape;
  c.kind = std::string(kind);
  return c;
}

std::string ElementText(const std::vector<int64_t>& e) {
  return absl::StrCat("(", absl::StrJoin(e, ", "), ")");
}

// Injectivity and surjectivity; fills `inverse` (element key -> offset) when bijective.
std::optional<Counterexample> CheckMap(const Instance& in, const ConcreteMap& m,
                                       Property property, std::vector<int64_t>* inverse) {
  std::vector<int64_t> first(m.elements(), -1);
  const bool inj = property != Property::kSurjective;
  const bool sur = property != Property::kInjective;
  for (int64_t o = 0; o < m.offsets(); ++o) {
    const std::vector<int64_t> e = m.Element(o);
    const int64_t key = m.Key(e);
    if (first[key] >= 0 && inj) {
      Counterexample c = Base(in, "duplicate");
      c.offsets = {first[key], o};
      c.elements = {e};
      c.text = absl::StrCat("offsets ", first[key], " and ", o, " both hold element ",
                            ElementText(e));
      return c;
    }
    if (first[key] < 0) first[key] = o;
  }
  for (int64_t key = 0; sur && key < m.elements(); ++key) {
    if (first[key] < 0) {
      Counterexample c = Base(in, "missed");
      c.elements = {m.Unkey(key)};
      c.text = absl::StrCat("no offset holds element ", ElementText(c.elements[0]));
      return c;
    }
  }
  if (inverse != nullptr) *inverse = std::move(first);
  return std::nullopt;
}

}  // namespace

AccessGeometry::AccessGeometry(const Instance& in, Access a) : access(a) {
  fast = in.fast_dim;
  slow = 1 - fast;
  rows = in.shape[slow];
  cols = in.shape[fast];
  vec = 128 / in.element_bits;
  bytes = in.element_bits / 8;
  requests = access == Access::kV4 ? (rows * cols / vec + 31) / 32 : (rows / 8) * (cols / vec);
}

std::vector<int64_t> AccessGeometry::Element(int64_t row, int64_t col) const {
  std::vector<int64_t> e(2);
  e[slow] = row;
  e[fast] = col;
  return e;
}

int AccessGeometry::Lanes(int64_t request, std::vector<int64_t>* row,
                          std::vector<int64_t>* col) const {
  row->clear();
  col->clear();
  if (access == Access::kV4) {
    const int64_t per_row = cols / vec, total = rows * cols / vec;
    for (int64_t l = 0; l < 32 && request * 32 + l < total; ++l) {
      const int64_t n = request * 32 + l;
      row->push_back(n / per_row);
      col->push_back(n % per_row * vec);
    }
  } else {
    const int64_t per_row = cols / vec;
    for (int64_t r = 0; r < 8; ++r) {
      row->push_back(request / per_row * 8 + r);
      col->push_back(request % per_row * vec);
    }
  }
  return static_cast<int>(row->size());
}

std::optional<Counterexample> CheckInstance(const Instance& in, Property property,
                                            Access access) {
  const ConcreteMap m(in);
  std::vector<int64_t> inverse;
  const Property map_property =
      property == Property::kBankConflictFree ? Property::kBijective : property;
  if (auto c = CheckMap(in, m, map_property, &inverse)) return c;
  if (property != Property::kBankConflictFree) return std::nullopt;

  const AccessGeometry g(in, access);
  const char* who = access == Access::kV4 ? "lane " : "matrix row ";
  std::vector<int64_t> rows, cols;
  auto addr = [&](int64_t r, int64_t c) { return m.Address(inverse[m.Key(g.Element(r, c))]); };
  for (int64_t q = 0; q < g.requests; ++q) {
    const int n = g.Lanes(q, &rows, &cols);
    uint32_t a[32] = {};
    uint32_t mask = 0;
    for (int l = 0; l < n; ++l) {
      const int64_t base = addr(rows[l], cols[l]);
      if (base % 16 != 0) {
        Counterexample c = Base(in, "not_vectorizable");
        c.request = q;
        c.lanes = {l};
        c.elements = {g.Element(rows[l], cols[l])};
        c.addresses = {base};
        c.offsets = {inverse[m.Key(c.elements[0])]};
        c.text = absl::StrCat("byte address ", base, " of element ", ElementText(c.elements[0]),
                              " is not 16-byte aligned: ", who, l,
                              "'s 16 bytes are not one vector");
        return c;
      }
      for (int64_t j = 1; j < g.vec; ++j) {
        const int64_t aj = addr(rows[l], cols[l] + j);
        if (aj != base + j * g.bytes) {
          Counterexample c = Base(in, "not_vectorizable");
          c.request = q;
          c.lanes = {l};
          c.elements = {g.Element(rows[l], cols[l]), g.Element(rows[l], cols[l] + j)};
          c.addresses = {base, aj};
          c.offsets = {inverse[m.Key(c.elements[0])], inverse[m.Key(c.elements[1])]};
          c.text = absl::StrCat("element ", ElementText(c.elements[1]), " is at byte ", aj,
                                ", not ", base + j * g.bytes, " (element ",
                                ElementText(c.elements[0]), " at ", base, "): ", who, l,
                                "'s 16 bytes are not one vector");
          return c;
        }
      }
      a[l] = static_cast<uint32_t>(base);
      mask |= 1u << l;
    }
    const sim::bank::BankCost cost = access == Access::kV4
                                         ? sim::bank::SharedRequestCost(a, mask, 16)
                                         : sim::bank::MatrixRequestCost(a, 1);
    if (cost.conflicts() == 0) continue;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n && j / 8 == i / 8; ++j) {
        if (a[i] / 16 != a[j] / 16 && a[i] / 16 % 8 == a[j] / 16 % 8) {
          Counterexample c = Base(in, "bank_conflict");
          c.request = q;
          c.wavefronts = cost.wavefronts;
          c.lanes = {i, j};
          c.elements = {g.Element(rows[i], cols[i]), g.Element(rows[j], cols[j])};
          c.addresses = {a[i], a[j]};
          c.offsets = {inverse[m.Key(c.elements[0])], inverse[m.Key(c.elements[1])]};
          c.text = absl::StrCat(
              access == Access::kV4 ? "request " : "matrix ", q,
              access == Access::kV4 ? ": lanes " : ": rows ", i, " and ", j,
              " read elements ", ElementText(c.elements[0]), " and ",
              ElementText(c.elements[1]), " at bytes ", a[i], " and ", a[j],
              ": banks ", a[i] / 4 % 32, ".. and ", a[j] / 4 % 32, ".., ",
              cost.wavefronts, " wavefronts instead of ", cost.minimum);
          return c;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace warpcheck::verify::layout
