#include "tools/warpcheck/cli.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "sim/layout/layout_case.h"
#include "sim/layout/layout_proto.h"
#include "sim/base/bits.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_proto.h"
#include "tools/warpcheck/args.h"
#include "tools/warpcheck/corpus_command.h"
#include "tools/warpcheck/fuzz_command.h"
#include "tools/warpcheck/gpu_time_command.h"
#include "tools/warpcheck/convert_command.h"
#include "tools/warpcheck/layout_render.h"
#include "tools/warpcheck/output.h"
#include "tools/warpcheck/prove_conversion_command.h"
#include "tools/warpcheck/prove_layout_command.h"
#include "tools/warpcheck/prove_plan_command.h"
#include "tools/warpcheck/sim_command.h"
#include "tools/warpcheck/signal_command.h"
#include "tools/warpcheck/signal_gpu_command.h"
#include "tools/warpcheck/swizzle_command.h"

#ifndef WARPCHECK_VERSION
#define WARPCHECK_VERSION "0.0.0"
#endif

namespace warpcheck::cli {
namespace {

namespace fs = std::filesystem;

// Everything a command needs: its arguments and the two output streams.
struct Context {
  ParsedArgs args;
  std::ostream& out;
  std::ostream& err;
  Report* report_out;
};

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  absl::StatusOr<std::string> text = sim::base::ReadFile(path);
  if (!text.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read file"));
  return text;
}

// ---- warpcheck layout show ------------------------------------------------------------

constexpr char kLayoutShowUsage[] =
    "usage: warpcheck layout show ATTR --shape=RxC [options]\n"
    "\n"
    "Prints the linear layout Triton 3.6 gives the TTGIR layout attribute ATTR for a\n"
    "tensor of the given shape: its bases and which hardware position holds which\n"
    "element (T3:1 = lane 3, register 1, one table per warp).\n"
    "\n"
    "Options:\n"
    "  --shape=64x64              tensor shape, dim0 first (required)\n"
    "  --num-warps=N              ttg.num-warps; checked against the attribute\n"
    "  --threads-per-warp=N       ttg.threads-per-warp (32 NVIDIA, 64 AMD CDNA)\n"
    "  --num-ctas=N               ttg.num-ctas; checked against CGALayout\n"
    "  --ttgir=FILE               resolve #aliases and module attributes from a dump\n"
    "  --svg=FILE                 also write a picture (grid coloured by warp)\n"
    "  --table=auto|always|never  the element table (auto: up to 16384 elements)\n"
    "  --format=text|json|textproto\n";

int RunLayoutShow(Context& ctx) {
  const ParsedArgs& args = ctx.args;
  if (args.Has("help")) {
    ctx.out << kLayoutShowUsage;
    return kExitOk;
  }
  if (args.positional.size() != 1) {
    PrintError(ctx.err, args.positional.empty()
                            ? "layout show: missing ATTR (the TTGIR layout attribute)"
                            : "layout show: expected exactly one ATTR; quote the attribute");
    ctx.err << kLayoutShowUsage;
    return kExitUsage;
  }
  if (!args.Has("shape")) {
    PrintError(ctx.err, "layout show: --shape is required (e.g. --shape=64x64)");
    ctx.err << kLayoutShowUsage;
    return kExitUsage;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(ctx.err, format.status().message());
    return kExitUsage;
  }
  std::string table_mode = args.Get("table").value_or("auto");
  if (table_mode != "auto" && table_mode != "always" && table_mode != "never") {
    PrintError(ctx.err, "--table: expected auto, always or never");
    return kExitUsage;
  }
  auto shape = ParseShape(*args.Get("shape"));
  if (!shape.ok()) {
    PrintError(ctx.err, shape.status().message());
    return kExitInputError;
  }
  sim::layout::ModuleInfo module;
  for (const char* flag : {"num-warps", "threads-per-warp", "num-ctas"}) {
    absl::StatusOr<std::optional<int64_t>> n = args.GetInt(flag, 0, int64_t{1} << 30);
    if (!n.ok()) {
      PrintError(ctx.err, n.status().message());
      return kExitInputError;
    }
    if (n->has_value()) {
      const int64_t v = **n;
      if (!sim::base::IsPowerOf2(v)) {
        PrintError(ctx.err, absl::StrCat("--", flag, ": ", v,
                                         " is not a power of two; Triton requires one"));
        return kExitInputError;
      }
      std::string f = flag;
      (f == "num-warps"          ? module.num_warps
       : f == "threads-per-warp" ? module.threads_per_warp
                                 : module.num_ctas) = static_cast<int32_t>(v);
    }
  }
  sim::layout::TtgirFile ttgir;
  const sim::layout::TtgirFile* context = nullptr;
  if (auto path = args.Get("ttgir")) {
    auto text = ReadFile(*path);
    if (!text.ok()) {
      PrintError(ctx.err, text.status().message());
      return kExitInputError;
    }
    auto parsed = sim::layout::ParseTtgir(*text, sim::layout::SourceLocation{*path, 1, 1});
    if (!parsed.ok()) {
      PrintError(ctx.err, parsed.status().message());
      return kExitInputError;
    }
    ttgir = *std::move(parsed);
    context = &ttgir;
  }
  std::vector<int64_t> shape64(shape->begin(), shape->end());
  auto resolved = sim::layout::ResolveLayout(args.positional[0], sim::layout::SourceLocation{}, shape64,
                                     module, context);
  if (!resolved.ok()) {
    PrintError(ctx.err, resolved.status().message());
    return kExitInputError;
  }
  const sim::layout::LinearLayout& layout = resolved->layout;

  Report report;
  *report.mutable_layout() = sim::layout::ToProto(layout);
  LayoutFacts* facts = report.mutable_layout_facts();
  facts->set_attr(sim::layout::PrintEncoding(*resolved->encoding));
  for (int32_t s : *shape) facts->add_shape(s);
  facts->set_injective(layout.IsInjective());
  facts->set_surjective(layout.IsSurjective());
  facts->set_rank(layout.Rank());
  for (const auto& [name, mask] : layout.GetFreeVariableMasks()) {
    (*facts->mutable_free_variable_masks())[name] = mask;
  }

  if (auto svg_path = args.Get("svg")) {
    if (!WriteOutputFile(
            *svg_path,
            RenderSvg(layout, absl::StrCat(facts->attr(), "  ", *args.Get("shape"))),
            "the SVG file", ctx.err)) {
      return kExitInputError;
    }
  }
  if (ctx.report_out) *ctx.report_out = report;
  if (PrintMachineReport(report, *format, ctx.out)) return kExitOk;

  ctx.out << facts->attr() << "  shape " << *args.Get("shape") << "\n";
  ctx.out << layout.ToString() << "\n";
  for (const auto& [name, bases] : layout.bases()) {
    std::vector<std::string> b;
    for (const auto& basis : bases) b.push_back(absl::StrCat("[", absl::StrJoin(basis, ", "), "]"));
    ctx.out << "  " << name << ": " << (b.empty() ? "(size 1)" : absl::StrJoin(b, " "))
            << "\n";
  }
  std::vector<std::string> masks;
  for (const auto& [name, mask] : layout.GetFreeVariableMasks()) {
    if (mask) masks.push_back(absl::StrCat(name, "=0b", [&] {
      std::string s;
      for (int i = layout.InDimSizeLog2(name) - 1; i >= 0; --i) s += ((mask >> i) & 1) ? '1' : '0';
      return s;
    }()));
  }
  ctx.out << "injective: " << (facts->injective() ? "yes" : "no")
          << "  surjective: " << (facts->surjective() ? "yes" : "no")
          << "  rank: " << facts->rank();
  if (!masks.empty()) ctx.out << "  broadcast (free) bits: " << absl::StrJoin(masks, " ");
  ctx.out << "\n";
  int64_t elements = layout.TotalOutDimSize();
  if (table_mode == "always" || (table_mode == "auto" && elements <= 16384)) {
    ctx.out << "\n" << RenderTable(layout);
  } else if (table_mode == "auto") {
    ctx.out << "(element table omitted for " << elements
            << " elements; use --table=always or --svg=FILE)\n";
  }
  return kExitOk;
}

// ---- dispatch -------------------------------------------------------------------------

struct Command {
  const char* name;     // e.g. "layout show"
  const char* summary;  // one line for `warpcheck help`
  std::set<std::string> value_flags;
  std::set<std::string> switch_flags;
  int (*run)(Context&);
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"layout show", "print the linear layout of a TTGIR layout attribute for a shape",
       {"shape", "num-warps", "threads-per-warp", "num-ctas", "ttgir", "svg", "format",
        "table"},
       {},
       RunLayoutShow},
      {"swizzle2d show", "print the visiting order of a tile-scheduling swizzle",
       SwizzleValueFlags(),
       {},
       [](Context& c) { return RunSwizzleShow(c.args, c.out, c.err, c.report_out); }},
      {"swizzle2d prove", "prove a swizzle visits every tile exactly once, or find the smallest counterexample",
       SwizzleValueFlags(),
       {},
       [](Context& c) { return RunSwizzleProve(c.args, c.out, c.err, c.report_out); }},
      {"prove layout", "prove a shared layout injective/bijective/conflict-free over parameter ranges",
       ProveLayoutValueFlags(),
       {},
       [](Context& c) { return RunProveLayout(c.args, c.out, c.err, c.report_out); }},
      {"convert plan", "plan a layout conversion (registers, shuffles, shared memory) and its cost",
       {"src", "dst", "shape", "dtype", "num-warps", "strategy", "max-vector-bytes", "max-scratch-bytes", "smem-access", "format",
        "svg"},
       {"no-swizzle"},
       [](Context& c) { return RunConvert(ConvertAction::kPlan, c.args, c.out, c.err, c.report_out); }},
      {"convert emit", "emit a planned conversion as PTX in the round-trip or once harness",
       {"src", "dst", "shape", "dtype", "num-warps", "strategy", "max-vector-bytes", "max-scratch-bytes", "smem-access", "format",
        "harness", "o", "output", "launch-out", "iters"},
       {"no-swizzle"},
       [](Context& c) { return RunConvert(ConvertAction::kEmit, c.args, c.out, c.err, c.report_out); }},
      {"convert check", "plan, emit, simulate (random data, distinct tags) and prove a conversion",
       {"src", "dst", "shape", "dtype", "num-warps", "strategy", "max-vector-bytes", "max-scratch-bytes", "smem-access", "format",
        "seed", "prove"},
       {"no-swizzle", "one-way"},
       [](Context& c) { return RunConvert(ConvertAction::kCheck, c.args, c.out, c.err, c.report_out); }},
      {"convert compare", "our round-trip kernels against Triton's cost table, pair by pair",
       {"format", "limit", "baseline", "tsv-out"},
       {"require-not-worse", "prove"},
       [](Context& c) { return RunConvert(ConvertAction::kCompare, c.args, c.out, c.err, c.report_out); }},
      {"prove conversion", "prove with Z3 that a kernel meets its launch spec's expectations for every input",
       ProveConversionValueFlags(),
       {},
       [](Context& c) { return RunProveConversion(c.args, c.out, c.err, c.report_out); }},
      {"prove plan", "prove a conversion plan with Z3 over the F2 maps (data, stores, vectors, banks)",
       ProvePlanValueFlags(),
       {"no-matrix", "round-trip"},
       [](Context& c) { return RunProvePlan(c.args, c.out, c.err, c.report_out); }},
      {"sim run", "run a launch spec (PTX kernel) on the warp/CTA simulator",
       {"trace", "format"},
       {},
       [](Context& c) { return RunSimRun(c.args, c.out, c.err, c.report_out); }},
      {"gpu run", "run a launch spec on a real GPU (CUDA builds)",
       {"format"},
       {},
       [](Context& c) { return RunGpu(c.args, /*diff=*/false, c.out, c.err, c.report_out); }},
      {"gpu diff", "simulator vs GPU on launch specs, every buffer bit for bit",
       {"format"},
       {},
       [](Context& c) { return RunGpu(c.args, /*diff=*/true, c.out, c.err, c.report_out); }},
      {"gpu time", "time launch specs side by side on a GPU (interleaved, CUDA events)",
       GpuTimeValueFlags(),
       {},
       [](Context& c) { return RunGpuTime(c.args, c.out, c.err, c.report_out); }},
      {"signal run", "simulate a multi-rank wait/notify program; explore, explain hangs",
       SignalRunValueFlags(),
       {"no-reduction", "no-counter-abstraction"},
       [](Context& c) { return RunSignalRun(c.args, c.out, c.err, c.report_out); }},
      {"signal replay", "replay a recorded signal trace; reproduce or find the divergence",
       {"format", "max-states"},
       {"explore-nearby"},
       [](Context& c) { return RunSignalReplay(c.args, c.out, c.err, c.report_out); }},
      {"signal lint", "static checks of a signal program",
       {"format", "ranks", "ctas", "iterations"},
       {},
       [](Context& c) { return RunSignalLint(c.args, c.out, c.err, c.report_out); }},
      {"signal cuda", "emit a SignalProgram as a CUDA program for the GPU differential test",
       kSignalCudaValueFlags,
       kSignalCudaSwitchFlags,
       [](Context& c) { return RunSignalCuda(c.args, c.out, c.err); }},
      {"fuzz layouts", "plan, emit, simulate and prove random layout pairs; shrink failures",
       FuzzValueFlags(),
       {"one-way"},
       [](Context& c) { return RunFuzzLayouts(c.args, c.out, c.err, c.report_out); }},
      {"corpus check", "run every corpus case and compare with its expected verdict",
       {"format"},
       {"verbose"},
       [](Context& c) { return RunCorpusCheck(c.args, c.out, c.err, c.report_out); }},
  };
  return kCommands;
}

