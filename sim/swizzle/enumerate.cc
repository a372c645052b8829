#include "sim/swizzle/enumerate.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/check.h"
#include "sim/base/status_macros.h"

namespace warpcheck::sim::swizzle {

absl::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds:
      return "holds";
    case Verdict::kViolated:
      return "violated";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

absl::string_view ViolationKindName(ViolationKind k) {
  switch (k) {
    case ViolationKind::kDuplicate:
      return "duplicate";
    case ViolationKind::kMissed:
      return "missed";
    case ViolationKind::kOutOfRange:
      return "out_of_range";
    case ViolationKind::kTailSize:
      return "tail_size";
    case ViolationKind::kEvalError:
      return "eval_error";
  }
  return "?";
}

std::string Counterexample::ToString() const {
  if (params.empty()) return absl::StrCat(ViolationKindName(kind), ": ", detail);
  return absl::StrCat(ViolationKindName(kind), " at ", swizzle::ToString(params), ": ",
                      detail);
}

std::ostream& operator<<(std::ostream& os, const Counterexample& c) {
  return os << c.ToString();
}

namespace {

// One event of a scan (enumerate.h's table), before it is put in domain terms.
struct Event {
  ViolationKind kind;
  std::vector<int64_t> iter_ids;
  std::vector<int64_t> coords;
  int64_t reached = 0;  // kMissed: how many tiles were reached
};

// Runs iterations 0 .. domain-1 of `f` over a box of `kDims` extents.
// MapFn: PointOutcome(int64_t iter, int64_t* coords).
// Requires: bits has at least ceil(prod(extents) / 64) words, all zero.
template <int kDims, typename MapFn>
std::optional<Event> Scan(int64_t domain, const int64_t* extents, MapFn& f,
                          uint64_t* bits, int64_t* points) {
  int64_t c[kDims];
  int64_t hits = 0;
  auto coords = [](const int64_t* v) { return std::vector<int64_t>(v, v + kDims); };
  for (int64_t i = 0; i < domain; ++i) {
    PointOutcome o = f(i, c);
    if (o == PointOutcome::kSkip) continue;
    if (o == PointOutcome::kError) {
      *points = i + 1;
      return Event{ViolationKind::kEvalError, {i}, {}};
    }
    bool in_range = true;
    for (int k = 0; k < kDims; ++k) {
      in_range &= static_cast<uint64_t>(c[k]) < static_cast<uint64_t>(extents[k]);
    }
    if (!in_range) {
      *points = i + 1;
      return Event{ViolationKind::kOutOfRange, {i}, coords(c)};
    }
    if (o == PointOutcome::kBadTail) {
      *points = i + 1;
      return Event{ViolationKind::kTailSize, {i}, coords(c)};
    }
    int64_t flat = c[0];
    for (int k = 1; k < kDims; ++k) flat = flat * extents[k] + c[k];
    const uint64_t word = bits[flat >> 6];
    const uint64_t mask = uint64_t{1} << (flat & 63);
    if (word & mask) {
      *points = i + 1;
      // Find the earlier iteration on the same tile (once, so no per-tile owner table).
      int64_t c2[kDims];
      for (int64_t i2 = 0; i2 < i; ++i2) {
        PointOutcome o2 = f(i2, c2);
        if (o2 != PointOutcome::kTile) continue;
        bool same = true;
        for (int k = 0; k < kDims; ++k) same &= c2[k] == c[k];
        if (same) return Event{ViolationKind::kDuplicate, {i2, i}, coords(c)};
      }
      WARPCHECK_CHECK(false) << "a marked tile without an earlier iteration";
    }
    bits[flat >> 6] = word | mask;
    ++hits;
  }
  *points = domain;
  int64_t total = 1;
  for (int k = 0; k < kDims; ++k) total *= extents[k];
  if (hits == total) return std::nullopt;
  // The first tile no iteration reached, in row-major order.
  for (int64_t w = 0;; ++w) {
    if (~bits[w] != 0) {
      int64_t flat = w * 64 + std::countr_zero(~bits[w]);
      WARPCHECK_CHECK(flat < total) << "missed tile beyond the box";
      Event e{ViolationKind::kMissed, {}, std::vector<int64_t>(kDims)};
      for (int k = kDims - 1; k >= 0; --k) {
        e.coords[k] = flat % extents[k];
        flat /= extents[k];
      }
      e.reached = hits;
      return e;
    }
  }
}

template <typename MapFn>
std::optional<Event> ScanDims(int dims, int64_t domain, const int64_t* extents, MapFn& f,
                              uint64_t* bits, int64_t* points) {
  switch (dims) {
    case 1:
      return Scan<1>(domain, extents, f, bits, points);
    case 2:
      return Scan<2>(domain, extents, f, bits, points);
    case 3:
      return Scan<3>(domain, extents, f, bits, points);
    case 4:
      return Scan<4>(domain, extents, f, bits, points);
    default:
      WARPCHECK_CHECK(false) << "unsupported number of coordinates: " << dims;
      return std::nullopt;
  }
}

std::vector<NamedValue> Name(const std::vector<std::string>& names,
                             const std::vector<int64_t>& values) {
  std::vector<NamedValue> out;
  for (size_t k = 0; k < values.size(); ++k) out.push_back({names[k], values[k]});
  return out;
}

std::string TileText(const std::vector<NamedValue>& tile) {
  return absl::StrCat("(", ToString(tile), ")");
}

std::string BoxText(const std::vector<std::string>& names,
                    const std::vector<int64_t>& extents) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < names.size(); ++k) {
    parts.push_back(absl::StrCat(names[k], " < ", extents[k]));
  }
  return absl::StrJoin(parts, ", ");
}

