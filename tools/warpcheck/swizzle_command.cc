#include "tools/warpcheck/swizzle_command.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "proto/swizzle.pb.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/swizzle/enumerate.h"
#include "sim/swizzle/problem.h"
#include "sim/swizzle/show.h"
#include "sim/swizzle/spec.h"
#include "sim/swizzle/sweep.h"
#include "sim/swizzle/swizzle2d.h"
#include "tools/warpcheck/cli.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "tools/warpcheck/svg.h"
#include "tools/warpcheck/swizzle_report.h"
#include "verify/swizzle_check.h"

namespace warpcheck::cli {
namespace {

namespace sw = ::warpcheck::sim::swizzle;

constexpr char kShowUsage[] =
    "usage: warpcheck swizzle2d show --fn=gemm|gemm_nz|dist|dist_nz [params] [options]\n"
    "       warpcheck swizzle2d show --spec=FILE.swz --params=name=V,name=V [options]\n"
    "\n"
    "Prints the visiting order of a tile-scheduling swizzle: the tile grid with the\n"
    "iteration that visits each tile (dist: one grid per rank).\n"
    "\n"
    "Parameters (as in the API):\n"
    "  --row-tiles=R --col-tiles=C      the tile grid (unit tiles), or\n"
    "  --rows --cols --tile-rows --tile-cols   data and tile shapes (partial edge tiles)\n"
    "  --swizzle-offset=S (1..7, default 7)  --swizzle-direction=0|1 (default 1)\n"
    "  --rank-size=N  --comm-npu-split=P  --comm-data-split=Q   (dist)\n"
    "Options:\n"
    "  --svg=FILE        also draw the grid, coloured by visiting order\n"
    "  --format=text|json|textproto\n";

constexpr char kProveUsage[] =
    "usage: warpcheck swizzle2d prove --fn=gemm|gemm_nz|dist|dist_nz [ranges] [options]\n"
    "       warpcheck swizzle2d prove --spec=FILE(.swz|.textproto) [--params=ranges]\n"
    "\n"
    "Proves that the swizzle visits every tile (x rank) exactly once for every parameter\n"
    "point in the ranges, or prints the smallest counterexample. Every parameter flag of\n"
    "`show` accepts a range A..B. Defaults: row/col tiles 1..65536, every offset 1..7,\n"
    "both directions, ranks 1..64 with every valid split, comm-data-split 1..4.\n"
    "\n"
    "Options:\n"
    "  --engine=symbolic|enumerated|both   default: symbolic (the Z3 proof alone;\n"
    "                    a problem file may name another). enumerated: every point, exact\n"
    "                    but bounded by a budget; both: the proof, then the enumeration,\n"
    "                    which must agree (the text says what each engine concluded)\n"
    "  --rlimit=N        Z3 resource limit per query (deterministic budget)\n"
    "  --cex-out=FILE    write the counterexample as a reproducing corpus case\n"
    "  --format=text|json|textproto\n"
    "Exit: 0 holds, 10 violated, 5 inconclusive, 2 bad input.\n";

absl::StatusOr<int64_t> ParseInt64(absl::string_view flag, absl::string_view text) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": '", text, "' is not an integer"));
  }
  return v;
}

// Built-in parameters at one point, from the flags (show): each given flag an integer.
// Ensures: the parameters (sw::BuiltinShowParams), or InvalidArgument naming the flag.
absl::StatusOr<sw::Swizzle2dParams> BuiltinPoint(const ParsedArgs& args, sw::Builtin fn) {
  std::map<std::string, int64_t> v;
  for (const auto& [flag, name] : sw::BuiltinParamFlags()) {
    if (auto text = args.Get(flag)) {
      ASSIGN_OR_RETURN(v[name], ParseInt64(flag, *text));
    }
  }
  return sw::BuiltinShowParams(fn, v);
}

