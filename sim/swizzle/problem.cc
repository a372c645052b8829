#include "sim/swizzle/problem.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_proto.h"

namespace warpcheck::sim::swizzle {
namespace {

std::optional<ParamRange>* BuiltinRangeSlot(BuiltinSweep& s, const std::string& name) {
  if (name == "row_tiles") return &s.row_tiles;
  if (name == "col_tiles") return &s.col_tiles;
  if (name == "rows") return &s.rows;
  if (name == "cols") return &s.cols;
  if (name == "tile_rows") return &s.tile_rows;
  if (name == "tile_cols") return &s.tile_cols;
  if (name == "swizzle_offset") return &s.swizzle_offset;
  if (name == "swizzle_direction") return &s.swizzle_direction;
  if (name == "rank_size") return &s.rank_size;
  if (name == "comm_npu_split") return &s.comm_npu_split;
  if (name == "comm_data_split") return &s.comm_data_split;
  return nullptr;
}

}  // namespace

absl::StatusOr<Engine> ParseEngine(absl::string_view name) {
  if (name == "auto") return Engine::kAuto;
  if (name == "symbolic") return Engine::kSymbolic;
  if (name == "enumerated") return Engine::kEnumerated;
  if (name == "both") return Engine::kBoth;
  return absl::InvalidArgumentError("--engine: expected symbolic, enumerated, both or auto");
}

const std::vector<std::pair<std::string, std::string>>& BuiltinParamFlags() {
  static const auto* kFlags = new std::vector<std::pair<std::string, std::string>>{
      {"row-tiles", "row_tiles"},
      {"col-tiles", "col_tiles"},
      {"rows", "rows"},
      {"cols", "cols"},
      {"tile-rows", "tile_rows"},
      {"tile-cols", "tile_cols"},
      {"swizzle-offset", "swizzle_offset"},
      {"swizzle-direction", "swizzle_direction"},
      {"rank-size", "rank_size"},
      {"comm-npu-split", "comm_npu_split"},
      {"comm-data-split", "comm_data_split"},
  };
  return *kFlags;
}

Problem BuiltinProblem(Builtin fn) {
  Problem p;
  p.builtin = fn;
  p.builtin_sweep.fn = fn;
  p.name = std::string(BuiltinApiName(fn));
  return p;
}

Problem SpecProblem(SwizzleSpec spec, std::string name) {
  Problem p;
  p.spec = std::move(spec);
  p.name = std::move(name);
  return p;
}

absl::Status SetRange(Problem& problem, const std::string& name, ParamRange range) {
  if (problem.builtin) {
    std::optional<ParamRange>* slot = BuiltinRangeSlot(problem.builtin_sweep, name);
    if (!slot) {
      return absl::InvalidArgumentError(
          absl::StrCat(problem.name, " has no parameter '", name, "'"));
    }
    *slot = range;
    return absl::OkStatus();
  }
  problem.spec_sweep.ranges.emplace_back(name, range);
  return absl::OkStatus();
}

void FillBuiltinDefaults(BuiltinSweep& s) {
  bool shapes = s.rows || s.cols || s.tile_rows || s.tile_cols;
  if (!shapes) {
    if (!s.row_tiles) s.row_tiles = ParamRange{1, 65536};
    if (!s.col_tiles) s.col_tiles = ParamRange{1, 65536};
  }
  const bool gemm = s.fn == Builtin::kGemm || s.fn == Builtin::kGemmNz;
  if (gemm && !s.swizzle_offset) s.swizzle_offset = ParamRange{1, 7};
  if ((s.fn == Builtin::kGemm || s.fn == Builtin::kDist) && !s.swizzle_direction) {
    s.swizzle_direction = ParamRange{0, 1};
  }
  if (!gemm) {
    if (!s.rank_size) s.rank_size = ParamRange{1, 64};
    if (!s.comm_npu_split) s.comm_npu_split = ParamRange{1, 64};
    if (s.fn == Builtin::kDist && !s.comm_data_split) {
      s.comm_data_split = ParamRange{1, 4};
    }
  }
}

absl::StatusOr<std::vector<std::pair<std::string, ParamRange>>> ParseParamList(
    absl::string_view text) {
  std::vector<std::pair<std::string, ParamRange>> out;
  if (text.empty()) return out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--params: '", item, "' is not name=value or name=A..B"));
    }
    absl::StatusOr<ParamRange> range = ParamRange::Parse(kv[1]);
    if (!range.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--params: ", kv[0], ": ", range.status().message()));
    }
    out.emplace_back(std::string(kv[0]), *range);
  }
  return out;
}

absl::StatusOr<Problem> ResolveProblem(const ::warpcheck::SwizzleProblem& proto,
                                       const std::string& base_dir,
                                       const std::string& where) {
  Problem p;
  switch (proto.fn_case()) {
    case ::warpcheck::SwizzleProblem::kBuiltin: {
      ASSIGN_OR_RETURN(Builtin fn, ParseBuiltin(proto.builtin()));
      p = BuiltinProblem(fn);
      break;
    }
    case ::warpcheck::SwizzleProblem::kSpecFile: {
      std::string path = (std::filesystem::path(base_dir) / proto.spec_file()).string();
      ASSIGN_OR_RETURN(SwizzleSpec spec, SwizzleSpec::Load(path));
      p = SpecProblem(std::move(spec), path);
      break;
    }
    case ::warpcheck::SwizzleProblem::kSpecText: {
      ASSIGN_OR_RETURN(SwizzleSpec spec, SwizzleSpec::Parse(absl::StrCat(where, ":spec_text"),
                                                            proto.spec_text()));
      p = SpecProblem(std::move(spec), where);
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": one of builtin, spec_file, spec_text is required"));
  }
  p.engine = proto.engine().empty() ? "auto" : proto.engine();
  for (const ::warpcheck::ParamRangeProto& r : proto.range()) {
    if (r.lo() > r.hi()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": range ", r.name(), ": lo ", r.lo(), " > hi ", r.hi()));
    }
    RETURN_IF_ERROR(SetRange(p, r.name(), ParamRange{r.lo(), r.hi()}));
  }
  return p;
}

absl::StatusOr<Problem> LoadProblemFile(const std::string& path,
                                        ::warpcheck::SwizzleProblem* proto) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": is a directory, not a swizzle problem (.textproto) file"));
  }
  ::warpcheck::SwizzleProblem parsed;
  RETURN_IF_ERROR(base::ParseTextProtoFile(path, &parsed));
  ASSIGN_OR_RETURN(Problem p,
                   ResolveProblem(parsed, std::filesystem::path(path).parent_path().string(),
                                  path));
  if (p.builtin) FillBuiltinDefaults(p.builtin_sweep);
  if (proto != nullptr) *proto = std::move(parsed);
  return p;
}

}  // namespace warpcheck::sim::swizzle
