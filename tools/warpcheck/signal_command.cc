#include "tools/warpcheck/signal_command.h"

#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "sim/signal/driver.h"
#include "sim/base/enum_name.h"
#include "sim/signal/program.h"
#include "tools/warpcheck/cli.h"
#include "tools/warpcheck/output.h"
#include "tools/warpcheck/signal_render.h"

namespace warpcheck::cli {

namespace sig = warpcheck::sim::signal;

namespace {

constexpr char kRunUsage[] =
    "usage: warpcheck signal run PROGRAM.textproto [options]\n"
    "\n"
    "Runs a warpcheck.SignalProgram (proto/signal.proto) over its ranks: lints it, then\n"
    "schedules it and reports completes, deadlock (with the blocked agents, the cause and\n"
    "the wait-for graph), race, nondeterministic (with the deciding interleaving) or\n"
    "static_error. Exit 0 completes, 10 anything else found, 2 bad input, 5 inconclusive:\n"
    "--max-states stopped the search first (what it found is reported: a deadlock found\n"
    "is one the program can reach, with its trail, never the verdict 'deadlock').\n"
    "\n"
    "Options:\n"
    "  --ranks=N                override the program's rank count (N)\n"
    "  --ctas=G                 override G (default CTAs per kernel)\n"
    "  --iterations=E           override E\n"
    "  --schedule=explore|fifo|random   every interleaving (default), or one run\n"
    "  --seed=S                 random schedule seed\n"
    "  --max-states=N           exploration bound\n"
    "  --max-memory=SIZE        memory budget of the exploration (bytes, or with K, M or G;\n"
    "                           default 4G); reaching it ends inconclusive with the figure\n"
    "  --no-reduction           explore without partial-order reduction\n"
    "  --no-counter-abstraction reduce without the counter abstraction (adds as writes)\n"
    "  --symmetry=auto|off      explore one state per orbit of the rank rotations that\n"
    "                           preserve the program, when it has them (default auto)\n"
    "  --trail-out=FILE         write the reported run as a replayable SignalTrace\n"
    "  --svg=FILE               write the wait-for graph of a deadlock\n"
    "  --format=text|json|textproto\n";

constexpr char kReplayUsage[] =
    "usage: warpcheck signal replay TRACE.textproto [--explore-nearby] [--format=...]\n"
    "\n"
    "Replays a warpcheck.SignalTrace: schedules its program constrained to the recorded\n"
    "per-word order of writes and reports whether the recorded hang is reproduced or the\n"
    "first divergence. --explore-nearby then explores every interleaving to say whether\n"
    "the hang was inevitable or timing-dependent.\n";

constexpr char kLintUsage[] =
    "usage: warpcheck signal lint PROGRAM.textproto [--format=...]\n"
    "\n"
    "Static checks (wait count > 32, release waits, divergent waits, scope=gpu notify to a\n"
    "peer, mixed set/add, narrow wait scope, width and API mismatches, a rank outside\n"
    "0..N-1, a wait on a word nobody writes, an intra_node notify to another node).\n"
    "Exit 10 when an error-level finding exists.\n";

absl::StatusOr<sig::LoadOverrides> Overrides(const ParsedArgs& args) {
  sig::LoadOverrides o;
  auto num = [&](const char* flag, int64_t min, int64_t max,
                 int64_t* out) -> absl::Status {
    absl::StatusOr<std::optional<int64_t>> v = args.GetInt(flag, min, max);
    if (!v.ok()) return v.status();
    if (v->has_value()) *out = **v;
    return absl::OkStatus();
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t ranks = 0;
  if (auto s = num("ranks", 1, 1024, &ranks); !s.ok()) return s;
  o.ranks = static_cast<int>(ranks);
  if (auto s = num("ctas", 0, kMax, &o.ctas); !s.ok()) return s;
  if (auto s = num("iterations", 0, kMax, &o.iterations); !s.ok()) return s;
  if (auto s = num("max-states", 0, kMax, &o.max_states); !s.ok()) return s;
  return o;
}

// "--max-memory=SIZE": bytes, or a number with a K, M or G suffix (powers of 1024).
absl::StatusOr<int64_t> ParseMemoryFlag(const std::string& text) {
  std::string digits = text;
  int shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift > 0) digits.pop_back();
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(digits, &n) || n <= 0 || n > (int64_t{1} << (62 - shift)))
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-memory=", text, ": expected a positive size in bytes, or with K, M or G (e.g. 512M)"));
  return n << shift;
}

void PrintText(const SignalReport& r, std::ostream& out) {
  out << "outcome: " << sim::base::EnumName(r.outcome());
  if (r.schedule() == "explore" || r.schedule() == "replay")
    out << "  (" << r.states() << " states, " << r.transitions() << " transitions, "
        << absl::StrFormat("%.3f", r.seconds()) << " s"
        << (r.bound_hit() ? ", bound hit" : "") << ")";
  out << "\n";
  if (absl::StartsWith(r.symmetry(), "rotation")) out << "symmetry: " << r.symmetry() << "\n";
  if (r.replay() != SignalReport::REPLAY_UNSET) {
    out << "replay: " << sim::base::EnumName(r.replay()) << "\n";
    if (!r.divergence().empty()) out << "divergence: " << r.divergence() << "\n";
    if (r.nearby() != SignalNearby::VERDICT_UNSET)
      out << "nearby: " << sim::base::EnumName(r.nearby()) << "\n";
  }
  for (const SignalLint& l : r.lints())
    out << sim::base::EnumName(l.severity()) << " [" << sim::base::EnumName(l.id()) << "] " << l.text()
        << "\n";
  if (!r.explanation().text().empty()) out << r.explanation().text() << "\n";
  for (const std::string& w : r.explanation().writes()) out << "  write: " << w << "\n";
  for (const SignalEdge& e : r.explanation().edges())
    out << "  wait-for: " << e.from() << " -> " << e.to() << " (" << sim::base::EnumName(e.to_state()) << ")"
        << (e.site().empty() ? "" : " via " + e.site())
        << (e.word().empty() ? "" : " on " + e.word()) << "\n";
  if (r.outcome() == SignalReport::completes && r.final_values_size() > 0) {
    std::vector<std::string> v;
    // Printed as the doubles the values were stored as before they became integers
    // (six significant digits), so the text does not change.
    for (const auto& [k, x] : r.final_values())
      v.push_back(absl::StrCat(k, "=", static_cast<double>(x)));
    std::sort(v.begin(), v.end());
    out << "final: " << absl::StrJoin(v, " ") << "\n";
  }
  if (!r.trail().empty()) {
    out << "trail (" << r.trail_size() << " steps):\n";
    for (const std::string& t : r.trail()) out << "  " << t << "\n";
  }
}

int Finish(const ParsedArgs& args, const sig::RunResult& res, std::ostream& out,
           std::ostream& err, Report* report) {
  auto format = ParseFormatFlag(args);
  if (!format.ok()) {
    PrintError(err, format.status().message());
    return kExitUsage;
  }
  if (auto path = args.Get("trail-out")) {
    if (!res.has_trace) {
      PrintError(err, "--trail-out: this run produced no trail (nothing was scheduled)");
    } else {
      std::string text;
      google::protobuf::TextFormat::PrintToString(res.trace, &text);
      if (!WriteOutputFile(*path,
                           absl::StrCat("# proto-file: proto/signal.proto\n"
                                        "# proto-message: warpcheck.SignalTrace\n",
                                        text),
                           "", err))
        return kExitInputError;
    }
  }
  if (auto path = args.Get("svg")) {
    if (!HasWaitForGraph(res.report)) {
      PrintError(err, "--svg: no deadlock, so no wait-for graph was written");
    } else if (!WriteOutputFile(*path, RenderWaitForSvg(res.report.explanation()), "",
                                err)) {
      return kExitInputError;
    }
  }
  Report rep;
  *rep.mutable_signal() = res.report;
  if (report) *report = rep;
  if (!PrintMachineReport(rep, *format, out)) PrintText(res.report, out);
  return ExitCodeFor(rep);
}

}  // namespace

