// LinearLayout: an F2-linear map from hardware positions to tensor coordinates.
//
// Overview
// --------
// A GPU kernel spreads a tensor over hardware: each element lives in some register of
// some lane of some warp of some CTA (block). Triton describes every such distribution
// with one object, the *linear layout*: a function
//
//     L : (register, lane, warp, block) -> (dim0, dim1, ...)
//
// that is linear over F2, the field with two elements, where the integers on both sides
// are read as bit vectors and "+" is XOR. Linearity means L is fixed by its values on
// the powers of two of each input dim, its *bases*:
//
//     bases[d][i] = L(d = 2^i, every other input = 0)
//     L(x) = XOR over (d, i) with bit i of x_d set of bases[d][i]
//
// Worked example: Ampere's mma.sync accumulator for a 16x8 tile,
//
//     {register: [[0, 1], [8, 0]],
//      lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
//      warp: [], block: []} -> {dim0: 16, dim1: 8}
//
// Lane 5 = 0b00101 holds, in register 3 = 0b11, the element
//     lane bit0 [0,2] ^ lane bit2 [1,0] ^ reg bit0 [0,1] ^ reg bit1 [8,0] = (9, 3).
//
// Why F2 and why this direction
// -----------------------------
// Everything hardware does with positions (bit-field extraction, XOR swizzles, shuffles
// by lane XOR, power-of-two strides) is linear over F2, so one representation covers
// blocked, MMA, MFMA and swizzled shared-memory layouts alike, and questions such as
// "is every element held by exactly one thread" (injectivity), "which lanes hold
// copies" (free variables) and "where must element e travel" (invertAndCompose) become
// Gaussian elimination on a small bit matrix. The map goes hardware -> tensor because
// each hardware position holds exactly one value, while an element may be replicated:
// the function is total in this direction and need not be in the other.
//
// Compared with CuTe's shape:stride layouts (integer-linear maps with mixed radices),
// linear layouts cannot express non-power-of-two shapes, but they compose and invert in
// closed form and express XOR swizzles natively, which CuTe needs a separate Swizzle
// functor for.
//
// Conventions (shared/spec/linear-layouts.md §1)
// ---------------------------------------------
// * Dims are named and ordered. The first dim is the *most minor* when a multi-dim value
//   is flattened to one integer (§1.3): flat = v0 + v1*size0 + v2*size0*size1 + ...
//   Note that the out-dim "dim0" is the tensor's slowest dim in row-major terms but the
//   most minor dim of the LinearLayout when it is listed first.
// * An input dim of size 2^k has exactly k bases; an empty list means size 1.
// * Every out-dim has a power-of-two size and every basis entry is below it.
// * Values are immutable; every transformation returns a new layout.
//
// Canonical text notation (ToString / Parse round-trip):
//
//     {register: [[0, 1], [8, 0]], lane: [[1, 0]], warp: [], block: []} -> {dim0: 16, dim1: 8}
//
// In-dims with their bases in order, then out-dims with their sizes in order. One basis
// entry per out-dim, in out-dim order.
//
// Semantics follow Triton 3.6.0's LinearLayout exactly (including the 2025 least-squares
// invertAndCompose); shared/spec/linear-layouts.md is the reference.
#ifndef WARPCHECK_SIM_LAYOUT_LINEAR_LAYOUT_H_
#define WARPCHECK_SIM_LAYOUT_LINEAR_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::layout {

class LinearLayout {
 public:
  // One basis vector: one entry per out-dim, in out-dim order.
  using Basis = std::vector<int32_t>;
  // Ordered in-dims, each with its bases (bit 0 first).
  using BasesT = std::vector<std::pair<std::string, std::vector<Basis>>>;
  // Ordered out-dims with their sizes.
  using OutDimsT = std::vector<std::pair<std::string, int32_t>>;
  // A (dim name, value) tuple, used for inputs and outputs of Apply.
  using Point = std::vector<std::pair<std::string, int32_t>>;

  // The layout with no in-dims and no out-dims; the identity of operator*.
  LinearLayout() = default;

  // ---- Named constructors (trusted input: preconditions abort) ----------------------

  // Ensures: result has no dims.
  [[nodiscard]] static LinearLayout Empty() { return LinearLayout(); }

  // Requires: size is 0 or a power of two.
  // Ensures: size == 0 -> Empty(); otherwise bases [[1],[2],...,[size/2]], out size
  //          `size`; surjective and injective.
  [[nodiscard]] static LinearLayout Identity1D(int32_t size, absl::string_view in_dim,
                                               absl::string_view out_dim);

  // Requires: size is 0 or a power of two; out_size a power of two.
  // Ensures: size == 0 -> Empty(); otherwise log2(size) zero bases, out size out_size.
  [[nodiscard]] static LinearLayout Zeros1D(int32_t size, absl::string_view in_dim,
                                            absl::string_view out_dim,
                                            int32_t out_size = 1);

