#include "sim/swizzle/swizzle2d.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::swizzle {

absl::string_view BuiltinName(Builtin fn) {
  switch (fn) {
    case Builtin::kGemm:
      return "gemm";
    case Builtin::kGemmNz:
      return "gemm_nz";
    case Builtin::kDist:
      return "dist";
    case Builtin::kDistNz:
      return "dist_nz";
  }
  return "?";
}

absl::string_view BuiltinApiName(Builtin fn) {
  switch (fn) {
    case Builtin::kGemm:
      return "gemm_swizzle2d";
    case Builtin::kGemmNz:
      return "gemm_swizzle2d_Nz";
    case Builtin::kDist:
      return "dist_swizzle2d";
    case Builtin::kDistNz:
      return "dist_swizzle2d_Nz";
  }
  return "?";
}

absl::StatusOr<Builtin> ParseBuiltin(absl::string_view name) {
  for (Builtin fn :
       {Builtin::kGemm, Builtin::kGemmNz, Builtin::kDist, Builtin::kDistNz}) {
    if (name == BuiltinName(fn) || name == BuiltinApiName(fn)) return fn;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown swizzle function '", name, "' (expected gemm, gemm_nz, dist or dist_nz)"));
}

std::string ToString(const std::vector<NamedValue>& values) {
  return absl::StrJoin(values, ", ", [](std::string* out, const NamedValue& v) {
    absl::StrAppend(out, v.name, "=", v.value);
  });
}

namespace {

constexpr int64_t kMaxRanks = int64_t{1} << 31;
// Every intermediate of the kernels is below 8·N·D (s·R <= 7·R, k·stride < N·N, ...),
// so the domain is capped well below int64's range.
constexpr int64_t kMaxDomain = int64_t{1} << 59;

absl::Status Invalid(const Swizzle2dParams& p, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(BuiltinApiName(p.fn), ": ", what));
}

}  // namespace

absl::Status Swizzle2dParams::Validate() const {
  const bool gemm = !IsDist(fn);
  // Parameters the function does not take must keep their defaults.
  auto unused = [&](absl::string_view name, int64_t value, int64_t def,
                    absl::string_view why) -> absl::Status {
    if (value == def) return absl::OkStatus();
    return Invalid(*this,
                   absl::StrCat(name, " = ", value, " does not apply (", why, ")"));
  };
  if (gemm) {
    RETURN_IF_ERROR(unused("rank_size", rank_size, 1, "gemm swizzles have no ranks"));
    RETURN_IF_ERROR(
        unused("comm_npu_split", comm_npu_split, 1, "gemm swizzles have no ranks"));
    RETURN_IF_ERROR(
        unused("comm_data_split", comm_data_split, 1, "gemm swizzles have no ranks"));
  } else {
    RETURN_IF_ERROR(unused("swizzle_offset", swizzle_offset, 7,
                           "dist swizzles group ranks by comm_npu_split instead"));
  }
  if (fn == Builtin::kGemmNz) {
    RETURN_IF_ERROR(
        unused("swizzle_direction", direction, 1, "gemm_swizzle2d_Nz is direction 1"));
  }
  if (fn == Builtin::kDistNz) {
    RETURN_IF_ERROR(
        unused("swizzle_direction", direction, 1, "dist_swizzle2d_Nz is direction 1"));
    RETURN_IF_ERROR(unused("comm_data_split", comm_data_split, 1,
                           "dist_swizzle2d_Nz takes no comm_data_split"));
  }
  for (auto [name, v] : {std::pair<const char*, int64_t>{"rows", shape.rows},
                         {"cols", shape.cols},
                         {"tile_rows", shape.tile_rows},
                         {"tile_cols", shape.tile_cols}}) {
    if (v <= 0) {
      return Invalid(*this, absl::StrCat(name, " = ", v,
                                         " must be positive (shapes are element counts, "
                                         "and an empty shape has no tiles to schedule)"));
    }
  }
  if (gemm && (swizzle_offset < 1 || swizzle_offset > 7)) {
    return Invalid(*this, absl::StrCat("swizzle_offset = ", swizzle_offset,
                                       " is outside [1, 7] (the group width the API "
                                       "allows)"));
  }
  if (direction != 0 && direction != 1) {
    return Invalid(*this, absl::StrCat("swizzle_direction = ", direction,
                                       " must be 0 (Zn: group rows) or 1 (Nz: group "
                                       "columns)"));
  }
  if (!gemm) {
    if (rank_size < 1 || rank_size > kMaxRanks) {
      return Invalid(*this,
                     absl::StrCat("rank_size = ", rank_size, " is outside [1, 2^31]",
                                  " (the number of ranks to schedule)"));
    }
    if (comm_npu_split < 1) {
      return Invalid(*this, absl::StrCat("comm_npu_split = ", comm_npu_split,
                                         " must be at least 1 (ranks per group)"));
    }
    if (rank_size % comm_npu_split != 0) {
      return Invalid(
          *this, absl::StrCat("rank_size = ", rank_size,
                              " is not a multiple of comm_npu_split = ", comm_npu_split,
                              " (ranks are interleaved in groups of "
                              "comm_npu_split, which must divide them)"));
    }
    if (comm_data_split < 1) {
      return Invalid(*this, absl::StrCat("comm_data_split = ", comm_data_split,
                                         " must be at least 1 (data tiles per group)"));
    }
  }
  const int64_t R = shape.row_tiles(), C = shape.col_tiles();
  int64_t tiles, domain;
  if (__builtin_mul_overflow(R, C, &tiles) ||
      __builtin_mul_overflow(tiles, gemm ? int64_t{1} : rank_size, &domain) ||
      domain > kMaxDomain) {
    return Invalid(
        *this, absl::StrCat("the domain ", gemm ? "" : "N·",
                            "R·C = ", gemm ? "" : absl::StrCat(rank_size, "·"), R, "·", C,
                            " exceeds 2^59 (intermediate values would "
                            "overflow int64)"));
  }
  return absl::OkStatus();
}

