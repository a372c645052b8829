#include "sim/swizzle/sweep.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::swizzle {

absl::StatusOr<ParamRange> ParamRange::Parse(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, absl::MaxSplits("..", 1));
  ParamRange r;
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a range (expected A..B or A)"));
  };
  if (!absl::SimpleAtoi(parts[0], &r.lo)) return bad();
  r.hi = r.lo;
  if (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &r.hi)) return bad();
  if (r.lo > r.hi) {
    return absl::InvalidArgumentError(absl::StrCat("range ", text, " is empty"));
  }
  return r;
}

std::string ParamRange::ToString() const {
  return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "..", hi);
}

namespace {

absl::Status SweepError(const BuiltinSweep& s, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("swizzle2d sweep of ", BuiltinName(s.fn), ": ", what));
}

// Applies the default and checks the range lies in [min, max].
absl::StatusOr<ParamRange> Resolve(const BuiltinSweep& s, absl::string_view name,
                                   const std::optional<ParamRange>& r, int64_t def,
                                   int64_t min, int64_t max, bool applies,
                                   absl::string_view why) {
  if (!r.has_value()) return ParamRange::Of(def);
  if (!applies) {
    return SweepError(s, absl::StrCat(name, " does not apply (", why, ")"));
  }
  if (r->lo > r->hi) {
    return SweepError(s, absl::StrCat(name, " range ", r->lo, "..", r->hi, " is empty"));
  }
  if (r->lo < min || r->hi > max) {
    return SweepError(
        s, absl::StrCat(name, " range ", r->ToString(), " must lie in ", min, "..", max));
  }
  return *r;
}

// (extent in tiles) -> the (shape, tile) pairs giving it, each in lexicographic order.
using ShapeGroups = std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>>;

absl::StatusOr<ShapeGroups> GroupShapes(const ParamRange& shape, const ParamRange& tile,
                                        int64_t limit) {
  if (shape.size() > limit || tile.size() > limit || shape.size() * tile.size() > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the shape ranges ", shape.ToString(), " x ", tile.ToString(),
                     " have more than ", limit, " combinations"));
  }
  ShapeGroups groups;
  for (int64_t n = shape.lo; n <= shape.hi; ++n) {
    for (int64_t t = tile.lo; t <= tile.hi; ++t) {
      groups[(n - 1) / t + 1].push_back({n, t});
    }
  }
  return groups;
}

// Shared by both sweeps: the budget and the stop-at-first-violation bookkeeping.
class Progress {
 public:
  explicit Progress(const SweepOptions& options) : options_(options) {}

  // Ensures: false (and an inconclusive result) when `domain` more iterations would
  //          exceed the budget.
  bool Admit(int64_t domain, const std::string& point) {
    if (result_.points + domain > options_.max_points) {
      result_.verdict = Verdict::kInconclusive;
      result_.reason = absl::StrCat("the budget of ", options_.max_points,
                                    " iterations ran out after ", result_.param_points,
                                    " parameter points; the next would be ", point);
      return false;
    }
    return true;
  }
  // Ensures: false when the sweep should stop (a violation).
  bool Record(const CheckResult& r) {
    result_.param_points += r.param_points;
    result_.points += r.points;
    if (r.verdict == Verdict::kViolated) {
      result_.verdict = Verdict::kViolated;
      result_.counterexample = r.counterexample;
      return false;
    }
    return true;
  }
  const CheckResult& result() const { return result_; }

 private:
  const SweepOptions& options_;
  CheckResult result_;
};

}  // namespace