std::string RenderGridText(const sw::Grid& g) {
  std::string out;
  size_t width = absl::StrCat(g.visits.empty() ? 0 : g.visits.back().iter).size();
  for (int64_t k = 0; k < g.ranks; ++k) {
    std::vector<std::vector<std::string>> cells(
        g.row_tiles, std::vector<std::string>(g.col_tiles));
    std::vector<std::string> outside;
    for (const sw::GridVisit& v : g.visits) {
      if (v.skipped || v.rank != k) continue;
      if (v.row < 0 || v.row >= g.row_tiles || v.col < 0 || v.col >= g.col_tiles) {
        outside.push_back(absl::StrCat(v.iter, "->(", v.row, ",", v.col, ")"));
        continue;
      }
      std::string& cell = cells[v.row][v.col];
      cell = cell.empty() ? absl::StrCat(v.iter) : absl::StrCat(cell, "|", v.iter);
    }
    for (auto& row : cells) {
      for (auto& c : row) {
        if (c.empty()) c = ".";
        width = std::max(width, c.size());
      }
    }
    if (g.has_rank) absl::StrAppend(&out, "rank ", k, ":\n");
    absl::StrAppend(&out, std::string(8, ' '));
    for (int64_t c = 0; c < g.col_tiles; ++c) {
      absl::StrAppend(&out, " ", absl::StrFormat("%*s", static_cast<int>(width), absl::StrCat(c)));
    }
    absl::StrAppend(&out, "  <- col\n");
    for (int64_t r = 0; r < g.row_tiles; ++r) {
      absl::StrAppend(&out, absl::StrFormat("row %3d:", r));
      for (int64_t c = 0; c < g.col_tiles; ++c) {
        absl::StrAppend(&out, " ", absl::StrFormat("%*s", static_cast<int>(width), cells[r][c]));
      }
      absl::StrAppend(&out, "\n");
    }
    if (!outside.empty()) {
      absl::StrAppend(&out, "outside the grid: ", absl::StrJoin(outside, " "), "\n");
    }
  }
  return out;
}

std::string RenderGridSvg(const sw::Grid& g, const std::string& title) {
  const double cw = 36, ch = 22, left = 50, top = 40, gap = 30;
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(g.visits.size()));
  const double height_per_rank = static_cast<double>(g.row_tiles) * ch + gap;
  auto colour = [&](int64_t iter) {
    return absl::StrFormat("hsl(%.0f,70%%,75%%)", 240.0 * (1.0 - static_cast<double>(iter) / n));
  };
  svg::Document doc(10);
  doc.Text(0, 12, title, svg::TextStyle().Size(12));
  doc.Text(0, 28, "cell = iteration; colour = visiting order (blue first, red last)");
  for (int64_t k = 0; k < g.ranks; ++k) {
    const double y0 = top + static_cast<double>(k) * height_per_rank;
    if (g.has_rank) doc.Text(0, y0 + 12, absl::StrCat("rank ", k));
    for (const sw::GridVisit& v : g.visits) {
      if (v.skipped || v.rank != k || v.row < 0 || v.row >= g.row_tiles || v.col < 0 ||
          v.col >= g.col_tiles) {
        continue;
      }
      const double x = left + static_cast<double>(v.col) * cw;
      const double y = y0 + static_cast<double>(v.row) * ch;
      doc.Rect(x, y, cw, ch, svg::Paint().Fill(colour(v.iter)).Stroke("#555", 0.5));
      doc.Text(x + cw / 2, y + 15, absl::StrCat(v.iter), svg::TextStyle().Centred());
    }
  }
  // The colour scale: first and last iteration drawn.
  int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
  for (const sw::GridVisit& v : g.visits) {
    if (v.skipped) continue;
    first = std::min(first, v.iter);
    last = std::max(last, v.iter);
  }
  if (first > last) first = last = 0;
  const double scale_y = top + static_cast<double>(g.ranks) * height_per_rank - gap + 14;
  doc.Legend(left, scale_y, "",
             {{svg::Paint().Fill(colour(first)).Stroke("#555", 0.5), false, false,
               absl::StrCat("iteration ", first, " (first)")},
              {svg::Paint().Fill(colour(last)).Stroke("#555", 0.5), false, false,
               absl::StrCat("iteration ", last, " (last)")}});
  return doc.Render();
}

}  // namespace

const std::set<std::string>& SwizzleValueFlags() {
  static const auto* kFlags = [] {
    auto* s = new std::set<std::string>{"fn", "spec", "params", "svg", "format",
                                        "engine", "rlimit", "cex-out"};
    for (const auto& [flag, name] : sw::BuiltinParamFlags()) s->insert(flag);
    return s;
  }();
  return *kFlags;
}

