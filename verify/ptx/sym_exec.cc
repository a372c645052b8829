// SymbolicLaunch: set-up, the schedule, memory, operands and terms (sym_exec.h says
// what and why). The per-opcode semantics are in sym_semantics.cc and sym_warp.cc.
#include "verify/ptx/sym_exec.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/base/status_macros.h"
#include "sim/launch/launch_spec.h"
#include "sim/machine/memory.h"
#include "sim/machine/program.h"
#include "verify/ptx/sym_exec_internal.h"

namespace warpcheck::verify::ptx {

namespace sm = ::warpcheck::sim::machine;
using sp::Opcode;
using sp::OperandKind;
using sp::Space;
using sp::Type;

namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

bool IsWarpLevel(Opcode op) {
  switch (op) {
    case Opcode::kShfl:
    case Opcode::kVote:
    case Opcode::kBarWarpSync:
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
      return true;
    default:
      return false;
  }
}

// ---- set-up ----------------------------------------------------------------------------

SymbolicLaunch::SymbolicLaunch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SymbolicLaunch::~SymbolicLaunch() = default;

namespace {

absl::Status SetUpCode(SymbolicLaunch::Impl& m) {
  for (const sp::Statement& s : m.kernel->body) {
    if (s.kind == sp::Statement::Kind::kLabel) {
      m.labels[s.label] = static_cast<uint32_t>(m.code.size());
    } else if (s.kind == sp::Statement::Kind::kInstruction) {
      m.code.push_back(&s.insn);
    }
  }
  for (const sp::Register& r : m.kernel->registers) {
    m.reg_bits.push_back(r.type == Type::kPred ? 1 : sp::TypeBits(r.type));
  }
  return absl::OkStatus();
}

// Shared variables where sim/machine's decoder placed them; the shared window the
// machine gives the launch (static arrays, then the dynamic one).
absl::Status SetUpShared(SymbolicLaunch::Impl& m, const sm::Program& program) {
  if (!program.globals.empty() || program.local_bytes > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        m.module->file, ": the prover takes no .global/.const or .local variables"));
  }
  for (const auto& [name, address] : program.shared_symbols) m.shared_symbols[name] = address;
  uint64_t total = program.has_dynamic_shared
                       ? uint64_t{program.dynamic_shared_offset} + m.spec.dynamic_shared_bytes()
                       : program.static_shared_bytes;
  if (total > (1u << 30)) return absl::InvalidArgumentError("shared memory too large");
  m.shared_bytes = static_cast<uint32_t>(total);
  return absl::OkStatus();
}