int64_t Swizzle2dParams::DomainSize() const {
  int64_t tiles = shape.row_tiles() * shape.col_tiles();
  return IsDist(fn) ? tiles * rank_size : tiles;
}

std::vector<NamedValue> Swizzle2dParams::Named() const {
  std::vector<NamedValue> out;
  if (shape.is_tile_counts()) {
    out.push_back({"row_tiles", shape.rows});
    out.push_back({"col_tiles", shape.cols});
  } else {
    out.push_back({"rows", shape.rows});
    out.push_back({"cols", shape.cols});
    out.push_back({"tile_rows", shape.tile_rows});
    out.push_back({"tile_cols", shape.tile_cols});
  }
  switch (fn) {
    case Builtin::kGemm:
      out.push_back({"swizzle_offset", swizzle_offset});
      out.push_back({"swizzle_direction", direction});
      break;
    case Builtin::kGemmNz:
      out.push_back({"swizzle_offset", swizzle_offset});
      break;
    case Builtin::kDist:
      out.push_back({"rank_size", rank_size});
      out.push_back({"comm_npu_split", comm_npu_split});
      out.push_back({"comm_data_split", comm_data_split});
      out.push_back({"swizzle_direction", direction});
      break;
    case Builtin::kDistNz:
      out.push_back({"rank_size", rank_size});
      out.push_back({"comm_npu_split", comm_npu_split});
      break;
  }
  return out;
}

std::string Swizzle2dParams::ToString() const {
  return absl::StrCat(BuiltinName(fn), "(", swizzle::ToString(Named()), ")");
}

GemmKernel GemmKernel::Make(const Swizzle2dParams& params) {
  WARPCHECK_DCHECK(!IsDist(params.fn));
  GemmKernel k;
  k.R = params.shape.row_tiles();
  k.C = params.shape.col_tiles();
  k.s = params.swizzle_offset;
  k.direction = params.fn == Builtin::kGemmNz ? 1 : params.direction;
  if (k.direction == 1) {
    k.groups = (k.C + k.s - 1) / k.s;
    k.span = k.s * k.R;
  } else {
    k.groups = (k.R + k.s - 1) / k.s;
    k.span = k.s * k.C;
  }
  return k;
}

