// warpcheck::verify::layout — Z3 proofs of shared-memory layout properties over
// parameter families (`warpcheck prove layout`).
//
// What is proven
// --------------
// A shared encoding E with parameters p (vec, perPhase, maxPhase, swizzle bytes, element
// bits, the tensor shape) defines, through Triton 3.6's toLinearLayout, a map
//
//     L_p : offset (x block) -> element (dim0, dim1, ...)
//
// (sim/layout/encoding.h). For a *family* — every parameter a range — this module
// decides, for every point p of the family's box:
//
//   injective           no two offsets hold one element (query `injective`:
//                       o1 != o2, L(o1) == L(o2); unsat = proof)
//   surjective          every element has an offset (query `surjective`: an element e
//                       with L(R(e)) != e for a candidate right inverse R; unsat = proof.
//                       R is exact where the encoding gives it; a sat answer is never a
//                       violation by itself — the smallest missed element is found by
//                       enumeration, and a disagreement is an Internal error)
//   bijective           both
//   bank-conflict-free  for a named access (v4, ldmatrix, stmatrix; README.md defines
//                       exactly which lane reads which elements): the layout is
//                       bijective, every lane's 16 bytes are one aligned contiguous vector
//                       of shared memory (query `vector`), and no bank serves two
//                       distinct words in one lane group (query `conflict`, the wavefront
//                       rule of sim/bank: 16 bytes per lane -> groups of 8 lanes; each
//                       8x16-byte ldmatrix/stmatrix matrix one group).
//
// How the encodings become terms
// ------------------------------
// Everything is a 32-bit bit-vector term (offsets, coordinates, addresses): the maps are
// bit fields and XOR swizzles, which bit-vectors state exactly.
//
// * swizzled_shared and amd_rotating_shared (rank 2, one CTA): *symbolic parameters*.
//   Each power-of-two parameter is its log2, a bit-vector variable bounded by its range,
//   so one query covers the whole box. For powers of two Triton's per-row-bit basis
//   (vec * ((2^i / perPhase) % maxPhase)) % numCols XORs together to the closed form
//       col' = col ^ ((((row >> log pp) & (mp - 1)) << log vec) & (numCols - 1))
//   (rotating: the phase is XORed with ((row >> (log pp + log mp)) & (mp - 1))), with
//   symbolic shift amounts. R is the closed-form inverse (row, col ^ swizzle(row)).
//   tests/verify/layout_prove_test.cc checks this term against sim/layout's
//   LinearLayout on every point of a box.
// * nvmma_shared, padded_shared, shared_linear, and swizzled points the closed form does
//   not cover (a CGA layout, rank != 2, a non-power-of-two parameter): *enumerated
//   parameters, symbolic elements*. Each point's LinearLayout (built by sim/layout) is
//   encoded basis by basis (L(o) = XOR of the bases selected by o's bits) with R its
//   inverse when it has one; the queries above run per point. nvmma's TMA-box
//   construction (min(shape, 256), reshape, transpose) has no closed form worth trusting
//   more than the code that builds it, so its parameters (swizzle bytes, element bits,
//   shape) are enumerated — a few hundred points at most.
// * padded_shared's padding (after every 2^k elements, P more) only moves addresses:
//   address(o) = o + sum_k (o >> k) * P. It enters the bank queries, not the map.
//
// Results and counterexamples
// ---------------------------
// Every sub-box is reported with how it was covered: `symbolic` (one query set for the
// box), `enumerated` (one query set per point), `open` (a query came back unknown: the
// verdict is inconclusive, never a guess) or `not_admitted` (points the encoding or the
// access rejects, e.g. a swizzle row wider than the shape; counted, not judged). A
// violation is minimised — smallest parameters first (in the family's parameter order:
// dims, then encoding parameters, then element bits), by fixing one parameter at a time
// with further queries — and then the point is enumerated concretely (sim/layout for the
// map, sim/bank for the wavefronts) to give the smallest offending offsets, elements or
// request. The printed counterexample is always that concrete one; a model the concrete
// check does not confirm is an Internal error (an encoding bug), not a result.
#ifndef WARPCHECK_VERIFY_LAYOUT_LAYOUT_PROVE_H_
#define WARPCHECK_VERIFY_LAYOUT_LAYOUT_PROVE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/layout/encoding.h"
#include "sim/layout/linear_layout.h"

