#include "tools/warpcheck/prove_conversion_command.h"

#include <chrono>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"
#include "sim/plan/problem.h"
#include "sim/ptx/parser.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "verify/ptx/prove_conversion.h"

namespace warpcheck::cli {
namespace {

namespace fs = std::filesystem;
namespace vp = ::warpcheck::verify::ptx;

constexpr char kUsage[] =
    "usage: warpcheck prove conversion LAUNCH.textproto [--src=ATTR --dst=ATTR\n"
    "                                  --shape=RxC --dtype=T [--num-warps=N]]\n"
    "                                  [--rlimit=N] [--max-steps=N] [--cex-out=FILE]\n"
    "                                  [--format=text|json|textproto]\n"
    "\n"
    "Proves with Z3 that the kernel of a launch spec makes its `buffers_equal`\n"
    "expectations true for every value of every input buffer (and of shared memory read\n"
    "before it is written), for every thread: the kernel runs once with every input byte\n"
    "a variable and every thread concrete. Works on Triton's PTX unchanged and on ours.\n"
    "\n"
    "  holds         exit 0: no input breaks an expectation\n"
    "  violated      exit 10: the first wrong element, the thread, lane, warp, line and\n"
    "                register that stored it, what it holds instead, and (--cex-out) a\n"
    "                launch spec with that input for `warpcheck sim run`\n"
    "  inconclusive  exit 5: the solver gave up, a bound was hit, or control flow or an\n"
    "                address depends on the data (the instruction is named)\n"
    "\n"
    "The proof assumes a race-free run (the simulator checks races: `warpcheck sim run`;\n"
    "`convert check` runs both) and the spec's parameters (loops are unrolled).\n"
    "\n"
    "Options:\n"
    "  --shape=RxC            print element coordinates (r, c) instead of flat indices\n"
    "  --src, --dst, --dtype, --num-warps   the conversion the kernel implements; checked\n"
    "                         for consistency with --shape and the buffers\n"
    "  --rlimit=N             Z3 resource limit of the query (default 200000000)\n"
    "  --max-steps=N          instructions per thread before inconclusive (default 1e6)\n"
    "  --cex-out=FILE         on violated: write FILE (a launch spec) and FILE.<buffer>.bin\n";

int Usage(std::ostream& err, absl::string_view what) {
  PrintError(err, what);
  err << kUsage;
  return kExitUsage;
}

ProofReport::Verdict ToProto(vp::ProofVerdict v) {
  switch (v) {
    case vp::ProofVerdict::kHolds: return ProofReport::holds;
    case vp::ProofVerdict::kViolated: return ProofReport::violated;
    default: return ProofReport::inconclusive;
  }
}

ProofReport ToReport(const vp::ConversionProof& p) {
  ProofReport r;
  r.set_verdict(ToProto(p.verdict));
  r.set_reason(p.reason);
  r.set_queries(p.queries);
  r.set_solver_ms(p.solver_ms);
  r.set_elements(p.elements);
  r.set_elements_syntactic(p.elements_syntactic);
  r.set_thread_steps(p.thread_steps);
  r.set_symbolic_ops(p.symbolic_ops);
  r.set_threads(p.threads);
  r.set_line(p.line);
  r.set_instruction(p.instruction);
  for (const std::string& a : p.assumptions) r.add_assumptions(a);
  const vp::ConversionCounterexample& c = p.counterexample;
  if (c.element >= 0) {
    ConversionCounterexample* x = r.mutable_counterexample();
    x->set_expectation(c.expectation);
    x->set_buffer(c.buffer);
    x->set_element(c.element);
    x->set_coords(c.coords);
    x->set_thread(c.thread);
    x->set_cta(c.cta);
    x->set_lane(c.thread >= 0 ? static_cast<uint32_t>(c.thread) % 32 : 0);
    x->set_warp(c.thread >= 0 ? static_cast<uint32_t>(c.thread) / 32 : 0);
    x->set_line(c.line);
    x->set_instruction(c.instruction);
    x->set_register_name(c.reg);
    x->set_holds_element(c.holds_element);
    x->set_holds_coords(c.holds_coords);
    x->set_expected(c.expected);
    x->set_actual(c.actual);
    x->set_text(c.text);
  }
  return r;
}

// The spec with the counterexample's input: every buffer the model touched becomes a
// FILE fill next to `path`; the PTX is named relative to `path`'s folder.
absl::Status WriteCex(const LaunchSpec& spec, const std::string& spec_path,
                      const vp::ConversionProof& p, const std::string& path) {
  std::string dir = sim::launch::SpecDir(spec_path);
  LaunchSpec out = spec;
  std::error_code ec;
  fs::path cex_dir = fs::absolute(path, ec).parent_path();
  out.set_ptx_file(fs::absolute(fs::path(dir) / spec.ptx_file(), ec)
                       .lexically_relative(cex_dir)
                       .string());
  for (warpcheck::Param& prm : *out.mutable_param()) {
    if (!prm.has_buffer()) continue;
    BufferParam* b = prm.mutable_buffer();
    bool touched = false;
    for (const vp::CexByte& x : p.counterexample.input) touched |= x.buffer == b->name();
    if (!touched) {
      if (b->fill() == BufferParam::FILE) {
        b->set_path(fs::absolute(fs::path(dir) / b->path(), ec).lexically_relative(cex_dir).string());
      }
      continue;
    }
    absl::StatusOr<std::vector<uint8_t>> bytes = sim::launch::FillBuffer(*b, dir);
    if (!bytes.ok()) return bytes.status();
    for (const vp::CexByte& x : p.counterexample.input) {
      if (x.buffer == b->name() && x.offset < bytes->size()) (*bytes)[x.offset] = x.value;
    }
    std::string bin = absl::StrCat(path, ".", b->name(), ".bin");
    RETURN_IF_ERROR(sim::base::WriteFileAtomically(
        bin, std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size())));
    b->set_fill(BufferParam::FILE);
    b->set_path(fs::path(bin).filename().string());
    b->clear_seed();
  }
  return sim::base::WriteFileAtomically(
      path, absl::StrCat("# proto-file: proto/launch.proto\n",
                         "# proto-message: warpcheck.LaunchSpec\n",
                         "# warpcheck prove conversion: counterexample (", p.reason, ")\n",
                         out.DebugString()));
}

// Who holds flat element `e` in a layout: "thread T register k" (the first copy).
std::string Holder(const sim::plan::FlatLayout& l, int64_t e) {
  for (uint32_t w = 0; w < (1u << l.warp_bits()); ++w) {
    for (uint32_t lane = 0; lane < (1u << l.lane_bits()); ++lane) {
      for (uint32_t r = 0; r < static_cast<uint32_t>(l.num_regs()); ++r) {
        if (static_cast<int64_t>(l.Apply(r, lane, w)) == e) {
          return absl::StrCat("thread ", 32 * w + lane, " register ", r);
        }
      }
    }
  }
  return "no thread";
}

// With --src/--dst: where each layout keeps the wrong element and the one it got.
void AddLayoutContext(const sim::plan::ConversionProblem& p, ConversionCounterexample* c) {
  std::string text = absl::StrCat(c->text(), ". In the src layout element ", c->coords(),
                                  " is ", Holder(p.src, c->element()), ", in the dst layout ",
                                  Holder(p.dst, c->element()));
  if (c->holds_element() >= 0) {
    absl::StrAppend(&text, "; element ", c->holds_coords(), " is ", Holder(p.src, c->holds_element()),
                    " (src), ", Holder(p.dst, c->holds_element()), " (dst)");
  }
  c->set_text(text);
}

void PrintText(const ProofReport& r, std::ostream& out) {
  out << "proof: " << ProofReport::Verdict_Name(r.verdict());
  out << absl::StrFormat("  (%d threads, %d thread-instructions, %d elements: %d equal by "
                         "construction, %d by the solver in %.1f ms)\n",
                         r.threads(), r.thread_steps(), r.elements(), r.elements_syntactic(),
                         r.elements() - r.elements_syntactic(), r.solver_ms());
  if (!r.reason().empty()) out << "  " << r.reason() << "\n";
  if (r.line() != 0 && r.verdict() != ProofReport::holds) {
    out << "  at line " << r.line() << " `" << r.instruction() << "`\n";
  }
  if (r.has_counterexample()) {
    const ConversionCounterexample& c = r.counterexample();
    out << absl::StrFormat("  input: %s = 0x%x, %s = 0x%x\n",
                           absl::StrCat("expected element ", c.coords()), c.expected(),
                           absl::StrCat("stored"), c.actual());
    if (!c.cex_spec().empty()) {
      out << "  counterexample written to " << c.cex_spec()
          << " (warpcheck sim run " << c.cex_spec() << ")\n";
    }
  }
  for (const std::string& a : r.assumptions()) out << "  assumes: " << a << "\n";
}

}  // namespace