std::set<std::string> SignalRunValueFlags() {
  return {"ranks", "ctas", "iterations", "schedule", "seed", "max-states", "max-memory", "format",
          "trail-out", "svg", "symmetry"};
}

int RunSignalRun(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report) {
  if (args.Has("help")) {
    out << kRunUsage;
    return kExitOk;
  }
  if (args.positional.size() != 1) {
    PrintError(err, "signal run: expected exactly one PROGRAM.textproto");
    return kExitUsage;
  }
  auto o = Overrides(args);
  if (!o.ok()) {
    PrintError(err, o.status().message());
    return kExitUsage;
  }
  sig::RunOptions opt;
  if (auto s = args.Get("schedule")) {
    if (*s != "explore" && *s != "fifo" && *s != "random") {
      PrintError(err, absl::StrCat("--schedule=", *s, ": expected fifo, random or explore"));
      return kExitUsage;
    }
    opt.schedule = *s;
  }
  absl::StatusOr<std::optional<int64_t>> seed =
      args.GetInt("seed", 0, std::numeric_limits<int64_t>::max());
  if (!seed.ok()) {
    PrintError(err, seed.status().message());
    return kExitUsage;
  }
  if (seed->has_value()) opt.seed = static_cast<uint64_t>(**seed);
  opt.max_states = o->max_states;
  if (auto mem = args.Get("max-memory")) {
    absl::StatusOr<int64_t> bytes = ParseMemoryFlag(*mem);
    if (!bytes.ok()) {
      PrintError(err, bytes.status().message());
      return kExitUsage;
    }
    opt.max_memory_bytes = *bytes;
  }
  opt.reduce = !args.Has("no-reduction");
  opt.counters = !args.Has("no-counter-abstraction");
  if (auto sym = args.Get("symmetry")) {
    if (*sym != "off" && *sym != "auto") {
      PrintError(err, absl::StrCat("--symmetry=", *sym, ": expected off or auto"));
      return kExitUsage;
    }
    opt.symmetry = *sym == "auto";
  }
  auto p = sig::LoadProgramFile(args.positional[0], *o);
  if (!p.ok()) {
    PrintError(err, p.status().message());
    return kExitInputError;
  }
  auto res = sig::RunProgram(*p, opt);
  if (!res.ok()) {
    PrintError(err, res.status().message());
    return kExitInputError;
  }
  return Finish(args, *res, out, err, report);
}