  // Requires: size and stride powers of two (size may be 0).
  // Ensures: bases stride*2^i, out size stride*size; surjective iff stride == 1.
  [[nodiscard]] static LinearLayout Strided1D(int32_t size, int32_t stride,
                                              absl::string_view in_dim,
                                              absl::string_view out_dim);

  // Trusted constructor with out sizes inferred from the bases (each out size is the
  // largest "next power of two strictly greater than an entry", at least 1).
  // Requires: bases valid (see Validate) and the result surjective.
  LinearLayout(BasesT bases, const std::vector<std::string>& out_dim_names);

  // Trusted constructor with explicit out sizes.
  // Requires: bases valid (see Validate); surjective when require_surjective.
  LinearLayout(BasesT bases, OutDimsT out_dims, bool require_surjective);

  // Untrusted input: same as the constructors above but returns InvalidArgument with a
  // message naming the offending dim/basis instead of aborting.
  [[nodiscard]] static absl::StatusOr<LinearLayout> Create(
      BasesT bases, const std::vector<std::string>& out_dim_names);
  [[nodiscard]] static absl::StatusOr<LinearLayout> Create(BasesT bases, OutDimsT out_dims,
                                                           bool require_surjective);

  // Parses the canonical text notation (see the header essay).
  // Ensures: Parse(l.ToString()) == l for every layout l.
  [[nodiscard]] static absl::StatusOr<LinearLayout> Parse(absl::string_view text);

  // ---- Observers --------------------------------------------------------------------

  const BasesT& bases() const { return bases_; }
  const OutDimsT& out_dims() const { return out_dims_; }

  int num_in_dims() const { return static_cast<int>(bases_.size()); }
  int num_out_dims() const { return static_cast<int>(out_dims_.size()); }
  std::vector<std::string> InDimNames() const;
  std::vector<std::string> OutDimNames() const;
  bool HasInDim(absl::string_view d) const;
  bool HasOutDim(absl::string_view d) const;

  // Requires: HasInDim(d). Ensures: the number of bases of d (log2 of its size).
  int InDimSizeLog2(absl::string_view d) const;
  int32_t InDimSize(absl::string_view d) const { return int32_t{1} << InDimSizeLog2(d); }
  // Requires: HasOutDim(d).
  int OutDimSizeLog2(absl::string_view d) const;
  int32_t OutDimSize(absl::string_view d) const;
  // Sums over all dims (log2) and products (sizes).
  int TotalInDimSizeLog2() const;
  int TotalOutDimSizeLog2() const;
  int64_t TotalInDimSize() const { return int64_t{1} << TotalInDimSizeLog2(); }
  int64_t TotalOutDimSize() const { return int64_t{1} << TotalOutDimSizeLog2(); }

  // Requires: HasInDim(in_dim), 0 <= pos < InDimSizeLog2(in_dim).
  const Basis& GetBasis(absl::string_view in_dim, int pos) const;
  // Requires: also HasOutDim(out_dim).
  int32_t GetBasis(absl::string_view in_dim, int pos, absl::string_view out_dim) const;

  // Ensures: the rank of the matrix view (§1.3) over F2.
  int Rank() const;
  // Ensures: true iff Rank() == TotalOutDimSizeLog2(). Cached at construction.
  bool IsSurjective() const { return surjective_; }
  // Ensures: true iff Rank() == TotalInDimSizeLog2().
  bool IsInjective() const;
  // Ensures: IsSurjective() && TotalInDimSizeLog2() == TotalOutDimSizeLog2().
  bool IsInvertible() const;

  // Per in-dim bit mask of free (non-pivot) input bits after RREF (§1.5.14), in in-dim
  // order. Ensures: all masks zero iff IsInjective().
  std::vector<std::pair<std::string, int32_t>> GetFreeVariableMasks() const;

  // Ensures: the XOR of bases selected by the bits of the given inputs (§1.3); bits at
  //          or above an in-dim's size are ignored; output in out-dim order.
  // Requires: the given names are exactly this layout's in-dims (any order).
  Point Apply(const Point& ins) const;
  // Flat variant: input flattened over in-dims (first dim = low bits), output flattened
  // over out-dims (first dim = low bits).
  int64_t ApplyFlat(int64_t flat_in) const;

  // Ensures: every basis of sublayout(ins, outs) is zero.
  bool SublayoutIsZero(const std::vector<std::string>& ins,
                       const std::vector<std::string>& outs) const;
  // Ensures: the square sublayout on dims (same names in and out, same sizes) is the
  // identity, and no other in-dim reaches these out-dims and these in-dims reach no
  // other out-dim (§1.5.17). False when a listed dim is not both an in-dim and an
  // out-dim (Triton aborts there). As in Triton, the identity check flattens the listed
  // dims in this layout's in-dim and out-dim orders, so those orders must agree.
  bool IsTrivialOver(const std::vector<std::string>& dims) const;