// Parameters and buffers: parameter memory as the simulator lays it out; every buffer a
// global region and an input region.
absl::Status SetUpParams(SymbolicLaunch::Impl& m, const sm::Program& program) {
  const auto& params = program.params;
  if (static_cast<size_t>(m.spec.param_size()) != params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch spec: ", m.spec.param_size(), " params for a kernel with ",
                     params.size()));
  }
  uint64_t next_base = sm::kGlobalBase;
  uint64_t input_bits = 0;
  m.params.assign(program.param_bytes, 0);
  for (size_t i = 0; i < params.size(); ++i) {
    const sm::ParamSlot& prm = params[i];
    m.param_offset[prm.name] = prm.offset;
    const warpcheck::Param& p = m.spec.param(static_cast<int>(i));
    uint64_t address = 0;
    if (p.has_buffer()) {
      const warpcheck::BufferParam& b = p.buffer();
      address = next_base;
      next_base = AlignUp(next_base + b.size_bytes() + sm::kRegionAlign, sm::kRegionAlign);
      InputRegion in;
      in.name = b.name();
      in.first_bit = input_bits;
      in.bytes = b.size_bytes();
      in.element_bytes = std::max<uint32_t>(1, b.element_bytes());
      in.param = static_cast<int>(i);
      input_bits += in.bytes * 8;
      m.regions.push_back(GlobalRegion{address, b.size_bytes(), m.result.buffers.size()});
      SymBuffer buf;
      buf.name = b.name();
      buf.param = static_cast<int>(i);
      buf.element_bytes = in.element_bytes;
      buf.bits.resize(in.bytes * 8);
      for (uint64_t k = 0; k < in.bytes * 8; ++k) buf.bits[k] = InputAtom(in.first_bit + k);
      buf.stores.resize(in.bytes);
      m.result.buffers.push_back(std::move(buf));
      m.inputs.push_back(std::move(in));
    }
    sim::launch::ParamValue v = sim::launch::EncodeParam(p, address);
    std::memcpy(m.params.data() + prm.offset, &v.bits, std::min<uint32_t>(prm.size, 8));
  }
  if (input_bits / 8 + uint64_t{m.shared_bytes} > m.options.max_input_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch spec: ", input_bits / 8, " buffer bytes and ", m.shared_bytes,
        " shared bytes are more than the prover takes (", m.options.max_input_bytes, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SymbolicLaunch>> SymbolicLaunch::Create(
    const warpcheck::LaunchSpec& spec, const sp::Module& module, smt::Context* ctx,
    const SymExecOptions& options) {
  auto m = std::make_unique<Impl>();
  m->spec = spec;
  m->module = &module;
  m->ctx = ctx;
  m->options = options;
  RETURN_IF_ERROR(sim::launch::ValidateLaunchSpec(spec));
  for (const sp::Kernel& k : module.kernels) {
    if (spec.kernel().empty() ? module.kernels.size() == 1 : k.name == spec.kernel()) {
      m->kernel = &k;
    }
  }
  if (m->kernel == nullptr) {
    return absl::InvalidArgumentError(
        spec.kernel().empty()
            ? absl::StrCat(module.file, ": the module has ", module.kernels.size(),
                           " kernels; name one with `kernel:`")
            : absl::StrCat(module.file, ": no kernel named '", spec.kernel(), "'"));
  }
  // The simulator's decoder is the judge of the subset (what it rejects, we reject with
  // its message), and the one place parameters and shared variables are laid out.
  ASSIGN_OR_RETURN(sm::Program program, sm::Decode(module, *m->kernel));
  m->block[0] = sim::launch::DimOr1(spec.block().x());
  m->block[1] = sim::launch::DimOr1(spec.block().y());
  m->block[2] = sim::launch::DimOr1(spec.block().z());
  m->grid[0] = sim::launch::DimOr1(spec.grid().x());
  m->grid[1] = sim::launch::DimOr1(spec.grid().y());
  m->grid[2] = sim::launch::DimOr1(spec.grid().z());
  RETURN_IF_ERROR(SetUpCode(*m));
  RETURN_IF_ERROR(SetUpShared(*m, program));
  RETURN_IF_ERROR(SetUpParams(*m, program));
  return std::unique_ptr<SymbolicLaunch>(new SymbolicLaunch(std::move(m)));
}

const std::vector<InputRegion>& SymbolicLaunch::inputs() const { return impl_->inputs; }
smt::Term SymbolicLaunch::ToTerm(const Value& v) { return impl_->TermOf(v); }

size_t SymbolicLaunch::Impl::RegionIndex(uint64_t bit) const {
  auto it = std::upper_bound(inputs.begin(), inputs.end(), bit,
                             [](uint64_t b, const InputRegion& r) { return b < r.first_bit; });
  return static_cast<size_t>(it - inputs.begin()) - 1;
}

smt::Term SymbolicLaunch::Impl::ElementVar(size_t region, uint64_t element) {
  uint64_t key = (uint64_t{region} << 40) | element;
  auto it = element_vars.find(key);
  if (it != element_vars.end()) return it->second;
  const InputRegion& r = inputs[region];
  smt::Term t = ctx->BvVar(absl::StrCat(r.name, "[", element, "]"),
                           static_cast<int>(8 * r.element_bytes));
  element_vars.emplace(key, t);
  return t;
}

const InputRegion& SymbolicLaunch::RegionOf(uint64_t bit) const {
  return impl_->inputs[impl_->RegionIndex(bit)];
}

smt::Term SymbolicLaunch::ElementVar(size_t region, uint64_t element) {
  return impl_->ElementVar(region, element);
}

std::vector<SymbolicLaunch::ElementVarRef> SymbolicLaunch::ElementVars() const {
  std::vector<ElementVarRef> out;
  for (const auto& [key, var] : impl_->element_vars) {
    out.push_back(ElementVarRef{static_cast<size_t>(key >> 40), key & ((uint64_t{1} << 40) - 1),
                                var});
  }
  std::sort(out.begin(), out.end(), [](const ElementVarRef& a, const ElementVarRef& b) {
    return a.region != b.region ? a.region < b.region : a.element < b.element;
  });
  return out;
}

// ---- stopping ------------------------------------------------------------------------

bool SymbolicLaunch::Impl::Stop(RunStatus status, uint32_t pc, std::string reason) {
  if (stopped) return false;
  stopped = true;
  result.status = status;
  result.reason = std::move(reason);
  if (pc < code.size()) {
    result.line = static_cast<uint32_t>(code[pc]->loc.line);
    result.insn = code[pc]->opcode_text;
  }
  return false;
}

bool SymbolicLaunch::Impl::Fault(const Thread& t, uint32_t pc, const char* kind,
                                 std::string text) {
  return Stop(RunStatus::kFault, pc,
              absl::StrCat(kind, ": CTA ", cta_linear, " thread ", t.tid, " (warp ",
                           t.tid / 32, ", lane ", t.tid % 32, "): ", text));
}

// ---- terms ---------------------------------------------------------------------------

Value SymbolicLaunch::Impl::FromTerm(smt::Term term, int width, uint32_t pc) {
  ++result.symbolic_ops;
  if (opaque.size() >= options.max_opaque_terms) {
    Inconclusive(pc, absl::StrCat("bound hit: more than ", options.max_opaque_terms,
                                  " symbolic operations"));
    return Value::Concrete(0, width);
  }
  uint32_t id = static_cast<uint32_t>(opaque.size());
  opaque.push_back(term);
  std::vector<Atom> atoms(static_cast<size_t>(width));
  for (int i = 0; i < width; ++i) atoms[static_cast<size_t>(i)] = OpaqueAtom(id, i);
  return FromAtoms(std::move(atoms));
}

Value SymbolicLaunch::Impl::FromBool(smt::Term b, uint32_t pc) {
  return FromTerm(smt::Ite(b, ctx->Bv(1, 1), ctx->Bv(0, 1)), 1, pc);
}

// Runs of atoms from one source with consecutive bits become one extract; the pieces
// are concatenated from the top.
smt::Term SymbolicLaunch::Impl::TermOf(const Value& v) {
  if (!v.sym) return ctx->Bv(v.bits, v.width);
  std::vector<smt::Term> pieces;  // low to high
  int i = 0;
  while (i < v.width) {
    Atom a = v.atoms[static_cast<size_t>(i)];
    int j = i + 1;
    if (IsConst(a)) {
      uint64_t bits = a;
      while (j < v.width && IsConst(v.atoms[static_cast<size_t>(j)])) {
        bits |= uint64_t{v.atoms[static_cast<size_t>(j)]} << (j - i);
        ++j;
      }
      pieces.push_back(ctx->Bv(bits, j - i));
    } else if (IsOpaque(a)) {
      while (j < v.width && v.atoms[static_cast<size_t>(j)] == a + static_cast<Atom>(j - i) &&
             OpaqueBit(a) + (j - i) < 64) {
        ++j;
      }
      smt::Term t = opaque[OpaqueTerm(a)];
      int lo = OpaqueBit(a), hi = lo + (j - i) - 1;
      pieces.push_back(lo == 0 && hi == t.bv_width() - 1 ? t : smt::Extract(t, hi, lo));
    } else {
      uint64_t bit = InputBit(a);
      size_t region = RegionIndex(bit);
      const InputRegion& r = inputs[region];
      uint64_t rel = bit - r.first_bit;
      uint64_t ebits = 8ull * r.element_bytes;
      uint64_t element = rel / ebits;
      int lo = static_cast<int>(rel % ebits);
      while (j < v.width && v.atoms[static_cast<size_t>(j)] == a + static_cast<Atom>(j - i) &&
             lo + (j - i) < static_cast<int>(ebits)) {
        ++j;
      }
      smt::Term var = ElementVar(region, element);
      int hi = lo + (j - i) - 1;
      pieces.push_back(lo == 0 && hi == static_cast<int>(ebits) - 1 ? var
                                                                   : smt::Extract(var, hi, lo));
    }
    i = j;
  }
  smt::Term t = pieces.back();
  for (size_t k = pieces.size() - 1; k-- > 0;) t = smt::Concat(t, pieces[k]);
  return t;
}

std::optional<uint64_t> SymbolicLaunch::Impl::Concrete(const Value& v) {
  if (!v.sym) return v.bits;
  for (Atom a : v.atoms) {
    if (IsInput(a)) return std::nullopt;  // an input bit is never constant
  }
  return ctx->ConstValue(TermOf(v));
}

// ---- operands ------------------------------------------------------------------------

uint32_t SymbolicLaunch::Impl::Warps() const {
  return (block[0] * block[1] * block[2] + 31) / 32;
}

uint32_t SymbolicLaunch::Impl::SpecialValue(const Thread& t, sp::SpecialReg r,
                                            bool* ok) const {
  uint32_t tid = t.tid, lane = tid % 32;
  *ok = true;
  switch (r) {
    case sp::SpecialReg::kTidX: return tid % block[0];
    case sp::SpecialReg::kTidY: return (tid / block[0]) % block[1];
    case sp::SpecialReg::kTidZ: return tid / (block[0] * block[1]);
    case sp::SpecialReg::kNtidX: return block[0];
    case sp::SpecialReg::kNtidY: return block[1];
    case sp::SpecialReg::kNtidZ: return block[2];
    case sp::SpecialReg::kCtaidX: return cta_id[0];
    case sp::SpecialReg::kCtaidY: return cta_id[1];
    case sp::SpecialReg::kCtaidZ: return cta_id[2];
    case sp::SpecialReg::kNctaidX: return grid[0];
    case sp::SpecialReg::kNctaidY: return grid[1];
    case sp::SpecialReg::kNctaidZ: return grid[2];
    case sp::SpecialReg::kLaneid: return lane;
    case sp::SpecialReg::kWarpid: return tid / 32;
    case sp::SpecialReg::kNwarpid: return Warps();
    case sp::SpecialReg::kLanemaskEq: return 1u << lane;
    case sp::SpecialReg::kLanemaskLe: return static_cast<uint32_t>((uint64_t{2} << lane) - 1);
    case sp::SpecialReg::kLanemaskLt: return (1u << lane) - 1;
    case sp::SpecialReg::kLanemaskGe: return ~((1u << lane) - 1);
    case sp::SpecialReg::kLanemaskGt: return static_cast<uint32_t>(~((uint64_t{2} << lane) - 1));
    default:
      *ok = false;  // clocks: their value is not a function of the program
      return 0;
  }
}

Value SymbolicLaunch::Impl::Read(const Thread& t, const sp::Operand& o, Type type) {
  int bits = type == Type::kPred ? 1 : sp::TypeBits(type);
  switch (o.kind) {
    case OperandKind::kReg:
      return Resize(t.regs[static_cast<size_t>(o.reg)], bits);
    case OperandKind::kImm:
      return Value::Concrete(sm::ImmValue(o, type), bits);
    case OperandKind::kSpecial: {
      bool ok;
      uint32_t v = SpecialValue(t, o.special, &ok);
      if (!ok) Inconclusive(t.pc, absl::StrCat(sp::SpecialRegName(o.special),
                                               " has no value the proof can use"));
      return Value::Concrete(v, bits);
    }
    case OperandKind::kSymbol: {
      if (auto it = shared_symbols.find(o.name); it != shared_symbols.end()) {
        return Value::Concrete(it->second, bits);
      }
      if (auto it = param_offset.find(o.name); it != param_offset.end()) {
        return Value::Concrete(it->second, bits);
      }
      Inconclusive(t.pc, absl::StrCat("'", o.name, "' is not a variable the prover knows"));
      return Value::Concrete(0, bits);
    }
    case OperandKind::kVector: {
      // {a, b, ...}: elements low to high, each an equal share of the width.
      int n = static_cast<int>(o.elems.size());
      int eb = bits / std::max(n, 1);
      Type et = eb == 8 ? Type::kB8 : eb == 16 ? Type::kB16 : eb == 32 ? Type::kB32 : Type::kB64;
      std::vector<Atom> atoms;
      for (const sp::Operand& e : o.elems) {
        std::vector<Atom> a = AtomsOf(Read(t, e, et));
        atoms.insert(atoms.end(), a.begin(), a.end());
      }
      return FromAtoms(std::move(atoms));
    }
    default:
      Inconclusive(t.pc, "an operand kind the prover does not read");
      return Value::Concrete(0, bits);
  }
}

void SymbolicLaunch::Impl::Write(Thread& t, const sp::Operand& o, const Value& v, bool sign) {
  switch (o.kind) {
    case OperandKind::kReg:
      t.regs[static_cast<size_t>(o.reg)] =
          Resize(v, reg_bits[static_cast<size_t>(o.reg)], sign);
      return;
    case OperandKind::kSink:
      return;
    case OperandKind::kVector: {
      int n = static_cast<int>(o.elems.size());
      int eb = v.width / std::max(n, 1);
      std::vector<Atom> all = AtomsOf(v);
      for (int k = 0; k < n; ++k) {
        std::vector<Atom> part(all.begin() + k * eb, all.begin() + (k + 1) * eb);
        Write(t, o.elems[static_cast<size_t>(k)], FromAtoms(std::move(part)), sign);
      }
      return;
    }
    default:
      Inconclusive(t.pc, "a destination kind the prover does not write");
  }
}

std::optional<bool> SymbolicLaunch::Impl::Pred(const Thread& t, const sp::Operand& o) {
  Value v = t.regs[static_cast<size_t>(o.reg)];
  std::optional<uint64_t> c = Concrete(v);
  if (!c) return std::nullopt;
  return ((*c & 1) != 0) != o.negated;
}

std::optional<uint64_t> SymbolicLaunch::Impl::Address(const Thread& t, const sp::Operand& o,
                                                      Space space) {
  uint64_t base = 0;
  if (!o.name.empty()) {
    if (o.base_is_reg) {
      std::optional<uint64_t> b = Concrete(t.regs[static_cast<size_t>(o.reg)]);
      if (!b) return std::nullopt;
      base = *b;
    } else if (auto it = shared_symbols.find(o.name); it != shared_symbols.end()) {
      base = it->second;
    } else if (auto p = param_offset.find(o.name); p != param_offset.end()) {
      base = p->second;
    } else {
      return std::nullopt;
    }
  }
  (void)space;
  return base + static_cast<uint64_t>(o.offset);
}

// ---- memory --------------------------------------------------------------------------

std::optional<uint32_t> SymbolicLaunch::Impl::SharedOffset(const Thread& t, uint32_t pc,
                                                           uint64_t addr, uint32_t bytes,
                                                           bool store) {
  uint64_t off = addr - sm::kSharedBase;
  if (off < shared_bytes && off + bytes <= shared_bytes) return static_cast<uint32_t>(off);
  Fault(t, pc, "out_of_bounds",
        absl::StrFormat("%s of %u bytes at shared address 0x%x is outside the %u-byte "
                        "shared window",
                        store ? "store" : "load", bytes, addr, shared_bytes));
  return std::nullopt;
}

constexpr uint32_t kNoAccess = 0xFFFFFFFFu;

namespace {

bool Ordered(const Access& prev, const Thread& t) {
  return prev.tid == t.tid || t.bars > prev.bars ||
         (prev.tid / 32 == t.tid / 32 && t.wsync > prev.wsync);
}

}  // namespace

bool SymbolicLaunch::Impl::CheckShared(const Thread& t, uint32_t pc, uint32_t off,
                                       uint32_t bytes, bool write, const Atom* data) {
  Access me{t.tid, t.bars, t.wsync, pc};
  auto race = [&](const Access& other, bool other_writes, uint32_t byte) {
    auto line = [&](uint32_t p) { return p < code.size() ? code[p]->loc.line : 0; };
    return Fault(t, pc, "shared_race",
                 absl::StrFormat("thread %u %s shared byte 0x%x at line %d; thread %u %s it "
                                 "at line %d, and no barrier orders the two (a data race "
                                 "for every input)",
                                 t.tid, write ? "writes" : "reads", byte + sim::machine::kSharedBase,
                                 line(pc), other.tid, other_writes ? "wrote" : "read",
                                 line(other.pc)));
  };
  for (uint32_t k = 0; k < bytes; ++k) {
    uint32_t b = off + k;
    const Access& w = last_write[b];
    if (!write) {
      if (w.tid != kNoAccess && !Ordered(w, t)) return race(w, true, b);
      if (reads[b].empty() || reads[b].back().tid != t.tid) reads[b].push_back(me);
      continue;
    }
    // A write of the bytes already there races with nothing that only wrote them
    // (broadcast layouts store one value from several threads).
    bool same = std::equal(data + 8 * k, data + 8 * k + 8, shared.begin() + size_t{b} * 8);
    if (w.tid != kNoAccess && !Ordered(w, t) && !same) return race(w, true, b);
    for (const Access& r : reads[b]) {
      if (!Ordered(r, t)) return race(r, false, b);
    }
    last_write[b] = me;
    reads[b].clear();
  }
  return true;
}

namespace {

// Which memory an access reaches.
struct Target {
  std::vector<Atom>* bits = nullptr;
  uint64_t offset = 0;            // byte offset in `bits`
  SymBuffer* buffer = nullptr;    // global buffers (store sites)
  const std::vector<uint8_t>* param = nullptr;
};

}  // namespace

static bool ResolveTarget(SymbolicLaunch::Impl& m, const Thread& t, uint32_t pc, Space space,
                          uint64_t addr, uint32_t bytes, bool store, Target* out) {
  if (space == Space::kGeneric || space == Space::kNone) {
    if (addr - sm::kSharedWindow < sm::kWindowSize) {
      addr -= sm::kSharedWindow;
      space = Space::kShared;
    } else if (addr - sm::kLocalWindow < sm::kWindowSize) {
      m.Inconclusive(pc, "local memory is not modelled by the prover");
      return false;
    } else {
      space = Space::kGlobal;
    }
  }
  switch (space) {
    case Space::kShared:
    case Space::kSharedCluster: {
      std::optional<uint32_t> off = m.SharedOffset(t, pc, addr, bytes, store);
      if (!off) return false;
      out->bits = &m.shared;
      out->offset = *off;
      return true;
    }
    case Space::kParam:
      if (!store && addr < m.params.size() && addr + bytes <= m.params.size()) {
        out->param = &m.params;
        out->offset = addr;
        return true;
      }
      return m.Fault(t, pc, "out_of_bounds",
                     absl::StrFormat("access of %u bytes at param offset 0x%x", bytes, addr));
    case Space::kGlobal:
    case Space::kConst:
      for (const GlobalRegion& r : m.regions) {
        if (addr - r.base < r.size && addr + bytes - r.base <= r.size) {
          SymBuffer& b = m.result.buffers[r.buffer];
          out->bits = &b.bits;
          out->buffer = &b;
          out->offset = addr - r.base;
          return true;
        }
      }
      return m.Fault(t, pc, "out_of_bounds",
                     absl::StrFormat("%s of %u bytes at global address 0x%x is outside "
                                     "every buffer%s",
                                     store ? "store" : "load", bytes, addr,
                                     addr < 4096 ? " (null pointer)" : ""));
    default:
      m.Inconclusive(pc, "a state space the prover does not model");
      return false;
  }
}

bool SymbolicLaunch::Impl::Load(const Thread& t, uint32_t pc, Space space, uint64_t addr,
                                uint32_t bytes, std::vector<Atom>* out) {
  Target tg;
  if (!ResolveTarget(*this, t, pc, space, addr, bytes, false, &tg)) return false;
  if (tg.bits == &shared &&
      !CheckShared(t, pc, static_cast<uint32_t>(tg.offset), bytes, false, nullptr)) {
    return false;
  }
  out->resize(size_t{bytes} * 8);
  if (tg.param != nullptr) {
    for (uint32_t k = 0; k < bytes * 8; ++k) {
      (*out)[k] = ((*tg.param)[tg.offset + k / 8] >> (k % 8)) & 1;
    }
    return true;
  }
  std::copy_n(tg.bits->begin() + static_cast<ptrdiff_t>(tg.offset * 8), bytes * 8,
              out->begin());
  return true;
}

bool SymbolicLaunch::Impl::Store(const Thread& t, uint32_t pc, Space space, uint64_t addr,
                                 const std::vector<Atom>& atoms, uint8_t elem) {
  uint32_t bytes = static_cast<uint32_t>(atoms.size() / 8);
  Target tg;
  if (!ResolveTarget(*this, t, pc, space, addr, bytes, true, &tg)) return false;
  if (tg.bits == &shared &&
      !CheckShared(t, pc, static_cast<uint32_t>(tg.offset), bytes, true, atoms.data())) {
    return false;
  }
  std::copy(atoms.begin(), atoms.end(),
            tg.bits->begin() + static_cast<ptrdiff_t>(tg.offset * 8));
  if (tg.buffer != nullptr) {
    for (uint32_t k = 0; k < bytes; ++k) {
      tg.buffer->stores[tg.offset + k] =
          StoreSite{static_cast<int32_t>(t.tid), cta_linear,
                    static_cast<uint32_t>(code[pc]->loc.line), pc, elem};
    }
  }
  return true;
}

// ---- the schedule --------------------------------------------------------------------

namespace {

// Runs thread t until it waits, exits or the run stops.
void RunThread(SymbolicLaunch::Impl& m, Thread& t) {
  while (t.state == ThreadState::kRun && !m.stopped) {
    if (t.pc >= m.code.size()) {
      t.state = ThreadState::kExited;  // fell off the end: as ret
      return;
    }
    if (++t.steps > m.options.max_steps_per_thread) {
      m.Inconclusive(t.pc, absl::StrCat("bound hit: thread ", t.tid, " ran more than ",
                                        m.options.max_steps_per_thread, " instructions"));
      return;
    }
    ++m.result.thread_steps;
    const sp::Instruction& in = *m.code[t.pc];
    if (in.guard) {
      std::optional<bool> g = m.Pred(t, *in.guard);
      if (!g) {
        m.Inconclusive(t.pc, "the guard predicate depends on the data");
        return;
      }
      if (!*g) {
        ++t.pc;
        continue;
      }
    }
    if (IsWarpLevel(in.op)) {
      uint32_t member = 0xFFFFFFFFu;
      if (in.op == Opcode::kShfl || in.op == Opcode::kVote ||
          in.op == Opcode::kBarWarpSync) {
        std::optional<uint64_t> mm = m.Concrete(m.Read(t, in.operands.back(), Type::kB32));
        if (!mm) {
          m.Inconclusive(t.pc, "the member mask depends on the data");
          return;
        }
        member = static_cast<uint32_t>(*mm);
      }
      t.member = member;
      t.state = ThreadState::kWarpWait;
      return;
    }
    switch (in.op) {
      case Opcode::kBarSync:
      case Opcode::kBarrierSync:
      case Opcode::kBarArrive:
      case Opcode::kBarrierArrive: {
        std::optional<uint64_t> id = m.Concrete(m.Read(t, in.operands[0], Type::kB32));
        std::optional<uint64_t> count = uint64_t{0};
        if (in.operands.size() > 1) count = m.Concrete(m.Read(t, in.operands[1], Type::kB32));
        if (!id || !count || *id >= 16) {
          m.Inconclusive(t.pc, "a barrier id or count the prover cannot use");
          return;
        }
        uint32_t nthreads = m.block[0] * m.block[1] * m.block[2];
        if (*count != 0 && *count != nthreads) {
          // The race check orders accesses by counting CTA-wide barriers.
          m.Inconclusive(t.pc, "a barrier for part of the CTA: the prover's race check "
                               "orders by CTA-wide barriers only");
          return;
        }
        m.bar_expected[*id] = static_cast<uint32_t>(*count);
        if (in.op == Opcode::kBarArrive || in.op == Opcode::kBarrierArrive) {
          ++m.bar_arrived[*id];
          ++t.pc;
          continue;
        }
        t.barrier = static_cast<uint8_t>(*id);
        t.state = ThreadState::kBarWait;
        return;
      }
      case Opcode::kRet:
      case Opcode::kExit:
        t.state = ThreadState::kExited;
        return;
      case Opcode::kBra: {
        const sp::Operand& target = in.operands[0];
        auto it = m.labels.find(target.name);
        if (it == m.labels.end()) {
          m.Inconclusive(t.pc, absl::StrCat("branch to unknown label '", target.name, "'"));
          return;
        }
        t.pc = it->second;
        continue;
      }
      default:
        if (!m.ExecPlain(t, in)) return;
        ++t.pc;
    }
  }
}

// Runs a warp-level instruction of warp w when every member lane waits at it.
bool TryWarp(SymbolicLaunch::Impl& m, uint32_t w, uint32_t nthreads) {
  uint32_t first = w * 32, last = std::min(first + 32, nthreads);
  for (uint32_t i = first; i < last; ++i) {
    Thread& t = m.threads[i];
    if (t.state != ThreadState::kWarpWait) continue;
    uint32_t pc = t.pc, lanes = 0;
    bool ready = true;
    for (uint32_t j = first; j < last; ++j) {
      const Thread& u = m.threads[j];
      bool member = (t.member >> (j - first)) & 1;
      if (u.state == ThreadState::kExited) continue;
      if (u.state == ThreadState::kWarpWait && u.pc == pc) {
        lanes |= 1u << (j - first);
      } else if (member) {
        ready = false;
      }
    }
    if (!ready) continue;
    if (!m.ExecWarp(w, lanes, pc)) return false;
    for (uint32_t j = first; j < last; ++j) {
      if ((lanes >> (j - first)) & 1) {
        m.threads[j].state = ThreadState::kRun;
        m.threads[j].pc = pc + 1;
      }
    }
    return true;
  }
  return false;
}

bool TryBarriers(SymbolicLaunch::Impl& m) {
  uint32_t live = 0, waiting[16] = {};
  for (const Thread& t : m.threads) {
    if (t.state != ThreadState::kExited) ++live;
    if (t.state == ThreadState::kBarWait) ++waiting[t.barrier];
  }
  bool released = false;
  for (int b = 0; b < 16; ++b) {
    if (waiting[b] == 0) continue;
    uint32_t expected = m.bar_expected[b] == 0 ? live : m.bar_expected[b];
    if (waiting[b] + m.bar_arrived[b] < expected) continue;
    for (Thread& t : m.threads) {
      if (t.state == ThreadState::kBarWait && t.barrier == b) {
        t.state = ThreadState::kRun;
        ++t.pc;
        ++t.bars;
      }
    }
    m.bar_arrived[b] = 0;
    released = true;
  }
  return released;
}

void RunCta(SymbolicLaunch::Impl& m) {
  uint32_t nthreads = m.block[0] * m.block[1] * m.block[2];
  m.threads.assign(nthreads, Thread{});
  for (uint32_t i = 0; i < nthreads; ++i) {
    Thread& t = m.threads[i];
    t.tid = i;
    t.regs.resize(m.reg_bits.size());
    for (size_t r = 0; r < m.reg_bits.size(); ++r) {
      t.regs[r] = Value::Concrete(0, m.reg_bits[r]);
    }
  }
  std::fill(std::begin(m.bar_arrived), std::end(m.bar_arrived), 0);
  std::fill(std::begin(m.bar_expected), std::end(m.bar_expected), 0);
  m.result.threads += nthreads;
  while (!m.stopped) {
    bool progress = false;
    for (Thread& t : m.threads) {
      if (t.state == ThreadState::kRun) {
        RunThread(m, t);
        progress = true;
      }
      if (m.stopped) return;
    }
    for (uint32_t w = 0; w * 32 < nthreads; ++w) {
      while (TryWarp(m, w, nthreads)) progress = true;
      if (m.stopped) return;
    }
    if (TryBarriers(m)) progress = true;
    bool all_exited = std::all_of(m.threads.begin(), m.threads.end(), [](const Thread& t) {
      return t.state == ThreadState::kExited;
    });
    if (all_exited) return;
    if (!progress) {
      for (const Thread& t : m.threads) {
        if (t.state == ThreadState::kExited) continue;
        m.Fault(t, t.pc, "deadlock",
                t.state == ThreadState::kBarWait
                    ? absl::StrCat("waits at barrier ", int{t.barrier},
                                   " that the other threads never reach")
                    : "waits at a warp-level instruction its member lanes never reach");
        return;
      }
    }
  }
}

}  // namespace

SymRunResult SymbolicLaunch::Run() {
  Impl& m = *impl_;
  uint64_t shared_bits = uint64_t{m.shared_bytes} * 8;
  uint64_t next_bit = m.inputs.empty() ? 0 : m.inputs.back().first_bit + m.inputs.back().bytes * 8;
  for (uint32_t z = 0; z < m.grid[2] && !m.stopped; ++z) {
    for (uint32_t y = 0; y < m.grid[1] && !m.stopped; ++y) {
      for (uint32_t x = 0; x < m.grid[0] && !m.stopped; ++x) {
        m.cta_id[0] = x;
        m.cta_id[1] = y;
        m.cta_id[2] = z;
        m.cta_linear = x + m.grid[0] * (y + m.grid[1] * z);
        // Uninitialised shared memory: its own input region per CTA, so a kernel that
        // reads what it never wrote is caught by the final query.
        if (next_bit + shared_bits > kMaxInputBits) {
          m.Inconclusive(0, "bound hit: too many CTAs for the prover's input space");
          break;
        }
        InputRegion r;
        r.name = absl::StrCat("shared_cta", m.cta_linear);
        r.first_bit = next_bit;
        r.bytes = m.shared_bytes;
        r.element_bytes = 1;
        r.is_buffer = false;
        m.inputs.push_back(r);
        m.shared.resize(shared_bits);
        m.last_write.assign(m.shared_bytes, Access{kNoAccess, 0, 0, 0});
        m.reads.assign(m.shared_bytes, {});
        for (uint64_t k = 0; k < shared_bits; ++k) m.shared[k] = InputAtom(next_bit + k);
        next_bit += shared_bits;
        RunCta(m);
      }
    }
  }
  return m.result;
}

}  // namespace warpcheck::verify::ptx
