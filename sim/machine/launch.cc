#include "sim/machine/launch.h"

#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/launch/buffer_fill.h"
#include "sim/launch/launch_spec.h"
#include "sim/launch/sha256.h"
#include "sim/machine/machine.h"
#include "sim/machine/program.h"
#include "sim/ptx/parser.h"

namespace warpcheck::sim::machine {

namespace {

constexpr uint32_t kMaxSharedBytes = 227 * 1024;  // H200 per-block opt-in maximum

absl::Status Invalid(const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

}  // namespace

absl::StatusOr<warpcheck::LaunchSpec> LoadLaunchSpec(const std::string& path) {
  return sim::LoadLaunchSpec(path);
}

absl::StatusOr<std::vector<uint8_t>> FillBuffer(const warpcheck::BufferParam& b,
                                                const std::string& base_dir) {
  return sim::FillBuffer(b, base_dir);
}

absl::StatusOr<LaunchResult> RunLaunchSpecOnModule(const warpcheck::LaunchSpec& spec,
                                                   const ptx::Module& module,
                                                   const std::string& base_dir,
                                                   const RunOptions& options) {
  const std::string where = spec.ptx_file().empty() ? "launch spec" : spec.ptx_file();
  {
    // The rules every runner shares (sim/launch); a module given directly needs no file.
    warpcheck::LaunchSpec checked = spec;
    if (checked.ptx_file().empty()) checked.set_ptx_file("<module>");
    absl::Status valid = sim::ValidateLaunchSpec(checked);
    if (!valid.ok()) return Invalid("launch spec", valid.message());
  }
  // The kernel.
  const ptx::Kernel* kernel = nullptr;
  if (spec.kernel().empty()) {
    if (module.kernels.size() != 1) {
      return Invalid(where, absl::StrCat("the module has ", module.kernels.size(),
                                         " kernels; name one with `kernel:`"));
    }
    kernel = &module.kernels[0];
  } else {
    for (const ptx::Kernel& k : module.kernels) {
      if (k.name == spec.kernel()) kernel = &k;
    }
    if (kernel == nullptr)
      return Invalid(where, absl::StrCat("no kernel named '", spec.kernel(), "'"));
  }
  ASSIGN_OR_RETURN(Program program, Decode(module, *kernel));

  // Geometry.
  Dim3 grid{spec.grid().x(), sim::DimOr1(spec.grid().y()), sim::DimOr1(spec.grid().z())};
  Dim3 block{spec.block().x(), sim::DimOr1(spec.block().y()),
             sim::DimOr1(spec.block().z())};
  if (uint64_t(grid.x) * grid.y * grid.z > (uint64_t{1} << 31)) {
    return Invalid("launch spec", "grid too large");
  }
  if (!program.reqntid.empty()) {
    uint32_t want[3] = {1, 1, 1};
    for (size_t i = 0; i < program.reqntid.size(); ++i)
      want[i] = uint32_t(program.reqntid[i]);
    if (want[0] != block.x || want[1] != block.y || want[2] != block.z) {
      return Invalid("launch spec",
                     absl::StrFormat("kernel '%s' requires .reqntid %u,%u,%u; the "
                                     "block is %u,%u,%u",
                                     kernel->name, want[0], want[1], want[2], block.x,
                                     block.y, block.z));
    }
  }
  if (!program.maxntid.empty()) {
    uint64_t most = 1;
    for (int v : program.maxntid) most *= uint64_t(v);
    if (block.Count() > most) {
      return Invalid("launch spec",
                     absl::StrCat("kernel '", kernel->name, "' allows at most ", most,
                                  " threads (.maxntid)"));
    }
  }
  uint64_t shared = uint64_t(program.dynamic_shared_offset) + spec.dynamic_shared_bytes();
  if (program.static_shared_bytes > kMaxSharedBytes || shared > kMaxSharedBytes) {
    return Invalid("launch spec",
                   absl::StrCat("shared memory (", shared, " bytes) exceeds the ",
                                kMaxSharedBytes, "-byte limit"));
  }

  // Buffers and parameters.
  if (spec.param_size() != static_cast<int>(program.params.size())) {
    return Invalid("launch spec",
                   absl::StrCat("the spec has ", spec.param_size(), " params; kernel '",
                                kernel->name, "' takes ", program.params.size()));
  }
  GlobalMemory global;
  std::vector<uint8_t> params(program.param_bytes, 0);
  std::vector<std::pair<std::string, size_t>> buffer_regions;  // name, region index
  for (int i = 0; i < spec.param_size(); ++i) {
    const warpcheck::Param& p = spec.param(i);
    const ParamSlot& slot = program.params[i];
    std::string pw = absl::StrCat("param ", i + 1, " ('", slot.name, "')");
    uint64_t value = 0;
    uint32_t size = 0;
    switch (p.kind_case()) {
      case warpcheck::Param::kBuffer: {
        const warpcheck::BufferParam& b = p.buffer();
        if (b.name().empty()) return Invalid(pw, "a buffer needs a name");
        for (const auto& [n, idx] : buffer_regions) {
          if (n == b.name())
            return Invalid(pw, absl::StrCat("buffer name '", n, "' is used twice"));
        }
        ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, FillBuffer(b, base_dir));
        value = global.Add(b.name(), std::move(bytes));
        buffer_regions.emplace_back(b.name(), global.regions().size());
        size = 8;
        break;
      }
      case warpcheck::Param::kNullPtr:
        value = 0;
        size = 8;
        break;
      case warpcheck::Param::kU32:
        value = p.u32();
        size = 4;
        break;
      case warpcheck::Param::kS32:
        value = uint32_t(p.s32());
        size = 4;
        break;
      case warpcheck::Param::kU64:
        value = p.u64();
        size = 8;
        break;
      case warpcheck::Param::kS64:
        value = uint64_t(p.s64());
        size = 8;
        break;
      case warpcheck::Param::kF32: {
        float f = p.f32();
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        value = bits;
        size = 4;
        break;
      }
      default:
        return Invalid(pw, "the param has no value");
    }
    if (size != slot.size) {
      return Invalid(pw, absl::StrCat("the kernel declares .", ptx::TypeName(slot.type),
                                      " (", slot.size, " bytes) but the spec gives a ",
                                      size, "-byte value"));
    }
    std::memcpy(params.data() + slot.offset, &value, size);
  }
  // Map region index back: Add() keeps regions sorted by base, and bases only grow, so
  // the region of buffer k is the one at its base.
  std::vector<uint64_t> global_addrs;
  for (const GlobalVar& g : program.globals)
    global_addrs.push_back(global.Add(g.name, g.init));