  // Largest 2^m such that 2^m consecutive values of the first in-dim map to 2^m
  // consecutive values of the first out-dim (§1.5.18).
  int32_t GetNumConsecutiveInOut() const;

  // ---- Transformations ---------------------------------------------------------------

  // Requires: order is a permutation of InDimNames(). Ensures: only the in-dim order
  // changes.
  [[nodiscard]] LinearLayout TransposeIns(const std::vector<std::string>& order) const;
  // Requires: order is a permutation of OutDimNames(). Ensures: out-dims reordered and
  // every basis permuted to match; sizes follow their dims.
  [[nodiscard]] LinearLayout TransposeOuts(const std::vector<std::string>& order) const;

  // Requires: sizes powers of two, product == TotalInDimSize().
  // Ensures: all bases concatenated in in-dim order and cut into the new dims (§1.5.6).
  [[nodiscard]] LinearLayout ReshapeIns(const OutDimsT& new_in_dims) const;
  // Requires: sizes powers of two, product == TotalOutDimSize().
  // Ensures: every basis flattened (first out-dim = low bits) and split with mixed radix
  //          over the new dims (§1.5.7).
  [[nodiscard]] LinearLayout ReshapeOuts(const OutDimsT& new_out_dims) const;
  // Ensures: one in-dim named like the first in-dim (no-op without in-dims).
  [[nodiscard]] LinearLayout FlattenIns() const;
  // Ensures: one out-dim named like the first out-dim (no-op without out-dims).
  [[nodiscard]] LinearLayout FlattenOuts() const;

  // Ensures: only the listed in-dims and out-dims are kept, in this layout's order; out
  //          sizes unchanged; surjectivity not required (§1.5.8).
  [[nodiscard]] LinearLayout Sublayout(const std::vector<std::string>& ins,
                                       const std::vector<std::string>& outs) const;

  // Requires: identical out-dims (names, order, sizes).
  // Ensures: this layout's in-dims followed by other's.
  [[nodiscard]] LinearLayout ConcatIns(const LinearLayout& other) const;
  // Requires: identical in-dims (names, order, sizes).
  // Ensures: each basis is this one's vector followed by other's; out-dims concatenated.
  [[nodiscard]] LinearLayout ConcatOuts(const LinearLayout& other) const;

  // Direct sum, this = inner/minor, other = outer (§1.5.10).
  // Ensures: dims merged by Supremum; log2 sizes add; other's entries shifted left by
  //          this layout's log2 out size of the same dim; associative up to the order
  //          of dims (Supremum itself is not associative, as in Triton); Empty() is
  //          the identity; surjective if both factors are.
  friend LinearLayout operator*(const LinearLayout& inner, const LinearLayout& outer);
  LinearLayout& operator*=(const LinearLayout& outer) { return *this = *this * outer; }

  // The function outer∘this: apply this layout, then `outer` (§1.5.11).
  // Requires: set of this->OutDimNames() == set of outer.InDimNames(), and
  //           OutDimSize(o) <= outer.InDimSize(o) for every such o.
  // Ensures: result(x) == outer.Apply(this->Apply(x)); in-dims of this, out-dims (and
  //          sizes) of outer.
  [[nodiscard]] LinearLayout Compose(const LinearLayout& outer) const;

  // C such that this(x) == outer(C(x)) for all x (§1.5.12), with Triton 3.6's choice of
  // C: identity on in-dims whose sublayouts agree (same bases and every out size equal,
  // so no dim qualifies when any out size differs), least squares with free variables
  // 0 on the rest.
  // Requires: same out-dim set; outer.OutDimSize(o) >= OutDimSize(o); after setting
  //           the identity dims aside, both layouts have in-dims left or neither has
  //           (Triton asserts this); the image of this layout's remaining dims lies in
  //           the image of outer's remaining dims (true when the remaining part of
  //           outer is surjective).
  // Ensures: outer.Compose-able: C.Compose(outer) agrees with *this on every input;
  //          C has this layout's in-dims and outer's in-dims (with outer's sizes) as
  //          out-dims.
  [[nodiscard]] LinearLayout InvertAndCompose(const LinearLayout& outer) const;
  // Same, but returns FailedPrecondition instead of aborting when the requirements do
  // not hold (for layouts that came from user input).
  [[nodiscard]] absl::StatusOr<LinearLayout> TryInvertAndCompose(
      const LinearLayout& outer) const;