int RunSwizzleShow(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report_out) {
  if (args.Has("help")) {
    out << kShowUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (!args.positional.empty()) {
    PrintError(err, absl::StrCat("swizzle2d show: unexpected argument '",
                                 args.positional[0],
                                 "': give the swizzle as --fn=NAME or --spec=FILE"));
    err << kShowUsage;
    return kExitUsage;
  }
  if (args.Has("fn") == args.Has("spec")) {
    PrintError(err, "swizzle2d show: give exactly one of --fn=NAME and --spec=FILE");
    err << kShowUsage;
    return kExitUsage;
  }
  absl::StatusOr<sw::Grid> grid = absl::InternalError("unset");
  std::string title;
  if (auto fn_name = args.Get("fn")) {
    auto fn = sw::ParseBuiltin(*fn_name);
    if (!fn.ok()) {
      PrintError(err, absl::StrCat("--fn: ", fn.status().message()));
      return kExitInputError;
    }
    auto params = BuiltinPoint(args, *fn);
    if (!params.ok()) {
      PrintError(err, params.status().message());
      return kExitInputError;
    }
    title = params->ToString();
    grid = sw::ShowBuiltin(*params);
  } else {
    auto spec = sw::SwizzleSpec::Load(*args.Get("spec"));
    if (!spec.ok()) {
      PrintError(err, spec.status().message());
      return kExitInputError;
    }
    auto given = sw::ParseParamList(args.Get("params").value_or(""));
    if (!given.ok()) {
      PrintError(err, given.status().message());
      return kExitInputError;
    }
    title = *args.Get("spec");
    grid = sw::ShowSpec(*spec, *given);
  }
  if (!grid.ok()) {
    PrintError(err, grid.status().message());
    return kExitInputError;
  }
  Report report;
  Swizzle2dReport* r = report.mutable_swizzle2d();
  for (const sw::GridVisit& v : grid->visits) {
    if (v.skipped) continue;
    SwizzlePoint* p = r->add_points();
    p->set_iter(v.iter);
    p->set_row(v.row);
    p->set_col(v.col);
    if (grid->has_rank) p->set_rank(v.rank);
    if (grid->has_tails) {
      p->set_rows(v.rows);
      p->set_cols(v.cols);
    }
  }
  if (auto svg_path = args.Get("svg")) {
    if (!WriteOutputFile(*svg_path, RenderGridSvg(*grid, title), "the SVG file", err)) {
      return kExitInputError;
    }
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) {
    out << title << "\n" << RenderGridText(*grid);
  }
  return ExitCodeFor(report);
}


namespace {

// The problem `prove` was given: --fn with range flags (the default box for the rest),
// or --spec: a .swz program or a warpcheck.SwizzleProblem .textproto, with --params
// ranges on top.
// Ensures: the problem, or InvalidArgument naming the flag or file at fault.
absl::StatusOr<sw::Problem> ResolveProveProblem(const ParsedArgs& args) {
  if (auto fn_name = args.Get("fn")) {
    absl::StatusOr<sw::Builtin> fn = sw::ParseBuiltin(*fn_name);
    if (!fn.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--fn: ", fn.status().message()));
    }
    sw::Problem p = sw::BuiltinProblem(*fn);
    for (const auto& [flag, name] : sw::BuiltinParamFlags()) {
      if (auto text = args.Get(flag)) {
        absl::StatusOr<sw::ParamRange> range = sw::ParamRange::Parse(*text);
        if (!range.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", flag, ": ", range.status().message()));
        }
        RETURN_IF_ERROR(sw::SetRange(p, name, *range));
      }
    }
    sw::FillBuiltinDefaults(p.builtin_sweep);
    return p;
  }
  const std::string spec_path = *args.Get("spec");
  sw::Problem p;
  if (absl::EndsWith(spec_path, ".textproto")) {
    ASSIGN_OR_RETURN(p, sw::LoadProblemFile(spec_path));
  } else {
    ASSIGN_OR_RETURN(sw::SwizzleSpec spec, sw::SwizzleSpec::Load(spec_path));
    p = sw::SpecProblem(std::move(spec), spec_path);
  }
  ASSIGN_OR_RETURN(auto given, sw::ParseParamList(args.Get("params").value_or("")));
  for (const auto& [name, range] : given) RETURN_IF_ERROR(sw::SetRange(p, name, range));
  return p;
}

// The solver options from the flags: --rlimit, a positive integer.
absl::StatusOr<verify::SwizzleCheckOptions> ProveOptions(const ParsedArgs& args) {
  verify::SwizzleCheckOptions options;
  if (auto rlimit = args.Get("rlimit")) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(*rlimit, &v) || v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--rlimit: '", *rlimit, "' is not a positive integer"));
    }
    options.rlimit = static_cast<uint64_t>(v);
  }
  return options;
}

// A reproducing corpus case for a counterexample: the same problem narrowed to the
// violating point, expecting "violated" with that kind.
std::string CounterexampleCase(const sw::Problem& p, const sw::Counterexample& c,
                               const std::string& spec_path) {
  SwizzleProblem proto;
  proto.set_source(absl::StrCat("minimised counterexample from warpcheck swizzle2d prove: ",
                                c.ToString()));
  if (p.builtin) {
    proto.set_builtin(std::string(sw::BuiltinName(*p.builtin)));
  } else {
    proto.set_spec_file(spec_path);
  }
  for (const auto& nv : c.params) {
    ParamRangeProto* r = proto.add_range();
    r->set_name(nv.name);
    r->set_lo(nv.value);
    r->set_hi(nv.value);
    (*proto.mutable_expect()->mutable_params())[nv.name] = nv.value;
  }
  proto.set_engine("both");
  proto.mutable_expect()->set_verdict("violated");
  proto.mutable_expect()->set_kind(std::string(sw::ViolationKindName(c.kind)));
  std::string text;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  return absl::StrCat("# proto-file: proto/swizzle.proto\n",
                      "# proto-message: warpcheck.SwizzleProblem\n", text);
}