  Options mopt;
  mopt.max_instructions_per_thread =
      options.max_instructions_per_thread != 0  ? options.max_instructions_per_thread
      : spec.max_instructions_per_thread() != 0 ? spec.max_instructions_per_thread()
                                                : 100'000'000;
  mopt.max_resident_ctas = options.max_resident_ctas;
  mopt.detect_races = options.detect_races;
  // Streamed (a trace can be gigabytes) to a temporary renamed over trace_path at end.
  std::unique_ptr<AtomicFileWriter> trace;
  if (!options.trace_path.empty()) {
    absl::StatusOr<std::unique_ptr<AtomicFileWriter>> opened =
        AtomicFileWriter::Open(options.trace_path);
    if (!opened.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(options.trace_path, ": cannot write"));
    trace = *std::move(opened);
    trace->stream() << "# warpcheck sim trace v1: cta x,y,z warp W pc PC line LINE mask "
                       "EXECUTING_LANES  "
                       "INSTRUCTION\n";
    mopt.trace = &trace->stream();
  }
  if (!options.watch_buffer.empty()) {
    for (const auto& [n, idx] : buffer_regions) {
      if (n == options.watch_buffer) {
        mopt.watch_global_address = global.region(idx - 1)->base + options.watch_offset;
      }
    }
  }
  Machine machine(program, mopt, grid, block, spec.dynamic_shared_bytes(),
                  std::move(params), &global, global_addrs);
  machine.Run();
  if (trace != nullptr) {
    if (absl::Status committed = trace->Commit(); !committed.ok())
      return absl::InternalError(committed.message());
  }