void PrintHelp(std::ostream& out) {
  out << "warpcheck " << WARPCHECK_VERSION
      << ": simulator and verifier for GPU tensor layouts\n\n"
         "usage: warpcheck COMMAND [options]\n\ncommands:\n";
  for (const Command& c : Commands()) {
    const int pad = 17 - static_cast<int>(std::string(c.name).size());
    out << "  " << c.name << std::string(std::max(1, pad), ' ') << c.summary
        << "\n";
  }
  out << "  help [COMMAND]    this text, or a command's usage\n"
         "\n"
         "Every command accepts --help. Exit codes: 0 ok/holds, 10 violated, 5\n"
         "inconclusive, 1 usage error, 2 input error, 6 internal error.\n";
}

int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             Report* report) {
  if (args.size() < 2) {
    PrintHelp(err);
    return kExitUsage;
  }
  const std::string& first = args[1];
  if (first == "--version" || first == "version") {
    out << "warpcheck " << WARPCHECK_VERSION << " (layout semantics: triton 3.6.0)\n";
    return kExitOk;
  }
  if (first == "help" || first == "--help" || first == "-h") {
    if (args.size() >= 3) {
      std::string wanted = args[2];
      if (args.size() >= 4) wanted += " " + args[3];
      for (const Command& c : Commands()) {
        if (c.name == wanted) {
          Context ctx{ParsedArgs{{}, {}, {"help"}}, out, err, report};
          return c.run(ctx);
        }
      }
      if (args.size() == 3) {
        bool is_group = false;
        for (const Command& c : Commands()) is_group |= absl::StartsWith(c.name, wanted + " ");
        if (is_group) return Dispatch({args[0], wanted, "--help"}, out, err, report);
      }
      PrintError(err, absl::StrCat("help: unknown command '", wanted, "'"));
      return kExitUsage;
    }
    PrintHelp(out);
    return kExitOk;
  }
  for (const Command& c : Commands()) {
    std::vector<std::string> words = absl::StrSplit(c.name, ' ');
    if (args.size() < 1 + words.size()) continue;
    if (!std::equal(words.begin(), words.end(), args.begin() + 1)) continue;
    std::vector<std::string> rest(args.begin() + 1 + words.size(), args.end());
    auto parsed = ParseArgs(rest, c.value_flags, c.switch_flags);
    if (!parsed.ok()) {
      PrintError(err, absl::StrCat(c.name, ": ", parsed.status().message()));
      return kExitUsage;
    }
    Context ctx{*std::move(parsed), out, err, report};
    return c.run(ctx);
  }
  // A command group ("signal", "layout", ...) alone or with --help: its commands.
  std::vector<const Command*> group;
  for (const Command& c : Commands())
    if (absl::StartsWith(c.name, first + " ")) group.push_back(&c);
  if (!group.empty()) {
    const bool help = args.size() == 3 && (args[2] == "--help" || args[2] == "-h" ||
                                           args[2] == "help");
    if (help || args.size() == 2) {
      std::ostream& o = help ? out : err;
      o << "usage: warpcheck " << first << " COMMAND [options]\n\ncommands:\n";
      for (const Command* c : group) {
        const int pad = 17 - static_cast<int>(std::string(c->name).size());
        o << "  " << c->name << std::string(std::max(1, pad), ' ') << c->summary << "\n";
      }
      o << "\n'warpcheck " << first << " COMMAND --help' gives a command's options.\n";
      return help ? kExitOk : kExitUsage;
    }
  }
  PrintError(err, absl::StrCat("unknown command '", first,
                               args.size() > 2 && args[2][0] != '-' ? " " + args[2] : "",
                               "'; run 'warpcheck help'"));
  return kExitUsage;
}

}  // namespace

int RunWarpcheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 Report* report) {
  // The one boundary where exceptions (e.g. std::bad_alloc, filesystem errors) become an
  // internal-error exit code instead of a crash.
  try {
    return Dispatch(args, out, err, report);
  } catch (const std::exception& e) {
    PrintError(err, absl::StrCat("internal error: ", e.what()));
    return kExitInternal;
  }
}

}  // namespace warpcheck::cli
