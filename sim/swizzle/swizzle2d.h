// swizzle2d: the tile-scheduling maps of Triton-distributed's Ascend backend
// (`gemm_swizzle2d`, `gemm_swizzle2d_Nz`, `dist_swizzle2d`, `dist_swizzle2d_Nz`),
// exactly as shared/spec/swizzle2d.md defines them.
//
// Overview
// --------
// A kernel that computes or communicates a matrix tile by tile runs a loop (or a grid)
// over an iteration id `iter` and asks a swizzle which tile to handle next. The data
// matrix of rows x cols elements is cut into tiles of tile_rows x tile_cols, giving a
// grid of R = cdiv(rows, tile_rows) by C = cdiv(cols, tile_cols) tiles (edge tiles may
// be partial). The order matters for cache reuse (gemm) and for link contention
// (dist, which also picks a destination rank per tile); correctness needs every tile
// visited exactly once. sim/swizzle/enumerate.h checks that; verify/ proves it.
//
// Worked example (the spec's): R = 3, C = 10, swizzle_offset s = 7, direction 1 ("Nz").
// Columns are grouped s at a time; each group is walked row by row, and every other
// group bottom-up. The last group is only C - 7 = 3 wide. Cell = iteration id:
//
//                col 0   1   2   3   4   5   6 |  7   8   9
//         row 0:     0   1   2   3   4   5   6 | 27  28  29
//         row 1:     7   8   9  10  11  12  13 | 24  25  26
//         row 2:    14  15  16  17  18  19  20 | 21  22  23
//                  group g = 0 (w = 7)          | g = 1, odd: rows reversed (w = 3)
//
// Direction 0 ("Zn") is the transpose: rows grouped s at a time, columns walked, and
// every odd group right-to-left. dist_swizzle2d walks N·D (rank, data tile) pairs and
// rotates the rank per tile so that different tiles start at different ranks.
//
// Definitions (spec §gemm_swizzle2d, §dist_swizzle2d; D = R·C, d = row·C + col):
//   gemm, direction 1: G = cdiv(C, s); g = iter // (s·R); j = iter % (s·R);
//                      w = s if g < G − 1 else C − s·g;
//                      row = j // w, col = g·s + j % w; row = R − 1 − row if g is odd.
//   gemm, direction 0: the same with (R, row) and (C, col) exchanged.
//   dist, direction 1: stride = N // p; G = cdiv(N, p); g = iter // (p·D);
//                      j = iter % (p·D); t = p if g < G − 1 else N − p·g;
//                      d = j // t; k = g·p + j % t; rank = (π(k) + d) mod N,
//                      π(k) = (k·stride mod N) + (k·stride) // N.
//   dist, direction 0: G = cdiv(D, q); g = iter // (q·N); j = iter % (q·N);
//                      t = q if g < G − 1 else D − q·g; d = g·q + j % t; k = j // t;
//                      rank = (π(k) + d) mod N.        (the spec's own definition)
//   dist_Nz:           direction 1, q = 1, but with the shipped remap
//                      π'(k) = ((k·stride) mod stride) + (k·stride) // N — the first term
//                      is always 0, so π'(k) = k // p and ranks collide whenever p > 1.
//   row = d // C, col = d % C; comm_row_size = min(rows − row·tile_rows, tile_rows), and
//   comm_col_size likewise.
//
// Implementation note: with q ≥ D every iteration falls in group 0 with t = D, which is
// what q = D gives too; the kernel uses min(q, D) so that q·N cannot overflow.
//
// Why these signatures
// --------------------
// The functions named after the API (GemmSwizzle2d, ...) take the API's arguments in
// the API's order, so a test reads like the Python call. Everything else takes one
// Swizzle2dParams, which names every parameter the way the CLI flags do
// (shared/design/CLI.md: --swizzle-offset, --rank-size, ...).
#ifndef WARPCHECK_SIM_SWIZZLE_SWIZZLE2D_H_
#define WARPCHECK_SIM_SWIZZLE_SWIZZLE2D_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace warpcheck::sim::swizzle {

// The four built-in maps.
enum class Builtin : uint8_t { kGemm, kGemmNz, kDist, kDistNz };