// Puts an event in domain terms. `tail_detail` explains a kTailSize / kEvalError.
Counterexample Describe(const Event& e, std::vector<NamedValue> params,
                        const std::vector<std::string>& names,
                        const std::vector<int64_t>& extents, int64_t domain,
                        const std::string& tail_detail) {
  Counterexample c;
  c.params = std::move(params);
  c.kind = e.kind;
  c.iter_ids = e.iter_ids;
  c.tile = Name(names, e.coords);
  switch (e.kind) {
    case ViolationKind::kDuplicate:
      c.detail = absl::StrCat("iterations ", e.iter_ids[0], " and ", e.iter_ids[1],
                              " both map to tile ", TileText(c.tile));
      break;
    case ViolationKind::kMissed: {
      int64_t total = 1;
      for (int64_t x : extents) total *= x;
      c.detail =
          absl::StrCat("no iteration maps to tile ", TileText(c.tile), " (", e.reached,
                       " of ", total, " tiles reached by ", domain, " iterations)");
      break;
    }
    case ViolationKind::kOutOfRange:
      c.detail = absl::StrCat("iteration ", e.iter_ids[0], " maps to ", TileText(c.tile),
                              ", outside the box ", BoxText(names, extents));
      break;
    case ViolationKind::kTailSize:
      c.detail = absl::StrCat("iteration ", e.iter_ids[0], " at tile ", TileText(c.tile),
                              ": ", tail_detail);
      break;
    case ViolationKind::kEvalError:
      c.detail = absl::StrCat("iteration ", e.iter_ids[0], ": ", tail_detail);
      break;
  }
  return c;
}

uint64_t* PrepareBitmap(std::vector<uint64_t>& bitmap, int64_t total) {
  size_t words = static_cast<size_t>(total / 64 + 1);
  if (bitmap.size() < words) bitmap.resize(words);
  std::fill(bitmap.begin(), bitmap.begin() + words, 0);
  return bitmap.data();
}

absl::StatusOr<int64_t> BoxSize(const std::vector<int64_t>& extents,
                                const CheckOptions& options, absl::string_view what) {
  int64_t total = 1;
  for (int64_t x : extents) {
    if (__builtin_mul_overflow(total, x, &total) || total > options.max_tiles) {
      return absl::ResourceExhaustedError(
          absl::StrCat(what, ": the tile box has more than ", options.max_tiles,
                       " tiles (the enumeration bitmap limit)"));
    }
  }
  return total;
}

}  // namespace