// Writes the counterexample case to `cex_out` (a spec file is named relative to it).
absl::Status WriteCounterexampleCase(const sw::Problem& p, const sw::Counterexample& c,
                                     const std::string& spec_path,
                                     const std::string& cex_out) {
  std::string rel = spec_path.empty()
                        ? ""
                        : std::filesystem::relative(
                              std::filesystem::absolute(spec_path),
                              std::filesystem::absolute(cex_out).parent_path())
                              .string();
  if (!sim::base::WriteFileAtomically(cex_out, CounterexampleCase(p, c, rel)).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(cex_out, ": cannot write the counterexample case"));
  }
  return absl::OkStatus();
}

void PrintProveText(const std::string& name, const Swizzle2dReport& r, const ParsedArgs& args,
                    std::ostream& out) {
  // The engine whose outcome this is, with its figures; with --engine=both, then what
  // the other engine concluded (never "agrees" when it did not decide).
  const std::string proof_figures = absl::StrCat(
      r.queries(), " queries, ", absl::StrFormat("%.0f", r.solver_ms()), " ms");
  out << name << ": " << Swizzle2dReport::Verdict_Name(r.verdict()) << " ("
      << Swizzle2dReport::Checked_Name(r.checked()) << ", ";
  if (r.checked() == Swizzle2dReport::symbolic) {
    out << proof_figures;
    if (r.has_enumerated_verdict()) {
      out << "; enumeration: " << Swizzle2dReport::Verdict_Name(r.enumerated_verdict());
    }
  } else {
    out << r.param_points() << " parameter points";
    if (r.has_symbolic_verdict()) {
      out << "; symbolic: " << Swizzle2dReport::Verdict_Name(r.symbolic_verdict()) << ", "
          << proof_figures;
    }
  }
  out << ")\n";
  if (r.has_counterexample()) {
    out << "counterexample: " << r.counterexample().text() << "\n";
    if (args.Has("cex-out")) out << "written to " << *args.Get("cex-out") << "\n";
  }
  if (r.has_reason()) out << "reason: " << r.reason() << "\n";
}

}  // namespace

int RunSwizzleProve(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                    Report* report_out) {
  if (args.Has("help")) {
    out << kProveUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (!args.positional.empty()) {
    PrintError(err, absl::StrCat("swizzle2d prove: unexpected argument '",
                                 args.positional[0],
                                 "': give the swizzle as --fn=NAME or --spec=FILE"));
    err << kProveUsage;
    return kExitUsage;
  }
  if (args.Has("fn") == args.Has("spec")) {
    PrintError(err, "swizzle2d prove: give exactly one of --fn=NAME and --spec=FILE");
    err << kProveUsage;
    return kExitUsage;
  }
  absl::StatusOr<sw::Problem> problem = ResolveProveProblem(args);
  if (!problem.ok()) {
    PrintError(err, problem.status().message());
    return kExitInputError;
  }
  absl::StatusOr<sw::Engine> engine =
      sw::ParseEngine(args.Get("engine").value_or(problem->engine));
  if (!engine.ok()) {
    PrintError(err, engine.status().message());
    return kExitUsage;
  }
  // --rlimit is read only when the proof runs (an enumerated run ignores it).
  absl::StatusOr<verify::SwizzleCheckOptions> options = verify::SwizzleCheckOptions{};
  if (*engine != sw::Engine::kEnumerated) options = ProveOptions(args);
  absl::StatusOr<verify::SwizzleOutcome> outcome =
      options.ok() ? verify::CheckSwizzle(*problem, *engine, *options) : options.status();
  if (!outcome.ok()) {
    PrintError(err, outcome.status().message());
    return ExitCodeFor(outcome.status());
  }
  Report report;
  Swizzle2dReport* r = report.mutable_swizzle2d();
  FillSwizzleReport(*outcome, r);
  if (outcome->counterexample) {
    if (auto cex_out = args.Get("cex-out")) {
      absl::Status written = WriteCounterexampleCase(
          *problem, *outcome->counterexample, args.Get("spec").value_or(""), *cex_out);
      if (!written.ok()) {
        PrintError(err, written.message());
        return kExitInputError;
      }
      r->mutable_counterexample()->set_corpus_file(*cex_out);
    }
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintProveText(problem->name, *r, args, out);
  return ExitCodeFor(report);
}

}  // namespace warpcheck::cli