// Ensures: "gemm", "gemm_nz", "dist", "dist_nz" (the CLI's --fn values).
absl::string_view BuiltinName(Builtin fn);
// Ensures: "gemm_swizzle2d", "gemm_swizzle2d_Nz", "dist_swizzle2d", "dist_swizzle2d_Nz".
absl::string_view BuiltinApiName(Builtin fn);
// Ensures: the built-in with that BuiltinName or BuiltinApiName, else InvalidArgument.
absl::StatusOr<Builtin> ParseBuiltin(absl::string_view name);
inline bool IsDist(Builtin fn) { return fn == Builtin::kDist || fn == Builtin::kDistNz; }

// A parameter by name, as the CLI's JSON and the counterexamples spell it.
struct NamedValue {
  std::string name;
  int64_t value = 0;
  friend bool operator==(const NamedValue&, const NamedValue&) = default;
};
// Ensures: "name=value, name=value".
std::string ToString(const std::vector<NamedValue>& values);

// The data shape and the tile shape (element counts).
struct Shape2d {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t tile_rows = 1;
  int64_t tile_cols = 1;

  // A grid of row_tiles x col_tiles whole tiles of one element each.
  [[nodiscard]] static Shape2d FromTileCounts(int64_t row_tiles, int64_t col_tiles) {
    return Shape2d{row_tiles, col_tiles, 1, 1};
  }
  // Requires: rows, tile_rows > 0.  Ensures: cdiv(rows, tile_rows) (= R).
  int64_t row_tiles() const { return (rows - 1) / tile_rows + 1; }
  // Requires: cols, tile_cols > 0.  Ensures: cdiv(cols, tile_cols) (= C).
  int64_t col_tiles() const { return (cols - 1) / tile_cols + 1; }
  // True when the shape is a plain tile grid (unit tiles): then rows = R, cols = C.
  bool is_tile_counts() const { return tile_rows == 1 && tile_cols == 1; }
};

// Every parameter of every built-in; fields a built-in does not take must keep their
// defaults (Validate says so otherwise).
struct Swizzle2dParams {
  Builtin fn = Builtin::kGemm;
  Shape2d shape = {};
  int64_t swizzle_offset = 7;   // gemm, gemm_nz: group width s, 1..7
  int64_t direction = 1;        // gemm, dist: 0 (Zn) or 1 (Nz)
  int64_t rank_size = 1;        // dist, dist_nz: N >= 1
  int64_t comm_npu_split = 1;   // dist, dist_nz: p >= 1, divides N
  int64_t comm_data_split = 1;  // dist: q >= 1

  // Ensures: OK, or InvalidArgument "<api name>: <what>, and why", e.g.
  //   "gemm_swizzle2d: swizzle_offset = 8 is outside [1, 7] (the column-group width the
  //    API allows)".
  absl::Status Validate() const;
  // Requires: Validate().ok().  Ensures: R·C (gemm) or N·R·C (dist).
  int64_t DomainSize() const;
  // Ensures: the parameters that apply to `fn`, by flag name: row_tiles, col_tiles (for
  //          a unit-tile shape) or rows, cols, tile_rows, tile_cols; then
  //          swizzle_offset, swizzle_direction (gemm); rank_size, comm_npu_split,
  //          comm_data_split, swizzle_direction (dist; only those the fn takes).
  std::vector<NamedValue> Named() const;
  // Ensures: "gemm(row_tiles=3, col_tiles=10, swizzle_offset=7, swizzle_direction=1)".
  std::string ToString() const;
};

// One result. For gemm, rank is 0 and the comm sizes are the tile's tail sizes.
struct Swizzle2dResult {
  int64_t row = 0;
  int64_t col = 0;
  int64_t rank = 0;
  int64_t comm_row_size = 0;
  int64_t comm_col_size = 0;
  friend bool operator==(const Swizzle2dResult&, const Swizzle2dResult&) = default;
};

// Requires: nothing.
// Ensures: the tile iteration `iter` handles, or InvalidArgument when the parameters
//          are invalid or iter is outside [0, DomainSize()).
absl::StatusOr<Swizzle2dResult> Apply(const Swizzle2dParams& params, int64_t iter);