DistKernel DistKernel::Make(const Swizzle2dParams& params) {
  WARPCHECK_DCHECK(IsDist(params.fn));
  DistKernel k;
  k.R = params.shape.row_tiles();
  k.C = params.shape.col_tiles();
  k.D = k.R * k.C;
  k.N = params.rank_size;
  k.p = params.comm_npu_split;
  k.shipped_nz = params.fn == Builtin::kDistNz;
  k.q = k.shipped_nz ? 1 : std::min(params.comm_data_split, k.D);
  k.direction = k.shipped_nz ? 1 : params.direction;
  k.stride = k.N / k.p;
  if (k.direction == 1) {
    k.groups = (k.N + k.p - 1) / k.p;
    k.span = k.p * k.D;
  } else {
    k.groups = (k.D + k.q - 1) / k.q;
    k.span = k.q * k.N;
  }
  return k;
}

absl::StatusOr<Swizzle2dResult> Apply(const Swizzle2dParams& params, int64_t iter) {
  RETURN_IF_ERROR(params.Validate());
  const int64_t domain = params.DomainSize();
  if (iter < 0 || iter >= domain) {
    const int64_t R = params.shape.row_tiles(), C = params.shape.col_tiles();
    std::string size = IsDist(params.fn)
                           ? absl::StrCat("N·R·C = ", params.rank_size, "·", R, "·", C)
                           : absl::StrCat("R·C = ", R, "·", C);
    return Invalid(params,
                   absl::StrCat("iter = ", iter, " is outside the domain [0, ", domain,
                                ") (", size, "; every iteration id must name one tile)"));
  }
  Swizzle2dResult r;
  if (IsDist(params.fn)) {
    DistKernel::Make(params).Map(iter, &r.row, &r.col, &r.rank);
  } else {
    GemmKernel::Make(params).Map(iter, &r.row, &r.col);
  }
  r.comm_row_size = TailSize(params.shape.rows, params.shape.tile_rows, r.row);
  r.comm_col_size = TailSize(params.shape.cols, params.shape.tile_cols, r.col);
  return r;
}

absl::StatusOr<GemmTile> GemmSwizzle2d(int64_t iter, int64_t rows, int64_t cols,
                                       int64_t tile_rows, int64_t tile_cols,
                                       int64_t swizzle_offset, int64_t direction) {
  Swizzle2dParams p{.fn = Builtin::kGemm,
                    .shape = {rows, cols, tile_rows, tile_cols},
                    .swizzle_offset = swizzle_offset,
                    .direction = direction};
  ASSIGN_OR_RETURN(Swizzle2dResult r, Apply(p, iter));
  return GemmTile{r.row, r.col};
}

absl::StatusOr<GemmTile> GemmSwizzle2dNz(int64_t iter, int64_t rows, int64_t cols,
                                         int64_t tile_rows, int64_t tile_cols,
                                         int64_t swizzle_offset) {
  Swizzle2dParams p{.fn = Builtin::kGemmNz,
                    .shape = {rows, cols, tile_rows, tile_cols},
                    .swizzle_offset = swizzle_offset};
  ASSIGN_OR_RETURN(Swizzle2dResult r, Apply(p, iter));
  return GemmTile{r.row, r.col};
}

absl::StatusOr<DistTile> DistSwizzle2d(int64_t iter, int64_t rank_size, int64_t rows,
                                       int64_t cols, int64_t tile_rows, int64_t tile_cols,
                                       int64_t comm_npu_split, int64_t comm_data_split,
                                       int64_t direction) {
  Swizzle2dParams p{.fn = Builtin::kDist,
                    .shape = {rows, cols, tile_rows, tile_cols},
                    .direction = direction,
                    .rank_size = rank_size,
                    .comm_npu_split = comm_npu_split,
                    .comm_data_split = comm_data_split};
  ASSIGN_OR_RETURN(Swizzle2dResult r, Apply(p, iter));
  return DistTile{r.row, r.col, r.rank, r.comm_row_size, r.comm_col_size};
}

absl::StatusOr<DistTile> DistSwizzle2dNz(int64_t iter, int64_t rank_size, int64_t rows,
                                         int64_t cols, int64_t tile_rows,
                                         int64_t tile_cols, int64_t comm_npu_split) {
  Swizzle2dParams p{.fn = Builtin::kDistNz,
                    .shape = {rows, cols, tile_rows, tile_cols},
                    .rank_size = rank_size,
                    .comm_npu_split = comm_npu_split};
  ASSIGN_OR_RETURN(Swizzle2dResult r, Apply(p, iter));
  return DistTile{r.row, r.col, r.rank, r.comm_row_size, r.comm_col_size};
}

}  // namespace warpcheck::sim::swizzle
