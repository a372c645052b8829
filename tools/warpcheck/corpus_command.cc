#include "tools/warpcheck/corpus_command.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/fuzz.pb.h"
#include "proto/layout.pb.h"
#include "proto/swizzle.pb.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/base/text_proto.h"
#include "sim/layout/layout_case.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/launch.h"
#include "sim/signal/expect.h"
#include "sim/swizzle/problem.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "verify/fuzz/campaign.h"
#include "verify/swizzle_check.h"

namespace warpcheck::cli {
namespace {

namespace fs = std::filesystem;
namespace sw = ::warpcheck::sim::swizzle;

constexpr char kCorpusCheckUsage[] =
    "usage: warpcheck corpus check [PATH...] [--format=text|json|textproto] [--verbose]\n"
    "\n"
    "Runs every case of every corpus file (default: the `corpus` directory) and compares\n"
    "it with the expectation written inside the file. Exit 0 when all hold, 10 when a\n"
    "case fails, 2 when a corpus file is malformed.\n";

// sim::base::ReadFile, with corpus check's own error text.
absl::StatusOr<std::string> ReadCorpusFile(const std::string& path) {
  absl::StatusOr<std::string> text = sim::base::ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read file"));
  return text;
}

CaseResult Case(const std::string& path, const std::string& name, bool ok,
                const std::string& detail) {
  CaseResult r;
  r.set_file(path);
  r.set_name(name);
  r.set_ok(ok);
  r.set_detail(detail);
  return r;
}

// A one-case file: the file is the case, named by its stem.
std::vector<CaseResult> FileCase(const std::string& path, bool ok, const std::string& detail) {
  return {Case(path, fs::path(path).stem().string(), ok, detail)};
}

absl::StatusOr<std::vector<CaseResult>> CheckLayoutFile(const std::string& path) {
  LayoutCorpus corpus;
  RETURN_IF_ERROR(sim::base::ParseTextProtoFile(path, &corpus));
  std::vector<CaseResult> results;
  for (const LayoutCase& c : corpus.cases()) {
    sim::layout::CaseOutcome outcome = sim::layout::CheckLayoutCase(c);
    results.push_back(Case(path, c.name(), outcome.ok, outcome.detail));
  }
  return results;
}

// Why the outcome does not meet the expectation, or "" when it does: the verdict, then
// (violated) the counterexample kind and the given parameters of the smallest one.
std::string SwizzleMismatch(const SwizzleExpect& expect, const verify::SwizzleOutcome& o) {
  std::string got(sw::VerdictName(o.verdict));
  if (got != expect.verdict()) {
    return absl::StrCat("expected ", expect.verdict(), ", got ", got, " (",
                        verify::CheckedByName(o.checked), ")",
                        o.counterexample ? ": " + o.counterexample->ToString() : "",
                        o.reason.empty() ? "" : ": " + o.reason);
  }
  if (!o.counterexample) return "";
  if (!expect.kind().empty() && expect.kind() != sw::ViolationKindName(o.counterexample->kind)) {
    return absl::StrCat("expected kind ", expect.kind(), ", got ", o.counterexample->ToString());
  }
  for (const auto& [name, value] : expect.params()) {
    const auto& params = o.counterexample->params;
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const sw::NamedValue& nv) { return nv.name == name; });
    if (it == params.end() || it->value != value) {
      return absl::StrCat("expected the smallest counterexample to have ", name, "=", value,
                          ", got ", o.counterexample->ToString());
    }
  }
  return "";
}

absl::StatusOr<std::vector<CaseResult>> CheckSwizzleFile(const std::string& path) {
  SwizzleProblem proto;
  ASSIGN_OR_RETURN(sw::Problem problem, sw::LoadProblemFile(path, &proto));
  if (proto.expect().verdict() != "holds" && proto.expect().verdict() != "violated") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expect.verdict must be \"holds\" or \"violated\""));
  }
  // An engine the file misspells has always meant the proof alone here (prove rejects it
  // as a usage error); every corpus file names a valid one.
  sw::Engine engine = sw::ParseEngine(problem.engine).value_or(sw::Engine::kSymbolic);
  ASSIGN_OR_RETURN(verify::SwizzleOutcome outcome, verify::CheckSwizzle(problem, engine));
  std::string mismatch = SwizzleMismatch(proto.expect(), outcome);
  return FileCase(path, mismatch.empty(), mismatch);
}

absl::StatusOr<std::vector<CaseResult>> CheckLaunchFile(const std::string& path) {
  ASSIGN_OR_RETURN(LaunchSpec spec, sim::launch::LoadLaunchSpec(path));
  ASSIGN_OR_RETURN(SimReport report, sim::machine::RunLaunchSpecFile(path, {}));
  absl::Status expected = sim::machine::CheckSimExpect(spec, report);
  return FileCase(path, expected.ok(), std::string(expected.message()));
}

absl::StatusOr<std::vector<CaseResult>> CheckSignalFile(const std::string& path, bool trace) {
  ASSIGN_OR_RETURN(sim::signal::ExpectCheck check, sim::signal::CheckCorpusFile(path, trace));
  return FileCase(path, check.ok, check.detail);
}