  // The report.
  LaunchResult result;
  if (const auto& hit = machine.watch_hit()) {
    // The register of the stored element: the E-th name inside `{...}` (or the last
    // operand of a scalar store).
    std::string reg;
    const std::string& t = hit->text;
    size_t open = t.find('{'), close = t.find('}');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      std::vector<std::string> regs =
          absl::StrSplit(t.substr(open + 1, close - open - 1), ',', absl::SkipWhitespace());
      if (hit->element < regs.size()) reg = std::string(absl::StripAsciiWhitespace(regs[hit->element]));
    } else if (size_t comma = t.rfind(','); comma != std::string::npos) {
      reg = std::string(absl::StripAsciiWhitespace(
          absl::StripSuffix(absl::string_view(t).substr(comma + 1), ";")));
    }
    result.watch = absl::StrFormat(
        "CTA (%u,%u,%u) thread %u (warp %u, lane %u), line %u: %s, element %u (%s)",
        hit->cta[0], hit->cta[1], hit->cta[2], hit->thread, hit->thread / 32,
        hit->thread % 32, hit->line, hit->text, hit->element, reg);
  }
  warpcheck::SimReport& r = result.report;
  for (const Fault& f : machine.faults()) {
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
  const Counters& k = machine.counters();
  auto& c = *r.mutable_counters();
  c["instructions"] = double(k.thread_instructions);
  c["warp_instructions"] = double(k.warp_instructions);
  c["shfl"] = double(k.by_class[int(ptx::OpClass::kShfl)]);
  c["barriers"] = double(k.barriers);
  c["smem_requests"] = double(k.smem_requests[0] + k.smem_requests[1]);
  c["smem_wavefronts"] = double(k.smem_wavefronts[0] + k.smem_wavefronts[1]);
  c["bank_conflicts"] = double(k.bank_conflicts[0] + k.bank_conflicts[1]);
  c["smem_requests.load"] = double(k.smem_requests[0]);
  c["smem_requests.store"] = double(k.smem_requests[1]);
  c["smem_wavefronts.load"] = double(k.smem_wavefronts[0]);
  c["smem_wavefronts.store"] = double(k.smem_wavefronts[1]);
  c["bank_conflicts.load"] = double(k.bank_conflicts[0]);
  c["bank_conflicts.store"] = double(k.bank_conflicts[1]);
  c["global_bytes.load"] = double(k.global_bytes[0]);
  c["global_bytes.store"] = double(k.global_bytes[1]);
  c["shared_same_value_write_races"] = double(k.same_value_write_races);
  for (int i = 0; i < int(ptx::OpClass::kNumClasses); ++i) {
    c[absl::StrCat("class.", ptx::OpClassName(ptx::OpClass(i)))] = double(k.by_class[i]);
  }
  bool ok = machine.faults().empty();
  for (const auto& [bn, idx] : buffer_regions) {
    result.buffers.push_back(BufferBytes{bn, global.region(idx - 1)->data});
    warpcheck::SimBuffer* sb = r.add_buffers();
    sb->set_name(bn);
    sb->set_sha256(sim::Sha256Hex(result.buffers.back().bytes));
  }
  for (warpcheck::SimExpectationResult& e :
       sim::EvaluateExpectations(spec, result.buffers)) {
    ok = ok && e.ok();
    *r.add_expectations() = std::move(e);
  }
  r.set_ok(ok);
  return result;
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
  ASSIGN_OR_RETURN(warpcheck::LaunchSpec spec, LoadLaunchSpec(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  return RunLaunchSpec(spec, dir.empty() ? "." : dir, options);
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

int RunSimCommand(const std::string& launch_path, const RunOptions& options,
                  warpcheck::Report* report, std::string* error) {
  absl::StatusOr<warpcheck::SimReport> r = RunLaunchSpecFile(launch_path, options);
  if (!r.ok()) {
    *error = std::string(r.status().message());
    bool input = r.status().code() == absl::StatusCode::kInvalidArgument ||
                 r.status().code() == absl::StatusCode::kNotFound ||
                 r.status().code() == absl::StatusCode::kResourceExhausted;
    return input ? 2 : 6;
  }
  *report->mutable_sim() = std::move(*r);
  return report->sim().ok() ? 0 : 10;
}

}  // namespace warpcheck::sim::machine