absl::StatusOr<CheckResult> Enumerator::Check(const Swizzle2dParams& params) {
  RETURN_IF_ERROR(params.Validate());
  const Shape2d& sh = params.shape;
  const bool dist = IsDist(params.fn);
  std::vector<int64_t> extents = {sh.row_tiles(), sh.col_tiles()};
  std::vector<std::string> names = {"row", "col"};
  if (dist) {
    extents.push_back(params.rank_size);
    names.push_back("rank");
  }
  ASSIGN_OR_RETURN(int64_t total, BoxSize(extents, options_, params.ToString()));
  uint64_t* bits = PrepareBitmap(bitmap_, total);
  const int64_t domain = params.DomainSize();
  CheckResult result;
  result.param_points = 1;
  std::optional<Event> event;
  if (!dist) {
    const GemmKernel k = GemmKernel::Make(params);
    auto f = [&k](int64_t iter, int64_t* c) {
      k.Map(iter, &c[0], &c[1]);
      return PointOutcome::kTile;
    };
    event = Scan<2>(domain, extents.data(), f, bits, &result.points);
  } else {
    const DistKernel k = DistKernel::Make(params);
    auto f = [&k, &sh](int64_t iter, int64_t* c) {
      k.Map(iter, &c[0], &c[1], &c[2]);
      // Tail sizes as the function returns them (swizzle2d.cc computes them with
      // TailSize); they must be positive. A tile outside the box is reported as
      // out_of_range first by Scan.
      bool ok = TailSize(sh.rows, sh.tile_rows, c[0]) > 0 &&
                TailSize(sh.cols, sh.tile_cols, c[1]) > 0;
      return ok ? PointOutcome::kTile : PointOutcome::kBadTail;
    };
    event = Scan<3>(domain, extents.data(), f, bits, &result.points);
  }
  if (!event.has_value()) return result;
  std::string detail;
  if (event->kind == ViolationKind::kTailSize) {
    detail = absl::StrCat(
        "comm_row_size = ", TailSize(sh.rows, sh.tile_rows, event->coords[0]),
        ", comm_col_size = ", TailSize(sh.cols, sh.tile_cols, event->coords[1]),
        " (tail sizes must be positive)");
  }
  result.verdict = Verdict::kViolated;
  result.counterexample =
      Describe(*event, params.Named(), names, extents, domain, detail);
  return result;
}

absl::StatusOr<CheckResult> Enumerator::Check(const SpecInstance& instance) {
  const std::vector<int64_t>& extents = instance.extents();
  const int dims = static_cast<int>(extents.size());
  ASSIGN_OR_RETURN(int64_t total,
                   BoxSize(extents, options_, ToString(instance.params())));
  uint64_t* bits = PrepareBitmap(bitmap_, total);
  CheckResult result;
  result.param_points = 1;
  auto f = [&instance](int64_t iter, int64_t* c) { return instance.Map(iter, c); };
  std::optional<Event> event =
      ScanDims(dims, instance.domain(), extents.data(), f, bits, &result.points);
  if (!event.has_value()) return result;
  std::string detail;
  if (event->kind == ViolationKind::kTailSize ||
      event->kind == ViolationKind::kEvalError) {
    absl::StatusOr<SpecInstance::Point> p = instance.Explain(event->iter_ids[0]);
    detail = p.ok() ? p->tail_error : std::string(p.status().message());
  }
  result.verdict = Verdict::kViolated;
  result.counterexample = Describe(*event, instance.params(), instance.coordinates(),
                                   extents, instance.domain(), detail);
  return result;
}

absl::StatusOr<CheckResult> CheckBuiltin(const Swizzle2dParams& params,
                                         const CheckOptions& options) {
  Enumerator e(options);
  return e.Check(params);
}

absl::StatusOr<CheckResult> CheckSpec(const SwizzleSpec& spec,
                                      absl::Span<const int64_t> values,
                                      const CheckOptions& options) {
  ASSIGN_OR_RETURN(SpecInstance instance, spec.Instantiate(values));
  return CheckSpecInstance(instance, options);
}

absl::StatusOr<CheckResult> CheckSpecInstance(const SpecInstance& instance,
                                              const CheckOptions& options) {
  Enumerator e(options);
  return e.Check(instance);
}

}  // namespace warpcheck::sim::swizzle