// A saved conversion pair (fuzz layouts --corpus-out): the whole check, compared with
// the expected verdict (and stage, when the case expects a failure).
absl::StatusOr<std::vector<CaseResult>> CheckConversionFile(const std::string& path) {
  ConversionCase c;
  RETURN_IF_ERROR(sim::base::ParseTextProtoFile(path, &c));
  const std::string& want = c.expect().verdict();
  if (want != "ok" && want != "failed" && want != "out_of_scope" && want != "inconclusive") {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": expect.verdict must be \"ok\", \"failed\", \"out_of_scope\" or "
              "\"inconclusive\" (got \"", want, "\")"));
  }
  std::vector<int64_t> shape(c.shape().begin(), c.shape().end());
  auto pair = verify::fuzz::PairFromText(c.src(), c.dst(), shape, c.dtype(), c.num_warps());
  if (!pair.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", pair.status().message()));
  verify::fuzz::CheckOptions options;
  options.prove_ptx = !c.skip_proof();
  options.roundtrip = !c.one_way();
  verify::fuzz::PairOutcome o;
  if (c.subject() == "triton") {
    // Triton's kernel as it was compiled when the case was found.
    const std::string ptx_path = (fs::path(path).parent_path() / c.ptx_file()).string();
    ASSIGN_OR_RETURN(std::string ptx, sim::base::ReadFile(ptx_path));
    o = verify::fuzz::CheckTritonKernel(*pair, ptx, ptx_path, c.shared_bytes(), options);
  } else if (c.subject().empty() || c.subject() == "ours") {
    o = verify::fuzz::CheckPair(*pair, options);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": subject must be \"ours\" or \"triton\" (got \"", c.subject(), "\")"));
  }
  std::string got = verify::fuzz::PairVerdictName(o.verdict);
  bool ok = got == want && (c.expect().stage().empty() || c.expect().stage() == o.stage);
  std::string detail =
      ok ? "" : absl::StrCat("expected ", want,
                             c.expect().stage().empty() ? "" : " at " + c.expect().stage(),
                             ", got ", got, o.stage.empty() ? "" : " at " + o.stage,
                             o.detail.empty() ? "" : ": " + o.detail);
  return std::vector<CaseResult>{Case(path, c.name().empty() ? fs::path(path).stem().string() : c.name(), ok, detail)};
}

}  // namespace

const std::vector<CorpusKind>& CorpusKinds() {
  static const auto* kKinds = new std::vector<CorpusKind>{
      {"warpcheck.LayoutCorpus", CheckLayoutFile},
      {"warpcheck.SwizzleProblem", CheckSwizzleFile},
      {"warpcheck.LaunchSpec", CheckLaunchFile},
      {"warpcheck.ConversionCase", CheckConversionFile},
      {"warpcheck.SignalProgram",
       [](const std::string& path) { return CheckSignalFile(path, /*trace=*/false); }},
      {"warpcheck.SignalTrace",
       [](const std::string& path) { return CheckSignalFile(path, /*trace=*/true); }},
  };
  return *kKinds;
}

std::string ProtoMessageHeader(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) != 0) break;
    const std::string key = "# proto-message:";
    if (line.rfind(key, 0) == 0) {
      std::string v = line.substr(key.size());
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t\r") + 1);
      return v;
    }
  }
  return "";
}

absl::StatusOr<std::vector<CaseResult>> CheckCorpusFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadCorpusFile(path));
  const std::string message = ProtoMessageHeader(text);
  for (const CorpusKind& kind : CorpusKinds()) {
    if (message == kind.proto_message) return kind.check(path);
  }
  std::vector<std::string> known;
  for (const CorpusKind& kind : CorpusKinds()) known.push_back(kind.proto_message);
  return absl::InvalidArgumentError(absl::StrCat(
      path, ":1:1: a corpus file starts with '# proto-message: ' and one of ",
      absl::StrJoin(known, ", "),
      message.empty() ? " (no header found)" : absl::StrCat(" (found '", message, "')")));
}

int RunCorpusCheck(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report_out) {
  if (args.Has("help")) {
    out << kCorpusCheckUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  std::vector<std::string> roots = args.positional;
  if (roots.empty()) roots.push_back("corpus");
  std::vector<std::string> files;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (fs::is_directory(root, ec)) {
      for (auto it = fs::recursive_directory_iterator(root, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".textproto") {
          files.push_back(it->path().string());
        }
      }
    } else if (fs::is_regular_file(root, ec)) {
      files.push_back(root);
    } else {
      PrintError(err, absl::StrCat(root, ": no such file or directory"));
      return kExitInputError;
    }
  }
  std::sort(files.begin(), files.end());
  Report report;
  CorpusReport* corpus = report.mutable_corpus();
  const bool verbose = args.Has("verbose");
  bool unreadable = false;
  for (const std::string& f : files) {
    absl::StatusOr<std::vector<CaseResult>> results = CheckCorpusFile(f);
    if (!results.ok()) {
      PrintError(err, results.status().message());
      unreadable = true;
      continue;
    }
    corpus->set_files(corpus->files() + 1);
    for (CaseResult& r : *results) {
      corpus->set_cases(corpus->cases() + 1);
      if (r.ok()) {
        corpus->set_passed(corpus->passed() + 1);
      } else {
        corpus->set_failed(corpus->failed() + 1);
      }
      if (!r.ok() || verbose) *corpus->add_results() = std::move(r);
    }
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) {
    for (const CaseResult& r : corpus->results()) {
      out << (r.ok() ? "PASS " : "FAIL ") << r.file() << ": " << r.name();
      if (!r.ok()) out << ": " << r.detail();
      out << "\n";
    }
    out << corpus->files() << " files, " << corpus->cases() << " cases: " << corpus->passed()
        << " passed, " << corpus->failed() << " failed\n";
  }
  // A file that could not be checked is an input error, whatever the other files did.
  return unreadable ? kExitInputError : ExitCodeFor(report);
}

}  // namespace warpcheck::cli
