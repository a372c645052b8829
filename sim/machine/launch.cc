#include "sim/machine/launch.h"

#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "sim/base/field_position.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/machine.h"
#include "sim/machine/program.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::machine {

namespace {

constexpr uint32_t kMaxSharedBytes = 227 * 1024;  // H200 per-block opt-in maximum

absl::Status Invalid(const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// The same, about the spec's field at `field` (sim/base/field_position.h).
absl::Status Invalid(const std::string& where, absl::string_view what,
                     absl::string_view field) {
  return base::WithField(Invalid(where, what), field);
}

// The rules every runner shares (sim/launch); a module given directly needs no file.
absl::Status Validate(const warpcheck::LaunchSpec& spec) {
  absl::Status valid;
  if (spec.ptx_file().empty()) {
    warpcheck::LaunchSpec checked = spec;
    checked.set_ptx_file("<module>");
    valid = sim::launch::ValidateLaunchSpec(checked);
  } else {
    valid = sim::launch::ValidateLaunchSpec(spec);
  }
  if (!valid.ok())
    return base::WithMessage(valid, absl::StrCat("launch spec: ", valid.message()));
  return absl::OkStatus();
}

// The kernel the spec names, or the module's only kernel.
absl::StatusOr<const ptx::Kernel*> FindKernel(const warpcheck::LaunchSpec& spec,
                                              const ptx::Module& module,
                                              const std::string& where) {
  if (spec.kernel().empty()) {
    if (module.kernels.size() != 1) {
      return Invalid(where,
                     absl::StrCat("the module has ", module.kernels.size(),
                                  " kernels; name one with `kernel:`"),
                     "ptx_file");
    }
    return &module.kernels[0];
  }
  const ptx::Kernel* kernel = nullptr;
  for (const ptx::Kernel& k : module.kernels) {
    if (k.name == spec.kernel()) kernel = &k;
  }
  if (kernel == nullptr)
    return Invalid(where, absl::StrCat("no kernel named '", spec.kernel(), "'"), "kernel");
  return kernel;
}

struct Geometry {
  Dim3 grid;
  Dim3 block;
};

// The grid and block, checked against the kernel's .reqntid/.maxntid and the shared
// memory limit.
absl::StatusOr<Geometry> CheckGeometry(const warpcheck::LaunchSpec& spec,
                                       const Program& program,
                                       const std::string& kernel_name) {
  Dim3 grid{spec.grid().x(), sim::launch::DimOr1(spec.grid().y()), sim::launch::DimOr1(spec.grid().z())};
  Dim3 block{spec.block().x(), sim::launch::DimOr1(spec.block().y()),
             sim::launch::DimOr1(spec.block().z())};
  if (uint64_t(grid.x) * grid.y * grid.z > (uint64_t{1} << 31)) {
    return Invalid("launch spec", "grid too large", "grid");
  }
  if (!program.reqntid.empty()) {
    uint32_t want[3] = {1, 1, 1};
    for (size_t i = 0; i < program.reqntid.size(); ++i)
      want[i] = uint32_t(program.reqntid[i]);
    if (want[0] != block.x || want[1] != block.y || want[2] != block.z) {
      return Invalid("launch spec",
                     absl::StrFormat("kernel '%s' requires .reqntid %u,%u,%u; the "
                                     "block is %u,%u,%u",
                                     kernel_name, want[0], want[1], want[2], block.x,
                                     block.y, block.z),
                     "block");
    }
  }
  if (!program.maxntid.empty()) {
    uint64_t most = 1;
    for (int v : program.maxntid) most *= uint64_t(v);
    if (block.Count() > most) {
      return Invalid("launch spec",
                     absl::StrCat("kernel '", kernel_name, "' allows at most ", most,
                                  " threads (.maxntid)"),
                     "block");
    }
  }
  uint64_t shared = uint64_t(program.dynamic_shared_offset) + spec.dynamic_shared_bytes();
  if (program.static_shared_bytes > kMaxSharedBytes || shared > kMaxSharedBytes) {
    return Invalid("launch spec",
                   absl::StrCat("shared memory (", shared, " bytes) exceeds the ",
                                kMaxSharedBytes, "-byte limit"),
                   "dynamic_shared_bytes");
  }
  return Geometry{grid, block};
}

// The kernel's parameter block, and each buffer param's region in global memory.
struct Arguments {
  std::vector<uint8_t> params;
  std::vector<std::pair<std::string, size_t>> buffer_regions;  // name, region index + 1
};

// Fills every buffer param into `global` and lays out the parameter block.
absl::StatusOr<Arguments> BuildArguments(const warpcheck::LaunchSpec& spec,
                                         const Program& program,
                                         const std::string& kernel_name,
                                         const std::string& base_dir,
                                         GlobalMemory& global) {
  if (spec.param_size() != static_cast<int>(program.params.size())) {
    return Invalid("launch spec",
                   absl::StrCat("the spec has ", spec.param_size(), " params; kernel '",
                                kernel_name, "' takes ", program.params.size()));
  }
  Arguments a;
  a.params.assign(program.param_bytes, 0);
  for (int i = 0; i < spec.param_size(); ++i) {
    const warpcheck::Param& p = spec.param(i);
    const ParamSlot& slot = program.params[i];
    std::string pw = absl::StrCat("param ", i + 1, " ('", slot.name, "')");
    uint64_t address = 0;
    if (p.kind_case() == warpcheck::Param::kBuffer) {
      const warpcheck::BufferParam& b = p.buffer();
      if (b.name().empty()) return Invalid(pw, "a buffer needs a name");
      for (const auto& [n, idx] : a.buffer_regions) {
        if (n == b.name())
          return Invalid(pw, absl::StrCat("buffer name '", n, "' is used twice"));
      }
      absl::StatusOr<std::vector<uint8_t>> bytes = launch::FillBuffer(b, base_dir);
      if (!bytes.ok())
        return base::WithField(bytes.status(), absl::StrCat("param[", i, "].buffer"));
      address = global.Add(b.name(), *std::move(bytes));
      // Add() keeps regions sorted by base, and bases only grow, so the region of this
      // buffer is the last one.
      a.buffer_regions.emplace_back(b.name(), global.regions().size());
    }
    const sim::launch::ParamValue value = sim::launch::EncodeParam(p, address);
    if (value.size == 0) return Invalid(pw, "the param has no value");
    if (value.size != slot.size) {
      return Invalid(pw, absl::StrCat("the kernel declares .", ptx::TypeName(slot.type),
                                      " (", slot.size, " bytes) but the spec gives a ",
                                      value.size, "-byte value"));
    }
    std::memcpy(a.params.data() + slot.offset, &value.bits, value.size);
  }
  return a;
}

// The trace file, written as `path.partial` and renamed when the run is complete.
class TraceFile {
 public:
  absl::Status Open(const std::string& path) {
    if (path.empty()) return absl::OkStatus();
    absl::StatusOr<std::unique_ptr<base::AtomicFileWriter>> opened = base::AtomicFileWriter::Open(path);
    if (!opened.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot write"));
    out_ = *std::move(opened);
    out_->stream() << "# warpcheck sim trace v1: cta x,y,z warp W pc PC line LINE mask "
                      "EXECUTING_LANES  "
                      "INSTRUCTION\n";
    return absl::OkStatus();
  }
  std::ostream* stream() { return out_ == nullptr ? nullptr : &out_->stream(); }
  // Renames the finished trace over its path (sim/base/file.h: a crash never leaves half
  // a trace under the name).
  absl::Status Finish() {
    if (out_ == nullptr) return absl::OkStatus();
    if (absl::Status committed = out_->Commit(); !committed.ok())
      return absl::InternalError(committed.message());
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<base::AtomicFileWriter> out_;
};

// The machine's options from the run options and the spec.
Options MachineOptions(const warpcheck::LaunchSpec& spec, const RunOptions& options,
                       const Arguments& args, GlobalMemory& global, TraceFile& trace) {
  Options mopt;
  mopt.max_instructions_per_thread =
      options.max_instructions_per_thread != 0  ? options.max_instructions_per_thread
      : spec.max_instructions_per_thread() != 0 ? spec.max_instructions_per_thread()
                                                : 100'000'000;
  mopt.max_resident_ctas = options.max_resident_ctas;
  mopt.detect_races = options.detect_races;
  mopt.fast_ldst = options.fast_ldst;
  mopt.fast_straight_line = options.fast_straight_line;
  mopt.zero_every_register = options.zero_every_register;
  mopt.poison_unzeroed_registers = options.poison_unzeroed_registers;
  mopt.trace = trace.stream();
  mopt.shared_cost_memo = options.shared_cost_memo;
  mopt.count_banks = options.report_counters;  // the bank figures are read only there
  mopt.count_banks_below_pc = options.count_banks_below_pc;
  if (!options.watch_buffer.empty()) {
    for (const auto& [n, idx] : args.buffer_regions) {
      if (n == options.watch_buffer) {
        mopt.watch_global_address = global.region(idx - 1)->base + options.watch_offset;
      }
    }
  }
  return mopt;
}

// "CTA (x,y,z) thread T (warp W, lane L), line N: <instruction>, element E (<reg>)".
std::string DescribeWatchHit(const StoreRecord& hit) {
  // The register of the stored element: the E-th name inside `{...}` (or the last
  // operand of a scalar store).
  std::string reg;
  const std::string& t = hit.text;
  size_t open = t.find('{'), close = t.find('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    std::vector<std::string> regs =
        absl::StrSplit(t.substr(open + 1, close - open - 1), ',', absl::SkipWhitespace());
    if (hit.element < regs.size())
      reg = std::string(absl::StripAsciiWhitespace(regs[hit.element]));
  } else if (size_t comma = t.rfind(','); comma != std::string::npos) {
    reg = std::string(absl::StripAsciiWhitespace(
        absl::StripSuffix(absl::string_view(t).substr(comma + 1), ";")));
  }
  return absl::StrFormat(
      "CTA (%u,%u,%u) thread %u (warp %u, lane %u), line %u: %s, element %u (%s)",
      hit.cta[0], hit.cta[1], hit.cta[2], hit.thread, hit.thread / 32, hit.thread % 32,
      hit.line, hit.text, hit.element, reg);
}

void AddFaults(const std::vector<Fault>& faults, warpcheck::SimReport& r) {
  for (const Fault& f : faults) {
    warpcheck::SimFault* sf = r.add_faults();
    sf->set_kind(f.kind);
    sf->add_cta(f.cta[0]);
    sf->add_cta(f.cta[1]);
    sf->add_cta(f.cta[2]);
    sf->set_thread(f.thread);
    sf->set_pc(f.pc);
    sf->set_line(f.line);
    sf->set_text(f.text);
  }
}

void AddCounters(const Counters& k, warpcheck::SimReport& r) {
  // The keys are made once per process: a key built per insertion (strlen, and a heap
  // string past 15 characters) was most of this function's cost on small runs.
  enum : int {
    kInstructions, kWarpInstructions, kShfl, kBarriers, kSmemRequests, kSmemWavefronts,
    kBankConflicts, kSmemRequestsLoad, kSmemRequestsStore, kSmemWavefrontsLoad,
    kSmemWavefrontsStore, kBankConflictsLoad, kBankConflictsStore, kGlobalBytesLoad,
    kGlobalBytesStore, kSameValueWriteRaces, kFirstClass
  };
  static const auto* const keys = [] {
    auto* out = new std::vector<std::string>{
        "instructions",         "warp_instructions",
        "shfl",                 "barriers",
        "smem_requests",        "smem_wavefronts",
        "bank_conflicts",       "smem_requests.load",
        "smem_requests.store",  "smem_wavefronts.load",
        "smem_wavefronts.store", "bank_conflicts.load",
        "bank_conflicts.store", "global_bytes.load",
        "global_bytes.store",   "shared_same_value_write_races"};
    for (int i = 0; i < int(ptx::OpClass::kNumClasses); ++i)
      out->push_back(absl::StrCat("class.", ptx::OpClassName(ptx::OpClass(i))));
    return out;
  }();
  const std::vector<std::string>& key = *keys;
  auto& c = *r.mutable_counters();
  c[key[kInstructions]] = k.thread_instructions;
  c[key[kWarpInstructions]] = k.warp_instructions;
  c[key[kShfl]] = k.by_class[int(ptx::OpClass::kShfl)];
  c[key[kBarriers]] = k.barriers;
  c[key[kSmemRequests]] = k.smem_requests[0] + k.smem_requests[1];
  c[key[kSmemWavefronts]] = k.smem_wavefronts[0] + k.smem_wavefronts[1];
  c[key[kBankConflicts]] = k.bank_conflicts[0] + k.bank_conflicts[1];
  c[key[kSmemRequestsLoad]] = k.smem_requests[0];
  c[key[kSmemRequestsStore]] = k.smem_requests[1];
  c[key[kSmemWavefrontsLoad]] = k.smem_wavefronts[0];
  c[key[kSmemWavefrontsStore]] = k.smem_wavefronts[1];
  c[key[kBankConflictsLoad]] = k.bank_conflicts[0];
  c[key[kBankConflictsStore]] = k.bank_conflicts[1];
  c[key[kGlobalBytesLoad]] = k.global_bytes[0];
  c[key[kGlobalBytesStore]] = k.global_bytes[1];
  c[key[kSameValueWriteRaces]] = k.same_value_write_races;
  for (int i = 0; i < int(ptx::OpClass::kNumClasses); ++i) {
    c[key[kFirstClass + i]] = k.by_class[i];
  }
}

// The launch after validation and decoding.
absl::StatusOr<LaunchResult> RunDecoded(const warpcheck::LaunchSpec& spec,
                                        const Program& program, const std::string& base_dir,
                                        const RunOptions& options) {
  ASSIGN_OR_RETURN(Geometry geometry, CheckGeometry(spec, program, program.kernel));
  GlobalMemory global;
  ASSIGN_OR_RETURN(Arguments args,
                   BuildArguments(spec, program, program.kernel, base_dir, global));
  std::vector<uint64_t> global_addrs;
  for (const GlobalVar& g : program.globals)
    global_addrs.push_back(global.Add(g.name, g.init));

  TraceFile trace;
  RETURN_IF_ERROR(trace.Open(options.trace_path));
  Machine machine(program, MachineOptions(spec, options, args, global, trace),
                  geometry.grid, geometry.block, spec.dynamic_shared_bytes(),
                  std::move(args.params), &global, global_addrs);
  machine.Run();
  RETURN_IF_ERROR(trace.Finish());

  LaunchResult result;
  if (const auto& hit = machine.watch_hit()) result.watch = DescribeWatchHit(*hit);
  warpcheck::SimReport& r = result.report;
  AddFaults(machine.faults(), r);
  if (options.report_counters) AddCounters(machine.counters(), r);
  for (const auto& [name, idx] : args.buffer_regions) {
    // The machine is done with global memory: the bytes move into the result.
    result.buffers.push_back(BufferBytes{name, std::move(global.region(idx - 1)->data)});
  }
  sim::launch::RunVerdict verdict =
      sim::launch::JudgeRun(spec, result.buffers, /*faulted=*/!machine.faults().empty(),
                            options.hash_buffers);
  for (warpcheck::SimBuffer& b : verdict.buffers) *r.add_buffers() = std::move(b);
  for (warpcheck::SimExpectationResult& e : verdict.expectations)
    *r.add_expectations() = std::move(e);
  r.set_ok(verdict.ok);
  return result;
}

}  // namespace

absl::StatusOr<LaunchResult> RunLaunchSpecOnModule(const warpcheck::LaunchSpec& spec,
                                                   const ptx::Module& module,
                                                   const std::string& base_dir,
                                                   const RunOptions& options) {
  RETURN_IF_ERROR(Validate(spec));
  const std::string where = spec.ptx_file().empty() ? "launch spec" : spec.ptx_file();
  ASSIGN_OR_RETURN(const ptx::Kernel* kernel, FindKernel(spec, module, where));
  ASSIGN_OR_RETURN(Program program, Decode(module, *kernel));
  return RunDecoded(spec, program, base_dir, options);
}

absl::StatusOr<LaunchResult> RunLaunchSpecOnProgram(const warpcheck::LaunchSpec& spec,
                                                    const Program& program,
                                                    const std::string& base_dir,
                                                    const RunOptions& options) {
  RETURN_IF_ERROR(Validate(spec));
  if (!spec.kernel().empty() && spec.kernel() != program.kernel) {
    return Invalid(spec.ptx_file().empty() ? "launch spec" : spec.ptx_file(),
                   absl::StrCat("no kernel named '", spec.kernel(), "'"), "kernel");
  }
  return RunDecoded(spec, program, base_dir, options);
}

absl::StatusOr<LaunchResult> RunLaunchSpec(const warpcheck::LaunchSpec& spec,
                                           const std::string& base_dir,
                                           const RunOptions& options) {
  if (spec.ptx_file().empty()) return Invalid("launch spec", "ptx_file is empty");
  std::filesystem::path ptx = std::filesystem::path(base_dir) / spec.ptx_file();
  ASSIGN_OR_RETURN(ptx::Module module, ptx::ParseModuleFile(ptx.string()));
  return RunLaunchSpecOnModule(spec, module, base_dir, options);
}

absl::StatusOr<LaunchResult> RunLaunchSpecFileWithBuffers(const std::string& path,
                                                          const RunOptions& options) {
  ASSIGN_OR_RETURN(warpcheck::LaunchSpec spec, launch::LoadLaunchSpec(path));
  const std::string parent = std::filesystem::path(path).parent_path().string();
  const std::string dir = parent.empty() ? std::string(".") : parent;
  absl::StatusOr<LaunchResult> result = RunLaunchSpec(spec, dir, options);
  // An error about the spec itself ("launch spec: grid too large", "param 2 ...") names
  // the spec's file, as every reader's error names where; one that already points into
  // a file (the spec, or its PTX at "<dir>/...:line:col") stays as it is.
  if (result.ok() || absl::StartsWith(result.status().message(), path) ||
      absl::StartsWith(result.status().message(), dir + "/")) {
    return result;
  }
  // At the spec's field when the error names one (sim/base/field_position.h).
  return base::LocateInTextProtoFile(
      base::WithMessage(result.status(), absl::StrCat(path, ": ", result.status().message())),
      path, warpcheck::LaunchSpec());
}

absl::StatusOr<warpcheck::SimReport> RunLaunchSpecFile(const std::string& path,
                                                       const RunOptions& options) {
  ASSIGN_OR_RETURN(LaunchResult r, RunLaunchSpecFileWithBuffers(path, options));
  return std::move(r.report);
}

absl::Status CheckSimExpect(const warpcheck::LaunchSpec& spec,
                            const warpcheck::SimReport& report) {
  bool want_ok = spec.has_sim_expect() ? spec.sim_expect().ok() : true;
  if (report.ok() != want_ok) {
    std::string why =
        report.faults_size() > 0
            ? absl::StrCat(report.faults(0).kind(), ": ", report.faults(0).text())
            : "";
    for (const auto& e : report.expectations()) {
      if (!e.ok() && why.empty()) why = absl::StrCat(e.name(), ": ", e.detail());
    }
    return absl::FailedPreconditionError(
        absl::StrCat("expected ok: ", want_ok ? "true" : "false", ", got ",
                     report.ok() ? "true" : "false", why.empty() ? "" : " (", why,
                     why.empty() ? "" : ")"));
  }
  const std::string& kind = spec.sim_expect().fault_kind();
  if (!kind.empty()) {
    for (const auto& f : report.faults()) {
      if (f.kind() == kind) return absl::OkStatus();
    }
    return absl::FailedPreconditionError(absl::StrCat("expected a ", kind, " fault"));
  }
  return absl::OkStatus();
}

}  // namespace warpcheck::sim::machine
