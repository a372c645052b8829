#include "tools/warpcheck/prove_layout_command.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/base/bits.h"
#include "sim/layout/encoding.h"
#include "tools/warpcheck/exit_code.h"
#include "tools/warpcheck/output.h"
#include "verify/layout/layout_prove.h"

namespace warpcheck::cli {
namespace {

namespace vl = ::warpcheck::verify::layout;

constexpr char kUsage[] =
    "usage: warpcheck prove layout ATTR --shape=RxC [--property=P] [ranges] [options]\n"
    "\n"
    "Proves a property of the shared-memory layout ATTR (swizzled_shared,\n"
    "amd_rotating_shared, nvmma_shared, padded_shared, shared_linear) for every point of\n"
    "a parameter family, or prints the smallest counterexample. A range A..B means the\n"
    "powers of two from A to B; a single value is that value.\n"
    "\n"
    "Options:\n"
    "  --shape=RxC             dims or ranges, e.g. 64x64 or 16..256x16..256 (required)\n"
    "  --property=P            injective | surjective | bijective (default) |\n"
    "                          bank-conflict-free (needs --access)\n"
    "  --access=A              v4 | ldmatrix | stmatrix (verify/README.md defines them)\n"
    "  --vec=R --per-phase=R --max-phase=R   swizzled / rotating parameters\n"
    "  --swizzle-bytes=R       nvmma_shared's swizzlingByteWidth (0, 32, 64, 128)\n"
    "  --element-bits=R        element size (bank property; nvmma's elementBitWidth)\n"
    "  --engine=symbolic|enumerated   symbolic (default): one query set for the whole\n"
    "                          box where the encoding allows it; enumerated: per point\n"
    "  --rlimit=N              Z3 resource limit per query (deterministic budget)\n"
    "  --max-points=N          points enumerated at most (default 65536)\n"
    "  --format=text|json|textproto\n"
    "Exit: 0 holds, 10 violated, 5 inconclusive, 1 usage error, 2 bad input.\n";

struct RangeFlag {
  const char* flag;
  int64_t max;
};
constexpr RangeFlag kRangeFlags[] = {{"vec", 1024},       {"per-phase", 1024},
                                     {"max-phase", 1024}, {"swizzle-bytes", 128},
                                     {"element-bits", 64}};

int Fail(std::ostream& err, absl::string_view message, int code) {
  PrintError(err, absl::StrCat("prove layout: ", message));
  return code;
}

LayoutProofReport::Verdict ToProto(vl::Verdict v) {
  switch (v) {
    case vl::Verdict::kHolds: return LayoutProofReport::holds;
    case vl::Verdict::kViolated: return LayoutProofReport::violated;
    case vl::Verdict::kInconclusive: return LayoutProofReport::inconclusive;
  }
  return LayoutProofReport::VERDICT_UNSET;
}

void FillReport(const vl::Proof& p, const sim::layout::Encoding& e, LayoutProofReport* r) {
  r->set_verdict(ToProto(p.verdict));
  r->set_property(std::string(vl::PropertyName(p.property)));
  if (p.access != vl::Access::kNone) r->set_access(std::string(vl::AccessName(p.access)));
  r->set_attr(sim::layout::PrintEncoding(e));
  for (const vl::Param& f : p.family) {
    LayoutParamRange* pr = r->add_family();
    pr->set_name(f.name);
    pr->set_lo(f.range.lo);
    pr->set_hi(f.range.hi);
  }
  for (const vl::Coverage& c : p.coverage) {
    LayoutCoverage* pc = r->add_coverage();
    pc->set_box(c.box);
    pc->set_mode(c.mode);
    pc->set_points(c.points);
    pc->set_verdict(c.verdict);
    pc->set_note(c.note);
    pc->set_ms(c.ms);
  }
  if (p.counterexample) {
    const vl::Counterexample& c = *p.counterexample;
    LayoutCounterexample* pc = r->mutable_counterexample();
    for (const auto& [name, value] : c.params) {
      LayoutParamValue* v = pc->add_params();
      v->set_name(name);
      v->set_value(value);
    }
    for (int64_t s : c.shape) pc->add_shape(s);
    pc->set_kind(c.kind);
    for (int64_t o : c.offsets) pc->add_offsets(o);
    for (const auto& el : c.elements) {
      for (int64_t x : el) pc->add_elements(x);
    }
    for (int32_t l : c.lanes) pc->add_lanes(l);
    for (int64_t a : c.addresses) pc->add_addresses(a);
    pc->set_request(c.request);
    pc->set_wavefronts(c.wavefronts);
    pc->set_text(c.text);
  }
  r->set_points(p.points);
  r->set_admitted(p.admitted);
  r->set_queries(p.queries);
  r->set_solver_ms(p.solver_ms);
  r->set_wall_ms(p.wall_ms);
  for (const std::string& n : p.notes) r->add_notes(n);
}

void PrintText(const LayoutProofReport& r, std::ostream& out) {
  out << "prove layout " << r.attr() << "\n  property " << r.property();
  if (!r.access().empty()) out << " (" << r.access() << ")";
  std::vector<std::string> fam;
  for (const LayoutParamRange& f : r.family()) {
    fam.push_back(absl::StrCat(f.name(), "=", f.lo() == f.hi() ? absl::StrCat(f.lo())
                                                               : absl::StrCat(f.lo(), "..", f.hi())));
  }
  out << "\n  family " << absl::StrJoin(fam, " ") << "\n";
  out << LayoutProofReport::Verdict_Name(r.verdict()) << ": " << r.points() << " points, "
      << r.admitted() << " admitted, " << r.queries() << " queries, solver "
      << absl::StrFormat("%.1f", r.solver_ms()) << " ms, wall "
      << absl::StrFormat("%.1f", r.wall_ms()) << " ms\n";
  for (const LayoutCoverage& c : r.coverage()) {
    out << absl::StrFormat("  %-12s %-12s %6d points  %8.1f ms  %s", c.mode(), c.verdict(),
                           c.points(), c.ms(), c.box());
    if (!c.note().empty()) out << "\n      " << c.note();
    out << "\n";
  }
  if (r.has_counterexample()) {
    const LayoutCounterexample& c = r.counterexample();
    std::vector<std::string> params;
    for (const LayoutParamValue& v : c.params()) params.push_back(absl::StrCat(v.name(), "=", v.value()));
    out << "counterexample (" << c.kind() << ") at " << absl::StrJoin(params, " ") << ":\n  "
        << c.text() << "\n";
  }
  for (const std::string& n : r.notes()) out << "note: " << n << "\n";
}

// The family from ATTR and the flags; InvalidArgument for bad input.
absl::StatusOr<vl::Family> ReadFamily(const ParsedArgs& args, vl::Property property) {
  auto encoding = sim::layout::ParseEncoding(args.positional[0], sim::layout::SourceLocation{});
  if (!encoding.ok()) return encoding.status();
  std::vector<vl::Range> shape;
  for (absl::string_view part : absl::StrSplit(*args.Get("shape"), 'x')) {
    absl::StatusOr<vl::Range> r = vl::ParseRange("--shape", part, 4096);
    if (!r.ok()) return r.status();
    if (!sim::base::IsPowerOf2(r->lo)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shape: ", r->lo, " is not a power of two, and layouts have power-of-two dims"));
    }
    shape.push_back(*r);
  }
  std::vector<vl::Param> overrides;
  for (const RangeFlag& f : kRangeFlags) {
    if (auto v = args.Get(f.flag)) {
      const int64_t min = f.flag == std::string("swizzle-bytes") ? 0 : 1;
      absl::StatusOr<vl::Range> r =
          vl::ParseRange(absl::StrCat("--", f.flag), *v, f.max, min);
      if (!r.ok()) return r.status();
      overrides.push_back({f.flag, *r});
    }
  }
  return vl::MakeFamily(*encoding, shape, overrides, property);
}

}  // namespace

const std::set<std::string>& ProveLayoutValueFlags() {
  static const std::set<std::string> kFlags = {
      "shape", "property", "access", "vec", "per-phase", "max-phase", "swizzle-bytes",
      "element-bits", "engine", "rlimit", "max-points", "format"};
  return kFlags;
}

int RunProveLayout(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                   Report* report_out) {
  if (args.Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  auto format = ParseFormatFlag(args);
  if (!format.ok()) return Fail(err, format.status().message(), kExitUsage);
  if (args.positional.size() != 1) {
    err << kUsage;
    return Fail(err, args.positional.empty() ? "missing ATTR (the shared layout attribute)"
                                             : "expected exactly one ATTR; quote the attribute",
                kExitUsage);
  }
  if (!args.Has("shape")) return Fail(err, "--shape is required (e.g. --shape=64x64)", kExitUsage);
  absl::StatusOr<vl::Property> property =
      vl::ParseProperty(args.Get("property").value_or("bijective"));
  if (!property.ok()) return Fail(err, property.status().message(), kExitUsage);
  vl::Access access = vl::Access::kNone;
  if (*property == vl::Property::kBankConflictFree) {
    if (!args.Has("access")) {
      return Fail(err, "--property=bank-conflict-free needs --access=v4|ldmatrix|stmatrix",
                  kExitUsage);
    }
    absl::StatusOr<vl::Access> a = vl::ParseAccess(*args.Get("access"));
    if (!a.ok()) return Fail(err, a.status().message(), kExitUsage);
    access = *a;
  } else if (args.Has("access")) {
    return Fail(err, "--access applies only to --property=bank-conflict-free", kExitUsage);
  }
  vl::ProveOptions options;
  const std::string engine = args.Get("engine").value_or("symbolic");
  if (engine != "symbolic" && engine != "enumerated") {
    return Fail(err, "--engine: expected symbolic or enumerated", kExitUsage);
  }
  options.symbolic = engine == "symbolic";
  auto rlimit = args.GetInt("rlimit", 1, int64_t{1} << 32);
  if (!rlimit.ok()) return Fail(err, rlimit.status().message(), kExitUsage);
  if (rlimit->has_value()) options.rlimit = static_cast<uint64_t>(**rlimit);
  auto max_points = args.GetInt("max-points", 1, int64_t{1} << 24);
  if (!max_points.ok()) return Fail(err, max_points.status().message(), kExitUsage);
  if (max_points->has_value()) options.max_points = **max_points;

  absl::StatusOr<vl::Family> family = ReadFamily(args, *property);
  if (!family.ok()) {
    PrintError(err, family.status().message());
    return ExitCodeFor(family.status());
  }
  absl::StatusOr<vl::Proof> proof = vl::Prove(*family, *property, access, options);
  if (!proof.ok()) {
    PrintError(err, proof.status().message());
    return ExitCodeFor(proof.status());
  }
  Report report;
  FillReport(*proof, *family->encoding, report.mutable_layout_proof());
  if (report_out) *report_out = report;
  if (!PrintMachineReport(report, *format, out)) PrintText(report.layout_proof(), out);
  return ExitCodeFor(report);
}

}  // namespace warpcheck::cli