namespace warpcheck::verify::layout {

enum class Property { kInjective, kSurjective, kBijective, kBankConflictFree };
enum class Access { kNone, kV4, kLdmatrix, kStmatrix };
enum class Verdict { kHolds, kViolated, kInconclusive };

// Ensures: the flag spellings ("injective", ..., "bank-conflict-free"; "v4", ...;
//          "holds", "violated", "inconclusive").
absl::string_view PropertyName(Property p);
absl::string_view AccessName(Access a);
absl::string_view VerdictName(Verdict v);
// InvalidArgument naming the accepted spellings.
absl::StatusOr<Property> ParseProperty(absl::string_view text);
absl::StatusOr<Access> ParseAccess(absl::string_view text);

// A parameter range: the powers of two in [lo, hi] (lo, hi powers of two; lo == 0 adds
// 0 first, as for nvmma's swizzle bytes), or the one value lo when lo == hi.
struct Range {
  int64_t lo = 1;
  int64_t hi = 1;
  // Ensures: the values in increasing order.
  std::vector<int64_t> Values() const;
  // Ensures: "lo" or "lo..hi".
  std::string ToString() const;
};

// Parses "V" or "A..B" (A <= B, both powers of two (or A == 0) when they differ, within
// [min, max]). InvalidArgument "<what>: '<text>' ..., and why".
absl::StatusOr<Range> ParseRange(absl::string_view what, absl::string_view text,
                                 int64_t max, int64_t min = 1);

// One named parameter of a family. Names are the flag names: dim0, dim1, ..., vec,
// perPhase, maxPhase, swizzle-bytes, element-bits.
struct Param {
  std::string name;
  Range range;
};

// A family of shared layouts: the attribute with some of its parameters replaced by
// ranges. Build it with MakeFamily, which checks which parameters the encoding has.
struct Family {
  sim::layout::EncodingPtr encoding;
  std::vector<Param> params;  // dims first, then encoding parameters, then element-bits
};

// Requires: `encoding` non-null.
// Ensures: the family of `encoding` over `shape` (one range per dim) with `overrides`
//          (name -> range) replacing the attribute's own values. element-bits is a
//          parameter for the bank property (default 16, nvmma: its elementBitWidth) and
//          for nvmma (where it is part of the layout); otherwise absent.
//          InvalidArgument: not a shared encoding, a shape of the wrong rank, an
//          override the encoding does not have (e.g. vec for nvmma_shared).
absl::StatusOr<Family> MakeFamily(sim::layout::EncodingPtr encoding,
                                  const std::vector<Range>& shape,
                                  const std::vector<Param>& overrides, Property property);

// One point of a family, built.
struct Instance {
  std::vector<std::pair<std::string, int64_t>> params;  // the family's names, values
  sim::layout::EncodingPtr encoding;                    // with the point's parameters
  std::vector<int64_t> shape;
  sim::layout::LinearLayout layout;                     // toLinearLayout(encoding, shape)
  int element_bits = 16;
  int fast_dim = 0;  // the dim consecutive offsets walk along (order[0], nvmma's contig)
  std::vector<std::pair<int64_t, int64_t>> padding;  // padded_shared: (interval, pad)
};

// Ensures: the point `values` (one per family param) built, or InvalidArgument when the
//          encoding rejects it (the reason is the point's "not admitted" note).
absl::StatusOr<Instance> Instantiate(const Family& family,
                                     const std::vector<int64_t>& values);

// A concrete counterexample at one point. Elements are (dim0, dim1, ...).
struct Counterexample {
  std::vector<std::pair<std::string, int64_t>> params;
  std::vector<int64_t> shape;
  // duplicate (two offsets, one element) | missed (an element without an offset) |
  // not_vectorizable (a lane's 16 bytes are not one aligned contiguous vector) |
  // bank_conflict (two lanes of one group, one bank, two words)
  std::string kind;
  std::vector<int64_t> offsets;
  std::vector<std::vector<int64_t>> elements;
  std::vector<int32_t> lanes;       // bank properties: the lanes (ldmatrix: matrix rows)
  std::vector<int64_t> addresses;   // their byte addresses
  int64_t request = -1;             // v4: request index; ldmatrix/stmatrix: matrix index
  int64_t wavefronts = 0;           // bank_conflict: of that request (sim/bank)
  std::string text;                 // one line for people
};

// The enumeration oracle: decides `property` at one instance by enumerating every offset
// (and every request of the access) with sim/layout's map and sim/bank's wavefront
// count. Ensures: nullopt when it holds, else the smallest counterexample (smallest
// offsets / element / request first). Access applicability (shape, rank, element bits)
// must have been checked by the caller (AccessAdmits).
std::optional<Counterexample> CheckInstance(const Instance& instance, Property property,
                                            Access access);

// Ensures: OK, or InvalidArgument saying why the access does not apply at this point
//          (rank != 2, more than one CTA, element bits < 8, a row shorter than 16
//          bytes, ldmatrix/stmatrix: fewer than 8 rows).
absl::Status AccessAdmits(const Instance& instance, Access access);

struct Coverage {
  std::string box;   // "dim0=16..256 dim1=16..256 vec=1..16 ..."
  std::string mode;  // symbolic | enumerated | open | not_admitted
  int64_t points = 0;
  std::string verdict;  // holds | violated | inconclusive (empty for not_admitted)
  std::string note;     // why open / not admitted; which query
  double ms = 0;
};

struct ProveOptions {
  uint64_t rlimit = 50'000'000;  // per query (deterministic budget)
  int64_t max_points = 1 << 16;  // points a family may have (ResourceExhausted past it)
  bool symbolic = true;          // false: every point enumerated (for tests, benchmarks)
};

struct Proof {
  Verdict verdict = Verdict::kInconclusive;
  Property property = Property::kBijective;
  Access access = Access::kNone;
  std::vector<Param> family;
  std::vector<Coverage> coverage;
  std::optional<Counterexample> counterexample;
  int64_t points = 0;    // in the box
  int64_t admitted = 0;  // of those, the encoding and access accept
  int64_t queries = 0;
  double solver_ms = 0;
  double wall_ms = 0;
  std::vector<std::string> notes;
};

// Requires: access != kNone iff property == kBankConflictFree.
// Ensures: the proof; InvalidArgument when no point of the box is admitted (the first
//          reason), ResourceExhausted past options.max_points, Internal when Z3 fails or
//          a model is not confirmed concretely.
absl::StatusOr<Proof> Prove(const Family& family, Property property, Access access,
                            const ProveOptions& options);

}  // namespace warpcheck::verify::layout

#endif  // WARPCHECK_VERIFY_LAYOUT_LAYOUT_PROVE_H_
