#include "tools/warpcheck/fuzz_command.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "proto/fuzz.pb.h"
#include "sim/base/file.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/fuzz_triton.h"
#include "tools/warpcheck/output.h"
#include "verify/fuzz/campaign.h"

namespace warpcheck::cli {
namespace {

namespace fz = verify::fuzz;

constexpr char kUsage[] =
    "usage: warpcheck fuzz layouts [--seconds=60] [--count=N] [--seed=S] [--shard=i/n]\n"
    "                              [--prove=all|sample|none] [--corpus-out=DIR]\n"
    "                              [--one-way] [--format=text|json|textproto]\n"
    "\n"
    "Generates layout-conversion pairs nobody wrote (blocked, slice, linear with random\n"
    "bases, nvidia_mma v2/v3, dot_op; ranks 1-3, 8-64-bit elements, 1-16 warps, with a\n"
    "share of adversarial ones) and runs each through the whole pipeline: plan both\n"
    "directions, emit the check harness (the conversion alone, then the round trip),\n"
    "simulate it on random data and on distinct tags, prove the PTX with Z3 for every\n"
    "input, and compare the cost model's shared-memory prediction with the simulator's\n"
    "counts (--one-way: the conversion alone, planned as `convert plan` plans it, in the\n"
    "once harness). A failure is shrunk (fewer warps, smaller shape, simpler\n"
    "encodings) to a minimal pair that fails at the same step, printed as a `convert\n"
    "check` command and written under --corpus-out as a corpus case (`corpus check DIR`\n"
    "replays it).\n"
    "\n"
    "Options:\n"
    "  --seconds=X        wall-clock budget (default 60, or none with --count; 0 = none)\n"
    "  --count=N          stop after N pairs (of this shard)\n"
    "  --seed=S           the campaign (default 1): pair i is a function of (S, i)\n"
    "  --shard=i/n        run pairs i, i+n, i+2n, ...; the n shards of a seed are the\n"
    "                     whole campaign and write distinct corpus files\n"
    "  --prove=all|sample|none\n"
    "                     prove every pair's PTX (default), a deterministic share of\n"
    "                     them (--prove-share, default 0.1), or none\n"
    "  --prove-share=X    the share proven with --prove=sample (0..1)\n"
    "  --one-way          check each pair's conversion alone (no way back, no loop):\n"
    "                     plan -> emit -> simulate -> prove -> cost model, about twice\n"
    "                     the pairs a second\n"
    "  --max-shrunk=N     shrink at most N failures (default 20; the rest are reported\n"
    "                     as found)\n"
    "  --corpus-out=DIR   write each distinct failure as DIR/fuzz_s<S>_i<index>.textproto\n"
    "  --against=ours|triton\n"
    "                     the subject: our planner and codegen (default), or the kernels\n"
    "                     the pip `triton` package compiles for the pairs on the CPU\n"
    "                     (GPUTarget cuda 90; rank 1-2 pairs), run and proven the same way\n"
    "  --jobs=N           triton: parallel compile workers (default: the cores)\n"
    "  --python=PATH      triton: the Python with triton installed (default python3)\n"
    "  --triton-compiler=PATH  triton: the compile script (default: the source tree's\n"
    "                     tools/oracle/triton_fuzz_compile.py)\n"
    "  --triton-timeout=S triton: seconds one compile may take (default 60); a pair\n"
    "                     past it is inconclusive (its compile killed)\n"
    "  --work-dir=DIR     triton: keep the TTGIR, PTX and results there (default: a\n"
    "                     temporary directory, removed at the end)\n"
    "  --format=text|json|textproto\n"
    "\n"
    "Pairs the planner rejects as input errors are counted as out of scope, by reason.\n"
    "On a terminal a progress line is drawn on stderr. A crash prints the pair being run.\n"
    "Exit codes: 0 no failure, 10 failures found, 1 usage error, 2 input error.\n";

// ---- crash report: the pair being run, written from a signal handler ------------------

char g_current_pair[8192];

void OnFatalSignal(int sig) {
  const char head[] = "\nwarpcheck fuzz layouts: crashed while running pair ";
  (void)!write(STDERR_FILENO, head, sizeof(head) - 1);
  (void)!write(STDERR_FILENO, g_current_pair, strnlen(g_current_pair, sizeof(g_current_pair)));
  (void)!write(STDERR_FILENO, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class CrashReporter {
 public:
  CrashReporter() {
    for (int s : kSignals) previous_[Index(s)] = std::signal(s, OnFatalSignal);
  }
  ~CrashReporter() {
    for (int s : kSignals) std::signal(s, previous_[Index(s)]);
  }
  static void Set(int64_t index, const fz::FuzzPair& pair) {
    std::string text = absl::StrCat("#", index, ": warpcheck convert check ", pair.CommandLine());
    const size_t n = std::min(text.size(), sizeof(g_current_pair) - 1);
    std::memcpy(g_current_pair, text.data(), n);
    g_current_pair[n] = '\0';
  }

 private:
  static constexpr int kSignals[] = {SIGSEGV, SIGABRT, SIGFPE, SIGILL, SIGBUS};
  static int Index(int s) {
    for (int i = 0; i < 5; ++i) {
      if (kSignals[i] == s) return i;
    }
    return 0;
  }
  void (*previous_[5])(int) = {};
};

// ---- flags ------------------------------------------------------------------------------

struct FuzzFlags {
  fz::CampaignOptions campaign;
  std::string corpus_out;
  std::string against;
  TritonSubject triton;
};

// Reads the flags into `f`; a usage error's message otherwise.
absl::Status ReadFlags(const ParsedArgs& args, FuzzFlags* f) {
  fz::CampaignOptions& c = f->campaign;
  if (auto s = args.Get("seconds")) {
    if (!absl::SimpleAtod(*s, &c.seconds) || !(c.seconds >= 0) || c.seconds > 1e7) {
      return absl::InvalidArgumentError(
          absl::StrCat("--seconds=", *s, ": expected a number of seconds >= 0"));
    }
  }
  auto count = args.GetInt("count", 0, int64_t{1} << 40);
  if (!count.ok()) return count.status();
  if (count->has_value()) {
    c.count = **count;
    if (!args.Has("seconds")) c.seconds = 0;  // --count alone: exactly that many pairs
  }
  if (c.seconds <= 0 && c.count < 0) {
    return absl::InvalidArgumentError("--seconds=0 needs --count: the campaign must end");
  }
  auto seed = args.GetInt("seed", 0, INT64_MAX);
  if (!seed.ok()) return seed.status();
  c.seed = static_cast<uint64_t>(seed->value_or(1));
  if (auto s = args.Get("shard")) {
    std::vector<std::string> parts = absl::StrSplit(*s, '/');
    int i = -1, n = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &i) || !absl::SimpleAtoi(parts[1], &n) ||
        n < 1 || n > 1000000 || i < 0 || i >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shard=", *s, ": expected i/n with 0 <= i < n (e.g. 0/8)"));
    }
    c.shard_index = i;
    c.shard_count = n;
  }
  const std::string prove = args.Get("prove").value_or("all");
  if (prove != "all" && prove != "sample" && prove != "none") {
    return absl::InvalidArgumentError(
        absl::StrCat("--prove=", prove, ": expected all, sample or none"));
  }
  c.prove_share = prove == "all" ? 1.0 : prove == "none" ? 0.0 : 0.1;
  if (auto s = args.Get("prove-share")) {
    double share = 0;
    if (prove != "sample" || !absl::SimpleAtod(*s, &share) || !(share >= 0) || share > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--prove-share=", *s, ": expected a share in [0, 1], with --prove=sample"));
    }
    c.prove_share = share;
  }
  auto shrunk = args.GetInt("max-shrunk", 0, 100000);
  if (!shrunk.ok()) return shrunk.status();
  if (shrunk->has_value()) c.max_shrunk = static_cast<int>(**shrunk);
  f->against = args.Get("against").value_or("ours");
  if (f->against != "ours" && f->against != "triton") {
    return absl::InvalidArgumentError(
        absl::StrCat("--against=", f->against, ": expected ours or triton"));
  }
  auto jobs = args.GetInt("jobs", 1, 1024);
  if (!jobs.ok()) return jobs.status();
  f->triton.jobs = static_cast<int>(jobs->value_or(std::max(1u, std::thread::hardware_concurrency())));
  f->triton.python = args.Get("python").value_or("python3");
  f->triton.script = args.Get("triton-compiler")
                         .value_or(std::string(WARPCHECK_SOURCE_DIR) +
                                   "/tools/oracle/triton_fuzz_compile.py");
  f->triton.work_dir = args.Get("work-dir").value_or("");
  if (auto t = args.Get("triton-timeout")) {
    if (!absl::SimpleAtod(*t, &f->triton.timeout_seconds) || !(f->triton.timeout_seconds > 0) ||
        f->triton.timeout_seconds > 1e6) {
      return absl::InvalidArgumentError(
          absl::StrCat("--triton-timeout=", *t, ": expected seconds > 0"));
    }
  }
  f->corpus_out = args.Get("corpus-out").value_or("");
  if (args.Has("one-way")) {
    if (f->against == "triton") {
      return absl::InvalidArgumentError(
          "--one-way: Triton is checked on its round-trip kernel; drop --one-way or "
          "--against=triton");
    }
    c.check.roundtrip = false;
  }
  return absl::OkStatus();
}

// ---- corpus cases -----------------------------------------------------------------------

std::string CaseName(uint64_t seed, int64_t index) {
  return absl::StrCat("fuzz_s", seed, "_i", index);
}

// The corpus case of a failure: the minimal pair, expected to convert correctly (the
// replay fails until the bug is fixed, and guards it after).
ConversionCase ToCase(const fz::Failure& f, uint64_t seed, const std::string& against,
                      bool one_way) {
  ConversionCase c;
  c.set_one_way(one_way);
  c.set_name(CaseName(seed, f.index));
  c.set_src(f.minimal.SrcText());
  c.set_dst(f.minimal.DstText());
  for (int64_t s : f.minimal.shape) c.add_shape(s);
  c.set_dtype(sim::plan::DTypeName(f.minimal.dtype));
  c.set_num_warps(f.minimal.num_warps);
  c.mutable_expect()->set_verdict("ok");
  c.set_seed(seed);
  c.set_index(f.index);
  c.set_strategy(f.original.strategy);
  c.set_found(absl::StrCat(f.outcome.stage, ": ", f.outcome.detail));
  c.set_original(f.original.CommandLine());
  if (against == "triton") {
    // Triton's miscompile stays a failure: the case guards that warpcheck keeps
    // refuting the kernel Triton produced.
    c.set_subject("triton");
    c.mutable_expect()->set_verdict("failed");
    c.mutable_expect()->set_stage(f.outcome.stage);
    c.set_ptx_file(c.name() + ".ptx");
  }
  return c;
}

std::string CaseText(const ConversionCase& c) {
  std::string body;
  google::protobuf::TextFormat::PrintToString(c, &body);
  return absl::StrCat(
      "# proto-file: proto/fuzz.proto\n# proto-message: warpcheck.ConversionCase\n",
      "# Found by `warpcheck fuzz layouts --seed=", c.seed(), "` at pair ", c.index(),
      "; replay: warpcheck corpus check <this file>\n", body);
}

// ---- report -----------------------------------------------------------------------------

FuzzReport ToReport(const fz::CampaignResult& r, const fz::CampaignOptions& o,
                    const FuzzFlags& flags) {
  FuzzReport rep;
  rep.set_pairs(r.pairs);
  rep.set_pairs_per_second(r.seconds > 0 ? static_cast<double>(r.pairs) / r.seconds : 0);
  rep.set_failures(static_cast<int64_t>(r.failures.size()));
  rep.set_seed(o.seed);
  rep.set_against(flags.against);
  for (const auto& [reason, n] : flags.triton.errors) (*rep.mutable_triton_errors())[reason] = n;
  rep.set_shard(absl::StrCat(o.shard_index, "/", o.shard_count));
  rep.set_seconds(r.seconds);
  rep.set_ok(r.ok);
  rep.set_out_of_scope(r.out_of_scope);
  rep.set_inconclusive(r.inconclusive);
  rep.set_failed_pairs(r.failed);
  rep.set_proved(r.proved);
  rep.set_check_ms_mean(r.pairs > 0 ? 1e3 * r.check_seconds / static_cast<double>(r.pairs) : 0);
  if (flags.against != "triton" && r.pairs > 0) {
    const double ms = 1e3 / static_cast<double>(r.pairs);
    for (const auto& [name, field] : fz::kStages) {
      (*rep.mutable_check_ms_by_stage())[name] = r.stage_seconds.*field * ms;
    }
  }
  rep.set_stopped_by_time(r.stopped_by_time);
  rep.set_check(o.check.roundtrip ? "round-trip" : "one-way");
  for (const auto& [name, c] : r.by_strategy) {
    FuzzReport::Counts& out = (*rep.mutable_by_strategy())[name];
    out.set_pairs(c.pairs);
    out.set_ok(c.ok);
    out.set_out_of_scope(c.out_of_scope);
    out.set_inconclusive(c.inconclusive);
    out.set_failed(c.failed);
  }
  for (const auto& [reason, n] : r.out_of_scope_reasons) {
    (*rep.mutable_out_of_scope_reasons())[reason] = n;
  }
  for (const auto& [reason, text] : r.out_of_scope_examples) {
    (*rep.mutable_out_of_scope_examples())[reason] = text;
  }
  for (const fz::Failure& f : r.failures) {
    FuzzReport::Failure* out = rep.add_failure_cases();
    out->set_index(f.index);
    out->set_strategy(f.original.strategy);
    out->set_stage(f.outcome.stage);
    out->set_detail(f.outcome.detail);
    // The `convert check` flags that replay it, the check included.
    out->set_pair(absl::StrCat(f.minimal.CommandLine(), o.check.roundtrip ? "" : " --one-way"));
    out->set_original(f.original.CommandLine());
    out->set_shrink_steps(f.shrink_steps);
    out->set_duplicates(f.duplicates);
  }
  return rep;
}

void PrintText(const FuzzReport& r, std::ostream& out) {
  out << "fuzz layouts: seed " << r.seed() << ", shard " << r.shard() << ", against "
      << r.against() << ", check " << r.check() << "\n";
  out << absl::StrFormat("  %d pairs in %.1f s (%.1f pairs/s; %.2f ms per pair in the "
                         "pipeline), %d proven\n",
                         r.pairs(), r.seconds(), r.pairs_per_second(), r.check_ms_mean(),
                         r.proved());
  if (!r.check_ms_by_stage().empty()) {
    out << "  ms per pair by stage:";
    const char* sep = " ";
    for (const auto& [stage, field] : fz::kStages) {
      auto it = r.check_ms_by_stage().find(stage);
      if (it == r.check_ms_by_stage().end()) continue;
      out << absl::StrFormat("%s%s %.3f", sep, stage, it->second);
      sep = ", ";
    }
    out << "\n";
  }
  out << "  ok " << r.ok() << ", out of scope " << r.out_of_scope() << ", inconclusive "
      << r.inconclusive() << ", failed " << r.failed_pairs() << " (" << r.failures()
      << " distinct)\n";
  for (const auto& [name, c] : r.by_strategy()) {
    out << absl::StrFormat("  %-12s %6d pairs: ok %d, out of scope %d, inconclusive %d, "
                           "failed %d\n",
                           name, c.pairs(), c.ok(), c.out_of_scope(), c.inconclusive(),
                           c.failed());
  }
  for (const auto& [reason, n] : r.triton_errors()) {
    out << "  triton did not compile " << n << "x: " << reason << "\n";
  }
  for (const auto& [reason, n] : r.out_of_scope_reasons()) {
    out << "  out of scope " << n << "x: " << reason << "\n";
    auto it = r.out_of_scope_examples().find(reason);
    if (it != r.out_of_scope_examples().end() && it->second != reason) {
      out << "    e.g. " << it->second << "\n";
    }
  }
  int k = 0;
  for (const FuzzReport::Failure& f : r.failure_cases()) {
    out << "failure " << ++k << ": " << f.stage() << " at pair #" << f.index() << " ("
        << f.strategy() << ", shrunk in " << f.shrink_steps() << " steps";
    if (f.duplicates() > 0) out << ", " << f.duplicates() << " more pairs shrank to it";
    out << ")\n  warpcheck convert check " << f.pair() << "\n  " << f.detail() << "\n";
    if (!f.case_file().empty()) out << "  case: " << f.case_file() << "\n";
  }
}

}  // namespace

const std::set<std::string>& FuzzValueFlags() {
  static const std::set<std::string> kFlags = {"seconds", "count",      "seed",  "shard",
                                                "prove",   "prove-share", "max-shrunk",
                                                "corpus-out", "format",  "against", "jobs", "python",
                                                "triton-compiler", "work-dir", "triton-timeout"};
  return kFlags;
}

int RunFuzzLayouts(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  if (!args.positional.empty()) {
    PrintError(err, absl::StrCat("fuzz layouts: unexpected argument '", args.positional[0], "'"));
    return kExitUsage;
  }
  auto format = ParseFormatFlag(args);
  FuzzFlags flags;
  absl::Status read = format.ok() ? ReadFlags(args, &flags) : format.status();
  if (!read.ok()) {
    PrintError(err, read.message());
    err << kUsage;
    return kExitUsage;
  }
  if (!flags.corpus_out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(flags.corpus_out, ec);
    if (ec || !std::filesystem::is_directory(flags.corpus_out)) {
      PrintError(err, absl::StrCat("--corpus-out=", flags.corpus_out,
                                   ": cannot create the directory (", ec.message(), ")"));
      return kExitInputError;
    }
  }
  fz::CampaignOptions& options = flags.campaign;
  std::string temp_work;
  if (flags.against == "triton") {
    if (!TritonAvailable(flags.triton.python)) {
      PrintError(err, absl::StrCat("--against=triton: `", flags.triton.python,
                                   " -c 'import triton'` fails; install it with `pip install "
                                   "triton` (no GPU needed)"));
      return kExitInputError;
    }
    if (flags.triton.work_dir.empty()) {
      char tmpl[] = "/tmp/warpcheck-fuzz-triton-XXXXXX";
      if (mkdtemp(tmpl) == nullptr) {
        PrintError(err, "--against=triton: cannot create a work directory in /tmp");
        return kExitInputError;
      }
      flags.triton.work_dir = temp_work = tmpl;
    }
    std::error_code ec;
    std::filesystem::create_directories(flags.triton.work_dir, ec);
    options.batch_size = 8 * flags.triton.jobs;
    options.max_shrink_checks = std::min(options.max_shrink_checks, 60);
    options.check_batch = [&flags](const std::vector<fz::FuzzPair>& pairs,
                                   const std::vector<fz::CheckOptions>& checks) {
      return flags.triton.Check(pairs, checks);
    };
  }
  CrashReporter crash_reporter;
  options.on_pair = [](int64_t index, const fz::FuzzPair& pair) { CrashReporter::Set(index, pair); };
  const bool tty = &err == &std::cerr && isatty(STDERR_FILENO);
  if (tty) {
    options.on_progress = [&err](int64_t pairs, int64_t failures, double seconds) {
      err << absl::StrFormat("\rfuzz layouts: %d pairs, %d failing, %.0f pairs/s   ", pairs,
                             failures, seconds > 0 ? static_cast<double>(pairs) / seconds : 0.0)
          << std::flush;
    };
  }
  fz::CampaignResult result = fz::RunCampaign(options);
  if (tty) err << "\n";
  Report report;
  FuzzReport* rep = report.mutable_fuzz();
  *rep = ToReport(result, options, flags);
  if (!flags.corpus_out.empty()) {
    for (int i = 0; i < rep->failure_cases_size(); ++i) {
      const fz::Failure& failure = result.failures[i];
      ConversionCase c =
          ToCase(failure, options.seed, flags.against, !options.check.roundtrip);
      const std::filesystem::path dir(flags.corpus_out);
      const std::string path = (dir / (c.name() + ".textproto")).string();
      if (flags.against == "triton") {
        const std::string ptx = flags.triton.PtxFor(failure.minimal);
        c.set_shared_bytes(flags.triton.SharedFor(failure.minimal));
        std::error_code ec;
        if (!ptx.empty()) {
          std::filesystem::copy_file(ptx, dir / c.ptx_file(),
                                     std::filesystem::copy_options::overwrite_existing, ec);
          std::filesystem::path ttgir = std::filesystem::path(ptx).replace_extension(".ttgir");
          std::filesystem::copy_file(ttgir, dir / (c.name() + ".ttgir"),
                                     std::filesystem::copy_options::overwrite_existing, ec);
        }
      }
      if (!WriteOutputFile(path, CaseText(c), "corpus case", err)) return kExitInputError;
      rep->mutable_failure_cases(i)->set_case_file(path);
    }
  }
  if (!temp_work.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_work, ec);
  }
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintText(*rep, out);
  return rep->failures() > 0 ? kExitViolated : kExitOk;
}

}  // namespace warpcheck::cli