int RunSignalLint(const ParsedArgs& args, std::ostream& out, std::ostream& err, Report* report) {
  if (args.Has("help")) {
    out << kLintUsage;
    return kExitOk;
  }
  if (args.positional.size() != 1) {
    PrintError(err, "signal lint: expected exactly one PROGRAM.textproto");
    return kExitUsage;
  }
  auto o = Overrides(args);
  if (!o.ok()) {
    PrintError(err, o.status().message());
    return kExitUsage;
  }
  auto p = sig::LoadProgramFile(args.positional[0], *o);
  if (!p.ok()) {
    PrintError(err, p.status().message());
    return kExitInputError;
  }
  auto res = sig::LintProgram(*p);
  if (!res.ok()) {
    PrintError(err, res.status().message());
    return kExitInputError;
  }
  if (res->report.lints_size() == 0) res->report.mutable_explanation()->set_text("no findings");
  return Finish(args, *res, out, err, report);
}

int RunSignalReplay(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                    Report* report) {
  if (args.Has("help")) {
    out << kReplayUsage;
    return kExitOk;
  }
  if (args.positional.size() != 1) {
    PrintError(err, "signal replay: expected exactly one TRACE.textproto");
    return kExitUsage;
  }
  auto o = Overrides(args);
  if (!o.ok()) {
    PrintError(err, o.status().message());
    return kExitUsage;
  }
  auto loaded = sig::LoadTraceFile(args.positional[0], *o);
  if (!loaded.ok()) {
    PrintError(err, loaded.status().message());
    return kExitInputError;
  }
  sig::ReplayOptions ro;
  ro.explore_nearby = args.Has("explore-nearby");
  ro.max_states = o->max_states;
  auto res = sig::Replay(loaded->first, loaded->second, args.positional[0], ro);
  if (!res.ok()) {
    PrintError(err, res.status().message());
    return kExitInputError;
  }
  return Finish(args, *res, out, err, report);
}

}  // namespace warpcheck::cli