const std::set<std::string>& ProveConversionValueFlags() {
  static const std::set<std::string> kFlags = {
      "src", "dst", "shape", "dtype", "num-warps", "rlimit", "max-steps", "cex-out", "format"};
  return kFlags;
}

int RunProveConversion(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                       Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) return Usage(err, format.status().message());
  if (args.positional.size() != 1) {
    return Usage(err, "prove conversion: expected exactly one LAUNCH.textproto");
  }
  vp::ConversionProofOptions options;
  auto rlimit = args.GetInt("rlimit", 1, int64_t{1} << 40);
  auto steps = args.GetInt("max-steps", 1, int64_t{1} << 40);
  if (!rlimit.ok()) return Usage(err, rlimit.status().message());
  if (!steps.ok()) return Usage(err, steps.status().message());
  if (*rlimit) options.rlimit = static_cast<uint64_t>(**rlimit);
  if (*steps) options.exec.max_steps_per_thread = static_cast<uint64_t>(**steps);
  if (auto shape = args.Get("shape")) {
    absl::StatusOr<std::vector<int32_t>> s = ParseShape(*shape);
    if (!s.ok()) {
      PrintError(err, absl::StrCat("--shape: ", s.status().message()));
      return kExitInputError;
    }
    options.shape.assign(s->begin(), s->end());
  }
  bool any_layout = args.Has("src") || args.Has("dst") || args.Has("dtype");
  std::optional<sim::plan::ConversionProblem> layouts;
  if (any_layout) {
    if (!args.Has("src") || !args.Has("dst") || !args.Has("dtype") || !args.Has("shape")) {
      return Usage(err, "prove conversion: --src, --dst, --dtype and --shape go together");
    }
    absl::StatusOr<sim::plan::DType> dtype = sim::plan::ParseDType(*args.Get("dtype"));
    auto warps = args.GetInt("num-warps", 1, 64);
    if (!dtype.ok() || !warps.ok()) {
      PrintError(err, !dtype.ok() ? dtype.status().message() : warps.status().message());
      return kExitInputError;
    }
    absl::StatusOr<sim::plan::ConversionProblem> problem = sim::plan::MakeProblem(
        *args.Get("src"), *args.Get("dst"), options.shape, *dtype,
        warps->has_value() ? static_cast<int>(**warps) : 0);
    if (!problem.ok()) {
      PrintError(err, problem.status().message());
      return kExitInputError;
    }
    layouts = *std::move(problem);
  }
  const std::string& path = args.positional[0];
  absl::StatusOr<LaunchSpec> spec = sim::launch::LoadLaunchSpec(path);
  if (!spec.ok()) {
    PrintError(err, spec.status().message());
    return ExitCodeFor(spec.status());
  }
  std::string ptx_path = (fs::path(sim::launch::SpecDir(path)) / spec->ptx_file()).string();
  absl::StatusOr<sim::ptx::Module> module = sim::ptx::ParseModuleFile(ptx_path);
  if (!module.ok()) {
    PrintError(err, module.status().message());
    return ExitCodeFor(module.status());
  }
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<vp::ConversionProof> proof = vp::ProveLaunch(*spec, *module, options);
  if (!proof.ok()) {
    PrintError(err, absl::StrCat(path, ": ", proof.status().message()));
    return ExitCodeFor(proof.status());
  }
  Report report;
  *report.mutable_proof() = ToReport(*proof);
  if (layouts && report.proof().has_counterexample()) {
    AddLayoutContext(*layouts, report.mutable_proof()->mutable_counterexample());
    report.mutable_proof()->set_reason(report.proof().counterexample().text());
  }
  report.mutable_proof()->set_wall_ms(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (auto cex = args.Get("cex-out");
      cex && proof->verdict == vp::ProofVerdict::kViolated && proof->counterexample.element >= 0) {
    absl::Status written = WriteCex(*spec, path, *proof, *cex);
    if (!written.ok()) {
      PrintError(err, absl::StrCat("--cex-out: ", written.message()));
      return kExitInputError;
    }
    report.mutable_proof()->mutable_counterexample()->set_cex_spec(*cex);
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintText(report.proof(), out);
  return ExitCodeFor(report);
}

}  // namespace warpcheck::cli