// The API, argument for argument.
struct GemmTile {
  int64_t row = 0;
  int64_t col = 0;
  friend bool operator==(const GemmTile&, const GemmTile&) = default;
};
struct DistTile {
  int64_t row = 0;
  int64_t col = 0;
  int64_t rank = 0;
  int64_t comm_row_size = 0;
  int64_t comm_col_size = 0;
  friend bool operator==(const DistTile&, const DistTile&) = default;
};
absl::StatusOr<GemmTile> GemmSwizzle2d(int64_t iter, int64_t rows, int64_t cols,
                                       int64_t tile_rows, int64_t tile_cols,
                                       int64_t swizzle_offset = 7, int64_t direction = 1);
absl::StatusOr<GemmTile> GemmSwizzle2dNz(int64_t iter, int64_t rows, int64_t cols,
                                         int64_t tile_rows, int64_t tile_cols,
                                         int64_t swizzle_offset = 7);
absl::StatusOr<DistTile> DistSwizzle2d(int64_t iter, int64_t rank_size, int64_t rows,
                                       int64_t cols, int64_t tile_rows, int64_t tile_cols,
                                       int64_t comm_npu_split = 1,
                                       int64_t comm_data_split = 1,
                                       int64_t direction = 1);
absl::StatusOr<DistTile> DistSwizzle2dNz(int64_t iter, int64_t rank_size, int64_t rows,
                                         int64_t cols, int64_t tile_rows,
                                         int64_t tile_cols, int64_t comm_npu_split = 1);

// ---------------------------------------------------------------------------------------
// Kernels: the maps on tile counts, without checks, for enumeration. They compute the
// formulas above step by step (all operands are non-negative, so C++ `/` and `%` are
// the spec's floor division and remainder).

// Precomputed per parameter point.
struct GemmKernel {
  int64_t R, C, s, direction;
  int64_t groups;  // G
  int64_t span;    // s·R (direction 1) or s·C (direction 0)

  // Requires: params.Validate().ok() and params.fn is kGemm or kGemmNz.
  static GemmKernel Make(const Swizzle2dParams& params);

  // Requires: 0 <= iter < R·C.
  inline void Map(int64_t iter, int64_t* row, int64_t* col) const {
    int64_t g = iter / span;
    int64_t j = iter % span;
    if (direction == 1) {
      int64_t w = g < groups - 1 ? s : C - s * g;
      int64_t r = j / w;
      *col = g * s + j % w;
      *row = (g & 1) ? R - 1 - r : r;
    } else {
      int64_t h = g < groups - 1 ? s : R - s * g;
      int64_t c = j / h;
      *row = g * s + j % h;
      *col = (g & 1) ? C - 1 - c : c;
    }
  }
};

struct DistKernel {
  int64_t R, C, D, N, p, q, direction;
  int64_t stride;   // N // p
  int64_t groups;   // cdiv(N, p) (direction 1) or cdiv(D, q) (direction 0)
  int64_t span;     // p·D (direction 1) or q·N (direction 0)
  bool shipped_nz;  // dist_Nz's remap ((k·stride) mod stride) + (k·stride) // N

  // Requires: params.Validate().ok() and params.fn is kDist or kDistNz.
  static DistKernel Make(const Swizzle2dParams& params);

  inline int64_t Pi(int64_t k) const {
    int64_t ks = k * stride;
    return shipped_nz ? (ks % stride) + ks / N : (ks % N) + ks / N;
  }

  // Requires: 0 <= iter < N·D.
  inline void Map(int64_t iter, int64_t* row, int64_t* col, int64_t* rank) const {
    int64_t g = iter / span;
    int64_t j = iter % span;
    int64_t d, k;
    if (direction == 1) {
      int64_t t = g < groups - 1 ? p : N - p * g;
      d = j / t;
      k = g * p + j % t;
    } else {
      int64_t t = g < groups - 1 ? q : D - q * g;
      d = g * q + j % t;
      k = j / t;
    }
    *rank = (Pi(k) + d) % N;
    *row = d / C;
    *col = d % C;
  }
};

// Ensures: min(extent − index·tile, tile), the spec's tail size.
inline int64_t TailSize(int64_t extent, int64_t tile, int64_t index) {
  int64_t rest = extent - index * tile;
  return rest < tile ? rest : tile;
}

}  // namespace warpcheck::sim::swizzle

#endif  // WARPCHECK_SIM_SWIZZLE_SWIZZLE2D_H_