absl::StatusOr<CheckResult> Sweep(const BuiltinSweep& s, const SweepOptions& options) {
  constexpr int64_t kBig = int64_t{1} << 40;
  const bool gemm = !IsDist(s.fn);
  const char* no_ranks = "gemm swizzles have no ranks";
  ASSIGN_OR_RETURN(ParamRange offset, Resolve(s, "swizzle_offset", s.swizzle_offset, 7, 1,
                                              7, gemm, "dist swizzles take no offset"));
  ASSIGN_OR_RETURN(ParamRange direction,
                   Resolve(s, "swizzle_direction", s.swizzle_direction, 1, 0, 1,
                           s.fn == Builtin::kGemm || s.fn == Builtin::kDist,
                           "the _Nz variants are direction 1"));
  ASSIGN_OR_RETURN(ParamRange ranks, Resolve(s, "rank_size", s.rank_size, 1, 1,
                                             int64_t{1} << 31, !gemm, no_ranks));
  ASSIGN_OR_RETURN(ParamRange npu, Resolve(s, "comm_npu_split", s.comm_npu_split, 1, 1,
                                           int64_t{1} << 31, !gemm, no_ranks));
  ASSIGN_OR_RETURN(ParamRange data,
                   Resolve(s, "comm_data_split", s.comm_data_split, 1, 1, kBig,
                           s.fn == Builtin::kDist, "only dist_swizzle2d takes it"));
  const bool by_counts = s.row_tiles.has_value() || s.col_tiles.has_value();
  const bool by_shapes = s.rows.has_value() || s.cols.has_value() ||
                         s.tile_rows.has_value() || s.tile_cols.has_value();
  if (by_counts && by_shapes) {
    return SweepError(s,
                      "give the grid either as row_tiles/col_tiles or as rows/cols/"
                      "tile_rows/tile_cols, not both");
  }
  if (by_counts ? !(s.row_tiles && s.col_tiles) : !(s.rows && s.cols)) {
    return SweepError(s, by_counts ? "row_tiles and col_tiles are both needed"
                                   : "the grid is missing (row_tiles/col_tiles or "
                                     "rows/cols)");
  }
  ShapeGroups row_groups, col_groups;
  if (by_counts) {
    ASSIGN_OR_RETURN(ParamRange rt,
                     Resolve(s, "row_tiles", s.row_tiles, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(ParamRange ct,
                     Resolve(s, "col_tiles", s.col_tiles, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(row_groups,
                     GroupShapes(rt, ParamRange::Of(1), options.max_param_points));
    ASSIGN_OR_RETURN(col_groups,
                     GroupShapes(ct, ParamRange::Of(1), options.max_param_points));
  } else {
    ASSIGN_OR_RETURN(ParamRange rows, Resolve(s, "rows", s.rows, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(ParamRange cols, Resolve(s, "cols", s.cols, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(ParamRange tr,
                     Resolve(s, "tile_rows", s.tile_rows, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(ParamRange tc,
                     Resolve(s, "tile_cols", s.tile_cols, 1, 1, kBig, true, ""));
    ASSIGN_OR_RETURN(row_groups, GroupShapes(rows, tr, options.max_param_points));
    ASSIGN_OR_RETURN(col_groups, GroupShapes(cols, tc, options.max_param_points));
  }
  if (static_cast<int64_t>(row_groups.size()) * static_cast<int64_t>(col_groups.size()) >
      options.max_param_points) {
    return absl::ResourceExhaustedError(
        absl::StrCat("swizzle2d sweep: ", row_groups.size(), " x ", col_groups.size(),
                     " tile grids exceed the limit of ", options.max_param_points));
  }
  // (tiles, R, C), sorted: fewest tiles first.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> grids;
  for (const auto& [R, rs] : row_groups) {
    for (const auto& [C, cs] : col_groups) {
      int64_t t;
      if (__builtin_mul_overflow(R, C, &t)) t = std::numeric_limits<int64_t>::max();
      grids.emplace_back(t, R, C);
    }
  }
  std::sort(grids.begin(), grids.end());
  RETURN_IF_ERROR(RequireValidPoint(s));

  Progress progress(options);
  Enumerator enumerator(options.check);
  for (size_t g = 0; g < grids.size();) {
    size_t end = g;
    while (end < grids.size() && std::get<0>(grids[end]) == std::get<0>(grids[g])) ++end;
    for (int64_t n = ranks.lo; n <= ranks.hi; ++n) {
      for (size_t i = g; i < end; ++i) {
        const auto& [t, R, C] = grids[i];
        for (const auto& [rows, tr] : row_groups[R]) {
          for (const auto& [cols, tc] : col_groups[C]) {
            for (int64_t so = offset.lo; so <= offset.hi; ++so) {
              for (int64_t dir = direction.lo; dir <= direction.hi; ++dir) {
                for (int64_t p = npu.lo; p <= npu.hi; ++p) {
                  if (n % p != 0) continue;
                  for (int64_t q = data.lo; q <= data.hi; ++q) {
                    Swizzle2dParams params{.fn = s.fn,
                                           .shape = {rows, cols, tr, tc},
                                           .swizzle_offset = so,
                                           .direction = dir,
                                           .rank_size = n,
                                           .comm_npu_split = p,
                                           .comm_data_split = q};
                    RETURN_IF_ERROR(params.Validate());
                    if (!progress.Admit(params.DomainSize(), params.ToString())) {
                      return progress.result();
                    }
                    ASSIGN_OR_RETURN(CheckResult r, enumerator.Check(params));
                    if (!progress.Record(r)) return progress.result();
                  }
                }
              }
            }
          }
        }
      }
    }
    g = end;
  }
  return progress.result();
}

namespace {

// The box of a spec sweep: the declared ranges with the overrides applied.
absl::StatusOr<std::vector<ParamRange>> SpecRanges(const SwizzleSpec& spec,
                                                   const SpecSweep& sweep) {
  const std::vector<const expr::Stmt*>& params = spec.params();
  const size_t n = params.size();
  std::vector<ParamRange> ranges;
  for (const expr::Stmt* p : params) ranges.push_back({p->lo, p->hi});
  for (const auto& [name, range] : sweep.ranges) {
    size_t i = 0;
    while (i < n && params[i]->name != name) ++i;
    if (i == n) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.source_name(), ": the spec has no parameter '", name, "'"));
    }
    if (range.lo > range.hi) {
      return absl::InvalidArgumentError(absl::StrCat(spec.source_name(), ": range ",
                                                     range.lo, "..", range.hi, " for '",
                                                     name, "' is empty"));
    }
    ranges[i] = range;
  }
  return ranges;
}

// The number of points of `ranges`, or nullopt past `max_points`.
std::optional<int64_t> BoxPoints(const std::vector<ParamRange>& ranges, int64_t max_points) {
  int64_t box = 1;
  for (const ParamRange& r : ranges) {
    if (__builtin_mul_overflow(box, r.size(), &box) || box > max_points) return std::nullopt;
  }
  return box;
}

// Calls visit(point, instance) for every point of `ranges` that the spec admits (its
// `require` clauses hold), the last parameter fastest, until visit returns false.
// Ensures: the spec's error for a point it cannot be instantiated at (other than a
//          failed `require`).
absl::Status ForEachAdmittedPoint(
    const SwizzleSpec& spec, const std::vector<ParamRange>& ranges,
    const std::function<bool(const std::vector<int64_t>&, const SpecInstance&)>& visit) {
  const size_t n = ranges.size();
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = ranges[i].lo;
  while (true) {
    absl::StatusOr<SpecInstance> inst = spec.InstantiateUnchecked(v);
    if (inst.ok()) {
      if (!visit(v, *inst)) return absl::OkStatus();
    } else if (!absl::IsFailedPrecondition(inst.status())) {
      return inst.status();
    }
    size_t k = n;
    while (k-- > 0) {
      if (v[k] < ranges[k].hi) {
        ++v[k];
        break;
      }
      v[k] = ranges[k].lo;
    }
    if (k == static_cast<size_t>(-1)) return absl::OkStatus();
  }
}

}  // namespace

absl::Status RequireValidPoint(const BuiltinSweep& s) {
  if (!IsDist(s.fn)) return absl::OkStatus();
  const ParamRange n = s.rank_size.value_or(ParamRange::Of(1));
  const ParamRange p = s.comm_npu_split.value_or(ParamRange::Of(1));
  if (n.lo < 1 || p.lo < 1 || n.lo > n.hi || p.lo > p.hi) return absl::OkStatus();
  // Some split d in p divides some rank count in n: a multiple of d lies in n.
  for (int64_t d = p.lo; d <= std::min(p.hi, n.hi); ++d) {
    if (n.hi / d * d >= n.lo) return absl::OkStatus();
  }
  return SweepError(
      s, absl::StrCat("no parameter point is valid: no comm_npu_split in ", p.ToString(),
                      " divides a rank_size in ", n.ToString(),
                      ", so the property would hold vacuously (0 parameter points); "
                      "widen the ranges"));
}

absl::StatusOr<std::optional<bool>> SpecBoxAdmitsAPoint(const SwizzleSpec& spec,
                                                        const SpecSweep& sweep,
                                                        int64_t max_points) {
  ASSIGN_OR_RETURN(std::vector<ParamRange> ranges, SpecRanges(spec, sweep));
  if (spec.program().Clauses("require").empty()) return true;
  if (!BoxPoints(ranges, max_points).has_value()) return std::optional<bool>();
  bool admitted = false;
  RETURN_IF_ERROR(ForEachAdmittedPoint(spec, ranges, [&](const auto&, const auto&) {
    admitted = true;
    return false;
  }));
  return admitted;
}

absl::StatusOr<std::optional<int64_t>> SpecBoxIterations(const SwizzleSpec& spec,
                                                         const SpecSweep& sweep,
                                                         int64_t limit,
                                                         int64_t max_param_points) {
  ASSIGN_OR_RETURN(std::vector<ParamRange> ranges, SpecRanges(spec, sweep));
  if (!BoxPoints(ranges, max_param_points).has_value()) return std::optional<int64_t>();
  int64_t total = 0;
  RETURN_IF_ERROR(ForEachAdmittedPoint(spec, ranges, [&](const auto&, const SpecInstance& i) {
    total += i.domain();
    return total <= limit;
  }));
  if (total > limit) return std::optional<int64_t>();
  return total;
}

absl::Status VacuousSpecBoxError(const SwizzleSpec& spec, const SpecSweep& sweep) {
  absl::StatusOr<std::vector<ParamRange>> ranges = SpecRanges(spec, sweep);
  std::vector<std::string> box;
  for (size_t i = 0; ranges.ok() && i < ranges->size(); ++i) {
    box.push_back(absl::StrCat(spec.params()[i]->name, "=", (*ranges)[i].ToString()));
  }
  std::vector<const expr::Stmt*> require_clauses = spec.program().Clauses("require");
  std::string where = spec.source_name();
  if (!require_clauses.empty()) {
    absl::StrAppend(&where, ":", require_clauses[0]->loc.line, ":", require_clauses[0]->loc.col);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where, ": no parameter point of the box (", absl::StrJoin(box, ", "),
      ") satisfies the require clauses, so the property would hold vacuously (0 "
      "parameter points); widen the ranges or correct the clause"));
}

absl::StatusOr<CheckResult> Sweep(const SwizzleSpec& spec, const SpecSweep& sweep,
                                  const SweepOptions& options) {
  const size_t n = spec.params().size();
  ASSIGN_OR_RETURN(std::vector<ParamRange> ranges, SpecRanges(spec, sweep));
  if (!BoxPoints(ranges, options.max_param_points).has_value()) {
    return absl::ResourceExhaustedError(
        absl::StrCat(spec.source_name(), ": the parameter box has more than ",
                     options.max_param_points, " points; narrow the ranges"));
  }
  // Materialise the admitted points with their order keys, then sort.
  struct Key {
    int64_t tiles, ranks;
    size_t index;  // into `values`, n entries each
  };
  std::vector<Key> keys;
  std::vector<int64_t> values;
  RETURN_IF_ERROR(ForEachAdmittedPoint(
      spec, ranges, [&](const std::vector<int64_t>& v, const SpecInstance& inst) {
        keys.push_back({inst.tiles(), inst.ranks(), values.size()});
        values.insert(values.end(), v.begin(), v.end());
        return true;
      }));
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.tiles != b.tiles) return a.tiles < b.tiles;
    if (a.ranks != b.ranks) return a.ranks < b.ranks;
    return std::lexicographical_compare(
        values.begin() + a.index, values.begin() + a.index + n, values.begin() + b.index,
        values.begin() + b.index + n);
  });

  if (keys.empty()) return VacuousSpecBoxError(spec, sweep);
  Progress progress(options);
  Enumerator enumerator(options.check);
  for (const Key& key : keys) {
    absl::Span<const int64_t> point(values.data() + key.index, n);
    ASSIGN_OR_RETURN(SpecInstance inst, spec.InstantiateUnchecked(point));
    if (!progress.Admit(inst.domain(), ToString(inst.params()))) return progress.result();
    ASSIGN_OR_RETURN(CheckResult r, enumerator.Check(inst));
    if (!progress.Record(r)) return progress.result();
  }
  return progress.result();
}

}  // namespace warpcheck::sim::swizzle