  // Requires: IsInvertible(). Ensures: result.Compose(*this) is the identity.
  [[nodiscard]] LinearLayout Invert() const;
  // Identity-on-out-dims.InvertAndCompose(*this).
  // Requires: IsSurjective() and the InvertAndCompose requirements (they fail only when
  //           an in-dim named like an out-dim has exactly the identity sublayout while
  //           other in-dims remain).
  // Ensures: this->Apply(Pseudoinvert().Apply(y)) == y for every y in the image.
  [[nodiscard]] LinearLayout Pseudoinvert() const;

  // Ensures: all-zero bases of in_dim removed (the dim shrinks); out sizes unchanged;
  //          no-op when there is no such in-dim.
  [[nodiscard]] LinearLayout RemoveZeroBasesAlongDim(absl::string_view in_dim) const;
  // Requires: the dim exists and has size 1. Ensures: the dim is removed.
  [[nodiscard]] LinearLayout UnsqueezeIn(absl::string_view in_dim) const;
  [[nodiscard]] LinearLayout UnsqueezeOut(absl::string_view out_dim) const;

  // If IsTrivialOver(dims): the sublayout with those dims removed; else nullopt.
  [[nodiscard]] std::optional<LinearLayout> Quotient(
      const std::vector<std::string>& dims) const;

  // Ensures: equality per §1.4 (dim names, order, bases, out sizes).
  friend bool operator==(const LinearLayout& a, const LinearLayout& b);
  friend bool operator!=(const LinearLayout& a, const LinearLayout& b) { return !(a == b); }
  bool EqualIgnoringOutDimSizes(const LinearLayout& other) const;

  // Canonical text notation; see the header essay.
  std::string ToString() const;
  friend std::ostream& operator<<(std::ostream& os, const LinearLayout& l) {
    return os << l.ToString();
  }

  // Ensures: OkStatus iff every invariant of §1.1 holds (and surjectivity when
  //          require_surjective); otherwise InvalidArgument naming the dim and basis.
  static absl::Status Validate(const BasesT& bases, const OutDimsT& out_dims,
                               bool require_surjective);

 private:
  // Validate, and the rank of the bases into *rank when rank is not null. Every
  // constructor and Create check once through here, so a layout's rank is computed once
  // (Create then the constructor used to compute it three times).
  static absl::Status Check(const BasesT& bases, const OutDimsT& out_dims,
                            bool require_surjective, int* rank);
  // Requires: Check(bases, out_dims, ..., &rank) was OK.
  struct Checked {};
  LinearLayout(BasesT bases, OutDimsT out_dims, int rank, Checked);

  BasesT bases_;
  OutDimsT out_dims_;
  bool surjective_ = true;
};

// Declared again at namespace scope so that [[nodiscard]] applies (gcc ignores
// attributes on friend declarations).
[[nodiscard]] LinearLayout operator*(const LinearLayout& inner,
                                     const LinearLayout& outer);

// C with B * C == A (§1.5.16), or nullopt.
std::optional<LinearLayout> DivideLeft(const LinearLayout& a, const LinearLayout& b);
// C with C * B == A, or nullopt.
std::optional<LinearLayout> DivideRight(const LinearLayout& a, const LinearLayout& b);

// Order-preserving merge of two dim-name lists, biased toward x (§1.6).
std::vector<std::string> Supremum(const std::vector<std::string>& x,
                                  const std::vector<std::string>& y);

// Permutes or drops the bases of one in-dim (§1.5.19): the result's bases of in_dim are
// [bases[perm[0]], bases[perm[1]], ...].
class ColumnAction {
 public:
  // Requires: every entry of perm in [0, in_size_log2).
  ColumnAction(std::vector<int32_t> perm, std::string in_dim, int in_size_log2);
  bool IsIdentity() const;
  // Requires: layout.InDimSizeLog2(in_dim) == in_size_log2.
  [[nodiscard]] LinearLayout Apply(const LinearLayout& layout) const;
  // Applies the same permutation to per-register values (values.size() ==
  // 2^in_size_log2): result[j] = values[index whose bits are permuted by perm].
  template <typename T>
  std::vector<T> Apply(const std::vector<T>& values) const;
  const std::vector<int32_t>& perm() const { return perm_; }
  std::string ToString() const;

 private:
  std::vector<int32_t> perm_;
  std::string in_dim_;
  int in_size_log2_;
};

template <typename T>
std::vector<T> ColumnAction::Apply(const std::vector<T>& values) const {
  std::vector<T> out(size_t{1} << perm_.size());
  for (size_t j = 0; j < out.size(); ++j) {
    size_t src = 0;
    for (size_t b = 0; b < perm_.size(); ++b) {
      if ((j >> b) & 1) src |= size_t{1} << perm_[b];
    }
    out[j] = values[src];
  }
  return out;
}

}  // namespace warpcheck::sim::layout

#endif  // WARPCHECK_SIM_LAYOUT_LINEAR_LAYOUT_H_
